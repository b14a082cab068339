"""Regression tests for the QA pass on the HTML report (/tmp/qa/runs.md, defects 1, 2, 8 and 10): each failed
before its fix."""

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest

import interplay as ip
from interplay.report import build_report, save_report
from interplay.synthetic import UnanimitySum


def page_data(html: str) -> dict:
    """The report's JSON payload (what the page draws)."""
    block = re.search(r'<script type="application/json" id="interplay-data">(.*?)</script>', html, re.S).group(1)
    return json.loads(block)


@pytest.fixture(scope="module")
def iris_per_class():
    pytest.importorskip("sklearn")
    pd = pytest.importorskip("pandas")
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True, as_frame=True)
    names = pd.Series(np.array(["setosa", "versicolor", "virginica"])[y])
    model = LogisticRegression(max_iter=500).fit(X, names)
    explainer = ip.Explainer(model, X.iloc[::15])  # a multi-class model's default: every class
    rows = X.iloc[[0, 60, 120]]
    return explainer, rows, explainer.shapley(rows, method="exact")  # {class: Explanation}


# ------------------------------------------------------------------ 2: per-class files of one explanation
def test_report_keeps_every_row_and_class_of_per_class_results(iris_per_class, tmp_path):
    explainer, rows, per_class = iris_per_class
    files = [ip.save(e, tmp_path / f"{c}.json") for c, e in per_class.items()]  # as `interplay report` gets them
    data = page_data(build_report(files))
    shown = {(r["label"], r["target"]): r for r in data["rows"]}
    assert len(data["rows"]) == 9  # was 3: every row of the first class only
    for cls, expl in per_class.items():
        for k, row in enumerate(rows.index):
            entry = shown[(f"row {row} (class {cls})", cls)]
            np.testing.assert_allclose(entry["attribution"], expl.values[k], atol=1e-12)
            assert entry["prediction"] == pytest.approx(expl.base_values[k] + expl.values[k].sum(), abs=1e-12)
            assert entry["explained_output"] == f"probability of class {cls!r}"  # the prediction tile names it
    about = dict(data["meta"])
    assert "varies by row" not in about["target"]  # was "varies by row: setosa; versicolor; virginica"
    assert about["target"].startswith("one entry per row and class") and "versicolor" in about["target"]
    assert data["summary"]["target"] == "setosa" and data["summary"]["labels"] == ["row 0", "row 60", "row 120"]


def test_per_class_detail_results_join_their_class_entry(iris_per_class):
    explainer, rows, per_class = iris_per_class
    graphs = explainer.bivariate(rows.iloc[[1]], method="exact")  # {class: BivariateExplanation}, info row 60
    data = page_data(build_report([*per_class.values(), graphs["virginica"]]))
    assert len(data["rows"]) == 9
    with_graph = [r for r in data["rows"] if "graph" in r]
    assert [(r["label"], r["target"]) for r in with_graph] == [("row 60 (class virginica)", "virginica")]


def test_predicted_targets_are_labelled_per_row(iris_per_class):
    explainer, rows, per_class = iris_per_class
    # the info Explainer(model, target="predicted").shapley(rows) gives these rows (each its own class)
    expl = replace(per_class["setosa"], info={**per_class["setosa"].info, "target": "predicted",
                                             "targets": ["setosa", "versicolor", "virginica"]})
    data = page_data(build_report([expl]))
    assert [r["label"] for r in data["rows"]] == ["row 0 (class setosa)", "row 60 (class versicolor)",
                                                  "row 120 (class virginica)"]
    about = dict(data["meta"])["target"]
    assert about == "predicted: each row's predicted class (setosa; versicolor; virginica)"


# ------------------------------------------------------------------ 10: the About table's "index" line
def test_about_has_no_list_of_row_labels(iris_per_class):
    _, _, per_class = iris_per_class
    expl = per_class["setosa"]
    assert expl.info["index"] == [0, 60, 120]
    many = ip.Explanation(np.zeros((500, 2)), np.zeros(500), np.zeros((500, 2)), ["a", "b"], "exact",
                          np.zeros(500), info={"index": [f"customer-{k}" for k in range(500)]})
    about = dict(page_data(build_report([expl, many]))["meta"])
    assert "index" not in about  # was "[0, 60, 120]" / the 500 labels
    game = UnanimitySum.random(4, n_terms=3, random_state=0).game()
    inter = replace(ip.interactions(game, index="sii"), info={"index": "sii", "row": 0})
    assert dict(page_data(build_report([many, inter]))["meta"])["index"] == "sii"  # the interaction index stays


# ------------------------------------------------------------------ 1: pairs without an estimate
def _unestimated_interactions():
    game = UnanimitySum.random(6, n_terms=5, random_state=2).game()
    with pytest.warns(RuntimeWarning, match="too few samples"):
        inter = ip.interactions(game, index="sii", method="permutation", budget=40, random_state=0)
    gaps = sorted(k for k, e in inter.std_errors.items() if len(k) == 2 and math.isinf(e))
    assert gaps and any(inter[k] == 0 for k in gaps)  # reported as 0: read as "no interaction" before
    return replace(inter, info={"row": 0}), gaps


def test_unestimated_pairs_are_marked_in_the_payload():
    inter, gaps = _unestimated_interactions()
    payload = page_data(build_report([inter]))["rows"][0]["interactions"]
    assert sorted(tuple(p) for p in payload["unestimated"]) == gaps  # was: a plain 0 in "matrix", nothing else


def test_unestimated_pairs_show_as_na_in_chromium(browser, tmp_path):
    inter, gaps = _unestimated_interactions()
    path = save_report([inter], tmp_path / "gaps.html")
    browser.open(path.as_uri())
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    assert browser.evaluate("document.querySelectorAll('rect.pair.unestimated').length") == 2 * len(gaps)
    note = browser.evaluate("document.querySelector('.unestimated-note').textContent")
    assert note.startswith(f"{len(gaps)} of 15 pairs had too few samples") and "not zero" in note
    box = browser.evaluate("(function () { var b = document.querySelector('rect.pair.unestimated')"
                           ".getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    tip = browser.evaluate("document.getElementById('tooltip').textContent")
    assert "n/a" in tip and "not estimated" in tip and "+0" not in tip
    assert browser.problems() == []


# ------------------------------------------------------------------ 8: no feature left out silently
def test_every_feature_is_shown_or_counted_in_chromium(browser, tmp_path):
    rng = np.random.default_rng(0)
    wide = [f"feature_{k:02d}" for k in range(24)]
    scale = np.linspace(2.0, 0.1, 24)
    expl = ip.Explanation(rng.normal(size=(12, 24)) * scale, np.zeros(12), rng.normal(size=(12, 24)), wide,
                          "exact", np.zeros(12), info={"rows": list(range(12))})
    d = 17
    names = [f"f{k}" for k in range(d)]
    phi = ip.Attribution(rng.normal(size=d), 0.0, names, 0, "exact")
    graph = ip.BivariateExplanation(rng.normal(size=(d, d)) * 0.1, phi, names, 0, "exact", info={"row": 0})
    path = save_report([graph], tmp_path / "ranking.html")
    browser.open(path.as_uri())
    ranked = browser.evaluate(
        "(function () { var h = Array.from(document.querySelectorAll('h3')).find(function (x) {"
        " return x.textContent.indexOf('Ranking') === 0; });"
        " return h.nextSibling.querySelectorAll('tr').length - 1; })()")
    assert ranked == d  # was 15
    path = save_report([expl], tmp_path / "wide.html")
    browser.open(path.as_uri())
    count = "document.querySelectorAll('svg[aria-label=\"summary over rows\"] > text:not(.tick)').length - 1"
    assert browser.evaluate(count) == 20
    notes = browser.evaluate("Array.from(document.querySelectorAll('p.more')).map(function (p) {"
                             " return p.textContent; })")
    assert any(n.startswith("4 more features with smaller mean |attribution| not shown: ") for n in notes), notes
    assert any(n.startswith("4 more features with smaller |attribution| not shown") for n in notes), notes
    browser.evaluate("Array.from(document.querySelectorAll('p.more button')).forEach(function (b) { b.click(); })")
    assert browser.evaluate(count) == 24
    bars = "document.querySelectorAll('svg[aria-label=\"attribution chart\"] rect').length"
    assert browser.evaluate(bars) == 24
    assert browser.problems() == []


def test_report_graph_sets_aside_features_with_no_or_little_effect(browser, tmp_path):
    """The page's graph marks features set aside (no effect; too small on their own to call redundant) as
    G.redundancy() does: their own tables and faded nodes, not the plain "No redundancy edges" list."""
    names = ["big", "mid", "tiny", "none"]
    game = ip.Game(lambda Z: 10.0 * Z[:, 0] + 4.0 * Z[:, 1] * Z[:, 0] + 0.5 * Z[:, 2] + 0.0 * Z[:, 3], 4, names)
    result = ip.bivariate(game, method="exact")
    H = result.graph().redundancy()
    assert H.no_effect == ("none",) and H.little_effect == ("tiny",)  # the case under test
    path = save_report([result], tmp_path / "aside.html")
    browser.open(path.as_uri())
    tables = browser.evaluate(
        "(function () { var out = {}; Array.from(document.querySelectorAll('h3')).forEach(function (h) {"
        " var t = h.nextSibling; if (t && t.querySelectorAll) { out[h.textContent] = t.textContent; } });"
        " return out; })()")
    assert "none" in tables["No notable effect on this prediction"] and "tiny" in tables["Little effect on their own"]
    assert "none" not in tables["No redundancy edges"] and "tiny" not in tables["No redundancy edges"]
    roles = browser.evaluate("Array.from(document.querySelectorAll('g.node')).map(function (g) {"
                             " return g.getAttribute('data-role'); })")
    assert "aside" in roles[3] and "aside" in roles[2] and "aside" not in roles[0]


def test_report_images_are_visible_whatever_their_range():
    """Gray digits in 0..16 and a standardised colour image reach the page stretched to 0..255, as ip.plot.image
    draws them (they came out near black); [0, 1] and 0..255 colour images keep their colours."""
    import base64

    from interplay.report import _image_payload

    segments = np.zeros((4, 4), dtype=int)

    def shown(img):
        return np.frombuffer(base64.b64decode(_image_payload(img, segments, 1)["rgb"]), np.uint8)

    digits = np.arange(16.0).reshape(4, 4)
    standardised = np.random.default_rng(0).normal(size=(4, 4, 3))
    assert shown(digits).max() == 255 and shown(standardised).min() == 0 and shown(standardised).max() == 255
    assert set(shown(np.full((4, 4, 3), 0.5)).tolist()) == {128}
    assert set(shown(np.full((4, 4, 3), 200.0)).tolist()) == {200}


def test_report_summary_says_what_its_values_are_in():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    model = LogisticRegression().fit(X, (X[:, 0] > 0).astype(int))
    expl = ip.Explainer(model, X[:10], output="log-odds").shapley(X[:4], method="exact")
    summary = page_data(build_report([expl]))["summary"]
    assert summary["unit"] == "log-odds of class 1"


# ------------------------------------------------------------------ the graph's edges keep off other nodes
EDGE_CROSSINGS_JS = """(function () {
  var svg = document.getElementById('graph'), boxes = [];
  Array.from(svg.querySelectorAll('g.node')).forEach(function (g) {
    if (g.style.display === 'none') { return; }
    Array.from(g.children).forEach(function (c) {
      var b = c.getBBox(); if (b.width > 0) { boxes.push({f: Number(g.getAttribute('data-index')), b: b}); } });
  });
  return Array.from(svg.querySelectorAll('path.edge')).map(function (p) {
    var ends = [Number(p.getAttribute('data-from')), Number(p.getAttribute('data-to'))], L = p.getTotalLength();
    var hits = 0;
    for (var s = 0.05; s < 0.95; s += 0.01) {
      var pt = p.getPointAtLength(s * L);
      hits += boxes.some(function (o) { var b = o.b; return ends.indexOf(o.f) < 0 && pt.x > b.x &&
        pt.x < b.x + b.width && pt.y > b.y && pt.y < b.y + b.height; }) ? 1 : 0;
    }
    return [ends[0], ends[1], hits, p.getAttribute('d')];
  });
})()"""


def _middle(d: str) -> np.ndarray:
    """The point halfway along an edge's path, a quadratic ("M p Q c q") or a cubic ("M p C c1 c2 q") curve."""
    p = np.array(re.findall(r"([-\d.]+),([-\d.]+)", d), dtype=float)
    if " Q" in d:
        return 0.25 * p[0] + 0.5 * p[1] + 0.25 * p[2]
    return 0.125 * p[0] + 0.375 * p[1] + 0.375 * p[2] + 0.125 * p[3]


def test_report_graph_edges_do_not_run_through_other_nodes_or_labels(browser, tmp_path):
    """Arcs between the ends of one row of the graph passed under the names of the features between them, and
    through their dots (46 sampled points on this graph, 185 on six Adult rows, before each edge chose its
    bend by what it crosses)."""
    names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"]
    phi = np.array([0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2])
    W = np.tile(phi, (7, 1))  # no redundancy: one row of nodes, and the strongest other edges drawn as arcs
    W[6, 0], W[0, 6], W[5, 1] = 1.5, 1.2, 1.1
    graph = ip.BivariateExplanation(W, ip.Attribution(phi, 0.0, names, 0, "exact"), names, 0, "exact",
                                    info={"row": 0})
    browser.open(save_report([graph], tmp_path / "arcs.html").as_uri())
    edges = browser.evaluate(EDGE_CROSSINGS_JS)
    assert {(a, b) for a, b, _, _ in edges} >= {(6, 0), (0, 6), (5, 1)}
    assert [(names[a], names[b], hits) for a, b, hits, _ in edges if hits] == []
    middle = {(a, b): _middle(d) for a, b, _, d in edges}
    assert np.hypot(*(middle[(6, 0)] - middle[(0, 6)])) > 20  # the two directions of a pair keep apart
    assert browser.problems() == []


def test_report_default_graph_state_is_the_analysis_at_the_default_gamma():
    """The page's default state was the one at the largest |W| below the default gamma, where the set-aside rules
    (|phi| <= 2 gamma) can differ: it showed x2 as a sink where G.redundancy() and the paragraph set it aside."""
    from interplay.plot import _analysis

    rng = np.random.default_rng(0)
    n = 5
    masks = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)
    for _ in range(12):
        coef = rng.normal(size=2**n) * (rng.random(2**n) < 0.3)
        inside = (masks[:, None, :] <= masks[None, :, :]).all(axis=2)  # [T, S]: T is a subset of S
        table = coef @ inside
        game = ip.Game(lambda S: table[S.astype(int) @ (1 << np.arange(n))], n)
        result = ip.bivariate(game, method="exact")
        H = result.graph().redundancy()
        sweep = _analysis.thresholds(result)
        state, names = sweep["states"][sweep["default"]], list(result.feature_names)
        assert sweep["gammas"][sweep["default"]] == pytest.approx(H.gamma, rel=1e-12)
        for key, expected in (("sinks", H.sinks()), ("sources", H.sources()),
                              ("little_effect", H.little_effect or ()), ("no_effect", H.no_effect or ())):
            assert sorted(names[i] for i in state[key]) == sorted(expected), key


def test_baseline_removal_names_its_base_value_and_records_the_reference():
    """Under removal="baseline" the base value is f(reference), not the average output the page called it, and
    a saved result did not say which reference it used."""
    rng = np.random.default_rng(0)
    background = rng.normal(size=(30, 3))
    explainer = ip.Explainer(lambda X: X @ [1.0, 2.0, -1.0] + X[:, 0] * X[:, 1], background, removal="baseline")
    result = explainer.shapley(background[:2], method="exact")
    np.testing.assert_allclose(result.info["reference"], background.mean(axis=0), atol=1e-15)
    single = explainer.bivariate(background[:1], method="exact")
    assert single.info["reference"] == result.info["reference"] and single.info["removal"] == "baseline"
    assert page_data(build_report([single]))["rows"][0]["baseline_label"] == "output at the reference row"
    shown = page_data(build_report([result]))["rows"]
    assert shown[0]["baseline_label"] == "output at the reference row"
    marginal = ip.Explainer(explainer.model, background).shapley(background[:1], method="exact")
    assert page_data(build_report([marginal]))["rows"][0]["baseline_label"] == "average output over the background"
    assert "reference" not in marginal.info
