"""Results behave like tables (issue 13 item 5): slicing by rows and features, ``.data`` kept as given,
``to_pandas()`` on every result, names on every aggregate, round trips through save/load, modality results
carrying their tokens and images, and banzhaf labelled ``BV`` for shapiq."""

import numpy as np
import pandas as pd
import pytest

import interplay as ip
from interplay.modalities import ImageExplainer, TextExplainer
from interplay.synthetic import UnanimitySum

NAMES = ("age", "sex", "hours", "colour")


@pytest.fixture(scope="module")
def expl():
    """A hand-built Explanation of 6 rows with a raw categorical column and a per-row info entry."""
    rng = np.random.default_rng(0)
    data = np.array([[27, "F", 40.0, "red"], [51, "M", 50.5, "blue"], [33, "F", 20.0, "red"],
                     [45, "M", 38.0, None], [19, "F", 12.0, "green"], [62, "M", 45.0, "blue"]], dtype=object)
    return ip.Explanation(rng.normal(size=(6, 4)), rng.normal(size=6), data, NAMES, "exact", np.arange(6) + 10,
                          std_errors=rng.random((6, 4)),
                          info={"index": ["a", "b", "c", "d", "e", "f"], "targets": [1, 1, 0, 1, 0, 1],
                                "removal": "marginal"})


# ---------------------------------------------------------------------------------------------- slicing
def test_row_gives_an_attribution_with_its_data(expl):
    row = expl[3]
    assert isinstance(row, ip.Attribution)
    np.testing.assert_array_equal(row.values, expl.values[3])
    assert row.baseline == expl.base_values[3] and row.n_evaluations == 13
    assert list(row.data) == [45, "M", 38.0, None]  # raw values kept, not turned into NaN
    assert row.info["row"] == "d" and row.info["target"] == 1 and row.info["removal"] == "marginal"
    np.testing.assert_array_equal(row.std_errors, expl.std_errors[3])
    assert expl[-1].info["row"] == "f"


def test_row_and_feature_slices(expl):
    head = expl[:2]
    assert isinstance(head, ip.Explanation) and len(head) == 2 and head.shape == (2, 4)
    assert head.info["index"] == ["a", "b"] and head.info["targets"] == [1, 1]
    age = expl[:, "age"]
    assert age.feature_names == ("age",) and age.shape == (6, 1)
    np.testing.assert_array_equal(age.values[:, 0], expl.values[:, 0])
    assert list(age.data[:, 0]) == [27, 51, 33, 45, 19, 62]
    np.testing.assert_array_equal(expl[:, 2].values, expl.values[:, [2]])
    sub = expl[[0, 3], ["colour", "sex"]]
    assert sub.feature_names == ("colour", "sex")
    np.testing.assert_array_equal(sub.values, expl.values[np.ix_([0, 3], [3, 1])])
    np.testing.assert_array_equal(sub.std_errors, expl.std_errors[np.ix_([0, 3], [3, 1])])
    assert sub.data.tolist() == [["red", "F"], [None, "M"]]
    np.testing.assert_array_equal(sub.n_evaluations, [10, 13])
    mask = expl.values[:, 0] > 0
    picked = expl[mask]
    assert len(picked) == mask.sum() and picked.info["index"] == [k for k, m in zip("abcdef", mask) if m]
    assert expl[2, "hours"] == expl.values[2, 2]
    one = expl[1, ["age", "sex"]]
    assert isinstance(one, ip.Attribution) and one.feature_names == ("age", "sex") and list(one.data) == [51, "M"]
    assert expl[:, [True, False, False, True]].feature_names == ("age", "colour")
    rows = list(expl)  # iterable, row by row
    assert len(rows) == 6 and rows[4].info["row"] == "e"


@pytest.mark.parametrize("key, error, match", [
    ((slice(None), "height"), KeyError, "unknown feature 'height'"),
    (7, IndexError, "out of range for 6 rows"),
    ((slice(None), 9), IndexError, "out of range for 4 features"),
    (np.ones(3, dtype=bool), IndexError, "needs 6 entries"),
    (1.5, TypeError, "rows: expected"),
    ((0, 1, 2), IndexError, "expl\\[rows, features\\]"),
])
def test_bad_selections_name_what_was_expected(expl, key, error, match):
    with pytest.raises(error, match=match):
        expl[key]


def test_numeric_data_stays_float_and_read_only():
    e = ip.Explanation(np.ones((2, 2)), np.zeros(2), [[1, 2], [3, 4]], ["a", "b"], "exact", [4, 4])
    assert e.data.dtype == float
    with pytest.raises(ValueError):
        e.data[0, 0] = 9
    objects = ip.Explanation(np.ones((1, 2)), np.zeros(1), np.array([[1, None]], dtype=object), ["a", "b"],
                             "exact", [4])
    assert objects.data.dtype == float and np.isnan(objects.data[0, 1])  # numbers only: floats, None as NaN


# ---------------------------------------------------------------------------------------------- pandas
def test_to_pandas_wide_tidy_and_data(expl):
    frame = expl.to_pandas()
    assert list(frame.index) == list("abcdef") and list(frame.columns) == list(NAMES)
    np.testing.assert_array_equal(frame.to_numpy(), expl.values)
    tidy = expl.to_pandas(tidy=True)
    assert len(tidy) == 24 and list(tidy.columns) == ["row", "feature", "value", "data", "base_value", "std_error",
                                                      "target"]  # its rows explain classes 1 and 0
    hit = tidy[(tidy.row == "d") & (tidy.feature == "colour")].iloc[0]
    assert hit.value == expl.values[3, 3] and hit["data"] is None and hit.base_value == expl.base_values[3]
    data = expl.to_pandas(data=True)
    assert data.loc["e", "colour"] == "green" and data.loc["b", "age"] == 51
    plain = ip.Explanation(np.ones((2, 2)), np.zeros(2), np.zeros((2, 2)), ["a", "b"], "exact", [4, 4])
    assert list(plain.to_pandas().index) == [0, 1]


def test_explainer_keeps_raw_rows_and_the_index(tmp_path):
    """A Pipeline on raw categorical columns: .data keeps the strings, to_pandas() the DataFrame's index."""
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"age": rng.integers(18, 70, 40).astype(float), "colour": rng.choice(["red", "blue"], 40)},
                         index=pd.Index([f"id{k}" for k in range(40)], name="person"))
    y = frame["age"] * 0.1 + (frame["colour"] == "red") * 2.0
    model = make_pipeline(make_column_transformer((OneHotEncoder(), ["colour"]), remainder="passthrough"),
                          LinearRegression()).fit(frame, y)
    explanation = ip.Explainer(model, frame.iloc[:10]).shapley(frame.iloc[30:35])
    assert explanation.data[:, 1].tolist() == frame["colour"].iloc[30:35].tolist()
    assert explanation.data[:, 0].tolist() == frame["age"].iloc[30:35].tolist()
    values = explanation.to_pandas()
    assert list(values.index) == list(frame.index[30:35]) and values.index.name == "person"
    assert explanation[1].info["row"] == "id31" and explanation[1].data[1] == frame["colour"].iloc[31]
    for suffix in ("json", "npz"):  # .data, with its strings, and the index survive saving
        path = tmp_path / f"e.{suffix}"
        explanation.save(path)
        back = ip.Explanation.load(path)
        assert back.data.tolist() == explanation.data.tolist()
        assert list(back.to_pandas().index) == list(values.index)
        one = tmp_path / f"row.{suffix}"
        explanation[2].save(one)
        assert ip.Attribution.load(one).data.tolist() == explanation[2].data.tolist()


# ---------------------------------------------------------------------------------------------- aggregates
def test_global_importance_is_a_named_attribution(expl):
    gi = expl.global_importance()
    assert isinstance(gi, ip.Attribution) and gi.feature_names == NAMES
    np.testing.assert_allclose(np.asarray(gi), np.abs(expl.values).mean(axis=0), rtol=1e-15)
    assert gi["sex"] == pytest.approx(np.abs(expl.values[:, 1]).mean())
    assert gi.baseline == pytest.approx(expl.base_values.mean()) and gi.info["rows"] == 6
    assert gi.ranking()[0] == NAMES[int(np.argmax(np.abs(expl.values).mean(axis=0)))]
    series = gi.to_pandas()
    assert list(series.index) == list(NAMES) and series["hours"] == gi["hours"]
    assert "mean |value| over 6 rows" in repr(gi)
    mean = expl.mean_attribution()
    np.testing.assert_allclose(mean.values, expl.values.mean(axis=0), rtol=1e-15)


def test_run_global_importance_has_names(tmp_path):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(9, 3))
    explainer = ip.Explainer(lambda x: x[:, 0] * x[:, 1] + x[:, 2], rng.normal(size=(5, 3)),
                             feature_names=["a", "b", "c"])
    handle = ip.run(explainer, X, out=tmp_path / "run", chunk_size=4)
    gi = handle.global_importance()
    assert isinstance(gi, ip.Attribution) and gi.feature_names == ("a", "b", "c")
    whole = handle.explanation()
    np.testing.assert_allclose(np.asarray(gi), np.abs(whole.values).mean(axis=0), rtol=1e-12)
    assert gi.baseline == pytest.approx(whole.base_values.mean())
    cohort = handle.global_importance([0, 2])
    np.testing.assert_allclose(cohort.values, np.abs(whole.values[[0, 2]]).mean(axis=0), rtol=1e-12)


def test_interactions_and_bivariate_to_pandas():
    game = UnanimitySum.random(4, 5, 3, random_state=0).game()
    sii = ip.interactions(game, index="sii", order=2)
    frame = sii.to_pandas()
    assert list(frame.index) == list(game.feature_names) == list(frame.columns)
    np.testing.assert_array_equal(frame.to_numpy(), sii.matrix)
    tidy = sii.to_pandas(tidy=True)
    assert len(tidy) == len(sii.values) and set(tidy.order) == {1, 2}
    a, b = game.feature_names[:2]
    assert tidy.set_index("features").loc[f"{a} x {b}", "value"] == sii[(a, b)]
    biv = ip.bivariate(game)
    adjacency = biv.to_pandas()
    assert adjacency.index.name == "present" and adjacency.loc[a, b] == biv.adjacency[0, 1]
    assert list(ip.shapley(game).to_pandas().index) == list(game.feature_names)


# ---------------------------------------------------------------------------------------------- modalities
def _sentiment(texts):
    words = {"good": 1.0, "bad": -1.0, "not": -0.5}
    return np.array([sum(words.get(w, 0.0) for w in t.split()) for t in texts])


def test_text_and_image_results_carry_their_tokens_and_image(tmp_path):
    explainer = TextExplainer(_sentiment)
    result = explainer.shapley("not a good movie")
    assert result.info["tokens"] == ["not", "a", "good", "movie"]
    assert explainer.bivariate("not a good movie").univariate.info["tokens"] == result.info["tokens"]
    assert explainer.interactions("not bad").info["tokens"] == ["not", "bad"]
    image = np.arange(16.0).reshape(4, 4) / 16
    res = ImageExplainer(lambda b: b.reshape(len(b), -1).sum(1), segments="patches", patch_size=2).shapley(image)
    np.testing.assert_array_equal(res.info["image"], image)
    assert res.info["segments"].shape == (4, 4) and res.info["segments"].max() == 3
    path = tmp_path / "image.json"
    res.save(path)
    np.testing.assert_array_equal(ip.Attribution.load(path).info["segments"], res.info["segments"])


# ---------------------------------------------------------------------------------------------- shapiq
def test_banzhaf_is_labelled_bv_for_shapiq():
    pytest.importorskip("shapiq")
    game = UnanimitySum.random(4, 5, 3, random_state=0).game()
    bv = ip.banzhaf(game).to_shapiq()
    assert bv.index == "BV"
    assert ip.banzhaf(game, method="msr", budget=64, random_state=0).to_shapiq().index == "BV"
    assert ip.shapley(game).to_shapiq().index == "SV"
    exact = ip.banzhaf(game)
    assert bv[(0,)] == pytest.approx(exact.values[0])
    explainer = ip.Explainer(lambda x: x[:, 0] * x[:, 1], np.zeros((1, 2)), removal="baseline",
                             baseline=np.zeros(2))
    assert explainer.banzhaf(np.ones((2, 2)))[0].to_shapiq().index == "BV"


def test_readme_results_section_runs():
    """The README's "Results like tables" example, as written."""
    import pathlib
    import re

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    readme = (pathlib.Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Results like tables, and plots that take them", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    scope: dict = {}
    try:
        exec(compile(code, "README.md", "exec"), scope)
    finally:
        plt.close("all")
    expl, gi = scope["expl"], scope["gi"]
    assert len(expl) == 200 and expl.to_pandas().index.equals(scope["X"].index[:200])
    assert gi.ranking()[0] in expl.feature_names and scope["row"].data[2] == scope["X"]["bmi"].iloc[0]


def test_report_and_shap_take_raw_data(expl, tmp_path):
    """Raw categorical values in .data: the HTML report draws the rows (strings have no position: shown
    without one), to_shap() passes the values on."""
    from interplay.report import save_report

    path = save_report([expl, expl[0]], tmp_path / "report.html")
    assert path.stat().st_size > 1000
    shap = pytest.importorskip("shap")
    converted = expl.to_shap()
    assert isinstance(converted, shap.Explanation) and converted.data[0, 3] == "red"
    assert expl[0].to_shap().data[1] == "F"
