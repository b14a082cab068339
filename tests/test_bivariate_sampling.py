"""Bivariate Shapley estimators (Alg. 1 permutation, Alg. 2 kernel, Eq. 5 general) against the exact matrix."""

import numpy as np
import pytest

import interplay as ip
from interplay.synthetic import UnanimitySum


def table(n, seed, **options):
    values = np.random.default_rng(seed).normal(size=2**n)
    powers = 1 << np.arange(n)
    return ip.Game(lambda c: values[c.astype(np.int64) @ powers], n, **options), values


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_kernel_and_general_kernel_exact_with_full_budget(n, seed):
    game, _ = table(n, seed)
    truth = ip.bivariate(game)
    for method, options in (("kernel", {}), ("general", {"univariate": "kernel"})):
        fresh, _ = table(n, seed)
        result = ip.bivariate(fresh, method=method, budget=2**n, random_state=seed, **options)
        np.testing.assert_allclose(result.adjacency, truth.adjacency, atol=1e-10)
        np.testing.assert_allclose(result.univariate.values, truth.univariate.values, atol=1e-10)
        assert fresh.n_evaluations <= result.n_evaluations <= 2**n


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_estimators_agree_with_exact_within_their_errors(seed):
    n = 7
    game, _ = table(n, seed)
    truth = ip.bivariate(game).adjacency
    off = ~np.eye(n, dtype=bool)
    for method, options, budget in (("permutation", {}, 6000), ("permutation", {"antithetic": True}, 6000),
                                    ("kernel", {}, 100), ("kernel", {"paired": False}, 100)):
        result = ip.bivariate(table(n, seed)[0], method=method, budget=budget, random_state=seed, **options)
        assert np.all(np.diag(result.adjacency) == 0)
        z = np.abs(result.adjacency - truth)[off] / result.std_errors[off]
        assert np.all(z < 5.0), (method, options, z.max())
        assert np.abs(result.adjacency - truth).max() < 0.5


@pytest.mark.parametrize("method", ["permutation", "kernel"])
def test_error_shrinks_with_budget_on_a_large_unanimity_game(method):
    soum = UnanimitySum.random(24, n_terms=30, max_size=3, random_state=0)
    truth = soum.bivariate()
    errors = []
    for budget in (600, 9600):
        per_seed = [np.abs(ip.bivariate(soum.game(), method=method, budget=budget, random_state=s).adjacency
                           - truth).mean() for s in range(2)]
        errors.append(np.mean(per_seed))
    assert errors[1] < 0.5 * errors[0], errors


def test_permutation_matrix_is_unbiased():
    game, _ = table(5, 7)
    truth = ip.bivariate(game).adjacency
    runs = np.array([ip.bivariate(game, method="permutation", budget=2 + 4 * 6, random_state=s).adjacency
                     for s in range(400)])
    spread = runs.std(axis=0, ddof=1)
    off = ~np.eye(5, dtype=bool)
    z = np.abs(runs.mean(axis=0) - truth)[off] / (spread[off] / np.sqrt(len(runs)))
    assert z.max() < 4.0, z.max()


@pytest.mark.parametrize("method, univariate", [("permutation", "permutation"), ("kernel", "kernel")])
def test_same_samples_give_the_univariate_values_at_no_extra_cost(method, univariate):
    game, _ = table(8, 3, cache=False)
    biv = ip.bivariate(game, method=method, budget=200, random_state=5)
    used = game.n_evaluations
    uni_game, _ = table(8, 3, cache=False)
    uni = ip.shapley(uni_game, method=univariate, budget=200, random_state=5)
    np.testing.assert_allclose(biv.univariate.values, uni.values, atol=1e-12)
    assert used == uni_game.n_evaluations == biv.n_evaluations == uni.n_evaluations <= 200


def test_general_with_kernel_equals_algorithm_2_and_costs_the_same():
    game, _ = table(9, 2)
    kernel = ip.bivariate(game, method="kernel", budget=150, random_state=8)
    counted, _ = table(9, 2)
    general = ip.bivariate(counted, method="general", univariate="kernel", budget=150, random_state=8)
    np.testing.assert_allclose(general.adjacency, kernel.adjacency, atol=1e-10)
    np.testing.assert_allclose(general.std_errors, kernel.std_errors, atol=1e-10)
    assert counted.n_evaluations == general.n_evaluations == kernel.n_evaluations


def test_general_with_permutation_and_its_budget_guard():
    n = 6
    game, _ = table(n, 4)
    truth = ip.bivariate(game).adjacency
    result = ip.bivariate(table(n, 4)[0], method="general", univariate="antithetic", budget=3000, random_state=1)
    assert result.method == "general:antithetic"
    assert np.abs(result.adjacency - truth).max() < 0.5
    with pytest.raises(ValueError, match="budget"):  # independent streams per u_i need more distinct coalitions
        ip.bivariate(table(10, 4)[0], method="general", univariate="permutation", budget=200, random_state=1,
                     common_random_numbers=False)
    with pytest.raises(ValueError, match="univariate"):
        ip.bivariate(game, method="general", univariate="nope")


@pytest.mark.parametrize("method", ["permutation", "kernel", "general"])
def test_same_seed_same_result_for_any_batch_size(method):
    results = []
    for batch_size in (1, 7, None):
        game, _ = table(7, 4, batch_size=batch_size)
        results.append(ip.bivariate(game, method=method, budget=90, random_state=3).adjacency)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


@pytest.mark.parametrize("method", ["permutation", "kernel", "general"])
@pytest.mark.parametrize("budget", [18, 41, 300])
def test_budget_never_exceeded(method, budget):
    game, _ = table(9, 1, cache=False)
    result = ip.bivariate(game, method=method, budget=budget, random_state=0)
    assert game.n_evaluations <= result.n_evaluations <= budget


@pytest.mark.parametrize("method, minimum", [("permutation", 10), ("kernel", 18)])
def test_too_small_budget_names_the_minimum(method, minimum):
    game, _ = table(9, 0)
    with pytest.raises(ValueError, match=f"at least {minimum} coalition evaluations"):
        ip.bivariate(game, method=method, budget=minimum - 1)


@pytest.mark.parametrize("method, options, budget", [("kernel", {}, 300), ("permutation", {}, 600),
                                                      ("permutation", {"antithetic": True}, 600)])
def test_standard_errors_match_the_spread_over_seeds(method, options, budget):
    soum = UnanimitySum.random(12, n_terms=20, max_size=3, random_state=0)
    runs = [ip.bivariate(soum.game(), method=method, budget=budget, random_state=s, **options) for s in range(30)]
    off = ~np.eye(12, dtype=bool)
    spread = np.array([r.adjacency for r in runs]).std(axis=0, ddof=1)[off].mean()
    mean_se = np.array([r.std_errors for r in runs]).mean(axis=0)[off].mean()
    assert 0.75 * spread < mean_se < 1.33 * spread, (mean_se, spread)


def test_kernel_matrix_without_standard_errors_is_the_same_matrix():
    game, _ = table(8, 6)
    with_se = ip.bivariate(game, method="kernel", budget=100, random_state=2)
    without = ip.bivariate(game, method="kernel", budget=100, random_state=2, std_errors=False)
    np.testing.assert_allclose(without.adjacency, with_se.adjacency, atol=1e-12)
    np.testing.assert_allclose(without.univariate.std_errors, with_se.univariate.std_errors, atol=1e-12)
    assert without.std_errors is None and with_se.std_errors is not None
