"""The Game: caching, counting, batching, and clear errors for bad value functions."""

import numpy as np
import pytest

import interplay as ip
from interplay.synthetic import UnanimitySum


def _recording_game(batch_size=None, cache=True):
    calls = []
    soum = UnanimitySum(4, ((0, 1), (2,), (1, 3)), (1.0, 2.0, -1.5))

    def value_fn(s):
        calls.append(len(s))
        return soum.value(s)

    return ip.Game(value_fn, 4, batch_size=batch_size, cache=cache), calls, soum


def test_cache_counts_each_distinct_coalition_once():
    game, calls, soum = _recording_game()
    rng = np.random.default_rng(0)
    coalitions = rng.random((50, 4)) < 0.5
    first = game(coalitions)
    np.testing.assert_array_equal(first, soum.value(coalitions))
    distinct = len({tuple(r) for r in coalitions})
    assert game.n_evaluations == distinct == sum(calls)
    again = game(coalitions[::-1])
    np.testing.assert_array_equal(again, first[::-1])
    assert game.n_evaluations == distinct and len(calls) == 1
    assert game.n_cached == distinct


@pytest.mark.parametrize("batch_size", [1, 3, 7, 1000])
def test_results_do_not_depend_on_batch_size(batch_size):
    game, calls, soum = _recording_game(batch_size=batch_size)
    assert np.allclose(ip.shapley(game).values, soum.shapley())
    assert max(calls) <= batch_size
    assert game.n_evaluations == 16 and sum(calls) == 16


def test_without_cache_every_query_is_evaluated():
    game, calls, _ = _recording_game(cache=False)
    game(np.ones((3, 4), dtype=bool))
    game(np.ones((3, 4), dtype=bool))
    assert game.n_evaluations == 6


@pytest.mark.parametrize("cache, batch_size", [(True, None), (True, 3), (False, None), (False, 3)])
def test_a_value_function_that_changes_its_input_harms_nothing(cache, batch_size):
    """value_fn may write into the coalitions it is given: the caller's array, the cache and later answers stay
    right (the game passes rows it made for the call, or a copy)."""
    soum = UnanimitySum(4, ((0, 1), (2,), (1, 3)), (1.0, 2.0, -1.5))

    def scribbling(s):
        values = soum.value(s)
        s[:] = ~s
        return values

    game = ip.Game(scribbling, 4, cache=cache, batch_size=batch_size)
    coalitions = np.random.default_rng(0).random((12, 4)) < 0.5
    kept = coalitions.copy()
    np.testing.assert_array_equal(game(coalitions), soum.value(kept))
    np.testing.assert_array_equal(coalitions, kept)
    np.testing.assert_array_equal(game(coalitions[::-1]), soum.value(kept[::-1]))
    np.testing.assert_array_equal(game(~kept), soum.value(~kept))

    def nan_at_zero_only(s):  # NaN for the coalition {0}, then writes into its input
        values = np.where((s == [True, False, False, False]).all(axis=1), np.nan, 1.0)
        s[:] = ~s
        return values

    game = ip.Game(nan_at_zero_only, 4, cache=cache, batch_size=batch_size)
    rows = np.array([[False, True, True, False], [True, False, False, False]])
    with pytest.raises(ValueError, match=r"non-finite values \(NaN or inf\) for coalitions \[\[0\]\]"):
        game(rows)  # the coalition as it was passed, not as value_fn left it


def test_large_player_counts_use_packed_keys():
    n = 130
    game = ip.Game(lambda s: s[:, 0] * 1.0 + s[:, 129], n)
    rng = np.random.default_rng(1)
    coalitions = rng.random((20, n)) < 0.5
    np.testing.assert_array_equal(game(np.vstack([coalitions, coalitions])), np.tile(coalitions[:, 0] + 1.0 * coalitions[:, 129], 2))
    assert game.n_evaluations == 20


def test_empty_and_grand_values():
    game, _, soum = _recording_game()
    assert game.empty_value() == 0.0
    assert game.grand_value() == pytest.approx(sum(soum.coefficients))


@pytest.mark.parametrize(
    "value_fn, message",
    [
        (lambda s: np.zeros((len(s), 2)), r"returned shape \(\d+, 2\).*expected"),
        (lambda s: np.zeros(len(s) + 1), r"returned shape"),
        (lambda s: np.full(len(s), np.nan), r"non-finite"),
        (lambda s: np.array(["a"] * len(s)), r"must return numbers"),
        # numeric text is text: float() would have read "0.5" as a number
        (lambda s: np.array(["0.5"] * len(s)), r"must return numbers; got text \(first value '0.5'\)"),
        (lambda s: np.array(["0.5"] * len(s), dtype=object), r"must return numbers; got text"),
        (lambda s: [b"1"] * len(s), r"must return numbers; got text"),
        (lambda s: [[1.0], [2.0, 3.0]] * len(s), r"must return numbers; got list of dtype object"),
    ],
)
def test_bad_value_functions_get_clear_errors(value_fn, message):
    with pytest.raises((ValueError, TypeError), match=message):
        ip.shapley(ip.Game(value_fn, 3))


def test_a_value_function_failing_part_way_keeps_the_finished_calls_cached():
    """Nothing computed is lost: the calls that finished before value_fn raised were counted, and their values
    are cached, so asking again evaluates only the rest."""
    calls = []

    def value_fn(s):
        calls.append(len(s))
        if len(calls) == 3:
            raise RuntimeError("model server went away")
        return s.sum(axis=1).astype(float)

    game = ip.Game(value_fn, 4, batch_size=2)
    coalitions = np.array([[a >> k & 1 for k in range(4)] for a in range(8)], dtype=bool)
    with pytest.raises(RuntimeError, match="went away"):
        game(coalitions)
    assert game.n_evaluations == 4 and game.n_cached == 4
    np.testing.assert_array_equal(game(coalitions), coalitions.sum(axis=1))
    assert game.n_evaluations == 8 and game.n_cached == 8 and calls == [2, 2, 2, 2, 2]


def test_bad_coalitions_and_players():
    game = ip.Game(lambda s: s.sum(axis=1), 3)
    with pytest.raises(ValueError, match="coalitions: expected 3 columns"):
        game(np.ones((2, 4), dtype=bool))
    with pytest.raises(ValueError, match="0/1"):
        game(np.full((2, 3), 2))
    with pytest.raises(ValueError, match="n_players"):
        ip.Game(lambda s: s.sum(axis=1), 0)
    with pytest.raises(TypeError, match="n_players"):
        ip.Game(lambda s: s.sum(axis=1), 2.5)
    with pytest.raises(TypeError, match="value_fn"):
        ip.Game("not callable", 3)
    with pytest.raises(ValueError, match="feature_names: expected 3 names"):
        ip.Game(lambda s: s.sum(axis=1), 3, feature_names=["a", "b"])
    with pytest.raises(TypeError, match="interplay.Game"):
        ip.shapley(lambda s: s.sum(axis=1))


def test_exact_limits_and_unknown_methods():
    big = ip.Game(lambda s: s.sum(axis=1) * 1.0, 21)
    with pytest.raises(ValueError, match="max_players=20.*sampling method"):
        ip.shapley(big, method="exact")
    assert ip.shapley(big, budget=100).method == "odd_gp"  # auto: a sampler, not an error
    with pytest.raises(ValueError, match="method: expected one of"):
        ip.shapley(ip.Game(lambda s: s.sum(axis=1) * 1.0, 3), method="nope")
    with pytest.raises(ValueError, match="index: expected one of"):
        ip.interactions(ip.Game(lambda s: s.sum(axis=1) * 1.0, 3), index="nope")
    with pytest.raises(ValueError, match="order"):
        ip.interactions(ip.Game(lambda s: s.sum(axis=1) * 1.0, 3), index="excess", order=3)
    with pytest.raises(ValueError, match="budget: exact computation"):
        ip.shapley(ip.Game(lambda s: s.sum(axis=1) * 1.0, 3), method="exact", budget=4)
    small = ip.Game(lambda s: s.sum(axis=1) * 1.0, 4)
    assert ip.shapley(small, max_players=4).n_evaluations == 16


def test_results_are_immutable_and_named():
    game = ip.Game(lambda s: s @ np.arange(1.0, 4.0), 3, feature_names=["a", "b", "c"])
    result = ip.shapley(game)
    with pytest.raises(ValueError):
        result.values[0] = 1.0
    assert result["c"] == pytest.approx(3.0)
    assert result.ranking() == ["c", "b", "a"]
    assert "Attribution" in repr(result)


def test_cache_stays_correct_over_many_small_calls():
    soum = UnanimitySum.random(12, n_terms=15, max_size=3, random_state=5)
    game = soum.game()
    rng = np.random.default_rng(6)
    seen = set()
    for size in rng.integers(1, 40, size=300):
        batch = rng.random((int(size), 12)) < 0.5
        np.testing.assert_allclose(game(batch), soum.value(batch), rtol=0, atol=1e-12)
        seen.update(map(tuple, batch))
    assert game.n_evaluations == len(seen) == game.n_cached


def test_unknown_options_and_read_only_interactions():
    game = ip.Game(lambda s: s.sum(axis=1) * 1.0, 3)
    with pytest.raises(TypeError, match=r"options: method='exact' for shapley accepts \['max_players'\]; got unknown \['foo'\]"):
        ip.shapley(game, method="exact", foo=1)
    with pytest.raises(TypeError, match=r"options: method='auto' for shapley.*accepts \['foo'\]"):
        ip.shapley(game, foo=1)
    result = ip.interactions(game, index="sii")
    with pytest.raises(TypeError):
        result.values[(0,)] = 99.0
