"""Log-odds ratio after masking the top features (L-Shapley/C-Shapley, Chen et al. 2019, evaluation section).

For the class predicted on the full input, with probability ``p(S)`` when only the features in ``S`` are
present:

    LOR(k) = logit p(N \\ T_k) - logit p(N),   logit p = log(p / (1 - p)),

where ``T_k`` holds the ``k`` highest-scored features. The more negative, the more the masked features mattered.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_choice, check_int
from ..games import Game, as_game
from ._inputs import descending_order, row_scores

_EPS = 1e-12


def log_odds_ratio(game: Game, scores: Any, k: Any, *, output: str = "probability") -> float | np.ndarray:
    """``LOR(k)`` for one ``k`` (float) or several (array, in the given order).

    ``game``'s value is the probability of the class predicted on the full row (``output="probability"``,
    e.g. an ``Explainer(..., output="probability", target="predicted")`` game) or already its log-odds
    (``output="log-odds"``, e.g. ``Explainer(..., output="log-odds", target="predicted")``). The L-/C-Shapley
    metric is the log-odds ratio of the *predicted* class: without ``target="predicted"`` a binary classifier's
    game scores its positive class, and for a row predicted negative the sign of the ratio flips; nothing here
    can check which class the game scores. ``scores``: one row (a 1-D vector, an Attribution, or a one-row
    Explanation / ``(1, M)`` array), matched to the game's features by name when both carry names.
    Probabilities are clipped to ``[1e-12, 1 - 1e-12]``. Cost: ``1 + len(k)`` evaluations, one call.
    """
    game = as_game(game)
    n = game.n_players
    output = check_choice(output, "output", ("probability", "log-odds"))
    s = row_scores(scores, game, "scores")
    ks = np.array([check_int(v, "k", minimum=0, maximum=n) for v in np.atleast_1d(np.asarray(k, dtype=object))],
                  dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[descending_order(s)] = np.arange(n)
    coalitions = np.vstack([np.ones((1, n), dtype=bool), rank[None, :] >= ks[:, None]])
    values = game(coalitions)
    if output == "probability":
        if (values < 0).any() or (values > 1).any():
            raise ValueError("game: output='probability' needs values in [0, 1]; use output='log-odds' "
                             "for a game whose value is already a log-odds")
        p = np.clip(values, _EPS, 1 - _EPS)
        values = np.log(p) - np.log1p(-p)
    ratio = values[1:] - values[0]
    return float(ratio[0]) if np.ndim(k) == 0 else ratio
