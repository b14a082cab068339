"""interplay's own boosting on 0/1 coalitions (the default tree surrogate) against a plain reference, XGBoost, and
the properties its docstring promises."""

import numpy as np
import pytest

pytest.importorskip("numba")

from interplay.estimators._binary_boost import fit_binary_boost  # noqa: E402


def reference_boost(X, y, n_trees=100, depth=4, eta=0.2, lam=1.0, min_child=1.0, min_gain=1e-6):
    """Predictions of XGBoost's rules written plainly (recursion, every histogram summed directly, no sibling
    subtraction), on standardised targets as the module does."""
    base, scale = y.mean(), (y.std() if y.std() > 0 else 1.0)
    target = (y - base) / scale
    pred = np.zeros(len(y))

    def grow(rows, level, out):
        g = pred[rows] - target[rows]
        G, H = g.sum(), float(len(rows))
        if level < depth:
            best, split = min_gain, -1
            for j in range(X.shape[1]):
                right = X[rows, j] == 1
                hr, hl = right.sum(), H - right.sum()
                if hr < min_child or hl < min_child:
                    continue
                gr = g[right].sum()
                gain = (G - gr) ** 2 / (hl + lam) + gr ** 2 / (hr + lam) - G ** 2 / (H + lam)
                if gain > best:
                    best, split = gain, j
            if split >= 0:
                grow(rows[X[rows, split] == 0], level + 1, out)
                grow(rows[X[rows, split] == 1], level + 1, out)
                return
        out[rows] = -eta * G / (H + lam)

    for _ in range(n_trees):
        step = np.zeros(len(y))
        grow(np.arange(len(y)), 0, step)
        pred += step
    return base + scale * pred


def data(seed, m, n, scale=1.0):
    rng = np.random.default_rng(seed)
    X = (rng.random((m, n)) < rng.uniform(0.2, 0.8)).astype(np.uint8)
    y = X @ rng.normal(size=n) + 1.5 * X[:, 0] * X[:, 1] - X[:, 2] * X[:, 3] * X[:, 4] + 0.3 * rng.normal(size=m)
    return X, scale * y


@pytest.mark.parametrize("seed,m,n", [(0, 60, 6), (1, 300, 12), (2, 41, 9), (3, 500, 30)])
def test_matches_the_plain_reference(seed, m, n):
    X, y = data(seed, m, n)
    ensemble = fit_binary_boost(X, y, n_trees=30)
    np.testing.assert_allclose(ensemble.predict(X.astype(float))[:, 0], reference_boost(X, y, n_trees=30),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed,m,n", [(0, 200, 8), (4, 600, 30)])
def test_agrees_with_xgboost_to_float32_rounding(seed, m, n):
    xgboost = pytest.importorskip("xgboost")
    X, y = data(seed, m, n)
    y = (y - y.mean()) / y.std()  # unit scale: XGBoost's absolute gain threshold is then the module's
    ours = fit_binary_boost(X, y)
    theirs = xgboost.XGBRegressor(n_estimators=100, max_depth=4, learning_rate=0.2, n_jobs=1, tree_method="hist")
    theirs.fit(X.astype(np.float32), y)
    rows = (np.random.default_rng(seed + 10).random((1000, n)) < 0.5)
    np.testing.assert_allclose(ours.predict(rows.astype(float))[:, 0], theirs.predict(rows.astype(np.float32)),
                               atol=1e-4)


def test_the_fit_does_not_depend_on_the_game_scale_or_offset():
    X, y = data(5, 300, 10)
    rows = X.astype(float)
    base = fit_binary_boost(X, y).predict(rows)[:, 0]
    for scale, shift in ((1e-30, 0.0), (1e12, 0.0), (1.0, 1e3), (1e-9, -2.0), (1e-200, 0.0), (1e200, 0.0),
                         (1e300, 0.0)):
        np.testing.assert_allclose(fit_binary_boost(X, scale * y + shift).predict(rows)[:, 0],
                                   scale * base + shift, rtol=1e-9, atol=1e-9 * scale)


def test_a_constant_game_gives_leaves_only():
    X, _ = data(6, 50, 5)
    ensemble = fit_binary_boost(X, np.full(50, 2.5))
    assert np.all(ensemble.feature == -1) and ensemble.n_trees == 100
    np.testing.assert_allclose(ensemble.predict(X.astype(float))[:, 0], 2.5)


def test_ties_go_to_the_lower_feature_and_small_children_are_refused():
    rng = np.random.default_rng(7)
    column = (rng.random(80) < 0.5).astype(np.uint8)
    X = np.stack([np.zeros(80, np.uint8), column, column, column], axis=1)
    X[0, 3] = 1 - X[0, 3]  # column 3 differs from 1 and 2 in one row only
    y = 3.0 * column + 0.01 * rng.normal(size=80)
    ensemble = fit_binary_boost(X, y, n_trees=1, max_depth=1)
    assert ensemble.feature[ensemble.roots[0]] == 1  # columns 1 and 2 tie; the lower wins
    X = np.zeros((20, 2), np.uint8)
    X[0, 0] = 1  # one row with x_0 = 1: a child of weight 1 < min_child_weight 2
    X[:10, 1] = 1
    y = 5.0 * X[:, 0] + X[:, 1]
    assert fit_binary_boost(X, y, n_trees=1, max_depth=1, min_child_weight=2.0).feature[0] == 1


def test_features_that_split_a_node_alike_tie_to_the_lower_one_as_in_xgboost():
    """Features 0 and 2 split the second node's rows alike (not its parent's): one child's sums come by
    subtraction, rounded differently per feature; the tie must still go to the lower feature, as XGBoost does,
    or the trees differ on coalitions that were not sampled."""
    X = np.array([[1, 1, 0], [0, 0, 0], [1, 0, 1]], dtype=np.uint8)
    y = np.array([1.7, 0.3, 0.9])
    ensemble = fit_binary_boost(X, y, n_trees=1, max_depth=2)
    assert sorted(ensemble.feature[ensemble.feature >= 0].tolist()) == [0, 1]
    every = ((np.arange(8)[:, None] >> np.arange(3)) & 1).astype(float)
    np.testing.assert_allclose(fit_binary_boost(X, y).predict(every)[:, 0],
                               reference_boost_on(X, y, every), atol=1e-9)


def reference_boost_on(X, y, rows):
    """The plain reference's trees evaluated on other rows (fitted with those rows appended at no weight: not
    possible with counts as hessians, so refit on X and route ``rows`` through the same splits)."""
    base, scale = y.mean(), y.std()
    target, pred, out = (y - base) / scale, np.zeros(len(y)), np.zeros(len(rows))

    def grow(rows_in, others, level):
        g = pred[rows_in] - target[rows_in]
        G, H = g.sum(), float(len(rows_in))
        best, split = 1e-6, -1
        if level < 4:
            for j in range(X.shape[1]):
                right = X[rows_in, j] == 1
                hr, hl = right.sum(), H - right.sum()
                if hr < 1 or hl < 1:
                    continue
                gr = g[right].sum()
                gain = (G - gr) ** 2 / (hl + 1.0) + gr ** 2 / (hr + 1.0) - G ** 2 / (H + 1.0)
                if gain > best:
                    best, split = gain, j
        if split < 0:
            leaf = -0.2 * G / (H + 1.0)
            step[rows_in] = leaf
            other_step[others] = leaf
            return
        grow(rows_in[X[rows_in, split] == 0], others[rows[others, split] == 0], level + 1)
        grow(rows_in[X[rows_in, split] == 1], others[rows[others, split] == 1], level + 1)

    for _ in range(100):
        step, other_step = np.zeros(len(y)), np.zeros(len(rows))
        grow(np.arange(len(y)), np.arange(len(rows)), 0)
        pred += step
        out += other_step
    return base + scale * out


def test_the_fit_does_not_depend_on_the_order_of_the_rows():
    X, y = data(9, 120, 6)
    every = ((np.arange(64)[:, None] >> np.arange(6)) & 1).astype(float)
    order = np.random.default_rng(0).permutation(120)
    np.testing.assert_allclose(fit_binary_boost(X[order], y[order]).predict(every),
                               fit_binary_boost(X, y).predict(every), atol=1e-9)


def test_bad_inputs_are_named():
    X, y = data(8, 30, 5)
    for bad in (2 * X, X - 0.5, np.where(X == 1, np.nan, 0.0), X.astype(np.int64) * 256):
        with pytest.raises(ValueError, match="coalitions: expected 0/1"):
            fit_binary_boost(bad, y)
    with pytest.raises(ValueError, match="max_depth"):
        fit_binary_boost(X, y, max_depth=17)
    with pytest.raises(ValueError, match="l2, min_child_weight"):
        fit_binary_boost(X, y, l2=0.0, min_child_weight=0.0)
    with pytest.raises(ValueError, match="coalitions: expected a"):
        fit_binary_boost(X, y[:-1])
    with pytest.raises(ValueError, match="values: the surrogate needs finite"):
        fit_binary_boost(X, np.where(np.arange(30) == 3, np.nan, y))
