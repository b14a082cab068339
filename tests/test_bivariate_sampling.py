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


@pytest.mark.parametrize("chunk", [None, 7 * 25])
@pytest.mark.parametrize("antithetic", [False, True])
def test_permutation_standard_errors_survive_a_large_offset(antithetic, chunk, monkeypatch):
    """Regression: running sums of squares cancelled with a 1e9 offset on player 0 (chunked sums too)."""
    from interplay.estimators import bivariate_sampling

    if chunk is not None:  # 7 * 25 entries: chunks of 7 permutations (6 for antithetic), merged
        monkeypatch.setattr(bivariate_sampling, "_CHUNK", chunk)
    _, values = table(5, 0)
    powers = 1 << np.arange(5)
    results = []
    for offset in (0.0, 1e9):
        game = ip.Game(lambda c, offset=offset: offset * c[:, 0] + values[c.astype(np.int64) @ powers], 5)
        results.append(ip.bivariate(game, method="permutation", budget=402, random_state=0, antithetic=antithetic))
    base, shifted = results
    np.testing.assert_allclose(shifted.univariate.std_errors, base.univariate.std_errors, rtol=1e-5)
    off = ~np.eye(5, dtype=bool)
    # column 0 holds the offset (1e9 * 1{i precedes 0}): compare the other columns; with antithetic pairs the
    # pair mean of column 0 is 0.5 * (1e9 + finite part), whose spread must not be lost either
    cols = slice(0, 5) if antithetic else slice(1, 5)
    np.testing.assert_allclose(shifted.std_errors[:, cols][off[:, cols]], base.std_errors[:, cols][off[:, cols]],
                               rtol=1e-5)


def test_running_moments_merge_chunks_exactly():
    from interplay.estimators._sampling import RunningMoments

    samples = 1e9 + np.random.default_rng(0).normal(size=(101, 3, 2))
    moments = RunningMoments((3, 2))
    for start in range(0, 101, 17):
        moments.add(samples[start:start + 17])
    np.testing.assert_allclose(moments.mean, samples.mean(axis=0), rtol=1e-15)
    np.testing.assert_allclose(moments.std_errors(), samples.std(axis=0, ddof=1) / np.sqrt(101), rtol=1e-6)


@pytest.mark.parametrize("options", [{}, {"univariate": "kernel"},
                                     {"common_random_numbers": False, "run_budget": 40}])
def test_general_advances_a_passed_generator(options):
    """Regression: method='general' deep-copied the Generator and never advanced it (repeated calls were equal)."""
    game, _ = table(6, 3)
    budget = 300 if "run_budget" in options else 40  # 40 < 2**6: kernel samples too
    rng = np.random.default_rng(5)
    first = ip.bivariate(game, method="general", budget=budget, random_state=rng, **options)
    second = ip.bivariate(game, method="general", budget=budget, random_state=rng, **options)
    assert not np.allclose(first.adjacency, second.adjacency)
    again = ip.bivariate(game, method="general", budget=budget, random_state=5, **options)
    np.testing.assert_array_equal(again.adjacency, first.adjacency)  # the same seed still reproduces
    if options.get("univariate") == "kernel":  # and advances the Generator as method="kernel" does
        rng = np.random.default_rng(5)
        ip.bivariate(game, method="kernel", budget=budget, random_state=rng)
        kernel = ip.bivariate(game, method="kernel", budget=budget, random_state=rng)
        np.testing.assert_allclose(second.adjacency, kernel.adjacency, atol=1e-10)


@pytest.mark.parametrize("method, options", [("permutation", {"antithetic": True}), ("permutation", {}),
                                             ("kernel", {"paired": False}), ("kernel", {}),
                                             ("general", {"univariate": "kernel"})])
def test_info_holds_the_resolved_budget_and_options(method, options):
    n = 6
    game, _ = table(n, 0)
    result = ip.bivariate(game, method=method, random_state=0, **options)
    defaults = {"permutation": {"antithetic": False}, "kernel": {"paired": True, "std_errors": True},
                "general": {"univariate": "permutation", "common_random_numbers": True}}[method]
    for key, value in {**defaults, **options}.items():
        assert result.info[key] == value, key
    if method == "general":  # no cap on the total by default; each run used the default budget
        assert result.info["budget"] is None and result.info["run_budget"] == 2048 + 2 * n
    else:
        assert result.info["budget"] == 2048 + 2 * n
        assert result.univariate.info["budget"] == 2048 + 2 * n
