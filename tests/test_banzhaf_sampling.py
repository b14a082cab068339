"""Sampled Banzhaf values (MSR and paired sampling) against closed forms; budgets, standard errors, errors."""

import numpy as np
import pytest

import interplay as ip
from interplay.synthetic import UnanimitySum

METHODS = ["msr", "sampling"]


@pytest.mark.parametrize("method", METHODS)
def test_converges_to_exact_with_shrinking_error(method):
    soum = UnanimitySum.random(8, n_terms=15, max_size=3, random_state=4)
    exact = soum.banzhaf()
    errors = []
    for budget in (200, 2000, 20000):
        errors.append(np.mean([np.abs(ip.banzhaf(soum.game(), method=method, budget=budget, random_state=s).values
                                      - exact).max() for s in range(5)]))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < 0.06


@pytest.mark.parametrize("method", METHODS)
def test_unbiased_and_standard_errors_calibrated(method):
    soum = UnanimitySum.random(12, n_terms=20, max_size=3, random_state=1)
    exact = soum.banzhaf()
    runs = [ip.banzhaf(soum.game(), method=method, budget=600, random_state=s) for s in range(40)]
    values = np.array([r.values for r in runs])
    ses = np.array([r.std_errors for r in runs])
    spread = values.std(axis=0, ddof=1)
    assert np.all(np.abs(values.mean(axis=0) - exact) < 4 * spread / np.sqrt(40) + 1e-12)
    np.testing.assert_allclose(ses.mean(axis=0), spread, rtol=0.35, atol=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_budget_never_exceeded(method):
    soum = UnanimitySum.random(20, n_terms=30, random_state=0)
    calls = []
    counting = ip.Game(lambda S: (calls.append(len(S)), soum.value(S))[1], 20, cache=False)
    for budget in (81, 100, 1001):
        calls.clear()
        result = ip.banzhaf(counting, method=method, budget=budget, random_state=0)
        assert result.n_evaluations == sum(calls) <= budget
    minimum = {"msr": 5, "sampling": 81}[method]
    with pytest.raises(ValueError, match=f"at least {minimum}"):
        ip.banzhaf(counting, method=method, budget=minimum - 1)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("batch_size", [1, 7, None])
def test_same_seed_same_result_for_any_batch_size(method, batch_size):
    soum = UnanimitySum.random(9, n_terms=10, random_state=2)
    reference = ip.banzhaf(soum.game(), method=method, budget=300, random_state=7)
    result = ip.banzhaf(soum.game(batch_size=batch_size), method=method, budget=300, random_state=7)
    np.testing.assert_allclose(result.values, reference.values, rtol=0, atol=1e-12)
    assert result.baseline == reference.baseline


def test_msr_reuses_every_sample_and_warns_when_a_group_is_empty():
    game = ip.Game(lambda S: S.sum(axis=1).astype(float), 30)
    result = ip.banzhaf(game, method="msr", budget=2001, random_state=0)
    assert np.all(np.abs(result.values - 1.0) < 5 * result.std_errors)   # additive game: Banzhaf values are 1
    assert result.n_evaluations <= 2001
    with pytest.warns(RuntimeWarning, match="too few samples"):
        ip.banzhaf(game, method="msr", budget=5, random_state=0)


def test_unknown_method():
    with pytest.raises(ValueError, match="method"):
        ip.banzhaf(UnanimitySum.random(3, random_state=0).game(), method="mrs")


@pytest.mark.parametrize("kind", ["banzhaf", "bii"])
def test_msr_standard_errors_ignore_a_constant_added_to_the_game(kind):
    """The within-group variance was square / count - mean**2: a constant of 1e9 cancelled every digit (standard
    errors 0.12, 0.19 at 1e8, exactly 0 at 1e9), while the estimates stayed the same."""
    n = 8
    w = np.random.default_rng(0).normal(size=n)

    def errors(offset):
        game = ip.Game(lambda M: offset + M.astype(float) @ w + M[:, 0] * M[:, 1], n)
        if kind == "banzhaf":
            return ip.banzhaf(game, method="msr", budget=240, random_state=1).std_errors
        return np.array(list(ip.interactions(game, index="bii", method="msr", budget=240,
                                             random_state=1).std_errors.values()))

    plain = errors(0.0)
    assert np.all(plain > 0)
    for offset in (1e8, 1e9):
        np.testing.assert_allclose(errors(offset), plain, rtol=1e-6)


def test_proxy_is_unbiased_where_draws_repeat():
    """Banzhaf proxy cross-fitted its surrogates on the distinct coalitions, so each was trained on coalitions
    other than the held-out ones by construction: biased where a budget covers much of 2**n (mean over 200 seeds
    7 standard errors off at 8 players and budget 200). Cross-fitted by draws, each fold's estimate is unbiased."""
    pytest.importorskip("numba")
    soum = UnanimitySum.random(8, n_terms=30, max_size=3, random_state=1)
    exact = soum.banzhaf()
    runs = [ip.banzhaf(soum.game(), method="proxy", budget=200, random_state=s) for s in range(200)]
    values = np.array([r.values for r in runs])
    assert np.mean([r.info["surrogate_used"] for r in runs]) > 0.5  # the adjusted estimate is what is tested
    spread = values.std(axis=0, ddof=1)
    assert np.all(np.abs(values.mean(axis=0) - exact) < 4 * spread / np.sqrt(200) + 1e-12)
    assert all(r.n_evaluations <= 200 for r in runs)
