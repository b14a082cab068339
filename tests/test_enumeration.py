"""An interaction sampler whose budget covers every coalition returns the exact result."""

import pytest

import interplay as ip
from interplay.synthetic import random_game


@pytest.mark.parametrize("index, method", [("bii", "msr"), ("bii", "pairwise"), ("sii", "permutation"),
                                           ("stii", "permutation"), ("excess", "permutation")])
def test_full_budget_interactions_are_exact(index, method):
    game = random_game(5, random_state=2)
    exact = ip.interactions(game, index=index, order=2)
    result = ip.interactions(game, index=index, order=2, method=method, budget=32, random_state=0)
    assert result.method == method and result.info["enumerated"] and result.n_evaluations == 32
    for key, value in exact.values.items():
        assert result[key] == pytest.approx(value, abs=1e-12)
    sampled = ip.interactions(game, index=index, order=2, method=method, budget=100, random_state=0,
                              exact_if_affordable=False)
    assert "enumerated" not in sampled.info


def test_budget_below_all_coalitions_samples():
    game = random_game(6, random_state=2)
    result = ip.interactions(game, index="bii", method="msr", budget=63, random_state=0)
    assert "enumerated" not in result.info


def test_full_budget_does_not_hide_unsupported_indices():
    game = random_game(5, random_state=2)
    with pytest.raises(ValueError, match="index: method='msr' estimates"):
        ip.interactions(game, index="sii", method="msr", budget=32)
