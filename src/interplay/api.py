"""The four entry points: ``shapley``, ``banzhaf``, ``interactions``, ``bivariate``.

Each checks its inputs once, turns ``random_state`` into a ``numpy.random.Generator`` and hands the game to
the estimator registered for ``method`` (see :mod:`interplay.estimators`).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from ._validation import check_int, check_random_state
from .estimators import get_estimator
from .games import as_game
from .results import Attribution, BivariateExplanation, Interactions


def _call(kind: str, method: str, game, options: dict, **fixed):
    """Run the registered estimator; unknown options get an error listing the ones the method accepts."""
    estimator: Callable = get_estimator(kind, method)
    parameters = inspect.signature(estimator).parameters
    if not any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        accepted = sorted(name for name, p in parameters.items()
                          if p.kind is p.KEYWORD_ONLY and name not in ("budget", "rng", "index", "order"))
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise TypeError(f"options: method={method!r} for {kind} accepts {accepted}; got unknown {unknown}")
    return estimator(game, **fixed, **options)


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
    return _call("shapley", method, game, options, budget=budget, rng=rng)


def banzhaf(game, method: str = "exact", budget: int | None = None, random_state: Any = None,
            **options) -> Attribution:
    """Banzhaf values of ``game`` (BII paper, Eq. 2 for single players)."""
    game, budget, rng = _common(game, budget, random_state)
    return _call("banzhaf", method, game, options, budget=budget, rng=rng)


def interactions(game, index: str = "sii", order: int = 2, method: str = "exact", budget: int | None = None,
                 random_state: Any = None, **options) -> Interactions:
    """Interaction index ``index`` of every subset of size ``1..order``.

    ``index``: ``"sii"`` (Shapley interaction index), ``"bii"`` (Banzhaf interaction index), ``"stii"``
    (Shapley-Taylor), ``"moebius"`` (Harsanyi dividends), ``"excess"`` (Shapley excess of pairs).
    """
    game, budget, rng = _common(game, budget, random_state)
    return _call("interactions", method, game, options, index=index, order=order, budget=budget, rng=rng)


def bivariate(game, method: str = "exact", budget: int | None = None, random_state: Any = None,
              **options) -> BivariateExplanation:
    """Bivariate Shapley matrix (Bivariate Shapley paper, Eq. 6): the directed explanation graph's weights."""
    game, budget, rng = _common(game, budget, random_state)
    return _call("bivariate", method, game, options, budget=budget, rng=rng)
