"""Permutation and antithetic permutation sampling against exact Shapley values (small games, several seeds)."""

import numpy as np
import pytest

import interplay as ip
from interplay.synthetic import UnanimitySum

METHODS = ["permutation", "antithetic"]


def table(n, seed, **options):
    """A random game given by its table of 2**n values, with Game options (batch_size, cache)."""
    values = np.random.default_rng(seed).normal(size=2**n)
    powers = 1 << np.arange(n)
    return ip.Game(lambda c: values[c.astype(np.int64) @ powers], n, **options), values


def exact(game):
    return ip.shapley(game).values


@pytest.mark.parametrize("method", METHODS)
def test_single_player_and_two_player_cases(method):
    game, values = table(1, 0)
    result = ip.shapley(game, method=method, budget=10, random_state=0)
    assert result.values[0] == pytest.approx(values[1] - values[0])
    game, _ = table(2, 1)
    result = ip.shapley(game, method=method, budget=1000, random_state=0)
    if method == "antithetic":  # the two orders of two players: exact
        np.testing.assert_allclose(result.values, exact(game), atol=1e-12)
    assert result.values.sum() == pytest.approx(exact(game).sum())


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n", [5, 9, 12])
def test_error_shrinks_with_budget(method, n):
    errors = []
    for budget in (20 * n, 320 * n):
        per_seed = []
        for seed in range(3):
            if n == 12:
                soum = UnanimitySum.random(n, n_terms=20, max_size=4, random_state=seed)
                game, truth = soum.game(), soum.shapley()
            else:
                game, _ = table(n, seed)
                truth = exact(game)
            result = ip.shapley(game, method=method, budget=budget, random_state=seed + 10)
            per_seed.append(np.abs(result.values - truth).mean())
            # efficiency holds exactly for every permutation
            assert result.values.sum() == pytest.approx(truth.sum(), abs=1e-9)
        errors.append(np.mean(per_seed))
    assert errors[1] < 0.5 * errors[0], errors  # 16x budget: about 4x smaller error expected


@pytest.mark.parametrize("method", METHODS)
def test_unbiased_and_standard_errors_calibrated(method):
    game, _ = table(6, 3)
    truth = exact(game)
    runs = [ip.shapley(game, method=method, budget=2 + 5 * 8, random_state=s) for s in range(300)]
    estimates = np.array([r.values for r in runs])
    spread = estimates.std(axis=0, ddof=1)
    z = np.abs(estimates.mean(axis=0) - truth) / (spread / np.sqrt(len(runs)))
    assert z.max() < 4.0, z
    mean_se = np.array([r.std_errors for r in runs]).mean(axis=0)
    assert np.all((mean_se > 0.75 * spread) & (mean_se < 1.33 * spread)), (mean_se, spread)


@pytest.mark.parametrize("method", METHODS)
def test_same_seed_same_result_for_any_batch_size(method):
    results = []
    for batch_size in (1, 7, None):
        game, _ = table(7, 4, batch_size=batch_size)
        results.append(ip.shapley(game, method=method, budget=300, random_state=11).values)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("budget", [16, 17, 50, 333])
def test_budget_never_exceeded(method, budget):
    n = 8
    game, _ = table(n, 5, cache=False)  # uncached: every requested coalition is evaluated
    result = ip.shapley(game, method=method, budget=budget, random_state=0)
    assert game.n_evaluations == result.n_evaluations <= budget
    per = 2 if method == "antithetic" else 1
    assert result.info["n_permutations"] == (budget - 2) // (n - 1) // per * per
    cached, _ = table(n, 5)
    again = ip.shapley(cached, method=method, budget=budget, random_state=0)
    assert cached.n_evaluations <= again.n_evaluations <= budget


@pytest.mark.parametrize("method, minimum", [("permutation", 9), ("antithetic", 16)])
def test_too_small_budget_names_the_minimum(method, minimum):
    game, _ = table(8, 0)
    with pytest.raises(ValueError, match=f"at least {minimum} coalition evaluations"):
        ip.shapley(game, method=method, budget=minimum - 1)
    ip.shapley(game, method=method, budget=minimum)  # the minimum itself is fine


def test_antithetic_pairs_reverse_orders():
    from interplay.estimators._sampling import draw_permutations

    perms = draw_permutations(6, 5, np.random.default_rng(0), antithetic=True)
    np.testing.assert_array_equal(perms[1::2], perms[0::2, ::-1])
    assert all(sorted(p) == list(range(5)) for p in perms)


@pytest.mark.parametrize("method", METHODS)
def test_standard_errors_survive_a_large_offset(method):
    """Regression: running sums of squares cancelled, std_errors[0] was 0 (or garbage) with a 1e9 offset."""
    _, values = table(5, 0)
    powers = 1 << np.arange(5)
    results = []
    for offset in (0.0, 1e9):
        game = ip.Game(lambda c, offset=offset: offset * c[:, 0] + values[c.astype(np.int64) @ powers], 5)
        results.append(ip.shapley(game, method=method, budget=402, random_state=0))
    assert results[0].std_errors[0] > 0.01
    np.testing.assert_allclose(results[1].std_errors, results[0].std_errors, rtol=1e-5)


@pytest.mark.parametrize("method", METHODS)
def test_info_holds_the_resolved_budget_and_options(method):
    game, _ = table(5, 0)
    result = ip.shapley(game, method=method, random_state=0)  # default budget 2048 + 2n
    assert result.info["budget"] == 2048 + 2 * 5
    assert result.info["antithetic"] == (method == "antithetic")
    assert ip.shapley(game, method=method, budget=77, random_state=0).info["budget"] == 77


def test_antithetic_standard_error_can_be_exactly_zero_without_being_exact():
    """Documented: with few pairs the pair means of a player can coincide (zero sample variance)."""
    game, _ = table(3, 0)
    result = ip.shapley(game, method="antithetic", budget=2 + 4 * 2, random_state=0)  # 2 pairs
    np.testing.assert_array_equal(result.std_errors, 0.0)
    assert np.abs(result.values - exact(game)).max() > 0.1
