"""The directed explanation graph and the gamma sweep (Bivariate Shapley paper, Section 4)."""

from __future__ import annotations

import textwrap

import numpy as np

from . import _analysis
from ._common import NEGATIVE, POSITIVE, new_axes, one_result, plt

REDUNDANCY_EDGE = "#3d4650"
GROUP_FILL = "#f4ead2"
GROUP_EDGE = "#b08a2e"
MAGNITUDE = "#d9822b"  # cohort graphs: magnitudes, no sign
X_STEP, Y_STEP = 1.9, 1.8  # data units between neighbours in a layer / between layers


def _short(name: str, width: int = 16) -> str:
    return name if len(name) <= width else name[:width - 1] + "\u2026"


def _box_lines(names: list[str], width: int = 28, max_lines: int = 4) -> list[str]:
    """A group's member names packed into at most ``max_lines`` lines of about ``width`` characters."""
    lines: list[str] = []
    for k, name in enumerate(names):
        if lines and len(lines[-1]) + 2 + len(name) <= width:
            lines[-1] += "  " + name
        elif len(lines) < max_lines:
            lines.append(name)
        else:
            lines[-1] += f"  +{len(names) - k} more"
            break
    return lines


def graph(result, *, gamma: float | None = None, feature_names=None, ax=None, title: str | None = None,
          strongest: int | None = None, max_edges: int | None = None, summary: bool | None = None,
          layout: str = "layered", random_state: int = 0):
    """Draw an explanation graph the way it is read: who makes whom redundant, and what matters.

    ``result``: a :class:`~interplay.results.BivariateExplanation`, an :class:`~interplay.graph.ExplanationGraph`
    (e.g. a cohort's, from :func:`~interplay.graph.mean_graph`), an Interactions result or an ``(n, n)`` matrix.

    Layout: the condensation of the redundancy graph ``H_gamma`` in layers, sources at the top (no outside feature
    makes them redundant), sinks at the bottom, features with no redundancy edge in the bottom band; mutually
    redundant features (a strongly connected component of ``H_gamma``) drawn as one box. Node area: ``|phi|``
    (the univariate value; colour: red raises, blue lowers the output); without univariate values, the ranking.
    Edges: dark arrows ``A -> B`` = "once A is known, B adds little" (the condensation's transitive reduction:
    the implied edges are left out), and the ``strongest`` edges of G above gamma as coloured arcs
    (``B`` matters given ``A``; red positive, blue negative weight, width ``|W|``; default ``min(5, n)``). At most
    ``max_edges`` (default ``2 n``) edges are drawn. ``gamma`` defaults to the graph's default (5 % of the largest
    ``|W|``; for a cohort graph, the edges redundant in most rows). ``summary`` (default: when this function makes
    the figure) writes :meth:`ExplanationGraph.describe` under the picture. ``layout="circular"`` puts the same
    nodes and edges on a circle, ``"spring"`` (seeded by ``random_state``) where networkx's force layout puts
    them. The drawn arrows carry ``gid`` ``"redundancy-edge"`` / ``"strong-edge"``.
    """
    from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch

    g = _analysis.as_graph(one_result(result, "result", "graph"), feature_names)
    names = [str(n) for n in g.feature_names]
    n = len(names)
    s = _analysis.analyse(g, gamma)
    w = np.asarray(g.weights)
    strongest = min(5, n) if strongest is None else int(strongest)
    max_edges = 2 * n if max_edges is None else int(max_edges)

    # ------------------------------------------------------------------ classes and positions
    n_layers = int(s.layer.max()) + 1
    per_layer = [int(len({c for c, row in zip(s.component, s.layer) if row == k})) for k in range(n_layers)]
    width = (max(per_layer) + 0.5) * X_STEP
    classes: dict[int, list[int]] = {}
    for i, c in enumerate(s.component.tolist()):
        classes.setdefault(c, []).append(i)
    center = {}
    if layout == "layered":
        for c, ids in classes.items():
            center[c] = (s.x[ids[0]] * width, -s.depth[ids[0]] * Y_STEP)
    elif layout == "circular":
        order = sorted(classes, key=lambda c: (s.layer[classes[c][0]], s.x[classes[c][0]]))
        radius = max(1.5, len(order) * X_STEP / (2 * np.pi))
        for k, c in enumerate(order):
            a = np.pi / 2 - 2 * np.pi * k / len(order)
            center[c] = (radius * np.cos(a), radius * np.sin(a))
    elif layout == "spring":
        import networkx as nx

        sketch = nx.Graph()
        sketch.add_nodes_from(classes)
        sketch.add_edges_from(s.class_edges)
        pos = nx.spring_layout(sketch, seed=random_state, scale=max(1.5, len(classes) * X_STEP / (2 * np.pi)))
        radius = max(1.5, len(classes) * X_STEP / (2 * np.pi))
        center = {c: (float(p[0]), float(p[1])) for c, p in pos.items()}
    else:
        raise ValueError(f"layout: expected 'layered', 'circular' or 'spring', got {layout!r}")

    phi = g.univariate
    magnitudes = g.kind == "cohort"  # mean |phi| and mean |W|: no sign to colour
    size = np.abs(phi) if phi is not None else np.asarray(s.ranking)
    top = float(size.max()) or 1.0
    xs = [p[0] for p in center.values()]
    ys = [p[1] for p in center.values()]
    xlim = (min(xs) - 1.1, max(xs) + 1.1)
    ylim = (min(ys) - 1.2, max(ys) + 1.3)
    made = ax is None
    show_summary = summary if summary is not None else made
    paragraph = textwrap.fill(g.describe(gamma), width=110) if show_summary else ""
    text_lines = paragraph.count("\n") + 1 if paragraph else 0
    unit = 0.55  # inches per data unit
    legend_w = 3.0  # inches right of the axes
    fig_w = float(np.clip((xlim[1] - xlim[0]) * unit + legend_w, 7.5, 18.0))
    fig_h = float(np.clip((ylim[1] - ylim[0]) * unit / 0.9 + 0.17 * text_lines + 0.3, 3.5, 14.0))
    ax = new_axes(ax, (fig_w, fig_h))
    ax.set_aspect("equal")

    patches = {}
    labels = []
    for c, ids in classes.items():
        cx, cy = center[c]
        if len(ids) > 1:  # a mutually redundant group: one box listing its members
            ids = sorted(ids, key=lambda i: -size[i])
            shown = _box_lines([_short(names[i]) for i in ids])
            text = "\n".join(shown)
            bw = 0.13 * max(len(t) for t in shown) + 0.35
            bh = 0.30 * len(shown) + 0.2
            box = FancyBboxPatch((cx - bw / 2, cy - bh / 2), bw, bh, boxstyle="round,pad=0.05,rounding_size=0.15",
                                 fc=GROUP_FILL, ec=GROUP_EDGE, lw=1.5, zorder=3)
            ax.add_patch(box)
            labels.append(ax.text(cx, cy, text, ha="center", va="center", fontsize=8.5, zorder=4,
                                  linespacing=1.25))
            patches[c] = box
        else:
            i = ids[0]
            r = 0.12 + 0.38 * np.sqrt(size[i] / top)
            colour = ("#b7bec6" if phi is None or phi[i] == 0 else MAGNITUDE if magnitudes
                      else POSITIVE if phi[i] > 0 else NEGATIVE)
            dot = Circle((cx, cy), r, fc=colour, ec="white", lw=1.2, alpha=0.9, zorder=3)
            ax.add_patch(dot)
            patches[c] = dot
            value = "" if phi is None else f"\n{phi[i]:+.3g}" if g.kind != "cohort" else f"\n{abs(phi[i]):.3g}"
            labels.append(ax.text(cx, cy - r - 0.06, _short(names[i]) + value, ha="center", va="top",
                                  fontsize=8.5, zorder=4, linespacing=1.1,
                                  bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8}))

    # ------------------------------------------------------------------ edges
    drawn = 0
    comp = s.component
    for ca, cb in s.class_edges:  # component ids
        if drawn >= max_edges:
            break
        arrow = FancyArrowPatch(center[ca], center[cb], patchA=patches[ca], patchB=patches[cb],
                                arrowstyle="-|>", mutation_scale=16, lw=1.6, color=REDUNDANCY_EDGE,
                                shrinkA=2, shrinkB=2, zorder=2, connectionstyle="arc3,rad=0.0")
        arrow.set_gid("redundancy-edge")
        ax.add_patch(arrow)
        drawn += 1
    strength = np.abs(w)
    candidates = [(i, j) for i in range(n) for j in range(n)
                  if i != j and not s.adjacency[i, j] and comp[i] != comp[j]]
    candidates.sort(key=lambda e: -strength[e])
    limit = max(0, min(strongest, max_edges - drawn))
    maxw = float(strength.max()) or 1.0
    for i, j in candidates[:limit]:
        ci, cj = int(comp[i]), int(comp[j])
        arrow = FancyArrowPatch(center[ci], center[cj], patchA=patches[ci], patchB=patches[cj],
                                arrowstyle="-|>", mutation_scale=14, lw=0.8 + 3.2 * strength[i, j] / maxw,
                                color=MAGNITUDE if magnitudes else POSITIVE if w[i, j] > 0 else NEGATIVE,
                                alpha=0.75, shrinkA=3, shrinkB=3,
                                zorder=1, connectionstyle="arc3,rad=0.25")
        arrow.set_gid("strong-edge")
        ax.add_patch(arrow)
        drawn += 1

    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    m = plt()
    handles = [
        m.Line2D([], [], color=REDUNDANCY_EDGE, lw=1.6, marker=">", markevery=[1], label="A \u2192 B: once A is known, "
                 "B adds little"),
        *([m.Line2D([], [], color=MAGNITUDE, lw=2, label="A \u2192 B: B matters given A (width: mean |W|)")]
          if magnitudes else
          [m.Line2D([], [], color=POSITIVE, lw=2, label="A \u2192 B: B raises the output given A"),
           m.Line2D([], [], color=NEGATIVE, lw=2, label="\u2026 lowers it (width: |W|)")]),
        m.Line2D([], [], ls="", label="top row: redundant given no other;\nrows below: given those above"),
        m.Line2D([], [], marker="s", ls="", mfc=GROUP_FILL, mec=GROUP_EDGE, ms=10, label="interchangeable group"),
        m.Line2D([], [], marker="o", ls="", mfc="#888", mec="none", ms=9,
                 label="area: " + ("mean |value|" if g.kind == "cohort" else "|value|") if phi is not None
                 else "area: ranking score"),
    ]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    if title is None and g.redundancy_share is not None and gamma is None:
        title = (f"explanation graph of {g.info.get('n_rows', 'the')} rows; redundant: in at least half of them")
    ax.set_title(title or f"explanation graph, gamma = {s.gamma:.3g}", fontsize=10, loc="left")
    ax.set_axis_off()
    if paragraph:
        ax.figure.text(0.02, 0.01, paragraph, fontsize=8.5, va="bottom", ha="left")
    if made:
        ax.figure.subplots_adjust(left=0.01, top=1.0 - 0.4 / fig_h, right=1.0 - legend_w / fig_w,
                                  bottom=min(0.5, (0.17 * text_lines + 0.25) / fig_h) if paragraph else 0.02)
    ax._interplay_labels = labels  # for tests: the label artists, checked for overlaps
    return ax


def gamma_sweep(result, *, gammas=None, feature_names=None, ax=None, title: str | None = None,
                gamma: float | None = None):
    """Density of the redundancy graph ``H_gamma`` and the number of features in mutual-redundancy groups as
    gamma grows (Bivariate Shapley paper, App. A.2.4, Fig. 6); the default gamma is marked."""
    g = _analysis.as_graph(one_result(result, "result", "gamma_sweep"), feature_names)
    w = np.asarray(g.weights)
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
