"""The explanation-graph picture stays readable (found by a newcomer drawing 14 and 40 features with long names):
names are written whole and distinguishable, labels neither overlap nor leave the axes, a group's box shows its
members' values, and no edge runs through a node it does not join."""

import numpy as np
import pytest

from interplay.graph import ExplanationGraph

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.patches import Circle, FancyBboxPatch  # noqa: E402
from matplotlib.path import Path  # noqa: E402

from interplay import plot  # noqa: E402
from interplay.plot._common import NEGATIVE, POSITIVE  # noqa: E402


def long_graph(n: int, seed: int = 0) -> ExplanationGraph:
    """The newcomer's reproducer: random weights with a chain of redundancies (``i -> i + 1`` every third
    feature), one interchangeable pair (2 and 5) and names ``customer_feature_0`` ... that agree in 17 characters."""
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.2, 1, (n, n)) * rng.choice([-1, 1], (n, n))
    for i in range(0, n - 1, 3):
        w[i, i + 1] = 0.0
    w[2, 5] = w[5, 2] = 0.0
    return ExplanationGraph(w, [f"customer_feature_{i}" for i in range(n)], univariate=rng.normal(0, 1, n))


def chain_graph() -> ExplanationGraph:
    """x3 -> x4 -> x6 in one column, with {x1, x2} (interchangeable) and x5 also making x6 redundant: drawn
    straight, x5 -> x6 ran through x4 and read as 'x5 -> x4 -> x6'."""
    names = ["x1", "x2", "x3", "x4", "x5", "x6"]
    at = {name: k for k, name in enumerate(names)}
    w = np.ones((6, 6))
    for a, b in [("x3", "x4"), ("x4", "x6"), ("x1", "x2"), ("x2", "x1"), ("x1", "x6"), ("x2", "x6"), ("x5", "x6"),
                 ("x3", "x6")]:
        w[at[a], at[b]] = 0.0
    w[at["x4"], at["x3"]], w[at["x6"], at["x3"]] = 1.8, 1.6
    return ExplanationGraph(w, names, univariate=[-1.0, -1.0, 1.85, 0.55, -0.53, 0.3])


def _renderer(ax):
    ax.figure.canvas.draw()
    return ax.figure.canvas.get_renderer()


def _node_patches(ax):
    """The nodes: feature circles and group boxes (not a group member's dot, not a shaded layer)."""
    return [p for p in ax.patches if (isinstance(p, Circle) and p.get_gid() != "member")
            or (isinstance(p, FancyBboxPatch) and p.get_gid() != "layer-band")]


def _group_boxes(ax):
    return [p for p in ax.patches if isinstance(p, FancyBboxPatch) and p.get_gid() != "layer-band"]


def _inside(box, frame, tol: float = 1.0) -> bool:
    return (box.x0 >= frame.x0 - tol and box.x1 <= frame.x1 + tol and box.y0 >= frame.y0 - tol
            and box.y1 <= frame.y1 + tol)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("n", [14, 40])
def test_long_names_neither_overlap_nor_leave_the_axes(n):
    ax = plot.graph(long_graph(n))
    renderer = _renderer(ax)
    frame = ax.get_window_extent(renderer)
    texts = ax._interplay_labels
    boxes = [t.get_window_extent(renderer) for t in texts]
    overlapping = [(texts[a].get_text(), texts[b].get_text()) for a in range(len(boxes))
                   for b in range(a + 1, len(boxes)) if boxes[a].overlaps(boxes[b])]
    assert not overlapping
    assert not [t.get_text() for t, box in zip(texts, boxes) if not _inside(box, frame)]
    assert not [p for p in _node_patches(ax) if not _inside(p.get_window_extent(renderer), frame)]
    assert ax.figure.get_size_inches()[0] <= 20  # wrapped into rows, not one endless line


@pytest.mark.parametrize("n", [14, 40])
def test_every_feature_is_named_in_full_and_once(n):
    graph = long_graph(n)
    ax = plot.graph(graph)
    texts = [t.get_text() for t in ax._interplay_labels]
    assert len(set(texts)) == len(texts)
    named = []
    for text in texts:  # a node: name lines and its value; a group's row: "name  value"
        name = "".join(line for line in text.split("\n") if not _is_number(line))
        named.append(name.split("  ")[0])
    assert sorted(named) == sorted(graph.feature_names)


def test_a_group_shows_each_members_value_and_sign():
    graph = long_graph(14)  # customer_feature_2 and customer_feature_5 are interchangeable
    ax = plot.graph(graph)
    renderer = _renderer(ax)
    (box,) = _group_boxes(ax)
    extent = box.get_window_extent(renderer)
    inside = [t.get_text() for t in ax.texts if _inside(t.get_window_extent(renderer), extent)]
    dots = [p for p in ax.patches if p.get_gid() == "member" and _inside(p.get_window_extent(renderer), extent)]
    assert len(dots) == 2
    for i in (2, 5):
        value = graph.univariate[i]
        assert any(graph.feature_names[i] in t and f"{value:+.3g}" in t for t in inside), inside
        colour = POSITIVE if value > 0 else NEGATIVE
        assert any(matplotlib.colors.same_color(d.get_facecolor()[:3], colour) for d in dots)


def _edge_points(arrow):
    """Points along a drawn edge (display coordinates), and the ends of its line (not of its arrowhead)."""
    path = arrow.get_transform().transform_path(arrow.get_path())
    points = np.concatenate([segment(np.linspace(0.0, 1.0, 30)) for segment, _ in path.iter_bezier()])
    starts = np.flatnonzero(path.codes == Path.MOVETO)
    line = path.vertices[:starts[1]] if len(starts) > 1 else path.vertices
    return points, line[0], line[-1]


def _shape(patch, renderer):
    """A node as ``(distance to a point, contains a point)`` in display coordinates."""
    box = patch.get_window_extent(renderer)
    if isinstance(patch, Circle):
        centre, radius = np.array([(box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2]), box.width / 2

        def distance(p):
            return max(0.0, float(np.hypot(*(p - centre))) - radius)

        def contains(points):
            return bool((np.hypot(*(points - centre).T) < radius - 1.0).any())
    else:
        def distance(p):
            return float(np.hypot(max(box.x0 - p[0], 0.0, p[0] - box.x1), max(box.y0 - p[1], 0.0, p[1] - box.y1)))

        def contains(points):
            return bool(((points[:, 0] > box.x0 + 1) & (points[:, 0] < box.x1 - 1) & (points[:, 1] > box.y0 + 1)
                         & (points[:, 1] < box.y1 - 1)).any())
    return distance, contains


@pytest.mark.parametrize("case", ["chain", 14, 40])
def test_edges_do_not_run_through_other_nodes(case):
    graph = chain_graph() if case == "chain" else long_graph(case)
    ax = plot.graph(graph, summary=False)
    renderer = _renderer(ax)
    nodes = [_shape(p, renderer) for p in _node_patches(ax)]
    edges = [p for p in ax.patches if p.get_gid() in ("redundancy-edge", "strong-edge")]
    assert edges
    through = []
    for k, arrow in enumerate(edges):
        points, start, end = _edge_points(arrow)
        ends = {min(range(len(nodes)), key=lambda m: nodes[m][0](p)) for p in (start, end)}
        through += [(k, arrow.get_gid(), m) for m, (_, contains) in enumerate(nodes)
                    if m not in ends and contains(points)]
    assert not through


def test_max_features_keeps_the_largest_values_and_says_so():
    graph = long_graph(40)
    ax = plot.graph(graph, max_features=12)
    keep = {graph.feature_names[i] for i in np.argsort(-np.abs(graph.univariate))[:12]}
    texts = ax._interplay_labels
    named = {"".join(line for line in t.get_text().split("\n") if not _is_number(line)).split("  ")[0]
             for t in texts}
    assert named == keep
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "28 more left out" in legend
    assert f"gamma = {graph.default_gamma():.3g}" in ax.get_title(loc="left")  # read at the whole graph's threshold
    with pytest.raises(ValueError, match="max_features"):
        plot.graph(graph, max_features=0)


def test_a_layer_that_wraps_stays_in_its_band_and_the_legend_says_so():
    ax = plot.graph(long_graph(40))
    renderer = _renderer(ax)
    bands = [p.get_window_extent(renderer) for p in ax.patches if p.get_gid() == "layer-band"]
    assert len(bands) >= 2
    for p in _node_patches(ax):  # every node lies in exactly one shaded layer
        box = p.get_window_extent(renderer)
        assert sum(_inside(box, band) for band in bands) == 1
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "rows below: given those above" not in legend and "several rows" in legend


def conditional_graph() -> ExplanationGraph:
    """The newcomer's row of a linear model under conditional removal (one neighbour): x1 and x2 are copies,
    x4 = x3 mod 2; drawn with straight arrows and arcs, the arcs x4 -> x3 and x6 -> x3 ended on the start of the
    arrow x3 -> x4."""
    w = [[0.0, 0.0, 0.825, 0.183, -0.289, -0.009], [0.0, 0.0, 0.825, 0.183, -0.289, -0.009],
         [-0.353, -0.353, 0.0, 0.0, -0.281, 0.012], [-0.343, -0.343, 0.652, 0.0, -0.283, -0.013],
         [-0.356, -0.356, 0.831, 0.176, 0.0, -0.002], [-0.352, -0.352, 0.848, 0.171, -0.278, 0.0]]
    return ExplanationGraph(w, ["x1", "x2", "x3", "x4", "x5", "x6"],
                            univariate=[-1.011, -1.011, 1.851, 0.555, -0.526, 0.007])


def _head_gap(arrow, points) -> float:
    """The distance from ``points`` (display coordinates) to an arrow's head, a filled triangle (0 inside)."""
    path = arrow.get_transform().transform_path(arrow.get_path())
    start = np.flatnonzero(path.codes == Path.MOVETO)[-1]
    head = Path(path.vertices[start:], path.codes[start:])
    if head.contains_points(points).any():
        return 0.0
    corners = head.vertices[:-1] if head.codes[-1] == Path.CLOSEPOLY else head.vertices
    gaps = []
    for a, b in zip(corners, np.roll(corners, -1, axis=0)):
        t = np.clip(((points - a) @ (b - a)) / max(float((b - a) @ (b - a)), 1e-12), 0.0, 1.0)
        gaps.append(np.hypot(*(points - (a + t[:, None] * (b - a))).T).min())
    return float(min(gaps))


@pytest.mark.parametrize("case", ["conditional", "chain", 14, 40])
def test_no_coloured_arc_lies_on_an_arrows_start_or_head(case):
    graph = {"conditional": conditional_graph, "chain": chain_graph}.get(case, lambda: long_graph(case))()
    ax = plot.graph(graph, summary=False)
    _renderer(ax)
    dark = [p for p in ax.patches if p.get_gid() == "redundancy-edge"]
    arcs = [p for p in ax.patches if p.get_gid() == "strong-edge"]
    assert dark and arcs
    assert max(p.get_zorder() for p in arcs) < min(p.get_zorder() for p in dark)  # arrows drawn over arcs
    pixels = ax.figure.dpi / 72
    touching = []
    for k, arrow in enumerate(dark):
        line, start, _ = _edge_points(arrow)
        first = line[np.hypot(*(line - start).T) < 25]  # the arrow's first 25 pixels
        for m, arc in enumerate(arcs):
            points = _edge_points(arc)[0]
            room = arc.get_linewidth() * pixels / 2 + 2  # the arc's half width and two pixels
            gap = np.hypot(*(points[:, None, :] - first[None, :, :]).transpose(2, 0, 1)).min()
            if gap < room or _head_gap(arrow, points) < room:
                touching.append((k, m))
    assert not touching
