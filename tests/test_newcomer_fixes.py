"""Regression tests for what newcomers ran into (feature names, targets, metrics on raw rows, budgets, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import interplay as ip

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def frame_model():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(200, 3)), columns=list("abc"))
    model = RandomForestClassifier(n_estimators=5, random_state=0).fit(frame, (frame["a"] > 0).astype(int))
    return frame, model


def test_feature_names_rename_the_results_not_the_columns_a_dataframe_is_matched_by(frame_model):
    """feature_names= are display names (as in shap): a DataFrame with the data's own columns is still matched
    (it was refused), a permuted one reordered, and the results carry the new names."""
    frame, model = frame_model
    explainer = ip.Explainer(model, frame.iloc[:20], feature_names=["A", "B", "C"])
    result = explainer.shapley(frame.iloc[:2])
    assert tuple(result.feature_names) == ("A", "B", "C")
    permuted = explainer.shapley(frame.iloc[:2][["c", "a", "b"]])
    np.testing.assert_allclose(permuted.values, result.values)
    with pytest.raises(ValueError, match="columns"):
        explainer.shapley(frame.iloc[:2].rename(columns={"a": "z"}))


def test_a_target_the_model_lacks_is_refused_when_the_explainer_is_built(frame_model):
    """target='>50K' on a 0/1 model: refused at construction (it failed only at the first explanation), with
    the labels printed as plain values ([0, 1], not [np.int64(0), ...])."""
    frame, model = frame_model
    with pytest.raises(ValueError, match=r"target: expected a class label or output index in \[0, 1\], got '>50K'"):
        ip.Explainer(model, frame.iloc[:20], target=">50K")
    with pytest.raises(ValueError, match="got 7"):
        ip.Explainer(model, frame.iloc[:20], target=[1, 7])
    assert ip.Explainer(model, frame.iloc[:20], target=0).target == 0


def test_prediction_game_takes_raw_categorical_rows():
    """metrics.prediction_game read the row as floats, so a DataFrame row with a category crashed; it reads it
    as the Explainer does, and with nothing masked the prediction is kept."""
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from interplay.metrics.posthoc import posthoc_accuracy, prediction_game

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"job": rng.choice(["admin.", "services", "retired"], 300), "age": rng.normal(40, 9, 300)})
    y = ((frame["job"] == "retired") | (frame["age"] > 45)).astype(int)
    encode = ColumnTransformer([("job", OneHotEncoder(), ["job"])], remainder="passthrough")
    model = make_pipeline(encode, LogisticRegression()).fit(frame, y)
    explainer = ip.Explainer(model, frame.iloc[:20])
    game = prediction_game(explainer, frame.iloc[[0]])
    assert posthoc_accuracy([game], [np.ones((1, 2), dtype=bool)])[0] == 1.0
