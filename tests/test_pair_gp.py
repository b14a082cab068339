"""The pair GP (``interactions(method="gp")``): closed forms against brute-force sums over Walsh terms and
against exact enumeration of the fitted function; the estimator against exact values (full budget, budgets,
batch sizes, seeds) and its standard errors."""

import warnings
from itertools import combinations

import numpy as np
import pytest

import interplay as ip
from interplay.estimators import _walsh_gp, pair_gp
from interplay.synthetic import UnanimitySum, random_game

pytest.importorskip("xgboost")


def _chi(S, T):
    return np.prod(np.where(S[:, list(T)], 1.0, -1.0), axis=1)


def _weight(T, rho):
    return np.prod(rho[list(T)]) / np.prod(1.0 + rho)


def _sets(n, parity):
    start = 1 if parity == "odd" else 0
    return [T for d in range(start, n + 1, 2) for T in combinations(range(n), d)]


def _decays(n, seed=0):
    rho = np.random.default_rng(seed).uniform(0.0, 0.6, n)
    rho[-1] = 0.0  # a player the surrogate never used
    return rho


@pytest.mark.parametrize("parity", ["odd", "even"])
@pytest.mark.parametrize("n", [4, 7])
def test_kernel_of_each_parity_is_its_weighted_sum_over_walsh_terms(parity, n):
    rng = np.random.default_rng(n)
    S, S2 = rng.random((6, n)) < 0.5, rng.random((5, n)) < 0.5
    rho = _decays(n)
    brute = sum(_weight(T, rho) * np.outer(_chi(S, T), _chi(S2, T)) for T in _sets(n, parity))
    np.testing.assert_allclose(_walsh_gp.walsh_kernel(S, S2, rho, parity), brute, rtol=1e-12, atol=1e-15)
    assert _walsh_gp.kernel_at_zero(rho, parity) == pytest.approx(sum(_weight(T, rho) for T in _sets(n, parity)))
    with pytest.raises(ValueError, match="parity"):
        _walsh_gp.walsh_kernel(S, S2, rho, "both")


@pytest.mark.parametrize("index", ["sii", "bii"])
@pytest.mark.parametrize("n", [5, 8])
def test_pair_weights_are_the_exact_indices_of_each_kernel_section(index, n):
    rng = np.random.default_rng(n)
    S = rng.random((3, n)) < 0.5
    rho = _decays(n, seed=n)
    a, b = pair_gp.pair_index(n)
    _, G, prior = pair_gp._even_readout(index, S, [], rho, std_errors=True)
    for u in range(len(S)):
        game = ip.Game(lambda C, u=u: _walsh_gp.walsh_kernel(C, S[u:u + 1], rho, "even")[:, 0], n)
        exact = ip.interactions(game, index=index, order=2, method="exact")
        np.testing.assert_allclose(G[u], [exact[(i, j)] for i, j in zip(a, b)], atol=1e-14)
    alpha = rng.normal(size=len(S))
    np.testing.assert_allclose(pair_gp._pair_values(index, S, rho, alpha), alpha @ G, atol=1e-14)
    # prior variance of each pair's index: sum over even T of (its weight on chi_T)^2 w_T
    coefficient = (lambda T: 4.0 / (len(T) - 1)) if index == "sii" else (lambda T: 4.0 * (len(T) == 2))
    brute = [sum(coefficient(T) ** 2 * _weight(T, rho) for T in _sets(n, "even") if i in T and j in T)
             for i, j in zip(a, b)]
    np.testing.assert_allclose(prior, brute, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("index", ["sii", "bii"])
def test_readout_is_the_index_of_the_fitted_function(index):
    """The pairs' values from a fit with fixed terms equal exact enumeration of X beta + sum_u alpha_u k(., S_u)."""
    n = 7
    rng = np.random.default_rng(2)
    S = np.unique(rng.random((30, n)) < 0.5, axis=0)[:16]
    y = rng.normal(size=len(S))
    terms = [(), (0, 1), (2, 3), (1, 2, 4, 5)]
    rho = _decays(n, seed=3)
    fitted = _walsh_gp.fit(S, y, _walsh_gp.design(S, terms), rho, 1e-3, "even")
    membership, G, prior = pair_gp._even_readout(index, S, terms, rho, std_errors=True)
    values, std = _walsh_gp.readout(fitted, membership, G, prior)

    def fitted_game(C):
        return _walsh_gp.walsh_kernel(C, S, rho, "even") @ fitted.alpha + _walsh_gp.design(C, terms) @ fitted.beta

    exact = ip.interactions(ip.Game(fitted_game, n), index=index, order=2, method="exact")
    a, b = pair_gp.pair_index(n)
    np.testing.assert_allclose(values, [exact[(i, j)] for i, j in zip(a, b)], atol=1e-11)
    assert np.all(np.isfinite(std)) and np.all(std >= 0)


@pytest.mark.parametrize("index", ["sii", "bii"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_at_full_budget(index, seed):
    n = 6
    exact = ip.interactions(random_game(n, random_state=seed), index=index, order=2, method="exact")
    result = ip.interactions(random_game(n, random_state=seed), index=index, order=2, method="gp", budget=2**n,
                             random_state=seed)
    assert result.n_evaluations == 2**n and result.info["enumerated"]
    for key, value in exact.values.items():
        assert result[key] == pytest.approx(value, abs=1e-10)


@pytest.mark.parametrize("index", ["sii", "bii"])
@pytest.mark.parametrize("budget", [40, 41, 300])
def test_budget_spent_and_never_exceeded(index, budget):
    n = 12
    game = random_game(n, random_state=4)
    result = ip.interactions(game, index=index, order=2, method="gp", budget=budget, random_state=0)
    assert game.n_evaluations == result.n_evaluations <= budget
    assert result.n_evaluations >= budget - 1


@pytest.mark.parametrize("index", ["sii", "bii"])
def test_same_result_for_any_batch_size(index):
    n = 11
    results = [ip.interactions(ip.Game(random_game(n, random_state=1)._value_fn, n, batch_size=b), index=index,
                               order=2, method="gp", budget=300, random_state=7).values for b in (None, 1, 37)]
    for other in results[1:]:
        assert other == results[0]


@pytest.mark.parametrize("index", ["sii", "bii"])
def test_error_falls_with_budget_and_beats_the_unbiased_sampler(index):
    """On a sparse game of interactions (the structure the model is for), below permutation sampling (SII) or
    maximum sample reuse (BII) at equal budget."""
    n = 14
    soum = UnanimitySum.random(n, n_terms=30, max_size=4, random_state=5)
    exact = ip.interactions(soum.game(), index=index, order=2, method="exact")
    pairs = [k for k in exact.values if len(k) == 2]

    def mse(method, budget, seed):
        r = ip.interactions(soum.game(), index=index, order=2, method=method, budget=budget, random_state=seed)
        return np.mean([(r[k] - exact[k]) ** 2 for k in pairs])

    gp = [np.mean([mse("gp", budget, s) for s in range(3)]) for budget in (80, 400, 2000)]
    assert gp[0] > gp[1] > gp[2]
    other = "permutation" if index == "sii" else "msr"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # permutation sampling: pairs without samples at this budget
        assert gp[1] < np.mean([mse(other, 400, s) for s in range(3)]) / 4


def test_singletons_are_oddgp_shapley_values_and_efficient():
    n = 12
    game = random_game(n, random_state=6)
    total = game(np.ones((1, n), bool))[0] - game(np.zeros((1, n), bool))[0]
    result = ip.interactions(game, index="sii", order=2, method="gp", budget=300, random_state=0)
    assert sum(result[(i,)] for i in range(n)) == pytest.approx(total, abs=1e-10)
    first = ip.interactions(random_game(n, random_state=6), index="sii", order=1, method="gp", budget=300,
                            random_state=0)
    assert first.order == 1 and set(first.values) == {(i,) for i in range(n)}
    for info in (result.info["odd"], result.info["even"]):
        assert info["relevance_power"] in _walsh_gp.RELEVANCE_POWERS and info["decay"] in _walsh_gp.DECAYS


def test_standard_errors_and_their_limit(monkeypatch):
    n = 10
    on = ip.interactions(random_game(n, random_state=0), index="bii", method="gp", budget=200, random_state=0)
    assert set(on.std_errors) == set(on.values) and all(np.isfinite(v) and v >= 0 for v in on.std_errors.values())
    off = ip.interactions(random_game(n, random_state=0), index="bii", method="gp", budget=200, random_state=0,
                          std_errors=False)
    assert off.std_errors is None and off.values == on.values
    monkeypatch.setattr(pair_gp, "MAX_SE_CELLS", 10)
    capped = ip.interactions(random_game(n, random_state=0), index="bii", method="gp", budget=200, random_state=0)
    assert capped.values == on.values and "not computed" in capped.info["std_errors"]
    assert np.isnan(capped.std_errors[(0, 1)]) and np.isfinite(capped.std_errors[(0,)])


def test_bad_options_are_named():
    game = random_game(8, random_state=0)
    with pytest.raises(ValueError, match="sampling"):
        ip.interactions(game, index="sii", method="gp", budget=100, sampling="kernel")
    with pytest.raises(ValueError, match="index"):
        ip.interactions(game, index="stii", method="gp", budget=100)
    with pytest.raises(ValueError, match="order"):
        ip.interactions(game, index="sii", order=3, method="gp", budget=100)
