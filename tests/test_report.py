"""The HTML report: self-contained, escaped, and working in a real (headless Chromium) browser."""

import base64
import hashlib
import re
from dataclasses import replace

import numpy as np
import pytest

import interplay as ip
from interplay.plot import _analysis
from interplay.report import build_report, save_report
from interplay.synthetic import UnanimitySum


EVIL = "<script>alert(1)</script>"
NAMES = ["age", EVIL, "bmi", "bp", "s1 & s2", "s3", "</script><img src=x onerror=alert(2)>"]


@pytest.fixture(scope="module")
def results():
    game = UnanimitySum.random(7, 8, 3, random_state=5).game()
    info = {"row": 4, "x": list(np.linspace(-1, 1, 7)), "prediction": 1.25, "model_file": "m<1>.skops",
            "data_file": "d\"ata\".csv", "seed": 1}
    shap = replace(ip.shapley(game), feature_names=NAMES, info=info)
    inter = replace(ip.interactions(game, index="sii"), feature_names=NAMES, info=info)
    biv = ip.bivariate(game)
    biv = replace(biv, feature_names=NAMES, univariate=shap, info=info)
    rng = np.random.default_rng(0)
    expl = ip.Explanation(rng.normal(size=(12, 7)), np.zeros(12), rng.normal(size=(12, 7)), NAMES, "exact",
                          np.full(12, 128), info={"rows": list(range(12))})
    return [expl, shap, inter, biv]


def test_page_is_self_contained_and_escaped(results, tmp_path):
    html = build_report(results, title=f"title {EVIL}")
    for needle in ("http://", "https://", "<script src", "<link", "<img", "<iframe", "@import", "url(http", "url(//"):
        assert needle not in html.replace("http://www.w3.org/2000/svg", ""), needle
    assert EVIL not in html and "onerror=alert" not in html.split('id="interplay-data">')[0]
    assert html.count("<script") == 2 and html.count("</script>") == 2  # the data block and our script only
    data = re.search(r'<script type="application/json" id="interplay-data">(.*?)</script>', html, re.S).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # the title, escaped
    script = re.search(r"<script>(.*)</script>", html, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"sha256-{digest}" in html  # the CSP allows exactly this script
    path = save_report([r for r in results], tmp_path / "r.html")
    assert path.read_text(encoding="utf-8") == build_report(results)


def test_report_from_files_and_errors(results, tmp_path):
    paths = [r.save(tmp_path / f"r{i}.json") for i, r in enumerate(results)]
    assert build_report(paths) == build_report(results)
    with pytest.raises(ValueError, match="nothing to report"):
        build_report([])
    with pytest.raises(TypeError, match="expected interplay result"):
        build_report([{"values": 1}])


def test_report_in_chromium(results, browser, tmp_path):
    path = save_report(results, tmp_path / "report.html", title=f"report of {EVIL}")
    browser.open(path.as_uri())
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    n = len(NAMES)
    assert browser.evaluate("document.querySelectorAll('#graph g.node').length") == n
    assert browser.evaluate("document.querySelectorAll('#graph path.edge').length") > 0
    assert browser.evaluate("document.querySelectorAll('svg rect').length") > n * n  # bars + heatmap cells
    # the hostile names are text, not markup; nothing ran
    assert browser.evaluate("document.scripts.length") == 2
    assert browser.evaluate("document.querySelectorAll('img').length") == 0
    text = browser.evaluate("document.body.innerText")
    assert EVIL in text and "</script><img src=x onerror=alert(2)>" in text and "m<1>.skops" in text
    assert browser.evaluate("document.title") == f"report of {EVIL}"
    browser.screenshot(tmp_path / "report.png")
    # hover: a node shows its name, rank and role in a tooltip; zoom: the wheel changes the view box
    box = browser.evaluate(
        "(function () { var c = document.querySelector('#graph g.node[data-index=\"1\"] circle');"
        "c.scrollIntoView({block: 'center'}); var r = c.getBoundingClientRect();"
        "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    assert browser.evaluate("document.getElementById('tooltip').hidden") is False
    tip = browser.evaluate("document.getElementById('tooltip').textContent")
    assert tip.startswith(EVIL) and "rank" in tip
    before = browser.evaluate("document.getElementById('graph').getAttribute('viewBox')")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": box[0], "y": box[1], "deltaX": 0,
                                              "deltaY": -300})
    browser.evaluate("1")
    after = browser.evaluate("document.getElementById('graph').getAttribute('viewBox')")
    assert float(after.split()[2]) < float(before.split()[2])  # zoomed in
    # the page runs no graph algorithm: the analysis of every threshold is in the data block
    assert "interplayAnalyse" not in html_of(path) and "strong(" not in html_of(path)
    # the gamma slider: what the page draws at each position is the Python analysis at that threshold
    graph = results[3].graph()
    sweep = _analysis.thresholds(graph)
    assert browser.evaluate("document.getElementById('gamma').value") == str(sweep["default"])
    for position in sorted({0, 1, sweep["default"], len(sweep["gammas"]) // 2, len(sweep["gammas"]) - 1}):
        browser.evaluate(f"var s = document.getElementById('gamma'); s.value = '{position}';"
                         "s.dispatchEvent(new Event('input'));")
        expected = _analysis.analyse(graph, sweep["gammas"][position])
        nodes = browser.evaluate("Array.from(document.querySelectorAll('#graph g.node')).map(function (g) {"
                                 " return [Number(g.getAttribute('data-group')), g.getAttribute('data-role')]; })")
        drawn = {}
        for i, (g, _) in enumerate(nodes):
            if g >= 0:
                drawn.setdefault(g, []).append(i)
        assert sorted(drawn.values()) == expected.groups, position
        assert [i for i, (_, role) in enumerate(nodes) if "source" in role.split()] == expected.sources
        assert [i for i, (_, role) in enumerate(nodes) if "sink" in role.split()] == expected.sinks
        assert [i for i, (_, role) in enumerate(nodes) if "isolated" in role.split()] == expected.isolated
        # redundancy arrows: the condensation's transitive reduction; strong edges: at most 5 by default
        assert browser.evaluate("document.querySelectorAll('#graph path.edge.redundancy').length") == \
            len(expected.class_edges)
        assert browser.evaluate("document.querySelectorAll('#graph path.edge.strong').length") <= 5
    assert browser.evaluate("document.getElementById('graph-summary').textContent") == graph.describe()
    browser.evaluate("document.getElementById('row-select') && document.getElementById('row-select').dispatchEvent(new Event('change'))")
    browser.screenshot(tmp_path / "report-gamma-max.png")
    assert browser.problems() == []
    assert (tmp_path / "report.png").stat().st_size > 10000


def html_of(path):
    return path.read_text(encoding="utf-8")


def test_heatmap_scale_and_image_overlay_in_chromium(results, browser, tmp_path):
    """The heatmap's colours come from the pairs (the diagonal has a column of its own); the image overlay keeps
    the image visible."""
    path = save_report(results, tmp_path / "heat.html")
    browser.events.clear()
    browser.open(path.as_uri())
    matrix = np.array(results[2].matrix)
    off = np.abs(matrix[~np.eye(len(matrix), dtype=bool)])
    colours = browser.evaluate("Array.from(document.querySelectorAll('rect.pair')).map(function (r) {"
                               " return r.getAttribute('fill'); })")
    strongest = int(np.argmax(off))
    assert colours[strongest] in ("rgb(232,56,79)", "rgb(31,119,208)")  # the strongest pair has the full colour
    assert browser.evaluate("document.querySelectorAll('rect.alone').length") == len(matrix)
    assert set(browser.evaluate("Array.from(document.querySelectorAll('rect.diag')).map(function (r) {"
                                " return r.getAttribute('fill'); })")) == {"#ffffff"}
    _, image = _modality_results()
    path = save_report([image], tmp_path / "image.html")
    browser.open(path.as_uri())
    assert browser.evaluate("document.querySelectorAll('canvas.original').length") == 1
    # the most strongly tinted pixel keeps more than half of the image's own colour
    mixed = browser.evaluate(
        "(function () { var c = document.querySelector('canvas.overlay'); var o = document.querySelector("
        "'canvas.original'); var a = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
        " var b = o.getContext('2d').getImageData(0, 0, o.width, o.height).data; var worst = 0;"
        " for (var p = 0; p < a.length; p += 4) { var x = (p / 4) % c.width, y = Math.floor(p / 4 / c.width);"
        "   if (x < 10 || y < 8 || x > 13 || y > 9) { continue; }"  # inside the strongest region, off its outline
        "   worst = Math.max(worst, Math.abs(a[p] - b[p]) / 255); } return worst; })()")
    assert mixed < 0.5
    assert browser.problems() == []


def test_console_errors_are_caught(browser, tmp_path):
    """The check above can fail: a page with a script error is reported."""
    page = tmp_path / "broken.html"
    page.write_text("<html><body><script>undefinedFunction();</script></body></html>")
    browser.events.clear()
    browser.open(page.as_uri())
    problems = browser.problems()
    assert any("undefinedFunction" in p for p in problems), (problems, [e.get("method") for e in browser.events])


def _modality_results():
    tokens = ["the", "movie", "was", "<b>not</b>", "bad"]
    text = ip.Attribution([0.0, 0.1, -0.05, -0.8, 0.6], 0.5, tokens, 32, "exact",
                          info={"row": "text: review 1", "tokens": tokens, "explained_output": "probability of 'pos'"})
    img = np.random.default_rng(0).random((12, 16, 3))
    segments = np.arange(4).reshape(2, 2).repeat(6, 0).repeat(8, 1)
    image = ip.Attribution([0.5, -0.2, 0.0, 1.0], 0.1, ["top left", "top right", "bottom left", "bottom right"], 16,
                           "exact", info={"row": "image 1", "image": img, "segments": segments})
    return text, image


def test_text_and_image_rows_in_chromium(browser, tmp_path):
    text, image = _modality_results()
    for result, check in ((text, "document.querySelectorAll('.token').length"),
                          (image, "document.querySelectorAll('canvas.overlay').length")):
        path = save_report([result], tmp_path / f"{result.info['row'][:4]}.html")
        browser.events.clear()
        browser.open(path.as_uri())
        assert browser.evaluate(check) == (5 if result is text else 1)
        if result is text:  # a token that looks like markup is shown as text
            assert "<b>not</b>" in browser.evaluate("document.body.innerText")
            assert browser.evaluate("document.querySelectorAll('b').length") == 0
        browser.screenshot(tmp_path / f"{result.info['row'][:4]}.png")
        assert browser.problems() == []


def test_image_payload_is_checked():
    _, image = _modality_results()
    bad = replace(image, info={**image.info, "segments": image.info["segments"] + 4})
    with pytest.raises(ValueError, match="region ids"):
        build_report([bad])
    bad = replace(image, info={**image.info, "segments": image.info["segments"][:3]})
    with pytest.raises(ValueError, match="segments"):
        build_report([bad])


def test_about_lists_every_value_when_rows_differ():
    game = UnanimitySum.random(4, n_terms=3, random_state=0).game()
    first = ip.shapley(game, method="exact")
    first = replace(first, info={**first.info, "row": "a", "target": 2, "output": "prediction"})
    second = replace(first, info={**first.info, "row": "b", "target": 2, "output": "probability of class 2"})
    html = build_report([first, second])
    assert "varies by row: prediction; probability of class 2" in html
    about = re.findall(r'\["target","([^"]*)"\]', html)
    assert about == ["2"]  # the same on every row: shown once, as is


def test_save_report_takes_one_result_or_a_run(tmp_path):
    """save_report(result) of one Bivariate result or a Run raised "'... object is not iterable", and an
    Explanation passed alone was read row by row (no summary of the rows): each is now one result, a Run its rows
    (as ip.load_run gives them)."""
    X = np.random.default_rng(0).standard_normal((12, 3))
    explainer = ip.Explainer(lambda Z: Z @ np.array([1.0, 2.0, 3.0]) + Z[:, 0] * Z[:, 1], X[:6])
    explanation = explainer.shapley(X[:3], method="exact")
    assert ip.build_report(explanation) == ip.build_report([explanation])
    ip.save_report(explainer.bivariate(X[:1], method="exact"), tmp_path / "biv.html")
    ip.run(explainer, X, "exact", out=tmp_path / "run", progress=False)
    assert ip.build_report(ip.open_run(tmp_path / "run")) == ip.build_report([ip.load_run(tmp_path / "run")])
