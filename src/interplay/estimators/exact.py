"""Exact indices by complete enumeration: the 2**n coalitions are evaluated once, every index follows by arrays.

Cost: exactly ``2**n`` coalition evaluations (fewer model calls when the game's cache already holds some);
array work ``O(n 2**n)`` for every index, the Bivariate Shapley matrix included.

Sources:
- Shapley value: lecture notes (Shapley value definition); Bivariate Shapley paper Eq. 4.
- Banzhaf value and Banzhaf interaction index: BII paper Eq. 2, ``BII(S) = 2^{-(n-s)} sum_{T subset N\\S} m_S(T)``.
- Shapley interaction index (Grabisch & Roubens): ``SII(S) = sum_{T subset N\\S} (n-t-s)! t! / (n-s+1)! m_S(T)``,
  equivalently ``sum_{T superset S} m(T) / (|T|-|S|+1)`` in Moebius terms (BII paper, comparison section).
- Shapley-Taylor of order k: ``m(S)`` for ``|S| < k``; ``sum_{T superset S} m(T) / C(|T|, k)`` for ``|S| = k``.
- Shapley excess of a pair: Shapley value of the merged pair in the reduced game minus both Shapley values;
  in Moebius terms ``sum_{T superset {i,j}} m(T) (1/(|T|-1) - 2/|T|)``.
- k-SII (k-Shapley values; Bord et al. 2023, Fumagalli et al. 2023 "SHAP-IQ"): SII aggregated with the Bernoulli
  numbers ``B_0 = 1, B_1 = -1/2, B_2 = 1/6, ...``: ``kSII(S) = sum_{U superset S, |U| <= k} B_{|U|-|S|} SII(U)``.
  Substituting the Moebius form of SII gives ``sum_{T superset S} m(T) f(s, t)`` with
  ``f(s, t) = sum_{u=s}^{min(k,t)} C(t-s, u-s) B_{u-s} / (t-u+1)``; for ``t <= k`` the identity
  ``sum_j C(r+1, j) B_j = 0`` (``r >= 1``) leaves ``f = [t = s]``, so every dividend of size ``<= k`` stays on its
  own set and the values of all sets of size ``1..k`` sum to ``v(N) - v(empty)`` (efficiency).
- FSII (Faith-Shap, Tsai, Yeh & Ravikumar 2023, Thm. on the closed form): the coefficients of the order-``k``
  polynomial ``sum_{|T| <= k} e(T) [T subset S]`` closest to ``v`` in the Shapley-kernel weights
  ``mu(S) ~ (n-1) / (C(n,|S|) |S| (n-|S|))`` with ``v(empty)`` and ``v(N)`` fitted exactly:
  ``FSII(S) = m(S) + (-1)^{k-s} s/(k+s) C(k, s) sum_{T superset S, t > k} C(t-1, k) / C(t+k-1, k+s) m(T)``.
- FBII (Faith-Banzhaf, same paper): the coefficients of the order-``k`` polynomial closest to ``v`` with every
  coalition weighted equally (intercept free; it is reported as ``info["intercept"]``):
  ``FBII(S) = m(S) + (-1)^{k-s} sum_{T superset S, t > k} 2^{s-t} C(t-s-1, k-s) m(T)``. At ``s = k`` this is
  ``sum_{T superset S} 2^{s-t} m(T) = BII(S)``: the BII paper's Thm. 2 (top-order coefficients are BII).
- The index of the empty set (``info["empty_set"]`` of exact SII, BII and Banzhaf values, where shapiq keeps it
  apart from ``v(empty)``): the same formulas at ``s = 0``, :func:`empty_set_value`.
- Bivariate Shapley: Bivariate Shapley paper Eq. 6, with the orientation of the papers' README
  (``adjacency[i, j] = E2[j, i]``).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations
from math import comb

import numpy as np

from .._bits import moebius_transform, popcounts, split_by_player, subset_codes, superset_sum
from .._validation import check_choice, check_int
from ..games import Game
from ..results import Attribution, BivariateExplanation, Interactions
from ._registry import register

DEFAULT_MAX_PLAYERS = 20
INDICES = ("sii", "bii", "stii", "moebius", "excess", "ksii", "fsii", "fbii")


def evaluate_all(game: Game, *, max_players: int = DEFAULT_MAX_PLAYERS, budget: int | None = None,
                 kind: str = "shapley") -> np.ndarray:
    """Values of all ``2**n`` coalitions, indexed by the coalition's bits (cost: ``2**n`` evaluations)."""
    n = game.n_players
    max_players = check_int(max_players, "max_players", minimum=1)
    if n > max_players:
        from ._registry import available_methods

        others = [m for m in available_methods(kind) if m != "exact"]
        hint = f"use a sampling method (method={' or '.join(map(repr, others))})" if others else "no sampling method is available for it yet"
        raise ValueError(
            f"exact computation needs 2**{n} = {2**n:,} evaluations for {n} players, above max_players="
            f"{max_players}; {hint}, or raise max_players"
        )
    if budget is not None and check_int(budget, "budget", minimum=1) < 2**n:
        raise ValueError(f"budget: exact computation for {n} players needs 2**{n} = {2**n} evaluations, got {budget}")
    codes = np.arange(2**n, dtype=np.int64)
    coalitions = ((codes[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(bool)
    return game(coalitions)


def _shapley_weights(n: int) -> np.ndarray:
    """``w[s] = s! (n-s-1)! / n!`` for ``s = 0..n-1``: the Shapley weight of a coalition of size ``s``.

    ``w[n] = 0`` (the grand coalition has no player to add) so the array can be indexed by any size.
    """
    return np.array([1.0 / (n * comb(n - 1, s)) for s in range(n)] + [0.0])


def shapley_from_values(values: np.ndarray, n: int) -> np.ndarray:
    """Exact Shapley values from the table of all coalition values (marginal contributions, no cancellation)."""
    weights = _shapley_weights(n)[popcounts(n)]
    phi = np.empty(n)
    for i in range(n):
        without, with_ = split_by_player(values, i)
        phi[i] = np.sum(split_by_player(weights, i)[0] * (with_ - without))
    return phi


def banzhaf_from_values(values: np.ndarray, n: int) -> np.ndarray:
    """Exact Banzhaf values: mean marginal contribution over the ``2**(n-1)`` coalitions without each player."""
    beta = np.empty(n)
    for i in range(n):
        without, with_ = split_by_player(values, i)
        beta[i] = np.mean(with_ - without)
    return beta


@lru_cache(maxsize=None)
def bernoulli(m: int) -> Fraction:
    """Bernoulli number ``B_m`` with ``B_1 = -1/2`` (recursion ``sum_{j=0}^{m} C(m+1, j) B_j = 0``), exact."""
    if m == 0:
        return Fraction(1)
    return -sum(comb(m + 1, j) * bernoulli(j) for j in range(m)) / (m + 1)


def faithful_weight(index: str, s: int, t: int, k: int) -> float:
    """Weight ``f(s, t)`` of a dividend ``m(T)``, ``|T| = t``, in the k-SII / FSII / FBII value of ``S``, ``|S| = s``
    (formulas in the module docstring; ``0`` unless ``T`` covers ``S``, i.e. ``t >= s``)."""
    if t < s or s > k:
        return 0.0
    if index == "ksii":
        return float(sum(comb(t - s, u - s) * bernoulli(u - s) / (t - u + 1) for u in range(s, min(k, t) + 1)))
    if t <= k:
        return float(t == s)
    if index == "fsii":
        return (-1) ** (k - s) * s / (k + s) * comb(k, s) * comb(t - 1, k) / comb(t + k - 1, k + s)
    return (-1) ** (k - s) * 2.0 ** (s - t) * comb(t - s - 1, k - s)  # fbii


def _superset_weight(index: str, sizes: np.ndarray, s: int, order: int, n: int) -> np.ndarray:
    """Weight ``f(|T|, s)`` of the Moebius dividend ``m(T)`` in the index of a subset of size ``s``."""
    t = sizes.astype(float)
    f = np.zeros_like(t)
    covers = sizes >= s
    if index in ("ksii", "fsii", "fbii"):
        table = np.array([faithful_weight(index, s, size, order) for size in range(n + 1)])
        return table[sizes]
    if index == "sii":
        f[covers] = 1.0 / (t[covers] - s + 1.0)
    elif index == "bii":
        f[covers] = 2.0 ** (s - t[covers])
    elif index == "moebius" or (index == "stii" and s < order):
        f[sizes == s] = 1.0
    elif index == "stii":
        f[covers] = 1.0 / np.array([comb(t, order) for t in range(n + 1)], dtype=float)[sizes[covers]]
    elif index == "excess" and s == 1:
        f[covers] = 1.0 / t[covers]
    elif index == "excess":
        f[covers] = 1.0 / (t[covers] - 1.0) - 2.0 / t[covers]
    return f


def interactions_from_values(values: np.ndarray, n: int, index: str, order: int) -> dict[tuple[int, ...], float]:
    """Every value of ``index`` on subsets of size ``1..order``, from the table of all coalition values."""
    dividends = moebius_transform(values, n)
    sizes = popcounts(n)
    out: dict[tuple[int, ...], float] = {}
    for s in range(1, order + 1):
        totals = superset_sum(dividends * _superset_weight(index, sizes, s, order, n), n)
        out.update(zip(combinations(range(n), s), totals[subset_codes(n, s)].tolist()))
    if index in ("sii", "excess") or (order == 1 and index in ("ksii", "fsii")):
        # order-1 values are the Shapley values: use the cancellation-free formula
        out.update({(i,): v for i, v in enumerate(shapley_from_values(values, n).tolist())})
    elif index == "bii" or (order == 1 and index == "fbii"):
        out.update({(i,): v for i, v in enumerate(banzhaf_from_values(values, n).tolist())})
    return out


def fbii_intercept(values: np.ndarray, n: int, order: int) -> float:
    """Constant of the order-``order`` FBII polynomial: ``sum_T m(T) f(0, t)`` with the FBII weight at ``s = 0``."""
    dividends = moebius_transform(values, n)
    table = np.array([1.0 if t == 0 else (0.0 if t <= order else (-1) ** order * 2.0**-t * comb(t - 1, order))
                      for t in range(n + 1)])
    return float(np.sum(dividends * table[popcounts(n)]))


def empty_set_value(values: np.ndarray, n: int, index: str) -> float:
    """The index's own value of the empty set, which shapiq stores at ``()`` for SII, BII and Banzhaf values
    (its ``ExactComputer``): ``SII(empty) = sum_T t! (n-t)! / (n+1)! v(T)`` (the SII formula at ``s = 0``: the
    mean over sizes ``0..n`` of the mean value of the coalitions of that size), ``BII(empty) = 2^-n sum_T v(T)``
    (BII paper Eq. 2 at ``s = 0``: the mean value of all coalitions)."""
    if index == "sii":
        sizes = popcounts(n)
        return float(np.sum(values / ((n + 1) * np.array([comb(n, t) for t in range(n + 1)], dtype=float)[sizes])))
    return float(np.mean(values))


def bivariate_from_values(values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact Bivariate Shapley adjacency and Shapley values from the table of all coalition values.

    ``adjacency[i, j] = sum_{S: i in S, j not in S} w(|S|) (v(S+j) - v(S))`` with ``w(s) = s!(n-s-1)!/n!``
    (Eq. 6 of the Bivariate Shapley paper, transposed). Writing ``T = S + j`` in the first term and
    ``[j not in S] = 1 - [j in S]`` in the second, it splits into superset sums over pairs and singletons:
    ``adjacency[i, j] = B({i,j}) - A({i}) + A({i,j})`` with ``A = superset_sum(w(|S|) v(S))`` and
    ``B = superset_sum(w(|T|-1) v(T))``: two transforms, ``O(n 2**n)`` array work in all. Values are
    centred on ``v(empty)`` first, so the rounding error scales with the spread of ``v``, not its offset.
    """
    sizes = popcounts(n)
    weights = _shapley_weights(n)
    values = values - values[0]  # the matrix ignores constants; centring keeps sums of values small
    with_j = superset_sum(np.where(sizes >= 1, weights[np.maximum(sizes - 1, 0)], 0.0) * values, n)
    without_j = superset_sum(weights[sizes] * values, n)
    single = np.int64(1) << np.arange(n, dtype=np.int64)
    pair = single[:, None] | single[None, :]
    adjacency = with_j[pair] - without_j[single][:, None] + without_j[pair]
    np.fill_diagonal(adjacency, 0.0)
    return adjacency, shapley_from_values(values, n)


@register("shapley", "exact")
def exact_shapley(game: Game, *, budget: int | None = None, rng=None,
                  max_players: int = DEFAULT_MAX_PLAYERS) -> Attribution:
    """Exact Shapley values (cost: ``2**n`` evaluations)."""
    n = game.n_players
    values = evaluate_all(game, max_players=max_players, budget=budget, kind="shapley")
    return Attribution(shapley_from_values(values, n), values[0], game.feature_names, 2**n, "exact")


@register("banzhaf", "exact")
def exact_banzhaf(game: Game, *, budget: int | None = None, rng=None,
                  max_players: int = DEFAULT_MAX_PLAYERS) -> Attribution:
    """Exact Banzhaf values (BII paper, Eq. 2 with |S| = 1; cost: ``2**n`` evaluations)."""
    n = game.n_players
    values = evaluate_all(game, max_players=max_players, budget=budget, kind="banzhaf")
    return Attribution(banzhaf_from_values(values, n), values[0], game.feature_names, 2**n, "exact",
                       info={"empty_set": empty_set_value(values, n, "bii")})


@register("interactions", "exact")
def exact_interactions(game: Game, *, index: str = "sii", order: int = 2, budget: int | None = None, rng=None,
                       max_players: int = DEFAULT_MAX_PLAYERS) -> Interactions:
    """Exact interaction index on every subset of size ``1..order`` (cost: ``2**n`` evaluations)."""
    n = game.n_players
    check_choice(index, "index", INDICES)
    if index == "excess" and n < 2:
        raise ValueError(f"game: the Shapley excess is defined for pairs of players; the game has {n} player")
    order = check_int(order, "order", minimum=1, maximum=n)
    if index == "excess" and order != 2:
        raise ValueError(f"order: the Shapley excess is defined for pairs, expected order=2, got {order}")
    values = evaluate_all(game, max_players=max_players, budget=budget, kind="interactions")
    info = {"intercept": fbii_intercept(values, n, order)} if index == "fbii" else {}
    if index in ("sii", "bii"):
        info["empty_set"] = empty_set_value(values, n, index)
    return Interactions(interactions_from_values(values, n, index, order), index, order, values[0],
                        game.feature_names, 2**n, "exact", info=info)


@register("bivariate", "exact")
def exact_bivariate(game: Game, *, budget: int | None = None, rng=None,
                    max_players: int = DEFAULT_MAX_PLAYERS) -> BivariateExplanation:
    """Exact Bivariate Shapley matrix and Shapley values from one enumeration (cost: ``2**n`` evaluations)."""
    n = game.n_players
    values = evaluate_all(game, max_players=max_players, budget=budget, kind="bivariate")
    adjacency, phi = bivariate_from_values(values, n)
    univariate = Attribution(phi, values[0], game.feature_names, 2**n, "exact")
    return BivariateExplanation(adjacency, univariate, game.feature_names, 2**n, "exact")


def enumerated_interactions(game: Game, index: str, order: int, budget: int, method: str,
                            std_errors: bool) -> Interactions:
    """A sampler's result when its budget covers all ``2**n`` coalitions: the exact index, under the sampler's
    name, with zero standard errors (None without them) and ``info["enumerated"]``."""
    result = exact_interactions(game, index=index, order=order, budget=budget)
    return Interactions(result.values, index, order, result.baseline, game.feature_names, result.n_evaluations,
                        method, {k: 0.0 for k in result.values} if std_errors else None,
                        {**result.info, "budget": budget, "enumerated": True})
