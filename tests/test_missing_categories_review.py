"""Missing values and categorical columns with tree boosters and data files (a review's findings)."""

import numpy as np
import pandas as pd
import pytest

import interplay as ip


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    colour = pd.Categorical(rng.choice(["red", "green", "blue"], n), categories=["blue", "green", "red"])
    frame = pd.DataFrame({"colour": colour, "size": rng.normal(size=n)})
    frame.loc[rng.random(n) < 0.2, "colour"] = np.nan
    y = np.where(frame["colour"] == "red", 2.0, 0.0) + np.where(frame["colour"].isna(), -3.0, 0.0) + frame["size"]
    return frame, y


def test_run_on_parquet_keeps_missing_categories_missing(tmp_path):
    """A pandas categorical with NaN written to Parquet is a dictionary column with nulls; its missing values were
    read as some category of the dictionary (pyarrow's to_numpy of a chunked dictionary column), so the run
    explained a different row than the file's, silently."""
    pytest.importorskip("pyarrow")
    from sklearn.ensemble import HistGradientBoostingRegressor

    frame, y = _frame()
    model = HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype").fit(frame, y)
    rows = frame.iloc[:40]
    assert rows["colour"].isna().any()
    path = tmp_path / "rows.parquet"
    rows.to_parquet(path)
    explainer = ip.Explainer(model, frame.iloc[100:130])
    run = ip.run(explainer, str(path), out=tmp_path / "run", n_jobs=1, progress=False)
    result = ip.load_run(run.path if hasattr(run, "path") else tmp_path / "run")
    missing = rows["colour"].isna().to_numpy()
    data = np.asarray(result.data, dtype=object)
    assert all(v is None or (isinstance(v, float) and np.isnan(v)) for v in data[missing, 0])
    expected = explainer.shapley(rows, method="tree", progress=False)
    np.testing.assert_allclose(result.values, expected.values, atol=1e-10)
    np.testing.assert_allclose(result.base_values + result.values.sum(axis=1), model.predict(rows), atol=1e-8)


def test_hist_gradient_boosting_text_categories_fitted_with_missing_values():
    """HistGradientBoosting fitted on a text categorical holding NaN lists NaN as its last category; the check of
    the tree arrays fed that code to the trees (an unknown category) and NaN to the model, so method='tree'
    refused the model ("do not reproduce its raw output") when a split sends missing values left."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    frame, y = _frame()
    model = HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype").fit(frame, y)
    explainer = ip.Explainer(model, frame.iloc[100:130])
    rows = frame.iloc[:8]
    tree = explainer.shapley(rows, method="tree", progress=False)
    exact = explainer.shapley(rows, method="exact", progress=False)
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-10)
    np.testing.assert_allclose(tree.base_values + tree.values.sum(axis=1), model.predict(rows), atol=1e-8)


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_a_csv_number_column_of_a_booster_categorical_is_read_as_those_categories(tmp_path, library):
    """A booster fitted on a pandas categorical of numbers (store ids 3, 7, 11, 20) and a text categorical: read
    back from a CSV the numbers are an int column, which the booster refuses; the Explainer (and the CLI) reported
    it as 'missing values ... impute them first'. Now the column gets the model's categories."""
    lib = pytest.importorskip(library)
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(1)
    n = 600
    frame = pd.DataFrame({"store": pd.Categorical(rng.choice([3, 7, 11, 20], n)),
                          "colour": pd.Categorical(rng.choice(["red", "green", "blue"], n)),
                          "size": rng.normal(size=n)})
    frame.loc[rng.random(n) < 0.15, "size"] = np.nan
    y = (frame["store"].astype(int) > 8).astype(int) ^ (frame["colour"] == "red").astype(int)
    if library == "xgboost":
        model = lib.XGBClassifier(n_estimators=10, max_depth=3, enable_categorical=True).fit(frame, y)
        margin = lambda rows: model.predict(rows, output_margin=True)  # noqa: E731
    else:
        model = lib.LGBMClassifier(n_estimators=10, num_leaves=7, min_child_samples=5, verbose=-1).fit(frame, y)
        margin = lambda rows: model.predict(rows, raw_score=True)  # noqa: E731
    path = tmp_path / "rows.csv"
    frame.iloc[:60].to_csv(path, index=False)
    read = pd.read_csv(path)
    assert pd.api.types.is_integer_dtype(read["store"])
    explainer = ip.Explainer(model, read.iloc[:30])
    result = explainer.shapley(read.iloc[40:46], method="tree", progress=False)
    np.testing.assert_allclose(result.base_values + result.values.sum(axis=1), margin(frame.iloc[40:46]), atol=1e-5)


def test_a_background_the_model_refuses_for_another_reason_is_not_blamed_on_missing_values():
    """Rows with missing values on which the model fails were reported as 'missing values ... impute them first'
    even when the model fails on every row (a number column where it was fitted on a text categorical)."""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"c": pd.Categorical(rng.choice(["a", "b"], n)), "z": rng.normal(size=n)})
    frame.loc[:20, "z"] = np.nan
    model = xgb.XGBRegressor(n_estimators=5, enable_categorical=True).fit(frame, rng.normal(size=n))
    wrong = frame.assign(c=rng.normal(size=n))  # numbers, not the categories (nor turned into missing values)
    with pytest.raises(ValueError, match="failed on rows with no missing value") as info:
        ip.Explainer(model, wrong)
    assert "impute" not in str(info.value)


@pytest.mark.parametrize("categorical", [False, True])
def test_scatter_draws_the_rows_whose_value_is_missing(categorical):
    """A dependence plot of a feature with missing values left those rows out without a word (matplotlib skips
    NaN x): 10% of the rows and their attributions vanished. They are drawn at a place of their own, 'missing'."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(0)
    n = 50
    if categorical:
        column = rng.choice(np.array(["a", "b", "c"], dtype=object), n)
    else:
        column = rng.normal(size=n)
    data = np.empty((n, 2), dtype=object if categorical else float)
    data[:, 0] = column
    data[:, 1] = rng.normal(size=n)
    data[:5, 0] = np.nan
    explanation = ip.Explanation(values=rng.normal(size=(n, 2)), base_values=np.zeros(n), data=data,
                                 feature_names=["f", "g"], method="exact",
                                 n_evaluations=np.zeros(n, int))
    ax = ip.plot.scatter(explanation, "f", color=None)
    offsets = ax.collections[0].get_offsets()
    assert np.isfinite(np.asarray(offsets, dtype=float)).all(axis=1).sum() == n
    assert "missing" in [t.get_text() for t in ax.get_xticklabels()]
    plt.close("all")


def test_run_on_csv_reads_empty_text_fields_as_missing(tmp_path):
    """pandas writes a missing text value as an empty field; the run's CSV reader (pyarrow) kept it as the text '',
    which a Pipeline's imputer does not fill, so the run explained another row than pandas.read_csv reads (the
    model's output off by the effect of a missing value, silently)."""
    pytest.importorskip("pyarrow")
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"c": rng.choice(np.array(["a", "b", "c"], dtype=object), n), "z": rng.normal(size=n)})
    frame.loc[rng.random(n) < 0.2, "c"] = np.nan
    y = np.where(frame["c"].isna(), 5.0, 0.0) + frame["z"]
    encode = make_pipeline(SimpleImputer(strategy="constant", fill_value="MISSING"),
                           OneHotEncoder(handle_unknown="ignore"))
    model = make_pipeline(ColumnTransformer([("n", "passthrough", ["z"]), ("c", encode, ["c"])]),
                          GradientBoostingRegressor(n_estimators=20)).fit(frame, y)
    path = tmp_path / "rows.csv"
    frame.iloc[:40].to_csv(path, index=False)
    read = pd.read_csv(path)
    assert read["c"].isna().any()
    ip.run(ip.Explainer(model, frame.iloc[100:130]), str(path), out=tmp_path / "run", n_jobs=1, progress=False)
    result = ip.load_run(tmp_path / "run")
    np.testing.assert_allclose(result.base_values + result.values.sum(axis=1), model.predict(read), atol=1e-8)


def test_hist_gradient_boosting_negative_numeric_categories_are_named_in_the_error():
    """scikit-learn >= 1.x fits -1 of a numeric categorical as a category of its own (not as missing); the tree
    methods cannot index it, and the error said only 'must be integers in [0, 65536)', not what came or what to
    do."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    rng = np.random.default_rng(0)
    n = 500
    c = rng.integers(-1, 4, n).astype(float)
    X = np.c_[c, rng.normal(size=n)]
    model = HistGradientBoostingRegressor(max_iter=10, categorical_features=[0]).fit(X, (c == -1) + X[:, 1])
    explainer = ip.Explainer(model, X[:20])
    with pytest.raises(ValueError, match=r"fitted on \[-1\.0\].*method='auto'"):
        explainer.shapley(X[:2], method="tree", progress=False)
    auto = explainer.shapley(X[:2], progress=False)  # falls back to a method that reads the model as it is
    np.testing.assert_allclose(auto.base_values + auto.values.sum(axis=1), model.predict(X[:2]), atol=1e-8)


def test_xgboost_background_with_a_category_the_model_was_not_fitted_with():
    """XGBoost refuses a categorical column whose categories include one it was not fitted with (even where no row
    holds it): a background from new data failed ('the model failed ...'). The column now gets the model's
    categories; a background value outside them is a missing value, with a warning naming it."""
    xgb = pytest.importorskip("xgboost")
    pytest.importorskip("pyarrow")
    frame, y = _frame()
    model = xgb.XGBRegressor(n_estimators=10, max_depth=3, enable_categorical=True).fit(frame, y)
    new = frame.copy()
    new["colour"] = new["colour"].cat.add_categories(["purple"])
    rows = new.iloc[:4]
    ip.Explainer(model, new.iloc[100:130])  # the category in the dtype only: no warning needed, no error
    new.loc[100, "colour"] = "purple"
    with pytest.warns(UserWarning, match=r"background: values outside the categories .*'colour': \['purple'\]"):
        explainer = ip.Explainer(model, new.iloc[100:130])
    tree = explainer.shapley(rows, method="tree", progress=False)
    exact = explainer.shapley(rows, method="exact", progress=False)
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-5)
    np.testing.assert_allclose(tree.base_values + tree.values.sum(axis=1),
                               model.predict(frame.iloc[:4], output_margin=True), atol=1e-5)


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_a_background_with_fewer_categories_than_the_model_explains_the_others_as_themselves(library):
    """A newcomer's background whose categories were set after sampling it (``sample(100).astype("category")``)
    holds only some of the model's categories. Its dtype was kept, so an explained row's value outside the
    sample (Adult's 'Cuba') reached the model as a missing value: its values added up to the model's output for
    a missing country, 1.87 against 0.11. The column now gets the model's categories."""
    lib = pytest.importorskip(library)
    pytest.importorskip("pyarrow")
    frame, y = _frame()
    if library == "xgboost":
        model = lib.XGBRegressor(n_estimators=10, max_depth=3, enable_categorical=True).fit(frame, y)
        predict = lambda rows: model.predict(rows, output_margin=True)  # noqa: E731
    else:
        model = lib.LGBMRegressor(n_estimators=10, max_depth=3, min_child_samples=5, verbose=-1).fit(frame, y)
        predict = model.predict
    background = frame[frame["colour"] != "red"].iloc[:30].copy()
    background["colour"] = background["colour"].astype(str).replace("nan", np.nan).astype("category")
    assert "red" not in background["colour"].cat.categories  # blue and green only
    rows = frame[frame["colour"] == "red"].iloc[:3]
    explainer = ip.Explainer(model, background)
    for method in ("tree", "exact"):
        values = explainer.shapley(rows, method=method, progress=False)
        np.testing.assert_allclose(values.base_values + values.values.sum(axis=1), predict(rows), atol=1e-5)
    np.testing.assert_allclose(values.base_values, predict(frame.loc[background.index]).mean(), atol=1e-5)


def test_tree_codes_of_an_unknown_category_raise_no_pandas_deprecation():
    """The tree methods coded a value outside the model's categories with pd.Categorical(values, categories=...),
    which pandas deprecates (a Pandas4Warning on every explanation now, an error in a later pandas)."""
    import warnings

    from sklearn.ensemble import HistGradientBoostingRegressor

    frame, y = _frame()
    model = HistGradientBoostingRegressor(max_iter=10, categorical_features="from_dtype").fit(frame, y)
    rows = frame.iloc[:3].copy()
    rows["colour"] = rows["colour"].cat.add_categories(["purple"])
    rows.loc[rows.index[0], "colour"] = "purple"
    explainer = ip.Explainer(model, frame.iloc[100:130].astype({"colour": rows["colour"].dtype}))  # 'purple' known
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tree = explainer.shapley(rows, method="tree", progress=False)
    others = [str(w.message) for w in caught if "outside their column's categories" not in str(w.message)]
    assert not others
    exact = explainer.shapley(rows, method="exact", progress=False)
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-10)


def test_a_csv_text_value_outside_a_booster_categories_is_warned_by_name(tmp_path):
    """A CSV-read background's text value the booster was not fitted with became a missing value without a word
    (but a pandas deprecation warning, an error in a later pandas)."""
    import warnings

    xgb = pytest.importorskip("xgboost")
    pytest.importorskip("pyarrow")
    frame, y = _frame()
    model = xgb.XGBRegressor(n_estimators=10, max_depth=3, enable_categorical=True).fit(frame, y)
    path = tmp_path / "rows.csv"
    frame.iloc[100:130].astype({"colour": object}).replace({"colour": {"red": "purple"}}).to_csv(path, index=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        explainer = ip.Explainer(model, pd.read_csv(path))
    messages = [str(w.message) for w in caught]
    assert any("background: values outside the categories" in m and "purple" in m for m in messages), messages
    assert not [m for m in messages if "deprecated" in m]
    assert explainer.shapley(frame.iloc[:2], method="tree", progress=False).values.shape == (2, 2)


def test_a_baseline_category_the_model_does_not_know_is_warned():
    """removal='baseline' with a reference vector naming a category outside the column's categories: the
    reference reached the model as a missing value without a word (explained rows are warned of the same)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    frame, y = _frame()
    model = HistGradientBoostingRegressor(max_iter=10, categorical_features="from_dtype").fit(frame, y)
    with pytest.warns(UserWarning, match=r"baseline: values outside their column's categories .*'colour': \['purple'\]"):
        ip.Explainer(model, frame.iloc[100:130], removal="baseline", baseline={"colour": "purple", "size": 0.0})


def test_xgboost_codes_outside_the_listed_categories_go_where_xgboost_sends_them():
    """An XGBoost model fitted on category codes (feature_types 'c' on an array): XGBoost sends every code a split
    does not list left, a negative or unseen one too, and only a missing value its default way. The trees sent an
    unseen code below 32 right and a negative or larger one the missing way: method='tree' explained another
    prediction than the model's, silently (the check on background rows holding known codes passed)."""
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    n = 2000
    c = rng.integers(0, 6, n).astype(float)
    c[rng.random(n) < 0.2] = np.nan
    z = rng.normal(size=n)
    X = np.c_[c, z]
    y = np.where(c == 2, 3.0, 0.0) + z  # missing values go with the listed categories (default right)
    booster = xgb.train({"max_depth": 2, "max_cat_to_onehot": 1},
                        xgb.DMatrix(X, label=y, feature_types=["c", "q"], enable_categorical=True), 10)
    rows = np.array([[2.0, 0.1], [3.0, 0.1], [6.0, 0.1], [9.0, 0.1], [31.0, 0.1], [40.0, 0.1], [-1.0, 0.1],
                     [np.nan, 0.1]])
    margin = booster.predict(xgb.DMatrix(rows, feature_types=["c", "q"], enable_categorical=True),
                             output_margin=True)
    explainer = ip.Explainer(booster, X[:30])
    tree = explainer.shapley(rows, method="tree", progress=False)
    np.testing.assert_allclose(tree.base_values + tree.values.sum(axis=1), margin, atol=1e-5)
    exact = explainer.shapley(rows, method="exact", progress=False)
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-5)


def test_an_array_background_for_a_booster_fitted_on_categories_is_refused_by_name():
    """``ip.Explainer(xgb_categorical_model, frame.to_numpy())`` failed at the first model call with XGBoost's own
    'enable_categorical' message (strings) or 'data type doesn't match' (codes): now an error at construction
    that says to pass DataFrames."""
    xgb = pytest.importorskip("xgboost")
    frame, y = _frame()
    model = xgb.XGBRegressor(n_estimators=5, max_depth=2, enable_categorical=True).fit(frame, y)
    codes = frame.assign(colour=frame["colour"].cat.codes.astype(float)).to_numpy()
    for background in (frame.to_numpy()[:20], codes[:20]):
        with pytest.raises(TypeError, match=r"background: the model splits on categorical columns \['colour'\].*"
                                            r"as a DataFrame.*got ndarray"):
            ip.Explainer(model, background)
    numeric = xgb.XGBRegressor(n_estimators=5, max_depth=2).fit(frame.assign(colour=codes[:, 0]), y)
    values = ip.Explainer(numeric, codes[:20]).shapley(codes[:1], progress=False)  # no categories: arrays are fine
    np.testing.assert_allclose(values.base_values + values.values.sum(axis=1),
                               numeric.predict(frame.assign(colour=codes[:, 0]).iloc[:1]), atol=1e-5)
