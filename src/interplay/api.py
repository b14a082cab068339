"""The four entry points: ``shapley``, ``banzhaf``, ``interactions``, ``bivariate``.

Each checks its inputs once, turns ``random_state`` into a ``numpy.random.Generator`` and hands the game to
the estimator registered for ``method`` (see :mod:`interplay.estimators`).
"""

from __future__ import annotations

from typing import Any

from ._validation import check_int, check_random_state
from .estimators import get_estimator
from .games import as_game
from .results import Attribution, BivariateExplanation, Interactions


def _common(game, budget, random_state):
    game = as_game(game)
    budget = check_int(budget, "budget", minimum=1, allow_none=True)
    return game, budget, check_random_state(random_state)


def shapley(game, method: str = "exact", budget: int | None = None, random_state: Any = None,
            **options) -> Attribution:
    """Shapley values of ``game`` (Bivariate Shapley paper Eq. 4; lecture).

    ``method``: ``"exact"`` (``2**n`` evaluations) or a sampling method; ``budget`` bounds the coalition
    evaluations; ``options`` are passed to the method.
    """
    game, budget, rng = _common(game, budget, random_state)
    return get_estimator("shapley", method)(game, budget=budget, rng=rng, **options)


def banzhaf(game, method: str = "exact", budget: int | None = None, random_state: Any = None,
            **options) -> Attribution:
    """Banzhaf values of ``game`` (BII paper, Eq. 2 for single players)."""
    game, budget, rng = _common(game, budget, random_state)
    return get_estimator("banzhaf", method)(game, budget=budget, rng=rng, **options)


def interactions(game, index: str = "sii", order: int = 2, method: str = "exact", budget: int | None = None,
                 random_state: Any = None, **options) -> Interactions:
    """Interaction index ``index`` of every subset of size ``1..order``.

    ``index``: ``"sii"`` (Shapley interaction index), ``"bii"`` (Banzhaf interaction index), ``"stii"``
    (Shapley-Taylor), ``"moebius"`` (Harsanyi dividends), ``"excess"`` (Shapley excess of pairs).
    """
    game, budget, rng = _common(game, budget, random_state)
    return get_estimator("interactions", method)(game, index=index, order=order, budget=budget, rng=rng, **options)


def bivariate(game, method: str = "exact", budget: int | None = None, random_state: Any = None,
              **options) -> BivariateExplanation:
    """Bivariate Shapley matrix (Bivariate Shapley paper, Eq. 6): the directed explanation graph's weights."""
    game, budget, rng = _common(game, budget, random_state)
    return get_estimator("bivariate", method)(game, budget=budget, rng=rng, **options)
