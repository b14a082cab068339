"""Sampled interaction indices: BII by MSR and by the pairwise decomposition; SII, Shapley-Taylor and the Shapley
excess by permutation sampling.

Notation (BII paper): the discrete derivative ``m_S(T) = sum_{L subset S} (-1)^{|S|-|L|} v(T + L)``.

- ``method="msr"``, ``index="bii"``: ``BII(S) = 2^{-(n-s)} sum_{T subset N-S} m_S(T)`` (BII paper Eq. 2). For a
  uniform random coalition ``Z``, ``Z - S`` is uniform on ``N - S`` and independent of ``Z cap S``, so
  ``BII(S) = sum_{L subset S} (-1)^{s-|L|} E[v(Z) | Z cap S = L]``: one uniform sample of ``budget - 1``
  coalitions serves every subset of size ``<= order`` (stratified group means; standard error from the group
  variances). Cost: ``budget`` (one is ``v(empty)``).
- ``method="pairwise"``, ``index="bii"``, ``order=2``: Eq. 12 of the BII paper,
  ``BII(ij) = Bz_{[ij]}(v_[ij]) - Bz_j(v restricted to N-i) - Bz_i(v restricted to N-j)``: three Banzhaf values
  of derived games, each a mean over ``T`` uniform on ``N - {i, j}``. The three terms share the same ``T``
  (common random numbers: the ``v(T)`` terms cancel exactly), so one sample costs the four coalitions
  ``T, T+i, T+j, T+ij``. Order-1 values are Banzhaf values from the same evaluations:
  ``((v(T+i) - v(T)) + (v(T+ij) - v(T+j))) / 2`` averaged over the pairs of each player.
  Cost: ``1 + 4 m C(n, 2)`` with ``m = (budget - 1) // (4 C(n, 2))`` samples per pair (at least 2).
- ``method="permutation"``:
  * ``index="sii"``: for a uniformly random permutation, each window ``S`` of ``s <= order`` consecutive players
    preceded by ``T`` gives ``m_S(T)``. Given that ``S`` is a window, ``T`` has probability proportional to
    ``t! (n-t-s)!``, exactly the SII weight ``(n-t-s)! t! / (n-s+1)!``; the estimate is the mean of ``m_S(T)``
    over the windows seen (order 1: permutation sampling of the Shapley value). Nominal cost per permutation:
    ``n - 1 + sum_{s=2}^{order} (n-s+1)(2^s - s - 1)`` (prefix coalitions are shared), plus ``v(empty)``, ``v(N)``;
    coalitions repeated across permutations are paid once, and :mod:`._permutation_fill` spends what this frees:
    permutations are accepted while their distinct coalitions fit, then single windows of the next ones.
  * ``index="stii"``: order ``k`` values ``sum_T k/n C(n-1, t)^{-1} m_S(T)`` equal ``E[m_S(T)]`` with ``T`` the
    players preceding the first member of ``S`` in a random permutation (Shapley-Taylor paper); every subset of
    size ``k`` gets one sample per permutation. Lower orders are the Moebius dividends, computed exactly from the
    ``sum_{s<k} C(n, s)`` coalitions of size ``< k``. Cost per permutation at most
    ``n + 1 + C(n, k)(2^k - 2)``; repeated coalitions are paid once and the budget they free is spent the same
    way (more permutations, then single subsets of the next ones).
  * ``index="excess"`` (order 2): Shapley value of the merged pair ``[ij]`` in the reduced game minus both Shapley
    values. A random permutation of ``N`` gives a uniform permutation of the reduced game by putting ``[ij]`` at
    ``i``'s place among ``N - j``; with ``Q`` the players before ``i`` other than ``j`` the sample is
    ``[v(Q+ij) - v(Q)] - [v(pre(i)+i) - v(pre(i))] - [v(pre(j)+j) - v(pre(j))]``. Cost per permutation
    ``n - 1 + C(n, 2)``, plus ``v(empty)`` and ``v(N)``.

SII and Shapley-Taylor spend the whole budget (``n_evaluations == budget`` unless every coalition has been seen);
the excess sampler plans ``(budget - 2) // (n - 1 + C(n, 2))`` permutations.

Standard errors: sample standard deviation over the samples of each value divided by the square root of their
number (``inf`` with a warning for a value with fewer than two samples; its estimate is then 0 if unseen).
SII of order >= 2 is the one sampler here that can leave subsets unseen (a set of ``s`` players is a window of a
permutation with probability ``(n-s+1) / C(n, s)``: 1 in 22 for triples of 12 players): its ``info`` lists them
(``unestimated``, ``n_unestimated``; ``n_single_sample`` counts those seen once) and the warning gives the budget
expected to sample every subset twice. Shapley-Taylor and the excess sample every subset in every permutation.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from .._bits import members_of_size
from .._validation import check_int
from ..games import Game
from ..results import Interactions
from ._registry import register
from ._permutation_fill import fill
from .banzhaf_sampling import (evaluate_distinct, pattern_stats, resolve_budget, uniform_coalitions,
                               warn_unsampled)


def _subsets(n: int, s: int) -> np.ndarray:
    return members_of_size(n, s)


def _check(game: Game, index, order, method: str, indices: tuple[str, ...]) -> tuple[str, int]:
    if index not in indices:
        raise ValueError(f"index: method={method!r} estimates {list(indices)}, got {index!r}; "
                         "use method='exact' or another method for other indices")
    return index, check_int(order, "order", minimum=1, maximum=game.n_players)


def _result(game, values, se, index, order, baseline, used, method, info) -> Interactions:
    return Interactions(values, index, order, baseline, game.feature_names, used, method, std_errors=se, info=info)


@register("interactions", "msr")
def msr_interactions(game: Game, *, index: str = "bii", order: int = 2, budget: int | None = None,
                     rng: np.random.Generator) -> Interactions:
    """BII of every subset of size ``1..order`` from one uniform sample (module docstring)."""
    index, order = _check(game, index, order, "msr", msr_interactions.indices)
    n = game.n_players
    m = resolve_budget(budget, n, 1 + 2 ** (order + 1), "msr") - 1
    Z = uniform_coalitions(rng, m, n)
    values, used = evaluate_distinct(game, np.concatenate([np.zeros((1, n), dtype=bool), Z]))
    out, se, missing = {}, {}, 0
    for s in range(1, order + 1):
        subsets = _subsets(n, s)
        est, err, counts = pattern_stats(Z, values[1:], subsets)
        missing += int((counts < 2).sum())
        keys = [tuple(r) for r in subsets.tolist()]
        out.update(zip(keys, est.tolist()))
        se.update(zip(keys, err.tolist()))
    warn_unsampled(missing, "subsets")
    return _result(game, out, se, index, order, values[0], used, "msr", {"budget": m + 1, "n_samples": m})


@register("interactions", "pairwise")
def pairwise_bii(game: Game, *, index: str = "bii", order: int = 2, budget: int | None = None,
                 rng: np.random.Generator) -> Interactions:
    """Pairwise BII by the decomposition of the BII paper, Eq. 12 (module docstring)."""
    index, order = _check(game, index, order, "pairwise", pairwise_bii.indices)
    n = game.n_players
    if order != 2:
        raise ValueError(f"order: the pairwise decomposition (BII paper Eq. 12) is for pairs, expected order=2, "
                         f"got {order}; use method='msr' for other orders")
    pairs = _subsets(n, 2)
    n_pairs = len(pairs)
    total = resolve_budget(budget, n, 1 + 8 * n_pairs, "pairwise")
    m = (total - 1) // (4 * n_pairs)
    T = uniform_coalitions(rng, n_pairs * m, n).reshape(n_pairs, m, n)
    p_idx = np.arange(n_pairs)
    i, j = pairs[:, 0], pairs[:, 1]
    T[p_idx, :, i] = False
    T[p_idx, :, j] = False
    Ti, Tj, Tij = T.copy(), T.copy(), T.copy()
    Ti[p_idx, :, i] = True
    Tj[p_idx, :, j] = True
    Tij[p_idx, :, i] = True
    Tij[p_idx, :, j] = True
    blocks = [np.zeros((1, n), dtype=bool)] + [X.reshape(-1, n) for X in (T, Ti, Tj, Tij)]
    values, used = evaluate_distinct(game, np.concatenate(blocks))
    v00, v10, v01, v11 = values[1:].reshape(4, n_pairs, m)
    d = v11 - v10 - v01 + v00
    out = {tuple(p): float(x) for p, x in zip(pairs.tolist(), d.mean(axis=1))}
    se = {tuple(p): float(x) for p, x in zip(pairs.tolist(), d.std(axis=1, ddof=1) / np.sqrt(m))}
    bi = ((v10 - v00) + (v11 - v01)) / 2          # Banzhaf samples of i, (n_pairs, m)
    bj = ((v01 - v00) + (v11 - v10)) / 2
    sums = np.bincount(i, bi.mean(axis=1), n) + np.bincount(j, bj.mean(axis=1), n)
    var = np.bincount(i, bi.var(axis=1, ddof=1) / m, n) + np.bincount(j, bj.var(axis=1, ddof=1) / m, n)
    for p in range(n):
        out[(p,)] = float(sums[p] / (n - 1))
        se[(p,)] = float(np.sqrt(var[p]) / (n - 1))
    return _result(game, out, se, index, order, values[0], used, "pairwise",
                   {"budget": total, "samples_per_pair": m})


def _permutations(rng: np.random.Generator, count: int, n: int) -> np.ndarray:
    return np.argsort(rng.random((count, n)), axis=1)


def _prefixes(perms: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``rows[p, t] = set of the first lengths[p, t] players of perms[p]`` as ``(P, T, n)`` booleans."""
    pos = np.argsort(perms, axis=1)
    return pos[:, None, :] < lengths[:, :, None]


def _aggregate(keys: np.ndarray, samples: np.ndarray, all_keys: np.ndarray):
    """Mean, standard error and count of ``samples`` grouped by ``keys``, for every key in ``all_keys``."""
    where = np.searchsorted(all_keys, keys)
    size = len(all_keys)
    count = np.bincount(where, minlength=size).astype(float)
    safe = np.maximum(count, 1.0)
    mean = np.bincount(where, samples, size) / safe
    second = np.bincount(where, samples * samples, size) / safe
    var = np.maximum(second - mean**2, 0.0) * count / np.maximum(count - 1.0, 1.0)
    se = np.where(count >= 2, np.sqrt(var / safe), np.inf)
    return mean, se, count


def _subset_keys(members: np.ndarray, n: int) -> np.ndarray:
    """One integer per subset (rows of sorted members)."""
    return (np.sort(members, axis=-1) * n ** np.arange(members.shape[-1], dtype=np.int64)).sum(axis=-1)


def _plan(budget, n, fixed, per_perm, method):
    total = resolve_budget(budget, n, fixed + 2 * per_perm, method)
    return (total - fixed) // per_perm


def _chunks(count: int, cells_per_perm: int, limit: int = 2**24):
    step = max(1, limit // max(cells_per_perm, 1))
    return [(s, min(s + step, count)) for s in range(0, count, step)]


def _window_units(perms: np.ndarray, order: int) -> list:
    """SII units of each permutation: every window ``S`` of ``s = 1..order`` consecutive players with its
    predecessors ``T``, as the ``2^s`` coalitions ``T + L`` (``L`` by bit code) and the window's members."""
    count, n = perms.shape
    out = []
    for s in range(1, order + 1):
        W = n - s + 1
        codes = np.arange(2**s)
        block = np.repeat(_prefixes(perms, np.broadcast_to(np.arange(W), (count, W)))[:, :, None, :], 2**s, axis=2)
        win = perms[:, np.arange(W)[:, None] + np.arange(s)[None, :]]                     # (p, W, s)
        for bit in range(s):
            on = ((codes >> bit) & 1).astype(bool)
            pp, ww, cc = np.nonzero(np.broadcast_to(on, (count, W, 2**s)))
            block[pp, ww, cc, win[pp, ww, bit]] = True
        out.append((block, win))
    return out


def _aggregate_units(game, n, head, groups, orders):
    """Evaluate ``head`` rows and the chosen units in one call and average ``m_S(T)`` per subset.

    Returns ``(out, se, missing, values of head, distinct coalitions evaluated)``.
    """
    rows = [head] + [r.reshape(-1, n) for r, _ in groups if r is not None]
    values, used = evaluate_distinct(game, np.concatenate(rows))
    head_values, values = values[:len(head)], values[len(head):]
    out, se, missing, offset = {}, {}, 0, 0
    counts = {}
    for s, (r, members) in zip(orders, groups):
        subsets = _subsets(n, s)
        all_keys = _subset_keys(subsets, n)
        order_idx = np.argsort(all_keys)
        if r is None or len(r) == 0:
            keys, samples = np.zeros(0, np.int64), np.zeros(0)
        else:
            signs = np.array([(-1.0) ** (s - bin(c).count("1")) for c in range(2**s)])
            v = values[offset:offset + r.shape[0] * 2**s].reshape(-1, 2**s)
            offset += r.shape[0] * 2**s
            keys, samples = _subset_keys(members, n), v @ signs
        mean, err, count = _aggregate(keys, samples, all_keys[order_idx])
        missing += int((count < 2).sum())
        for rank, idx in enumerate(order_idx):
            key = tuple(subsets[idx].tolist())
            out[key], se[key], counts[key] = float(mean[rank]), float(err[rank]), int(count[rank])
    return out, se, missing, head_values, used, counts


def _sii(game, order, budget, rng):
    n = game.n_players
    per_perm = max(n - 1 + sum((n - s + 1) * (2**s - s - 1) for s in range(2, order + 1)), 1)
    total = resolve_budget(budget, n, 2 + 2 * per_perm, "permutation")
    ends = np.array([np.zeros(n, bool), np.ones(n, bool)])
    groups, P, partial, _ = fill(n, total, rng, lambda perms: _window_units(perms, order), ends, per_perm)
    out, se, missing, end_values, used, counts = _aggregate_units(game, n, ends, groups, range(1, order + 1))
    unseen = [key for key, c in counts.items() if c == 0]
    if missing:
        _warn_sii_gaps(n, order, total, per_perm, unseen, missing - len(unseen))
    return out, se, end_values[0], used, {"budget": total, "n_permutations": P, "n_partial_units": partial,
                                          "n_unestimated": len(unseen), "unestimated": unseen,
                                          "n_single_sample": missing - len(unseen)}


def _covering_permutations(n: int, order: int, expected: float = 0.5) -> int:
    """Permutations after which fewer than ``expected`` subsets of size ``2..order`` are expected to have had
    fewer than two samples: a set of ``s`` players is a window of a uniform permutation with probability
    ``p = (n-s+1) / C(n, s)``, so its number of samples is Binomial(P, p)."""
    def short(P: int) -> float:
        total = 0.0
        for s in range(2, order + 1):
            p = (n - s + 1) / comb(n, s)
            total += comb(n, s) * ((1 - p) ** P + P * p * (1 - p) ** max(P - 1, 0)) if p < 1 else 0.0
        return total

    hi = 2
    while short(hi) >= expected:
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if short(mid) < expected else (mid, hi)
    return hi


def _warn_sii_gaps(n: int, order: int, budget: int, per_perm: int, unseen: list, single: int) -> None:
    """A RuntimeWarning on the SII subsets without two samples: how many were never sampled (no permutation
    held their players consecutively; their value, 0, is no estimate) or sampled once (a value, no standard
    error), and the budget expected to sample every subset twice (nominal cost of the permutations it takes:
    repeated coalitions are paid once, so it is an upper estimate; ``2**n`` enumerates exactly)."""
    import warnings

    need = 2 + _covering_permutations(n, order) * per_perm
    advice = (f"A budget of about {need} is expected to sample every subset of up to {order} players at least twice"
              if need < 2**n else f"budget={2**n} evaluates every coalition (exact values)")
    parts = []
    if unseen:
        named = ", ".join(map(str, unseen[:5])) + (" ..." if len(unseen) > 5 else "")
        parts.append(f"{len(unseen)} were never sampled, no permutation holding their players next to each other "
                     f"({named}; listed in info['unestimated']): reported as 0, which is no estimate, with standard "
                     "error inf")
    if single:
        parts.append(f"{single} had a single sample (its value, with standard error inf)")
    warnings.warn(f"sii: {sum([len(unseen), single])} subsets had too few samples for an estimate or a standard error "
                  f"at budget={budget}: {'; '.join(parts)}. {advice}", RuntimeWarning, stacklevel=4)


def _top_units(perms: np.ndarray, top: np.ndarray) -> list:
    """Shapley-Taylor units: every subset ``S`` of size ``k`` with ``T`` = the players before its first member."""
    k = top.shape[1]
    count = len(perms)
    codes = np.arange(2**k)
    on = ((codes[:, None] >> np.arange(k)) & 1).astype(bool)                             # (2^k, k)
    pos = np.argsort(perms, axis=1)
    first = pos[:, top].min(axis=2)                                                       # (p, C)
    block = np.repeat(_prefixes(perms, first)[:, :, None, :], 2**k, axis=2)               # (p, C, 2^k, n)
    pp, cc, ll, bb = np.nonzero(np.broadcast_to(on, (count, len(top), 2**k, k)))
    block[pp, cc, ll, top[cc, bb]] = True
    return [(block, np.broadcast_to(top, (count,) + top.shape))]


def _stii(game, order, budget, rng):
    n = game.n_players
    k = order
    lower = [_subsets(n, s) for s in range(k)]
    fixed = sum(len(x) for x in lower)
    per_perm = n + 1 + comb(n, k) * (2**k - 2)
    total = resolve_budget(budget, n, fixed + 2 * per_perm, "permutation")
    # exact Moebius dividends below order k, from every coalition of size < k
    small = np.zeros((fixed, n), dtype=bool)
    r = 0
    for subs in lower:
        for row in subs:
            small[r, row] = True
            r += 1
    top = _subsets(n, k)
    groups, P, partial, _ = fill(n, total, rng, lambda perms: _top_units(perms, top), small, per_perm)
    top_out, top_se, missing, small_values, used, _ = _aggregate_units(game, n, small, groups, [k])
    lookup = {tuple(np.flatnonzero(row).tolist()): val for row, val in zip(small, small_values)}
    out, se = {}, {}
    for s in range(1, k):
        for S in lower[s].tolist():
            out[tuple(S)] = float(sum((-1.0) ** (s - len(L)) * lookup[L] for q in range(s + 1)
                                      for L in combinations(S, q)))
            se[tuple(S)] = 0.0
    warn_unsampled(missing, "subsets")
    out.update(top_out)
    se.update(top_se)
    return out, se, lookup[()], used, {"budget": total, "n_permutations": P, "n_partial_units": partial}


def _excess(game, budget, rng):
    n = game.n_players
    pairs = _subsets(n, 2)
    per_perm = n - 1 + len(pairs)
    P = _plan(budget, n, 2, per_perm, "permutation")
    perms = _permutations(rng, P, n)
    used = 0
    shap = np.zeros((P, n))
    excess = np.zeros((P, len(pairs)))
    i, j = pairs[:, 0], pairs[:, 1]
    for a, b in _chunks(P, (n + 1 + len(pairs)) * n):
        pc = perms[a:b]
        p = len(pc)
        pos = np.argsort(pc, axis=1)
        chain = _prefixes(pc, np.broadcast_to(np.arange(n + 1), (p, n + 1)))               # (p, n+1, n)
        # Q = players before i other than j; merged marginal v(Q + ij) - v(Q)
        Q = _prefixes(pc, pos[:, i])                                                       # (p, C, n)
        Q[:, np.arange(len(pairs)), j] = False
        Qij = Q.copy()
        Qij[:, np.arange(len(pairs)), i] = True
        Qij[:, np.arange(len(pairs)), j] = True
        values, n_used = evaluate_distinct(game, np.concatenate([chain.reshape(-1, n), Q.reshape(-1, n),
                                                                 Qij.reshape(-1, n)]))
        used += n_used
        vc = values[:p * (n + 1)].reshape(p, n + 1)
        vq = values[p * (n + 1):p * (n + 1) + p * len(pairs)].reshape(p, len(pairs))
        vqij = values[p * (n + 1) + p * len(pairs):].reshape(p, len(pairs))
        rows = np.arange(p)[:, None]
        marginal = vc[rows, pos + 1] - vc[rows, pos]                                       # (p, n) per player
        shap[a:b] = marginal
        excess[a:b] = (vqij - vq) - marginal[:, i] - marginal[:, j]
        if a == 0:
            baseline = vc[0, 0]
    out, se = {}, {}
    for p_, x, e in zip(range(n), shap.mean(axis=0), shap.std(axis=0, ddof=1) / np.sqrt(P)):
        out[(p_,)], se[(p_,)] = float(x), float(e)
    for pair, x, e in zip(pairs.tolist(), excess.mean(axis=0), excess.std(axis=0, ddof=1) / np.sqrt(P)):
        out[tuple(pair)], se[tuple(pair)] = float(x), float(e)
    return out, se, baseline, used, {"n_permutations": P}


@register("interactions", "permutation")
def permutation_interactions(game: Game, *, index: str = "sii", order: int = 2, budget: int | None = None,
                             rng: np.random.Generator) -> Interactions:
    """SII, Shapley-Taylor or Shapley excess by permutation sampling (module docstring)."""
    index, order = _check(game, index, order, "permutation", permutation_interactions.indices)
    if index == "excess":
        if order != 2:
            raise ValueError(f"order: the Shapley excess is defined for pairs, expected order=2, got {order}")
        out, se, baseline, used, info = _excess(game, budget, rng)
    elif index == "sii":
        out, se, baseline, used, info = _sii(game, order, budget, rng)
    else:
        out, se, baseline, used, info = _stii(game, order, budget, rng)
    return _result(game, out, se, index, order, baseline, used, "permutation", {"budget": budget, **info})


# The indices each sampler estimates (checked by the sampler, and by the API before it swaps in exact enumeration).
msr_interactions.indices = ("bii",)
pairwise_bii.indices = ("bii",)
permutation_interactions.indices = ("sii", "stii", "excess")
