"""PageRank ranking of features on the explanation graph G (Bivariate Shapley paper, Section 4.1 and 5(c);
App. A, "PageRank" and Algorithm 5).

The random walk follows the edges of G, ``i -> j`` with probability proportional to ``T(W(i, j))`` (``T`` the
weight transform), and with probability ``1 - damping`` restarts at a node drawn from the personalization
distribution (uniform by default). The paper's App. A writes the restart probability as ``alpha`` while calling
``alpha = 0.85`` the damping; here, as in networkx and the PageRank paper, ``damping`` is the probability of
following an edge. A node whose transformed out-weights are all 0 (dangling) restarts from the
personalization distribution.

Where the mass collects: the walk moves towards the features that are important given the one it stands on,
so in a DAG the mass collects at the sinks of G (features whose presence makes every other feature
unimportant); high scores mean influential features. (The paper's Algorithm 4, which runs PageRank on H,
swaps source and sink; see the papers' README.)

Transforms of negative weights (Algorithm 5 uses softplus):

- ``"softplus"``: ``log(1 + exp(W))``: keeps every edge, negative ones with weight below ``log 2``. Not scale
  free: for weights much smaller than 1 all edges get about ``log 2`` and the ranking flattens towards uniform.
- ``"relu"``: ``max(W, 0)``: drops negative edges.
- ``"abs"``: ``|W|``: a negative conditional importance counts as much as a positive one.

No self-loops: the diagonal is ignored. (The authors' code added ``1e-70`` before softplus, which gave every
node a self-loop of weight ``log 2``; see the papers' README.) Cost: no model evaluations; one dense
``n x n`` linear solve (checked against ``networkx.pagerank`` in the tests).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from .._validation import check_choice, check_feature_names
from ..results import _feature_index
from .explanation import check_square

TRANSFORMS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "softplus": lambda w: np.logaddexp(0.0, w),
    "relu": lambda w: np.maximum(w, 0.0),
    "abs": np.abs,
}


def transition_weights(weights, transform: str = "softplus") -> np.ndarray:
    """The non-negative edge weights PageRank walks on: ``transform(W)`` with a zero diagonal."""
    weights = check_square(weights)
    check_choice(transform, "transform", TRANSFORMS)
    out = TRANSFORMS[transform](weights)
    np.fill_diagonal(out, 0.0)
    return out


def _personalization(personalization, n: int) -> np.ndarray | None:
    if personalization is None:
        return None
    p = np.asarray(personalization, dtype=float)
    if p.shape != (n,):
        raise ValueError(f"personalization: expected None, 'univariate' or {n} non-negative weights, "
                         f"got shape {p.shape}")
    if not np.isfinite(p).all() or (p < 0).any():
        raise ValueError("personalization: expected finite non-negative weights")
    if p.sum() == 0:
        raise ValueError("personalization: all weights are 0 (e.g. all univariate values are 0); "
                         "use personalization=None for the uniform restart")
    return p / p.sum()


@dataclass(frozen=True, eq=False)
class Ranking:
    """PageRank scores (non-negative, summing to 1), one per feature; higher = more influential."""

    scores: np.ndarray
    feature_names: tuple[str, ...]
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        scores = np.array(self.scores, dtype=float, copy=True)
        scores.setflags(write=False)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "feature_names", check_feature_names(self.feature_names, len(scores)))
        object.__setattr__(self, "info", dict(self.info))

    def order(self) -> list[str]:
        """Feature names from the highest to the lowest score (ties keep the feature order)."""
        return [self.feature_names[i] for i in np.argsort(-self.scores, kind="stable")]

    def top(self, k: int = 10) -> list[tuple[str, float]]:
        return [(name, self[name]) for name in self.order()[:k]]

    def __getitem__(self, feature) -> float:
        return float(self.scores[_feature_index(feature, self.feature_names)])

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.info.items())
        width = max([len(n) for n in self.feature_names] + [4])
        rows = "\n".join(f"  {name:<{width}}  {score:.6g}" for name, score in self.top(10))
        return f"Ranking({opts})\n{rows}"


def pagerank(weights, *, transform: str = "softplus", damping: float = 0.85, personalization=None,
             feature_names=None, personalization_label: str | None = None) -> Ranking:
    """PageRank of the features on the explanation graph with weights ``W`` (Algorithm 5).

    Scores solve ``s = damping * P^T s + (1 - damping) * p`` where ``P[i, j] = T(W(i, j)) / sum_k T(W(i, k))``
    (``T`` = ``transform``, zero diagonal; a dangling row, all of whose transformed weights are 0, is replaced by
    ``p``) and ``p`` is ``personalization`` normalised to sum 1 (uniform when None). High scores collect at the
    sinks of G: the influential features. Solved exactly as one dense linear system (``numpy.linalg.solve``,
    ``O(n^3)``: about 0.1 s for 1,000 features), which is the fixed point that ``networkx.pagerank``'s power
    iteration approximates (the tests check they agree).
    """
    transformed = transition_weights(weights, transform)
    n = len(transformed)
    names = check_feature_names(feature_names, n)
    damping = float(damping)
    if not 0.0 <= damping < 1.0:
        raise ValueError(f"damping: expected a number in [0, 1), got {damping!r}")
    p = _personalization(personalization, n)
    restart = np.full(n, 1.0 / n) if p is None else p
    out = transformed.sum(axis=1)
    dangling = out <= 0
    transition = transformed / np.where(dangling, 1.0, out)[:, None]
    transition[dangling] = restart
    system = np.eye(n) - damping * transition.T
    scores = np.linalg.solve(system, (1.0 - damping) * restart)
    scores = np.clip(scores, 0.0, None)  # round-off only: the exact solution is a probability vector
    info = {"transform": transform, "damping": damping,
            "personalization": personalization_label if personalization_label is not None
            else (None if p is None else "vector")}
    return Ranking(scores / scores.sum(), names, info)


__all__ = ["Ranking", "TRANSFORMS", "pagerank", "transition_weights"]
