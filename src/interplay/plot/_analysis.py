"""What the graph plot and the report show of an explanation graph, in feature indices, computed by
:mod:`interplay.graph` (one implementation of the Bivariate Shapley paper's Section 4.1 and App. A).

``W[i, j]`` is the weight of edge ``i -> j`` of G; ``H_gamma`` keeps ``i -> j`` when ``|W[i, j]| <= gamma``
(up to rounding, see :func:`interplay.graph.explanation.roundoff`). Groups are the strongly connected components
of ``H_gamma`` with more than one feature; sources and sinks are the features in condensation nodes of in-degree /
out-degree 0 (a feature with no edge at all is both, and also ``isolated``); the features with no effect, or
little effect on their own, are set aside as :meth:`ExplanationGraph.redundancy` does; the ranking is
:meth:`ExplanationGraph.ranking` (default: PageRank on ``|W|`` personalised by ``|phi|``). Default gamma:
:func:`interplay.graph.redundancy.default_gamma` (5 % of the largest ``|W|``).

The layout (:func:`layered`) is the condensation of ``H_gamma`` drawn in layers: sources at the top, sinks at the
bottom (networkx's ``topological_generations``), features with no redundancy edge in a band of their own, the
set-aside ones (little effect on their own, then no effect) each kind in another, the
nodes of a layer ordered by the mean position of their parents (one barycentre sweep, fewer crossings); a layer
with no parents (the first, the features with no redundancy edge) reads left to right from the largest ``|phi|``
(what the node size shows; the ranking score without values; a group by its largest member), as the graph
picture's layers do.
:func:`thresholds` computes all of it once for every distinct ``|W|`` (``H_gamma`` changes only there), which
the report embeds so that its gamma slider only looks the analysis up.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..graph.explanation import ExplanationGraph, check_square
from ..graph.redundancy import default_gamma as _default_gamma
from ..graph.redundancy import gamma_sweep as _gamma_sweep

#: At most this many thresholds are embedded in a report (quantiles of the distinct ``|W|`` beyond it).
MAX_THRESHOLDS = 400


def as_graph(result, feature_names=None) -> ExplanationGraph:
    """An :class:`ExplanationGraph` from a graph, a BivariateExplanation, an Interactions result or a matrix."""
    if isinstance(result, ExplanationGraph):
        return result
    if hasattr(result, "graph") and (hasattr(result, "adjacency") or hasattr(result, "matrix")):
        return result.graph()
    if hasattr(result, "feature_names") and not isinstance(result, np.ndarray):  # an Explanation or Attribution:
        raise TypeError(f"result: expected a BivariateExplanation, Interactions, an ExplanationGraph or a square "
                        f"matrix, got {type(result).__name__}")  # (a square values table read as a matrix)
    w = check_square(result, "result")
    names = feature_names if feature_names is not None else [f"x{i}" for i in range(len(w))]
    return ExplanationGraph(w, [str(n) for n in names])


def _weights(adjacency) -> np.ndarray:
    w = np.array(check_square(adjacency, "adjacency"), dtype=float, copy=True)
    np.fill_diagonal(w, 0.0)
    return w


def default_gamma(adjacency) -> float:
    """The graph package's default threshold: :meth:`ExplanationGraph.default_gamma` for a graph or a result (its
    standard errors included), :func:`interplay.graph.redundancy.default_gamma` for a bare weight matrix."""
    if isinstance(adjacency, ExplanationGraph) or hasattr(adjacency, "graph"):
        return float(as_graph(adjacency).default_gamma())
    return float(_default_gamma(_weights(adjacency)))


@dataclass(frozen=True)
class GraphSummary:
    """What the report and the graph plot show for one gamma (feature indices, sorted)."""

    gamma: float
    component: np.ndarray          # component id per feature (strongly connected components of H_gamma)
    groups: list[list[int]]        # mutual-redundancy groups: components with more than one feature
    sources: list[int]             # features in source components of the condensation
    sinks: list[int]               # features in sink components
    isolated: list[int]            # features with no edge in H_gamma (both source and sink)
    ranking: np.ndarray            # ExplanationGraph.ranking() scores (higher = more influential)
    density: float                 # edges of H_gamma / (n (n - 1))
    layer: np.ndarray              # row per feature (0 = top); isolated features in the last row
    depth: np.ndarray              # vertical position per feature: generation + 0.7 per wrapped row
    x: np.ndarray                  # horizontal position per feature in [0, 1] (its class's place in its row)
    class_edges: list[tuple[int, int]]  # edges of the condensation's transitive reduction (component ids)
    adjacency: np.ndarray          # H_gamma, boolean (n, n)
    no_effect: list[int] = field(default_factory=list)      # set aside: no effect on this prediction
    little_effect: list[int] = field(default_factory=list)  # set aside: little effect on their own


def _indices(names, index) -> list[int]:
    return sorted(index[name] for name in names)


def layered(h, size: np.ndarray, max_per_row: int = 6):
    """Layer (row) and horizontal position per feature for ``H`` (a RedundancyGraph), and the condensation's
    transitive reduction (the class edges worth drawing: the others follow by transitivity). ``size``: what a
    node's size shows per feature (``|phi|``, or the ranking score without values); classes with no parent are
    placed left to right from the largest (a group: its largest member's), ties in class order.

    Rows: the condensation's topological generations (sources first), then the classes with no redundancy edge,
    then the features set aside (little effect on their own, then no effect), each kind in rows of its own;
    a generation of more than ``max_per_row`` classes is wrapped over several rows, every other one shifted by
    half a place and 0.7 of a generation lower so that edges from above pass between the nodes.
    """
    import networkx as nx

    n = h.n_features
    index = {name: i for i, name in enumerate(h.feature_names)}
    condensation = h.condensation()
    members = {c: [index[m] for m in condensation.nodes[c]["members"]] for c in condensation}
    lone = {c for c in condensation if condensation.degree(c) == 0 and len(members[c]) == 1}
    connected = condensation.subgraph([c for c in condensation if c not in lone])
    generations = [sorted(g) for g in nx.topological_generations(connected)]
    # then the lone features, and those set aside (little effect on their own, then no effect) each in rows of
    # their own, as the graph picture's bands (they shared a row: a driver beside faded set-aside features)
    none = {index[name] for name in (getattr(h, "no_effect", None) or ())}
    little = {index[name] for name in (getattr(h, "little_effect", None) or ())} - none
    for part in ({c for c in lone if members[c][0] not in none | little},
                 {c for c in lone if members[c][0] in little}, {c for c in lone if members[c][0] in none}):
        if part:
            generations.append(sorted(part))
    strength = {c: max(size[m] for m in members[c]) for c in condensation}
    place: dict[int, float] = {}
    layer_of = {}
    row, depth_of, depth = 0, {}, -1.0
    width = min(max_per_row, max(len(g) for g in generations))
    for generation in generations:
        def key(c):
            parents = [place[p] for p in condensation.predecessors(c) if p in place]
            return (float(np.mean(parents)) if parents else 0.5, -strength[c])

        ordered = sorted(generation, key=key)
        if len(ordered) > max_per_row:  # the strongest classes in the first row
            ordered = sorted(ordered, key=lambda c: -strength[c])
        depth = np.floor(depth) + 1.0
        for start in range(0, len(ordered), max_per_row):
            chunk = sorted(ordered[start:start + max_per_row], key=key)
            shift = 0.5 if (start // max_per_row) % 2 else 0.0
            offset = (width - len(chunk)) / 2 + shift
            for r, c in enumerate(chunk):
                place[c] = min((offset + r + 0.5) / (width + 0.5), 1.0)
                layer_of[c] = row
                depth_of[c] = depth
            row += 1
            depth += 0.7
    layer, x, depths = np.zeros(n, dtype=int), np.zeros(n), np.zeros(n)
    for c, ids in members.items():
        layer[ids] = layer_of[c]
        x[ids] = place[c]
        depths[ids] = depth_of[c]
    reduced = nx.transitive_reduction(connected) if connected.number_of_edges() else connected
    return layer, depths, x, sorted((int(a), int(b)) for a, b in reduced.edges)


def analyse(result, gamma: float | None = None, *, feature_names=None, ranking=None) -> GraphSummary:
    """Groups, sources, sinks, ranking and layered layout of an explanation graph at ``gamma`` (None: default).
    ``ranking``: the graph's ranking scores when already computed (they do not depend on gamma)."""
    graph = as_graph(result, feature_names)
    h = graph.redundancy(gamma)
    index = {name: i for i, name in enumerate(graph.feature_names)}
    components = [_indices(c, index) for c in h.components()]
    component = np.empty(graph.n_features, dtype=int)
    for k, ids in enumerate(components):
        component[ids] = k
    ranking = np.asarray(graph.ranking().scores if ranking is None else ranking)
    size = np.abs(np.asarray(graph.univariate, dtype=float)) if graph.univariate is not None else ranking
    layer, depth, x, class_edges = layered(h, size)  # left to right as the node sizes read, as the picture
    return GraphSummary(float(h.gamma), component, [c for c in components if len(c) > 1],
                        _indices(h.sources(), index), _indices(h.sinks(), index), _indices(h.isolated(), index),
                        ranking, float(h.density), layer, depth, x, class_edges, np.asarray(h.adjacency),
                        _indices(h.no_effect or (), index), _indices(h.little_effect or (), index))


def threshold_values(weights: np.ndarray, limit: int = MAX_THRESHOLDS) -> np.ndarray:
    """0 and every distinct off-diagonal ``|W|`` (where ``H_gamma`` changes), or ``limit`` quantiles of them."""
    n = len(weights)
    values = np.unique(np.abs(weights[~np.eye(n, dtype=bool)]))
    values = np.unique(np.concatenate([[0.0], values]))
    if len(values) > limit:
        values = np.unique(np.quantile(values, np.linspace(0.0, 1.0, limit), method="nearest"))
    return values


def thresholds(result, *, limit: int = MAX_THRESHOLDS, feature_names=None) -> dict:
    """The analysis at every distinct threshold, for the report: ``{"gammas": [...], "states": [...]}``, each
    state with ``groups``, ``sources``, ``sinks``, ``isolated``, ``no_effect``, ``little_effect`` (the features
    set aside), ``density``, ``depth``, ``x`` and the class
    edges as feature pairs (``edges``: one member of each class), plus ``default`` (the index of the state at
    the graph's default gamma)."""
    graph = as_graph(result, feature_names)
    gammas = threshold_values(np.asarray(graph.weights), limit)
    default = float(graph.default_gamma())
    # the default itself, so that the default state is the analysis at the default gamma, as G.redundancy() gives
    # it (it was the grid's state below, where the set-aside rules could differ); and where those rules change
    # (|phi| <= gamma, |phi| <= 2 gamma) while the states stay within the limit
    if graph.univariate is not None:
        uni = np.abs(np.asarray(graph.univariate, dtype=float))
        rules = np.unique(np.concatenate([uni, uni / 2.0]))
        rules = rules[rules <= gammas.max()]
        if len(np.union1d(gammas, rules)) < limit:
            gammas = np.union1d(gammas, rules)
    gammas = np.union1d(gammas, [default])
    states = []
    ranking = np.asarray(graph.ranking().scores)
    for gamma in gammas:
        s = analyse(graph, float(gamma), ranking=ranking)
        first = {}
        for i, c in enumerate(s.component.tolist()):
            first.setdefault(c, i)
        states.append({"groups": s.groups, "sources": s.sources, "sinks": s.sinks, "isolated": s.isolated,
                       "no_effect": s.no_effect, "little_effect": s.little_effect,
                       "density": round(s.density, 6), "depth": s.depth.tolist(),
                       "x": [round(v, 4) for v in s.x.tolist()],
                       "edges": [[first[a], first[b]] for a, b in s.class_edges]})
    position = int(np.searchsorted(gammas, default, side="right")) - 1
    return {"gammas": gammas.tolist(), "states": states, "default": max(position, 0), "default_gamma": default}


SWEEP_BREAKPOINTS = 400  # the default grid holds every distinct |W| (where the counts change) up to this many


def gamma_sweep(adjacency, gammas=None, *, n: int = 40) -> dict[str, np.ndarray]:
    """Density of ``H_gamma``, number of groups and features in groups, per gamma (default: ``n`` values from 0
    to the largest ``|W|`` and every distinct ``|W|``, the gammas where they change, while there are at most
    :data:`SWEEP_BREAKPOINTS`: the steps are exact, also near the default gamma), and ``default_gamma``. A
    Bivariate Shapley graph (or result) is swept as :meth:`ExplanationGraph.gamma_sweep` does (the same groups as
    :meth:`ExplanationGraph.redundancy`: features with no or little effect set aside) and its default gamma is
    :meth:`ExplanationGraph.default_gamma` (standard errors included); a bare matrix or a symmetric index's graph
    by the paper's definitions."""
    graph = adjacency if isinstance(adjacency, ExplanationGraph) or hasattr(adjacency, "graph") else None
    w = _weights(as_graph(graph).weights if graph is not None else adjacency)
    if gammas is None:
        top = float(np.abs(w).max()) if len(w) > 1 else 1.0
        gammas = np.linspace(0.0, top if top > 0 else 1.0, n)
        steps = np.unique(np.abs(w[np.isfinite(w)]))
        if len(steps) <= SWEEP_BREAKPOINTS:
            gammas = np.union1d(gammas, steps)
    gammas = np.asarray(gammas, dtype=float)
    graph = None if graph is None else as_graph(graph)
    if graph is not None and graph.interaction_index is None:
        sweep = graph.gamma_sweep(gammas)
    else:
        sweep = _gamma_sweep(w, gammas)
    default = graph.default_gamma() if graph is not None else _default_gamma(w)
    return {"gamma": sweep.gamma, "density": sweep.density, "n_groups": sweep.n_groups,
            "n_grouped": sweep.n_grouped, "default_gamma": float(default)}
