"""A newcomer's review of the report (each test failed before its fix): the "All explained rows" beeswarm's colours
were explained only in an SVG <title> tooltip (there red/blue are the feature's value, elsewhere on the page the
sign); the heatmap's "alone" column had "its own colour scale" but no colour bar; and the demo's About block said
"attributions: c-shapley" for rows mostly exact, "target: 0" for a regressor and labelled rows "(output 0)"."""

import json
import re
from dataclasses import replace

import numpy as np
import pytest

import interplay as ip
from interplay.report import build_report, save_report


def page_data(html: str) -> dict:
    block = re.search(r'<script type="application/json" id="interplay-data">(.*?)</script>', html, re.DOTALL).group(1)
    return json.loads(block)


def _model(Z):
    Z = np.asarray(Z, dtype=float)
    return Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2] + Z[:, 3]


@pytest.fixture(scope="module")
def regressor():
    """A one-output model over four columns (the last constant), its Shapley values of 12 rows and row 0's
    interactions."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=(30, 3)), np.ones(30)])
    explainer = ip.Explainer(_model, X[:10], feature_names=["a", "b", "c", "const"])
    return explainer, X, explainer.shapley(X[:12], method="exact")


# ------------------------------------------------------------------ 1: the beeswarm's colours
def test_summary_colours_have_a_visible_legend(regressor, browser, tmp_path):
    _, _, explanation = regressor
    html = build_report([explanation])
    assert "dot colour = the feature's value" in html  # was only in the chart's <title> (hover)
    browser.open(save_report([explanation], tmp_path / "summary.html").as_uri())
    legend = browser.evaluate(
        "(function () { var h = Array.from(document.querySelectorAll('h2')).find(function (x) {"
        " return x.textContent.indexOf('All explained rows') === 0; });"
        " var l = h.parentNode.querySelector('.value-legend');"
        " return l && l.offsetHeight > 0 ? l.textContent : null; })()")
    assert legend is not None
    assert "low" in legend and "high" in legend and "feature's value" in legend
    assert "grey: a constant column" in legend and "missing value" in legend
    assert "do not mean raises / lowers" in legend  # not the sign, as the other charts' red and blue
    assert browser.problems() == []


# ------------------------------------------------------------------ 2: the "alone" column's colour bar
def test_heatmap_draws_a_colour_bar_for_the_alone_column(regressor, browser, tmp_path):
    explainer, X, _ = regressor
    interactions = explainer.interactions(X[:1], index="sii", method="exact")
    matrix = np.asarray(interactions.matrix)
    off = matrix[~np.eye(len(matrix), dtype=bool)]
    assert not np.isclose(np.abs(np.diag(matrix)).max(), np.abs(off).max())  # two scales
    browser.open(save_report([interactions], tmp_path / "heatmap.html").as_uri())
    bars = browser.evaluate(
        "Array.from(document.querySelectorAll('svg[aria-label=\"interaction heatmap\"] g.colour-bar')).map("
        "function (g) { return Array.from(g.querySelectorAll('text')).map(function (t) { return t.textContent; }); })")
    assert [b[1] for b in bars] == ["pairs", "alone"]  # was the pairs' bar only
    assert float(bars[0][0]) == pytest.approx(np.abs(off).max(), rel=1e-3)
    assert float(bars[1][0]) == pytest.approx(np.abs(np.diag(matrix)).max(), rel=1e-3)
    fits = browser.evaluate(  # the second bar's labels stay inside the picture
        "(function () { var s = document.querySelector('svg[aria-label=\"interaction heatmap\"]');"
        " var r = s.getBoundingClientRect(); return Array.from(s.querySelectorAll('g.colour-bar text')).every("
        "function (t) { return t.getBoundingClientRect().right <= r.right + 0.5; }); })()")
    assert fits
    assert browser.problems() == []


# ------------------------------------------------------------------ 3: the About block and the rows' labels
def test_about_says_a_one_output_models_target_and_labels_no_output_0(regressor):
    explainer, X, explanation = regressor
    assert explanation.info["target"] == 0 and explanation.info["output"] == "prediction"  # the case
    about = dict(page_data(build_report([explanation]))["meta"])
    assert about["target"] == "the model's output (one output)"  # was "0"
    # beside a classifier's class 2, the regressor's rows were labelled "(output 0)"
    attribution = explainer.shapley(X[:1], method="exact")  # an Explanation of one row
    attribution = replace(attribution, info={**attribution.info, "rows": ["regressor"]})
    game = ip.Game(lambda Z: 1.0 / (1.0 + np.exp(-_model(Z))), 4, ["a", "b", "c", "const"])
    other = ip.shapley(game, method="exact")
    other = replace(other, info={"row": "classifier", "output": "probability", "target": 2})
    data = page_data(build_report([attribution, other]))
    assert [r["label"] for r in data["rows"]] == ["regressor", "classifier"]
    assert dict(data["meta"])["target"] == "varies by row: the model's output (one output); 2"


def test_several_outputs_of_one_model_keep_their_output_labels():
    names = ["a", "b", "c", "const"]
    results = []
    for k in (0, 1):
        game = ip.Game(lambda Z, k=k: _model(Z) * (k + 1), 4, names)
        result = ip.shapley(game, method="exact")
        results.append(replace(result, info={"row": 0, "output": "prediction", "target": k}))
    data = page_data(build_report(results))
    assert [r["label"] for r in data["rows"]] == ["row 0 (output 0)", "row 0 (output 1)"]  # output 0 of two
    assert "one output" not in dict(data["meta"])["target"]


def test_about_lists_each_rows_attribution_method():
    names = ["a", "b", "c", "const"]
    game = ip.Game(_model, 4, names)
    exact = ip.bivariate(game, method="exact")
    rows = [replace(exact, info={"row": f"exact {k}", "method": "exact"}) for k in range(3)]
    local = ip.shapley(game, method="c-shapley", graph="sequence", k=1)
    assert local.method == "c-shapley"
    local = replace(local, info={**local.info, "row": "local", "method": "c-shapley"})
    about = dict(page_data(build_report([*rows, local]))["meta"])
    # was "bivariate: exact; attributions: c-shapley", as if every chart were C-Shapley's
    assert about["method"] == "bivariate: exact; attributions: mixed: exact for 3 rows, c-shapley for 1 row (local)"
    about = dict(page_data(build_report(rows))["meta"])
    assert about["method"] == "exact"  # one method: as before


def test_demo_report_about_block():
    pytest.importorskip("sklearn")
    pytest.importorskip("vaderSentiment")
    from interplay.demo import TOUR_STEPS

    def quiet(*_):
        pass

    results = [*TOUR_STEPS["tabular"](quiet)["report"], *TOUR_STEPS["text"](quiet)["report"]]
    data = page_data(build_report(results))
    about = dict(data["meta"])
    assert "mixed: exact for 3 rows, c-shapley for 2 rows" in about["method"]
    assert about["target"] == "the model's output (one output)"
    assert not any("(output 0)" in r["label"] for r in data["rows"])
