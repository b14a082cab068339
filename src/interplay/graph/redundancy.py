"""The redundancy graph H_gamma and its analysis (Bivariate Shapley paper, Section 4.1; App. A, Algorithms 3-4).

``H_gamma`` has an edge ``i -> j`` iff ``|W(i, j)| <= gamma``: feature ``j`` is (directionally) redundant given
feature ``i`` (Def. 4.1, relaxed by ``gamma``). On it:

- mutual redundancy (Def. 4.2, Algorithm 3): the groups are the strongly connected components of H with more
  than one feature: each member is redundant given another member, directly or through one another. At
  ``gamma = 0`` an exact Shapley matrix of a monotone game makes each group a clique (Theorem 1: every pair
  mutually redundant, interchangeable); at ``gamma > 0`` a group need not be one ("almost cliques", Section
  4.1), see :meth:`RedundancyGraph.missing_edges`;
- directional redundancy (Algorithm 4): collapsing the strongly connected components gives the condensation,
  a DAG. Its sources (in-degree 0) are classes that no outside feature makes redundant; its sinks (out-degree 0)
  are classes that make no outside feature redundant, the directionally redundant features that the paper masks
  in Table 2. They are found exactly, as all nodes of in-degree 0 / out-degree 0 (several per weakly connected
  component are possible), not by PageRank's argmax/argmin as in the paper's Algorithm 4 (which also swaps
  source and sink; see the papers' README). By the paper's definitions a feature with no edge at all is both a
  source and a sink.

Two readings of ``H_gamma``, both kept:

- The paper's exact definitions (a :class:`RedundancyGraph` built with ``no_effect=None``, the default:
  ``RedundancyGraph(adjacency, gamma)``, :meth:`RedundancyGraph.from_weights` without univariate values,
  ``ExplanationGraph.redundancy(exclude_no_effect=False)``, any graph without univariate values): sources and
  sinks are the condensation's nodes of in-degree / out-degree 0 (App. A), isolated classes being both.
- The redundancy reading (``no_effect`` a list, what :meth:`ExplanationGraph.redundancy` builds when the
  univariate values are known). A null feature ``j`` (Shapley value 0, important given no other feature) has an
  edge into it from every other feature, since it adds nothing whatever is known: by the letter of Def. 4.1
  every feature makes it redundant, it is the bottom of the condensation and so the only sink (every feature
  with an effect then has an out-edge to it, so none is ever a sink), and a set of them is one large
  "interchangeable" group. That reads irrelevance as redundancy. The paper itself separates such features: its
  Section 4 example calls the Shapley-zero words the least influential, the sources of G (no incoming edge),
  before it defines redundancy. So the features with no effect (:func:`no_effect_mask`: ``|phi|`` and every
  incoming ``|W|`` at most ``gamma``) are set aside: each is a singleton class with no class edge, listed by
  :attr:`RedundancyGraph.no_effect` and in no group, source, sink or isolated list. ``adjacency`` stays the
  paper's ``H_gamma`` (edges, density, :meth:`~RedundancyGraph.redundant_given` unchanged). And the sinks are
  the directionally redundant classes: out-degree 0 *and* at least one incoming class edge (made redundant by a
  feature outside the class), which is what masking the sinks in the paper's Table 2 relies on (cost the
  model least). An isolated class (no class edge either way, e.g. an interchangeable pair that nothing else
  replaces) is then a source, not a sink: masking it would lose what only it carries.
  The same reading sets aside the features with *little effect on their own* (:func:`little_effect_mask`:
  ``|phi_j| <= 2 gamma``, not already without effect), listed by :attr:`RedundancyGraph.little_effect`.
  Redundancy means that ``j`` matters on its own but adds little once ``i`` is known. The threshold alone
  cannot say that of a small feature: in Eq. 6 the coalitions that contain ``i`` carry exactly half of the
  Shapley weight, so a feature that ignores ``i`` keeps ``W(i, j) = phi_j / 2`` given it (in an additive game
  exactly), which is at most ``gamma`` whenever ``|phi_j| <= 2 gamma``: every such feature would be "redundant
  given" every other one, and a set of them one "interchangeable" group, only because they are small.

Strongly and weakly connected components come from ``scipy.sparse.csgraph.connected_components``; the tests
check them against networkx. Cost: no model evaluations; ``O(n^2)`` work on the ``n x n`` matrix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .._validation import check_bool, check_feature_names
from ..results import _feature_index
from .explanation import check_square, roundoff

#: Default ``gamma`` as a fraction of the largest ``|W(i, j)|``: see :func:`default_gamma`.
DEFAULT_RELATIVE_GAMMA = 0.05


def default_gamma(weights, std_errors=None, *, relative: float = DEFAULT_RELATIVE_GAMMA) -> float:
    """Default redundancy threshold: ``relative * max|W|`` (5 %), raised to ``2 * median(std_errors)`` when known.

    Why relative: ``W`` is in the units of the model output, so an absolute threshold (the paper's ``1e-5`` for
    class probabilities, Section 5) does not carry over between models; a fraction of the strongest edge does.
    Why 5 %: an edge counts as absent when the feature it points to keeps less than a twentieth of the largest
    conditional importance in the graph, a conventional "negligible" cut-off. Exact zeros (held as round-off,
    ~1e-16 relative) fall far below any such fraction, so exact redundancy is always found; a stricter 1 % found
    no redundancy at all on a random forest for scikit-learn's diabetes data (marginal removal), where 5 % groups
    the three features with the smallest Shapley values by the paper's letter (density 0.27; the paper tuned its
    ``gamma`` for about 0.5, which :func:`gamma_for_density` reproduces; the redundancy reading sets the
    smallest of them aside, ``|phi| <= 2 gamma``, see :func:`little_effect_mask`). A sampled matrix's true zeros
    scatter by about one standard error, so when the estimator reports standard errors, ``gamma`` is at least
    twice their median (off the diagonal). It is a heuristic: look at :func:`gamma_sweep` before reading much
    into one threshold.
    """
    weights = check_square(weights)
    n = len(weights)
    off = ~np.eye(n, dtype=bool)
    scale = float(np.abs(weights[off]).max()) if n > 1 else 0.0
    gamma = float(relative) * scale
    if std_errors is not None and n > 1:
        se = np.asarray(std_errors, dtype=float)[off]
        se = se[np.isfinite(se)]
        if len(se):
            gamma = max(gamma, 2.0 * float(np.median(se)))
    return gamma


def _check_gamma(gamma) -> float:
    if isinstance(gamma, (str, bytes, bool, np.bool_)):  # "0.1" and True (1.0) were taken as numbers
        raise TypeError(f"gamma: expected a non-negative number, got {gamma!r}")
    try:
        value = float(gamma)
    except (TypeError, ValueError):
        raise TypeError(f"gamma: expected a non-negative number, got {gamma!r}") from None
    if not np.isfinite(value) or value < 0:
        raise ValueError(f"gamma: expected a finite number >= 0, got {gamma!r}")
    return value


def redundancy_adjacency(weights: np.ndarray, gamma: float, univariate=None) -> np.ndarray:
    """Boolean adjacency of ``H_gamma``: ``|W(i, j)| <= gamma`` off the diagonal (no self-loops).

    Round-off is allowed for: the test is ``|W(i, j)| <= gamma + ROUNDOFF_RTOL * max(max|W|, max|phi|)``
    (``1e-9`` relative; ``phi`` the univariate values when given), so ``gamma = 0`` keeps the edges whose exact
    weight is 0 (Def. 4.1) although an exactly computed matrix holds them as ``+-1e-16``-sized numbers.
    """
    adjacency = np.abs(weights) <= gamma + roundoff(weights, univariate)
    np.fill_diagonal(adjacency, False)
    return adjacency


def no_effect_mask(weights: np.ndarray, univariate, gamma: float) -> np.ndarray:
    """Features with no effect at threshold ``gamma``: ``|phi_j| <= gamma`` and ``|W(i, j)| <= gamma`` for every ``i``.

    ``W(i, j)`` is the importance of ``j`` when ``i`` is present (Bivariate Shapley paper, Eq. 6, orientation as
    in the papers' README) and ``phi_j`` its importance when nothing else is known (the univariate Shapley
    value), so the rule says: ``j`` is negligible on its own and redundant given every other feature (Def. 4.1,
    relaxed by ``gamma`` as ``H_gamma`` is). For an exact game and ``gamma = 0`` these are the null features; it
    is the paper's "least influential" reading (Section 4: Shapley value zero, a source of G, no incoming edge).
    Only incoming edges count: the outgoing ``W(j, i)`` is the importance of the *other* feature ``i`` when
    ``j`` is present, which for a null ``j`` is as large as ``i``'s own effect, not 0. Three exact copies of one
    signal are redundant given each other but each has ``phi > 0``: they are a group, not "no effect". Without
    univariate values (``None``) nothing is set aside: a column of zeros alone cannot tell copies from nulls.
    Round-off is allowed for as in :func:`redundancy_adjacency`.
    """
    weights, phi = _checked_phi(weights, univariate)
    n = len(weights)
    if phi is None:
        return np.zeros(n, dtype=bool)
    column = redundancy_adjacency(weights, gamma, phi).sum(axis=0) == n - 1
    return column & (phi <= gamma + roundoff(weights, phi))


#: A feature whose ``|phi|`` is at most this multiple of ``gamma`` has little effect on its own: see
#: :func:`little_effect_mask`.
LITTLE_EFFECT_FACTOR = 2.0


def small_mask(weights: np.ndarray, univariate, gamma: float) -> np.ndarray:
    """Features with ``|phi_j| <= 2 gamma`` (up to round-off): no effect or little effect on their own."""
    weights, phi = _checked_phi(weights, univariate)
    if phi is None:
        return np.zeros(len(weights), dtype=bool)
    return phi <= LITTLE_EFFECT_FACTOR * gamma + roundoff(weights, phi)


def _checked_phi(weights: np.ndarray, univariate) -> tuple[np.ndarray, np.ndarray | None]:
    """The square weights and ``|univariate|`` (None without univariate values), the length checked."""
    weights = check_square(weights)
    if univariate is None:
        return weights, None
    phi = np.abs(np.asarray(univariate, dtype=float))
    if phi.shape != (len(weights),):
        raise ValueError(f"univariate: expected {len(weights)} values, got shape {phi.shape}")
    if not np.isfinite(phi).all():  # a NaN turned "no effect" into a redundant sink (ExplanationGraph refuses it)
        raise ValueError(f"univariate: expected finite values, got NaN or inf at positions "
                         f"{np.flatnonzero(~np.isfinite(phi)).tolist()[:5]}")
    return weights, phi


def little_effect_mask(weights: np.ndarray, univariate, gamma: float) -> np.ndarray:
    """Features with little effect on their own at threshold ``gamma``: ``|phi_j| <= 2 gamma``, and not in
    :func:`no_effect_mask` (the two are disjoint).

    Why ``2 gamma``: ``W(i, j)`` sums ``j``'s marginal contributions over the coalitions that contain ``i``,
    which carry exactly half of the Shapley weight (Eq. 6), so a feature that ignores ``i`` keeps
    ``W(i, j) = phi_j / 2`` given it (exactly so in an additive game). For ``|phi_j| <= 2 gamma`` that is at
    most ``gamma``: the edge ``i -> j`` of ``H_gamma`` would be there whatever ``i`` is, and say that ``j`` is
    small, not that ``i`` replaces it. Such a feature may still matter given some other feature (a pure
    interaction: ``phi_j = 0`` but ``W(i, j) > 0``); it is only not read as redundant. Without univariate
    values nothing is set aside.
    """
    return small_mask(weights, univariate, gamma) & ~no_effect_mask(weights, univariate, gamma)


def _set_aside(weights: np.ndarray, univariate, gamma: float):
    """The features with no effect and those with little effect on their own, as index lists (both None without
    univariate values: the paper's definitions)."""
    if univariate is None:
        return None, None
    none = no_effect_mask(weights, univariate, gamma)
    little = small_mask(weights, univariate, gamma) & ~none
    return np.flatnonzero(none).tolist(), np.flatnonzero(little).tolist()


def _check_count(value, name: str, minimum: int = 1) -> int:
    """``value`` as an integer of at least ``minimum``, or an error naming the parameter."""
    what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: expected {what}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{name}: expected {what}, got {value!r}")
    return int(value)


def _first_index_labels(labels: np.ndarray) -> np.ndarray:
    """Relabel components so that they are numbered by their smallest member (deterministic order)."""
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(first, kind="stable")
    rename = np.empty(len(order), dtype=np.int64)
    rename[labels[first[order]]] = np.arange(len(order))
    return rename[labels]


def _structure(adjacency: np.ndarray):
    """Strong labels, weak labels and the condensation's boolean adjacency of a boolean graph."""
    n = len(adjacency)
    rows, cols = np.nonzero(adjacency)
    from scipy.sparse import csr_matrix  # imported on first use, not with interplay
    from scipy.sparse.csgraph import connected_components

    graph = csr_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), shape=(n, n))
    _, strong = connected_components(graph, directed=True, connection="strong")
    _, weak = connected_components(graph, directed=True, connection="weak")
    strong = _first_index_labels(strong)
    weak = _first_index_labels(weak)
    k = int(strong.max()) + 1
    condensed = np.zeros((k, k), dtype=bool)
    condensed[strong[rows], strong[cols]] = True
    np.fill_diagonal(condensed, False)
    return strong, weak, condensed


@dataclass(frozen=True, eq=False)
class RedundancyGraph:
    """Redundancy graph ``H_gamma``: ``adjacency[i, j]`` is True iff ``j`` is redundant given ``i``.

    Methods give the mutual redundancy groups (:meth:`groups`), the condensation (:meth:`condensation`), its
    exact sources and sinks expanded to feature names (:meth:`sources`, :meth:`sinks`) and a text
    :meth:`summary`. ``no_effect=None`` and ``little_effect=None`` (the default): the paper's exact definitions.
    Lists (names or indices, possibly empty): the redundancy reading of the module docstring; the features with
    no effect (see :func:`no_effect_mask`) and those with little effect on their own
    (:func:`little_effect_mask`) are set aside from the structure (each a singleton class with no class edge, in
    no group and in none of :meth:`sources`, :meth:`sinks`, :meth:`isolated`) and the sinks are the
    directionally redundant classes (entered by a class edge). ``adjacency`` (and :meth:`edges`, :attr:`density`)
    is the paper's ``H_gamma`` either way; :meth:`redundant_given` and :meth:`made_redundant_by` leave the
    features set aside out.
    """

    adjacency: np.ndarray
    gamma: float
    feature_names: tuple[str, ...] = None  # type: ignore[assignment]
    info: Mapping[str, Any] = field(default_factory=dict)
    no_effect: tuple[str, ...] | None = None
    little_effect: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        given = np.asarray(self.adjacency)
        if given.dtype != bool and not np.isin(given, (0, 1)).all():  # weights: every nonzero one became an edge
            raise TypeError("adjacency: expected a boolean (0/1) matrix of redundancy edges, got weights; for an "
                            "explanation graph's weights use RedundancyGraph.from_weights(weights, gamma)")
        adjacency = np.array(self.adjacency, dtype=bool, copy=True)
        if adjacency.ndim != 2 or adjacency.shape[0] != adjacency.shape[1] or adjacency.shape[0] == 0:
            raise ValueError(f"adjacency: expected a square (n, n) boolean matrix, got shape {adjacency.shape}")
        np.fill_diagonal(adjacency, False)
        adjacency.setflags(write=False)
        object.__setattr__(self, "adjacency", adjacency)
        object.__setattr__(self, "gamma", _check_gamma(self.gamma))
        object.__setattr__(self, "feature_names", check_feature_names(self.feature_names, len(adjacency)))
        object.__setattr__(self, "info", dict(self.info))
        none = self._check_no_effect(() if self.no_effect is None else self.no_effect)
        little = self._check_no_effect(() if self.little_effect is None else self.little_effect) & ~none
        if self.no_effect is not None or self.little_effect is not None:
            object.__setattr__(self, "no_effect", tuple(self.feature_names[i] for i in np.flatnonzero(none)))
            object.__setattr__(self, "little_effect", tuple(self.feature_names[i] for i in np.flatnonzero(little)))
        aside = none | little
        aside.setflags(write=False)
        object.__setattr__(self, "_aside", aside)
        strong, weak, condensed = _structure(self._effective_adjacency())
        for name, value in (("_strong", strong), ("_weak", weak), ("_condensed", condensed)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def _check_no_effect(self, no_effect) -> np.ndarray:
        """``no_effect`` or ``little_effect`` (names or indices) as a boolean mask over the features."""
        aside = np.zeros(len(self.feature_names), dtype=bool)
        for feature in no_effect:
            aside[_feature_index(feature, self.feature_names)] = True
        return aside

    @classmethod
    def from_weights(cls, weights, gamma: float | None = None, feature_names=None, *,
                     univariate=None) -> "RedundancyGraph":
        """``H_gamma`` of an explanation-graph weight matrix (``gamma=None``: :func:`default_gamma`).

        Without ``univariate`` this is the paper's exact definition (Section 4.1), e.g. for its Section 5
        comparison of symmetric indices (SII, Shapley-Taylor, excess) by the same graph algorithms. With the
        univariate values, the redundancy reading (features with no effect, or little effect on their own, set
        aside, see the module docstring).
        """
        weights = check_square(weights)
        gamma = default_gamma(weights) if gamma is None else _check_gamma(gamma)
        aside, little = _set_aside(weights, univariate, gamma)
        return cls(redundancy_adjacency(weights, gamma, univariate), gamma, feature_names, no_effect=aside,
                   little_effect=little)

    # ------------------------------------------------------------------ basics
    @property
    def paper_definition(self) -> bool:
        """True when built without ``no_effect``: the paper's exact sources and sinks (isolated classes are both,
        features with no effect included)."""
        return self.no_effect is None and self.little_effect is None

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def n_edges(self) -> int:
        return int(self.adjacency.sum())

    @property
    def density(self) -> float:
        """Graph density ``m / (n (n - 1))`` (App. A, Eq. 8); 0 for a single feature."""
        n = self.n_features
        return self.n_edges / (n * (n - 1)) if n > 1 else 0.0

    def _names(self, indices) -> list[str]:
        return [self.feature_names[i] for i in sorted(int(i) for i in indices)]

    def _index(self, feature) -> int:
        return _feature_index(feature, self.feature_names)

    def edges(self) -> list[tuple[str, str]]:
        """Every edge ``(i, j)`` of H by name: ``j`` is redundant given ``i``."""
        rows, cols = np.nonzero(self.adjacency)
        return [(self.feature_names[i], self.feature_names[j]) for i, j in zip(rows.tolist(), cols.tolist())]

    def redundant_given(self, feature) -> list[str]:
        """Features that are redundant given ``feature`` (its out-neighbours in H). Features set aside (no or
        little effect on their own) are in no such list and have none: they are not read as redundant."""
        i = self._index(feature)
        return [] if self._aside[i] else self._names(np.flatnonzero(self.adjacency[i] & ~self._aside))

    def made_redundant_by(self, feature) -> list[str]:
        """Features given which ``feature`` is redundant (its in-neighbours in H; none for a feature set aside)."""
        j = self._index(feature)
        return [] if self._aside[j] else self._names(np.flatnonzero(self.adjacency[:, j] & ~self._aside))

    def is_transitive(self) -> bool:
        """Whether ``i -> j -> k`` always implies ``i -> k`` for distinct ``i, k`` (Def. 4.3)."""
        a = self.adjacency.astype(np.int64)
        two_steps = (a @ a) > 0
        np.fill_diagonal(two_steps, False)
        return bool(np.all(self.adjacency[two_steps]))

    # ------------------------------------------------------------------ components and condensation
    def components(self) -> list[list[str]]:
        """All strongly connected components (singletons too), numbered by their smallest feature index;
        component ``c`` is node ``c`` of :meth:`condensation`. A no-effect feature is a component of its own."""
        order = np.argsort(self._strong, kind="stable")  # members of each component in feature order
        bounds = np.flatnonzero(np.diff(self._strong[order])) + 1
        return [[self.feature_names[i] for i in part] for part in np.split(order, bounds)]

    def groups(self) -> list[list[str]]:
        """Mutual redundancy groups (Algorithm 3): strongly connected components with more than one feature.

        Within a group every feature is reachable from every other through redundancy edges: each is redundant
        given another member, directly or through one another. For an exact Shapley matrix of a monotone game
        with ``gamma = 0`` each group is a clique (Theorem 1: every pair mutually redundant); at ``gamma > 0`` it
        need not be (:meth:`missing_edges`).
        """
        return [c for c in self.components() if len(c) > 1]

    def missing_edges(self, members) -> list[tuple[str, str]]:
        """The ordered pairs ``(i, j)`` of ``members`` (names or indices) with no edge ``i -> j`` in H: ``j`` still
        matters once ``i`` is known. Empty when the members are a clique (pairwise mutually redundant,
        interchangeable in the sense of Def. 4.2)."""
        ids = sorted({self._index(m) for m in members})
        return [(self.feature_names[i], self.feature_names[j]) for i in ids for j in ids
                if i != j and not self.adjacency[i, j]]

    def condensation(self):
        """The condensation (quotient graph ``S``, App. A Eq. 7) as a ``networkx.DiGraph``.

        Node ``c`` is the ``c``-th entry of :meth:`components`, with attributes ``members`` (feature names) and
        ``no_effect`` (True for a set-aside feature, with no effect or little effect on its own: a node with no
        edge);
        ``graph.graph["mapping"]`` maps each feature name to its node. The graph is acyclic.
        """
        import networkx as nx

        components = self.components()
        graph = nx.DiGraph(mapping={name: int(self._strong[i]) for i, name in enumerate(self.feature_names)})
        aside = {self.feature_names[i] for i in np.flatnonzero(self._aside)}
        for c, members in enumerate(components):
            graph.add_node(c, members=members, no_effect=members[0] in aside)
        rows, cols = np.nonzero(self._condensed)
        graph.add_edges_from(zip(rows.tolist(), cols.tolist()))
        return graph

    def _ends(self, degree_axis: int, per_component: bool):
        per_component = check_bool(per_component, "per_component")
        ends = ~self._condensed.any(axis=degree_axis)  # axis 0: no in-edge (source); axis 1: no out-edge (sink)
        if degree_axis == 1 and not self.paper_definition:
            ends &= self._condensed.any(axis=0)  # directionally redundant: entered by a class edge
        members = np.flatnonzero(ends[self._strong] & ~self._aside)
        if not per_component:
            return self._names(members)
        weak = self._weak[members]
        return [self._names(members[weak == w]) for w in np.unique(weak)]

    def sources(self, *, per_component: bool = False):
        """Features in the sources of the condensation (classes with in-degree 0), expanded to names.

        No feature outside its class makes a source feature redundant: these carry information that the rest
        cannot replace (Section 4.1, "Sources and Sinks in the Redundancy Graph"). ``per_component=True``
        returns one list per weakly connected component of H (a component may have several sources). Features
        in :attr:`no_effect` are never listed.
        """
        return self._ends(0, per_component)

    def sinks(self, *, per_component: bool = False):
        """Features in the sinks of the condensation (classes with out-degree 0), expanded to names.

        Sink features make no feature outside their class redundant; in a graph with edges they are the
        directionally redundant ones, whose removal costs the model least given the sources (paper, Table 2).
        ``per_component=True`` returns one list per weakly connected component of H. In the redundancy reading
        (built with ``no_effect``) only classes that some outside feature makes redundant are sinks, and the
        :attr:`no_effect` features are never listed (by the paper's letter they would be the only sinks: every
        feature makes them redundant); build the graph without ``no_effect`` for the paper's definition.
        """
        return self._ends(1, per_component)

    def isolated(self) -> list[str]:
        """Features with no redundancy edge to or from another feature that has an effect: by the paper's
        definitions both a source and a sink of their own component, in the redundancy reading a source (nothing
        makes them redundant) and no sink (they are not redundant); the set-aside features (:attr:`no_effect`,
        :attr:`little_effect`) are not listed."""
        effective = self._effective_adjacency()
        touched = effective.any(axis=0) | effective.any(axis=1)
        return self._names(np.flatnonzero(~touched & ~self._aside))

    def _effective_adjacency(self) -> np.ndarray:
        """``adjacency`` without the edges to or from the set-aside features (no or little effect)."""
        effective = self.adjacency.copy()
        effective[self._aside, :] = False
        effective[:, self._aside] = False
        return effective

    def to_networkx(self):
        """A ``networkx.DiGraph`` on the feature names with H's edges (node attribute ``index``)."""
        import networkx as nx

        graph = nx.DiGraph(gamma=self.gamma)
        graph.add_nodes_from((name, {"index": i}) for i, name in enumerate(self.feature_names))
        graph.add_edges_from(self.edges())
        return graph

    # ------------------------------------------------------------------ report
    def summary(self, *, limit: int = 10) -> str:
        """A few lines: density, groups, sources, sinks, and who makes whom redundant (``limit``: a positive
        integer, names per list and lines per section)."""
        limit = _check_count(limit, "limit")

        def fmt(names: Sequence[str]) -> str:
            shown = ", ".join(names[:limit])
            return "{" + shown + (f", ... ({len(names)} in all)" if len(names) > limit else "") + "}"

        def group(members: Sequence[str]) -> str:
            return fmt(members) + ("" if not self.missing_edges(members) else " (not every pair)")

        groups = self.groups()
        aside = [self.feature_names.index(f) for f in (self.no_effect or ()) + (self.little_effect or ())]
        touching = int(self.adjacency[aside].sum() + self.adjacency[:, aside].sum()
                       - self.adjacency[np.ix_(aside, aside)].sum()) if aside else 0
        lines = [
            f"Redundancy graph H (gamma={self.gamma:.4g}): {self.n_features} features, {self.n_edges} edges, "
            f"density {self.density:.3f}"
            + (f" (the paper's H_gamma; {touching} of the edges touch the {len(aside)} features set aside below: "
               "no or little effect, not redundancy)" if touching else ""),
            "  groups (strongly connected in H; interchangeable unless marked 'not every pair'): "
            + ("; ".join(group(g) for g in groups[:limit]) if groups else "none"),
            f"  sources (no outside feature makes them redundant): {fmt(self.sources())}",
            ("  sinks (make no outside feature redundant): " if self.paper_definition else
             "  sinks (directionally redundant: made redundant from outside, make nothing outside redundant): ")
            + fmt(self.sinks()),
        ]
        isolated = self.isolated()
        if isolated:
            lines.append(f"  isolated (no redundancy either way): {fmt(isolated)}")
        if self.no_effect:
            lines.append(f"  no effect (set aside: nothing on their own, nothing given any other feature): "
                         f"{fmt(list(self.no_effect))}")
        if self.little_effect:
            lines.append(f"  little effect on their own (set aside: |phi| at most 2 gamma, too small to call "
                         f"redundant): {fmt(list(self.little_effect))}")
        condensation_edges = np.argwhere(self._condensed)
        if len(condensation_edges):
            components = self.components()
            lines.append("  directional redundancy (right side redundant given left side):")
            for a, b in condensation_edges[:limit]:
                lines.append(f"    {fmt(components[a])} -> {fmt(components[b])}")
            if len(condensation_edges) > limit:
                lines.append(f"    ... ({len(condensation_edges)} class edges in all)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary()


@dataclass(frozen=True, eq=False)
class GammaSweep:
    """Per threshold ``gamma``: density of ``H_gamma``, edges, mutual redundancy groups (count and features
    in them), the number of features in source and in sink classes of the condensation, and the numbers of
    features with no effect and with little effect on their own, set aside from groups, sources and sinks (0
    without univariate values)."""

    gamma: np.ndarray
    density: np.ndarray
    n_edges: np.ndarray
    n_groups: np.ndarray
    n_grouped: np.ndarray
    n_sources: np.ndarray
    n_sinks: np.ndarray
    default_gamma: float
    n_no_effect: np.ndarray | None = None
    n_little_effect: np.ndarray | None = None

    _COLUMNS = ("gamma", "density", "n_edges", "n_groups", "n_grouped", "n_sources", "n_sinks", "n_no_effect",
                "n_little_effect")

    def __post_init__(self) -> None:
        for name in ("n_no_effect", "n_little_effect"):
            if getattr(self, name) is None:
                object.__setattr__(self, name, np.zeros(len(self.gamma), dtype=int))

    def as_dict(self) -> dict[str, np.ndarray]:
        return {c: getattr(self, c) for c in self._COLUMNS}

    def to_pandas(self):
        """The sweep as a ``pandas.DataFrame`` (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.as_dict())

    def __len__(self) -> int:
        return len(self.gamma)

    def __repr__(self) -> str:
        head = "  ".join(f"{c:>9}" for c in self._COLUMNS)
        rows = [
            "  ".join([f"{self.gamma[r]:>9.3g}", f"{self.density[r]:>9.3f}"]
                      + [f"{int(getattr(self, c)[r]):>9d}" for c in self._COLUMNS[2:]])
            for r in range(len(self))
        ]
        return f"GammaSweep(default_gamma={self.default_gamma:.4g})\n" + "\n".join([head] + rows)


def default_gammas(weights: np.ndarray, n_points: int = 17) -> np.ndarray:
    """0 and ``n_points`` thresholds log-spaced from ``1e-4 max|W|`` to ``max|W|``."""
    scale = float(np.abs(weights).max())
    if scale == 0:
        return np.zeros(1)
    return np.concatenate([[0.0], scale * np.logspace(-4, 0, n_points)])


def gamma_sweep(weights, gammas: Sequence[float] | None = None, *, feature_names=None,
                std_errors=None, univariate=None) -> GammaSweep:
    """Graph density and group, source and sink counts of ``H_gamma`` for each ``gamma`` (sorted ascending).

    ``gammas=None``: 0 and 17 values log-spaced from ``1e-4 max|W|`` to ``max|W|``. Density is non-decreasing in
    ``gamma`` (edges are only added). The paper picks ``gamma`` for about 50 % density (Section 5, App. A.2.4);
    :func:`gamma_for_density` does that directly. With ``univariate`` (the Shapley values), the features with no
    effect or little effect on their own at each ``gamma`` are set aside from groups, sources and sinks, as
    :meth:`ExplanationGraph.redundancy` does (columns ``n_no_effect``, ``n_little_effect``); without, the paper's
    exact definition.
    """
    weights = check_square(weights)
    names = check_feature_names(feature_names, len(weights))
    np.fill_diagonal(weights, 0.0)
    if gammas is not None and np.ndim(gammas) == 0:  # one threshold: 'float' object is not iterable
        gammas = [gammas]
    grid = default_gammas(weights) if gammas is None else np.sort([_check_gamma(g) for g in gammas])
    if len(grid) == 0:
        raise ValueError("gammas: expected at least one threshold, got none")
    columns: dict[str, list] = {c: [] for c in GammaSweep._COLUMNS[1:]}
    for gamma in grid:
        aside, little = _set_aside(weights, univariate, gamma)
        h = RedundancyGraph(redundancy_adjacency(weights, gamma, univariate), gamma, names, no_effect=aside,
                            little_effect=little)
        groups = h.groups()
        columns["density"].append(h.density)
        columns["n_edges"].append(h.n_edges)
        columns["n_groups"].append(len(groups))
        columns["n_grouped"].append(sum(len(g) for g in groups))
        columns["n_sources"].append(len(h.sources()))
        columns["n_sinks"].append(len(h.sinks()))
        columns["n_no_effect"].append(len(aside or ()))
        columns["n_little_effect"].append(len(little or ()))
    return GammaSweep(gamma=np.asarray(grid, dtype=float),
                      **{c: np.asarray(v) for c, v in columns.items()},
                      default_gamma=default_gamma(weights, std_errors))


def gamma_for_density(weights, density: float) -> float:
    """Smallest ``gamma`` at which ``H_gamma`` has at least the given density (the paper aims at 0.5)."""
    weights = check_square(weights)
    n = len(weights)
    if not 0 < float(density) <= 1:
        raise ValueError(f"density: expected a number in (0, 1], got {density!r}")
    if n == 1:
        return 0.0
    values = np.sort(np.abs(weights[~np.eye(n, dtype=bool)]))
    needed = int(np.ceil(float(density) * len(values)))
    return float(values[max(needed, 1) - 1])


__all__ = ["DEFAULT_RELATIVE_GAMMA", "GammaSweep", "LITTLE_EFFECT_FACTOR", "RedundancyGraph", "default_gamma",
           "gamma_for_density", "gamma_sweep", "little_effect_mask", "no_effect_mask", "redundancy_adjacency"]
