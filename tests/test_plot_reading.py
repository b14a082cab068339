"""What the plots show reads as they say: the graph's layers are ordered by what the node size shows (found on
Adult: the layer of features with no redundancy edge was in PageRank order, a -0.07 dot before a -0.2 one) and a
group's member marks are not a second, smaller size scale; a categorical colouring feature of the dependence plot
gets one colour per category in a legend, not a colour bar; the interactions bar plot's "N other pairs" bar does
not squash the pairs shown."""

import numpy as np
import pytest

import interplay as ip
from interplay.graph import ExplanationGraph

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
from matplotlib.patches import Circle, FancyBboxPatch  # noqa: E402

from interplay import plot  # noqa: E402

from test_graph_picture import chain_graph  # noqa: E402


def _pagerank_disagrees() -> ExplanationGraph:
    """Six features, no redundancy edge (every weight large), f5 the smallest value but every edge into it
    strong, so that PageRank ranks it first."""
    w = np.full((6, 6), 0.8)
    w[:, 5] = 3.0
    phi = np.array([1.0, -0.9, 0.8, -0.7, 0.65, 0.6])
    return ExplanationGraph(w, [f"f{i}" for i in range(6)], univariate=phi)


def _dot_order(ax):
    """Per row of dots (by height, top first): the |value| written under each dot, left to right."""
    centres = np.array([p.center for p in ax.patches if isinstance(p, Circle) and p.get_gid() == "node"])
    rows: dict[float, list[tuple[float, float]]] = {}
    for text in ax._interplay_labels:
        lines = text.get_text().split("\n")
        if len(lines) < 2:  # a group's row
            continue
        x, y = text.get_position()  # just under its dot
        cx, cy = centres[np.argmin(np.hypot(centres[:, 0] - x, centres[:, 1] - y))]
        rows.setdefault(round(float(cy), 3), []).append((float(cx), abs(float(lines[-1]))))
    return [[v for _, v in sorted(row)] for _, row in sorted(rows.items(), reverse=True)]


def test_a_layer_reads_left_to_right_from_the_largest_value():
    graph = _pagerank_disagrees()
    ranking = np.asarray(graph.ranking().scores)
    assert np.argmax(ranking) == 5  # the case: PageRank and |value| disagree
    ax = plot.graph(graph)
    (row,) = _dot_order(ax)
    assert row == sorted(row, reverse=True)
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "largest first" in legend


def test_a_group_is_placed_by_its_largest_member():
    ax = plot.graph(chain_graph())  # top layer: x3 (1.85), the group {x1, x2} (1.0 each), x5 (0.53)
    (group_x,) = [p.get_x() + p.get_width() / 2 for p in ax.patches
                  if isinstance(p, FancyBboxPatch) and p.get_gid() == "group"]
    labels = {t.get_text().split("\n")[0]: t.get_position()[0] for t in ax._interplay_labels}
    assert labels["x3"] < group_x < labels["x5"]


def test_group_members_are_colour_marks_of_one_size():
    graph = chain_graph()
    phi = np.array(graph.univariate, dtype=float)
    phi[:2] = [-1.0, -0.4]  # x1 and x2: different values
    ax = plot.graph(ExplanationGraph(np.asarray(graph.weights), list(graph.feature_names), univariate=phi))
    marks = [p for p in ax.patches if p.get_gid() == "member"]
    assert len(marks) == 2
    sizes = {tuple(np.round(p.get_window_extent(ax.figure.canvas.get_renderer()).size, 6)) for p in marks}
    assert len(sizes) == 1  # a smaller mark no longer reads as a smaller value
    assert not any(isinstance(p, Circle) for p in marks)  # not dots: no size scale to compare with the nodes'
    legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "colour only" in legend


def _dependence_table(colouring) -> ip.Explanation:
    """Rows of x (numbers) explained by values that depend on ``colouring`` (the column to colour by)."""
    rng = np.random.default_rng(0)
    m = len(colouring)
    x = rng.normal(size=m)
    values = np.column_stack([x * rng.normal(size=m), rng.normal(size=m)])
    data = np.column_stack([x.astype(object), np.asarray(colouring, dtype=object)])
    return ip.Explanation(values, np.zeros(m), data, ("x", "c"), "exact", np.full(m, 4))


def _legend_colours(ax):
    legend = ax.get_legend()
    return {t.get_text(): matplotlib.colors.to_rgba(h.get_markerfacecolor())
            for t, h in zip(legend.get_texts(), legend.legend_handles)}


@pytest.mark.parametrize("colouring", [
    np.random.default_rng(1).choice(["Husband", "Wife", "Own-child", "Unmarried"], 120),   # names
    np.random.default_rng(1).choice([0, 1, 3], 120),                                       # integer codes
])
def test_a_categorical_colouring_feature_gets_one_colour_per_level_in_a_legend(colouring):
    ax = plot.scatter(_dependence_table(colouring), "x", color="c")
    assert len(ax.figure.axes) == 1  # no colour bar
    colours = _legend_colours(ax)
    levels = sorted(set(colouring.tolist()))
    assert list(colours) == [str(v) for v in levels] and ax.get_legend().get_title().get_text() == "c"
    assert len(set(colours.values())) == len(levels)  # one colour each
    drawn = ax.collections[0].get_facecolors()
    for k, value in enumerate(colouring):  # each dot has its level's colour
        np.testing.assert_allclose(drawn[k][:3], colours[str(value)][:3], atol=1e-6)


def test_many_categories_keep_the_most_frequent_and_pool_the_rest_and_missing_is_named():
    rng = np.random.default_rng(2)
    names = [f"country_{k:02d}" for k in range(14)]
    colouring = rng.choice(names, 300, p=np.r_[0.5, np.full(13, 0.5 / 13)]).astype(object)
    colouring[:5] = None
    ax = plot.scatter(_dependence_table(colouring), "x", color="c")
    labels = list(_legend_colours(ax))
    assert len(labels) == 10 and labels[-2:] == ["6 other categories", "missing"]
    assert "country_00" in labels  # the most frequent keeps its colour


def test_a_numeric_colouring_feature_with_many_values_keeps_the_colour_bar():
    ax = plot.scatter(_dependence_table(np.random.default_rng(3).normal(size=120)), "x", color="c")
    assert len(ax.figure.axes) == 2 and ax.get_legend() is None


def _interactions_with_many_small_pairs(pair: float = -0.12) -> ip.Interactions:
    """Six features and 15 pairs of ``pair`` each: their sum (-1.8 by default) is longer than any value shown."""
    values = {(i,): v for i, v in enumerate([1.0, -0.9, 0.8, 0.7, 0.5, 0.4])}
    values.update({(i, j): pair for i in range(6) for j in range(i + 1, 6)})
    return ip.Interactions(values, "bii", 2, 0.0, [f"f{i}" for i in range(6)], 64, "exact")


def test_a_sum_of_other_pairs_longer_than_the_bars_shown_is_cut_and_says_so():
    ax = plot.bar(_interactions_with_many_small_pairs(), max_features=4)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:2] == ["2 other features", "15 other pairs"]  # bottom up
    widths = [p.get_width() for p in ax.patches]
    assert widths[1] == pytest.approx(-1.0)  # the pairs' sum stops at the longest bar shown (f0, 1.0) ...
    assert widths[0] == pytest.approx(0.4 + 0.5)  # ... a shorter sum is drawn to scale
    written = {round(t.get_position()[1]): t.get_text().strip() for t in ax.texts}
    assert written[1] == "-1.8 (bar cut)" and written[0] == "+0.9"  # ... and its label gives the sum
    assert len([line for line in ax.lines if line.get_gid() == "bar-break"]) == 2  # a cut mark on that bar only
    lo, hi = ax.get_xlim()
    assert hi - lo < 3.0  # the shown bars keep the scale (the sum drawn to scale made it 1.8 + 1.0 + labels)
    # a sum up to CUT_ABOVE (1.5) times the longest bar squashes nothing: drawn to scale (15 x -0.09 = -1.35)
    ax = plot.bar(_interactions_with_many_small_pairs(-0.09), max_features=4)
    assert [p.get_width() for p in ax.patches][1] == pytest.approx(-1.35)
    assert not [line for line in ax.lines if line.get_gid() == "bar-break"]
