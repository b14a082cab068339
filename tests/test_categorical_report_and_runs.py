"""Raw categorical feature values (strings) in the HTML report and in a batch run's stored results.

Regressions: the report used to show every category as 0 and round numbers to 4 significant digits
("fnlwgt = 77520" for 77516); ``load_run`` used to return NaN for the string columns of ``.data``.
"""

import json
import re

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import interplay as ip
from interplay.report import build_report, save_report
from interplay.runs import load_run, open_run, run


NAMES = ["age", "workclass", "fnlwgt", "score"]


def _payload(html: str) -> dict:
    block = re.search(r'<script type="application/json" id="interplay-data">(.*?)</script>', html, re.S).group(1)
    return json.loads(block)


@pytest.fixture(scope="module")
def hand_built():
    """An Explanation of 3 rows whose data mixes integers, category names and floats (as a raw DataFrame's)."""
    data = np.array([[39, "State-gov", 77516, 0.123456789], [50, "Self-emp", 83311, -2.5],
                     [38, "Private", 215646, float("nan")]], dtype=object)
    values = np.array([[0.1, -0.2, 0.05, 0.0], [0.3, 0.1, -0.4, 0.2], [-0.1, 0.0, 0.2, 0.1]])
    return ip.Explanation(values, np.zeros(3), data, NAMES, "exact", np.full(3, 16), info={"rows": [0, 1, 2]})


def test_report_payload_keeps_categories_and_exact_numbers(hand_built):
    payload = _payload(build_report([hand_built]))
    assert payload["rows"][0]["data"] == [39, "State-gov", 77516, 0.123457]
    assert payload["rows"][2]["data"] == [38, "Private", 215646, None]  # NaN: missing, not 0
    assert payload["summary"]["data"][1] == [50, "Self-emp", 83311, -2.5]
    # a single row's values given in info["x"] are shown the same way
    one = ip.Attribution([0.5, -0.25, 0.0, 1.0], 0.1, NAMES, 16, "exact",
                         info={"row": 7, "x": [39, "State-gov", 77516.0, np.float32(0.5)]})
    assert _payload(build_report([one]))["rows"][0]["data"] == [39, "State-gov", 77516, 0.5]


def test_report_payload_of_numeric_data_is_unchanged_in_meaning():
    rng = np.random.default_rng(0)
    data = rng.normal(size=(4, 3))
    expl = ip.Explanation(rng.normal(size=(4, 3)), np.zeros(4), data, ["a", "b", "c"], "exact", np.full(4, 8))
    shown = np.array(_payload(build_report([expl]))["summary"]["data"], dtype=float)
    np.testing.assert_allclose(shown, data, rtol=1e-5)


def _labels(browser) -> list:
    return browser.evaluate("Array.from(document.querySelectorAll('svg[aria-label=\"attribution chart\"] text'))"
                            ".map(function (t) { return t.textContent; })")


def test_report_shows_category_names_in_chromium(hand_built, browser, tmp_path):
    path = save_report([hand_built], tmp_path / "categorical.html")
    browser.events.clear()
    browser.open(path.as_uri())
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    labels = _labels(browser)
    for label in ("workclass = State-gov", "fnlwgt = 77516", "age = 39", "score = 0.1235"):
        assert label in labels, labels
    # the summary colours categories by their (alphabetical) position and hovers show the names
    fills = browser.evaluate("Array.from(document.querySelectorAll('svg[aria-label=\"summary over rows\"] circle'))"
                             ".map(function (c) { return c.getAttribute('fill'); })")
    assert len(fills) == 3 * 4 and len(set(fills)) > 2
    box = browser.evaluate(
        "(function () { var c = document.querySelectorAll('svg[aria-label=\"summary over rows\"] circle');"
        " for (var k = 0; k < c.length; k++) { c[k].scrollIntoView({block: 'center'}); var r = c[k]"
        ".getBoundingClientRect(); var e = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);"
        " if (e === c[k]) { return [r.x + r.width / 2, r.y + r.height / 2]; } } return null; })()")
    assert box is not None
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    tip = browser.evaluate("document.getElementById('tooltip').textContent")
    assert " = " in tip and " = 0\n" not in tip
    assert browser.problems() == []


def test_report_writes_numbers_as_the_plots_do_in_chromium(browser, tmp_path):
    """Labels: whole numbers exactly, others with 4 significant digits in plain notation (as the plots'
    labels); the bar's tooltip: 6 significant digits."""
    shown = {"a": (77516.0, "77516"), "b": (0.123456789, "0.1235"), "c": (1234.5678, "1234.6"),
             "d": (1.5e-5, "1.5e-05"), "e": (-2.5, "-2.5"), "f": (2.5e9 + 0.5, "2.5e+09"), "g": (True, "True"),
             "h": ("Paris", "Paris"), "i": (float("nan"), "missing"), "j": (123456789012, "123456789012")}
    names = list(shown)
    data = np.array([[v for v, _ in shown.values()]], dtype=object)
    one = ip.Attribution(np.linspace(1.0, 0.1, len(names)), 0.0, names, 16, "exact",
                         info={"row": 0, "x": data[0]})
    browser.events.clear()
    browser.open(save_report([one], tmp_path / "numbers.html").as_uri())
    labels = _labels(browser)
    for name, (_, text) in shown.items():
        assert f"{name} = {text}" in labels, labels
    box = browser.evaluate("(function () { var r = document.querySelectorAll('svg[aria-label=\"attribution chart\"]"
                           " rect')[1]; r.scrollIntoView({block: 'center'}); var b = r.getBoundingClientRect();"
                           " return [b.x + b.width / 2, b.y + b.height / 2]; })()")
    browser.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": box[0], "y": box[1]})
    assert browser.evaluate("document.getElementById('tooltip').textContent").startswith("b\nvalue 0.123457\n")
    assert browser.problems() == []


# ---------------------------------------------------------------- batch runs
@pytest.fixture(scope="module")
def frame_and_explainer():
    """A Pipeline that one-hot encodes a string column itself, on a small DataFrame (int, str, int, float)."""
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame({"age": rng.integers(18, 80, n), "workclass": rng.choice(["Private", "State-gov", "Self"], n),
                          "fnlwgt": rng.integers(10_000, 400_000, n), "score": rng.normal(size=n)})
    y = 0.05 * frame["age"] + 2.0 * (frame["workclass"] == "Private") + frame["score"]
    model = make_pipeline(make_column_transformer((OneHotEncoder(), ["workclass"]), remainder="passthrough"),
                          LinearRegression()).fit(frame, y)
    return frame, ip.Explainer(model, frame.iloc[:10])


def _same_cells(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape
    for a, b in zip(got.ravel(), expected.ravel()):
        assert type(a) is type(b) and a == b, (a, b)


def test_load_run_keeps_category_names(frame_and_explainer, tmp_path):
    frame, explainer = frame_and_explainer
    X = frame.iloc[10:20]
    reference = explainer.shapley(X, method="permutation", budget=40, random_state=3)
    out = tmp_path / "run"
    run(explainer, X, method="permutation", budget=40, random_state=3, out=out, n_jobs=1, chunk_size=4)
    loaded = load_run(out)
    np.testing.assert_array_equal(loaded.values, reference.values)
    assert loaded.data[:, 1].tolist() == X["workclass"].tolist()
    _same_cells(loaded.data, reference.data)  # strings as strings, integers as integers, floats as floats
    schema = open_run(out).table().schema
    assert schema.field("data.workclass").type == pa.string()
    assert schema.field("data.age").type == pa.int64() and schema.field("data.score").type == pa.float64()
    assert open_run(out).to_pandas()["data.workclass"].tolist() == X["workclass"].tolist()


def test_resumed_run_keeps_category_names(frame_and_explainer, tmp_path):
    """A chunk lost in a crash (part and manifest entry gone) is recomputed; the data stays categorical."""
    frame, explainer = frame_and_explainer
    X = frame.iloc[10:21]
    out = tmp_path / "run"
    args = dict(method="permutation", budget=40, random_state=5, out=out, n_jobs=1, chunk_size=4)
    run(explainer, X, **args)
    manifest_path = out / "run-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    lost = manifest["chunks"].pop("1")
    manifest["complete"] = False
    manifest_path.write_text(json.dumps(manifest))
    (out / lost["file"]).unlink()
    assert run(explainer, X, **args).complete
    reference = explainer.shapley(X, method="permutation", budget=40, random_state=5)
    loaded = load_run(out)
    np.testing.assert_array_equal(loaded.values, reference.values)
    _same_cells(loaded.data, reference.data)


def test_numeric_runs_store_floats_as_before(tmp_path):
    rng = np.random.default_rng(1)
    background, X = rng.normal(size=(6, 3)), rng.normal(size=(5, 3))
    explainer = ip.Explainer(lambda Z: Z @ np.array([1.0, -2.0, 0.5]), background)
    run(explainer, X, method="exact", out=tmp_path / "run", n_jobs=1, chunk_size=2)
    loaded = load_run(tmp_path / "run")
    assert loaded.data.dtype == float
    np.testing.assert_array_equal(loaded.data, X)
    schema = open_run(tmp_path / "run").table().schema
    assert [schema.field(f"data.{name}").type for name in loaded.feature_names] == [pa.float64()] * 3


def test_parts_whose_column_types_differ_are_read_together():
    """A raw column stored as numbers in one part and as text in another (or as NaN by an older version) reads
    back as one column: text where any part holds text, floats where all hold numbers."""
    from interplay.runs._table import concat, data_matrix

    old = pa.table({"row": [0, 1], "data.a": [1.5, float("nan")], "data.b": pa.array([1, 2], pa.int64())})
    new = pa.table({"row": [2], "data.a": ["Paris"], "data.b": [3.5]})
    table = concat([old, new])
    assert table.schema.field("data.a").type == pa.string() and table.schema.field("data.b").type == pa.float64()
    data = data_matrix(table, ["data.a", "data.b"])
    a = data[:, 0].tolist()  # a missing value reads back as NaN, as Explainer.shapley gives it (was None)
    assert a[0::2] == ["1.5", "Paris"] and isinstance(a[1], float) and np.isnan(a[1])
    assert data[:, 1].tolist() == [1.0, 2.0, 3.5]


def test_a_chunk_all_missing_in_a_column_keeps_the_other_chunks_types(tmp_path):
    """A chunk (e.g. the last, short one) whose rows all lack a numeric category column (categories 3, 7, 11) or
    a text one: load_run gives the Explainer's own cells, 7 (not 7.0) and NaN (was: 7.0 in every chunk)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = np.random.default_rng(0)
    n = 80
    frame = pd.DataFrame({"age": rng.integers(18, 80, n),
                          "code": pd.Categorical(rng.choice([3, 7, 11], n)),
                          "work": pd.Categorical(rng.choice(["Private", "State-gov"], n))})
    y = 0.05 * frame["age"] + (frame["code"] == 7) + 2.0 * (frame["work"] == "Private")
    model = HistGradientBoostingRegressor(categorical_features="from_dtype", max_iter=10).fit(frame, y)
    explainer = ip.Explainer(model, frame.iloc[:10])
    X = frame.iloc[10:15].copy()
    X.loc[X.index[-1], ["code", "work"]] = np.nan  # the last chunk (one row) lacks both
    reference = explainer.shapley(X, method="exact")
    out = tmp_path / "run"
    run(explainer, X, method="exact", out=out, n_jobs=1, chunk_size=2, progress=False)
    loaded = load_run(out)
    np.testing.assert_array_equal(loaded.values, reference.values)
    assert loaded.data[0, 1] in (3, 7, 11) and type(loaded.data[0, 1]) is type(reference.data[0, 1])
    for got, expected in zip(loaded.data.ravel(), reference.data.ravel()):
        if isinstance(expected, float) and np.isnan(expected):
            assert isinstance(got, float) and np.isnan(got)
        else:
            assert type(got) is type(expected) and got == expected, (got, expected)
    assert open_run(out).table().schema.field("data.code").type == pa.int64()


def test_an_all_missing_part_does_not_change_a_column_s_type():
    """Booleans (or integers) in one part and only NaN (stored as floats) in another stay booleans (integers)
    with a missing value (booleans became the text 'True' / 'False')."""
    from interplay.runs._table import concat, data_matrix

    one = pa.table({"row": [0, 1], "data.b": [True, False], "data.i": pa.array([3, 7], pa.int64())})
    two = pa.table({"row": [2], "data.b": [float("nan")], "data.i": [float("nan")]})
    table = concat([one, two])
    assert table.schema.field("data.b").type == pa.bool_() and table.schema.field("data.i").type == pa.int64()
    data = data_matrix(table, ["data.b", "data.i"])
    assert data[:2].tolist() == [[True, 3], [False, 7]] and type(data[1, 0]) is bool and type(data[1, 1]) is int
    assert all(isinstance(v, float) and np.isnan(v) for v in data[2])
