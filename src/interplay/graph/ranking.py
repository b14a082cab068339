"""Rankings of features on the explanation graph G (Bivariate Shapley paper, Section 4.1 and 5(c); App. A,
"PageRank" and Algorithm 5).

:func:`rank` offers the rankings compared in ``benchmarks/results/bivariate_evaluation.md``; the default,
``"importance"``, is PageRank on ``|W|`` with restarts proportional to ``|phi|`` (personalised PageRank, the
paper's Sec. 4 "Most Influential Features" variant, with the sign of ``W`` dropped). Why not the paper's
softplus (Alg. 5): ``softplus(W)`` is smaller for a strongly negative conditional importance than for a zero one,
so a feature that pushes the output *down* (``"worst;"`` in the text demo, ``phi = -0.556``) ranked below the
words that do nothing. Dropping the sign ranks by how much a feature matters given the others, whatever the
direction; the restart by ``|phi|`` breaks the ties the paper observed (App. A, Alg. 5). On the paper's own
evaluation (post-hoc accuracy, insertion/deletion AUC) it is at least as good as ``|Shapley|`` on every task
measured (see the results file); the paper's softplus is ``method="softplus"``.

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

import numbers
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

#: Rankings offered by :func:`rank` (and :meth:`ExplanationGraph.ranking`).
RANKINGS = ("importance", "abs", "softplus", "shapley", "condensation")
DEFAULT_RANKING = "importance"


def tie_order(values) -> np.ndarray:
    """Indices from the largest to the smallest value; values equal to 12 significant digits of the largest
    ``|value|`` count as tied and keep their order (a stable sort on rounded keys)."""
    values = np.asarray(values, dtype=float)
    scale = float(np.abs(values).max()) if values.size else 0.0
    keys = np.round(values / scale, 12) if scale > 0 else values
    return np.argsort(-keys, kind="stable")


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
    """One score per feature; higher = more influential. PageRank rankings hold probabilities (non-negative,
    summing to 1); ``info["method"]`` (or ``info["transform"]``) says how the scores were made."""

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
        """Feature names from the highest to the lowest score (ties keep the feature order: scores equal to 12
        significant digits of the largest one count as tied, so that round-off does not order them)."""
        return [self.feature_names[i] for i in tie_order(self.scores)]

    def top(self, k: int = 10) -> list[tuple[str, float]]:
        """The ``k`` (an integer >= 0) highest-scoring features with their scores."""
        from .redundancy import _check_count

        return [(name, self[name]) for name in self.order()[:_check_count(k, "k", minimum=0)]]

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
    if isinstance(damping, (bool, np.bool_)) or not isinstance(damping, numbers.Real):  # "x" failed in float()
        raise TypeError(f"damping: expected a number in [0, 1), got {damping!r}")
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


def _abs_univariate(univariate, n: int) -> np.ndarray | None:
    if univariate is None:
        return None
    phi = np.abs(np.asarray(univariate, dtype=float))
    if phi.shape != (n,) or not np.isfinite(phi).all():
        raise ValueError(f"univariate: expected {n} finite values, got shape {phi.shape}")
    return phi


def condensation_ranking(h, univariate) -> Ranking:
    """Ranking by the condensation of a :class:`~interplay.graph.RedundancyGraph` ``h``: each feature's class in
    topological generations, sources first (generation 0: no outside feature makes them redundant), ties broken
    by ``|phi|``: ``score = -generation + |phi| / (1 + max|phi|)``. The features ``h`` sets aside (no effect, or
    little effect on their own) rank below every generation."""
    import networkx as nx

    phi = _abs_univariate(univariate, h.n_features)
    condensation = h.condensation()
    mapping = condensation.graph["mapping"]
    aside = set(h.no_effect or ()) | set(h.little_effect or ())
    linked = condensation.subgraph([c for c in condensation if not condensation.nodes[c]["no_effect"]])
    level = {c: k for k, layer in enumerate(nx.topological_generations(linked)) for c in layer}
    bottom = max(level.values(), default=-1) + 1
    generation = np.array([bottom if name in aside else level[mapping[name]] for name in h.feature_names], float)
    top = float(phi.max()) if len(phi) else 0.0
    info = {"method": "condensation", "gamma": h.gamma, "paper_definition": h.paper_definition}
    return Ranking(-generation + phi / (1.0 + top), h.feature_names, info)


def rank(weights, univariate=None, *, method: str = DEFAULT_RANKING, damping: float = 0.85,
         gamma: float | None = None, feature_names=None) -> Ranking:
    """Rank features by influence on the explanation graph ``W`` (``W[i, j]`` = importance of ``j`` given ``i``).

    ``method``:

    - ``"importance"`` (default): PageRank on ``|W|`` (no self-loops), restarting at feature ``i`` with
      probability ``|phi_i| / sum |phi|`` (uniform when ``univariate`` is None or all 0). The walk moves from
      ``i`` to the features that matter given ``i``, in either direction, so mass collects at features that
      stay important whatever else is present (the sinks of G) and at large ``|phi|``.
    - ``"abs"``: PageRank on ``|W|`` with uniform restarts.
    - ``"softplus"``: the paper's Algorithm 5, PageRank on ``softplus(W)``, uniform restarts. Ranks features
      that push the output up above those that push it down.
    - ``"shapley"``: ``|phi|`` alone (the univariate reference).
    - ``"condensation"``: classes of the condensation of ``H_gamma`` (``gamma=None``: the default gamma; features
      with no or little effect set aside, as :meth:`ExplanationGraph.redundancy` does, and ranked last) in
      topological generations, sources first (no outside feature makes them redundant), ``|phi|`` within
      (:func:`condensation_ranking`).

    Cost: no model evaluations; one dense ``n x n`` solve for the PageRank methods.
    """
    check_choice(method, "method", RANKINGS)
    if gamma is not None and method != "condensation":  # it was ignored without a word
        raise ValueError(f"gamma: only used by method='condensation' (the redundancy threshold), got gamma={gamma!r} "
                         f"with method={method!r}")
    w = check_square(weights)
    n = len(w)
    names = check_feature_names(feature_names, n)
    phi = _abs_univariate(univariate, n)
    if method in ("shapley", "condensation"):
        if phi is None:
            raise ValueError(f"univariate: method={method!r} needs the univariate (Shapley) values, got None")
        if method == "condensation":
            from .redundancy import RedundancyGraph

            return condensation_ranking(RedundancyGraph.from_weights(w, gamma, names, univariate=phi), phi)
        return Ranking(phi, names, {"method": method})
    personalization = None
    label = None
    if method == "importance" and phi is not None and phi.sum() > 0:
        personalization, label = phi, "|univariate|"
    transform = "softplus" if method == "softplus" else "abs"
    out = pagerank(w, transform=transform, damping=damping, personalization=personalization,
                   feature_names=names, personalization_label=label)
    return Ranking(out.scores, names, {"method": method, **out.info})


__all__ = ["DEFAULT_RANKING", "RANKINGS", "Ranking", "TRANSFORMS", "condensation_ranking", "pagerank", "rank",
           "tie_order", "transition_weights"]
