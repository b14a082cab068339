"""Path-dependent TreeSHAP: equal to shap's TreeExplainer(feature_perturbation="tree_path_dependent"), and the
lecture's point: it depends on the split order, while interventional TreeSHAP does not."""

import numpy as np
import pytest

import interplay as ip
from interplay.trees import TreeEnsemble, as_ensemble, interventional_shapley, path_dependent_shapley

sk_ensemble = pytest.importorskip("sklearn.ensemble")

D = 6
RNG = np.random.default_rng(11)
X = RNG.normal(size=(300, D))
Y = X[:, 0] * X[:, 1] + (X[:, 2] > 0) + X[:, 3] - X[:, 5] * (X[:, 4] > 0.5)
Y3 = np.digitize(Y, [-0.5, 1.0])
XN = X.copy()
XN[RNG.random(X.shape) < 0.1] = np.nan


def _models():
    xgb = pytest.importorskip("xgboost")
    lgb = pytest.importorskip("lightgbm")
    return [
        ("RandomForestRegressor", sk_ensemble.RandomForestRegressor(10, max_depth=6, random_state=0), X, Y, None),
        ("ExtraTreesClassifier", sk_ensemble.ExtraTreesClassifier(10, max_depth=5, random_state=0), X, Y3, 2),
        ("GradientBoostingRegressor", sk_ensemble.GradientBoostingRegressor(n_estimators=20, random_state=0),
         X, Y, None),
        ("XGBRegressor", xgb.XGBRegressor(n_estimators=20, max_depth=4, random_state=0, n_jobs=1), XN, Y, None),
        ("XGBClassifier", xgb.XGBClassifier(n_estimators=10, max_depth=4, random_state=0, n_jobs=1), XN, Y3, 1),
        ("LGBMRegressor", lgb.LGBMRegressor(n_estimators=20, num_leaves=12, verbose=-1, n_jobs=1), XN, Y, None),
        ("LGBMClassifier", lgb.LGBMClassifier(n_estimators=8, num_leaves=8, verbose=-1, n_jobs=1), XN, Y3, 1),
        ("HistGradientBoostingRegressor", sk_ensemble.HistGradientBoostingRegressor(max_iter=10), XN, Y, None),
    ]


@pytest.mark.parametrize("index", range(8))
def test_path_dependent_matches_shap(index):
    shap = pytest.importorskip("shap")
    name, model, data, target, column = _models()[index]
    model.fit(data, target)
    rows = data[:6]
    ours, expected = path_dependent_shapley(as_ensemble(model), rows, column=column or 0)
    explainer = shap.TreeExplainer(model, feature_perturbation="tree_path_dependent")
    theirs = np.asarray(explainer.shap_values(rows))
    base = np.atleast_1d(explainer.expected_value)
    if column is not None:
        theirs = theirs[..., column] if theirs.ndim == 3 else theirs[column]
        base = base[column]
    np.testing.assert_allclose(ours, theirs, atol=1e-5)
    np.testing.assert_allclose(expected, np.broadcast_to(base, expected.shape), atol=1e-5)


def test_path_dependent_efficiency_and_explainer_option():
    model = sk_ensemble.GradientBoostingRegressor(n_estimators=10, random_state=0).fit(X, Y)
    result = ip.Explainer(model, X[:5]).shapley(X[:4], method="tree", tree_path_dependent=True)
    np.testing.assert_allclose(result.base_values + result.values.sum(axis=1), model.predict(X[:4]), atol=1e-10)
    assert result.info["tree"] == "path-dependent"


def _and_tree(first: int, cover_split: tuple[float, float, float]) -> TreeEnsemble:
    """f(x) = 1[x0 > 0 and x1 > 0], splitting first on feature ``first``; covers (root, left, right-left)."""
    second = 1 - first
    root, left_cover, mid = cover_split
    # nodes: 0 root (first), 1 leaf 0 (first <= 0), 2 node (second), 3 leaf 0, 4 leaf 1
    return TreeEnsemble(feature=[first, -1, second, -1, -1], threshold=[0.0, 0, 0.0, 0, 0],
                        left=[1, -1, 3, -1, -1], right=[2, -1, 4, -1, -1], default_left=[False] * 5,
                        value=[0.0, 0.0, 0.0, 0.0, 1.0],
                        cover=[root, left_cover, root - left_cover, mid, root - left_cover - mid],
                        roots=[0], base=0.0, n_features=2)


def test_same_function_different_split_order_lecture_point():
    """Two trees computing the same function (split on x0 then x1, or x1 then x0) with covers from the same
    (correlated) data: path-dependent values differ, interventional values with any background are equal."""
    data = np.array([[1.0, 1.0]] * 6 + [[-1.0, -1.0]] * 3 + [[1.0, -1.0]] * 1 + [[-1.0, 1.0]] * 2)
    n = len(data)
    # covers from the data: tree A splits x0 first, tree B x1 first
    a = _and_tree(0, (n, np.sum(data[:, 0] <= 0), np.sum((data[:, 0] > 0) & (data[:, 1] <= 0))))
    b = _and_tree(1, (n, np.sum(data[:, 1] <= 0), np.sum((data[:, 1] > 0) & (data[:, 0] <= 0))))
    rows = np.array([[1.0, 1.0], [1.0, -1.0]])
    np.testing.assert_array_equal(a.predict(data), b.predict(data))  # the same function
    pa, _ = path_dependent_shapley(a, rows)
    pb, _ = path_dependent_shapley(b, rows)
    assert np.abs(pa - pb).max() > 0.05  # path-dependent TreeSHAP depends on the split order
    ia, base_a = interventional_shapley(a, rows, data)
    ib, base_b = interventional_shapley(b, rows, data)
    np.testing.assert_allclose(ia, ib, atol=1e-15)  # interventional TreeSHAP does not
    np.testing.assert_allclose(base_a, base_b, atol=1e-15)


@pytest.mark.parametrize("kind", ["gbm", "forest"])
def test_path_dependent_interaction_values_equal_shaps(kind):
    shap = pytest.importorskip("shap")
    from interplay.trees import path_dependent_interactions, shap_interaction_values

    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 6))
    y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + X[:, 3] * (X[:, 4] > 0)
    if kind == "gbm":
        model = sk_ensemble.GradientBoostingRegressor(n_estimators=12, max_depth=4, random_state=0).fit(X, y)
        column, expected = 0, shap.TreeExplainer(model).shap_interaction_values(X[:8])
    else:
        model = sk_ensemble.RandomForestClassifier(6, max_depth=5, random_state=0).fit(X, y > 0.3)
        expected = np.asarray(shap.TreeExplainer(model).shap_interaction_values(X[:8]))
        column, expected = 1, expected[..., 1] if expected.ndim == 4 else expected[1]
    phi, sii, base = path_dependent_interactions(as_ensemble(model), X[:8], column=column)
    np.testing.assert_allclose(shap_interaction_values(phi, sii), expected, atol=1e-12)
    np.testing.assert_allclose(sii, np.swapaxes(sii, 1, 2))  # symmetric
    values, _ = path_dependent_shapley(as_ensemble(model), X[:8], column=column)
    np.testing.assert_allclose(phi, values)
    # through the Explainer: Shapley values on the diagonal side, SII for the pairs
    explainer = ip.Explainer(model, X[:10], target=True if kind == "forest" else None)
    result = explainer.interactions(X[:1], method="tree", tree_path_dependent=True)
    np.testing.assert_allclose(result.info["shap_interaction_values"], expected[0], atol=1e-12)
    assert result[(0, 1)] == pytest.approx(sii[0, 0, 1], abs=1e-12)
    with pytest.raises(ValueError, match="index"):
        explainer.interactions(X[:1], index="bii", method="tree", tree_path_dependent=True)
