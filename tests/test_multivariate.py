"""Exact multivariate extension E^k (Bivariate Shapley paper, App. A, Eq. 23) against a literal brute force."""

from itertools import product
from math import factorial

import numpy as np
import pytest

import interplay as ip
from interplay.estimators.multivariate import exact_multivariate

import _brute as brute


def literal(v, n, order):
    """out[i_1..i_{k-1}, j] = sum_{S subset N - j} |S|!(n-|S|-1)!/n! (u_C(S + j) - u_C(S)), C = {i_1..i_{k-1}}."""
    out = np.zeros((n,) * order)
    for index in product(range(n), repeat=order):
        *conditioning, j = index
        C = set(conditioning)

        def u(S):
            return v(S) if C <= set(S) else 0.0

        rest = [p for p in range(n) if p != j]
        out[index] = sum(
            factorial(len(S)) * factorial(n - len(S) - 1) / factorial(n) * (u(set(S) | {j}) - u(S))
            for S in brute.subsets(rest)
        )
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n, order", [(3, 3), (4, 3), (5, 3), (4, 4)])
def test_matches_literal_brute_force(n, order, seed):
    game = ip.synthetic.random_game(n, random_state=seed)
    v = brute.as_value(game, n)
    np.testing.assert_allclose(exact_multivariate(game, order=order), literal(v, n, order), atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_lower_orders_are_shapley_and_the_bivariate_adjacency(seed):
    n = 6
    game = ip.synthetic.random_game(n, random_state=seed)
    biv = ip.bivariate(game)
    e2 = exact_multivariate(game, order=2)
    off = ~np.eye(n, dtype=bool)
    np.testing.assert_allclose(e2[off], biv.adjacency[off], atol=1e-12)
    np.testing.assert_allclose(exact_multivariate(game, order=1), biv.univariate.values, atol=1e-12)
    e3 = exact_multivariate(game, order=3)
    for i in range(n):  # repeated conditioning index = conditioning on the set
        np.testing.assert_allclose(e3[i, i], e2[i], atol=1e-12)
    # efficiency of every conditioned game: u_C(N) - u_C(empty) = v(N)
    np.testing.assert_allclose(e3.sum(axis=-1), game.grand_value(), atol=1e-10)


def test_budget_below_enumeration_is_refused():
    game = ip.synthetic.random_game(5, random_state=0)
    with pytest.raises(ValueError, match="32"):
        exact_multivariate(game, order=3, budget=31)


@pytest.mark.parametrize("n, order", [(4, 5), (10, 10), (12, 9)])
def test_order_above_n_or_too_large_an_output_is_refused_before_evaluating(n, order):
    """Regression: order had no upper bound (the output holds n**order floats): clear error naming order."""
    game = ip.synthetic.random_game(n, random_state=0)
    with pytest.raises(ValueError, match="order"):
        exact_multivariate(game, order=order)
    assert game.n_evaluations == 0
    exact_multivariate(game, order=min(n, 3))  # a modest order is fine
