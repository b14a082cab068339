"""Regression tests for the QA pass on interplay.metrics (/tmp/qa/metrics.md): prediction games in probabilities
whatever the Explainer's output, ranking accuracy with ties, feature names matched by name, one-row inputs,
throughput over a DataFrame's rows, and the benchmark's predicted-class games."""

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import interplay as ip
from interplay import metrics as m

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


# ---------------------------------------------------------------- 1. prediction_game in probabilities
def _argmax_kept(model, X, background, r, masks):
    """Independent reference: the class with the highest background-averaged predict_proba is the predicted one."""
    x = X.iloc[[r]]
    predicted = int(np.argmax(model.predict_proba(x)[0]))
    bg = background.to_numpy()
    out = []
    for present in masks:
        rows = bg.copy()
        rows[:, present] = X.to_numpy()[r, present]
        mean = model.predict_proba(pd.DataFrame(rows, columns=X.columns)).mean(axis=0)
        out.append(float(np.argmax(mean) == predicted))
    return np.array(out)


def _check_unit_free(model, X, rows, n_masks, **explainer_options):
    background = X.iloc[:25]
    user = ip.Explainer(model, background, **explainer_options)
    probability = ip.Explainer(model, background, output="probability", target=0)
    masks = np.random.default_rng(0).random((n_masks, X.shape[1])) < 0.5
    for r in rows:
        x = X.iloc[[r]]
        got = m.prediction_game(user, x)(masks)
        np.testing.assert_array_equal(got, m.prediction_game(probability, x)(masks))
        np.testing.assert_array_equal(got, _argmax_kept(model, X, background, r, masks))
    return user


def test_prediction_game_binary_booster_in_log_odds_uses_probabilities():
    """A binary XGBoost explainer is in log-odds by default; the game compared a log-odds with 1/2 (p >= 0.62)."""
    xgb = pytest.importorskip("xgboost")
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer(as_frame=True)
    X = data.data.iloc[:, :8]
    model = xgb.XGBClassifier(n_estimators=30, max_depth=3).fit(X, data.target)
    user = _check_unit_free(model, X, rows=range(100, 112), n_masks=60)
    assert user.output == "log-odds" and user._unit == "prediction"  # the user's explainer is left as it was


def test_prediction_game_multiclass_booster_in_margins_uses_probabilities():
    xgb = pytest.importorskip("xgboost")
    from sklearn.datasets import load_wine

    data = load_wine(as_frame=True)
    model = xgb.XGBClassifier(n_estimators=30, max_depth=2).fit(data.data, data.target)
    _check_unit_free(model, data.data, rows=range(108, 122), n_masks=60, output="margin")


def test_prediction_game_of_a_loss_explainer_uses_probabilities():
    """Iris row 60 is predicted class 1, the background's mean probabilities favour class 2: v(empty) = 0."""
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    data = load_iris(as_frame=True)
    X = data.data
    model = LogisticRegression(max_iter=1000).fit(X, data.target)
    background = X.iloc[::10]
    for options in ({"output": "loss"}, {"output": "log-odds", "target": 0}):
        game = m.prediction_game(ip.Explainer(model, background, **options), X.iloc[[60]])
        np.testing.assert_array_equal(game(np.array([[1] * 4, [0] * 4], dtype=bool)), [1.0, 0.0])
    masks = np.random.default_rng(1).random((30, 4)) < 0.5
    game = m.prediction_game(ip.Explainer(model, background, output="loss"), X.iloc[[60]])
    np.testing.assert_array_equal(game(masks), _argmax_kept(model, X, background, 60, masks))


# ---------------------------------------------------------------- 2. ranking accuracy with ties
def test_ranking_accuracy_counts_any_member_of_a_tie_class_as_a_hit():
    truth = np.array([[3.0, 0.0, 0.0, -1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 5.0, 0.0, 1.0, 0.0, 0.0]])
    noisy = truth + 1e-12 * np.random.default_rng(0).standard_normal(truth.shape)
    np.testing.assert_allclose(m.ranking_accuracy(noisy, truth), 1.0)
    np.testing.assert_allclose(m.ranking_accuracy(noisy, truth, absolute=True), 1.0)
    assert m.ranking_accuracy(noisy[0], truth[0]) == pytest.approx(1.0)


def test_ranking_accuracy_of_an_uninformative_estimate_is_not_perfect():
    truth = np.array([5.0, 4.0, 3.0, 2.0, 1.0])  # sorted by index: index tie-breaking matched it exactly
    acc = m.ranking_accuracy(np.zeros(5), truth)
    assert acc < 0.5
    assert acc == pytest.approx(0.2)  # each position a 1-in-5 chance under a random order of the tie
    assert m.ranking_accuracy(truth, truth) == 1.0
    assert m.ranking_accuracy(truth[::-1].copy(), truth) < 1.0


# ---------------------------------------------------------------- 3. benchmark: predicted-class games
def _load_benchmark():
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("benchmark_bivariate_evaluation_qa",
                                                  BENCHMARKS / "bivariate_evaluation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_benchmark_breast_cancer_games_explain_the_predicted_class(monkeypatch):
    """With nothing masked every row keeps its prediction: its game is the predicted class's probability."""
    pytest.importorskip("sklearn")
    bench = _load_benchmark()
    made = []
    original = ip.Explainer

    def recording(*args, **kwargs):
        made.append(kwargs)
        return original(*args, **kwargs)

    monkeypatch.setattr(bench.ip, "Explainer", recording)
    monkeypatch.setattr(bench.ip, "bivariate", lambda *a, **k: None)  # the estimators are not under test
    monkeypatch.setattr(bench.ip, "interactions", lambda *a, **k: None)
    with pytest.raises(AttributeError):  # the first row stops at the (stubbed) estimates
        bench.breast_cancer_case(n_rows=1, n_background=4, seed=0, log=lambda *a: None)
    assert made and all(k.get("target") == "predicted" for k in made)


# ---------------------------------------------------------------- 6. feature names matched by name
def _permuted_pair():
    w = np.array([4.0, 3.0, 2.0, 1.0])
    g1 = ip.Game(lambda C: C.astype(float) @ w, 4, ["a", "b", "c", "d"])
    g2 = ip.Game(lambda C: C.astype(float) @ w[::-1], 4, ["d", "c", "b", "a"])
    return g1, ip.shapley(g1, method="exact"), ip.shapley(g2, method="exact")


def test_metrics_match_attributions_by_feature_name():
    g1, truth, estimate = _permuted_pair()
    assert m.absolute_error(estimate, truth) == pytest.approx(0.0)
    assert m.ranking_accuracy(estimate, truth) == 1.0
    assert m.faithfulness(g1, estimate) == pytest.approx(1.0)
    assert m.monotonicity(g1, estimate) == m.monotonicity(g1, truth)
    assert m.insertion_auc(g1, estimate) == m.insertion_auc(g1, truth)
    assert m.deletion_auc(g1, estimate) == m.deletion_auc(g1, truth)
    assert m.log_odds_ratio(g1, estimate, 2, output="log-odds") == m.log_odds_ratio(g1, truth, 2, output="log-odds")
    by_rank = m.posthoc_accuracy_by_ranking(g1, estimate, [0.5], threshold=6.0)
    assert by_rank.accuracy.tolist() == m.posthoc_accuracy_by_ranking(g1, truth, [0.5], threshold=6.0).accuracy.tolist()


def test_metrics_match_frames_and_series_by_name():
    _, truth, estimate = _permuted_pair()
    df_t = pd.DataFrame([truth.values, truth.values], columns=truth.feature_names)
    df_e = pd.DataFrame([estimate.values, estimate.values], columns=estimate.feature_names)
    np.testing.assert_allclose(m.absolute_error(df_e, df_t), [0.0, 0.0])
    np.testing.assert_allclose(m.ranking_accuracy(df_e, df_t), [1.0, 1.0])
    np.testing.assert_allclose(m.absolute_error(df_e, np.vstack([truth.values] * 2)), [8.0, 8.0])  # numpy: by position
    assert m.absolute_error(estimate.to_pandas(), truth) == pytest.approx(0.0)
    # numpy inputs have no names: compared by position
    assert m.absolute_error(estimate.values, truth.values) == pytest.approx(8.0)
    assert m.absolute_error(estimate.values, truth) == pytest.approx(8.0)


def test_metrics_refuse_different_feature_names():
    g1, truth, _ = _permuted_pair()
    other = pd.DataFrame([truth.values], columns=["a", "b", "c", "e"])
    with pytest.raises(ValueError, match=r"estimate.*truth.*'e'.*'d'"):
        m.absolute_error(other.iloc[0], truth)
    with pytest.raises(ValueError, match=r"estimate.*truth.*'e'.*'d'"):
        m.ranking_accuracy(other, pd.DataFrame([truth.values], columns=truth.feature_names))
    with pytest.raises(ValueError, match=r"attribution.*game.*'e'"):
        m.faithfulness(g1, other)
    with pytest.raises(ValueError, match=r"scores.*game.*'e'"):
        m.insertion_auc(g1, other)


# ---------------------------------------------------------------- 7. one-row Explanations
def test_one_row_explanation_is_taken_as_that_row():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    data = load_iris(as_frame=True)
    X = data.data
    model = LogisticRegression(max_iter=1000).fit(X, data.target)
    explainer = ip.Explainer(model, X.iloc[::10], output="probability", target="predicted")
    x = X.iloc[[60]]
    one_row = explainer.shapley(x, method="exact", progress=False)
    assert one_row.values.shape == (1, 4)
    game, row = explainer.game(x), one_row[0]
    for f in (m.insertion_auc, m.deletion_auc, m.faithfulness, m.monotonicity):
        assert f(game, one_row) == f(game, row)
        assert f(game, np.asarray(one_row.values)) == f(game, row)
    assert m.log_odds_ratio(game, one_row, 1) == m.log_odds_ratio(game, row, 1)
    with pytest.raises(ValueError, match="one row"):
        m.faithfulness(game, np.ones((2, 4)))


# ---------------------------------------------------------------- 8. throughput over a DataFrame
def test_throughput_iterates_the_rows_of_a_dataframe():
    frame = pd.DataFrame(np.arange(15.0).reshape(3, 5), columns=list("abcde"))
    seen = []
    out = m.throughput(seen.append, frame)
    assert out.n_explained == 3
    for i, row in enumerate(seen):
        np.testing.assert_array_equal(np.asarray(row, dtype=float).ravel(), frame.to_numpy()[i])

    from sklearn.linear_model import LogisticRegression

    y = np.array([0, 1, 0, 1, 0, 1])
    data = pd.DataFrame(np.random.default_rng(0).normal(size=(6, 3)), columns=["u", "v", "w"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explainer = ip.Explainer(LogisticRegression().fit(data, y), data)
    result = m.throughput(lambda r: ip.shapley(explainer.game(r), method="exact"), data.iloc[:2])
    assert result.n_explained == 2
