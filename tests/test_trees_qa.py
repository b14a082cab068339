"""Regression tests for a QA pass on the tree path: XGBoost's missing-value sentinel and early stopping, the
note auto leaves under conditional removal, and the multi-class booster's refusal text."""

import numpy as np
import pytest

import interplay as ip

xgb = pytest.importorskip("xgboost")
pytest.importorskip("numba")


def _data(n=400, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_xgboost_missing_sentinel_takes_the_missing_branches():
    """XGBClassifier(missing=-999): -999 in a row goes down the trees' missing-value branches, as in the model;
    the tree reader ignored the sentinel (sum + base -2.42 where the model gave 1.08, forced or auto)."""
    X, y = _data()
    X[::5, 0] = -999.0
    model = xgb.XGBClassifier(n_estimators=20, max_depth=3, missing=-999.0).fit(X, y)
    background = X[1:21:2][:, :] * 1.0
    background = background[background[:, 0] != -999.0][:8]
    rows = X[[0, 5, 10]]  # explained rows hold the sentinel
    explainer = ip.Explainer(model, background)
    margin = model.predict(rows, output_margin=True)
    exact = explainer.shapley(rows, method="exact")
    for method in ("tree", "auto"):
        result = explainer.shapley(rows, method=method)
        assert result.method == "tree"
        np.testing.assert_allclose(result.values.sum(1) + result.base_values, margin, atol=1e-5)
        np.testing.assert_allclose(result.values, exact.values, atol=1e-5)


def test_early_stopped_xgboost_is_explained_with_its_best_rounds():
    """An early-stopped XGBClassifier predicts with best_iteration + 1 rounds; the trees read all of them (forced
    tree summed to 2.380 where the model gave 1.961; auto fell back to sampling)."""
    X, y = _data(600, 5)
    model = xgb.XGBClassifier(n_estimators=200, early_stopping_rounds=5, learning_rate=0.5, max_depth=4,
                              random_state=0).fit(X[:300], y[:300], eval_set=[(X[300:], y[300:])], verbose=False)
    assert model.best_iteration + 1 < model.get_booster().num_boosted_rounds()  # the case under test
    rows = X[400:403]
    explainer = ip.Explainer(model, X[:20])
    for method in ("tree", "auto"):
        result = explainer.shapley(rows, method=method)
        assert result.method == "tree"
        np.testing.assert_allclose(result.values.sum(1) + result.base_values,
                                   model.predict(rows, output_margin=True), atol=1e-5)


def test_auto_says_why_the_trees_are_not_used_under_conditional_removal():
    from sklearn.ensemble import GradientBoostingRegressor

    X, y = _data(200, 5)
    model = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, y)
    result = ip.Explainer(model, X[:40], removal="conditional").shapley(X[100:101])
    assert "not used: removal='conditional'" in result.info["auto"]["tree"]


def test_multiclass_booster_refusal_does_not_call_its_margins_log_odds():
    X, y = _data(300, 4)
    y3 = np.digitize(X[:, 1], [-0.5, 0.5])
    model = xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, y3)
    with pytest.raises(ValueError, match=r"raw per-class scores \(margins\), not the log-odds"):
        ip.Explainer(model, X[:10], output="log-odds", target=1).shapley(X[:1], method="tree")


def test_a_column_listed_twice_in_one_group_is_named_as_such():
    def f(Z):
        return Z.sum(1)

    with pytest.raises(ValueError, match="column 'x0' is twice in group 'a'"):
        ip.Explainer(f, np.zeros((5, 3)), groups={"a": [0, 0]})
    with pytest.raises(ValueError, match="column 'x0' is in two groups"):
        ip.Explainer(f, np.zeros((5, 3)), groups={"a": [0], "b": [0]})


def test_auto_keeps_the_trees_when_standard_errors_are_switched_off():
    """Any option, std_errors=False included, made auto leave the exact tree algorithm for a sampler (2,076
    model evaluations on 14 features), without saying why; sampler options now say so."""
    from sklearn.ensemble import GradientBoostingRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 6))
    model = GradientBoostingRegressor(n_estimators=10, random_state=0).fit(X, X[:, 0] * X[:, 1] + X[:, 2])
    ex = ip.Explainer(model, X[:10])
    for call in (lambda **o: ex.shapley(X[:2], **o), lambda **o: ex.bivariate(X[:1], **o),
                 lambda **o: ex.interactions(X[:1], **o)):
        plain, quiet = call(), call(std_errors=False)
        assert plain.method == quiet.method == "tree"
        np.testing.assert_array_equal(np.asarray(quiet.n_evaluations), 0)
    sampled = ex.shapley(X[:1], method="auto", surrogate="sklearn", budget=40, random_state=0)
    assert sampled.method != "tree"
    assert sampled.info["auto"]["tree"].startswith("not used: options ['surrogate'] are for samplers")


def test_a_text_background_is_read_with_a_lightgbm_models_categories():
    """A background read from a CSV (text columns) for a LightGBM fitted on pandas categoricals failed in the
    model call ("train and valid dataset categorical_feature do not match"), naming neither the background nor
    the fix; the CLI already converted such columns."""
    lgb = pytest.importorskip("lightgbm")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    raw = pd.DataFrame({"job": rng.choice(["admin", "chef", "nurse"], 300), "age": rng.normal(40, 10, 300)})
    y = ((raw["job"] == "chef") ^ (raw["age"] > 40)).astype(int)
    typed = raw.astype({"job": "category"})
    model = lgb.LGBMClassifier(n_estimators=10, verbose=-1).fit(typed, y)
    from_text = ip.Explainer(model, raw[:40]).shapley(typed[:3])
    from_categories = ip.Explainer(model, typed[:40]).shapley(typed[:3])
    np.testing.assert_allclose(from_text.values, from_categories.values, atol=1e-12)


def test_prediction_output_of_a_classifier_is_named_probability():
    """output="prediction" on a classifier explained predict_proba's column but was labelled "prediction" (a shap
    user reads model.predict, whose labels are not what the values add up to)."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    model = LogisticRegression().fit(X, X[:, 0] > 0)
    named = ip.Explainer(model, X[:10], output="prediction")
    assert named.output == "probability"
    values = named.shapley(X[:2], method="exact")
    assert values.info["output"] == "probability"
    np.testing.assert_array_equal(values.values,
                                  ip.Explainer(model, X[:10], output="probability").shapley(X[:2], method="exact").values)


def test_path_dependent_results_say_how_features_were_removed():
    """info said removal='marginal' next to tree='path-dependent' (the background rows are not used), and the
    missing-background error did not point a shap TreeExplainer(model) user to tree_path_dependent=True."""
    from sklearn.ensemble import GradientBoostingRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    model = GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, X[:, 0])
    with pytest.raises(ValueError, match="tree_path_dependent=True"):
        ip.Explainer(model)
    result = ip.Explainer(model, X[:1]).shapley(X[:2], method="tree", tree_path_dependent=True)
    assert result.info["removal"] == "path-dependent (tree cover)" and result.info["tree"] == "path-dependent"
