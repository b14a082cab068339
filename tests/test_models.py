"""Model adapters on small real models trained in the test: scikit-learn, XGBoost, LightGBM, PyTorch."""

import os
import subprocess
import sys

import numpy as np
import pytest

import interplay as ip
from interplay.models import as_model


def _data(n=200, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y_reg = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + 0.1 * X[:, 3]
    y_cls = (y_reg > np.median(y_reg)).astype(int)
    return X, y_reg, y_cls


def _efficiency(explainer, X, expected):
    explanation = explainer.shapley(X)
    np.testing.assert_allclose(explanation.values.sum(axis=1) + explanation.base_values, expected,
                               rtol=1e-6, atol=1e-6)
    return explanation


def test_import_does_not_import_optional_dependencies():
    code = ("import sys, interplay, interplay.models, interplay.modalities; "
            "bad = [m for m in ('torch', 'xgboost', 'lightgbm', 'pandas', 'sklearn', 'skimage', 'vaderSentiment') "
            "if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    src = os.path.dirname(os.path.dirname(ip.__file__))  # this checkout's interplay, not an installed one
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stdout + done.stderr


def test_sklearn_classifier_and_regressor():
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeRegressor

    X, y_reg, y_cls = _data()
    reg = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, y_reg)
    _efficiency(ip.Explainer(reg, X[:20]), X[:3], reg.predict(X[:3]))
    clf = LogisticRegression().fit(X, y_cls)
    explainer = ip.Explainer(clf, X[:20], target=1)
    _efficiency(explainer, X[:3], clf.predict_proba(X[:3])[:, 1])


def test_xgboost_wrapper_and_native_booster():
    xgb = pytest.importorskip("xgboost")
    X, y_reg, y_cls = _data()
    clf = xgb.XGBClassifier(n_estimators=15, max_depth=3).fit(X, y_cls)
    _efficiency(ip.Explainer(clf, X[:20], target=1, output="probability"), X[:2], clf.predict_proba(X[:2])[:, 1])
    default = ip.Explainer(clf, X[:20])  # what shap explains: the log-odds of the positive class, from the margin
    assert (default.output, default.target) == ("log-odds", 1)
    _efficiency(default, X[:2], clf.predict(X[:2], output_margin=True))
    booster = clf.get_booster()
    model = as_model(booster)
    assert model.kind == "classifier" and "xgboost.Booster[binary:logistic]" in model.name
    assert model.source is booster
    np.testing.assert_allclose(model(X[:5]), clf.predict_proba(X[:5]), rtol=1e-6)
    _efficiency(ip.Explainer(booster, X[:20], target=1, output="probability"), X[:2],
                clf.predict_proba(X[:2])[:, 1])
    _efficiency(ip.Explainer(booster, X[:20]), X[:2], booster.predict(xgb.DMatrix(X[:2]), output_margin=True))
    reg = xgb.train({"max_depth": 3, "objective": "reg:squarederror"}, xgb.DMatrix(X, label=y_reg), 15)
    assert as_model(reg).kind == "regressor"
    _efficiency(ip.Explainer(reg, X[:20]), X[:2], reg.predict(xgb.DMatrix(X[:2])))


def test_lightgbm_wrapper_and_native_booster():
    lgb = pytest.importorskip("lightgbm")
    X, y_reg, y_cls = _data()
    reg = lgb.LGBMRegressor(n_estimators=15, num_leaves=7, min_child_samples=5, verbose=-1).fit(X, y_reg)
    _efficiency(ip.Explainer(reg, X[:20]), X[:2], reg.predict(X[:2]))
    booster = lgb.train({"objective": "binary", "num_leaves": 7, "verbose": -1}, lgb.Dataset(X, y_cls), 15)
    model = as_model(booster)
    assert model.kind == "classifier"
    p = booster.predict(X[:2])
    np.testing.assert_allclose(model(X[:2]), np.c_[1 - p, p])
    _efficiency(ip.Explainer(booster, X[:20], target=1, output="probability"), X[:2], p)
    explainer = ip.Explainer(booster, X[:20])
    assert (explainer.output, explainer.target) == ("log-odds", 1)
    _efficiency(explainer, X[:2], booster.predict(X[:2], raw_score=True))
    _efficiency(ip.Explainer(booster, X[:20], target=0), X[:2], -booster.predict(X[:2], raw_score=True))


def _torch_net(seed=0, d=4, k=1, dtype=None):
    torch = pytest.importorskip("torch")
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(d, 8), torch.nn.Softplus(), torch.nn.Linear(8, k))
    if dtype is not None:
        net = net.to(dtype)
    return torch, net


def test_torch_module_trained_and_explained():
    torch, net = _torch_net()
    X, y_reg, _ = _data(n=128)
    opt = torch.optim.Adam(net.parameters(), lr=0.05)
    inputs, targets = torch.tensor(X, dtype=torch.float32), torch.tensor(y_reg, dtype=torch.float32)[:, None]
    for _ in range(30):
        opt.zero_grad()
        loss = ((net(inputs) - targets) ** 2).mean()
        loss.backward()
        opt.step()
    model = as_model(net)
    assert model.kind == "regressor" and model.dtype == torch.float32
    with torch.no_grad():
        expected = net(inputs[:3]).double().numpy()[:, 0]
    np.testing.assert_allclose(model(X[:3])[:, 0], expected, rtol=1e-6)
    explainer = ip.Explainer(net, X[:16])
    _efficiency(explainer, X[:3], expected)
    batched = ip.models.TorchModel(net, batch_size=7)
    np.testing.assert_allclose(batched(X[:20]), model(X[:20]), rtol=1e-5, atol=1e-6)


def test_multi_output_targets_share_model_calls():
    from sklearn.linear_model import LogisticRegression
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    clf = LogisticRegression(max_iter=500).fit(X, y)
    calls = []

    def predict_proba(rows):
        calls.append(len(rows))
        return clf.predict_proba(rows)

    model = ip.models.ModelFunction(predict_proba, "classifier", "iris", classes=(0, 1, 2))
    many = ip.Explainer(model, X[::15], target="all").shapley(X[[0, 60]])
    rows_all = sum(calls)
    calls.clear()
    single = {k: ip.Explainer(clf, X[::15], target=k).shapley(X[[0, 60]]) for k in (0, 1, 2)}
    assert set(many) == {0, 1, 2}
    for k in (0, 1, 2):
        np.testing.assert_allclose(many[k].values, single[k].values, atol=1e-12)
        np.testing.assert_allclose(many[k].values.sum(1) + many[k].base_values, clf.predict_proba(X[[0, 60]])[:, k])
    n_background, n_coalitions = len(X[::15]), 2**4
    assert rows_all == 1 + 2 * n_coalitions * n_background  # the output width read once, one pass a row for all
    listed = ip.Explainer(model, X[::15], target=[2, 0]).interactions(X[0])
    assert set(listed) == {2, 0}
    with pytest.raises(ValueError, match="games"):
        ip.Explainer(model, X[::15], target=[0, 1]).game(X[0])


def test_regressor_with_several_outputs_needs_target():
    f = lambda X: np.c_[X.sum(1), X[:, 0] * X[:, 1]]  # noqa: E731
    bg = np.random.default_rng(0).normal(size=(5, 3))
    with pytest.raises(ValueError, match="target"):
        ip.Explainer(f, bg).game(np.ones(3))
    both = ip.Explainer(f, bg, target=[0, 1]).games(np.ones(3))
    second = ip.Explainer(f, bg, target=1).game(np.ones(3))
    np.testing.assert_allclose(ip.shapley(both[1]).values, ip.shapley(second).values)


@pytest.mark.parametrize("vectorize_above", [0, 96])  # vmap and one backward pass per input
def test_cross_contribution_matches_finite_differences(monkeypatch, vectorize_above):
    import interplay.models.torch as torch_adapter

    monkeypatch.setattr(torch_adapter, "VECTORIZE_ABOVE", vectorize_above)
    torch, net = _torch_net(seed=3, d=4, k=1, dtype=torch_float64())
    bg = np.random.default_rng(0).normal(size=(10, 4))
    x = np.array([0.3, -0.2, 0.5, 1.0])
    model = ip.models.TorchModel(net, dtype=torch.float64)
    explainer = ip.Explainer(model, bg, removal="baseline", baseline="zero")
    h = 1e-4
    f = lambda z: model(z[None])[0, 0]  # noqa: E731
    fd = np.empty((4, 4))
    for i in range(4):
        for j in range(4):
            e_i, e_j = np.eye(4)[i] * h, np.eye(4)[j] * h
            fd[i, j] = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j) + f(x - e_i - e_j)) / (4 * h * h)
    unscaled = explainer.cross_contribution(x, scaled=False)
    expected = np.abs(fd + fd.T)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(unscaled, expected, rtol=1e-5, atol=1e-7)
    eta = explainer.cross_contribution(x)  # SHEAR Eq. 11 with reference 0
    np.testing.assert_allclose(eta, np.abs(x)[:, None] * expected * np.abs(x)[None, :], rtol=1e-5, atol=1e-8)
    assert np.abs(unscaled).max() > 1e-3  # the model is not linear: the test can fail
    with pytest.raises(TypeError, match="second derivatives"):
        ip.Explainer(lambda X: X.sum(1), bg).cross_contribution(x)


def torch_float64():
    torch = pytest.importorskip("torch")
    return torch.float64


def test_shear_gets_cross_contribution_from_torch_models(monkeypatch):
    from interplay.estimators import _registry

    torch, net = _torch_net(seed=1, d=3)
    seen = []

    def fake_shear(game, *, budget, rng, cross_contribution=None):
        seen.append(cross_contribution)
        return ip.shapley(game)

    monkeypatch.setitem(_registry._REGISTRY["shapley"], "shear", fake_shear)
    bg = np.random.default_rng(0).normal(size=(6, 3))
    explainer = ip.Explainer(net, bg)
    explainer.shapley(bg[:2], method="shear")
    assert len(seen) == 2 and all(c is not None and c.shape == (3, 3) for c in seen)
    np.testing.assert_allclose(seen[0], explainer.cross_contribution(bg[0]))
    seen.clear()
    ip.Explainer(lambda X: X.sum(1), bg).shapley(bg[:1], method="shear")
    assert seen == [None]  # not a torch model: nothing passed
    explainer.shapley(bg[:1], method="exact")  # other methods never get the option


@pytest.mark.parametrize(
    "model, message",
    [
        (lambda X: 1 / 0, r"model call boom failed .*ZeroDivisionError"),
        (lambda X: X[:2, 0], r"model call boom returned shape \(2,\)"),
        (lambda X: np.full((len(X), 2, 2), 1.0), r"model call boom returned shape"),
        (lambda X: np.full(len(X), np.nan), "model call boom returned NaN"),
        (lambda X: np.array(["a"] * len(X)), "model call boom returned non-numeric"),
    ],
)
def test_bad_models_name_the_model_call(model, message):
    model.__name__ = "boom"
    with pytest.raises((RuntimeError, ValueError, TypeError), match=message):
        ip.shapley(ip.Explainer(model, np.zeros((3, 2))).game([1.0, 1.0]))


def test_bad_torch_model_names_the_forward():
    torch = pytest.importorskip("torch")
    net = torch.nn.Sequential(torch.nn.Identity(), torch.nn.Linear(3, 1))  # input width not declared
    with pytest.raises(RuntimeError, match=r"model call Sequential.forward failed"):
        ip.Explainer(net, np.zeros((3, 2))).game([1.0, 1.0])


@pytest.mark.parametrize("removal", ["marginal", "conditional", "baseline"])
@pytest.mark.parametrize("max_rows", [7, 65536])
def test_several_outputs_equal_single_outputs_for_every_removal(removal, max_rows):
    rng = np.random.default_rng(4)
    bg, x = rng.normal(size=(12, 4)), rng.normal(size=4)
    f = lambda X: np.c_[np.tanh(X[:, 0] * X[:, 1]), X[:, 2] ** 2 - X[:, 3], X.sum(1)]  # noqa: E731
    games = ip.Explainer(f, bg, removal=removal, target=[2, 0, 1], max_rows=max_rows).games(x)
    assert list(games) == [2, 0, 1]
    for k, game in games.items():
        single = ip.Explainer(f, bg, removal=removal, target=k).game(x)
        np.testing.assert_allclose(ip.shapley(game).values, ip.shapley(single).values, atol=1e-12)
        assert game.n_evaluations == 16


def test_cross_contribution_of_log_odds_matches_finite_differences():
    torch = pytest.importorskip("torch")
    torch.manual_seed(5)
    net = torch.nn.Sequential(torch.nn.Linear(3, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3),
                              torch.nn.Softmax(dim=1)).double()
    model = ip.models.TorchModel(net, classifier=True, dtype=torch.float64)
    bg = np.random.default_rng(1).normal(size=(5, 3))
    x = np.array([0.2, -0.4, 0.7])
    explainer = ip.Explainer(model, bg, output="log-odds", target=2, removal="baseline", baseline="zero")

    def g(z):
        p = model(z[None])[0, 2]
        return np.log(p / (1 - p))

    h = 1e-4
    fd = np.array([[(g(x + h * (a + b)) - g(x + h * (a - b)) - g(x - h * (a - b)) + g(x - h * (a + b))) / (4 * h * h)
                    for b in np.eye(3)] for a in np.eye(3)])
    expected = np.abs(fd + fd.T)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(explainer.cross_contribution(x, scaled=False), expected, rtol=1e-5, atol=1e-7)


def test_real_shear_with_exact_cross_contributions():
    if "shear" not in ip.available_methods("shapley"):
        pytest.skip("method='shear' is not on this branch")
    torch, net = _torch_net(seed=2, d=5)
    bg = np.random.default_rng(0).normal(size=(10, 5))
    explainer = ip.Explainer(net, bg, removal="baseline")
    exact_values = explainer.shapley(bg[:2]).values
    shear = explainer.shapley(bg[:2], method="shear", n_per_feature=32, random_state=0)  # K = 4 = n - 1: exact
    np.testing.assert_allclose(shear.values, exact_values, atol=1e-6)


def test_torch_dtype_follows_the_module():
    torch = pytest.importorskip("torch")
    assert as_model(torch.nn.Linear(2, 1)).dtype == torch.float32
    double = as_model(torch.nn.Linear(2, 1).double())
    assert double.dtype == torch.float64 and double(np.ones((3, 2))).shape == (3, 1)
    assert as_model(torch.nn.Softmax(dim=1)).dtype == torch.float32  # no parameters
    assert str(double.device) == "cpu"
