"""Faithfulness and monotonicity: agreement of an attribution with the game it explains (SHEAR paper, Sec. 5.3;
Liu et al. 2021). The game's value of a coalition is the model's output with only those features present.

``attribution``: one row (a 1-D vector, an Attribution, or a one-row Explanation / ``(1, M)`` array), matched to
the game's features by name when both carry names.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._validation import check_bool
from ..games import Game, as_game
from ._inputs import descending_order, row_scores


def faithfulness(game: Game, attribution: Any) -> float:
    """Pearson correlation between the attribution and each feature's leave-one-out drop (SHEAR Sec. 5.3):

        Faithful = Pearson([v(U) - v(U \\ {i})]_{i=1..M}, [phi_hat_i]_{i=1..M}).

    Cost: ``M + 1`` coalition evaluations, in one call of the game (cached ones are free). Higher is better.
    Returns NaN with a warning when either vector is constant (the correlation is undefined).
    """
    game = as_game(game)
    n = game.n_players
    phi = row_scores(attribution, game, "attribution")
    coalitions = np.ones((n + 1, n), dtype=bool)
    coalitions[np.arange(1, n + 1), np.arange(n)] = False  # row i+1 = all but feature i
    values = game(coalitions)
    drops = values[0] - values[1:]
    if np.ptp(drops) == 0 or np.ptp(phi) == 0:
        warnings.warn("faithfulness: the attribution or the leave-one-out drops are constant; the Pearson "
                      "correlation is undefined (returning NaN)", RuntimeWarning, stacklevel=2)
        return float("nan")
    return float(np.corrcoef(drops, phi)[0, 1])


def monotonicity(game: Game, attribution: Any, *, absolute: bool = False) -> float:
    """Fraction of consecutive features whose marginal improvement does not increase (SHEAR Sec. 5.3):

        Monotonicity = 1/(M-1) sum_{k=1}^{M-1} 1[delta_k >= delta_{k+1}],
        delta_k = v(W_k + {i_k}) - v(W_k),      W_k = {j != i_k : phi_j >= phi_{i_k}},

    with ``i_1, ..., i_M`` the features by decreasing attribution (``absolute=True`` ranks ``|phi|``) and ``W_k``
    the features at least as important as ``i_k``, as the paper defines it: features of equal attribution are in
    each other's ``W`` (an estimate's exact ties, e.g. zeros for features it never sampled; they follow each other
    in the sequence by feature index). Without ties ``W_k = {i_1, ..., i_{k-1}}``, the chain from the empty to the
    full coalition. Cost: ``M + 1`` evaluations without ties (at most ``2M`` with them), one call. Higher is
    better; needs ``M >= 2``.
    """
    game = as_game(game)
    n = game.n_players
    if n < 2:
        raise ValueError("game: monotonicity needs at least 2 players")
    phi = row_scores(attribution, game, "attribution")
    score = np.abs(phi) if check_bool(absolute, "absolute") else phi
    order = descending_order(score)
    ranked = score[order]
    if np.all(ranked[:-1] > ranked[1:]):  # no ties: the chain
        values = game(_chain(order))
        delta = np.diff(values)
    else:
        at_least = score[None, :] >= ranked[:, None]  # row k: the features scored at least as high as i_k
        at_least[np.arange(n), order] = False  # W_k leaves i_k out
        with_it = at_least.copy()
        with_it[np.arange(n), order] = True
        values = game(np.concatenate([at_least, with_it]))
        delta = values[n:] - values[:n]
    return float(np.mean(delta[:-1] >= delta[1:]))


def _chain(order: np.ndarray) -> np.ndarray:
    """The ``n + 1`` coalitions ``{}, {o_1}, {o_1, o_2}, ..., N`` along ``order``."""
    n = len(order)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank[None, :] < np.arange(n + 1)[:, None]
