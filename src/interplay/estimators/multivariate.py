"""Exact multivariate extension ``E^k`` of Bivariate Shapley (Bivariate Shapley paper, App. A, Eq. 23).

``u_{i_1..i_{k-1}}(S) = u(S)`` if ``{i_1, ..., i_{k-1}} subset S`` else ``0``; the column ``T^{i_1..i_{k-1}}`` of the
order-``k`` tensor is the Shapley vector ``E(u_{i_1..i_{k-1}})``. Cost: ``2**n`` evaluations (one enumeration),
then ``O(C n 2**n)`` array work for the ``C = sum_{s<k} C(n, s)`` distinct conditioning sets.
"""

from __future__ import annotations

import numpy as np

from .._bits import popcounts
from .._validation import check_int
from ..games import Game
from .exact import DEFAULT_MAX_PLAYERS, _shapley_weights, evaluate_all


def shapley_of_tables(tables: np.ndarray, n: int) -> np.ndarray:
    """Exact Shapley values of many games at once: ``tables`` is ``(K, 2**n)``, the result ``(K, n)``."""
    weights = _shapley_weights(n)[popcounts(n)]
    out = np.empty((len(tables), n))
    for j in range(n):
        halves = tables.reshape(len(tables), -1, 2, 2**j)
        w = weights.reshape(-1, 2, 2**j)[:, 0, :]
        out[:, j] = np.sum(w[None] * (halves[:, :, 1, :] - halves[:, :, 0, :]), axis=(1, 2))
    return out


def exact_multivariate(game: Game, order: int = 3, *, budget: int | None = None,
                       max_players: int = DEFAULT_MAX_PLAYERS) -> np.ndarray:
    """The tensor ``E^k`` of App. A for ``k = order``, exactly (cost: ``2**n`` evaluations).

    Returns an array of shape ``(n,) * order``: ``out[i_1, ..., i_{k-1}, j]`` is the Shapley value of player
    ``j`` in the game ``u_{i_1..i_{k-1}}`` (``u`` restricted to coalitions holding all of ``i_1..i_{k-1}``, zero
    elsewhere; Eq. 23), i.e. the importance of ``j`` when ``i_1, ..., i_{k-1}`` are present. The conditioning
    indices come first, the explained player last: for ``order=2`` this is ``BivariateExplanation.adjacency``
    (``= E2.T``) with its diagonal kept, for ``order=1`` the Shapley values. Repeated conditioning indices
    condition on the set (``out[i, i, j] = out[i, j]`` for ``order=3``); entries with ``j`` among the
    conditioning players are kept as defined (the graph analysis ignores them).
    """
    n = game.n_players
    order = check_int(order, "order", minimum=1)
    values = evaluate_all(game, max_players=max_players, budget=budget, kind="bivariate")
    if order == 1:
        return shapley_of_tables(values[None, :], n)[0]
    grid = np.indices((n,) * (order - 1)).reshape(order - 1, -1)
    set_codes = np.bitwise_or.reduce(np.int64(1) << grid.astype(np.int64), axis=0)
    unique_codes, inverse = np.unique(set_codes, return_inverse=True)
    coalitions = np.arange(2**n, dtype=np.int64)
    holds = (coalitions[None, :] & unique_codes[:, None]) == unique_codes[:, None]  # (C, 2**n)
    phi = shapley_of_tables(holds * values[None, :], n)  # (C, n)
    return phi[inverse.ravel()].reshape((n,) * order)
