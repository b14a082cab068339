"""Features that cannot change a row's game: explained exactly as zero, the rest as a smaller game.

Under baseline or marginal removal a feature whose value in ``x`` equals its value in the reference (every
background row, or the baseline vector) is a *null player* of the row's game: removing it writes the value it
already has, so ``v(S + i) = v(S)`` for every coalition ``S`` (for a group of columns: every column so). shap's
KernelExplainer gives such features exactly zero and samples only the others ("varying" features); a sampled
estimator on the whole game gives them noise instead (KernelSHAP on a 20-feature network: 0.04 for a null player
beside a largest value of 0.59) and spends evaluations on them.

The null player axiom and consistency make the reduction exact (Shapley 1953; for the indices below, Grabisch &
Roubens 1999 for SII, BII and the Moebius transform): with ``D`` the null players and ``v'`` the game on ``N - D``,

- Shapley and Banzhaf values: ``phi_i(v) = phi_i(v')`` for ``i`` outside ``D``, ``0`` on ``D``;
- SII, BII and Moebius coefficients: ``I_T(v) = I_T(v')`` for ``T`` disjoint from ``D``, ``0`` when ``T`` meets
  ``D`` (the discrete derivative along a null player vanishes, and the index weights summed over ``S`` and
  ``S + d`` are those of the smaller game);
- Bivariate Shapley (``adjacency[i, j] = sum_{S in N-i-j} (s+1)! (n-s-2)! / n! [v(S+i+j) - v(S+i)]``, Bivariate
  Shapley paper Eq. 6): entries between other players are the smaller game's (the weights of ``S`` and ``S + d``
  add up to the smaller game's); column ``d`` is ``0``; row ``d`` weighs ``j``'s marginal contribution to an ``R``
  of the ``k`` other players by ``(r+1)! (k-1-r)! / (k+1)!`` whatever the number of null players (sum the weights
  over the null players in ``R``: the Beta integral ``int t^(r+1) (1-t)^(k-1-r) dt``), which is
  ``(r+1) / (k+1)`` times the Shapley weight, so ``adjacency[d, j] = (phi'_j + sum_i adjacency'[i, j]) / (k + 1)``
  (a column sum of the smaller game's matrix counts each ``R`` ``r`` times with the Shapley weight). Its standard
  errors are not derived (NaN).

Not reduced (the whole game is explained as before): conditional removal (the neighbours are chosen on the
features present), the other interaction indices, and the methods that take per-feature inputs (``shear``,
``l-shapley``, ``c-shapley``, also as ``univariate=`` of ``bivariate(method="general")``), and rows where fewer
than two features (or than the interaction order) would remain. Equality is exact and strict: NaN equals NaN, but
``-0.0`` is not ``0.0`` and ``1`` is not ``1.0`` or ``True`` in an object column (an encoder may tell them apart).
Cost: one comparison of ``x`` with the reference per row; the model is called on
the smaller game's coalitions only.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from .games import Game
from .results import Attribution, BivariateExplanation, Interactions

REDUCED_INDICES = ("sii", "bii", "moebius")  # indices whose values on the other sets do not change (docstring)
WHOLE_GAME_METHODS = ("shear", "l-shapley", "c-shapley", "tree")  # per-feature inputs, or no game at all (also
# as the univariate= method of bivariate(method="general"))


def null_players(x: np.ndarray, reference: np.ndarray, owner: np.ndarray | None, n_players: int) -> np.ndarray:
    """``(n_players,)`` bool: the players every column of which has in ``x`` the value it has in every row of
    ``reference`` (``(rows, columns)``; NaN equals NaN). ``owner[c]`` is column ``c``'s player (None: one
    column each)."""
    x = np.asarray(x)
    reference = np.atleast_2d(np.asarray(reference))
    if len(reference) == 0:
        return np.zeros(n_players, dtype=bool)
    try:
        same = np.asarray(reference == x[None, :], dtype=bool)
    except (TypeError, ValueError):  # values that do not compare to one truth value (e.g. pd.NA): none fixed
        return np.zeros(n_players, dtype=bool)
    if same.shape != reference.shape:
        return np.zeros(n_players, dtype=bool)
    if x.dtype.kind == "f" and reference.dtype.kind == "f":
        same |= np.isnan(reference) & np.isnan(x)[None, :]
        same &= np.signbit(reference) == np.signbit(x)[None, :]  # -0.0 == 0.0, but a model may tell them apart
    elif x.dtype == object or reference.dtype == object:  # 1 == 1.0 == True, but an encoder may tell them apart
        type_of = np.frompyfunc(type, 1, 1)
        same &= np.asarray(type_of(reference.astype(object)) == type_of(x.astype(object))[None, :], dtype=bool)
        nan = np.frompyfunc(lambda v: isinstance(v, float) and v != v, 1, 1)
        same |= np.asarray(nan(reference), dtype=bool) & np.asarray(nan(x), dtype=bool)[None, :]
    column_fixed = same.all(axis=0)
    if owner is None:
        return column_fixed
    varying = np.zeros(n_players, dtype=bool)
    np.logical_or.at(varying, owner, ~column_fixed)
    return ~varying


def restricted_game(game: Game, keep: np.ndarray) -> Game:
    """The game on the players ``keep`` (bool), the others present: ``v'(S) = v(S + D)`` (``= v(S)`` for null
    players ``D``). Its evaluations go through ``game`` (its cache and count)."""
    keep = np.asarray(keep, dtype=bool)
    kept = np.flatnonzero(keep)

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        full = np.ones((len(coalitions), len(keep)), dtype=bool)
        full[:, kept] = coalitions
        return game(full)

    value_fn.__name__ = getattr(game._value_fn, "__name__", "value_fn")
    names = [game.feature_names[i] for i in kept]
    return Game(value_fn, len(kept), names, batch_size=game.batch_size)


def explain_reduced(kind: str, game: Game, null: np.ndarray | None, **kwargs):
    """``api.<kind>(game, **kwargs)``; with null players ``null`` (bool per player, or None: unknown), when the
    method and index allow it (module docstring), the game of the other players, its result widened with exact
    zeros (:func:`expand`)."""
    from . import api

    method, index = kwargs.get("method", "auto"), kwargs.get("index", "sii")
    kept = 0 if null is None else int((~null).sum())
    if (null is None or kept == len(null) or kept < max(2, int(kwargs.get("order", 2)))
            or method in WHOLE_GAME_METHODS or kwargs.get("univariate") in WHOLE_GAME_METHODS
            or (kind == "interactions" and index not in REDUCED_INDICES)):
        return getattr(api, kind)(game, **kwargs)
    return expand(getattr(api, kind)(restricted_game(game, ~null), **kwargs), null, game.feature_names)


NULL_PLAYERS_NOTE = ("these features have in x the value of every reference row (an image region: its baseline's "
                     "pixels), so the model cannot see them removed: exact zeros (null players), the other features "
                     "explained as a game of their own")


def _note(names: tuple, fixed: np.ndarray) -> dict:
    return {"null_players": [names[i] for i in np.flatnonzero(fixed)], "null_players_note": NULL_PLAYERS_NOTE}


def expand(result: Any, fixed: np.ndarray, names: tuple) -> Any:
    """The result of the smaller game as one of the whole game (module docstring): zeros on the null players."""
    kept = np.flatnonzero(~fixed)
    n_evaluations = result.n_evaluations
    n = len(fixed)
    if isinstance(result, Attribution):
        return _attribution(result, kept, n, names, fixed, n_evaluations)
    if isinstance(result, BivariateExplanation):
        univariate = _attribution(result.univariate, kept, n, names, fixed, n_evaluations)
        adjacency = np.zeros((n, n))
        adjacency[np.ix_(kept, kept)] = result.adjacency
        null_row = np.zeros(n)  # (phi'_j + column sum of the smaller matrix) / (k + 1); 0 on null players
        null_row[kept] = (result.univariate.values + result.adjacency.sum(axis=0)) / (len(kept) + 1)
        adjacency[fixed] = null_row[None, :]
        std = None
        if result.std_errors is not None:
            std = np.zeros((n, n))
            std[np.ix_(kept, kept)] = result.std_errors
            std[np.ix_(fixed, kept)] = np.nan
        return BivariateExplanation(adjacency, univariate, names, n_evaluations, result.method, std,
                                    {**result.info, **_note(names, fixed)})
    if isinstance(result, Interactions):
        values = {tuple(int(kept[i]) for i in key): v for key, v in result.values.items()}
        errors = (None if result.std_errors is None
                  else {tuple(int(kept[i]) for i in key): v for key, v in result.std_errors.items()})
        sizes = sorted({len(key) for key in result.values if key})
        for size in sizes:
            for key in combinations(range(n), size):
                if key not in values:  # a set that meets a null player
                    values[key] = 0.0
                    if errors is not None:
                        errors[key] = 0.0
        return Interactions(values, result.index, result.order, result.baseline, names, n_evaluations,
                            result.method, errors, {**result.info, **_note(names, fixed)})
    raise TypeError(f"expand: no rule for a {type(result).__name__}")


def _attribution(result: Attribution, kept: np.ndarray, n: int, names: tuple, fixed: np.ndarray,
                 n_evaluations: int) -> Attribution:
    values = np.zeros(n)
    values[kept] = result.values
    std = None
    if result.std_errors is not None:
        std = np.zeros(n)
        std[kept] = result.std_errors
    return Attribution(values, result.baseline, names, n_evaluations, result.method, std,
                       {**result.info, **_note(names, fixed)}, result.data)
