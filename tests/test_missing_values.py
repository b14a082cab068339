"""Missing values (NaN; NaN/None/pd.NA in raw columns) in X, x, the background and the baseline: accepted when the
model takes them (its outputs on the rows holding them are finite), refused with an error naming the parameter
when it does not; summaries of the background leave them out; conditional removal refuses them; the exact tree
algorithms follow the library's missing-value direction (tree == exact, efficiency against the model, and
XGBoost's own contributions)."""

import numpy as np
import pytest

import interplay as ip

sk_ensemble = pytest.importorskip("sklearn.ensemble")
pd = pytest.importorskip("pandas")

D = 6
RNG = np.random.default_rng(11)
X = RNG.normal(size=(300, D))
Y = X[:, 0] + X[:, 1] * X[:, 2] + (X[:, 3] > 0) - 0.5 * X[:, 4]
XN = X.copy()
XN[RNG.random(X.shape) < 0.2] = np.nan  # missing values everywhere
XN[5, :] = np.nan  # and a row with nothing present
Y2 = (np.nan_to_num(XN[:, 0]) + np.isnan(XN[:, 1]) - np.nan_to_num(XN[:, 2]) > 0.3).astype(int)
BACKGROUND, ROWS = XN[:16], XN[:8]  # both hold missing values
W = np.arange(1.0, D + 1)


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    """The libraries' thread pools fight over a shared machine; one thread is faster and reproducible."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(1):
        yield


@pytest.fixture(scope="module")
def hgb_regressor():
    return sk_ensemble.HistGradientBoostingRegressor(max_iter=15, random_state=0).fit(XN, Y)


@pytest.fixture(scope="module")
def hgb_classifier():
    return sk_ensemble.HistGradientBoostingClassifier(max_iter=15, random_state=0).fit(XN, Y2)


def _efficiency(result, outputs, atol):
    np.testing.assert_allclose(result.values.sum(axis=1) + result.base_values, outputs, atol=atol)


@pytest.mark.parametrize("removal", ["marginal", "baseline"])
def test_histgradientboosting_regressor_takes_missing_values(hgb_regressor, removal):
    explainer = ip.Explainer(hgb_regressor, BACKGROUND, removal=removal)
    exact = explainer.shapley(ROWS, method="exact")
    tree = explainer.shapley(ROWS, method="tree")
    assert np.isnan(exact.data).any() and np.isfinite(exact.values).all()
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-10)
    _efficiency(exact, hgb_regressor.predict(ROWS), 1e-10)
    _efficiency(tree, hgb_regressor.predict(ROWS), 1e-10)
    assert explainer.shapley(ROWS).method == "tree"  # method="auto" keeps the exact tree algorithm
    single = explainer.shapley(ROWS[5], method="permutation", budget=40, random_state=0)  # a row of NaN only
    _efficiency(single, hgb_regressor.predict(ROWS[5:6]), 1e-10)


@pytest.mark.parametrize("removal", ["marginal", "baseline"])
def test_histgradientboosting_classifier_takes_missing_values(hgb_classifier, removal):
    explainer = ip.Explainer(hgb_classifier, BACKGROUND, removal=removal)
    assert explainer.output == "log-odds"
    exact = explainer.shapley(ROWS, method="exact")
    tree = explainer.shapley(ROWS, method="tree")
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-10)
    _efficiency(exact, hgb_classifier.decision_function(ROWS), 1e-10)
    probability = ip.Explainer(hgb_classifier, BACKGROUND, removal=removal, output="probability")
    _efficiency(probability.shapley(ROWS, method="exact"), hgb_classifier.predict_proba(ROWS)[:, 1], 1e-10)


def test_tree_interactions_and_bivariate_with_missing_values(hgb_regressor):
    explainer = ip.Explainer(hgb_regressor, BACKGROUND)
    x = ROWS[1]
    assert np.isnan(x).any()
    tree = explainer.interactions(x, method="tree")
    exact = explainer.interactions(x, method="exact")
    np.testing.assert_allclose([tree.values[k] for k in sorted(tree.values)],
                               [exact.values[k] for k in sorted(tree.values)], atol=1e-10)
    graph = explainer.bivariate(x, method="tree")
    assert np.isfinite(graph.adjacency).all()


def test_pipeline_on_raw_text_column_with_missing_values():
    """A Pipeline (OneHotEncoder on a text column holding None/pd.NA, NaN in a numeric column) explained on its raw
    columns: the tree path (read through the encoder) equals exact enumeration and adds up to the model."""
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    n = 200
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"age": rng.normal(40, 10, n), "city": rng.choice(["a", "b", "c"], n).astype(object),
                          "income": rng.normal(size=n)})
    frame.loc[rng.random(n) < 0.2, "age"] = np.nan
    frame.loc[rng.random(n) < 0.2, "city"] = None
    target = ((frame["age"].fillna(30) > 40) ^ (frame["city"] == "a")).astype(int)
    encode = make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["city"]), remainder="passthrough")
    pipe = make_pipeline(encode, sk_ensemble.HistGradientBoostingClassifier(max_iter=10, random_state=0))
    pipe.fit(frame, target)
    rows = frame.iloc[30:36].copy()
    rows.loc[rows.index[0], ["age", "city"]] = [np.nan, pd.NA]
    explainer = ip.Explainer(pipe, frame.iloc[:24])
    assert explainer.raw
    exact = explainer.shapley(rows, method="exact")
    tree = explainer.shapley(rows, method="tree")
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-10)
    _efficiency(exact, pipe.decision_function(rows), 1e-10)


def test_histgradientboosting_on_a_categorical_column_with_missing_values():
    n = 200
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"age": rng.normal(40, 10, n), "city": pd.Categorical(rng.choice(["a", "b", "c"], n))})
    frame.loc[rng.random(n) < 0.2, "age"] = np.nan
    frame.loc[rng.random(n) < 0.2, "city"] = None
    target = ((frame["age"].fillna(30) > 40) ^ (frame["city"] == "a")).astype(int)
    model = sk_ensemble.HistGradientBoostingClassifier(max_iter=8, categorical_features="from_dtype", random_state=0)
    model.fit(frame, target)
    rows = frame.iloc[20:26]
    explainer = ip.Explainer(model, frame.iloc[:12])
    exact = explainer.shapley(rows, method="exact")
    _efficiency(exact, model.decision_function(rows), 1e-10)
    np.testing.assert_allclose(explainer.shapley(rows, method="tree").values, exact.values, atol=1e-10)


xgb = pytest.importorskip("xgboost")


@pytest.fixture(scope="module")
def xgb_regressor():
    return xgb.XGBRegressor(n_estimators=15, max_depth=3, random_state=0, n_jobs=1).fit(XN, Y)


@pytest.mark.parametrize("removal", ["marginal", "baseline"])
def test_xgboost_follows_its_missing_value_direction(xgb_regressor, removal):
    explainer = ip.Explainer(xgb_regressor, BACKGROUND, removal=removal)
    exact = explainer.shapley(ROWS, method="exact")
    tree = explainer.shapley(ROWS, method="tree")
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-5)  # XGBoost adds its trees in float32
    _efficiency(exact, xgb_regressor.predict(ROWS), 1e-5)
    _efficiency(tree, xgb_regressor.predict(ROWS), 1e-5)


def test_xgboost_path_dependent_equals_its_own_contributions(xgb_regressor):
    explainer = ip.Explainer(xgb_regressor, BACKGROUND)
    ours = explainer.shapley(ROWS, method="tree", tree_path_dependent=True)
    contributions = xgb_regressor.get_booster().predict(xgb.DMatrix(ROWS, missing=np.nan), pred_contribs=True)
    np.testing.assert_allclose(ours.values, contributions[:, :-1], atol=1e-5)
    np.testing.assert_allclose(ours.base_values, contributions[:, -1], atol=1e-5)


def test_raw_categorical_column_with_missing_values_and_xgboost():
    n = 240
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"age": rng.normal(40, 10, n), "city": pd.Categorical(rng.choice(["a", "b", "c"], n)),
                          "income": pd.array(rng.normal(size=n), dtype="Float64")})
    frame.loc[rng.random(n) < 0.2, "age"] = np.nan
    frame.loc[rng.random(n) < 0.2, "city"] = None
    frame.loc[rng.random(n) < 0.2, "income"] = pd.NA
    target = ((frame["age"].fillna(30) > 40) ^ (frame["city"] == "a")).astype(int)
    model = xgb.XGBClassifier(n_estimators=12, max_depth=3, enable_categorical=True, random_state=0, n_jobs=1)
    model.fit(frame, target)
    rows = frame.iloc[30:38]
    assert rows.isna().any().all()
    margin = model.predict(rows, output_margin=True)
    for removal in ("marginal", "baseline"):
        explainer = ip.Explainer(model, frame.iloc[:30], removal=removal)
        assert explainer.raw
        exact = explainer.shapley(rows, method="exact")
        tree = explainer.shapley(rows, method="tree")
        np.testing.assert_allclose(tree.values, exact.values, atol=1e-5)
        _efficiency(exact, margin, 1e-9)
        _efficiency(tree, margin, 1e-5)
    with pytest.warns(UserWarning, match=r"\['age', 'income'\] have no repeated value"):  # named, not by position
        reference = ip.Explainer(model, frame.iloc[:30], removal="baseline", baseline="mode").reference
    assert reference[1] in ("a", "b", "c")  # the mode of the present categories


# ------------------------------------------------------------------------------------------------ refusals
def _propagating(rows):
    return rows @ W  # NaN in, NaN out


@pytest.mark.parametrize("where", ["X", "x", "background"])
def test_a_model_that_propagates_nan_is_refused_naming_the_parameter(where):
    clean = np.nan_to_num(XN)
    background = BACKGROUND if where == "background" else clean[:16]
    pattern = rf"^{where}: missing values in columns \[.*'x\d'.*\] and the model returned NaN or inf on those rows; " \
              r"impute them first \(or use a model that handles missing values\)"
    with pytest.raises(ValueError, match=pattern):
        explainer = ip.Explainer(_propagating, background)
        if where == "X":
            explainer.shapley(ROWS, method="exact")
        elif where == "x":
            explainer.game(ROWS[1])


def test_a_model_that_raises_on_nan_is_refused_on_every_path():
    forest = sk_ensemble.GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, Y)  # takes no NaN
    with pytest.raises(ValueError, match=r"^background: missing values .* the model failed on those rows "
                                         r"\(ValueError: Input X contains NaN"):
        ip.Explainer(forest, BACKGROUND)
    explainer = ip.Explainer(forest, X[:16])
    for method in ("tree", "auto", "permutation"):  # the trees would give numbers the model cannot give
        with pytest.raises(ValueError, match=r"^X: missing values .* the model failed on those rows"):
            explainer.shapley(ROWS, method=method)
    with pytest.raises(ValueError, match=r"^x: missing values .* the model failed"):
        explainer.interactions(ROWS[1], method="tree")
    assert np.isfinite(explainer.shapley(X[:2], method="tree").values).all()  # complete rows as before


def test_baseline_removal_summarises_a_background_with_missing_values_for_any_model():
    """Under baseline removal the model never sees the background rows, only the reference: a model that takes
    no NaN is explained from a background with NaN (the reference is of the present values)."""
    explainer = ip.Explainer(_propagating, BACKGROUND, removal="baseline")
    np.testing.assert_allclose(explainer.reference, np.nanmean(BACKGROUND, axis=0), rtol=1e-15)
    clean = np.nan_to_num(ROWS)
    result = explainer.shapley(clean, method="exact")
    np.testing.assert_allclose(result.values, (clean - explainer.reference) * W, atol=1e-12)
    with pytest.raises(ValueError, match=r"^X: missing values .* the model returned NaN"):
        explainer.shapley(ROWS, method="exact")


def test_baseline_vector_with_nan_is_checked_against_the_model(hgb_regressor):
    vector = np.nanmean(BACKGROUND, axis=0)
    vector[2] = np.nan
    explainer = ip.Explainer(hgb_regressor, removal="baseline", baseline=vector)
    result = explainer.shapley(ROWS, method="exact")
    _efficiency(result, hgb_regressor.predict(ROWS), 1e-10)
    np.testing.assert_allclose(result.base_values, hgb_regressor.predict(vector[None, :])[0], atol=1e-12)
    with pytest.raises(ValueError, match=r"^baseline: missing values in columns \['x2'\] and the model returned NaN"):
        ip.Explainer(_propagating, removal="baseline", baseline=vector)
    with pytest.raises(ValueError, match="^baseline: contains inf"):
        ip.Explainer(hgb_regressor, removal="baseline", baseline=np.where(np.isnan(vector), np.inf, vector))


def test_conditional_removal_refuses_missing_values(hgb_regressor):
    with pytest.raises(ValueError, match=r"^background: missing values in columns .*removal='marginal'"):
        ip.Explainer(hgb_regressor, BACKGROUND, removal="conditional")
    explainer = ip.Explainer(hgb_regressor, X[:16], removal="conditional")
    with pytest.raises(ValueError, match=r"^X: missing values in columns .*removal='conditional'.*removal='marginal'"):
        explainer.shapley(ROWS, method="permutation", budget=20)
    with pytest.raises(ValueError, match=r"^x: missing values in columns .*removal='marginal'"):
        explainer.game(ROWS[1])
    from interplay.removal import conditional_value_function
    with pytest.raises(ValueError, match=r"^background: missing values"):
        conditional_value_function(hgb_regressor.predict, X[0], BACKGROUND)


@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_inf_is_still_refused(hgb_regressor, bad):
    rows = ROWS.copy()
    rows[0, 3] = bad
    with pytest.raises(ValueError, match=r"^X: contains inf in column\(s\) \[3\]"):
        ip.Explainer(hgb_regressor, BACKGROUND).shapley(rows, method="exact")
    with pytest.raises(ValueError, match=r"^background: contains inf"):
        ip.Explainer(hgb_regressor, rows)


def test_complex_is_still_refused(hgb_regressor):
    rows = ROWS.astype(complex)
    rows[0, 1] += 1j
    with pytest.raises(TypeError, match=r"^X: complex values"):
        ip.Explainer(hgb_regressor, BACKGROUND).shapley(rows)


# -------------------------------------------------------------------------------------- background summaries
def test_baseline_summaries_leave_missing_values_out(hgb_regressor):
    background = BACKGROUND.copy()
    background[:, 4] = np.nan  # a column with no present value
    mean = ip.Explainer(hgb_regressor, background, removal="baseline").reference
    median = ip.Explainer(hgb_regressor, background, removal="baseline", baseline="median").reference
    with pytest.warns(UserWarning, match="mode"):  # continuous columns: the mode is arbitrary (as before)
        mode = ip.Explainer(hgb_regressor, background, removal="baseline", baseline="mode").reference
    present = [j for j in range(D) if j != 4]
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(mean[present], np.nanmean(background[:, present], axis=0), rtol=1e-15)
        np.testing.assert_allclose(median[present], np.nanmedian(background[:, present], axis=0), rtol=1e-15)
    np.testing.assert_allclose(mode[present], np.nanmin(background[:, present], axis=0))  # no repeats: the smallest
    assert np.isnan(mean[4]) and np.isnan(median[4]) and np.isnan(mode[4])


def test_mode_of_a_column_with_missing_values_is_a_present_value():
    from interplay.removal import reference_vector

    background = np.array([[np.nan, 1.0], [np.nan, 1.0], [np.nan, np.nan], [3.0, np.nan], [3.0, 0.0]])
    np.testing.assert_array_equal(reference_vector("mode", background, 2), [3.0, 1.0])  # NaN is not a mode
    table = np.array([[None, "a"], [None, "b"], [np.nan, "b"], ["x", None]], dtype=object)
    assert list(reference_vector("mode", table, 2)) == ["x", "b"]
    joint = np.array([["x", "a"], ["y", None], ["y", None], ["y", None], ["x", "a"]], dtype=object)
    assert list(reference_vector("mode", joint, 2)) == ["y", "a"]
    assert list(reference_vector("mode", joint, 2, groups=[[0, 1]])) == ["x", "a"]  # over the complete rows
    empty = np.array([[None, "a"], [np.nan, "a"]], dtype=object)
    mode = reference_vector("mode", empty, 2)
    assert np.isnan(mode[0]) and mode[1] == "a"


def test_a_batch_run_explains_rows_with_missing_values(tmp_path):
    """ip.run reads rows with NaN too (it refused them), and gives what the Explainer gives; a model that
    propagates NaN still gets an error."""
    model = sk_ensemble.HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(XN, Y)
    explainer = ip.Explainer(model, XN[:16])
    ip.run(explainer, XN[:12], method="permutation", budget=60, out=tmp_path / "hgb", n_jobs=1, random_state=0)
    run = ip.load_run(tmp_path / "hgb")
    direct = explainer.shapley(XN[:12], method="permutation", budget=60, random_state=0)
    np.testing.assert_allclose(run.values, direct.values, atol=1e-12)
    np.testing.assert_array_equal(np.isnan(run.data), np.isnan(XN[:12]))
    w = np.arange(1.0, X.shape[1] + 1)
    with pytest.raises(ValueError, match="NaN"):
        ip.run(ip.Explainer(lambda rows: rows @ w, X[:16]), XN[:12], out=tmp_path / "linear", n_jobs=1)


def test_a_runs_text_columns_keep_missing_values_missing():
    """A raw column's NaN or pd.NA was stored as the text 'nan' / '<NA>' (a category when read back)."""
    from interplay.runs._table import _raw_array

    column = np.array(["a", np.nan, None, pd.NA, "b"], dtype=object)
    assert _raw_array(column).to_pylist() == ["a", None, None, None, "b"]
    assert _raw_array(np.array([1, np.nan, 2], dtype=object)).to_pylist() == [1, None, 2]


def test_cross_contribution_with_an_all_missing_background_column_stays_finite():
    """A torch model that takes missing values, a background column missing in every row: the mean reference has
    no value there, so SHEAR's |x - r| factor is left out for it (with a warning), not NaN for its whole row and
    column (np.nanmean gave NaN, and SHEAR's cooperators were chosen among NaNs)."""
    torch = pytest.importorskip("torch")

    class FillMissing(torch.nn.Module):
        def forward(self, z):
            return torch.nan_to_num(z, nan=0.0)

    torch.manual_seed(0)
    net = torch.nn.Sequential(FillMissing(), torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
    background = np.random.default_rng(0).normal(size=(10, 3))
    background[:, 1] = np.nan
    x = np.array([0.5, -1.0, 2.0])
    ex = ip.Explainer(net, background)
    with pytest.warns(UserWarning, match=r"columns \['x1'\] are missing in x or in every background row"):
        scaled = ex.cross_contribution(x)
    unscaled = ex.cross_contribution(x, scaled=False)
    assert np.isfinite(scaled).all()
    mean = np.nanmean(background, axis=0)
    factor = np.abs(x - mean)
    factor[1] = 1.0
    np.testing.assert_allclose(scaled, factor[:, None] * unscaled * factor[None, :], rtol=1e-12)
