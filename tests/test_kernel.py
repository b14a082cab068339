"""KernelSHAP (constrained weighted least squares, paired sampling) against exact Shapley values."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interplay as ip
from interplay.estimators._sampling import kernel_sample
from interplay.estimators.kernel import minimum_budget
from interplay.synthetic import UnanimitySum


def table(n, seed, **options):
    values = np.random.default_rng(seed).normal(size=2**n)
    powers = 1 << np.arange(n)
    return ip.Game(lambda c: values[c.astype(np.int64) @ powers], n, **options), values


@pytest.mark.parametrize("paired", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_exact_when_budget_covers_every_coalition(n, seed, paired):
    game, _ = table(n, seed)
    truth = ip.shapley(game).values
    for budget in (2**n, 2**n + 7):
        result = ip.shapley(game, method="kernel", budget=budget, random_state=seed, paired=paired)
        np.testing.assert_allclose(result.values, truth, atol=1e-10)
        np.testing.assert_array_equal(result.std_errors, 0.0)
        assert result.n_evaluations == 2**n


@pytest.mark.parametrize("paired", [True, False])
def test_error_shrinks_with_budget(paired):
    errors = []
    for budget in (60, 240, 1000):
        per_seed = []
        for seed in range(3):
            game, _ = table(11, seed)
            truth = ip.shapley(game).values
            result = ip.shapley(game, method="kernel", budget=budget, random_state=seed, paired=paired)
            assert result.values.sum() == pytest.approx(truth.sum(), abs=1e-9)  # efficiency is exact
            per_seed.append(np.abs(result.values - truth).mean())
        errors.append(np.mean(per_seed))
    assert errors[1] < 0.75 * errors[0] and errors[2] < 0.65 * errors[1], errors


def test_unanimity_game_converges_and_standard_errors_are_calibrated():
    soum = UnanimitySum.random(16, n_terms=25, max_size=4, random_state=0)
    truth = soum.shapley()
    rmse = []
    for budget in (150, 1200):
        runs = [ip.shapley(soum.game(), method="kernel", budget=budget, random_state=s) for s in range(25)]
        estimates = np.array([r.values for r in runs])
        rmse.append(np.sqrt(((estimates - truth) ** 2).mean()))
        spread = estimates.std(axis=0, ddof=1).mean()
        mean_se = np.mean([r.std_errors for r in runs])
        assert 0.7 * spread < mean_se < 1.4 * spread, (mean_se, spread)
    assert rmse[1] < 0.5 * rmse[0], rmse


def test_additive_game_is_exact_at_any_budget():
    weights = np.random.default_rng(3).normal(size=20)
    game = ip.Game(lambda c: c @ weights + 1.5, 20)
    result = ip.shapley(game, method="kernel", budget=60, random_state=0)
    np.testing.assert_allclose(result.values, weights, atol=1e-10)


def test_sample_enumerates_whole_sizes_and_weights_are_the_kernel():
    n = 10
    sample = kernel_sample(n, 400, np.random.default_rng(0), paired=True)
    assert len(sample.coalitions) <= 400
    keys = {tuple(row) for row in sample.coalitions}
    assert len(keys) == len(sample.coalitions)  # deduplicated
    sizes = sample.coalitions.sum(axis=1)
    # masses (n-1)/(s(n-s)) normalised: group {1,9} .393, {2,8} .221, {3,7} .168; rule rows * q / q_left >= count:
    # 400 * .393 = 157 >= 20; 380 * .221 / .607 = 138 >= 90; 290 * .168 / .386 = 126 < 240
    assert sample.enumerated_sizes == (1, 9, 2, 8)
    assert kernel_sample(n, 100, np.random.default_rng(0)).enumerated_sizes == (1, 9)  # 80 * .221 / .607 < 90
    for s in sample.enumerated_sizes:
        assert (sizes[: sample.n_enumerated] == s).sum() == len(list(combinations(range(n), s)))
    assert not np.isin(sizes[sample.n_enumerated:], sample.enumerated_sizes).any()
    assert sample.weights.sum() == pytest.approx(1.0)  # total kernel mass of sizes 1..n-1
    sampled = sample.coalitions[sample.n_enumerated:]
    half = len(sampled) // 2
    np.testing.assert_array_equal(sampled[half:], ~sampled[:half])  # paired: complements


@pytest.mark.parametrize("paired", [True, False])
def test_same_seed_same_result_for_any_batch_size(paired):
    results = []
    for batch_size in (1, 7, None):
        game, _ = table(9, 4, batch_size=batch_size)
        results.append(ip.shapley(game, method="kernel", budget=120, random_state=3, paired=paired).values)
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_array_equal(results[0], results[2])


@pytest.mark.parametrize("budget", [18, 19, 57, 300, 511, 512, 5000])
def test_budget_never_exceeded(budget):
    game, _ = table(9, 5, cache=False)
    result = ip.shapley(game, method="kernel", budget=budget, random_state=0)
    assert game.n_evaluations == result.n_evaluations <= budget


@pytest.mark.parametrize("n, paired, minimum",
                         [(8, True, 16), (9, True, 18), (9, False, 10), (3, True, 6), (2, True, 4)])
def test_too_small_budget_names_the_minimum(n, paired, minimum):
    assert minimum_budget(n, paired=paired) == minimum
    game, _ = table(n, 0)
    with pytest.raises(ValueError, match=f"at least {minimum} coalition evaluations"):
        ip.shapley(game, method="kernel", budget=minimum - 1, paired=paired)
    ip.shapley(game, method="kernel", budget=minimum, paired=paired)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 11), extra=st.integers(0, 3000), seed=st.integers(0, 2**16),
       kind=st.sampled_from(["shapley:kernel", "shapley:permutation", "shapley:antithetic", "bivariate:kernel",
                             "bivariate:permutation"]))
def test_budget_property(n, extra, seed, kind):
    """Any size, any budget above the minimum: the uncached game is asked at most ``budget`` coalitions."""
    entry, method = kind.split(":")
    minimum = {"kernel": minimum_budget(n), "permutation": n + 1, "antithetic": 2 * n}[method]
    budget = minimum + extra
    game, _ = table(n, seed, cache=False)
    result = getattr(ip, entry)(game, method=method, budget=budget, random_state=seed)
    assert game.n_evaluations == result.n_evaluations <= budget
    values = result.values if entry == "shapley" else result.univariate.values
    assert np.all(np.isfinite(values))
    assert values.sum() == pytest.approx(game(np.ones((1, n), dtype=bool))[0] - game(np.zeros((1, n), bool))[0])


@pytest.mark.parametrize("budget, paired", [(4, False), (6, True)])
def test_no_standard_errors_without_residual_degrees_of_freedom(budget, paired):
    """Regression: n - 1 sampled units fit exactly, the residuals vanish and std_errors were ~1e-16."""
    game = ip.synthetic.random_game(3, random_state=1)
    truth = ip.shapley(game).values
    result = ip.shapley(game, method="kernel", budget=budget, paired=paired, random_state=0)
    assert result.info["n_sampled_units"] == 2
    assert np.abs(result.values - truth).max() > 0.5  # a real error, which a zero standard error would hide
    assert result.std_errors is None
    biv = ip.bivariate(game, method="kernel", budget=budget, paired=paired, random_state=0)
    assert biv.std_errors is None and biv.univariate.std_errors is None


def test_standard_errors_cover_at_small_budgets():
    """95% intervals at n=6 with 11 and 8 sampled pairs (5 free unknowns): the sandwich alone covered ~0.83;
    with the degrees-of-freedom factor sqrt(U / (U - (n - 1))) about 0.93."""
    hits = []
    for game_seed in range(8):
        game = ip.synthetic.random_game(6, random_state=game_seed)
        truth = ip.shapley(game).values
        for budget in (24, 30):
            for seed in range(12):
                result = ip.shapley(game, method="kernel", budget=budget, random_state=seed)
                hits.append(np.abs(result.values - truth) < 1.96 * result.std_errors)
    coverage = np.mean(hits)
    assert 0.89 < coverage < 0.99, coverage


def test_many_players_do_not_overflow():
    """Regression: C(1100, s) was converted to float (OverflowError); only its comparison with rows matters."""
    n = 1100
    game = ip.Game(lambda c: c[:, 0] * 1.0, n)
    result = ip.shapley(game, method="kernel", budget=2 * n + 10, random_state=0)
    assert result.n_evaluations <= 2 * n + 10
    np.testing.assert_allclose(result.values, np.eye(n)[0], atol=1e-8)  # additive game: exact at any budget


def test_gram_solver_cholesky_and_rank_deficient_fallback():
    from interplay.estimators._sampling import gram_solver

    rng = np.random.default_rng(0)
    a = rng.normal(size=(30, 6))
    b = rng.normal(size=(6, 3))
    full = a.T @ a
    np.testing.assert_allclose(gram_solver(full)(b), np.linalg.solve(full, b), atol=1e-12)
    low = a[:, :4] @ rng.normal(size=(4, 6))  # rank 4: the minimum-norm solution, as the pseudo-inverse gives
    deficient = low.T @ low
    np.testing.assert_allclose(gram_solver(deficient)(b), np.linalg.pinv(deficient, hermitian=True) @ b, atol=1e-10)


def test_symmetric_inverse_reads_the_upper_triangle_and_returns_a_symmetric_inverse():
    from interplay.estimators._sampling import symmetric_inverse

    rng = np.random.default_rng(1)
    a = rng.normal(size=(40, 9))
    full = a.T @ a
    upper_only = np.triu(full) + np.tril(rng.normal(size=(9, 9)), -1)  # garbage below the diagonal
    inverse = symmetric_inverse(upper_only)
    np.testing.assert_array_equal(inverse, inverse.T)
    np.testing.assert_allclose(inverse @ full, np.eye(9), atol=1e-10)


@pytest.mark.parametrize("paired", [True, False])
def test_info_holds_the_resolved_budget_and_options(paired):
    game, _ = table(12, 0)
    result = ip.shapley(game, method="kernel", paired=paired, random_state=0)  # default budget 2048 + 2n
    assert result.info["budget"] == 2048 + 2 * 12 and result.info["paired"] is paired
    assert ip.shapley(game, method="kernel", budget=77, random_state=0).info["budget"] == 77


@pytest.mark.parametrize("method", ["kernel", "leverage"])
def test_standard_errors_scale_with_the_game_at_any_magnitude(method):
    # the sandwich's squares of residuals stay in range from 1e-150 to 1e150 games (float32 would not hold them)
    W = np.random.default_rng(0).normal(size=(12, 8))
    errors = {}
    for scale in (1.0, 1e25, 1e-25, 1e150, 1e-150):
        game = ip.Game(lambda Z, s=scale: s * np.tanh(Z @ W).sum(axis=1), 12)
        result = ip.shapley(game, method=method, budget=300, random_state=0)
        errors[scale] = result.std_errors / scale
        assert np.all(np.isfinite(result.std_errors)) and np.all(result.std_errors > 0)
    for value in errors.values():
        np.testing.assert_allclose(value, errors[1.0], rtol=1e-12)


@pytest.mark.parametrize("n, budget, seed", [(12, 300, 1), (40, 600, 2), (100, 2046, 0)])
def test_single_precision_gram_is_the_exact_sum(n, budget, seed):
    """The reduced design's Gram matrix from single-precision syrk (every row at the most common weight) and
    double corrections (the other weights' rows) against integer Gram matrices per weight, rounded once; the
    double syrk over scaled rows is the looser of the two."""
    from interplay.estimators._sampling import weighted_gram

    sample = kernel_sample(n, budget, np.random.default_rng(seed))
    first, units = sample.n_enumerated, len(sample.counts)
    head = first + units
    design = sample.coalitions[:head, :-1].astype(float)
    design[sample.coalitions[:head, -1]] -= 1.0
    weights = np.concatenate([sample.weights[:first], 2.0 * sample.weights[first:head]])
    assert 1 < len(np.unique(weights)) <= 8  # several weights: the corrections are tested
    integer = design.astype(np.int64)
    reference = sum(w * (integer[weights == w].T @ integer[weights == w]).astype(float) for w in np.unique(weights))
    upper = np.triu_indices(n - 1)
    single = weighted_gram(design, weights, signs_only=True)[upper]
    double = weighted_gram(design, weights)[upper]
    scale = np.abs(reference).max()
    assert np.abs(single - reference[upper]).max() <= 1e-15 * scale
    np.testing.assert_allclose(double, reference[upper], rtol=0, atol=1e-13 * scale)
    many = weights * (1.0 + np.arange(len(weights)) * 1e-3)  # more than 8 weights: the double syrk
    np.testing.assert_array_equal(weighted_gram(design, many, signs_only=True), weighted_gram(design, many))


def test_gram_factor_solves_by_the_factor_then_by_the_inverse():
    """GramFactor: triangular solves while the right-hand sides asked for stay within d, then the inverse; the
    same solutions either way (and the pseudo-inverse for a singular matrix)."""
    from interplay.estimators._sampling import GramFactor

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 6))
    gram = X.T @ X
    exact = np.linalg.inv(gram)
    factor = GramFactor(np.triu(gram))  # only the upper triangle is read
    b = rng.standard_normal((6, 4))
    np.testing.assert_allclose(factor.solve(b), exact @ b, rtol=1e-10, atol=1e-12)
    assert factor._inverse is None  # 4 <= 6 right-hand sides: no inverse formed
    np.testing.assert_allclose(factor.row_sums(), exact.sum(axis=0), rtol=1e-10, atol=1e-12)
    out = np.empty((6, 3))
    assert factor.solve(b[:, :3], out=out) is out  # 4 + 1 + 3 > 6: the inverse from here
    assert factor._inverse is not None
    np.testing.assert_allclose(out, exact @ b[:, :3], rtol=1e-10, atol=1e-12)
    singular = np.outer(X[0], X[0])
    np.testing.assert_allclose(GramFactor(singular).solve(b), np.linalg.pinv(singular) @ b, atol=1e-12)
