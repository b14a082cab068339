"""Tree ensembles: parsing equals the libraries' outputs, and method="tree" (interventional TreeSHAP) equals the
core's exact enumeration of the marginal game, for every supported family, with missing values and categories."""

import numpy as np
import pytest

import interplay as ip
from interplay.estimators import exact
from interplay.removal import marginal_value_function
from interplay.trees import as_ensemble, interventional_shapley

sk_ensemble = pytest.importorskip("sklearn.ensemble")
sk_tree = pytest.importorskip("sklearn.tree")

D = 5
RNG = np.random.default_rng(7)
X = RNG.normal(size=(240, D))
Y = X[:, 0] + X[:, 1] * X[:, 2] + (X[:, 3] > 0) - 0.5 * X[:, 4]
Y2 = (Y > 0.4).astype(int)
Y3 = np.digitize(Y, [0.0, 1.2])
XN = X.copy()
XN[RNG.random(X.shape) < 0.15] = np.nan  # missing values everywhere
XC = X.copy()
XC[:, 4] = RNG.integers(0, 7, len(X))  # a categorical column (codes 0..6)
YC = Y + np.isin(XC[:, 4], [1, 4, 5]) * 1.5
XCN = XC.copy()
XCN[::6, 4] = np.nan
XCN[::5, 0] = np.nan


@pytest.fixture(autouse=True)
def _one_thread():
    """The libraries' thread pools fight over a shared machine; one thread is faster and reproducible."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    with threadpoolctl.threadpool_limits(1):
        yield


def _core_shapley(fn, x, background):
    """The core's exact Shapley values and coalition values of the marginal game of ``fn`` (rows -> outputs).

    ``Explainer`` refuses NaN in the background, so the core's marginal value function is used directly."""
    game = ip.Game(marginal_value_function(fn, x, background), D)
    values = exact.evaluate_all(game)
    return ip.shapley(game, method="exact").values, values


def _check_against_core(ensemble, fn, data, *, column=0, sign=1.0, rows=(0, 3, 11), n_background=12):
    background = data[-n_background:]
    phi, base = interventional_shapley(ensemble, data[list(rows)], background, column=column, sign=sign)
    for k, r in enumerate(rows):
        shapley, values = _core_shapley(lambda Z: sign * fn(Z), data[r], background)
        np.testing.assert_allclose(phi[k], shapley, atol=2e-5)
        assert base[k] == pytest.approx(values[0], abs=2e-5)
        assert base[k] + phi[k].sum() == pytest.approx(values[-1], abs=2e-5)  # efficiency


SKLEARN = [
    ("DecisionTreeRegressor", lambda: sk_tree.DecisionTreeRegressor(max_depth=5, random_state=0), XN, Y, "predict"),
    ("DecisionTreeClassifier", lambda: sk_tree.DecisionTreeClassifier(max_depth=4, random_state=0), XN, Y3, "proba"),
    ("RandomForestRegressor", lambda: sk_ensemble.RandomForestRegressor(8, max_depth=4, random_state=0), XN, Y,
     "predict"),
    ("RandomForestClassifier", lambda: sk_ensemble.RandomForestClassifier(8, max_depth=4, random_state=0), X, Y3,
     "proba"),
    ("ExtraTreesRegressor", lambda: sk_ensemble.ExtraTreesRegressor(6, max_depth=5, random_state=0), X, Y, "predict"),
    ("GradientBoostingRegressor", lambda: sk_ensemble.GradientBoostingRegressor(n_estimators=10, random_state=0),
     X, Y, "predict"),
    ("GradientBoostingClassifier", lambda: sk_ensemble.GradientBoostingClassifier(n_estimators=8, random_state=0),
     X, Y3, "decision_function"),
    ("HistGradientBoostingRegressor", lambda: sk_ensemble.HistGradientBoostingRegressor(max_iter=10), XN, Y,
     "raw"),
    ("HistGradientBoostingClassifier", lambda: sk_ensemble.HistGradientBoostingClassifier(max_iter=8), XN, Y3,
     "raw"),
]


@pytest.mark.parametrize("name,make,data,target,how", SKLEARN, ids=[s[0] for s in SKLEARN])
def test_sklearn_families_match_core_exact(name, make, data, target, how):
    model = make().fit(data, target)
    ensemble = as_ensemble(model)
    fns = {"predict": model.predict, "proba": getattr(model, "predict_proba", None),
           "decision_function": getattr(model, "decision_function", None),
           "raw": getattr(model, "_raw_predict", None)}
    outputs = np.asarray(fns[how](data), float).reshape(len(data), -1)
    np.testing.assert_allclose(ensemble.predict(data), outputs, atol=1e-10)
    column = outputs.shape[1] - 1  # the last class / the only output
    _check_against_core(ensemble, lambda Z: np.asarray(fns[how](Z), float).reshape(len(Z), -1)[:, column],
                        data, column=column)


def test_hist_gradient_boosting_categorical_with_missing():
    model = sk_ensemble.HistGradientBoostingRegressor(max_iter=10, categorical_features=[4]).fit(XCN, YC)
    ensemble = as_ensemble(model)
    assert (ensemble.decision == 3).any()
    np.testing.assert_allclose(ensemble.predict(XCN)[:, 0], model._raw_predict(XCN)[:, 0], atol=1e-10)
    odd = XCN.copy()
    odd[:, 4] = [-1.0, 2.5, 9.0, 3.0] * (len(odd) // 4)  # negative, non-integer, unseen, known categories
    np.testing.assert_allclose(ensemble.predict(odd)[:, 0], model._raw_predict(odd)[:, 0], atol=1e-10)
    _check_against_core(ensemble, lambda Z: model._raw_predict(Z)[:, 0], XCN, rows=(0, 5, 6))


xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")


@pytest.mark.parametrize("kind", ["regressor", "binary", "multiclass"])
def test_xgboost_matches_core_exact_with_missing(kind):
    model, target = {"regressor": (xgb.XGBRegressor, Y), "binary": (xgb.XGBClassifier, Y2),
                     "multiclass": (xgb.XGBClassifier, Y3)}[kind]
    model = model(n_estimators=12, max_depth=3, random_state=0, n_jobs=1).fit(XN, target)
    ensemble = as_ensemble(model)
    margin = lambda Z: np.asarray(model.predict(Z, output_margin=True), float).reshape(len(Z), -1)  # noqa: E731
    np.testing.assert_allclose(ensemble.predict(XN), margin(XN), atol=1e-5)
    column = 2 if kind == "multiclass" else 0
    _check_against_core(ensemble, lambda Z: margin(Z)[:, column], XN, column=column)
    if kind == "binary":  # class 0 is explained by minus the margin
        _check_against_core(ensemble, lambda Z: margin(Z)[:, 0], XN, sign=-1.0, rows=(2,))


@pytest.mark.parametrize("kind", ["regressor", "binary", "multiclass"])
def test_lightgbm_matches_core_exact_with_missing(kind):
    model, target = {"regressor": (lgb.LGBMRegressor, Y), "binary": (lgb.LGBMClassifier, Y2),
                     "multiclass": (lgb.LGBMClassifier, Y3)}[kind]
    model = model(n_estimators=10, num_leaves=8, min_child_samples=5, verbose=-1, n_jobs=1).fit(XN, target)
    ensemble = as_ensemble(model)
    margin = lambda Z: np.asarray(model.predict(Z, raw_score=True), float).reshape(len(Z), -1)  # noqa: E731
    np.testing.assert_allclose(ensemble.predict(XN), margin(XN), atol=1e-10)
    column = 1 if kind == "multiclass" else 0
    _check_against_core(ensemble, lambda Z: margin(Z)[:, column], XN, column=column)


def test_lightgbm_categorical_splits_and_booster():
    model = lgb.LGBMRegressor(n_estimators=10, num_leaves=8, min_child_samples=5, verbose=-1, n_jobs=1)
    model.fit(XC, YC, categorical_feature=[4])
    ensemble = as_ensemble(model.booster_)  # the native Booster too
    assert (ensemble.decision == 2).any()
    margin = lambda Z: model.predict(Z, raw_score=True)  # noqa: E731
    np.testing.assert_allclose(ensemble.predict(XCN)[:, 0], margin(XCN), atol=1e-10)
    odd = XCN.copy()
    odd[:, 4] = [-1.0, 2.5, 9.0, 3.0] * (len(odd) // 4)  # negative, non-integer, unseen, known categories
    np.testing.assert_allclose(ensemble.predict(odd)[:, 0], margin(odd), atol=1e-10)
    _check_against_core(ensemble, margin, XCN, rows=(0, 5, 6, 7))


def test_explainer_method_tree_equals_method_exact():
    model = xgb.XGBClassifier(n_estimators=10, max_depth=3, random_state=0, n_jobs=1).fit(X, Y2)
    explainer = ip.Explainer(model, X[:10], output="log-odds")  # binary booster: margin = log-odds
    tree = explainer.shapley(X[20:24], method="tree")
    ref = explainer.shapley(X[20:24], method="exact")
    np.testing.assert_allclose(tree.values, ref.values, atol=1e-5)
    np.testing.assert_allclose(tree.base_values, ref.base_values, atol=1e-5)
    assert tree.method == "tree" and tree.info["tree"] == "interventional" and (tree.n_evaluations == 0).all()
    forest = sk_ensemble.RandomForestClassifier(6, max_depth=4, random_state=0).fit(X, Y3)
    explainer = ip.Explainer(forest, X[:10], target=2)
    np.testing.assert_allclose(explainer.banzhaf(X[30:32], method="tree").values,
                               explainer.banzhaf(X[30:32], method="exact").values, atol=1e-12)
    # baseline removal = one background row (the reference)
    explainer = ip.Explainer(forest, X[:10], removal="baseline", baseline="median", target=0)
    np.testing.assert_allclose(explainer.shapley(X[30:32], method="tree").values,
                               explainer.shapley(X[30:32], method="exact").values, atol=1e-12)


def test_target_predicted_is_each_rows_predicted_class():
    model = lgb.LGBMClassifier(n_estimators=8, num_leaves=8, verbose=-1, n_jobs=1).fit(X, Y3)
    rows = X[40:60]
    result = ip.Explainer(model, X[:10], target="predicted").shapley(rows, method="tree")
    predicted = np.argmax(model.predict_proba(rows), axis=1)
    assert len(set(predicted.tolist())) > 1
    expected, base = interventional_shapley(as_ensemble(model), rows, X[:10], column=predicted)
    np.testing.assert_allclose(result.values, expected, atol=1e-12)
    margins = model.predict(rows, raw_score=True)[np.arange(len(rows)), predicted]
    np.testing.assert_allclose(result.base_values + result.values.sum(axis=1), margins, atol=1e-9)
    binary = xgb.XGBClassifier(n_estimators=6, max_depth=3, n_jobs=1).fit(X, Y2)
    result = ip.Explainer(binary, X[:10], target="predicted").shapley(rows, method="tree")  # class 0: -margin
    predicted = binary.predict(rows)
    margin = binary.predict(rows, output_margin=True)
    np.testing.assert_allclose(result.base_values + result.values.sum(axis=1),
                               np.where(predicted == 1, margin, -margin), atol=1e-5)
    assert result.info["target"] == "predicted" and result.info["targets"] == predicted.tolist()
    default = ip.Explainer(binary, X[:10]).shapley(rows)  # default: the positive class's log-odds, by tree
    assert default.method == "tree" and default.info["target"] == 1 and default.info["output"] == "log-odds"
    np.testing.assert_allclose(default.base_values + default.values.sum(axis=1), margin, atol=1e-5)
    per_class = ip.Explainer(model, X[:10]).shapley(rows)  # multi-class default: every class, raw scores
    assert sorted(per_class) == [0, 1, 2] and per_class[2].info["output"] == "margin"
    np.testing.assert_allclose(per_class[2].base_values + per_class[2].values.sum(axis=1),
                               model.predict(rows, raw_score=True)[:, 2], atol=1e-9)


def test_several_targets_give_one_result_each():
    forest = sk_ensemble.RandomForestClassifier(5, max_depth=4, random_state=0).fit(X, Y3)
    explainer = ip.Explainer(forest, X[:10], target="all")
    results = explainer.shapley(X[50:53], method="tree")
    assert sorted(results) == [0, 1, 2]
    for label, result in results.items():
        expected, _ = interventional_shapley(as_ensemble(forest), X[50:53], X[:10], column=label)
        np.testing.assert_allclose(result.values, expected, atol=1e-12)
    graphs = ip.Explainer(forest, X[:10], target=[2, 0]).bivariate(X[50], method="tree")
    assert list(graphs) == [2, 0]


def test_method_tree_accepts_missing_rows_and_rejects_what_it_cannot_do():
    model = sk_ensemble.HistGradientBoostingRegressor(max_iter=5).fit(XN, Y)
    explainer = ip.Explainer(model, X[:8])
    result = explainer.shapley(XN[:5], method="tree")
    assert np.isfinite(result.values).all() and np.isnan(result.data).any()
    with pytest.raises(ValueError, match="conditional"):
        ip.Explainer(model, X[:8], removal="conditional").shapley(X[:2], method="tree")
    forest = sk_ensemble.RandomForestClassifier(3, max_depth=3, random_state=0).fit(X, Y2)
    with pytest.raises(ValueError, match="log-odds"):
        ip.Explainer(forest, X[:8], output="log-odds").shapley(X[:2], method="tree")
    with pytest.raises(ValueError, match="sii"):
        ip.Explainer(forest, X[:8]).interactions(X[0], index="stii", method="tree")
    with pytest.raises(TypeError, match="model"):
        as_ensemble(lambda Z: Z[:, 0])


def test_tree_method_follows_dataframe_column_order():
    pd = pytest.importorskip("pandas")
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    model = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=0).fit(df, df.a * 3 + df.b)
    explainer = ip.Explainer(model, df.iloc[:10])
    shuffled = df.iloc[:2][["c", "b", "a"]]
    np.testing.assert_allclose(explainer.shapley(shuffled, method="tree").values,
                               explainer.shapley(shuffled).values, atol=1e-9)


def test_pipelines_are_explained_exactly_on_their_raw_columns(monkeypatch):
    from sklearn.decomposition import PCA
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import interplay.trees.explain as tree_explain

    pipe = make_pipeline(StandardScaler(), sk_ensemble.RandomForestRegressor(6, max_depth=4, random_state=0))
    pipe.fit(X, Y)
    explainer = ip.Explainer(pipe, X[:12])
    monkeypatch.setattr(tree_explain, "CHUNK", 3)  # several coded ensembles, one per batch of rows
    tree = explainer.shapley(X[30:37], method="tree")
    np.testing.assert_allclose(tree.values, explainer.shapley(X[30:37], method="exact").values, atol=1e-12)
    assert explainer.shapley(X[30:32]).method == "tree"  # auto
    mixing = make_pipeline(PCA(3), sk_ensemble.RandomForestRegressor(4, max_depth=3, random_state=0)).fit(X, Y)
    explainer = ip.Explainer(mixing, X[:12])
    with pytest.raises(ValueError, match="PCA"):  # a step that mixes columns: the trees' columns are not raw ones
        explainer.shapley(X[:2], method="tree")
    assert explainer.shapley(X[:2], budget=40, random_state=0).method != "tree"


def test_multi_class_boosters_explain_every_class_in_raw_scores_by_every_method():
    model = lgb.LGBMClassifier(n_estimators=6, num_leaves=6, verbose=-1, n_jobs=1).fit(X[:, :6], Y3)
    explainer = ip.Explainer(model, X[:8, :6])
    assert (explainer.output, explainer.target) == ("margin", "all")
    tree = explainer.shapley(X[40:42, :6])
    exact = explainer.shapley(X[40:42, :6], method="exact")
    for label in (0, 1, 2):
        assert tree[label].method == "tree" and tree[label].info["target"] == label
        np.testing.assert_allclose(tree[label].values, exact[label].values, atol=1e-9)
    with pytest.raises(ValueError, match="margin"):
        ip.Explainer(model, X[:8, :6], output="log-odds", target=1).shapley(X[:1, :6], method="tree")


def test_a_pipeline_feeding_xgboost_a_sparse_one_hot_matrix_reads_absent_entries_as_missing():
    pd = pytest.importorskip("pandas")
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    colours = np.array(["red", "green", "blue"])[np.digitize(X[:, 2], [-0.5, 0.5])]
    frame = pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "colour": colours})
    target = (Y + (frame["colour"] == "red") > 0.5).astype(int)
    pipe = make_pipeline(make_column_transformer((OneHotEncoder(), ["colour"]), remainder="passthrough"),
                         xgb.XGBClassifier(n_estimators=8, max_depth=3, n_jobs=1)).fit(frame, target)
    explainer = ip.Explainer(pipe, frame.iloc[:12])
    tree = explainer.shapley(frame.iloc[40:44])
    assert tree.method == "tree" and explainer.output == "log-odds"
    np.testing.assert_allclose(tree.values, explainer.shapley(frame.iloc[40:44], method="exact").values, atol=2e-6)


def test_xgboost_without_pyarrow(monkeypatch):
    """Reading stored categories needs pyarrow: a numeric model never asks; a categorical one says so."""
    xgb = pytest.importorskip("xgboost")
    pd = pytest.importorskip("pandas")

    def no_pyarrow(self, export_to_arrow=False):
        raise ImportError("`pyarrow` is required for exporting categories to arrow arrays.")

    monkeypatch.setattr(xgb.Booster, "get_categories", no_pyarrow)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 4))
    model = xgb.XGBRegressor(n_estimators=5, max_depth=2, n_jobs=1).fit(X, X[:, 0] * X[:, 1])
    ex = ip.Explainer(model, X[:10])
    np.testing.assert_allclose(ex.shapley(X[:2], method="tree").values, ex.shapley(X[:2], method="exact").values,
                               atol=1e-6)
    frame = pd.DataFrame({"a": X[:, 0], "c": pd.Categorical(rng.choice(["x", "y"], 200))})
    cat_model = xgb.XGBRegressor(n_estimators=5, max_depth=2, n_jobs=1, enable_categorical=True,
                                 tree_method="hist").fit(frame, X[:, 0])
    with pytest.raises(ImportError, match="pyarrow"):
        ip.Explainer(cat_model, frame.iloc[:10]).shapley(frame.iloc[:2], method="tree")


@pytest.mark.parametrize("classes", [0, 2, 3])
def test_xgboost_trees_read_all_at_once_equal_the_tree_by_tree_read(classes):
    """Numeric XGBoost models are read in one pass over all trees; the arrays equal the tree-by-tree reader's."""
    xgb = pytest.importorskip("xgboost")
    import json

    from interplay.trees import parsers

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    y = X[:, 0] + X[:, 1] * X[:, 2]
    model = (xgb.XGBRegressor(n_estimators=15, max_depth=4) if classes == 0 else
             xgb.XGBClassifier(n_estimators=10, max_depth=3)).fit(X, y if classes == 0 else
                                                                    np.digitize(y, np.linspace(-1, 1, classes - 1)))
    ensemble = parsers.from_xgboost(model)
    gbm = json.loads(bytes(model.get_booster().save_raw("json")))["learner"]["gradient_booster"]["model"]
    builder = parsers._Builder(ensemble.value.shape[1])
    for tree, group in zip(gbm["trees"], gbm["tree_info"]):
        parsers._xgb_tree(builder, tree, int(group) if classes > 2 else -1, {})
    reference = builder.build(6, base=ensemble.base)
    for field in ("feature", "threshold", "left", "right", "default_left", "value", "cover", "roots", "decision",
                  "tree_output"):
        np.testing.assert_array_equal(getattr(ensemble, field), getattr(reference, field), err_msg=field)
