"""The report reads as the matplotlib pictures do (found on Adult): the graph's layers with no arrow into them
read left to right from the largest |value| (what the node size shows), as plot.graph's layers do since 6a577ce;
the report still ordered them by PageRank (a -0.2 dot stood before a +0.26 one)."""

import json
import re

import numpy as np
import pytest

from interplay.plot import _analysis
from interplay.report import build_report, expand_graph
from interplay.results import Attribution, BivariateExplanation


def page_data(html: str) -> dict:
    block = re.search(r'<script type="application/json" id="interplay-data">(.*?)</script>', html, re.S).group(1)
    return json.loads(block)


def _pagerank_disagrees() -> BivariateExplanation:
    """Six features, no redundancy edge (every weight large), f5 the smallest value but every edge into it strong,
    so that PageRank ranks it first (as test_plot_reading's picture case)."""
    w = np.full((6, 6), 0.8)
    w[:, 5] = 3.0
    phi = np.array([1.0, -0.9, 0.8, -0.7, 0.65, 0.6])
    names = [f"f{i}" for i in range(6)]
    univariate = Attribution(phi, 0.0, names, 64, "exact")
    return BivariateExplanation(w, univariate, names, 64, "exact")


def test_report_graph_layer_reads_left_to_right_from_the_largest_value():
    result = _pagerank_disagrees()
    graph = result.graph()
    assert int(np.argmax(graph.ranking().scores)) == 5  # the case: PageRank and |value| disagree
    data = page_data(build_report([result]))
    G = expand_graph(data["rows"][0]["graph"])
    state = G["states"][G["default"]]
    assert len(set(state["depth"])) == 1  # one row: every feature side by side
    order = sorted(range(6), key=lambda i: state["x"][i])
    assert order == [0, 1, 2, 3, 4, 5]  # largest |value| first, the order of plot.graph's layer
    js = __import__("importlib.resources", fromlist=["files"]).files("interplay.report").joinpath("report.js")
    assert "left to right from the largest" in js.read_text(encoding="utf-8")  # the caption says so


def test_report_graph_places_a_group_by_its_largest_member():
    """x0 and x1 interchangeable (each redundant given the other), |phi| 0.9 and 0.1; x2 (0.5) makes x3 redundant:
    in the top layer the group stands first (its largest member, 0.9 > 0.5), though PageRank puts x2 first."""
    names = ["x0", "x1", "x2", "x3"]
    w = np.full((4, 4), 0.3)
    w[0, 1] = w[1, 0] = w[2, 3] = 0.001
    w[:, 2] = 3.0  # every edge into x2 strong: PageRank ranks it above the group
    univariate = Attribution(np.array([0.9, 0.1, 0.5, 0.3]), 0.0, names, 16, "exact")
    result = BivariateExplanation(w, univariate, names, 16, "exact")
    assert int(np.argmax(result.graph().ranking().scores)) == 2
    s = _analysis.analyse(result.graph(), 0.01)
    assert s.groups == [[0, 1]] and s.depth[0] == s.depth[2] < s.depth[3]  # the group and x2: the top layer
    assert s.x[0] == s.x[1] < s.x[2]


def test_rows_past_the_detail_limit_are_counted_under_rows(browser, tmp_path):
    """A run of 500 rows (Adult, ip.run): the row selector ended at the 200th with no word; now the Rows section
    says how many rows have a view of their own and where the others are."""
    import interplay as ip
    from interplay.report import MAX_DETAIL_ROWS, save_report

    rng = np.random.default_rng(0)
    many = ip.Explanation(rng.normal(size=(500, 3)), np.zeros(500), rng.normal(size=(500, 3)), ["a", "b", "c"],
                          "exact", np.zeros(500))
    path = save_report([many], tmp_path / "many.html")
    assert page_data(path.read_text(encoding="utf-8"))["detail"] == {"shown": MAX_DETAIL_ROWS, "of": 500}
    browser.open(path.as_uri())
    assert browser.evaluate("document.querySelectorAll('#row-select option').length") == MAX_DETAIL_ROWS
    hint = browser.evaluate("document.getElementById('row-select').parentNode.querySelector('p.hint').textContent")
    assert f"first {MAX_DETAIL_ROWS} of the 500 rows" in hint and "other 300" in hint
    assert browser.problems() == []
    few = save_report([ip.Explanation(many.values[:20], np.zeros(20), many.data[:20], ["a", "b", "c"],
                                          "exact", np.zeros(20))],
                      tmp_path / "few.html")
    assert "detail" not in page_data(few.read_text(encoding="utf-8"))


def test_about_names_each_results_method_from_the_python_api():
    """Results of the Python API keep their method in ``result.method``, not in ``info``: the About table of
    Adult's report (Shapley values, SII and the graph by 'tree') had no method line, and with a run's Explanation
    (info["method"]) only "shapley: tree", as if the graph had none."""
    import interplay as ip

    names = ["a", "b", "c"]
    game = ip.Game(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3, names)
    shapley = ip.shapley(game, method="exact")
    interactions = ip.interactions(game, index="sii", method="exact")
    bivariate = ip.bivariate(game, method="permutation", budget=200, random_state=0)
    assert "method" not in shapley.info and "method" not in bivariate.info  # the case
    about = dict(page_data(build_report([shapley, interactions, bivariate]))["meta"])
    assert about["method"] == "attributions: exact; interactions (sii): exact; bivariate: permutation"
    about = dict(page_data(build_report([shapley, interactions]))["meta"])
    assert about["method"] == "exact"


def test_graph_node_values_that_differ_from_the_chart_say_why(browser, tmp_path):
    """The CLI's Adult report (--method permutation): the attribution chart showed relationship -0.06411 (the
    run's Shapley values), the graph's node and summary -0.0594 (the bivariate estimate's own), with no word on
    why one row had two values; now a note names both methods. Equal values (exact, tree): no note."""
    import interplay as ip
    from interplay.report import save_report

    names = ["a", "b", "c", "d"]
    game = ip.Game(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2] - 0.5 * Z[:, 3], 4, names)
    bivariate = ip.bivariate(game, method="permutation", budget=60, random_state=0)
    exact = ip.shapley(game, method="exact")
    assert not np.allclose(bivariate.univariate.values, exact.values)  # the case: two estimates
    note = "document.querySelector('p.graph-values') && document.querySelector('p.graph-values').textContent"
    browser.open(save_report([exact, bivariate], tmp_path / "two.html").as_uri())
    text = browser.evaluate(note)
    assert text and "\u201cpermutation\u201d" in text and "\u201cexact\u201d" in text
    browser.open(save_report([ip.bivariate(game, method="exact")], tmp_path / "one.html").as_uri())
    assert browser.evaluate(note) is None
    assert browser.problems() == []


def test_about_writes_a_kinds_unset_value_as_default_not_none():
    """A run's Explanation (budget None: the method's own) beside a graph that records no budget: the About line
    read "budget: shapley: None"."""
    import interplay as ip

    names = ["a", "b", "c"]
    rng = np.random.default_rng(0)
    run = ip.Explanation(rng.normal(size=(4, 3)), np.zeros(4), rng.normal(size=(4, 3)), names, "exact", np.zeros(4),
                         info={"kind": "shapley", "budget": None, "method": "exact"})
    game = ip.Game(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3, names)
    graph = ip.bivariate(game, method="exact")
    graph = ip.BivariateExplanation(graph.adjacency, graph.univariate, names, 8, "exact", info={"row": 1})
    about = dict(page_data(build_report([run, graph]))["meta"])
    assert about["budget"] == "shapley: (default)"


def test_report_graph_puts_set_aside_features_in_rows_of_their_own():
    """As the picture's bands: the features with no redundancy edge, then those with little effect on their own,
    then those with no effect, each in rows of their own (on Adult sex, -0.2028, shared a row with four faded
    set-aside features, and a fifth sat alone below)."""
    names = ["big", "mid", "tiny", "none"]
    import interplay as ip

    game = ip.Game(lambda Z: 10.0 * Z[:, 0] + 4.0 * Z[:, 1] + 0.5 * Z[:, 2] + 0.0 * Z[:, 3], 4, names)
    result = ip.bivariate(game, method="exact")
    H = result.graph().redundancy()
    assert H.no_effect == ("none",) and H.little_effect == ("tiny",) and set(H.isolated()) >= {"big", "mid"}
    s = _analysis.analyse(result.graph())
    assert s.depth[0] == s.depth[1] < s.depth[2] < s.depth[3]
    assert s.x[0] < s.x[1]  # largest first
    sweep = _analysis.thresholds(result.graph())
    assert sweep["states"][sweep["default"]]["depth"] == s.depth.tolist()


def test_graph_paragraph_says_its_gamma_when_the_slider_moves(browser, tmp_path):
    """The paragraph (graph.describe() at the default gamma) stayed as it was when the slider moved: on Adult at
    gamma 0.118 it said "None of the others is redundant given another" beside the arrow occupation -> age."""
    import interplay as ip
    from interplay.report import save_report

    game = ip.Game(lambda Z: 3.0 * Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2] + 0.7 * Z[:, 3], 4, ["a", "b", "c", "d"])
    result = ip.bivariate(game, method="exact")
    browser.open(save_report([result], tmp_path / "g.html").as_uri())
    hidden = "document.getElementById('graph-summary-note').hidden"
    assert browser.evaluate(hidden) is True  # at the default: the paragraph is the picture's reading
    browser.evaluate("var s = document.getElementById('gamma'); s.value = s.max; s.dispatchEvent(new Event('input'));")
    assert browser.evaluate(hidden) is False
    text = browser.evaluate("document.getElementById('graph-summary-note').textContent")
    assert "default \u03b3" in text
    default = page_data(build_report([result]))["rows"][0]["graph"]["gamma"]
    assert f"{default:.4g}" in text
    assert browser.problems() == []


def test_row_selector_marks_the_rows_with_interactions_and_a_graph(browser, tmp_path):
    """The CLI's Adult report (50 rows, --detail-rows 3): the selector listed "row 0" ... "row 49" alike, and only
    choosing one told whether it had the heatmap and the graph; now those rows say so."""
    import interplay as ip
    from interplay.report import save_report

    names = ["a", "b", "c"]
    rng = np.random.default_rng(0)
    rows = ip.Explanation(rng.normal(size=(4, 3)), np.zeros(4), rng.normal(size=(4, 3)), names, "exact",
                          np.zeros(4))
    game = ip.Game(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3, names)
    b = ip.bivariate(game, method="exact")
    i = ip.interactions(game, index="sii", method="exact")
    detail = [ip.BivariateExplanation(b.adjacency, b.univariate, names, 8, "exact", info={"row": 1}),
              ip.Interactions(i.values, i.index, 2, i.baseline, names, 8, "exact", info={"row": 1})]
    browser.open(save_report([rows, *detail], tmp_path / "rows.html").as_uri())
    options = browser.evaluate("Array.from(document.querySelectorAll('#row-select option')).map(function (o) {"
                               " return o.textContent; })")
    assert options == ["row 0", "row 1 + interactions, graph", "row 2", "row 3"]
    assert browser.problems() == []


def test_heatmap_caption_says_where_the_single_feature_values_are(browser, tmp_path):
    """The caption said "single-feature values on it [the diagonal]", but the diagonal is drawn blank and those
    values are in the "alone" column on the right, on a scale of their own."""
    import interplay as ip
    from interplay.report import save_report

    game = ip.Game(lambda Z: Z[:, 0] + 2.0 * Z[:, 1] * Z[:, 2], 3, ["a", "b", "c"])
    browser.open(save_report([ip.interactions(game, index="sii", method="exact")], tmp_path / "h.html").as_uri())
    caption = browser.evaluate("Array.from(document.querySelectorAll('h2')).filter(function (h) {"
                               " return h.textContent.indexOf('Interactions') === 0; })[0].nextSibling.textContent")
    assert "single-feature values on it" not in caption and "\u201calone\u201d" in caption
    diagonal = browser.evaluate("Array.from(document.querySelectorAll('rect.diag')).map(function (r) {"
                                " return r.getAttribute('fill'); })")
    assert set(diagonal) == {"#ffffff"}  # blank, as the caption says
    assert browser.problems() == []


def test_report_graph_draws_no_effect_features_grey_as_the_picture(browser, tmp_path):
    """plot.graph draws a feature with no notable effect grey (legend: "grey: no notable effect on this
    prediction"); the report kept its red or blue (faded, as the little-effect ones), and only at the default."""
    import interplay as ip
    from interplay.report import save_report

    names = ["big", "mid", "tiny", "none"]
    game = ip.Game(lambda Z: 10.0 * Z[:, 0] + 4.0 * Z[:, 1] * Z[:, 0] + 0.5 * Z[:, 2] + 0.01 * Z[:, 3], 4, names)
    result = ip.bivariate(game, method="exact")
    assert result.graph().redundancy().no_effect == ("none",) and result.univariate.values[3] > 0  # not 0: red
    browser.open(save_report([result], tmp_path / "grey.html").as_uri())
    fills = browser.evaluate("Array.from(document.querySelectorAll('#graph g.node circle')).map(function (c) {"
                             " return c.getAttribute('fill'); })")
    assert fills[3] == "#b7bec6" and fills[2] != "#b7bec6" and fills[0] != "#b7bec6"
    legend = browser.evaluate("document.querySelector('.legend').textContent")
    assert "grey: no notable effect on this prediction" in legend
    assert browser.problems() == []


def _thirty_features() -> BivariateExplanation:
    """A Bivariate Shapley graph of 30 features of a boosted model (hundreds of distinct thresholds)."""
    import pandas as pd
    from sklearn.datasets import make_classification
    from sklearn.ensemble import HistGradientBoostingClassifier

    import interplay as ip

    X, y = make_classification(300, 30, n_informative=10, random_state=0)
    frame = pd.DataFrame(X, columns=[f"feature_{i}" for i in range(30)])
    model = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(frame, y)
    return ip.Explainer(model, frame.iloc[:40]).bivariate(frame.iloc[50], method="tree")


def test_report_graph_stores_each_distinct_threshold_state_once():
    """Every threshold's state (what the gamma slider draws) is on the page, each distinct picture stored once: a
    30-feature row's graph was ~260 kB of states (6 MB for the CLI's 20 detail rows), now about a third."""
    result = _thirty_features()
    sweep = _analysis.thresholds(result)
    assert len(sweep["states"]) > 200  # the case: many thresholds, far fewer distinct pictures
    html = build_report([result])
    G = page_data(html)["rows"][0]["graph"]
    assert len(G["state_at"]) == len(G["densities"]) == len(G["gammas"]) == len(sweep["states"])
    assert len(G["distinct_states"]) < len(sweep["states"]) / 2
    drawn = expand_graph(G)["states"]
    for k, state in enumerate(sweep["states"]):  # each threshold's state, as the page puts it back together
        assert drawn[k] == state
    states_bytes = len(json.dumps(sweep["states"], separators=(",", ":")))
    assert len(json.dumps(G["distinct_states"], separators=(",", ":"))) < states_bytes / 2


def test_report_graph_edges_keep_off_every_label(browser, tmp_path):
    """The report's arrows ran through the names written under their own ends (on Adult, four arcs into 'age' ran
    through 'age -1.046'): the router counted a label as part of its node's dot, which an edge may touch. Here the
    redundancy arrow from a long-named feature to 'second', drawn right below it, ran through that long name."""
    from interplay.report import save_report

    names = ["a-rather-long-name-x", "second", "third", "fourth"]
    w = np.array([[0.0, 0.01, 0.6, 0.5],
                  [0.9, 0.0, 0.5, 0.4],
                  [0.8, 0.5, 0.0, 0.3],
                  [0.7, 0.4, 0.3, 0.0]])
    phi = np.array([1.0, 0.5, 0.45, 0.4])
    result = BivariateExplanation(w, Attribution(phi, 0.0, names, 64, "exact"), names, 64, "exact")
    assert ("a-rather-long-name-x", "second") in result.graph().redundancy().edges()  # drawn below it
    browser.open(save_report([result], tmp_path / "labels.html").as_uri())
    crossings = browser.evaluate("""(function () {
      var boxes = [];
      document.querySelectorAll('#graph g.node').forEach(function (g) {
        if (g.style.display === 'none') { return; }
        g.querySelectorAll('text').forEach(function (t) {
          if (!t.textContent) { return; }
          var b = t.getBBox(); boxes.push([t.textContent, b.x + 1, b.y + 1, b.x + b.width - 1, b.y + b.height - 1]);
        });
      });
      var out = [];
      document.querySelectorAll('#graph path.edge').forEach(function (p) {
        var n = p.getTotalLength();
        for (var s = 0; s <= n; s += 2) {
          var q = p.getPointAtLength(s);
          boxes.forEach(function (b) {
            if (q.x > b[1] && q.x < b[3] && q.y > b[2] && q.y < b[4]) {
              out.push(p.getAttribute('data-from') + '->' + p.getAttribute('data-to') + ' over ' + b[0]);
            }
          });
        }
      });
      return out.filter(function (v, i) { return out.indexOf(v) === i; });
    })()""")
    assert browser.evaluate("document.querySelectorAll('#graph path.edge').length") >= 3
    assert crossings == []
    assert browser.problems() == []


def test_wide_heatmap_gets_the_whole_width(browser, tmp_path):
    """60 features' heatmap was squeezed into half the page, its names written about 7 px high; wider than half
    the page, it takes the whole width and is drawn at its own size (12 px names); 10 features' stays in half."""
    from interplay.report import save_report
    from interplay.results import Interactions

    rng = np.random.default_rng(0)

    def interactions(d):
        values = {(i,): float(rng.normal()) for i in range(d)}
        values.update({(i, j): float(rng.normal()) for i in range(d) for j in range(i + 1, d)})
        return Interactions(values, "sii", 2, 0.0, tuple(f"feature_{i:02d}" for i in range(d)), 100, "exact")

    for d, wide in ((60, True), (10, False)):
        path = save_report([interactions(d)], tmp_path / f"heat{d}.html")
        browser.events.clear()
        browser.open(path.as_uri())
        section = "Array.from(document.querySelectorAll('section')).filter(function (s) {" \
                  " return s.querySelector('h2').textContent.indexOf('Interactions') === 0; })[0]"
        assert browser.evaluate(f"{section}.classList.contains('wide')") is wide, d
        drawn, natural = browser.evaluate(f"(function () {{ var svg = {section}.querySelector('svg');"
                                          " return [svg.getBoundingClientRect().width,"
                                          " Number(svg.getAttribute('width'))]; })()")
        if wide:
            assert drawn == pytest.approx(natural, abs=1)  # not scaled down: the names at their 12 px
        else:
            assert drawn > 0.9 * natural  # half the page: about its own size
        assert browser.problems() == []
