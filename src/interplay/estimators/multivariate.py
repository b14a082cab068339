"""Exact multivariate extension ``E^k`` of Bivariate Shapley (Bivariate Shapley paper, App. A, Eq. 23).

``u_{i_1..i_{k-1}}(S) = u(S)`` if ``{i_1, ..., i_{k-1}} subset S`` else ``0``; the column ``T^{i_1..i_{k-1}}`` of the
order-``k`` tensor is the Shapley vector ``E(u_{i_1..i_{k-1}})``. Cost: ``2**n`` evaluations (one enumeration),
then ``O(C n 2**n)`` array work for the ``C = sum_{s<k} C(n, s)`` distinct conditioning sets.
"""

from __future__ import annotations

from math import comb

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


MAX_ENTRIES = 2**27  # default bound on the output and working arrays (1 GiB of float64)


def exact_multivariate(game: Game, order: int = 3, *, budget: int | None = None,
                       max_players: int = DEFAULT_MAX_PLAYERS, max_entries: int = MAX_ENTRIES) -> np.ndarray:
    """The tensor ``E^k`` of App. A for ``k = order``, exactly (cost: ``2**n`` evaluations).

    ``order`` must be at most ``n``; the output holds ``n**order`` floats and the work array ``C 2**n`` (``C``
    conditioning sets), both checked against ``max_entries`` (default ``2**27``) before the game is evaluated.

    Returns an array of shape ``(n,) * order``: ``out[i_1, ..., i_{k-1}, j]`` is the Shapley value of player
    ``j`` in the game ``u_{i_1..i_{k-1}}`` (``u`` restricted to coalitions holding all of ``i_1..i_{k-1}``, zero
    elsewhere; Eq. 23), i.e. the importance of ``j`` when ``i_1, ..., i_{k-1}`` are present. The conditioning
    indices come first, the explained player last: for ``order=2`` this is ``BivariateExplanation.adjacency``
    (``= E2.T``) with its diagonal kept, for ``order=1`` the Shapley values. Repeated conditioning indices
    condition on the set (``out[i, i, j] = out[i, j]`` for ``order=3``); entries with ``j`` among the
    conditioning players are kept as defined (the graph analysis ignores them).
    """
    n = game.n_players
    order = check_int(order, "order", minimum=1, maximum=n)
    max_entries = check_int(max_entries, "max_entries", minimum=1)
    n_sets = sum(comb(n, s) for s in range(order))  # distinct conditioning sets of at most order - 1 players
    entries = max(n**order, n_sets * 2**n if order > 1 else 0)
    if entries > max_entries:
        raise ValueError(
            f"order: order={order} with n={n} players needs arrays of {entries} entries (output n**order = "
            f"{n**order}), more than max_entries={max_entries}; lower order or raise max_entries"
        )
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
