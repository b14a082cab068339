"""Sampled interaction indices (BII by MSR / Eq. 12 pairwise; SII, Shapley-Taylor, excess by permutations)."""

import re
from math import comb

import numpy as np
import pytest

import interplay as ip
from interplay.synthetic import UnanimitySum, majority_game

CASES = [("bii", "msr", 2), ("bii", "msr", 3), ("bii", "pairwise", 2), ("sii", "permutation", 2),
         ("sii", "permutation", 3), ("stii", "permutation", 2), ("stii", "permutation", 3),
         ("excess", "permutation", 2)]


def _max_error(result, exact):
    assert set(result.values) == set(exact)
    return max(abs(result.values[k] - exact[k]) for k in exact)


@pytest.mark.filterwarnings("ignore:.*too few samples")   # order-3 windows are rare at the smallest budget
@pytest.mark.parametrize("index,method,order", CASES)
def test_converges_to_closed_form_with_shrinking_error(index, method, order):
    soum = UnanimitySum.random(7, n_terms=14, max_size=4, random_state=11)
    exact = soum.interactions(index, order)
    errors = []
    for budget in (1000, 10000, 100000):
        errors.append(np.mean([_max_error(ip.interactions(soum.game(), index=index, order=order, method=method,
                                                          budget=budget, random_state=s, exact_if_affordable=False), exact)
                               for s in range(3)]))
    assert errors[0] > errors[1] > errors[2], errors
    assert errors[2] < 0.25 * errors[0]


@pytest.mark.parametrize("index,method", [("bii", "pairwise"), ("sii", "permutation"), ("excess", "permutation"),
                                          ("bii", "msr")])
def test_unbiased_with_calibrated_standard_errors(index, method):
    soum = UnanimitySum.random(6, n_terms=10, max_size=3, random_state=3)
    exact = soum.interactions(index, 2)
    keys = sorted(exact)
    runs = [ip.interactions(soum.game(), index=index, order=2, method=method, budget=800, random_state=s, exact_if_affordable=False)
            for s in range(30)]
    values = np.array([[r.values[k] for k in keys] for r in runs])
    ses = np.array([[r.std_errors[k] for k in keys] for r in runs])
    spread = values.std(axis=0, ddof=1)
    target = np.array([exact[k] for k in keys])
    assert np.all(np.abs(values.mean(axis=0) - target) <= 4.5 * spread / np.sqrt(len(runs)) + 1e-12)
    np.testing.assert_allclose(ses.mean(axis=0), spread, rtol=0.5, atol=1e-9)


def test_stii_lower_orders_are_exact_moebius_dividends():
    soum = UnanimitySum.random(6, n_terms=12, max_size=3, random_state=0)
    result = ip.interactions(soum.game(), index="stii", order=3, method="permutation", budget=3000, random_state=0, exact_if_affordable=False)
    for key, value in soum.interactions("moebius", 2).items():
        assert result[key] == pytest.approx(value, abs=1e-12)
        assert result.std_errors[key] == 0.0


def test_majority_game_pairwise_bii_matches_erratum():
    """Papers' README: n=6, quota 3 gives pairwise BII -0.125 (sign of 2k - n - 1)."""
    result = ip.interactions(majority_game(6, 3), index="bii", order=2, method="pairwise", budget=60001,
                             random_state=0, exact_if_affordable=False)
    for i, j in [(0, 1), (2, 5)]:
        assert abs(result[(i, j)] + 0.125) < 4 * result.std_errors[(i, j)] + 1e-12


@pytest.mark.filterwarnings("ignore:.*too few samples")
@pytest.mark.parametrize("index,method,order", CASES)
def test_budget_never_exceeded(index, method, order):
    soum = UnanimitySum.random(9, n_terms=12, random_state=0)
    calls = []
    counting = ip.Game(lambda S: (calls.append(len(S)), soum.value(S))[1], 9, cache=False)
    for budget in (2000, 7777):
        calls.clear()
        result = ip.interactions(counting, index=index, order=order, method=method, budget=budget, random_state=1, exact_if_affordable=False)
        assert result.n_evaluations == sum(calls) <= budget
    with pytest.raises(ValueError, match="needs at least"):
        ip.interactions(counting, index=index, order=order, method=method, budget=3, exact_if_affordable=False)


@pytest.mark.parametrize("index,method,order", CASES)
@pytest.mark.parametrize("batch_size", [1, 7])
def test_same_seed_same_result_for_any_batch_size(index, method, order, batch_size):
    soum = UnanimitySum.random(6, n_terms=8, random_state=5)
    kwargs = dict(index=index, order=order, method=method, budget=900, random_state=3)
    reference = ip.interactions(soum.game(), **kwargs)
    result = ip.interactions(soum.game(batch_size=batch_size), **kwargs)
    for key, value in reference.values.items():
        assert result.values[key] == pytest.approx(value, abs=1e-12)


def test_bad_options():
    game = UnanimitySum.random(5, random_state=0).game()
    with pytest.raises(ValueError, match="index: method='msr' estimates"):
        ip.interactions(game, index="sii", method="msr", exact_if_affordable=False)
    with pytest.raises(ValueError, match="index: method='permutation' estimates"):
        ip.interactions(game, index="bii", method="permutation", exact_if_affordable=False)
    with pytest.raises(ValueError, match="order: the pairwise decomposition"):
        ip.interactions(game, index="bii", order=3, method="pairwise", exact_if_affordable=False)
    with pytest.raises(ValueError, match="order: the Shapley excess"):
        ip.interactions(game, index="excess", order=3, method="permutation", exact_if_affordable=False)
    with pytest.raises(ValueError, match="order"):
        ip.interactions(game, index="sii", order=6, method="permutation", exact_if_affordable=False)
    with pytest.raises(ValueError, match="method"):
        ip.interactions(game, index="sii", method="kernel-sii", exact_if_affordable=False)


@pytest.mark.filterwarnings("ignore:.*too few samples")
@pytest.mark.parametrize("index,order", [("sii", 2), ("sii", 3), ("stii", 2), ("stii", 3)])
def test_permutation_samplers_spend_the_whole_budget(index, order):
    """Coalitions repeated across permutations are paid once; the budget they free buys more samples."""
    for n in (8, 12):
        soum = UnanimitySum.random(n, n_terms=10, random_state=n)
        for budget in [b for b in (100 * order, 1000, 2**n // 2) if b < 2**n]:
            if budget < (n + 1 + comb(n, order) * (2**order - 2)) * 2 + sum(comb(n, s) for s in range(order)):
                continue
            calls = []
            game = ip.Game(lambda S: (calls.append(len(S)), soum.value(S))[1], n, cache=False)
            result = ip.interactions(game, index=index, order=order, method="permutation", budget=budget,
                                     random_state=0, exact_if_affordable=False)
            assert result.n_evaluations == sum(calls) <= budget
            assert result.n_evaluations >= 0.97 * budget, (n, budget, result.n_evaluations)


@pytest.mark.parametrize("index,order", [("sii", 2), ("stii", 2)])
def test_budget_filling_keeps_permutation_samplers_unbiased(index, order):
    """Below 2**n (n = 8, budget 200) the accepted permutations and partial units depend on repeats; the mean
    over 40 seeds stays within 4.5 standard errors of the exact values."""
    soum = UnanimitySum.random(8, n_terms=12, max_size=3, random_state=4)
    exact = soum.interactions(index, order)
    keys = sorted(exact)
    runs = np.array([[ip.interactions(soum.game(), index=index, order=order, method="permutation", budget=200,
                                      random_state=s, exact_if_affordable=False).values[k] for k in keys]
                     for s in range(40)])
    spread = runs.std(axis=0, ddof=1)
    target = np.array([exact[k] for k in keys])
    assert np.all(np.abs(runs.mean(axis=0) - target) <= 4.5 * spread / np.sqrt(len(runs)) + 1e-12)


def test_permutation_sii_says_which_subsets_it_never_sampled():
    """A set of s players is a window of a permutation with probability (n-s+1) / C(n, s) (1 in 22 for triples
    of 12 players): at budget 1,000 the permutation SII left the one real triple (0, 1, 2) unseen and reported
    it as 0, with a warning that did not tell it from the subsets sampled once. ``info`` now lists the unseen
    subsets, the warning counts both kinds and gives a budget that samples every subset twice."""
    n = 12
    game = ip.Game(lambda Z: Z[:, 0] * Z[:, 1] * Z[:, 2] + Z.sum(axis=1), n)
    with pytest.warns(RuntimeWarning, match="too few samples") as caught:
        result = ip.interactions(game, index="sii", order=3, method="permutation", budget=1000, random_state=0,
                                 exact_if_affordable=False)
    unseen = result.info["unestimated"]
    assert result.info["n_unestimated"] == len(unseen) > 0 and (0, 1, 2) in unseen
    assert all(result.values[s] == 0.0 and result.std_errors[s] == np.inf for s in unseen)
    single = [s for s, e in result.std_errors.items() if e == np.inf and s not in unseen]
    assert result.info["n_single_sample"] == len(single) > 0
    message = next(str(w.message) for w in caught if "too few samples" in str(w.message))
    assert f"{len(unseen)} were never sampled" in message and f"{len(single)} had a single sample" in message
    # pairs of 12 players: the budget the warning names samples every pair at least twice
    with pytest.warns(RuntimeWarning, match="too few samples") as caught:
        ip.interactions(game, index="sii", order=2, method="permutation", budget=200, random_state=0,
                        exact_if_affordable=False)
    advice = int(re.search(r"budget of about (\d+)", str(caught[0].message)).group(1))
    for seed in range(3):
        again = ip.interactions(game, index="sii", order=2, method="permutation", budget=advice, random_state=seed,
                                exact_if_affordable=False)
        assert again.info["n_unestimated"] == again.info["n_single_sample"] == 0
        assert all(np.isfinite(e) for e in again.std_errors.values())
