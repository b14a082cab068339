"""method="auto" on tree models: the check that the trees reproduce the model, the constant read from XGBoost, and
the note a result carries when the trees are not used."""

from __future__ import annotations

import json

import numpy as np
import pytest

import interplay as ip

xgb = pytest.importorskip("xgboost")
pytest.importorskip("numba")


def _big_leaves():
    """An XGBoost regressor whose first trees have leaves in the hundreds: its single-precision sums are off
    by about 1e-4 from the exact ones."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = 1000 * (X[:, 0] > 0) - 1000 * (X[:, 1] > 0) + X[:, 2]
    model = xgb.XGBRegressor(n_estimators=200, max_depth=3, learning_rate=0.3, random_state=0, n_jobs=1)
    return model.fit(X, y), X


def test_xgboost_constant_is_read_to_single_precision():
    """The constant is estimated from the first round only (one rounding), not from all 200 trees (whose
    rounding put it 1.5e-4 off the model's base_score, and every base value with it)."""
    from interplay.trees import as_ensemble

    model, X = _big_leaves()
    ensemble = as_ensemble(model)
    params = json.loads(model.get_booster().save_config())["learner"]["learner_model_param"]
    stored = float(str(params["base_score"]).strip("[]"))
    assert abs(ensemble.base[0] - stored) <= 2.0**-22 * abs(stored)
    # what the estimate from every tree would have been: far from it
    zeros = np.zeros((1, 4))
    everything = model.get_booster().predict(xgb.DMatrix(zeros), output_margin=True)[0]
    assert abs(everything - (ensemble.predict(zeros)[0, 0] - ensemble.base[0]) - stored) > 1e-5


def test_auto_uses_the_trees_of_a_many_tree_xgboost_model():
    """Single-precision sums of a 200-tree booster differ from the exact ones by more than 1e-5 relative on
    some rows: the check allows that rounding, so auto stays exact (it used to fall back to a sampler)."""
    model, X = _big_leaves()
    explainer = ip.Explainer(model, X[:32])
    result = explainer.shapley(X[:3])
    assert result.method == "tree" and result.info["auto"]["chosen"] == "tree"
    totals = result.values.sum(axis=1) + result.base_values
    np.testing.assert_allclose(totals, model.predict(X[:3]), atol=2e-3)  # the model's own float32 margin


def test_auto_says_why_it_did_not_use_the_trees():
    """A booster explained as a probability: the samplers run, and info["auto"]["tree"] says why not the
    trees; a model that is not a tree ensemble has no such note."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 5))
    model = xgb.XGBClassifier(n_estimators=20, max_depth=3, random_state=0).fit(X, (X[:, 0] > 0).astype(int))
    result = ip.Explainer(model, X[:20], output="probability").shapley(X[:1], budget=64, random_state=0)
    assert result.method != "tree"
    note = result.info["auto"]["tree"]
    assert note.startswith("not used: output:") and "log-odds" in note
    graph = ip.Explainer(model, X[:20], output="probability").bivariate(X[0], budget=64, random_state=0)
    assert graph.info["auto"]["tree"] == note
    plain = ip.Explainer(lambda rows: rows[:, 0] * rows[:, 1], X[:20]).shapley(X[:1], budget=64, random_state=0)
    assert "tree" not in plain.info.get("auto", {})


def test_trees_that_do_not_reproduce_the_model_are_declined_with_the_gap():
    """A model whose predictions are not its trees' (here bent by 0.01 x feature 0): auto samples, and the
    note says that the trees do not reproduce it, with the two outputs."""
    from sklearn.ensemble import GradientBoostingRegressor

    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 4))
    model = GradientBoostingRegressor(n_estimators=10, random_state=0).fit(X, X[:, 0] + X[:, 1] ** 2)
    unbent = model.predict
    model.predict = lambda rows: unbent(rows) + 0.01 * np.asarray(rows)[:, 0]  # trees read from the arrays
    result = ip.Explainer(model, X[:16]).shapley(X[:1], budget=40, random_state=0)
    assert result.method == "exact"  # 2**4 coalitions: enumerated, not the trees
    note = result.info["auto"]["tree"]
    assert note.startswith("not used:") and "reproduce" in note, note
    with pytest.raises(ValueError, match="reproduce"):
        ip.Explainer(model, X[:16]).shapley(X[:1], method="tree")


def test_values_outside_a_columns_categories_are_explained_as_missing_with_a_warning():
    """A category the background's column does not have reaches the model as a missing value (pandas would
    refuse it in the column's dtype): the user is told, by column and value, and no pandas deprecation
    warning leaks; known categories give no warning."""
    import warnings

    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=300), "c": pd.Categorical(rng.choice(list("xyz"), 300))})
    model = xgb.XGBClassifier(n_estimators=10, enable_categorical=True, random_state=0)
    model.fit(frame, (frame["a"] + (frame["c"] == "x") > 0.5).astype(int))
    explainer = ip.Explainer(model, frame.iloc[:30])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        known = explainer.shapley(frame.iloc[:2], method="permutation", budget=20, random_state=0)
    unseen = frame.iloc[:2].copy()
    unseen["c"] = pd.Categorical(["mars", "x"])
    missing = frame.iloc[:2].copy()
    missing["c"] = pd.Categorical([np.nan, "x"], categories=frame["c"].cat.categories)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = explainer.shapley(unseen, method="permutation", budget=20, random_state=0)
    messages = [str(w.message) for w in caught]
    assert len(messages) == 1 and "'c': ['mars']" in messages[0] and messages[0].startswith("X:"), messages
    as_missing = model.predict(missing, output_margin=True)  # what the explanation adds up to
    np.testing.assert_allclose(result.values.sum(axis=1) + result.base_values, as_missing, atol=1e-5)
    assert not np.array_equal(result.values[0], known.values[0])


def test_no_feature_name_warning_from_reading_a_dataframe_fitted_model():
    """Reading a scikit-learn model fitted on a DataFrame checks it on plain arrays: scikit-learn's
    "X does not have valid feature names" must not reach the user (it leaked once per Explainer)."""
    import warnings

    pd = pytest.importorskip("pandas")
    from sklearn.ensemble import GradientBoostingClassifier

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(200, 3)), columns=list("abc"))
    model = GradientBoostingClassifier(n_estimators=10, random_state=0).fit(frame, (frame["a"] > 0).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = ip.Explainer(model, frame.iloc[:20]).shapley(frame.iloc[:2])
    assert result.method == "tree"


def test_histgradientboosting_on_text_categories_is_read_exactly():
    """HistGradientBoosting fitted on a DataFrame whose categorical column holds text: its trees split on the
    codes of its own encoder, which the raw rows are encoded to (the reader crashed on the text, and auto
    silently sampled); tree values equal exact enumeration and add up to the model's raw score."""
    pd = pytest.importorskip("pandas")
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(3)
    colour = rng.choice(["red", "green", "blue", "?"], 400)
    frame = pd.DataFrame({"a": rng.normal(size=400), "colour": pd.Categorical(colour),
                          "b": rng.integers(0, 5, 400).astype(float)})
    y = ((frame["a"] > 0) ^ np.isin(colour, ["red", "?"])).astype(int)
    model = HistGradientBoostingClassifier(categorical_features="from_dtype", max_iter=20, random_state=0)
    model.fit(frame, y)
    explainer = ip.Explainer(model, frame.iloc[:12])
    tree = explainer.shapley(frame.iloc[:4])
    assert tree.method == "tree"
    exact = explainer.shapley(frame.iloc[:4], method="exact")
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-12)
    np.testing.assert_allclose(tree.values.sum(axis=1) + tree.base_values, model.decision_function(frame.iloc[:4]),
                               atol=1e-12)
