"""Games whose values are too large or too small for an estimator's algebra, explained in rescaled units.

Estimators square and multiply the game's values: sums of squares of values about ``1e154`` overflow (a tree
surrogate's split gains, a Gaussian process's relevance weights: OddGP raised "Eigenvalues did not converge" on a
game scaled by 1e160, the tree-based Banzhaf estimate came out wrong without a word, and standard errors became
NaN or inf), and values about ``1e-160`` underflow the same way. Every index is linear in the game, so the game
is explained as ``s v`` with ``s`` a power of two (exact: no rounding) that brings its largest value seen in the
first call with a nonzero value near 1, and the result is divided by ``s``. Games whose values stay within
``[1e-100, 1e100]`` in magnitude are explained as they are (``s = 1``: the same bits as without this module).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .games import Game, GameView

HUGE, TINY = 1e100, 1e-100  # magnitudes outside this range are rescaled


class ScaledGame(GameView):
    """``game`` with its values multiplied by :attr:`scale` (a power of two, decided on the first call that
    returns a nonzero value; zeros before that are zeros in any scale). Evaluations, the cache and the counts
    are ``game``'s own: asking the view costs what asking ``game`` costs. Cost: one multiplication per value."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.scale: float | None = None

    def __call__(self, coalitions) -> np.ndarray:
        values = self._game(coalitions)
        if self.scale is None and len(values):
            top = float(np.max(np.abs(values)))
            if top > 0:  # the exponent bounded so that the scale stays finite (subnormal values: 2**1000)
                exponent = float(np.clip(-np.floor(np.log2(top)), -1000.0, 1000.0))
                self.scale = float(2.0 ** exponent) if (top > HUGE or top < TINY) else 1.0
        return values * self.scale if self.scale not in (None, 1.0) else values


def unscaled(result: Any, scale: float | None) -> Any:
    """``result`` of the rescaled game in the game's own units (values, base values and standard errors divided
    by ``scale``; ``info["rescaled_by"]`` says by what). Unchanged when ``scale`` is None or 1."""
    if scale in (None, 1.0):
        return result
    back = 1.0 / scale
    info = {**result.info, "rescaled_by": f"2**{int(np.log2(scale))} (values outside [1e-100, 1e100] in magnitude; "
                                          "info's fitted quantities are in those units)"}
    if hasattr(result, "adjacency"):  # BivariateExplanation
        return replace(result, adjacency=result.adjacency * back, univariate=unscaled(result.univariate, scale),
                       std_errors=None if result.std_errors is None else result.std_errors * back, info=info)
    if hasattr(result, "index") and hasattr(result, "order"):  # Interactions
        std = None if result.std_errors is None else {k: v * back for k, v in result.std_errors.items()}
        return replace(result, values={k: v * back for k, v in result.values.items()},
                       baseline=result.baseline * back, std_errors=std, info=info)
    return replace(result, values=np.asarray(result.values) * back, baseline=result.baseline * back,
                   std_errors=None if result.std_errors is None else np.asarray(result.std_errors) * back, info=info)
