"""The directed explanation graph and the gamma sweep (Bivariate Shapley paper, Section 4)."""

from __future__ import annotations

import numpy as np

from . import _analysis
from ._common import NEGATIVE, NEUTRAL, POSITIVE, new_axes, plt

SOURCE_EDGE = "#1b9e3e"
SINK_EDGE = "#7a3db8"


def _matrix_and_names(result, feature_names):
    if hasattr(result, "adjacency"):
        return np.array(result.adjacency, dtype=float), [str(n) for n in result.feature_names]
    if hasattr(result, "matrix"):  # a symmetric interaction index, analysed the same way
        matrix = np.array(result.matrix, dtype=float)
        np.fill_diagonal(matrix, 0.0)
        return matrix, [str(n) for n in result.feature_names]
    matrix = np.array(result, dtype=float)
    names = feature_names if feature_names is not None else [f"x{i}" for i in range(len(matrix))]
    return matrix, [str(n) for n in names]


def graph(result, *, gamma: float | None = None, feature_names=None, ax=None, title: str | None = None,
          layout: str = "circular", max_edges: int | None = 60, random_state: int = 0):
    """Draw the directed explanation graph G.

    Edges ``i -> j`` with ``|W[i, j]| > gamma`` (the non-redundant ones; the others form ``H_gamma``), width
    proportional to ``|W|``, red for positive and blue for negative weights (only the ``max_edges`` strongest).
    Node size grows with the PageRank of G (softplus weights); nodes of one mutual-redundancy group (strongly
    connected component of ``H_gamma``) share a colour, features in no group are grey; sources of the
    condensation of ``H_gamma`` get a green ring, sinks a purple dashed ring (features with no redundancy edge
    are neither marked). ``gamma`` defaults to 1 % of the largest ``|W|``. ``layout``: ``"circular"`` or
    ``"spring"``.
    """
    w, names = _matrix_and_names(result, feature_names)
    n = len(w)
    summary = _analysis.analyse(w, gamma)
    import networkx as nx  # imported when a graph is drawn, not with interplay

    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    strength = np.abs(w)
    edges = [(i, j) for i in range(n) for j in range(n) if i != j and strength[i, j] > summary.gamma]
    edges.sort(key=lambda e: -strength[e])
    if max_edges is not None:
        edges = edges[:max_edges]
    g.add_edges_from(edges)
    if layout == "spring":
        pos = nx.spring_layout(g, seed=random_state)
    elif layout == "circular":
        pos = nx.circular_layout(g)
    else:
        raise ValueError(f"layout: expected 'circular' or 'spring', got {layout!r}")
    ax = new_axes(ax, (7, 6.5))
    top = strength.max() or 1.0
    widths = [0.5 + 5.0 * strength[e] / top for e in edges]
    colors = [POSITIVE if w[e] > 0 else NEGATIVE for e in edges]
    pr = summary.pagerank
    sizes = 300 + 2200 * (pr - pr.min()) / (np.ptp(pr) or 1.0)
    tab10 = plt().get_cmap("tab10")
    palette = [tab10(k) for k in (1, 2, 4, 5, 6, 8, 9, 7)]  # no blue or red: those mean edge signs
    fill = [NEUTRAL] * n
    for k, members in enumerate(summary.groups):
        for i in members:
            fill[i] = palette[k % len(palette)]
    nx.draw_networkx_edges(g, pos, edgelist=edges, width=widths, edge_color=colors, alpha=0.7, ax=ax,
                           arrows=True, arrowsize=14, node_size=list(sizes), connectionstyle="arc3,rad=0.12")
    nodes = nx.draw_networkx_nodes(g, pos, node_size=sizes, node_color=fill, ax=ax, edgecolors="white",
                                   linewidths=1.0)
    isolated = set(summary.isolated)
    sources = [i for i in summary.sources if i not in isolated]
    sinks = [i for i in summary.sinks if i not in isolated]
    if sources:
        nx.draw_networkx_nodes(g, pos, nodelist=sources, node_size=sizes[sources] * 1.5, node_color="none",
                               edgecolors=SOURCE_EDGE, linewidths=2.5, ax=ax)
    if sinks:
        ring = nx.draw_networkx_nodes(g, pos, nodelist=sinks, node_size=sizes[sinks] * 1.5, node_color="none",
                                      edgecolors=SINK_EDGE, linewidths=2.0, ax=ax)
        ring.set_linestyle("--")
    nx.draw_networkx_labels(g, pos, labels={i: names[i] for i in range(n)}, font_size=9, ax=ax)
    handles = [
        plt().Line2D([], [], color=POSITIVE, lw=2, label="positive weight"),
        plt().Line2D([], [], color=NEGATIVE, lw=2, label="negative weight"),
        plt().Line2D([], [], marker="o", ls="", mfc="none", mec=SOURCE_EDGE, mew=2, ms=10, label="source of H"),
        plt().Line2D([], [], marker="o", ls="", mfc="none", mec=SINK_EDGE, mew=2, ms=10, label="sink of H"),
    ]
    for k, members in enumerate(summary.groups[:10]):
        handles.append(plt().Line2D([], [], marker="o", ls="", color=palette[k % len(palette)], ms=9,
                                    label="group: " + ", ".join(names[i] for i in members[:4])
                                    + (" ..." if len(members) > 4 else "")))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set_title(title or f"explanation graph (gamma = {summary.gamma:.3g}; node size = PageRank)")
    ax.set_axis_off()
    ax.margins(0.12)
    del nodes
    return ax


def gamma_sweep(result, *, gammas=None, feature_names=None, ax=None, title: str | None = None,
                gamma: float | None = None):
    """Density of the redundancy graph ``H_gamma`` and the number of features in mutual-redundancy groups as
    gamma grows (Bivariate Shapley paper, App. A.2.4, Fig. 6); the default gamma is marked."""
    w, _ = _matrix_and_names(result, feature_names)
    sweep = _analysis.gamma_sweep(w, gammas)
    ax = new_axes(ax, (6, 3.8))
    ax.plot(sweep["gamma"], sweep["density"], color="#333", lw=2, label="density of H")
    ax.set_xlabel("gamma (edges with |W| <= gamma are redundant)")
    ax.set_ylabel("density of H_gamma")
    ax.set_ylim(-0.02, 1.02)
    twin = ax.twinx()
    n = len(w)
    twin.step(sweep["gamma"], sweep["n_grouped"] / max(n, 1), where="post", color=POSITIVE, lw=1.5,
              label="share of features in groups")
    twin.set_ylabel("share of features in groups", color=POSITIVE)
    twin.set_ylim(-0.02, 1.02)
    marked = _analysis.default_gamma(w) if gamma is None else gamma
    ax.axvline(marked, color="#888", ls="--", lw=1, label=f"gamma = {marked:.3g}")
    lines = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="lower right", fontsize=8)
    ax.set_title(title or "redundancy threshold sweep")
    return ax
