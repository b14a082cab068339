"""Exact tree interaction indices (Banzhaf, pairwise SII/BII, Bivariate Shapley) from per-leaf closed forms,
against the core's exact enumeration; and at hundreds of features, against a small embedded problem."""

from itertools import combinations

import numpy as np
import pytest

import interplay as ip
from interplay.estimators import exact
from interplay.trees import TreeEnsemble, as_ensemble, interventional_indices

sk_ensemble = pytest.importorskip("sklearn.ensemble")

D = 6
RNG = np.random.default_rng(3)
X = RNG.normal(size=(200, D))
Y = X[:, 0] * X[:, 1] + np.sin(X[:, 2]) + (X[:, 3] > 0) * X[:, 4] + 0.3 * X[:, 5]


@pytest.fixture(scope="module")
def boosted():
    return sk_ensemble.GradientBoostingRegressor(n_estimators=15, max_depth=4, random_state=0).fit(X, Y)


@pytest.mark.parametrize("row", [0, 7, 19])
def test_indices_match_core_exact_enumeration(boosted, row):
    explainer = ip.Explainer(boosted, X[-9:])
    values = exact.evaluate_all(explainer.game(X[row]))
    got = interventional_indices(as_ensemble(boosted), X[row], X[-9:])
    np.testing.assert_allclose(got.shapley, exact.shapley_from_values(values, D), atol=1e-12)
    np.testing.assert_allclose(got.banzhaf, exact.banzhaf_from_values(values, D), atol=1e-12)
    for index, matrix in (("sii", got.sii), ("bii", got.bii)):
        reference = exact.interactions_from_values(values, D, index, 2)
        for (i, j) in combinations(range(D), 2):
            assert matrix[i, j] == pytest.approx(reference[(i, j)], abs=1e-12)
            assert matrix[j, i] == matrix[i, j]
    adjacency, phi = exact.bivariate_from_values(values, D)
    np.testing.assert_allclose(got.adjacency, adjacency, atol=1e-12)
    assert np.all(np.diag(got.adjacency) == 0)
    assert got.base == pytest.approx(values[0])


def test_explainer_interactions_and_bivariate_method_tree(boosted):
    explainer = ip.Explainer(boosted, X[-7:])
    for index in ("sii", "bii"):
        tree = explainer.interactions(X[4], index=index, order=2, method="tree")
        ref = explainer.interactions(X[4], index=index, order=2)
        assert set(tree.values) == set(ref.values)
        for key, value in ref.values.items():
            assert tree.values[key] == pytest.approx(value, abs=1e-12)
    tree = explainer.bivariate(X[4], method="tree")
    ref = explainer.bivariate(X[4])
    np.testing.assert_allclose(tree.adjacency, ref.adjacency, atol=1e-12)
    np.testing.assert_allclose(tree.univariate.values, ref.univariate.values, atol=1e-12)
    assert tree.n_evaluations == 0 and tree.method == "tree"


def _embedded(ensemble: TreeEnsemble, positions: np.ndarray, n_features: int) -> TreeEnsemble:
    """The same trees with feature k renamed positions[k], in a space of n_features (the rest are dummies)."""
    feature = np.where(ensemble.feature >= 0, positions[np.maximum(ensemble.feature, 0)], -1)
    return TreeEnsemble(feature=feature, threshold=ensemble.threshold, left=ensemble.left, right=ensemble.right,
                        default_left=ensemble.default_left, value=ensemble.value, cover=ensemble.cover,
                        roots=ensemble.roots, base=ensemble.base, n_features=n_features,
                        float32_inputs=ensemble.float32_inputs)


def test_hundreds_of_features_equal_the_small_exact_problem(boosted):
    """300 features, 6 used: the indices of the used ones equal exact enumeration on 6 (+1 dummy) players;
    the 294 dummies get zero values, and their bivariate rows equal the row of a dummy in the small game."""
    n = 300
    positions = np.sort(np.random.default_rng(0).choice(n, D, replace=False))
    big = _embedded(as_ensemble(boosted), positions, n)
    x, background = X[5], X[-8:]
    X_big = np.zeros((1, n))
    X_big[0, positions] = x
    B_big = np.zeros((len(background), n))
    B_big[:, positions] = background
    got = interventional_indices(big, X_big, B_big)
    # small exact problem with one extra dummy player (index D)
    padded = lambda Z: boosted.predict(np.asarray(Z)[:, :D])  # noqa: E731
    explainer = ip.Explainer(padded, np.hstack([background, np.zeros((len(background), 1))]))
    values = exact.evaluate_all(explainer.game(np.append(x, 0.0)))
    adjacency, phi = exact.bivariate_from_values(values, D + 1)
    np.testing.assert_allclose(got.shapley[positions], phi[:D], atol=1e-12)
    assert np.count_nonzero(got.shapley) <= D
    sii = exact.interactions_from_values(values, D + 1, "sii", 2)
    bii = exact.interactions_from_values(values, D + 1, "bii", 2)
    for a, b in combinations(range(D), 2):
        assert got.sii[positions[a], positions[b]] == pytest.approx(sii[(a, b)], abs=1e-12)
        assert got.bii[positions[a], positions[b]] == pytest.approx(bii[(a, b)], abs=1e-12)
    np.testing.assert_allclose(got.adjacency[np.ix_(positions, positions)], adjacency[:D, :D], atol=1e-12)
    dummies = np.setdiff1d(np.arange(n), positions)
    np.testing.assert_allclose(got.adjacency[np.ix_(dummies, positions)],
                               np.broadcast_to(adjacency[D, :D], (len(dummies), D)), atol=1e-12)
    assert np.all(got.adjacency[:, dummies] == 0)
