"""Value functions (baseline, marginal, conditional) x outputs, through the Explainer."""

import numpy as np
import pytest

import interplay as ip


def _balanced_copies():
    x1 = np.repeat([0.0, 1.0], 50)
    return np.c_[x1, x1]  # X1 = X2, binary, equiprobable


def model_x1(X):
    return X[:, 0]


@pytest.mark.parametrize("x1", [0.0, 1.0])
def test_lecture_observational_vs_interventional(x1):
    background = _balanced_copies()
    x = [x1, x1]
    observational = ip.shapley(ip.Explainer(model_x1, background, removal="conditional").game(x)).values
    interventional = ip.shapley(ip.Explainer(model_x1, background, removal="marginal").game(x)).values
    assert observational[1] == pytest.approx((x1 - 0.5) / 2, abs=1e-15)
    assert observational[0] == pytest.approx((x1 - 0.5) / 2, abs=1e-15)
    assert interventional[1] == 0.0
    assert interventional[0] == pytest.approx(x1 - 0.5, abs=1e-15)


def test_marginal_matches_hand_computation():
    rng = np.random.default_rng(0)
    background = rng.normal(size=(7, 3))
    x = rng.normal(size=3)
    f = lambda X: X[:, 0] * X[:, 1] + np.sin(X[:, 2])  # noqa: E731
    game = ip.Explainer(f, background).game(x)
    S = np.array([True, False, True])
    expected = np.mean([f(np.where(S, x, b)[None, :])[0] for b in background])
    assert game(S)[0] == pytest.approx(expected, abs=1e-14)


def test_baseline_references():
    background = np.array([[1.0, 5.0], [3.0, 5.0], [3.0, 7.0]])
    f = lambda X: X @ np.array([1.0, 10.0])  # noqa: E731
    x = [0.0, 0.0]
    for baseline, ref in [("mean", [7 / 3, 17 / 3]), ("median", [3, 5]), ("mode", [3, 5]), ("zero", [0, 0]),
                          ([2.0, 2.0], [2, 2])]:
        game = ip.Explainer(f, background, removal="baseline", baseline=baseline).game(x)
        assert game.empty_value() == pytest.approx(ref[0] + 10 * ref[1])
    linear = ip.shapley(ip.Explainer(f, background, removal="baseline", baseline=[1.0, 1.0]).game([3.0, 2.0]))
    np.testing.assert_allclose(linear.values, [2.0, 10.0])  # linear model: w * (x - r)


@pytest.mark.parametrize("removal", ["marginal", "conditional", "baseline"])
@pytest.mark.parametrize("max_rows", [1, 5, 64, 100000])
def test_results_do_not_depend_on_chunking(removal, max_rows):
    rng = np.random.default_rng(1)
    background = rng.normal(size=(20, 4))
    f = lambda X: np.tanh(X[:, 0] - X[:, 1] * X[:, 2]) + X[:, 3] ** 2  # noqa: E731
    x = rng.normal(size=4)
    reference = ip.shapley(ip.Explainer(f, background, removal=removal).game(x)).values
    chunked = ip.shapley(ip.Explainer(f, background, removal=removal, max_rows=max_rows).game(x)).values
    np.testing.assert_allclose(chunked, reference, rtol=0, atol=1e-13)


def test_model_is_called_in_large_chunks():
    calls = []
    background = np.random.default_rng(2).normal(size=(10, 5))

    def f(X):
        calls.append(len(X))
        return X.sum(axis=1)

    ip.shapley(ip.Explainer(f, background).game(np.zeros(5)))
    assert sum(calls) == 2**5 * 10 + 1  # 32 coalitions x 10 background rows, plus one call to read the output
    assert len(calls) == 2


def test_classifier_outputs():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=500).fit(X, y)
    background = X[::10]
    x = X[100]
    assert ip.Explainer(model, background).target == "all"  # multi-class: every class, never a mixture
    proba = ip.Explainer(model, background, target="predicted")
    assert proba.output == "probability"
    phi = ip.shapley(proba.game(x))
    predicted = int(model.predict(x[None])[0])
    assert phi.values.sum() + phi.baseline == pytest.approx(model.predict_proba(x[None])[0, predicted])
    logodds = ip.shapley(ip.Explainer(model, background, output="log-odds", target=0).game(x))
    p0 = model.predict_proba(x[None])[0, 0]
    assert logodds.values.sum() + logodds.baseline == pytest.approx(np.log(p0 / (1 - p0)))
    loss = ip.Explainer(model, background, output="loss").game(x, y=y[100])
    assert loss.grand_value() == pytest.approx(np.log(model.predict_proba(x[None])[0, y[100]]))
    with pytest.raises(ValueError, match="target"):
        ip.Explainer(model, background, target=7).game(x)


def test_regression_loss_and_many_rows():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge

    X, y = load_diabetes(return_X_y=True)
    model = Ridge().fit(X, y)
    explainer = ip.Explainer(model, X[:30])
    explanation = explainer.shapley(X[:4])
    assert explanation.values.shape == (4, 10)
    np.testing.assert_allclose(explanation.values.sum(axis=1) + explanation.base_values, model.predict(X[:4]))
    assert explanation[2].values.shape == (10,)
    loss = explainer.game(X[0], y=y[0]) if False else ip.Explainer(model, X[:30], output="loss").game(X[0], y=y[0])
    assert loss.grand_value() == pytest.approx(-(model.predict(X[:1])[0] - y[0]) ** 2)


def test_dataframe_names_and_errors():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, 1.0, 0.0]})
    explainer = ip.Explainer(lambda X: X[:, 0] + X[:, 1], frame)
    assert explainer.feature_names == ("a", "b")
    assert ip.shapley(explainer.game([1.0, 1.0])).feature_names == ("a", "b")
    with pytest.raises(TypeError, match=r"non-numeric columns \['c'\]"):
        ip.Explainer(lambda X: X[:, 0], frame.assign(c=["x", "y", "z"]))
    with pytest.raises(ValueError, match="background: expected at least one row"):
        ip.Explainer(lambda X: X[:, 0], np.zeros((0, 2)))
    with pytest.raises(ValueError, match="background: removal='marginal'"):
        ip.Explainer(lambda X: X[:, 0])
    with pytest.raises(ValueError, match="x: expected 2 columns"):
        explainer.game([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="removal: expected one of"):
        ip.Explainer(lambda X: X[:, 0], frame, removal="nope")
    with pytest.raises(ValueError, match="needs a model with predict_proba"):
        ip.Explainer(lambda X: X[:, 0], frame, output="probability")
    with pytest.raises(TypeError, match="model: expected a callable"):
        ip.Explainer(42, frame)


@pytest.mark.parametrize(
    "model, message",
    [
        (lambda X: 1 / 0, "model call .* failed"),
        (lambda X: X[:2, 0], r"returned shape \(2,\)"),
        (lambda X: np.full(len(X), np.nan), "NaN"),
    ],
)
def test_bad_models_get_clear_errors(model, message):
    with pytest.raises((RuntimeError, ValueError), match=message):
        ip.shapley(ip.Explainer(model, np.zeros((3, 2))).game([1.0, 1.0]))


def test_regression_loss_uses_the_target_output():
    f = lambda X: np.column_stack([X[:, 0], 10 * X[:, 1]])  # noqa: E731
    explainer = ip.Explainer(f, np.zeros((3, 2)), removal="baseline", output="loss", target=1)
    assert explainer.game([1.0, 1.0], y=10.0).grand_value() == 0.0
    assert explainer.game([1.0, 1.0], y=10.0).empty_value() == -100.0
    with pytest.raises(ValueError, match="target"):
        ip.Explainer(f, np.zeros((3, 2)), removal="baseline", output="loss").game([1.0, 1.0], y=1.0)


def test_infinite_inputs_and_arbitrary_modes_are_reported():
    background = np.zeros((3, 2))
    background[0, 1] = np.inf
    with pytest.raises(ValueError, match=r"background: contains inf in column\(s\) \[1\]"):
        ip.Explainer(lambda X: X[:, 0], background)
    explainer = ip.Explainer(lambda X: X[:, 0], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="x: contains inf"):
        explainer.game([np.inf, 0.0])
    continuous = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.warns(UserWarning, match="mode is arbitrary"):
        ip.Explainer(lambda X: X[:, 0], continuous, removal="baseline", baseline="mode")


def test_many_rows_record_the_class_each_row_explains():
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=500).fit(X, y)
    rows = X[[0, 60, 120]]
    explanation = ip.Explainer(model, X[::15], target="predicted").shapley(rows)
    assert explanation.info["targets"] == model.predict(rows).tolist()
    assert explanation.info["target"] == "predicted"
    per_class = ip.Explainer(model, X[::15]).shapley(rows)  # default: one Explanation per class
    assert sorted(per_class) == [0, 1, 2]
    assert all(e.info["target"] == k and e.info["targets"] == [k] * 3 for k, e in per_class.items())
    fixed = ip.Explainer(model, X[::15], target=2).shapley(rows)
    assert fixed.info["targets"] == [2, 2, 2]


def test_one_row_calls_say_what_takes_many_rows_on_both_paths():
    pytest.importorskip("sklearn")
    import pandas as pd
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 4)), columns=list("abcd"))
    y = X.sum(axis=1)
    for model in (LinearRegression().fit(X, y), GradientBoostingRegressor(n_estimators=5).fit(X, y)):
        explainer = ip.Explainer(model, X)  # sampling path, then the exact tree path
        for call in (explainer.interactions, explainer.bivariate):
            with pytest.raises(ValueError, match=r"x: expected one row, got 2; .*loop over the rows.*"
                                                 r"shapley\(X\).*kind='bivariate'"):
                call(X.iloc[:2])
