"""Regression tests of a review of interplay.metrics and interplay.io (saving/loading results)."""

import numpy as np
import pandas as pd
import pytest

import interplay as ip
from interplay import metrics as m
from interplay.games import Game

W = np.array([3.0, -1.0, 2.0, 0.5])


def _additive(names=None):
    return Game(lambda S: S.astype(float) @ W, len(W), names)


# ---------------------------------------------------------------- 1. pandas' integer labels are positions
def test_sorted_series_of_scores_keeps_its_features():
    """``pd.Series(phi).sort_values()`` keeps each value with its label 0..n-1: a metric reads it in position order
    (it was read in the sorted order, pairing values with the wrong features: a wrong AUC, faithfulness, ACC)."""
    game = _additive()
    s = pd.Series(W).sort_values()
    assert m.insertion_auc(game, s) == m.insertion_auc(game, W)
    assert m.deletion_auc(game, s) == m.deletion_auc(game, W)
    assert m.faithfulness(game, s) == pytest.approx(1.0)
    assert m.ranking_accuracy(s, pd.Series(W)) == 1.0
    assert m.ranking_accuracy(s, W) == 1.0
    assert m.absolute_error(s, W) == 0.0
    frame = pd.DataFrame([W]).iloc[:, [2, 0, 3, 1]]
    assert m.absolute_error(frame, W[None]) == pytest.approx([0.0])
    curve = m.posthoc_accuracy_by_ranking([game], frame, fractions=[0.5])
    assert np.array_equal(curve.accuracy, m.posthoc_accuracy_by_ranking([game], [W], fractions=[0.5]).accuracy)


# ---------------------------------------------------------------- 2. Interactions keyed by numpy integers
@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_interactions_with_numpy_integer_subsets_round_trip(tmp_path, suffix):
    """Subsets built from numpy indices (``itertools.combinations(np.arange(n), 2)``) are saved as ints (save
    raised 'Object of type int64 is not JSON serializable')."""
    import itertools

    pairs = list(itertools.combinations(np.arange(3), 2))
    result = ip.Interactions({p: float(sum(p)) for p in pairs}, "sii", 2, 0.0, ("a", "b", "c"), 8, "exact",
                             std_errors={p: 0.1 for p in pairs})
    loaded = ip.load(ip.save(result, tmp_path / f"r{suffix}"))
    assert dict(loaded.values) == {(0, 1): 1.0, (0, 2): 2.0, (1, 2): 3.0}
    assert dict(loaded.std_errors) == {p: 0.1 for p in [(0, 1), (0, 2), (1, 2)]}
    assert all(type(i) is int for key in loaded.values for i in key)


# ---------------------------------------------------------------- 3. a file named .npz that is no zip archive
@pytest.mark.parametrize("content", [b"not a zip", b'{"format": "interplay-result"}', b""])
def test_npz_that_is_not_a_zip_says_so_without_suggesting_pickle(tmp_path, content):
    """numpy reads a non-zip file as a pickle and the error told the user to pass allow_pickle=True (which would
    run code from the file); it now says the file is not a zip archive."""
    path = tmp_path / "result.npz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="not a zip archive") as info:
        ip.load(path)
    assert "pickle" not in str(info.value)
    with pytest.raises(ValueError, match="not a zip archive"):
        ip.io.read_header(path)


def test_a_result_path_may_start_with_the_home_folder(tmp_path, monkeypatch):
    """``save(result, "~/x.json")`` wrote nowhere useful (the literal folder "~" does not exist: a WriteError)."""
    monkeypatch.setenv("HOME", str(tmp_path))
    result = ip.shapley(_additive(), method="exact")
    written = ip.save(result, "~/result.json")
    assert written == tmp_path / "result.json" and written.is_file()
    np.testing.assert_array_equal(ip.load("~/result.json").values, result.values)


@pytest.mark.parametrize("fractions", [1.5, [0.5, float("nan")], [0.2, 1.2], "half"])
def test_posthoc_fractions_out_of_range_are_named(fractions):
    """A single number out of range raised numpy's TypeError (list() of a float); NaN passed unnoticed."""
    with pytest.raises(ValueError, match=r"^fractions: expected a list of values in \[0, 1\]"):
        m.posthoc_accuracy_by_ranking([_additive()], W, fractions=fractions)
