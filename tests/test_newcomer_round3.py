"""A newcomer's walk through the README on Adult (round 3): each test fails without its fix."""

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")
sio = pytest.importorskip("skops.io")

import interplay as ip  # noqa: E402
from interplay.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression

    tmp = tmp_path_factory.mktemp("cli3")
    data = load_breast_cancer(as_frame=True)
    X = data.data.iloc[:80, :6]
    model = LogisticRegression(max_iter=2000).fit(X, data.target.iloc[:80])
    X.assign(label=data.target.iloc[:80].to_numpy()).to_csv(tmp / "data.csv", index=False)
    sio.dump(model, tmp / "model.skops")
    return tmp


def test_cli_graph_values_are_the_attributions_of_the_same_row(cli_files, tmp_path):
    # the report showed the graph's node values next to the attribution chart's: two estimates of one row's
    # Shapley values that differed (the detail rows drew other samples than the run's rows), where
    # explainer.bivariate(x).univariate equals explainer.shapley(x) with one seed
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [str(a) for a in (
        "explain", cli_files / "model.skops", cli_files / "data.csv", "--rows", "0-2", "--drop", "label",
        "--background", "20", "--budget", "40", "--seed", "5", "--out", out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    values = ip.Explanation.load(out / "shapley.json")
    assert values.method not in ("exact", "tree")  # sampled: the seeds matter
    for k in range(3):
        biv = ip.BivariateExplanation.load(out / f"row-{k}-bivariate.json")
        np.testing.assert_array_equal(biv.univariate.values, values.values[k])


def test_report_summary_orders_features_over_every_row_not_only_the_rows_drawn():
    # 5,000 rows explained by the CLI: the summary drew the first 2,000 and ordered the features by their mean
    # |value| over those only, while the Rows section sent the reader to it for the rows beyond the first 200
    import json
    import re

    from interplay.report import MAX_SUMMARY_ROWS, build_report
    from interplay.results import Explanation

    n = MAX_SUMMARY_ROWS + 500
    values = np.zeros((n, 3))
    values[:, 1] = 0.5
    values[MAX_SUMMARY_ROWS:, 0] = 10.0  # the largest feature over all rows, zero in the rows drawn
    expl = Explanation(values=values, base_values=np.zeros(n), data=np.ones((n, 3)), feature_names=["a", "b", "c"],
                       method="exact", n_evaluations=np.full(n, 8))
    html = build_report([expl])
    data = json.loads(re.search(r'<script type="application/json" id="interplay-data">(.*?)</script>', html,
                                re.S).group(1))
    summary = data["summary"]
    assert len(summary["values"]) == MAX_SUMMARY_ROWS and summary["total_rows"] == n
    np.testing.assert_allclose(summary["importance"], np.abs(values).mean(axis=0))
    assert int(np.argmax(summary["importance"])) == 0


def test_explainer_called_like_shaps_gives_the_shapley_explanation():
    # a shap user's first line, explainer(X), raised "'Explainer' object is not callable"
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    explainer = ip.Explainer(LinearRegression().fit(X, y), X.iloc[:20])
    called = explainer(X.iloc[:3], method="exact")
    expected = explainer.shapley(X.iloc[:3], method="exact")
    np.testing.assert_array_equal(called.values, expected.values)
    np.testing.assert_array_equal(called.base_values, expected.base_values)
    assert list(called.to_pandas().index) == [0, 1, 2]


@pytest.fixture(scope="module")
def adult_like():
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import GradientBoostingRegressor

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    model = GradientBoostingRegressor(n_estimators=20, random_state=0).fit(X, y)
    return ip.Explainer(model, X.iloc[:30]).shapley(X.iloc[:60], method="tree")


def test_plots_take_shaps_max_display(adult_like):
    # shap's keyword, max_display=, raised "unexpected keyword argument" in bar, beeswarm and waterfall
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def labels(ax):
        return [t.get_text() for t in ax.get_yticklabels()]

    for plot, result in ((ip.plot.bar, adult_like), (ip.plot.beeswarm, adult_like),
                         (ip.plot.waterfall, adult_like[0])):
        shap_way = labels(plot(result, max_display=4))
        ours = labels(plot(result, max_features=4))
        plt.close("all")
        assert shap_way == ours and len(ours) == 5  # 4 features and "6 other features"
        assert any("other features" in t for t in ours)


def test_scatter_of_one_selected_feature_as_shap(adult_like):
    # shap's idiom scatter(expl[:, "bmi"]) raised "missing 1 required positional argument: 'feature'"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = ip.plot.scatter(adult_like[:, "bmi"])
    np.testing.assert_allclose(ax.collections[0].get_offsets()[:, 1], adult_like.values[:, 2])
    assert ax.get_xlabel() == "bmi"
    plt.close("all")
    with pytest.raises(TypeError, match="feature: expected the feature to plot"):
        ip.plot.scatter(adult_like)


def test_plots_take_shaps_show(monkeypatch):
    """shap's plots take show= (shap users write show=False to keep drawing on the figure): it raised 'unexpected
    keyword argument'. True shows the figure after drawing, False only draws; a word is refused."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(1))
    game = ip.Game(lambda Z: Z @ np.arange(1.0, 4.0) + Z[:, 0] * Z[:, 1], 3)
    values = ip.shapley(game, method="exact")
    assert ip.plot.bar(values, show=False) is not None and shown == []
    ax = ip.plot.waterfall(values, show=True)
    assert ax.get_figure() is not None and shown == [1]
    ip.plot.heatmap(ip.interactions(game, index="sii", method="exact"), show=True)
    assert shown == [1, 1]
    with pytest.raises(TypeError, match="show: expected True or False"):
        ip.plot.bar(values, show="no")
    plt.close("all")


def test_redundancy_summary_says_which_edges_touch_features_set_aside():
    """H's summary said '8 edges, density 0.400' and then that no feature is redundant given another: every edge
    went into or out of features set aside (no effect), which the count did not say."""
    game = ip.Game(lambda Z: 3 * Z[:, 0] + 2 * Z[:, 1] * Z[:, 2] + 0 * Z[:, 3] + 0.001 * Z[:, 4], 5)
    H = ip.bivariate(game, method="exact").graph().redundancy()
    assert set(H.no_effect) == {"x3", "x4"} and H.n_edges == 8
    first = H.summary().splitlines()[0]
    assert "8 edges, density 0.400" in first and "8 of the edges touch the 2 features set aside" in first
    assert "set aside" not in ip.bivariate(game, method="exact").graph().redundancy(exclude_no_effect=False) \
        .summary().splitlines()[0]  # the paper's reading: nothing set aside, nothing to say


def test_a_run_names_the_columns_it_leaves_out(tmp_path):
    """explainer.shapley(X.assign(label=1)) refuses the extra column, while ip.run (and the CLI) left it out
    without a word: a run over a table with its target column looked like a run over the features alone."""
    import pandas as pd

    X = pd.DataFrame(np.random.default_rng(0).standard_normal((6, 3)), columns=["a", "b", "c"])
    explainer = ip.Explainer(lambda Z: Z @ np.arange(1.0, 4.0), X)
    with pytest.warns(UserWarning, match=r"X: column 'label' is not among the explainer's features, left out"):
        ip.run(explainer, X.assign(label=1), "kernel", out=tmp_path / "r", progress=False)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the feature columns alone: nothing to say
        ip.run(explainer, X, "kernel", out=tmp_path / "s", progress=False)


def test_global_importance_series_is_named_for_what_it_holds():
    """expl.global_importance().to_pandas() was a Series named after the method ('tree', 'kernel')."""
    explainer = ip.Explainer(lambda Z: Z @ np.arange(1.0, 4.0), np.zeros((2, 3)), feature_names=["a", "b", "c"])
    explanation = explainer.shapley(np.ones((3, 3)), method="exact")
    assert explanation.global_importance().to_pandas().name == "mean |value|"
    assert explanation.mean_attribution().to_pandas().name == "mean value"
    assert explanation[0].to_pandas().name == "exact"  # one row: its method, as before
