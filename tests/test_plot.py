"""Every plot renders (Agg backend), and the graph analysis behind the graph plot matches its definitions."""

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402

import interplay as ip  # noqa: E402
from interplay import plot  # noqa: E402
from interplay.plot import _analysis  # noqa: E402
from interplay.synthetic import UnanimitySum  # noqa: E402


@pytest.fixture(scope="module")
def results():
    game = UnanimitySum.random(6, 7, 3, random_state=2).game()
    rng = np.random.default_rng(0)
    shap = ip.shapley(game)
    expl = ip.Explanation(rng.normal(size=(30, 6)), np.zeros(30), rng.normal(size=(30, 6)), shap.feature_names,
                          "exact", np.full(30, 64))
    return {"shapley": shap, "sii": ip.interactions(game, index="sii"), "bivariate": ip.bivariate(game),
            "explanation": expl}


def _rendered(ax, tmp_path, name):
    path = tmp_path / f"{name}.png"
    ax.figure.savefig(path, dpi=50)
    assert path.stat().st_size > 1000
    return ax


def test_one_row_plots(results, tmp_path):
    ax = _rendered(plot.bar(results["shapley"]), tmp_path, "bar")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[-1] == results["shapley"].ranking()[0]  # largest |value| on top
    _rendered(plot.bar(results["bivariate"], max_features=3), tmp_path, "bar3")
    ax = _rendered(plot.waterfall(results["shapley"], max_features=3), tmp_path, "waterfall")
    assert any("other features" in t.get_text() for t in ax.get_yticklabels())
    _rendered(plot.bar(np.array([1.0, -2.0]), feature_names=["a", "b"]), tmp_path, "bar_array")


def test_summary_and_heatmap(results, tmp_path):
    _rendered(plot.beeswarm(results["explanation"], max_features=4), tmp_path, "beeswarm")
    _rendered(plot.heatmap(results["sii"]), tmp_path, "heat")
    _rendered(plot.heatmap(results["bivariate"], diagonal=False), tmp_path, "heat_biv")
    _rendered(plot.heatmap(np.eye(3), feature_names=list("abc")), tmp_path, "heat_array")


def test_graph_and_sweep(results, tmp_path):
    _rendered(plot.graph(results["bivariate"]), tmp_path, "graph")
    _rendered(plot.graph(results["sii"], layout="spring", gamma=0.1), tmp_path, "graph_sii")
    ax = _rendered(plot.gamma_sweep(results["bivariate"]), tmp_path, "sweep")
    density = ax.get_lines()[0].get_ydata()
    assert np.all(np.diff(density) >= 0)  # more edges as gamma grows
    with pytest.raises(ValueError, match="layout"):
        plot.graph(results["bivariate"], layout="nope")


def test_modalities(tmp_path):
    tokens = "the movie was <b>not</b> bad at all".split()
    _rendered(plot.text(tokens, np.linspace(-1, 1, len(tokens))), tmp_path, "text")
    img = np.random.default_rng(0).random((16, 16, 3))
    segments = np.arange(4).reshape(2, 2).repeat(8, 0).repeat(8, 1)
    _rendered(plot.image(img, segments, [0.5, -0.2, 0.0, 1.0]), tmp_path, "image")
    _rendered(plot.image((img[..., 0] * 255).astype(np.uint8), segments, [1, 2, 3, 4]), tmp_path, "image_gray")
    with pytest.raises(ValueError, match="one value per token"):
        plot.text(tokens, [1.0])
    with pytest.raises(ValueError, match="region ids"):
        plot.image(img, segments, [1.0, 2.0])
    with pytest.raises(ValueError, match="height x width"):
        plot.image(img, segments[:4], [1.0] * 4)


def test_bad_inputs():
    with pytest.raises(ValueError, match="feature_names"):
        plot.bar([1.0, 2.0], feature_names=["a"])
    with pytest.raises(ValueError, match="1-D"):
        plot.bar(np.ones((2, 2)))
    with pytest.raises(ValueError, match="square"):
        plot.heatmap(np.ones((2, 3)))


def test_analysis_on_a_known_graph():
    # 0 and 1 make each other redundant (mutual group); both make 2 redundant; 3 has strong edges only.
    w = np.full((4, 4), 1.0)
    w[0, 1] = w[1, 0] = 0.0
    w[0, 2] = w[1, 2] = 0.001
    summary = _analysis.analyse(w, gamma=0.01)
    assert summary.groups == [[0, 1]]
    assert summary.sources == [0, 1, 3] and summary.sinks == [2, 3] and summary.isolated == [3]
    assert summary.density == pytest.approx(4 / 12)
    assert _analysis.default_gamma(w) == pytest.approx(0.05)  # interplay.graph default: 5 % of max|W|


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_analysis_agrees_with_networkx(seed):
    rng = np.random.default_rng(seed)
    n = 9
    w = rng.normal(size=(n, n)) * (rng.random((n, n)) < 0.5)
    gamma = 0.3
    summary = _analysis.analyse(w, gamma)
    h = nx.DiGraph()
    h.add_nodes_from(range(n))
    h.add_edges_from((i, j) for i in range(n) for j in range(n) if i != j and abs(w[i, j]) <= gamma)
    groups = sorted(sorted(c) for c in nx.strongly_connected_components(h) if len(c) > 1)
    assert summary.groups == groups
    cond = nx.condensation(h)
    members = nx.get_node_attributes(cond, "members")
    assert summary.sources == sorted(i for c in cond if cond.in_degree(c) == 0 for i in members[c])
    assert summary.sinks == sorted(i for c in cond if cond.out_degree(c) == 0 for i in members[c])
    # the default ranking without univariate values: PageRank on |W| without self-loops, by power iteration
    p = np.abs(w)
    np.fill_diagonal(p, 0.0)
    transition = p / p.sum(axis=1, keepdims=True)
    r = np.full(n, 1 / n)
    for _ in range(500):
        r = 0.15 / n + 0.85 * r @ transition
    np.testing.assert_allclose(summary.ranking, r, atol=1e-8)


# ---------------------------------------------------------------------------------------------- any result
@pytest.fixture(scope="module")
def table():
    """Many rows of f(x) = x0 * x1 + x2 + [colour == 'red'] explained exactly (baseline removal at 0), with a raw
    categorical column: the attribution of x0 depends on x1 (their interaction), nothing else interacts."""
    rng = np.random.default_rng(3)
    m = 80
    numbers = rng.normal(size=(m, 3))
    colour = rng.choice(["blue", "red", "green"], m)
    values = np.column_stack([numbers[:, 0] * numbers[:, 1] / 2, numbers[:, 0] * numbers[:, 1] / 2, numbers[:, 2],
                              (colour == "red") - 1 / 3])
    data = np.column_stack([numbers.astype(object), colour.astype(object)])
    return ip.Explanation(values, np.full(m, 0.5), data, ("x0", "x1", "x2", "colour"), "exact", np.full(m, 16))


def _labels(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


def _colorbars(ax):
    return [other for other in ax.figure.axes if other is not ax]


def test_bar_over_many_rows_is_mean_absolute_value(table, tmp_path):
    ax = _rendered(plot.bar(table), tmp_path, "bar_many")
    widths = [p.get_width() for p in ax.patches]
    expected = np.sort(np.abs(table.values).mean(axis=0))  # smallest at the bottom
    np.testing.assert_allclose(widths, expected, rtol=1e-12)
    assert "mean |value| over 80 rows" in ax.get_xlabel()
    ax = plot.bar(table, max_features=2)
    assert len(ax.patches) == 3 and _labels(ax)[0] == "2 other features"
    gi = plot.bar(table.global_importance())  # the named aggregate draws the same bars
    np.testing.assert_allclose([p.get_width() for p in gi.patches], expected, rtol=1e-12)
    assert "mean |value|" in gi.get_xlabel()


def test_one_row_plots_show_feature_values(table, tmp_path):
    row = table[0]
    ax = _rendered(plot.waterfall(row), tmp_path, "waterfall_row")
    labels = _labels(ax)
    assert f"colour = {table.data[0, 3]}" in labels
    assert f"x2 = {table.data[0, 2]:.4g}" in labels
    widths = [p.get_width() for p in ax.patches]
    assert sum(widths) == pytest.approx(row.values.sum())  # the steps add up to the prediction
    assert f"colour = {table.data[0, 3]}" in _labels(plot.bar(row))
    assert _labels(plot.waterfall(table[:1])) == labels  # an Explanation of one row is that row
    with pytest.raises(ValueError, match="pass expl\\[i\\]"):
        plot.waterfall(table)


def test_beeswarm_colours_by_feature_value_with_a_colour_bar(table, tmp_path):
    ax = _rendered(plot.beeswarm(table), tmp_path, "beeswarm_table")
    assert len(ax.collections) == 4 and len(_colorbars(ax)) == 1
    assert [t.get_text() for t in _colorbars(ax)[0].get_yticklabels()] == ["low", "high"]
    # x2's dots: the highest value is red, the lowest blue
    line = _labels(ax).index("x2")
    dots = ax.collections[line]
    colours = dots.get_facecolors()
    x = dots.get_offsets()[:, 0]
    assert colours[np.argmax(x)][0] > 0.8 and colours[np.argmin(x)][2] > 0.7
    # the categorical column: one colour per category
    line = _labels(ax).index("colour")
    colours = ax.collections[line].get_facecolors()
    assert len({tuple(np.round(c, 6)) for c in colours}) == 3
    ax = plot.beeswarm(table, max_features=2)
    assert _labels(ax)[0] == "2 other features" and len(ax.collections) == 3
    rest = [table.feature_names.index(n) for n in table.feature_names if n not in _labels(ax)]
    np.testing.assert_allclose(np.sort(ax.collections[0].get_offsets()[:, 0]),
                               np.sort(table.values[:, rest].sum(axis=1)))
    with pytest.raises(TypeError, match="many rows"):
        plot.beeswarm(table[0])


def test_scatter_colours_by_the_strongest_interaction(table, tmp_path):
    from interplay.plot.dependence import strongest_interaction

    ax = _rendered(plot.scatter(table, "x0"), tmp_path, "scatter")
    assert strongest_interaction(table, "x0") == 1
    assert _colorbars(ax)[0].get_ylabel() == "x1"
    ends = np.percentile(table.data[:, 1].astype(float), [5, 95])  # the colour range, written at its ends,
    # clipped there (values beyond both): "<=" and ">=" say so
    assert [t.get_text() for t in _colorbars(ax)[0].get_yticklabels()] == [f"<= {ends[0]:.4g}", f">= {ends[1]:.4g}"]
    assert ax.get_xlabel() == "x0" and ax.get_ylabel() == "attribution of x0"
    np.testing.assert_allclose(ax.collections[0].get_offsets()[:, 1], table.values[:, 0])
    matrix = np.zeros((4, 4))
    matrix[0, 2] = matrix[2, 0] = 1.0
    assert _colorbars(plot.scatter(table, 0, interactions=matrix))[0].get_ylabel() == "x2"
    ax = plot.scatter(table, "colour", color=None)
    assert not _colorbars(ax) and [t.get_text() for t in ax.get_xticklabels()] == ["blue", "green", "red"]
    ax = plot.scatter(table, "x2", color="colour")  # categories: a legend, no colour bar
    assert not _colorbars(ax) and [t.get_text() for t in ax.get_legend().get_texts()] == ["blue", "green", "red"]
    assert not _colorbars(plot.scatter(table[:, "x0"], "x0"))  # one feature: nothing to colour by
    with pytest.raises(KeyError, match="unknown feature"):
        plot.scatter(table, "x9")


def test_plots_on_interactions(results, tmp_path):
    sii = results["sii"]
    ax = _rendered(plot.bar(sii, max_features=5), tmp_path, "bar_sii")
    labels = _labels(ax)
    name, value = sii.top(1, size=2)[0] if abs(sii.top(1, size=2)[0][1]) > abs(sii.top(1, size=1)[0][1]) \
        else sii.top(1, size=1)[0]
    assert labels[-1] == " x ".join(name) and ax.patches[-1].get_width() == pytest.approx(value)
    assert any(" x " in label for label in labels)
    with pytest.raises(TypeError, match="heatmap"):
        plot.waterfall(sii)


def test_text_and_image_from_their_results(tmp_path):
    from interplay.modalities import ImageExplainer, TextExplainer

    words = {"good": 1.0, "bad": -1.0}
    text = TextExplainer(lambda texts: np.array([sum(words.get(w, 0) for w in t.split()) for t in texts]))
    result = text.shapley("a good but bad film")
    ax = _rendered(plot.text(result), tmp_path, "text_result")
    assert [t.get_text() for t in ax.texts] == ["a", "good", "but", "bad", "film"]
    assert [t.get_text() for t in plot.text(text.bivariate("good film")).texts] == ["good", "film"]
    with pytest.raises(ValueError, match="no tokens"):
        plot.text(ip.Attribution([1.0], 0.0, ["a"], 1, "exact"))
    img = np.linspace(0, 1, 64).reshape(8, 8)
    image = ImageExplainer(lambda b: b[:, :4].reshape(len(b), -1).sum(1), segments="patches", patch_size=4)
    res = image.shapley(img)
    ax = _rendered(plot.image(res), tmp_path, "image_result")
    below, tint = ax.images[0], ax.images[1]
    np.testing.assert_allclose(below.get_array(), img)  # the image itself, under the overlay
    alpha = np.asarray(tint.get_array())[..., 3]
    assert alpha[6, 6] == 0.0 and alpha[0, 0] > 0  # regions with no attribution leave the image untinted
    assert len(_colorbars(ax)) == 1
    with pytest.raises(ValueError, match="no image"):
        plot.image(ip.Attribution([1.0], 0.0, ["a"], 1, "exact"))


@pytest.fixture(scope="module")
def every_result(results, table):
    from interplay.modalities import ImageExplainer, TextExplainer

    words = {"good": 1.0, "bad": -1.0}
    text = TextExplainer(lambda texts: np.array([sum(words.get(w, 0) for w in t.split()) for t in texts]))
    image = ImageExplainer(lambda b: b[:, :4].reshape(len(b), -1).sum(1), segments="patches", patch_size=4)
    return {"attribution": table[0], "explanation": table, "one-row explanation": table[:1],
            "importance": table.global_importance(), "interactions": results["sii"],
            "bivariate": results["bivariate"], "text": text.shapley("a good but bad film"),
            "image": image.shapley(np.linspace(0, 1, 64).reshape(8, 8))}


DRAWS = {  # plot -> the result types it draws; on every other type it raises a TypeError or ValueError
    "bar": {"attribution", "explanation", "one-row explanation", "importance", "interactions", "bivariate", "text",
            "image"},
    "waterfall": {"attribution", "one-row explanation", "importance", "bivariate", "text", "image"},
    "beeswarm": {"explanation", "one-row explanation"},
    "scatter": {"explanation", "one-row explanation"},
    "heatmap": {"interactions", "bivariate"},
    "text": {"text"},
    "image": {"image"},
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_every_plot_on_every_result_type(every_result, name, tmp_path):
    draw = getattr(plot, name)
    for kind, result in every_result.items():
        args = (result, "x0") if name == "scatter" else (result,)
        if kind in DRAWS[name]:
            ax = _rendered(draw(*args), tmp_path, f"{name}-{kind}")
            assert ax.has_data() or ax.texts, (name, kind)
        else:
            with pytest.raises((TypeError, ValueError, KeyError)) as caught:
                draw(*args)
            assert "result" in str(caught.value) or "explanation" in str(caught.value) or \
                "feature" in str(caught.value), (name, kind, str(caught.value))
        plt.close("all")
