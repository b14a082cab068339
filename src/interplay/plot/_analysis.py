"""What the plots and the report show of an explanation graph, in feature indices, computed by
:mod:`interplay.graph` (one implementation of the Bivariate Shapley paper's Section 4.1 and App. A).

``W[i, j]`` is the weight of edge ``i -> j`` of G; ``H_gamma`` keeps ``i -> j`` when ``|W[i, j]| <= gamma``
(up to rounding, see :func:`interplay.graph.explanation.roundoff`). Groups are the strongly connected components
of ``H_gamma`` with more than one feature; sources and sinks are the features in condensation nodes of in-degree /
out-degree 0 (a feature with no edge at all is both, and also ``isolated``); the ranking is PageRank on G with
``softplus(W)`` weights, no self-loops, damping 0.85. Default gamma: :func:`interplay.graph.redundancy.default_gamma`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph.explanation import check_square
from ..graph.ranking import pagerank as _pagerank
from ..graph.redundancy import RedundancyGraph
from ..graph.redundancy import default_gamma as _default_gamma
from ..graph.redundancy import gamma_sweep as _gamma_sweep


def _weights(adjacency) -> np.ndarray:
    w = np.array(check_square(adjacency, "adjacency"), dtype=float, copy=True)
    np.fill_diagonal(w, 0.0)
    return w


def default_gamma(adjacency) -> float:
    """The graph package's default threshold for this weight matrix."""
    return float(_default_gamma(_weights(adjacency)))


def pagerank(adjacency, *, damping: float = 0.85) -> np.ndarray:
    """PageRank scores on G with ``softplus(W)`` weights, no self-loops."""
    return np.asarray(_pagerank(_weights(adjacency), transform="softplus", damping=damping).scores)


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


def _indices(names) -> list[int]:
    return sorted(int(name) for name in names)


def analyse(adjacency, gamma: float | None = None) -> GraphSummary:
    """Groups, sources, sinks and PageRank of the explanation graph with weights ``adjacency``."""
    w = _weights(adjacency)
    n = len(w)
    h = RedundancyGraph.from_weights(w, gamma, [str(i) for i in range(n)])
    components = sorted((_indices(c) for c in h.components()), key=lambda c: c[0])
    component = np.empty(n, dtype=int)
    for k, members in enumerate(components):
        component[members] = k
    return GraphSummary(float(h.gamma), component, [c for c in components if len(c) > 1],
                        _indices(h.sources()), _indices(h.sinks()), _indices(h.isolated()),
                        pagerank(w), float(h.density))


def gamma_sweep(adjacency, gammas=None, *, n: int = 40) -> dict[str, np.ndarray]:
    """Density of ``H_gamma``, number of groups and features in groups, per gamma (default: ``n`` values from 0
    to the largest ``|W|``)."""
    w = _weights(adjacency)
    if gammas is None:
        top = float(np.abs(w).max()) if len(w) > 1 else 1.0
        gammas = np.linspace(0.0, top if top > 0 else 1.0, n)
    sweep = _gamma_sweep(w, np.asarray(gammas, dtype=float))
    return {"gamma": sweep.gamma, "density": sweep.density, "n_groups": sweep.n_groups,
            "n_grouped": sweep.n_grouped}
