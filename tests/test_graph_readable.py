"""Issue 14's checks: rankings that follow importance, cohort graphs that keep magnitudes, the layered graph
picture (at most 2n edges, labels that do not collide) and the plain-language summary."""

from dataclasses import replace
import re

import numpy as np
import pytest

import interplay as ip
from interplay.graph import CohortAccumulator, ExplanationGraph, describe, mean_graph, rank
from interplay.graph.ranking import RANKINGS
from interplay.synthetic import sentence_game

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from interplay import plot  # noqa: E402


# ------------------------------------------------------------------------------------------------ rankings
def test_text_demo_carrying_words_rank_first():
    pytest.importorskip("vaderSentiment")
    from interplay.demo import SENTENCES, vader_model
    from interplay.modalities import TextExplainer

    explainer = TextExplainer(vader_model(), classifier=False)
    graph = explainer.bivariate(SENTENCES[0], method="exact").graph()  # "The movie is the worst; surprisingly awful"
    words = dict(zip(graph.feature_names, explainer.game(SENTENCES[0]).tokens))
    order = [words[f] for f in graph.ranking().order()]
    assert set(order[:2]) == {"worst;", "awful"}, order
    # the paper's softplus ranked "worst;" (phi = -0.556) below the words that do nothing: kept as an option
    softplus = [words[f] for f in graph.ranking("softplus").order()]
    assert softplus.index("worst;") > softplus.index("The")


def test_synthetic_sentence_every_ranking_method():
    graph = ip.bivariate(sentence_game()).graph()
    for method in RANKINGS:
        ranking = graph.ranking(method)
        assert ranking.info["method"] == method and len(ranking.scores) == 7
        if method != "softplus":
            assert set(ranking.order()[:2]) == {"worst", "awful"}, method
    assert graph.ranking().info["personalization"] == "|univariate|"
    np.testing.assert_allclose(graph.ranking().scores,
                               graph.pagerank("abs", personalization="univariate").scores)
    np.testing.assert_allclose(rank(graph.weights, graph.univariate, method="shapley").scores,
                               np.abs(graph.univariate))
    # without univariate values: uniform restarts, or a clear error where |phi| is needed
    bare = ExplanationGraph(graph.weights, graph.feature_names)
    np.testing.assert_allclose(bare.ranking().scores, bare.pagerank("abs").scores)
    with pytest.raises(ValueError, match="univariate"):
        bare.ranking("shapley")
    with pytest.raises(ValueError, match="method"):
        graph.ranking("hits")


def test_condensation_ranking_puts_sources_first():
    # a -> b -> c in H (b redundant given a, c given b), d isolated with the largest |phi|
    w = np.ones((4, 4))
    w[0, 1] = w[1, 2] = w[0, 2] = 0.0
    graph = ExplanationGraph(w, list("abcd"), univariate=[0.1, 0.5, 0.9, 2.0])
    assert graph.ranking("condensation", gamma=0.0).order() == ["d", "a", "b", "c"]


def _top_is_consistent(graph, n_top=2):
    phi = np.abs(graph.univariate)
    top = graph.ranking().order()[0]
    by_phi = [graph.feature_names[i] for i in np.argsort(-phi, kind="stable")[:n_top]]
    return top in by_phi or bool(graph.redundancy().made_redundant_by(top)), (top, by_phi)


def test_diabetes_demo_row_top_feature_is_a_top_driver():
    pytest.importorskip("sklearn")
    from interplay.demo import run_demo

    for row in (0, 1):
        graph = run_demo(lambda *a: None, row=row)["bivariate"].graph()
        ok, info = _top_is_consistent(graph)
        assert ok, info


@pytest.fixture(scope="module")
def adult():
    pd = pytest.importorskip("pandas")
    xgboost = pytest.importorskip("xgboost")
    from pathlib import Path

    path = Path("/work/shared/data/adult.csv")
    if not path.exists():
        pytest.skip("Adult data not available")
    df = pd.read_csv(path).sample(6000, random_state=0)
    y = df["class"].astype(str).str.strip().str.startswith(">50K").astype(int).to_numpy()
    X = df.drop(columns=["class"])
    for c in X.columns:
        if not pd.api.types.is_numeric_dtype(X[c]):
            X[c] = X[c].astype("category").cat.codes
    model = xgboost.XGBClassifier(n_estimators=60, max_depth=4, n_jobs=1, random_state=0).fit(X.to_numpy(float), y)
    explainer = ip.Explainer(model, X.iloc[:60])
    return explainer, X


def test_adult_rows_top_feature_is_a_top_driver(adult):
    explainer, X = adult
    for r in range(100, 112):
        graph = explainer.bivariate(X.iloc[[r]], method="tree").graph()
        assert graph.n_features == 14
        ok, info = _top_is_consistent(graph)
        assert ok, (r, info)


# ------------------------------------------------------------------------------------------------ cohorts
def test_cohort_with_opposite_signs_keeps_importance():
    biv = ip.bivariate(sentence_game())
    flipped = replace(biv, adjacency=-biv.adjacency, univariate=replace(biv.univariate, values=-biv.univariate.values))
    cohort = mean_graph([biv, flipped])
    assert cohort.kind == "cohort" and cohort.info["n_rows"] == 2
    np.testing.assert_allclose(cohort.weights, np.abs(biv.adjacency))
    np.testing.assert_allclose(cohort.univariate, np.abs(biv.univariate.values))
    assert set(cohort.ranking().order()[:2]) == {"worst", "awful"}
    assert cohort.redundancy().sinks() == biv.graph().redundancy().sinks()
    signed = mean_graph([biv, flipped], aggregate="signed")  # cancels out: the reason it is not the default
    assert signed.max_abs_weight() == 0.0 and np.all(signed.univariate == 0)


def test_redundancy_share_and_majority_graph():
    a = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    b = np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    c = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    cohort = mean_graph(np.stack([a, b, c]), feature_names=list("xyz"), gamma=0.1)
    share = cohort.redundancy_share
    assert share[0, 1] == pytest.approx(2 / 3) and share[0, 2] == pytest.approx(2 / 3) and share[1, 0] == 0
    assert cohort.redundancy().edges() == [("x", "y"), ("x", "z")]  # in at least half the rows
    assert cohort.redundancy(share=0.9).edges() == []
    assert cohort.redundancy(0.5).edges() == [("x", "y"), ("x", "z")]  # an explicit gamma reads the mean |W|
    with pytest.raises(ValueError, match="share"):
        cohort.redundancy(share=0.0)
    with pytest.raises(ValueError, match="aggregate"):
        mean_graph(np.stack([a, b]), aggregate="median")
    # streaming in any order gives the same graph
    acc = CohortAccumulator(3, gamma=0.1)
    for w in (c, a, b):
        acc.add(w)
    np.testing.assert_allclose(acc.graph(list("xyz")).weights, cohort.weights)
    np.testing.assert_allclose(acc.graph(list("xyz")).std_errors, cohort.std_errors)


def test_run_graph_of_a_data_set_and_a_cohort(tmp_path):
    pytest.importorskip("pyarrow")
    from interplay.runs import run

    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 4))
    names = ["a", "b", "c", "d"]

    def model(Z):
        return Z[:, 0] * Z[:, 1] + np.maximum(Z[:, 2], Z[:, 3])

    explainer = ip.Explainer(model, rng.normal(size=(8, 4)), feature_names=names)
    result = run(explainer, X, out=tmp_path, kind="bivariate", chunk_size=3, n_jobs=1)
    rows = [explainer.bivariate(x) for x in X]
    expected = mean_graph(rows)
    graph = result.graph()
    np.testing.assert_allclose(graph.weights, expected.weights, atol=1e-12)
    np.testing.assert_allclose(graph.univariate, expected.univariate, atol=1e-12)
    np.testing.assert_allclose(graph.redundancy_share, expected.redundancy_share)
    cohort = X[:, 0] > 0
    np.testing.assert_allclose(result.graph(cohort).weights,
                               mean_graph([r for r, k in zip(rows, cohort) if k]).weights, atol=1e-12)


# ------------------------------------------------------------------------------------------------ picture
def _drawn_edges(ax):
    return [p for p in ax.patches if p.get_gid() in ("redundancy-edge", "strong-edge")]


def _overlaps(ax):
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in ax._interplay_labels]
    return [(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1:] if a.overlaps(b)]


def test_adult_row_picture_is_legible(adult, tmp_path):
    explainer, X = adult
    biv = explainer.bivariate(X.iloc[[101]], method="tree")
    ax = plot.graph(biv)
    n = biv.n_features
    edges = _drawn_edges(ax)
    assert 0 < len(edges) <= 2 * n
    assert sum(p.get_gid() == "strong-edge" for p in edges) <= 5
    assert len(ax._interplay_labels) <= n and not _overlaps(ax)
    assert all(p.get_arrowstyle().__class__.__name__ == "CurveFilledB" for p in edges)  # filled arrowheads
    ax.figure.savefig(tmp_path / "adult.png")
    # every redundancy arrow is an edge of H between two classes (the condensation's transitive reduction)
    h = biv.graph().redundancy()
    reduced = {(a, b) for a, b in __import__("interplay.plot._analysis", fromlist=["x"]).analyse(biv).class_edges}
    assert sum(p.get_gid() == "redundancy-edge" for p in edges) == min(len(reduced), 2 * n)
    assert h.n_edges >= len(reduced)


def test_picture_of_a_cohort_and_of_the_text_demo(tmp_path):
    biv = ip.bivariate(sentence_game())
    ax = plot.graph(biv)
    assert not _overlaps(ax)
    texts = " ".join(t.get_text() for t in ax.figure.texts)
    assert "worst" in texts  # the summary paragraph is under the picture
    ax = plot.graph(mean_graph([biv, biv]), summary=False, max_edges=3)
    assert len(_drawn_edges(ax)) <= 3 and not ax.figure.texts
    for layout in ("circular", "spring"):
        plot.graph(biv, layout=layout).figure.savefig(tmp_path / f"{layout}.png")


# ------------------------------------------------------------------------------------------------ summary
def test_plain_language_summary():
    graph = ip.bivariate(sentence_game()).graph()
    text = graph.describe()
    assert text == describe(graph)
    first = text.split(". ")[0]
    assert first.startswith("Main drivers: ") and "worst (+0.6)" in first and "awful (+0.6)" in first
    assert "worst and awful are interchangeable: once one of them is known, the other adds nothing." in text
    assert "Once any of worst or awful is known, surprisingly adds nothing." in text  # one sentence for both
    assert "The, movie, is and the add nothing whichever other feature is known." in text
    assert "gamma = " in text
    # an interchangeable pair and a one-way redundancy
    w = np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0]])
    g = ExplanationGraph(w, ["income", "salary", "age", "zip"], univariate=[2.0, 1.9, 0.5, 1.0])
    text = g.describe(0.0)
    assert "income and salary are interchangeable" in text
    assert "Once any of income or salary is known, age adds nothing." in text  # W(income, age) = 0
    assert "zip" not in text.split(". ", 1)[1]  # zip matters given every feature: no statement about it
    g = ExplanationGraph(w.T.copy(), ["income", "salary", "age", "zip"], univariate=[2.0, 1.9, 0.5, 1.0])
    assert "Once age is known, income and salary add nothing." in g.describe(0.0)
    assert "No feature is redundant given another." in ExplanationGraph(np.ones((3, 3))).describe(0.0)
    cohort = mean_graph([graph, graph])
    assert "surprisingly adds little in at least half the rows" in cohort.describe()
    assert "Main drivers (mean |value|" in cohort.describe()


def test_main_drivers_are_named_largest_value_first():
    from interplay.synthetic import random_game

    for seed in range(5):
        biv = ip.bivariate(random_game(7, random_state=seed), method="exact")
        sentence = re.match(r"Main drivers: .*?\)\.", biv.graph().describe()).group(0)
        numbers = [abs(float(x)) for x in re.findall(r"\(([-+][0-9.e+-]+)\)", sentence)]
        assert numbers and numbers == sorted(numbers, reverse=True), sentence
