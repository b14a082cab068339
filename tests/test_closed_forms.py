"""Closed forms quoted in ../shared/papers/README.md (errata included)."""

from math import comb

import pytest

import interplay as ip
from interplay.synthetic import majority_game


@pytest.mark.parametrize("n,k", [(6, 3), (8, 6), (5, 2), (7, 4), (9, 5), (4, 4)])
def test_majority_pairwise_bii(n, k):
    expected = 2.0 ** -(n - 2) * (comb(n - 2, k - 2) - comb(n - 2, k - 1))
    result = ip.interactions(majority_game(n, k), index="bii", order=2)
    for pair, value in result.values.items():
        if len(pair) == 2:
            assert value == pytest.approx(expected, abs=1e-14)
    # the sign follows (2k - n - 1), as corrected in the README (not 2k - (n + 3) as printed)
    sign = (2 * k - n - 1 > 0) - (2 * k - n - 1 < 0)
    assert (expected > 0) - (expected < 0) == sign


def test_majority_readme_examples():
    assert ip.interactions(majority_game(6, 3), index="bii")[(0, 1)] == pytest.approx(-0.125)
    assert ip.interactions(majority_game(8, 6), index="bii")[(2, 5)] == pytest.approx(0.140625)


@pytest.mark.parametrize("c", [1.0, 2.5, -3.0])
def test_product_game(c):
    game = ip.Game(lambda s: c * s.all(axis=1), 3)
    assert ip.interactions(game, index="bii")[(0, 1)] == pytest.approx(c / 2)  # README: c/2, not c
    assert ip.interactions(game, index="sii")[(0, 1)] == pytest.approx(c / 2)
    assert ip.interactions(game, index="stii", order=2)[(0, 1)] == pytest.approx(c / 3)
    assert ip.interactions(game, index="moebius", order=3)[(0, 1, 2)] == pytest.approx(c)
