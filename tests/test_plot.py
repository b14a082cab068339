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


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


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
