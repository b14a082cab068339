"""Graph analysis needed by the plots and the report, computed with networkx from the adjacency matrix.

Bivariate Shapley paper, Section 4.1 and App. A: ``W[i, j]`` is the weight of edge ``i -> j`` of the explanation
graph G; the redundancy graph ``H_gamma`` keeps ``i -> j`` when ``|W[i, j]| <= gamma``. Mutual-redundancy groups
are the strongly connected components of ``H_gamma`` with more than one feature; sources and sinks are the
features in condensation nodes of in-degree / out-degree 0 (a feature with no edge at all is both, and is also
reported as ``isolated``); the ranking is PageRank on G with weights ``softplus(W)``, no self-loops, damping 0.85.

A small private stand-in for the ``interplay.graph`` API (same definitions, same default gamma: 1 % of the
largest ``|W|``), so that the plots and the report can switch to it without changing their output.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

DEFAULT_RELATIVE_GAMMA = 0.01


def _weights(adjacency) -> np.ndarray:
    w = np.array(adjacency, dtype=float, copy=True)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"adjacency: expected a square (n, n) matrix, got shape {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError("adjacency: contains NaN or infinite values")
    np.fill_diagonal(w, 0.0)
    return w


def default_gamma(adjacency) -> float:
    """``0.01 * max |W(i, j)|`` off the diagonal (0 for a single feature)."""
    w = _weights(adjacency)
    return DEFAULT_RELATIVE_GAMMA * float(np.abs(w).max()) if len(w) > 1 else 0.0


def redundancy_graph(adjacency, gamma: float) -> nx.DiGraph:
    """``H_gamma``: edge ``i -> j`` (i != j) iff ``|W[i, j]| <= gamma``."""
    w = _weights(adjacency)
    mask = np.abs(w) <= gamma
    np.fill_diagonal(mask, False)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(w)))
    graph.add_edges_from(zip(*np.nonzero(mask)))
    return graph


def pagerank(adjacency, *, damping: float = 0.85) -> np.ndarray:
    """PageRank on G with edge weights ``softplus(W[i, j]) = log(1 + exp(W[i, j]))``, no self-loops."""
    w = _weights(adjacency)
    n = len(w)
    if n == 1:
        return np.ones(1)
    soft = np.logaddexp(0.0, w)
    np.fill_diagonal(soft, 0.0)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_weighted_edges_from((i, j, soft[i, j]) for i in range(n) for j in range(n) if i != j)
    ranks = nx.pagerank(graph, alpha=damping, weight="weight", tol=1e-12, max_iter=1000)
    return np.array([ranks[i] for i in range(n)])


@dataclass(frozen=True)
class GraphSummary:
    """What the report and the graph plot show for one gamma (feature indices, sorted)."""

    gamma: float
    component: np.ndarray          # component id per feature (strongly connected components of H_gamma)
    groups: list[list[int]]        # mutual-redundancy groups: components with more than one feature
    sources: list[int]             # features in source components of the condensation
    sinks: list[int]               # features in sink components
    isolated: list[int]            # features with no edge in H_gamma (both source and sink)
    pagerank: np.ndarray
    density: float                 # edges of H_gamma / (n (n - 1))


def analyse(adjacency, gamma: float | None = None) -> GraphSummary:
    """Groups, sources, sinks and PageRank of the explanation graph with weights ``adjacency``."""
    w = _weights(adjacency)
    n = len(w)
    gamma = default_gamma(w) if gamma is None else float(gamma)
    if not np.isfinite(gamma) or gamma < 0:
        raise ValueError(f"gamma: expected a finite number >= 0, got {gamma!r}")
    h = redundancy_graph(w, gamma)
    sccs = sorted((sorted(c) for c in nx.strongly_connected_components(h)), key=lambda c: c[0])
    component = np.empty(n, dtype=int)
    for k, members in enumerate(sccs):
        component[members] = k
    cond = nx.condensation(h, scc=[set(c) for c in sccs])
    sources, sinks = [], []
    for k in cond.nodes:
        if cond.in_degree(k) == 0:
            sources.extend(sccs[k])
        if cond.out_degree(k) == 0:
            sinks.extend(sccs[k])
    isolated = [i for i in range(n) if h.degree(i) == 0]
    density = h.number_of_edges() / (n * (n - 1)) if n > 1 else 0.0
    return GraphSummary(gamma, component, [c for c in sccs if len(c) > 1], sorted(sources), sorted(sinks),
                        isolated, pagerank(w), density)


def gamma_sweep(adjacency, gammas=None, *, n: int = 40) -> dict[str, np.ndarray]:
    """Density of ``H_gamma``, number of groups and features in groups, per gamma (default: ``n`` values from 0
    to the largest ``|W|``)."""
    w = _weights(adjacency)
    if gammas is None:
        top = float(np.abs(w).max()) if len(w) > 1 else 1.0
        gammas = np.linspace(0.0, top if top > 0 else 1.0, n)
    gammas = np.asarray(gammas, dtype=float)
    density, n_groups, grouped = [], [], []
    for gamma in gammas:
        summary = analyse(w, gamma)
        density.append(summary.density)
        n_groups.append(len(summary.groups))
        grouped.append(sum(len(g) for g in summary.groups))
    return {"gamma": gammas, "density": np.array(density), "n_groups": np.array(n_groups),
            "n_grouped": np.array(grouped)}
