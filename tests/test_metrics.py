"""interplay.metrics on small hand-computed cases (the formulas are in each function's docstring)."""


import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

import interplay as ip
from interplay import metrics as m


def additive(weights, intercept=0.0):
    w = np.asarray(weights, dtype=float)
    return ip.Game(lambda S: intercept + S @ w, len(w))


def counting(value_fn, n):
    calls = []

    def fn(S):
        calls.append(len(S))
        return value_fn(S)

    return ip.Game(fn, n), calls


# ---------------------------------------------------------------- ground truth (SHEAR 5.2)
def test_absolute_error_sums_absolute_differences():
    assert m.absolute_error([1.0, -2.0, 0.5], [0.0, -1.0, 1.0]) == pytest.approx(1 + 1 + 0.5)
    rows = m.absolute_error([[1, 2], [0, 0]], [[1, 1], [2, -1]])
    np.testing.assert_allclose(rows, [1.0, 3.0])


def test_absolute_error_accepts_attributions_and_checks_shapes():
    game = additive([1.0, 2.0, 3.0])
    exact = ip.shapley(game)
    assert m.absolute_error(exact, [1.0, 2.0, 3.0]) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="truth"):
        m.absolute_error([1, 2, 3], [1, 2])


def test_ranking_accuracy_hand_computed():
    harmonic3 = 1 + 1 / 2 + 1 / 3
    # truth ranks 0, 2, 1; estimate ranks 0, 1, 2: only position 1 agrees
    assert m.ranking_accuracy([3, 2, 1], [3, 1, 2]) == pytest.approx(1 / harmonic3)
    # estimate ranks 1, 0, 2; truth ranks 0, 1, 2: only position 3 agrees
    assert m.ranking_accuracy([1, 3, 0], [3, 1, 0]) == pytest.approx((1 / 3) / harmonic3)
    # four features, estimate 1, 0, 2, 3 vs truth 0, 1, 2, 3: positions 3 and 4 agree
    assert m.ranking_accuracy([3, 4, 2, 1], [4, 3, 2, 1]) == pytest.approx((1 / 3 + 1 / 4) / (harmonic3 + 1 / 4))
    assert m.ranking_accuracy([5, 4, 3, 2], [9, 7, 1, 0]) == pytest.approx(1.0)
    assert m.ranking_accuracy([0, 1, 2, 3], [3, 2, 1, 0]) == pytest.approx(0.0)


def test_ranking_accuracy_signed_versus_absolute():
    # signed: truth order 1, 2, 0; estimate order 1, 0, 2 -> only position 1 agrees
    assert m.ranking_accuracy([0.5, 2, -1], [-3, 2, 1]) == pytest.approx(1 / (1 + 1 / 2 + 1 / 3))
    # absolute: truth order 0, 1, 2; estimate |.| order 1, 2, 0 -> no agreement
    assert m.ranking_accuracy([0.5, 2, -1], [-3, 2, 1], absolute=True) == pytest.approx(0.0)


# ---------------------------------------------------------------- game-based (SHEAR 5.3)
def test_faithfulness_is_pearson_with_leave_one_out_drops():
    # v(S) = 3 x0 + 1 x1 + 2 x2 + 4 x0 x1: drops are v(N) - v(N \ i) = 7, 5, 2
    game = ip.Game(lambda S: S @ np.array([3.0, 1.0, 2.0]) + 4.0 * (S[:, 0] & S[:, 1]), 3)
    phi = np.array([1.0, 0.0, 2.0])
    expected = np.corrcoef([7.0, 5.0, 2.0], phi)[0, 1]
    assert m.faithfulness(game, phi) == pytest.approx(expected)
    assert m.faithfulness(game, [7.0, 5.0, 2.0]) == pytest.approx(1.0)
    assert m.faithfulness(game, [-7.0, -5.0, -2.0]) == pytest.approx(-1.0)


def test_faithfulness_cost_and_constant_warning():
    game, calls = counting(lambda S: S.sum(axis=1).astype(float), 4)
    with pytest.warns(RuntimeWarning, match="constant"):
        assert np.isnan(m.faithfulness(game, [1, 2, 3, 4]))  # all drops equal 1
    assert calls == [5]


def test_monotonicity_hand_computed():
    # additive game with weights 4, 1, 3, 2: marginal improvements along the ranking are the weights
    game = additive([4.0, 1.0, 3.0, 2.0])
    assert m.monotonicity(game, [4, 1, 3, 2]) == pytest.approx(1.0)  # deltas 4, 3, 2, 1
    assert m.monotonicity(game, [1, 4, 2, 3]) == pytest.approx(0.0)  # order 1, 3, 2, 0: deltas 1, 2, 3, 4
    assert m.monotonicity(game, [1, 4, 3, 2]) == pytest.approx(1 / 3)  # order 1, 2, 3, 0: deltas 1, 3, 2, 4
    assert m.monotonicity(game, [4, 3, 2, 1]) == pytest.approx(2 / 3)  # deltas 4, 1, 3, 2


def test_monotonicity_uses_coalitions_not_weights():
    # v = x0 x1 (unanimity): along order 0, 1, 2 the deltas are 0, 1, 0 -> pairs (0>=1 no, 1>=0 yes)
    game, calls = counting(lambda S: (S[:, 0] & S[:, 1]).astype(float), 3)
    assert m.monotonicity(game, [3, 2, 1]) == pytest.approx(0.5)
    assert calls == [4]
    # only feature 1 matters; signed ranking puts its negative score last (deltas 0, 0, 1 -> 0.5),
    # absolute puts it first (deltas 1, 0, 0 -> 1.0)
    only1 = additive([0.0, 1.0, 0.0])
    assert m.monotonicity(only1, [0.1, -5.0, 0.0]) == pytest.approx(0.5)
    assert m.monotonicity(only1, [0.1, -5.0, 0.0], absolute=True) == pytest.approx(1.0)


def test_monotonicity_puts_tied_features_in_each_others_w_as_the_paper_defines_it():
    """SHEAR Sec. 5.3: W_i = {j != i : phi_j >= phi_i}. Features 1 and 2 tie (0.5): each one's W holds the other.
    v = 3 x0 + 2 x1 x2 + 0.5 x3: deltas 3, v({0,1,2}) - v({0,2}) = 2, v({0,1,2}) - v({0,1}) = 2, 0.5: every pair
    falls or stays: 1.0. Breaking the tie by index (the chain 0, 1, 2, 3) gave deltas 3, 0, 2, 0.5: 2/3."""
    game, calls = counting(lambda S: 3.0 * S[:, 0] + 2.0 * (S[:, 1] & S[:, 2]) + 0.5 * S[:, 3], 4)
    assert m.monotonicity(game, [1.0, 0.5, 0.5, 0.1]) == pytest.approx(1.0)
    assert m.monotonicity(game, [1.0, 0.5, 0.4, 0.1]) == pytest.approx(2 / 3)  # no tie: the chain
    # by the definition, coalition by coalition
    phi = np.array([0.3, 0.3, 0.1, 0.3])
    game4 = ip.Game(lambda S: np.tanh(S @ np.array([1.0, -2.0, 0.5, 3.0]) + 2.0 * S[:, 0] * S[:, 3]), 4)
    order = [0, 1, 3, 2]
    delta = []
    for i in order:
        W = np.array([phi[j] >= phi[i] and j != i for j in range(4)])
        with_i = W.copy()
        with_i[i] = True
        delta.append(game4(with_i[None])[0] - game4(W[None])[0])
    assert m.monotonicity(game4, phi) == pytest.approx(np.mean([a >= b for a, b in zip(delta[:-1], delta[1:])]))


# ---------------------------------------------------------------- insertion / deletion
def test_insertion_and_deletion_curves_and_auc():
    game = additive([3.0, 1.0, 2.0])
    x, y = m.insertion_curve(game, [3, 2, 1])  # order 0, 1, 2
    np.testing.assert_allclose(x, [0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(y, [0, 3, 4, 6])
    assert m.insertion_auc(game, [3, 2, 1]) == pytest.approx((1.5 + 3.5 + 5.0) / 3)
    x, y = m.deletion_curve(game, [3, 2, 1])
    np.testing.assert_allclose(y, [6, 3, 2, 0])
    assert m.deletion_auc(game, [3, 2, 1]) == pytest.approx((4.5 + 2.5 + 1.0) / 3)
    # the true ranking maximises insertion and minimises deletion AUC
    assert m.insertion_auc(game, [3, 1, 2]) > m.insertion_auc(game, [1, 3, 2])
    assert m.deletion_auc(game, [3, 1, 2]) < m.deletion_auc(game, [1, 3, 2])


# ---------------------------------------------------------------- log-odds (L-/C-Shapley)
def test_log_odds_ratio_hand_computed():
    probabilities = {(): 0.5, (0,): 0.8, (1,): 0.6, (0, 1): 0.9}

    def value_fn(S):
        return np.array([probabilities[tuple(np.flatnonzero(row))] for row in S])

    game = ip.Game(value_fn, 2)
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    assert m.log_odds_ratio(game, [2.0, 1.0], 1) == pytest.approx(logit(0.6) - logit(0.9))
    np.testing.assert_allclose(m.log_odds_ratio(game, [2.0, 1.0], [0, 1, 2]),
                               [0.0, logit(0.6) - logit(0.9), logit(0.5) - logit(0.9)])
    assert m.log_odds_ratio(game, [1.0, 2.0], 1) == pytest.approx(logit(0.8) - logit(0.9))
    log_game = ip.Game(lambda S: logit(value_fn(S)), 2)
    assert m.log_odds_ratio(log_game, [2.0, 1.0], 1, output="log-odds") == pytest.approx(logit(0.6) - logit(0.9))
    with pytest.raises(ValueError, match="k"):
        m.log_odds_ratio(game, [2.0, 1.0], 3)
    with pytest.raises(ValueError, match="log-odds"):
        m.log_odds_ratio(additive([2.0, 3.0]), [1, 2], 1)


# ---------------------------------------------------------------- post-hoc accuracy (Bivariate Shapley)
def _threshold_games():
    # kept iff the weight of present features >= 0.5: two rows with different weights
    g1 = ip.Game(lambda S: S @ np.array([0.4, 0.3, 0.2, 0.1]), 4)
    g2 = ip.Game(lambda S: S @ np.array([0.1, 0.1, 0.1, 0.7]), 4)
    return [g1, g2]


def test_posthoc_accuracy_explicit_masks():
    games = _threshold_games()
    present = np.array([[[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1]],
                        [[1, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1]]], dtype=bool)
    # row 1: 1.0, 0.7, 0.3 -> kept, kept, lost; row 2: 1.0, 0.2, 0.8 -> kept, lost, kept
    np.testing.assert_allclose(m.posthoc_accuracy(games, present), [1.0, 0.5, 0.5])
    np.testing.assert_allclose(m.posthoc_accuracy(games, present, threshold=0.75), [1.0, 0.0, 0.5])


def test_posthoc_accuracy_by_ranking():
    games = _threshold_games()
    good = [[4, 3, 2, 1], [1, 2, 3, 4]]  # row 2 ranks feature 3 first
    curve = m.posthoc_accuracy_by_ranking(games, good, fractions=[0.0, 0.5, 0.75])
    np.testing.assert_allclose(curve.fraction_masked, [0.0, 0.5, 0.75])
    # masking the 2 lowest: row 1 keeps 0.7, row 2 keeps 0.7 + 0.1; masking 3: 0.4 (lost), 0.7 (kept)
    np.testing.assert_allclose(curve.accuracy, [1.0, 1.0, 0.5])
    worst = m.posthoc_accuracy_by_ranking(games, good, fractions=[0.5], mask="highest")
    np.testing.assert_allclose(worst.accuracy, [0.0])  # row 1 keeps 0.3, row 2 keeps 0.2


def test_posthoc_accuracy_sinks_sources():
    games = _threshold_games()
    out = m.posthoc_accuracy_sinks_sources(games, sinks=[[2, 3], [0]], sources=[[0], [3]])
    # sinks masked: row 1 0.7 kept, row 2 0.9 kept; sources masked: 0.6 kept, 0.3 lost
    assert out == pytest.approx({"sink_masked": 1.0, "source_masked": 0.5,
                                 "sink_fraction": 3 / 8, "source_fraction": 2 / 8})


def test_posthoc_accuracy_groups_masks_all_but_one_member():
    # v = 1 iff at least one of {0, 1, 2} and feature 3 are present (0, 1, 2 mutually redundant)
    game, calls = counting(lambda S: (S[:, :3].any(axis=1) & S[:, 3]).astype(float), 5)
    curve = m.posthoc_accuracy_groups(game, [[[0, 1, 2], [4]]], n_levels=3, random_state=0)
    np.testing.assert_allclose(curve.fraction_masked, [0.0, 1 / 5, 2 / 5])
    np.testing.assert_allclose(curve.accuracy, [1.0, 1.0, 1.0])
    assert calls == [3]
    # a group that is not redundant: {0, 3} both needed -> masking one loses the prediction
    both = ip.Game(lambda S: (S[:, 0] & S[:, 3]).astype(float), 5)
    lost = m.posthoc_accuracy_groups(both, [[[0, 3]]], n_levels=2, random_state=1)
    np.testing.assert_allclose(lost.accuracy, [1.0, 0.0])
    with pytest.raises(ValueError, match="overlapping"):
        m.posthoc_accuracy_groups(game, [[[0, 1], [1, 2]]])
    with pytest.raises(ValueError, match="0..4"):
        m.posthoc_accuracy_groups(game, [[[0, 7]]])


def test_posthoc_groups_same_seed_same_masks():
    rng = np.random.default_rng(3)
    w = rng.normal(size=8)
    game = ip.Game(lambda S: (S @ w > 0).astype(float), 8)
    groups = [[[0, 1, 2, 3], [4, 5, 6]]]
    a = m.posthoc_accuracy_groups(game, groups, n_levels=4, random_state=11)
    b = m.posthoc_accuracy_groups(game, groups, n_levels=4, random_state=11)
    np.testing.assert_array_equal(a.accuracy, b.accuracy)


def test_prediction_game_binary_and_multiclass():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y2 = (X[:, 0] + 0.2 * X[:, 1] > 0).astype(int)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    for y in (y2, y3):
        model = LogisticRegression().fit(X, y)
        reference = np.zeros(3)
        explainer = ip.Explainer(model, removal="baseline", baseline=reference)
        x = X[np.argmax(np.abs(X[:, 0]))]
        game = m.prediction_game(explainer, x)
        coalitions = np.array([[1, 1, 1], [0, 0, 0], [1, 0, 0], [0, 1, 1]], dtype=bool)
        rows = np.where(coalitions, x, reference)
        expected = (model.predict(rows) == model.predict(x[None])[0]).astype(float)
        np.testing.assert_array_equal(game(coalitions), expected)
        assert game(coalitions)[0] == 1.0


def test_prediction_game_needs_a_classifier():
    explainer = ip.Explainer(lambda X: X.sum(axis=1), removal="baseline", baseline=np.zeros(2))
    with pytest.raises(TypeError, match="classifier"):
        m.prediction_game(explainer, np.ones(2))


# ---------------------------------------------------------------- throughput (SHEAR 5.4)
def test_throughput_counts_rows_with_injected_timer():
    ticks = iter([10.0, 14.0])
    seen = []
    out = m.throughput(seen.append, [1, 2, 3, 4, 5, 6, 7, 8], timer=lambda: next(ticks))
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8]
    assert out.n_explained == 8 and out.seconds == 4.0
    assert out.per_second == pytest.approx(2.0)
    assert out.seconds_per_explanation == pytest.approx(0.5)
    with pytest.raises(ValueError, match="at least one"):
        m.throughput(seen.append, [])


# ---------------------------------------------------------------- exact Shapley is a good explanation
def test_exact_shapley_scores_well_on_additive_game():
    game = additive([0.5, -1.0, 2.0, 0.1, 1.5])
    phi = ip.shapley(game)
    assert m.faithfulness(game, phi) == pytest.approx(1.0)
    assert m.monotonicity(game, phi) == pytest.approx(1.0)
    assert m.ranking_accuracy(phi, [0.5, -1.0, 2.0, 0.1, 1.5]) == pytest.approx(1.0)


def test_inputs_are_checked():
    game = additive([1.0, 2.0])
    with pytest.raises(ValueError, match="2 values"):
        m.faithfulness(game, [1, 2, 3])
    with pytest.raises(ValueError, match="NaN"):
        m.monotonicity(game, [np.nan, 1])
    with pytest.raises(TypeError, match="Game"):
        m.insertion_auc(lambda S: S.sum(1), [1, 2])
    with pytest.raises(ValueError, match="one row of scores per game"):
        m.posthoc_accuracy_by_ranking([game, game], [[1, 2]])


def test_posthoc_with_the_redundancy_graph_end_to_end():
    # kept iff (x0 or x1) and x2: x0, x1 mutually redundant; x3 a dummy (a sink of H)
    game = ip.Game(lambda S: ((S[:, 0] | S[:, 1]) & S[:, 2]).astype(float), 4)
    H = ip.bivariate(game).graph().redundancy()
    assert H.groups() == [["x0", "x1"]]
    curve = m.posthoc_accuracy_groups(game, [H.groups()], n_levels=2, random_state=0)
    np.testing.assert_allclose(curve.accuracy, [1.0, 1.0])
    out = m.posthoc_accuracy_sinks_sources(game, [H.sinks()], [H.sources()])
    assert out["sink_masked"] == 1.0 and out["source_masked"] == 0.0
    with pytest.raises(ValueError, match="unknown feature"):
        m.posthoc_accuracy_sinks_sources(game, [["x9"]], [[0]])


def test_posthoc_metrics_accept_rows_of_different_sizes():
    """Sentences of different lengths: each row is masked over its own features."""
    g8 = ip.Game(lambda S: S.sum(1) / 8.0, 8)
    g13 = ip.Game(lambda S: S.sum(1) / 13.0, 13)
    out = m.posthoc_accuracy_sinks_sources([g8, g13], [[0], [12]], [[1, 2, 3, 4, 5], [2]], threshold=0.5)
    assert out["sink_masked"] == 1.0 and out["source_masked"] == 0.5
    assert out["sink_fraction"] == pytest.approx((1 / 8 + 1 / 13) / 2)
    curve = m.posthoc_accuracy_groups([g8, g13], [[[0, 1]], [[3, 4, 5]]], n_levels=2, random_state=0)
    assert curve.fraction_masked[0] == 0.0
    assert curve.fraction_masked[-1] == pytest.approx((1 / 8 + 2 / 13) / 2)


def test_posthoc_accuracy_by_ranking_signed_by_default_or_absolute():
    """Scores are ranked signed (Bivariate Shapley Sec. 5 (c), as ranking_accuracy and monotonicity rank SHEAR's
    phi); absolute=True ranks |scores|. v(S) = 0.6 + 0.3 [x0 in S] - 0.3 [x1 in S] + 0.05 [x2 in S], phi = (0.3,
    -0.3, 0.05), threshold 0.85: signed, x1 (it lowers v) is masked first, v = 0.95, then x2, v = 0.9: both kept;
    by |phi|, x2 goes first, v = 0.6 (lost), then x1 (ties: the lower index ranks higher), v = 0.9."""
    game = ip.Game(lambda Z: 0.6 + Z @ np.array([0.3, -0.3, 0.05]), 3)
    phi = [0.3, -0.3, 0.05]
    signed = m.posthoc_accuracy_by_ranking([game], [phi], fractions=[1 / 3, 2 / 3], threshold=0.85)
    np.testing.assert_allclose(signed.accuracy, [1.0, 1.0])
    by_size = m.posthoc_accuracy_by_ranking([game], [phi], fractions=[1 / 3, 2 / 3], threshold=0.85, absolute=True)
    np.testing.assert_allclose(by_size.accuracy, [0.0, 1.0])
    with pytest.raises(TypeError, match="absolute: expected True or False, got 'yes'"):
        m.posthoc_accuracy_by_ranking([game], [phi], absolute="yes")
