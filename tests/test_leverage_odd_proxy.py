"""Leverage SHAP, OddSHAP and the regression-adjusted (proxy) estimators, and method="auto".

Checked against exact enumeration (full budget, several seeds and batch sizes), for budgets (never exceeded,
spent whole), unbiased weights of the leverage sample, calibrated standard errors, the surrogate's Fourier
spectrum against brute force, and the choices of ``method="auto"``.
"""

import itertools
import warnings
from math import comb

import numpy as np
import pytest

import interplay as ip
from interplay.estimators import odd
from interplay.estimators._leverage import allocate_pairs, leverage_sample
from interplay.estimators._sampling import kernel_size_masses
from interplay.synthetic import UnanimitySum, random_game

SEEDS = (0, 1, 2)
SURROGATE = pytest.importorskip("xgboost") and "xgboost"


def _moebius_game(n, terms, seed=0):
    rng = np.random.default_rng(seed)
    coef = {tuple(sorted(rng.choice(n, size=k, replace=False).tolist())): float(rng.normal())
            for k in rng.integers(1, 5, size=terms)}

    def fn(Z):
        out = np.zeros(len(Z))
        for T, c in coef.items():
            out += c * Z[:, list(T)].all(axis=1)
        return out

    return fn


# ------------------------------------------------------------------------------------------------ the sample
@pytest.mark.parametrize("n", [2, 3, 4, 7, 10, 30])
@pytest.mark.parametrize("pairs", [1, 5, 17, 200])
def test_allocation_sums_to_the_pairs_and_respects_group_sizes(n, pairs):
    counts, full = allocate_pairs(n, pairs)
    caps = [comb(n, g) // 2 if 2 * g == n else comb(n, g) for g in range(1, n // 2 + 1)]
    assert counts.sum() == min(pairs, sum(caps))
    assert np.all(counts <= caps)
    assert np.all(counts[full] == np.array(caps)[full])
    open_ = ~full & (counts < caps)
    if open_.sum() >= 2:  # sampled groups share equally (middle group half), up to rounding
        share = np.where(2 * np.arange(1, n // 2 + 1) == n, 0.5, 1.0)
        ratio = counts[open_] / share[open_]
        assert ratio.max() - ratio.min() <= 2.0 + 1e-9


@pytest.mark.parametrize("n, pairs", [(7, 7), (10, 25), (10, 200), (30, 74), (30, 29)])
def test_whole_singletons_enumerates_group_one_first_when_the_pairs_allow(n, pairs):
    counts, full = allocate_pairs(n, pairs, whole_singletons=True)
    caps = [comb(n, g) // 2 if 2 * g == n else comb(n, g) for g in range(1, n // 2 + 1)]
    assert counts.sum() == min(pairs, sum(caps)) and np.all(counts <= caps)
    if pairs >= n:
        assert full[0] and counts[0] == n
        plain, _ = allocate_pairs(n, pairs)
        assert np.all(counts[1:] <= plain[1:])  # the others share what is left
    else:  # too few pairs: the plain allocation
        assert np.array_equal(counts, allocate_pairs(n, pairs)[0])
    sample = leverage_sample(n, 2 * pairs, np.random.default_rng(0), whole_singletons=True)
    singles = sample.coalitions[sample.coalitions.sum(axis=1) == 1]
    assert len(singles) == (n if pairs >= n else counts[0])


def test_leverage_sample_has_distinct_pairs_and_unbiased_weights():
    n, rows = 12, 300
    rng = np.random.default_rng(0)
    f = rng.normal(size=n)  # a function of the coalition: (x . f)^2
    codes = np.arange(2**n)
    all_rows = ((codes[:, None] >> np.arange(n)) & 1).astype(bool)
    sizes = all_rows.sum(axis=1)
    inner = (sizes > 0) & (sizes < n)
    mass = kernel_size_masses(n)
    mu = np.zeros(2**n)
    mu[inner] = mass[sizes[inner] - 1] / np.array([comb(n, s) for s in sizes[inner]])
    truth = np.sum(mu * (all_rows @ f) ** 2)
    totals = []
    for seed in range(200):
        sample = leverage_sample(n, rows, np.random.default_rng(seed))
        keys = np.packbits(sample.coalitions, axis=1)
        assert len(np.unique(keys, axis=0)) == len(keys) == rows  # distinct, whole budget
        totals.append(np.sum(sample.weights * (sample.coalitions @ f) ** 2))
    se = np.std(totals, ddof=1) / np.sqrt(len(totals))
    assert abs(np.mean(totals) - truth) < 3 * se + 1e-12


# ------------------------------------------------------------------------------------------------ exactness
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [2, 3, 5, 8])
@pytest.mark.parametrize("method", ["leverage", "odd", "odd_gp", "proxy"])
def test_exact_at_full_budget(method, n, seed):
    game = random_game(n, random_state=seed)
    exact = ip.shapley(game, method="exact").values
    result = ip.shapley(random_game(n, random_state=seed), method=method, budget=2**n, random_state=seed)
    np.testing.assert_allclose(result.values, exact, atol=1e-10)
    assert result.n_evaluations == 2**n
    np.testing.assert_allclose(result.std_errors, 0.0, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("method", ["leverage", "proxy", "polynomial"])
def test_bivariate_exact_at_full_budget(method, seed):
    n = 6
    exact = ip.bivariate(random_game(n, random_state=seed), method="exact")
    result = ip.bivariate(random_game(n, random_state=seed), method=method, budget=2**n, random_state=seed)
    np.testing.assert_allclose(result.adjacency, exact.adjacency, atol=1e-10)
    np.testing.assert_allclose(result.univariate.values, exact.univariate.values, atol=1e-10)


@pytest.mark.parametrize("method", ["leverage", "odd", "odd_gp", "proxy"])
@pytest.mark.parametrize("budget", [40, 41, 97, 300])
def test_budget_spent_and_never_exceeded(method, budget):
    n = 14
    game = ip.Game(_moebius_game(n, 30), n)
    result = ip.shapley(game, method=method, budget=budget, random_state=0)
    assert game.n_evaluations == result.n_evaluations <= budget
    assert result.n_evaluations >= budget - 1  # pairs: one evaluation left only for an odd budget
    assert result.info["budget"] == budget


@pytest.mark.parametrize("method", ["leverage", "odd", "odd_gp", "proxy"])
def test_same_result_for_any_batch_size(method):
    n = 12
    fn = _moebius_game(n, 30)
    results = [ip.shapley(ip.Game(fn, n, batch_size=b), method=method, budget=400, random_state=7).values
               for b in (None, 1, 33)]
    for other in results[1:]:
        np.testing.assert_array_equal(results[0], other)


@pytest.mark.parametrize("method", ["leverage", "odd", "odd_gp"])
def test_error_falls_with_budget(method):
    n = 14
    fn = _moebius_game(n, 40, seed=3)
    exact = ip.shapley(ip.Game(fn, n), method="exact").values
    mse = []
    for budget in (60, 400, 3000):
        errs = [np.mean((ip.shapley(ip.Game(fn, n), method=method, budget=budget, random_state=s).values
                         - exact) ** 2) for s in range(6)]
        mse.append(np.mean(errs))
    assert mse[0] > mse[1] > mse[2]


def test_leverage_standard_errors_cover_the_truth():
    n = 10
    fn = _moebius_game(n, 40, seed=5)
    exact = ip.shapley(ip.Game(fn, n), method="exact").values
    inside = []
    for seed in range(150):
        r = ip.shapley(ip.Game(fn, n), method="leverage", budget=200, random_state=seed)
        inside.append(np.abs(r.values - exact) <= 1.96 * r.std_errors)
    coverage = np.mean(inside)
    assert 0.85 <= coverage <= 0.995, coverage


def test_std_errors_can_be_switched_off():
    game = random_game(9, random_state=0)
    for method in ("leverage", "odd", "proxy"):
        assert ip.shapley(game, method=method, budget=100, std_errors=False, random_state=0).std_errors is None
    assert ip.bivariate(game, method="proxy", budget=100, std_errors=False, random_state=0).std_errors is None


# ------------------------------------------------------------------------------------------------ OddSHAP
def test_odd_is_exact_when_the_odd_part_is_in_its_terms():
    """Linear terms plus one 3-way unanimity term: the odd part is singletons + the triple, which the
    surrogate's spectrum selects, so the regression fits it exactly from a sample."""
    n = 20
    w = np.linspace(-1, 1, n)

    def fn(Z):
        return Z @ w + 2.0 * Z[:, 3] * Z[:, 7] * Z[:, 11]

    exact = w + np.where(np.isin(np.arange(n), [3, 7, 11]), 2.0 / 3.0, 0.0)
    result = ip.shapley(ip.Game(fn, n), method="odd", budget=40 * n, random_state=0, surrogate=SURROGATE)
    assert result.info["n_interaction_terms"] > 0
    np.testing.assert_allclose(result.values, exact, atol=1e-8)
    lev = ip.shapley(ip.Game(fn, n), method="leverage", budget=40 * n, random_state=0)
    assert np.abs(lev.values - exact).max() > 1e-4  # the linear regression alone cannot


@pytest.mark.parametrize("library", ["binary", "xgboost", "lightgbm", "sklearn"])
def test_surrogate_fourier_spectrum_matches_brute_force(library):
    if library != "binary":
        pytest.importorskip(library)
    from interplay.estimators._surrogate import (fit_surrogate, fourier_spectrum, odd_spectrum, surrogate_indices,
                                                 surrogate_values)

    n = 6
    rng = np.random.default_rng(0)
    Z = rng.random((200, n)) < 0.5
    y = 3.0 * Z[:, 0] * Z[:, 1] * Z[:, 2] + Z[:, 3] - Z[:, 4] * Z[:, 0] + 0.1 * rng.normal(size=200)
    ensemble = fit_surrogate(library, Z, y, rng)
    codes = np.arange(2**n)
    every = ((codes[:, None] >> np.arange(n)) & 1).astype(bool)
    f = surrogate_values(ensemble, every)
    chi = np.where(every, 1.0, -1.0)
    spectrum = odd_spectrum(ensemble, (1, 3, 5))
    for size in (1, 3, 5):
        for T in itertools.combinations(range(n), size):
            truth = np.mean(f * np.prod(chi[:, list(T)], axis=1))
            assert abs(spectrum.get(T, 0.0) - truth) < 1e-9
    whole, low = fourier_spectrum(ensemble), fourier_spectrum(ensemble, max_size=2)  # every size, the empty set too
    assert set(low) == {T for T in whole if len(T) <= 2}
    for size in range(n + 1):
        for T in itertools.combinations(range(n), size):
            truth = np.mean(f * np.prod(chi[:, list(T)], axis=1))
            assert abs(whole.get(T, 0.0) - truth) < 1e-9
            if size <= 2:
                assert abs(low.get(T, 0.0) - truth) < 1e-9
    phi, _ = surrogate_indices(ensemble, n)
    np.testing.assert_allclose(phi, ip.shapley(ip.Game(lambda C: surrogate_values(ensemble, C), n)).values,
                               atol=1e-9)


@pytest.mark.parametrize("factor, expected", [(4, [20]), (5, [20]), (10, [20, 40]), (20, [40, 80]),
                                              (80, [160, 320])])
def test_auto_fits_a_tenth_and_a_fifth_of_the_budget_in_terms_and_keeps_the_smaller_press(factor, expected):
    n = 20
    assert odd.candidate_term_counts(n, factor * n) == expected
    assert odd.candidate_term_counts(n, factor * n, 0.5) == [max(n, int(np.ceil(0.5 * factor * n)))]
    r = ip.shapley(random_game(n, random_state=0), method="odd", budget=factor * n, random_state=0)
    if len(expected) == 1:
        assert r.info["n_terms"] == n and "press" not in r.info
        return
    press = r.info["press"]
    assert len(press) == 2 and r.info["n_terms"] == min(press, key=press.get)
    chosen = ip.shapley(random_game(n, random_state=0), method="odd", budget=factor * n, random_state=0,
                        terms_ratio=(0.1 if r.info["n_terms"] == expected[0] else 0.2))
    np.testing.assert_allclose(r.values, chosen.values, atol=1e-12)


def test_press_is_the_leave_one_pair_out_error_of_the_odd_regression():
    """PRESS from the hat matrix equals refitting without each sampled pair (enumerated rows always kept)."""
    from interplay.estimators._leverage import leverage_sample

    n = 10
    game = random_game(n, random_state=3)
    sample = leverage_sample(n, 160, np.random.default_rng(1))
    values = game(np.concatenate([np.zeros((1, n), bool), np.ones((1, n), bool), sample.coalitions]))
    terms = [(i,) for i in range(n)] + [(0, 1, 2), (3, 4, 5), (1, 6, 7)]
    units = len(sample.counts)
    _, _, _, press = odd.odd_regression(sample, values, terms, n, std_errors=False, press_units=np.arange(units))
    first = sample.n_enumerated
    y = values[2:]
    X = odd._features(sample.coalitions[: first + units], terms)
    target = np.concatenate([y[:first], 0.5 * (y[first:first + units] - y[first + units:])])
    w = np.concatenate([sample.weights[:first], 2.0 * sample.weights[first:first + units]])
    total = 0.5 * (values[1] - values[0])
    D, r = X[:, :-1] - X[:, -1:], target - X[:, -1] * total
    brute = 0.0
    for u in range(units):
        keep = np.ones(len(D), bool)
        keep[first + u] = False
        b = np.linalg.solve((D[keep].T * w[keep]) @ D[keep], (D[keep].T * w[keep]) @ r[keep])
        brute += w[first + u] * (r[first + u] - D[first + u] @ b) ** 2
    assert press == pytest.approx(brute, rel=1e-9)


def test_bad_options_are_named():
    game = random_game(12, random_state=0)
    for bad in (2, 0, True, "half"):
        with pytest.raises(ValueError, match="terms_ratio"):
            ip.shapley(game, method="odd", budget=100, terms_ratio=bad)
    with pytest.raises(ValueError, match="surrogate"):
        ip.shapley(game, method="proxy", budget=100, surrogate="catboost")
    with pytest.raises(ValueError, match="budget"):
        ip.shapley(game, method="leverage", budget=5)


# ------------------------------------------------------------------------------------------------ proxy
def test_proxy_bivariate_beats_the_plain_regression_on_a_tree_game():
    n = 16
    soum = UnanimitySum.random(n, n_terms=20, max_size=4, random_state=1)
    truth = soum.bivariate()
    off = ~np.eye(n, dtype=bool)
    err = {}
    for method in ("leverage", "proxy"):
        err[method] = np.mean([np.mean((ip.bivariate(soum.game(), method=method, budget=20 * n, random_state=s)
                                        .adjacency - truth)[off] ** 2) for s in range(3)])
    assert err["proxy"] < err["leverage"]


# ------------------------------------------------------------------------------------------------ auto
def test_auto_enumerates_when_the_budget_covers_every_coalition():
    game = random_game(8, random_state=0)
    result = ip.shapley(game)
    assert result.method == "exact" and "2**8" in result.info["auto"]["reason"]
    np.testing.assert_allclose(result.values, ip.shapley(random_game(8, random_state=0), method="exact").values)
    assert ip.shapley(random_game(9, random_state=0), budget=100).method == "odd_gp"


def test_auto_chooses_a_sampler_per_kind_and_drops_options_it_cannot_use():
    game = random_game(14, random_state=0)
    assert ip.shapley(game, budget=300, random_state=0).info["auto"]["chosen"] == "odd_gp"
    assert ip.bivariate(game, budget=100, random_state=0).method == "gp"
    assert ip.bivariate(game, budget=20 * 14, random_state=0).method == "gp"
    with pytest.raises(ValueError, match="budget: method='auto' chose 'gp' here, and method='gp' needs at least 28"):
        ip.bivariate(game, budget=20, random_state=0)
    assert ip.banzhaf(game, budget=300, random_state=0).method == "proxy"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an option every method takes is not reported as ignored, and is used:
        kept = ip.shapley(random_game(8, random_state=0), std_errors=False, exact_if_affordable=False)
    assert kept.method != "exact" and kept.info["auto"]["reason"].startswith("exact_if_affordable=False")
    with pytest.warns(UserWarning, match=r"options \['terms_ratio'\] are not used by 'exact'"):  # was silent
        result = ip.shapley(random_game(8, random_state=0), terms_ratio=0.1)  # for OddSHAP; exact takes none
    assert result.method == "exact" and result.info["auto"]["ignored_options"] == ["terms_ratio"]


@pytest.mark.parametrize("kind, method, extra", [
    ("shapley", "kernel", {}), ("shapley", "permutation", {}), ("shapley", "antithetic", {}),
    ("banzhaf", "msr", {}), ("banzhaf", "sampling", {}), ("interactions", "msr", {"index": "bii"}),
    ("interactions", "permutation", {"index": "sii"}), ("bivariate", "permutation", {}),
    ("bivariate", "kernel", {}), ("shapley", "exact", {}), ("interactions", "proxy", {"index": "bii"}),
    ("bivariate", "spectral", {}), ("interactions", "spectral", {"index": "sii"}), ("shapley", "odd_gp", {}),
    ("interactions", "gp", {"index": "sii"}), ("interactions", "gp", {"index": "bii"}), ("bivariate", "gp", {})])
def test_every_method_takes_std_errors_false(kind, method, extra):
    game = random_game(9, random_state=0)
    budget = None if method == "exact" else 300
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        on = getattr(ip, kind)(game, method=method, budget=budget, random_state=0, **extra)
        off = getattr(ip, kind)(game, method=method, budget=budget, random_state=0, std_errors=False, **extra)
    assert off.std_errors is None
    if method != "exact":
        assert on.std_errors is not None


def test_explainer_auto_uses_trees_only_in_the_explained_unit():
    sklearn = pytest.importorskip("sklearn.ensemble")
    xgboost = pytest.importorskip("xgboost")
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :12]
    forest = sklearn.RandomForestClassifier(n_estimators=10, random_state=0).fit(X, y)
    ex = ip.Explainer(forest, background=X[:10])
    auto = ex.shapley(X[:2])
    assert auto.method == "tree" and auto.info["auto"]["chosen"] == "tree"
    np.testing.assert_allclose(auto.values, ex.shapley(X[:2], method="exact").values, atol=1e-9)
    booster = xgboost.XGBClassifier(n_estimators=10, max_depth=3).fit(X, y)
    probability = ip.Explainer(booster, background=X[:10], output="probability")  # the trees sum log-odds
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = probability.shapley(X[:1], budget=200, random_state=0)
    assert result.method != "tree"
    np.testing.assert_allclose(result.values.sum(), probability.game(X[:1]).grand_value()
                               - probability.game(X[:1]).empty_value(), atol=1e-9)
    log_odds = ip.Explainer(booster, background=X[:10])  # a booster's default unit: log-odds, as in shap
    assert log_odds.output == "log-odds"
    tree = log_odds.shapley(X[:1])
    assert tree.method == "tree"
    np.testing.assert_allclose(tree.values, log_odds.shapley(X[:1], method="exact").values, atol=1e-6)


# ------------------------------------------------------------------------------------------------ proxy pairs
@pytest.mark.parametrize("index", ["sii", "bii"])
def test_proxy_interactions_exact_at_full_budget_and_within_budget(index):
    n = 7
    exact = ip.interactions(random_game(n, random_state=0), index=index, method="exact")
    full = ip.interactions(random_game(n, random_state=0), index=index, method="proxy", budget=2**n)
    assert max(abs(full.values[k] - exact.values[k]) for k in exact.values) < 1e-10
    game = random_game(12, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = ip.interactions(game, index=index, method="proxy", budget=500, random_state=0)
    assert game.n_evaluations == result.n_evaluations <= 500
    assert result.info["base"] in ("regression", "permutation", "msr")


def _pair_mse(soum, index: str, method: str, budget: int, keys, seeds: int = 3) -> float:
    """Mean over seeds of the MSE over ``keys`` against the game's closed form; checks the budget."""
    truth = soum.interactions(index, 2)
    errs = []
    for s in range(seeds):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = ip.interactions(soum.game(), index=index, method=method, budget=budget, random_state=s)
        assert r.n_evaluations <= budget
        errs.append(np.mean([(r.values[k] - truth[k]) ** 2 for k in keys]))
    return float(np.mean(errs))


def test_proxy_bii_beats_msr_on_a_sparse_game():
    n = 14
    soum = UnanimitySum.random(n, n_terms=20, max_size=4, random_state=2)
    keys = list(soum.interactions("bii", 2))
    err = {method: _pair_mse(soum, "bii", method, 40 * n, keys) for method in ("msr", "proxy")}
    assert err["proxy"] < err["msr"] / 4, err


# ------------------------------------------------------------------------------------------------ polynomial
def test_pairwise_polynomial_closed_forms_match_enumeration():
    from interplay.estimators._polynomial import PairwisePolynomial

    n = 6
    rng = np.random.default_rng(0)
    b = np.triu(rng.normal(size=(n, n)), 1)
    poly = PairwisePolynomial(0.3, rng.normal(size=n), b + b.T)
    game = ip.Game(poly, n)
    exact = ip.bivariate(game, method="exact")
    np.testing.assert_allclose(poly.adjacency(), exact.adjacency, atol=1e-12)
    np.testing.assert_allclose(poly.shapley(), exact.univariate.values, atol=1e-12)


def test_polynomial_bivariate_recovers_a_pairwise_game_from_a_sample():
    from interplay.estimators._polynomial import PairwisePolynomial

    n = 12
    rng = np.random.default_rng(1)
    b = np.triu(rng.normal(size=(n, n)), 1)
    poly = PairwisePolynomial(0.0, rng.normal(size=n), b + b.T)
    exact = ip.bivariate(ip.Game(poly, n), method="exact").adjacency
    result = ip.bivariate(ip.Game(poly, n), method="polynomial", budget=300, random_state=0, ridge=0.0)
    np.testing.assert_allclose(result.adjacency, exact, atol=1e-8)
    kernel = ip.bivariate(ip.Game(poly, n), method="kernel", budget=300, random_state=0)
    assert np.abs(kernel.adjacency - exact).max() > 1e-3


# ------------------------------------------------------------------------------------------------ surrogate SII
def test_surrogate_sii_beats_permutation_and_is_exact_at_full_budget():
    n = 14
    soum = UnanimitySum.random(n, n_terms=40, max_size=4, random_state=4)
    pairs = [k for k in soum.interactions("sii", 2) if len(k) == 2]
    err = {method: _pair_mse(soum, "sii", method, 40 * n, pairs) for method in ("permutation", "surrogate")}
    assert err["surrogate"] < err["permutation"] / 2, err
    full = ip.interactions(random_game(6, random_state=0), index="sii", method="surrogate", budget=64)
    exact = ip.interactions(random_game(6, random_state=0), index="sii", method="exact")
    assert max(abs(full.values[k] - exact.values[k]) for k in exact.values) < 1e-10
    with pytest.raises(ValueError, match="index/order"):
        ip.interactions(soum.game(), index="bii", method="surrogate", budget=200)


def test_auto_interaction_choices():
    game = random_game(14, random_state=0)
    for index, order, chosen in (("sii", 2, "gp"), ("bii", 2, "gp"), ("sii", 1, "gp"), ("bii", 3, "regression"),
                                 ("sii", 3, "spectral"), ("fsii", 2, "regression"), ("stii", 2, "permutation")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = ip.interactions(game, index=index, order=order, budget=800, random_state=0)
        assert result.info["auto"]["chosen"] == chosen, (index, order)
    with warnings.catch_warnings():  # pairs at any budget from the pair GP's 2n: gp
        warnings.simplefilter("ignore")
        low = ip.interactions(game, index="bii", budget=28, random_state=0)
    assert low.info["auto"]["chosen"] == "gp" and low.n_evaluations == 28


def test_tree_method_reads_a_dataframe_fitted_xgboost():
    pd = pytest.importorskip("pandas")
    xgboost = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 5)), columns=[f"c{i}" for i in range(5)])
    y = (X["c0"] + X["c1"] * X["c2"] > 0).astype(int)
    model = xgboost.XGBClassifier(n_estimators=20, max_depth=3).fit(X, y)
    ex = ip.Explainer(model, background=X.iloc[:20], output="log-odds")
    auto = ex.shapley(X.iloc[:3])
    assert auto.method == "tree"
    np.testing.assert_allclose(auto.values, ex.shapley(X.iloc[:3], method="exact").values, atol=1e-5)


@pytest.mark.parametrize("kind, method, extra", [
    ("shapley", "kernel", {}), ("shapley", "permutation", {}), ("shapley", "odd", {}), ("shapley", "odd_gp", {}), ("banzhaf", "msr", {}),
    ("interactions", "permutation", {"index": "sii"}), ("bivariate", "polynomial", {}),
    ("interactions", "regression", {"index": "bii"}), ("interactions", "surrogate", {"index": "sii"}),
    ("interactions", "pairwise", {"index": "bii"}), ("banzhaf", "proxy", {})])
def test_absurd_budgets_are_refused_at_once(kind, method, extra):
    game = ip.Game(lambda Z: Z.sum(axis=1) * 1.0, 40)
    with pytest.raises(ValueError, match="budget: .*GiB"):
        getattr(ip, kind)(game, method=method, budget=10**15, **extra)
    assert game.n_evaluations == 0


@pytest.mark.parametrize("kind, method", [("shapley", "permutation"), ("shapley", "antithetic"),
                                          ("banzhaf", "msr"), ("bivariate", "permutation")])
def test_samplers_whose_arrays_grow_with_the_budget_refuse_absurd_ones_on_small_games(kind, method):
    game = ip.Game(lambda Z: Z.sum(axis=1) * 1.0, 10)
    with pytest.raises(ValueError, match="budget: .*GiB"):
        getattr(ip, kind)(game, method=method, budget=10**15)
    assert ip.shapley(ip.Game(lambda Z: Z.sum(axis=1) * 1.0, 10), method="kernel",
                      budget=10**15).n_evaluations == 2**10  # capped samplers enumerate instead


def test_auto_without_a_tree_library_uses_the_surrogate_free_samplers(monkeypatch):
    from interplay.estimators import _surrogate

    monkeypatch.setattr(_surrogate, "resolve_surrogate", lambda surrogate: None)
    game = random_game(14, random_state=0)
    assert ip.bivariate(game, budget=100, random_state=0).method == "polynomial"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ip.interactions(game, index="sii", budget=300, random_state=0).info["auto"]["chosen"] == "surrogate"
        assert ip.interactions(game, index="bii", budget=150, random_state=0).info["auto"]["chosen"] == "msr"
        # SII above order 2 (spectral with numba): permutation sampling (the surrogate reads pairs only: it failed)
        third = ip.interactions(game, index="sii", order=3, budget=3000, random_state=0)
        assert third.info["auto"]["chosen"] == "permutation" and third.order == 3


def test_without_numba_no_tree_surrogate_is_used(monkeypatch):
    """The surrogates are read by interplay.trees (numba kernels): without numba, auto uses none (and the
    estimators their surrogate-free variants); asking for one says what to install."""
    from interplay.estimators import _surrogate

    real = _surrogate._installed
    monkeypatch.setattr(_surrogate, "_installed", lambda name: name != "numba" and real(name))
    assert _surrogate.resolve_surrogate("auto") is None
    with pytest.raises(ValueError, match="numba"):
        _surrogate.resolve_surrogate("xgboost")
    game = random_game(14, random_state=0)
    result = ip.shapley(game, method="odd", budget=300, random_state=0)
    assert result.info["surrogate"] is None and result.info["n_interaction_terms"] == 0


def test_explainer_without_numba_samples_instead_of_the_tree_method(monkeypatch):
    sklearn = pytest.importorskip("sklearn.ensemble")
    import interplay.explainer as explainer_module

    monkeypatch.setattr(explainer_module, "installed", lambda name: name != "numba")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 5))
    model = sklearn.GradientBoostingRegressor(n_estimators=10, max_depth=2).fit(X, X[:, 0] * X[:, 1])
    result = ip.Explainer(model, X[:10]).shapley(X[:2])
    assert result.method == "exact"  # 2**5 coalitions fit the default budget; no tree algorithm asked for


def test_auto_keeps_the_gp_readouts_of_order_n_cubed_to_moderate_n():
    """SII pairs and the bivariate matrix of the GP cost O(pairs x n^3 / 2) to read: above 200 players auto
    keeps the sparse Fourier fit; BII pairs (O(pairs x n^2)) stay with the GP up to 510 players."""
    from interplay.api import auto_method

    big, small = ip.Game(lambda Z: Z.sum(axis=1) * 1.0, 201), ip.Game(lambda Z: Z.sum(axis=1) * 1.0, 200)
    assert auto_method("interactions", big, 5000, "sii")[0] == "spectral"
    assert auto_method("interactions", big, 5000, "bii")[0] == "gp"
    huge = ip.Game(lambda Z: Z.sum(axis=1) * 1.0, 511)  # the odd part's model choice on 2n + 3 pairs: too dear
    assert auto_method("interactions", huge, 5000, "bii")[0] == "spectral"
    assert auto_method("bivariate", big, 5000)[0] == "spectral"
    assert auto_method("interactions", small, 5000, "sii")[0] == auto_method("bivariate", small, 5000)[0] == "gp"


@pytest.mark.parametrize("kind", ["extra_trees", "boosting"])
def test_fourier_spectrum_of_trees_fitted_on_real_inputs_matches_brute_force(kind):
    """Trees fitted on real-valued inputs and read on 0/1 inputs: nodes whose children agree, features split
    again further down a path, leaves out of reach; the level-by-level walk must find the spectrum all the same."""
    pytest.importorskip("numba")
    from sklearn.ensemble import ExtraTreesRegressor, GradientBoostingRegressor

    from interplay.estimators._surrogate import fourier_spectrum, surrogate_values
    from interplay.trees import as_ensemble

    n = 5
    rng = np.random.default_rng(1)
    X = rng.normal(0.5, 0.7, size=(300, n))
    y = np.sin(3 * X[:, 0]) * X[:, 1] + (X[:, 2] > 0.3) * X[:, 3] + 0.1 * rng.normal(size=300)
    model = (ExtraTreesRegressor(8, random_state=0) if kind == "extra_trees"
             else GradientBoostingRegressor(n_estimators=20, max_depth=5, random_state=0)).fit(X, y)
    ensemble = as_ensemble(model)
    codes = np.arange(2**n)
    every = ((codes[:, None] >> np.arange(n)) & 1).astype(bool)
    f = surrogate_values(ensemble, every)
    chi = np.where(every, 1.0, -1.0)
    spectrum = fourier_spectrum(ensemble)
    for size in range(n + 1):
        for T in itertools.combinations(range(n), size):
            assert abs(spectrum.get(T, 0.0) - np.mean(f * np.prod(chi[:, list(T)], axis=1))) < 1e-9


def test_auto_reason_with_the_default_budget_names_what_the_method_spent():
    """With budget=None the reason said "exceed the budget (2072)" for samplers whose own default is 100 n (STII
    by permutation spent 1,200 evaluations on 12 players). It names no number: a sampler of distinct coalitions
    spends fewer than its default budget, and an Explanation's rows each spend their own."""
    game = ip.Game(lambda S: S.sum(axis=1) * 1.0 + S[:, 0] * S[:, 1], 12)
    for result in (ip.interactions(game, index="stii", random_state=0), ip.shapley(game, random_state=0),
                   ip.banzhaf(game, random_state=0)):
        reason = result.info["auto"]["reason"]
        assert "exceed the default budget" in reason and "(2072)" not in reason
        assert reason.endswith("(at its own default budget)")
    assert "exceed the budget (300)" in ip.shapley(game, budget=300, random_state=0).info["auto"]["reason"]


def test_budget_errors_name_the_method_called():
    """odd_gp's and Banzhaf proxy's budget errors named the method they are built on ('odd', 'msr'); auto's
    FSII error named only full enumeration though the regression runs at its own minimum."""
    game = ip.Game(lambda S: S.sum(axis=1) * 1.0, 3)
    with pytest.raises(ValueError, match=r"budget: method='odd_gp' \(through 'odd'\) needs at least 6"):
        ip.shapley(game, method="odd_gp", budget=5)
    with pytest.raises(ValueError, match=r"budget: method='proxy' \(through 'msr'\)"):
        ip.banzhaf(game, method="proxy", budget=4)
    wide = ip.Game(lambda S: S.sum(axis=1) * 1.0, 12)
    with pytest.raises(ValueError, match=r"give budget >= 80 \(method='regression'\), or >= 2\*\*12"):
        ip.interactions(wide, index="fsii", order=2, budget=60)
    assert ip.interactions(wide, index="fsii", order=2, budget=80, method="regression").n_evaluations <= 80


def test_many_pairs_from_few_evaluations_are_said_to_be_thin():
    """At 500 players 124,750 pairs came from 3,048 evaluations, near 0 or as large as the true values, with no
    word; a budget that estimates every pair better, or an exact result, says nothing."""
    game = ip.Game(lambda S: S.sum(axis=1) * 1.0 + S[:, 0] * S[:, 1], 60)
    with pytest.warns(UserWarning, match="1,770 pairs estimated from 150 evaluations"):
        ip.interactions(game, index="bii", budget=150, random_state=0)
    with pytest.warns(UserWarning, match="3,540 matrix entries estimated from"):
        ip.bivariate(game, budget=150, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ip.interactions(ip.Game(game._value_fn, 10), index="bii", random_state=0)
