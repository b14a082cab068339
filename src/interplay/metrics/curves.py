"""Insertion and deletion curves and their areas (Petsiuk et al. 2018; Bivariate Shapley paper, App. A.2.1).

Insertion starts from the empty coalition (every feature removed) and adds features from the most to the least
important; deletion starts from the full coalition and removes them in the same order. The curve is the game's
value after ``k = 0..M`` steps against the fraction ``k / M``; the area under it is the trapezoidal rule on
``[0, 1]``. A good ranking gives a high insertion AUC and a low deletion AUC (with a value that grows with the
evidence for the explained output, e.g. its class probability). Cost per curve: ``M + 1`` evaluations, one
call of the game.

``scores``: one row (a 1-D vector, an Attribution, or a one-row Explanation / ``(1, M)`` array), matched to the
game's features by name when both carry names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..games import Game, as_game
from ._inputs import descending_order, row_scores
from .perturbation import _chain


def _curve(game: Game, scores: Any, insertion: bool) -> tuple[np.ndarray, np.ndarray]:
    game = as_game(game)
    n = game.n_players
    s = row_scores(scores, game, "scores")
    coalitions = _chain(descending_order(s))
    if not insertion:
        coalitions = ~coalitions
    return np.arange(n + 1) / n, game(coalitions)


def insertion_curve(game: Game, scores: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(fractions, values)``: ``values[k] = v(top-k features by score)``, ``fractions[k] = k / M``."""
    return _curve(game, scores, insertion=True)


def deletion_curve(game: Game, scores: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(fractions, values)``: ``values[k] = v(N minus the top-k features by score)``, ``fractions[k] = k / M``."""
    return _curve(game, scores, insertion=False)


def insertion_auc(game: Game, scores: Any) -> float:
    """Area under the insertion curve, ``iAUC = trapz(values, k / M)`` (higher is better)."""
    x, y = insertion_curve(game, scores)
    return float(np.trapezoid(y, x))


def deletion_auc(game: Game, scores: Any) -> float:
    """Area under the deletion curve, ``dAUC = trapz(values, k / M)`` (lower is better)."""
    x, y = deletion_curve(game, scores)
    return float(np.trapezoid(y, x))
