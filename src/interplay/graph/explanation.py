"""The directed explanation graph G of the Bivariate Shapley paper (Section 4, "Bivariate Shapley Explanation Map").

``weights[i, j] = W(i, j)`` is the weight of the edge ``i -> j``: the importance of feature ``j`` when feature
``i`` is present (``E2[j, i]`` of Eq. 6; orientation as corrected in the papers' README). The diagonal is zero:
G has no self-loops. G is complete in the paper's sense (every ordered pair is an edge, possibly of weight 0);
the redundancy graph ``H_gamma`` keeps the edges of small absolute weight (:mod:`interplay.graph.redundancy`),
PageRank on G ranks the features (:mod:`interplay.graph.ranking`).

A symmetric interaction matrix (SII, BII, Shapley-Taylor, Faith-Shap, k-SII, excess, Moebius) gives a graph of
the same kind with ``W(i, j) = W(j, i)``, which is how the paper compares those indices with Bivariate Shapley
(Section 5). Such a graph knows its index (:attr:`ExplanationGraph.interaction_index`) and is read as what it
is: a pair value near 0 means that the two features' effects add up, not that one makes the other redundant
(Def. 4.1 needs ``W(i, j)``, the importance of ``j`` *given* ``i``, which a symmetric index does not measure).
So its :meth:`~ExplanationGraph.describe` speaks of interactions, and the redundancy analysis
(:meth:`~ExplanationGraph.redundancy`, :meth:`~ExplanationGraph.sinks`, :meth:`~ExplanationGraph.sources`,
:meth:`~ExplanationGraph.no_effect`, :meth:`~ExplanationGraph.little_effect`,
:meth:`~ExplanationGraph.gamma_sweep`, ``ranking("condensation")``) is
refused with an error saying so. The paper's structural comparison stays one explicit call away:
``RedundancyGraph.from_weights(graph.weights, gamma, graph.feature_names)``.
No model evaluations are made here: everything works on the already computed matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .._validation import check_bool, check_feature_names
from ..results import _feature_index


def _frozen(array) -> np.ndarray:
    out = np.array(array, dtype=float, copy=True)
    out.setflags(write=False)
    return out


#: Names of the symmetric interaction indices (``Interactions.index``): their graphs are not redundancy graphs.
INTERACTION_INDICES = ("sii", "bii", "stii", "fsii", "fbii", "ksii", "k-sii", "excess", "moebius", "shapley-taylor",
                       "faith-shap", "faith-banzhaf", "interactions")

#: Relative round-off tolerance: weights within ``ROUNDOFF_RTOL * max(max|W|, max|phi|)`` of a threshold count as
#: on it, so that ``gamma = 0`` finds the exact zeros of an exactly computed matrix despite floating-point
#: round-off (~1e-16).
ROUNDOFF_RTOL = 1e-9


def roundoff(weights: np.ndarray, univariate=None) -> float:
    """Absolute round-off allowance of a weight matrix: ``ROUNDOFF_RTOL * max(max|W|, max|phi|)``.

    The univariate values (when known) set the game's scale: when every weight is round-off (three exact copies
    of one signal: each is worth nothing given another, ``W ~ 5e-17``, while ``phi = 1/3``), ``max|W|`` alone
    would make the round-off its own scale and find no zero at all.
    """
    scale = float(np.abs(weights).max()) if np.size(weights) else 0.0
    if univariate is not None and np.size(univariate):
        scale = max(scale, float(np.abs(np.asarray(univariate, dtype=float)).max()))
    return ROUNDOFF_RTOL * scale


def check_square(weights: Any, name: str = "weights") -> np.ndarray:
    """Return ``weights`` as a finite float ``(n, n)`` matrix with ``n >= 1``."""
    try:
        arr = np.array(weights, dtype=float, copy=True)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a square numeric (n, n) matrix, got {type(weights).__name__}") from None
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] == 0:
        raise ValueError(f"{name}: expected a square (n, n) matrix with n >= 1, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name}: contains NaN or infinite values")
    return arr


@dataclass(frozen=True, eq=False)
class ExplanationGraph:
    """Directed explanation graph ``G``: ``weights[i, j]`` = importance of ``j`` when ``i`` is present.

    Build one with :meth:`BivariateExplanation.graph`, :meth:`Interactions.graph`, :func:`mean_graph` or
    directly from a matrix. ``univariate`` (optional) holds one value per feature (the Shapley values of the
    same game), used by ``pagerank(personalization="univariate")`` and to tell features with no effect
    (:meth:`no_effect`). ``std_errors`` (optional) has the shape of ``weights``. ``kind`` says where the weights
    come from (``"bivariate"``, ``"sii"``, ``"cohort"``, ``"mean"``, ...); a graph of a symmetric interaction index
    (``kind`` one of :data:`INTERACTION_INDICES`, or ``info["interaction_index"]``, e.g. a cohort of them) has
    :attr:`interaction_index` set and refuses the redundancy analysis. ``redundancy_share`` (optional, cohort
    graphs from :func:`~interplay.graph.mean_graph`): per edge, the share of the cohort's rows in which it is a
    redundancy edge; ``no_effect_share`` (optional, the same cohorts): per feature, the share of rows in which it
    has no effect; ``little_effect_share`` (optional, the same cohorts): per feature, the share of rows in which
    its ``|phi|`` is at most twice the row's gamma (little or no effect on its own); ``reading_share`` (optional,
    the same cohorts): per edge, the share of rows whose own reading has it (a redundancy between two features
    neither of which the row sets aside), what :meth:`redundancy` keeps by default.
    """

    weights: np.ndarray
    feature_names: tuple[str, ...] = None  # type: ignore[assignment]
    univariate: np.ndarray | None = None
    kind: str = "bivariate"
    std_errors: np.ndarray | None = None
    info: Mapping[str, Any] = field(default_factory=dict)
    redundancy_share: np.ndarray | None = None
    no_effect_share: np.ndarray | None = None
    little_effect_share: np.ndarray | None = None
    reading_share: np.ndarray | None = None

    def __post_init__(self) -> None:
        weights = check_square(self.weights)
        np.fill_diagonal(weights, 0.0)
        n = len(weights)
        object.__setattr__(self, "weights", _frozen(weights))
        object.__setattr__(self, "feature_names", check_feature_names(self.feature_names, n))
        if self.univariate is not None:
            uni = np.asarray(self.univariate, dtype=float)
            if uni.shape != (n,) or not np.isfinite(uni).all():
                raise ValueError(f"univariate: expected {n} finite values, got shape {uni.shape}")
            object.__setattr__(self, "univariate", _frozen(uni))
        if self.std_errors is not None:
            se = np.asarray(self.std_errors, dtype=float)
            if se.shape != (n, n):
                raise ValueError(f"std_errors: expected shape {(n, n)}, got {se.shape}")
            object.__setattr__(self, "std_errors", _frozen(se))
        for name in ("redundancy_share", "reading_share"):
            if getattr(self, name) is None:
                continue
            share = np.asarray(getattr(self, name), dtype=float)
            if share.shape != (n, n) or not np.isfinite(share).all() or (share < 0).any() or (share > 1).any():
                raise ValueError(f"{name}: expected an {(n, n)} matrix of shares in [0, 1], got shape {share.shape}")
            object.__setattr__(self, name, _frozen(share))
        for name in ("no_effect_share", "little_effect_share"):
            if getattr(self, name) is None:
                continue
            share = np.asarray(getattr(self, name), dtype=float)
            if share.shape != (n,) or not np.isfinite(share).all() or (share < 0).any() or (share > 1).any():
                raise ValueError(f"{name}: expected {n} shares in [0, 1], got shape {share.shape}")
            object.__setattr__(self, name, _frozen(share))
        object.__setattr__(self, "kind", str(self.kind))
        object.__setattr__(self, "info", dict(self.info))

    # ------------------------------------------------------------------ basics
    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def is_symmetric(self) -> bool:
        """True when ``W(i, j) == W(j, i)`` for every pair (graphs from SII, Shapley-Taylor, excess)."""
        return bool(np.array_equal(self.weights, self.weights.T))

    @property
    def interaction_index(self) -> str | None:
        """The symmetric interaction index these weights hold (``"sii"``, ``"stii"``, ...), or None for a
        Bivariate Shapley graph (directed: the weights are importances given another feature)."""
        index = self.info.get("interaction_index")
        if index is None and self.kind.lower() in INTERACTION_INDICES:
            index = self.kind
        return None if index is None else str(index)

    def _refuse_if_interactions(self, what: str) -> None:
        """Refuse a redundancy analysis on a symmetric interaction index (see the module docstring)."""
        index = self.interaction_index
        if index is None:
            return
        raise ValueError(
            f"{what}: this graph holds {index!r} interaction values, which are symmetric: a pair value near 0 means "
            "that the two features' effects add up, not that one feature makes the other redundant. Redundancy "
            "(interchangeable groups, sources, sinks, features with no effect) needs the importance of one feature "
            "given another: the Bivariate Shapley graph, ip.bivariate(game).graph() or explainer.bivariate(x).graph(). "
            "describe() says which pairs interact. For the paper's Section 5 structural comparison of this matrix, "
            "call interplay.graph.RedundancyGraph.from_weights(graph.weights, gamma, graph.feature_names)."
        )

    def index(self, feature) -> int:
        """Position of a feature given by name or index."""
        return _feature_index(feature, self.feature_names)

    def weight(self, source, target) -> float:
        """``W(source, target)``: importance of ``target`` when ``source`` is present (names or indices)."""
        return float(self.weights[self.index(source), self.index(target)])

    def max_abs_weight(self) -> float:
        """Largest ``|W(i, j)|`` off the diagonal (0 for a single feature)."""
        return float(np.abs(self.weights).max())

    # ------------------------------------------------------------------ analysis
    def default_gamma(self) -> float:
        """Default redundancy threshold: 5 % of ``max|W|``, at least ``2 * median(std_errors)`` when the graph has
        standard errors (see :func:`interplay.graph.redundancy.default_gamma` for the reasoning)."""
        from .redundancy import default_gamma

        return default_gamma(self.weights, self.std_errors)

    def redundancy(self, gamma: float | None = None, *, share: float = 0.5, exclude_no_effect: bool = True):
        """Redundancy graph ``H_gamma``: edge ``i -> j`` iff ``|W(i, j)| <= gamma`` (``j`` redundant given ``i``).

        Section 4.1 of the Bivariate Shapley paper; ``gamma=None`` uses :meth:`default_gamma`. A cohort graph
        (with ``redundancy_share``) and ``gamma=None`` keeps instead the edges of at least ``share`` of its rows'
        own readings (``reading_share``: each row at its own gamma, neither end set aside in that row; with
        ``exclude_no_effect=False`` or without univariate values, ``redundancy_share``: redundant by
        ``|W_r| <= gamma_r``); ``info["share"]`` says so. Returns a
        :class:`~interplay.graph.RedundancyGraph` (groups, condensation, sources, sinks, summary).

        ``exclude_no_effect`` (default), when the univariate values are known (for a cohort: ``no_effect_share``):
        the redundancy reading of :mod:`interplay.graph.redundancy`. The features of :meth:`no_effect` and of
        :meth:`little_effect` (at the same ``gamma``, or ``share``) are set aside from groups, sources and sinks
        (listed as ``.no_effect`` and ``.little_effect``): by the letter of Def. 4.1 every feature makes a
        feature that does nothing redundant, which would make it the only sink and lump all such features into
        one "interchangeable" group, and a feature with ``|phi| <= 2 gamma`` falls under ``gamma`` given any
        feature that it ignores (``W = phi / 2``), so its edges say it is small, not replaced. The sinks are the
        directionally redundant classes (made redundant by a feature outside them). ``False``, or no univariate
        values: the paper's exact definitions (``.paper_definition`` is True). Refused for a graph of a
        symmetric interaction index (:attr:`interaction_index`).
        """
        from .redundancy import RedundancyGraph, _check_gamma, redundancy_adjacency

        self._refuse_if_interactions("redundancy")
        exclude_no_effect = check_bool(exclude_no_effect, "exclude_no_effect")
        if gamma is None and self.redundancy_share is not None:
            share = _check_share(share)
            aside = little = None
            edges = self.redundancy_share
            if exclude_no_effect and self.no_effect_share is not None:
                aside, little = self.no_effect(share=share), self.little_effect(share=share)
                if self.reading_share is not None:  # rows count an edge only where their own reading has it
                    edges = self.reading_share
            return RedundancyGraph(edges >= share, float(self.info.get("mean_row_gamma", 0.0)),
                                   self.feature_names, info={"share": share}, no_effect=aside, little_effect=little)
        gamma = self.default_gamma() if gamma is None else _check_gamma(gamma)
        aside = little = None
        if exclude_no_effect and self.univariate is not None:
            aside, little = self.no_effect(gamma), self.little_effect(gamma)
        return RedundancyGraph(redundancy_adjacency(self.weights, gamma, self.univariate), gamma, self.feature_names,
                               no_effect=aside, little_effect=little)

    def no_effect(self, gamma: float | None = None, *, share: float = 0.5) -> list[str]:
        """Features with no effect on this prediction: ``|phi_j| <= gamma`` and ``|W(i, j)| <= gamma`` for every
        other feature ``i`` (negligible on their own and given any other feature; the null features of an exact
        game at ``gamma = 0``). See :func:`interplay.graph.redundancy.no_effect_mask` for the rule and why only
        incoming edges count. Needs the univariate values (none without them). ``gamma=None``: the default
        gamma; for a cohort graph with ``no_effect_share``, the features with no effect in at least ``share`` of
        the rows (each row at its own gamma). Refused for a symmetric interaction index.
        """
        from .redundancy import _check_gamma, no_effect_mask

        self._refuse_if_interactions("no_effect")
        if gamma is None and self.redundancy_share is not None:
            share = _check_share(share)
            mask = (np.zeros(self.n_features, dtype=bool) if self.no_effect_share is None
                    else self.no_effect_share >= share)
        else:
            gamma = self.default_gamma() if gamma is None else _check_gamma(gamma)
            mask = no_effect_mask(self.weights, self.univariate, gamma)
        return [self.feature_names[i] for i in np.flatnonzero(mask)]

    def little_effect(self, gamma: float | None = None, *, share: float = 0.5) -> list[str]:
        """Features with little effect on their own: ``|phi_j| <= 2 gamma``, not in :meth:`no_effect`. Edges of
        ``H_gamma`` into them say they are small, not that another feature replaces them (a feature that
        ignores ``i`` keeps ``W(i, j) = phi_j / 2``), so :meth:`redundancy` sets them aside; see
        :func:`interplay.graph.redundancy.little_effect_mask`. Needs the univariate values (none without them).
        ``gamma=None``: the default gamma; for a cohort graph with ``little_effect_share``, the features with at
        most little effect in at least ``share`` of the rows (each row at its own gamma) and not in
        :meth:`no_effect`. Refused for a symmetric interaction index.
        """
        from .redundancy import _check_gamma, little_effect_mask

        self._refuse_if_interactions("little_effect")
        if gamma is None and self.redundancy_share is not None:
            share = _check_share(share)
            if self.little_effect_share is None:
                return []
            none = set(self.no_effect(share=share))
            mask = self.little_effect_share >= share
            return [self.feature_names[i] for i in np.flatnonzero(mask) if self.feature_names[i] not in none]
        gamma = self.default_gamma() if gamma is None else _check_gamma(gamma)
        mask = little_effect_mask(self.weights, self.univariate, gamma)
        return [self.feature_names[i] for i in np.flatnonzero(mask)]

    def ranking(self, method: str | None = None, *, damping: float = 0.85, gamma: float | None = None):
        """Features ranked by influence (:func:`interplay.graph.ranking.rank`).

        Default ``"importance"``: PageRank on ``|W|`` restarting in proportion to ``|phi|`` (the univariate
        values; uniform restarts when the graph has none). ``"softplus"`` is the paper's Algorithm 5,
        ``"shapley"`` is ``|phi|`` alone; see ``benchmarks/results/bivariate_evaluation.md`` for how they compare.
        ``"condensation"`` reads the condensation of :meth:`redundancy` at ``gamma`` (None: the same default as
        :meth:`redundancy`, a cohort's shares included; the set-aside features rank last).
        """
        from .ranking import DEFAULT_RANKING, condensation_ranking, rank

        if method == "condensation":
            self._refuse_if_interactions("ranking('condensation')")
            if self.univariate is None:
                raise ValueError("univariate: method='condensation' needs the univariate (Shapley) values, got None")
            return condensation_ranking(self.redundancy(gamma), self.univariate)
        return rank(self.weights, self.univariate, method=DEFAULT_RANKING if method is None else method,
                    damping=damping, gamma=gamma, feature_names=self.feature_names)

    def describe(self, gamma: float | None = None, *, top: int = 3, limit: int = 6) -> str:
        """One plain-language paragraph: the main drivers (largest ``|phi|``), who makes whom redundant, the
        groups (interchangeable when every pair is mutually redundant), the features with no effect and those
        with little effect on their own; for a symmetric interaction index, the strongest interactions instead
        (see :func:`interplay.graph.describe.describe`). ``top`` and ``limit``: positive integers."""
        from .describe import describe

        return describe(self, gamma, top=top, limit=limit)

    def gamma_sweep(self, gammas: Sequence[float] | None = None):
        """Density, group, source, sink and no-effect counts of ``H_gamma`` per ``gamma`` (see :func:`gamma_sweep`;
        no-effect features set aside as in :meth:`redundancy`). Refused for a symmetric interaction index."""
        from .redundancy import gamma_sweep

        self._refuse_if_interactions("gamma_sweep")
        return gamma_sweep(self.weights, gammas, feature_names=self.feature_names, std_errors=self.std_errors,
                           univariate=self.univariate)

    def gamma_for_density(self, density: float = 0.5) -> float:
        """Smallest ``gamma`` giving ``H_gamma`` at least this density (the paper's choice: about 0.5)."""
        from .redundancy import gamma_for_density

        return gamma_for_density(self.weights, density)

    def pagerank(self, transform: str = "softplus", *, damping: float = 0.85, personalization=None):
        """PageRank ranking of the features on G (Algorithm 5); see :func:`interplay.graph.ranking.pagerank`.

        ``personalization="univariate"`` restarts the walk at feature ``i`` with probability proportional to
        ``|univariate[i]|``. High scores collect where the walk ends up: in a DAG at the sinks of G (features
        whose presence leaves every other feature unimportant), i.e. the most influential features. (The
        paper's Algorithm 4 swaps source and sink; see the papers' README.)
        """
        from .ranking import pagerank

        if isinstance(personalization, str) and personalization == "univariate":
            if self.univariate is None:
                raise ValueError(
                    "personalization: 'univariate' needs univariate values, but this graph has none; "
                    "pass a vector of non-negative weights instead"
                )
            personalization = np.abs(self.univariate)
            label = "univariate"
        elif personalization is None:
            label = None
        elif isinstance(personalization, str):
            raise ValueError(f"personalization: expected None, 'univariate' or a vector, got {personalization!r}")
        else:
            label = "vector"
        return pagerank(self.weights, transform=transform, damping=damping, personalization=personalization,
                        feature_names=self.feature_names, personalization_label=label)

    def sinks(self, tol: float = 0.0) -> list[str]:
        """Sinks of G: features with no outgoing edge of ``|W| > tol`` (up to round-off, see ``ROUNDOFF_RTOL``):
        their presence removes every other feature's importance (Section 4, "Most Influential Features").
        Not the sinks of the redundancy graph (``redundancy().sinks()``). Refused for a symmetric index."""
        self._refuse_if_interactions("sinks")
        out = np.abs(self.weights) > tol + roundoff(self.weights, self.univariate)
        return [self.feature_names[i] for i in np.flatnonzero(~out.any(axis=1))]

    def sources(self, tol: float = 0.0) -> list[str]:
        """Sources of G: features with no incoming edge of ``|W| > tol`` (up to round-off): unimportant given any
        other feature (Section 4, "Least Influential Features"). With ``|phi| <= tol`` too they have no effect at
        all (:meth:`no_effect`); with a larger ``|phi|`` they matter alone but are replaced by any other feature
        (e.g. copies of one signal). Refused for a symmetric index."""
        self._refuse_if_interactions("sources")
        into = np.abs(self.weights) > tol + roundoff(self.weights, self.univariate)
        return [self.feature_names[i] for i in np.flatnonzero(~into.any(axis=0))]

    # ------------------------------------------------------------------ conversion
    def to_networkx(self, *, include_zero: bool = False):
        """A ``networkx.DiGraph`` on the feature names: edge ``i -> j`` with attribute ``weight = W(i, j)``.

        No self-loops; edges of weight exactly 0 are left out unless ``include_zero``. Node attribute
        ``index`` is the feature's position; ``univariate`` is attached when known.
        """
        import networkx as nx

        include_zero = check_bool(include_zero, "include_zero")
        graph = nx.DiGraph(kind=self.kind)
        for i, name in enumerate(self.feature_names):
            attrs = {"index": i}
            if self.univariate is not None:
                attrs["univariate"] = float(self.univariate[i])
            graph.add_node(name, **attrs)
        mask = ~np.eye(self.n_features, dtype=bool)
        if not include_zero:
            mask &= self.weights != 0
        rows, cols = np.nonzero(mask)
        names = self.feature_names
        graph.add_weighted_edges_from(
            (names[i], names[j], float(self.weights[i, j])) for i, j in zip(rows.tolist(), cols.tolist())
        )
        return graph

    def __repr__(self) -> str:
        order = np.argsort(-np.abs(self.weights), axis=None, kind="stable")[:5]
        names = self.feature_names
        lines = []
        for flat in order:
            i, j = divmod(int(flat), self.n_features)
            if i != j:
                lines.append(f"  {names[i]} -> {names[j]}: {self.weights[i, j]: .6g}")
        return (f"ExplanationGraph(kind={self.kind!r}, n_features={self.n_features}, "
                f"max|W|={self.max_abs_weight():.6g})\n" + "\n".join(lines))


def _check_share(share) -> float:
    share = float(share)
    if not 0.0 < share <= 1.0:
        raise ValueError(f"share: expected a number in (0, 1], got {share!r}")
    return share


def from_bivariate(explanation) -> ExplanationGraph:
    """G of a :class:`~interplay.results.BivariateExplanation`: ``W = explanation.adjacency``. A run's
    ``cohort_graph`` (``info["mean_over_rows"]``) is read as a cohort's mean, not as one prediction: its
    ``info["aggregate"]`` ``"abs"`` (mean ``|W|``, mean ``|phi|``) gives ``kind="cohort"``, ``"signed"`` (the rows'
    signed mean; a result without ``aggregate``, from before it was recorded, is signed) gives ``kind="mean"``."""
    info = {"method": explanation.method, "n_evaluations": explanation.n_evaluations,
            **{k: explanation.info[k] for k in ("output", "target") if k in explanation.info}}
    kind = "bivariate"
    if explanation.info.get("mean_over_rows"):
        aggregate = "abs" if explanation.info.get("aggregate") == "abs" else "signed"
        kind = "cohort" if aggregate == "abs" else "mean"
        info.update(n_rows=explanation.info.get("rows"), aggregate=aggregate)
    return ExplanationGraph(
        weights=explanation.adjacency, feature_names=explanation.feature_names,
        univariate=explanation.univariate.values if explanation.univariate is not None else None,
        kind=kind, std_errors=explanation.std_errors, info=info,
    )


def from_interactions(interactions) -> ExplanationGraph:
    """Symmetric G of a pairwise interaction index (SII, BII, Shapley-Taylor, excess, Moebius).

    ``W(i, j) = W(j, i)`` = the pair's value (``interactions.matrix`` off the diagonal), as the paper's
    comparisons do (Section 5: the same graph algorithms applied to Sh-Int, Sh-Tay, Sh-Exc). The order-1
    values, when the result has them, become ``univariate``. ``kind`` and ``info["interaction_index"]`` hold the
    index, so the graph describes interactions and refuses the redundancy analysis (see the module docstring).
    Above order 2 the subsets of 3 or more features are not in the graph; ``info["left_out"]`` says how many and
    how large, and ``describe()`` repeats it.
    """
    if interactions.order < 2:
        raise ValueError(f"interactions: expected an index of order >= 2 (pairs), got order {interactions.order}")
    n = interactions.n_features
    singles = [(k[0], v) for k, v in interactions.values.items() if len(k) == 1]
    univariate = None
    if len(singles) == n:
        univariate = np.zeros(n)
        for i, v in singles:
            univariate[i] = v
    return ExplanationGraph(
        weights=interactions.matrix, feature_names=interactions.feature_names, univariate=univariate,
        kind=interactions.index,
        info={"method": interactions.method, "n_evaluations": interactions.n_evaluations,
              "order": interactions.order, "interaction_index": str(interactions.index),
              # above order 2 the graph holds the pairs only: describe() says what it leaves out
              **({"left_out": interactions.larger_subsets_note()} if interactions.larger_subsets_note() else {}),
              # the unit and class, as from_bivariate keeps them (the picture of class 2's pairs named no class)
              **{k: interactions.info[k] for k in ("output", "target") if k in interactions.info}},
    )


__all__ = ["INTERACTION_INDICES", "ROUNDOFF_RTOL", "ExplanationGraph", "from_bivariate", "from_interactions"]
