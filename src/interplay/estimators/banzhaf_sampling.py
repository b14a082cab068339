"""Sampled Banzhaf values: maximum sample reuse (MSR) and paired with/without sampling.

The Banzhaf value of player ``i`` is the mean marginal contribution over the ``2**(n-1)`` coalitions without
``i`` (BII paper, Eq. 2 with ``|S| = 1``): ``beta_i = E_T[v(T + i) - v(T)]``, ``T`` uniform on ``N \\ {i}``.

- ``method="msr"``: ``m`` uniformly random coalitions (each player present with probability 1/2), every sample
  used for every player: ``beta_i = mean(v(Z) | i in Z) - mean(v(Z) | i not in Z)``. Cost: ``m = budget``
  evaluations, shared by all ``n`` players. Standard error ``sqrt(s_in^2 / m_in + s_out^2 / m_out)``.
- ``method="sampling"``: for each player, ``m`` coalitions ``T`` uniform on ``N \\ {i}``, each evaluated with and
  without ``i``. Cost: ``2 n m`` evaluations. Standard error ``std(differences) / sqrt(m)``.

This module also holds the small helpers every sampling estimator of this package shares (budget defaults,
evaluation of distinct coalitions, group statistics of a uniform sample).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._validation import check_int
from ..games import Game, _packed_keys
from ..results import Attribution
from ._registry import register

DEFAULT_BUDGET_PER_PLAYER = 100


def resolve_budget(budget: int | None, n: int, minimum: int, method: str) -> int:
    """The budget to plan with: ``budget``, or ``DEFAULT_BUDGET_PER_PLAYER * n`` raised to ``minimum`` (with a
    warning saying so: the default is then exceeded, e.g. Shapley-Taylor of order 3 on 16 players, 6,891)."""
    if budget is None:
        default = DEFAULT_BUDGET_PER_PLAYER * n
        if minimum > default:
            import warnings

            warnings.warn(f"budget: none given; method={method!r} needs at least {minimum} evaluations for {n} "
                          f"players, more than the default {default}: {minimum} are used (pass budget= to choose)",
                          UserWarning, stacklevel=4)
        return max(default, minimum)
    budget = check_int(budget, "budget", minimum=1)
    if budget < minimum:
        # a minimum above 2**n (Shapley-Taylor of order 2 on 6 players: 81 > 64): enumeration is cheaper
        exact = (f"; exact enumeration (method='exact') needs only 2**{n} = {2**n}" if minimum > 2**n else "")
        raise ValueError(f"budget: method={method!r} needs at least {minimum} evaluations for {n} players, "
                         f"got {budget}{exact}")
    from ._sampling import resolve_budget as checked  # the memory bound shared by every sampler

    return checked(budget, n, minimum, method, capped=False)


def distinct_rows(coalitions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(distinct coalitions, inverse)`` with ``distinct[inverse] == coalitions`` (order fixed by the rows)."""
    coalitions = np.ascontiguousarray(coalitions, dtype=bool)
    _, first, inverse = np.unique(_packed_keys(coalitions), return_index=True, return_inverse=True)
    return coalitions[first], inverse.ravel()


def evaluate_distinct(game: Game, coalitions: np.ndarray) -> tuple[np.ndarray, int]:
    """Values of ``coalitions`` (rows), asking the game for each distinct coalition once.

    Returns ``(values per row, number of distinct coalitions)``. The order of the rows passed to the game depends
    on the coalitions only, so results do not depend on the game's batch size.
    """
    if len(coalitions) == 0:
        return np.zeros(0), 0
    rows, inverse = distinct_rows(coalitions)
    return game(rows)[inverse], len(rows)


def uniform_coalitions(rng: np.random.Generator, m: int, n: int) -> np.ndarray:
    """``m`` independent uniformly random coalitions of ``n`` players (each present with probability 1/2)."""
    return rng.random((m, n)) < 0.5


def pattern_stats(Z: np.ndarray, v: np.ndarray, subsets: np.ndarray, *, chunk_cells: int = 2**22):
    """Stratified MSR estimate of ``sum_{L subset S} (-1)^{|S|-|L|} E[v(Z) | Z cap S = L]`` for every ``S``.

    ``subsets`` is a ``(k, s)`` integer array of players. For a uniform ``Z`` this is the Banzhaf interaction
    index of ``S`` (BII paper, Eq. 2): ``Z \\ S`` is uniform on ``N \\ S`` and independent of ``Z cap S``.
    Returns ``(estimates, standard errors, smallest group size)`` per subset; a subset with an empty group
    gets estimate 0 and standard error ``inf``.
    """
    m = len(v)
    k, s = subsets.shape
    est = np.zeros(k)
    var = np.zeros(k)
    min_count = np.full(k, m, dtype=np.int64)
    powers = np.int64(1) << np.arange(s, dtype=np.int64)
    signs = np.array([(-1.0) ** (s - bin(p).count("1")) for p in range(2**s)])
    step = max(1, chunk_cells // max(m, 1))
    centred = v - v.mean()  # the spread within groups from values without the game's offset: a constant added
    v2 = centred * centred  # to v (1e9) cancelled every digit of the uncentred square / count - mean**2
    for start in range(0, k, step):
        sub = subsets[start:start + step]
        c = len(sub)
        codes = (Z[:, sub].astype(np.int64) * powers).sum(axis=2)  # (m, c): pattern of Z cap S per sample
        flat = (codes + (np.arange(c, dtype=np.int64) * 2**s)[None, :]).ravel()
        size = c * 2**s
        count = np.bincount(flat, minlength=size).reshape(c, 2**s).astype(float)
        total = np.bincount(flat, np.broadcast_to(v[:, None], codes.shape).ravel(), size).reshape(c, 2**s)
        shifted = np.bincount(flat, np.broadcast_to(centred[:, None], codes.shape).ravel(), size).reshape(c, 2**s)
        square = np.bincount(flat, np.broadcast_to(v2[:, None], codes.shape).ravel(), size).reshape(c, 2**s)
        safe = np.maximum(count, 1.0)
        mean = total / safe
        group_var = np.maximum(square / safe - (shifted / safe)**2, 0.0) * count / np.maximum(count - 1.0, 1.0)
        est[start:start + c] = mean @ signs
        var[start:start + c] = (group_var / safe).sum(axis=1)
        min_count[start:start + c] = count.min(axis=1).astype(np.int64)
    empty = min_count == 0
    est[empty] = 0.0
    se = np.sqrt(var)
    se[empty | (min_count < 2)] = np.inf
    return est, se, min_count


def warn_unsampled(n_missing: int, what: str) -> None:
    if n_missing:
        warnings.warn(
            f"{n_missing} {what} had too few samples for an estimate or a standard error (reported as 0 with "
            "standard error inf); increase the budget", RuntimeWarning, stacklevel=4,
        )


@register("banzhaf", "msr")
def msr_banzhaf(game: Game, *, budget: int | None = None, rng: np.random.Generator) -> Attribution:
    """Banzhaf values by maximum sample reuse: one uniform sample of ``budget`` coalitions serves every player.

    Cost: at most ``budget`` evaluations (default ``100 n``; minimum 5): ``budget - 1`` uniform coalitions and
    ``v(empty)`` (the reported baseline), each distinct coalition asked for once (``n_evaluations`` counts
    those). Unbiased given both groups non-empty.
    """
    n = game.n_players
    m = resolve_budget(budget, n, 5, "msr") - 1
    Z = uniform_coalitions(rng, m, n)
    values, used = evaluate_distinct(game, np.concatenate([np.zeros((1, n), dtype=bool), Z]))
    est, se, counts = pattern_stats(Z, values[1:], np.arange(n)[:, None])
    warn_unsampled(int((counts < 2).sum()), "players")
    return Attribution(est, values[0], game.feature_names, used, "msr", std_errors=se,
                       info={"budget": m + 1, "n_samples": m})  # the resolved budget (budget=None: the default)


@register("banzhaf", "sampling")
def sampled_banzhaf(game: Game, *, budget: int | None = None, rng: np.random.Generator) -> Attribution:
    """Banzhaf values by paired sampling: per player, ``m = (budget - 1) // (2 n)`` coalitions with and without it.

    Cost: at most ``2 n m + 1`` evaluations (the ``+1`` is ``v(empty)``, the reported baseline; a coalition drawn
    twice is asked for once, and ``n_evaluations`` counts the distinct ones); minimum ``4 n + 1`` (two pairs per
    player, so that every value has a standard error: few samples, so 1.96 of them covered the truth about 2/3 of
    the time there, and about 95% from some ten pairs per player on).
    """
    n = game.n_players
    total = resolve_budget(budget, n, 4 * n + 1, "sampling")
    m = (total - 1) // (2 * n)
    T = uniform_coalitions(rng, n * m, n).reshape(n, m, n)
    players = np.arange(n)
    T[players, :, players] = False
    with_i = T.copy()
    with_i[players, :, players] = True
    empty = np.zeros((1, n), dtype=bool)
    values, used = evaluate_distinct(game, np.concatenate([empty, T.reshape(-1, n), with_i.reshape(-1, n)]))
    diffs = (values[1 + n * m:] - values[1:1 + n * m]).reshape(n, m)
    return Attribution(diffs.mean(axis=1), values[0], game.feature_names, used, "sampling",
                       std_errors=diffs.std(axis=1, ddof=1) / np.sqrt(m),
                       info={"budget": total, "samples_per_player": m})
