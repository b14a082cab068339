"""OddGP: Shapley values of a Gaussian-process fit of the game's odd part (OddSHAP's regression plus a kernel).

The Shapley value depends only on the odd part ``v_odd(S) = (v(S) - v(N - S)) / 2`` (:mod:`.odd`); in the Walsh
basis ``chi_T(S) = prod_{k in T} (+1 if k in S else -1)`` it is ``v_odd = sum_{|T| odd} a_T chi_T`` and
``phi_i = sum_{T odd, i in T} 2 a_T / |T|``. OddSHAP fits a few ``a_T`` (the singletons and the odd interactions a
tree surrogate ranks first) and treats the rest as noise. Here the rest is modelled too: every odd ``a_T`` not
among the fixed terms is a priori ``N(0, w_T)`` with a product (automatic relevance) weight

    w_T = prod_{k in T} rho_k / prod_{k in N} (1 + rho_k),      rho_k = rho (r_k / max_j r_j)^gamma,

so a term's prior variance falls geometrically with its order and with the irrelevance of its players: ``r_k``
is player ``k``'s share of the tree surrogate's exact Fourier spectrum (``sqrt(sum_{T ni k} a_T^2)``, every set
``T``), ``rho`` and ``gamma`` are learned (``gamma = 0``: the same ``rho`` for every player). Then
``v_odd = X beta + g + noise`` with ``g`` a Gaussian process (universal kriging: ``beta`` has a flat prior), and
everything has a closed form:

- kernel (covariance of ``g``), with ``r_k = (1 - rho_k) / (1 + rho_k)``:
  ``k(S, S') = sum_{T odd} w_T chi_T(S) chi_T(S') = (prod_{k: S, S' differ on k} r_k - prod_{k: agree} r_k) / 2``
  (expand ``prod_k (1 +- rho_k z_k z'_k)``; for equal ``rho_k`` it is ``(r^h - r^(n - h)) / 2`` in the Hamming
  distance ``h``);
- Shapley value of ``k(., S')`` for player ``i`` (``z = +-1`` the membership in ``S'``; ``1 / (|U| + 1)`` written as
  ``int_0^1 t^|U| dt``):
  ``2 z_i rho_i int_0^1 [prod_{k != i} (1 + t rho_k z_k) + prod_{k != i} (1 - t rho_k z_k)] / 2 dt / prod_k (1 +
  rho_k)``, by Gauss-Legendre (exact: a polynomial of degree ``n - 1``), as two matrix products over the nodes;
- prior variance of ``phi_i``: ``sum_{T odd ni i} (2 / |T|)^2 w_T = 4 q_i sum_{m even} P_-i(m) / (m + 1)^2``, with
  ``P_-i`` the Poisson-binomial distribution of the ``q_k = rho_k / (1 + rho_k)``, ``k != i``.

So the posterior mean ``X beta + sum_u alpha_u k(., S_u)`` has Shapley values
``phi = sum_T beta_T 2 [i in T] / |T| + sum_u alpha_u G_ui``, computed in ``O(units n^2)``; they are then shifted
equally to meet efficiency exactly (the fit leaves ``v(N) - v(empty)`` off by its noise term).

Choices (:func:`._walsh_gp.select`, by leave-one-pair-out error of the odd part, weighted by the pairs'
regression weights): ``gamma``, ``rho`` and the noise with the singletons as fixed terms, then the fixed terms
at those: the singletons, the singletons and the surrogate's odd interactions up to 0.1 or 0.2 of the budget (as
OddSHAP), or none (only while the choice is made on at least half of the pairs, and with a walk of its own over
``rho``; see :func:`term_sets`), or the singletons with
the largest set's interactions as terms of the process with finite prior variances (``tau`` times their share of
the surrogate's odd interaction spectrum: :func:`._walsh_gp.select`). With more than
``SELECT_UNITS`` (250) sampled pairs (``2n + 3``, when more) the choice is made on that many of them and the
chosen model fitted once on all (one Cholesky factorisation).

Measured (``benchmarks/results/sota.md`` and the README's estimator table). Against one ``rho`` for all players
(the previous OddGP, ``gamma = 0`` only, model chosen on 500 pairs), the relevance weights had less error in 28 of
30 cells (10 games, budgets 10n-40n, 5 seeds; 1.4x as a geometric mean, up to 3x on the 30-feature forest).
Biased (a regularised fit), exact at full budget.

Sample: the leverage sample (:mod:`._leverage`), paired; ``2 + 2 * floor((budget - 2) / 2)`` evaluations; at
budgets up to ``6n + 2`` every pair ``{i}``, ``N - {i}`` first (:func:`._leverage.singleton_pairs_first`, as the
``gp`` Bivariate matrix, so the two share their sample; at 5n 0.68-0.89 of the error on five of the benchmark's
games, 1.00 and 1.17 on two others). At a budget covering every coalition it is exact (the KernelSHAP solve of
the whole design). Beyond :data:`MAX_UNITS` pairs it is OddSHAP (a Cholesky factorisation of that size costs
seconds).

Standard errors: the posterior standard deviation of each value (kriging variance, with the process variance
estimated as ``y' P y / (units - terms)``): a model-based error, not a sampling one; ``std_errors=False`` skips it.

Cost beyond the evaluations: the surrogate fit and its spectrum; the model choice on
``min(units, max(SELECT_UNITS, 2n + 3))`` pairs (enough to fit the singletons twice over; from 248 players 250
pairs fitted no set of terms, and no model was chosen: a wrong fit): one Cholesky factorisation and inverse per
``(gamma, rho, noise)`` tried (:func:`._walsh_gp.select`); one ``units^3 / 3``
factorisation;
``units^2 (terms + n)`` for the fit and its errors. Above :data:`MAX_PLAYERS` (510) players it is OddSHAP.
"""

from __future__ import annotations

import numpy as np

from ..games import Game, _packed_keys
from ..results import Attribution
from ._leverage import singleton_pairs_first
from ._registry import register
from ._sampling import default_budget, kernel_solve
from ._surrogate import resolve_surrogate
from ._walsh_gp import (Part, budget_term_sets, design, feature_relevance, fit, fit_part, node_products,
                        poisson_binomial, readout, signs, term_shares, without_each)
from .leverage import draw_leverage_sample, sample_info
from .odd import odd_shapley, rank_odd_terms, surrogate_spectrum

TERM_RATIOS = (0.0, None, 0.1, 0.2)  # fixed terms: singletons (fitted first); none; + surrogate odd terms up to
MAX_UNITS = 4096  # above this many pairs: OddSHAP                              0.1 / 0.2 of the budget
MAX_PLAYERS = 510  # above: OddSHAP (the model is chosen on 2n + 3 pairs: 8 s a row at 500 players, 60 s at 1,000)


def shapley_weights(S: np.ndarray, rho) -> np.ndarray:
    """``(units, n)``: the Shapley value of player ``i`` in the game ``k(., S_u)`` (module docstring), two matrix
    products over the Gauss-Legendre nodes of :func:`._walsh_gp.node_products`."""
    Z = signs(S)
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (Z.shape[1],))
    t, weights, plus, minus = node_products(S, rho)
    plus, minus = plus * (weights / 2.0), minus * (weights / 2.0)  # the even part's 1 / 2
    tr = t[:, None] * rho[None, :]
    up, down = 1.0 / (1.0 + tr), 1.0 / (1.0 - tr)  # player i's own factor divided out: (1 + t rho_i z_i)^-1 ...
    inside = plus @ up + minus @ down  # z_i = +1
    outside = plus @ down + minus @ up  # z_i = -1
    return 2.0 * rho * np.where(Z > 0, inside, -outside)


def prior_variance(rho, n: int | None = None) -> np.ndarray:
    """Prior variance of each ``phi_i`` under the process: ``4 q_i sum_{m even} P_-i(m) / (m + 1)^2`` (module
    docstring); ``rho`` one per player (or a number with ``n``)."""
    rho = np.asarray(rho, dtype=float)
    if rho.ndim == 0:
        rho = np.full(int(n), float(rho))
    q = rho / (1.0 + rho)
    others = without_each(poisson_binomial(q), q)  # (n, n): P_-i(m)
    m = np.arange(others.shape[1])
    return 4.0 * q * (others @ np.where(m % 2 == 0, 1.0 / (m + 1.0) ** 2, 0.0))


def complementary_pairs(game: Game, sample, values: np.ndarray, n: int):
    """Each sampled pair once, as its member holding player 0 (the grand coalition first), its odd and even
    parts ``(v(S) -+ v(N - S)) / 2`` (values from the game's cache: no new evaluations) and the pair's weight in
    the leverage sample's regression (mean 1; the grand coalition: the largest)."""
    holds = sample.coalitions[:, 0]
    rows = sample.coalitions[holds]
    S = np.concatenate([np.ones((1, n), dtype=bool), rows])
    # each complement's value from the sample itself (every sampled coalition comes with its complement): no
    # second request to the game, whose cache may be off
    keys = _packed_keys(sample.coalitions)
    order = np.argsort(keys, kind="stable")
    at = order[np.searchsorted(keys[order], _packed_keys(~rows))]
    if not np.array_equal(sample.coalitions[at], ~rows):
        raise RuntimeError("complementary_pairs: a sampled coalition's complement is not in the sample")
    sampled = values[2:]
    first, second = np.concatenate([[values[1]], sampled[holds]]), np.concatenate([[values[0]], sampled[at]])
    w = sample.weights[holds]
    w = np.concatenate([[w.max()], w])
    return S, (first - second) / 2.0, (first + second) / 2.0, w / w.mean()


def fixed_terms(n: int, budget: int, ranked: list, ratio: float | None) -> list:
    """The fixed terms for a term ratio: none (``None``), or the singletons and the surrogate's first odd
    interactions up to ``ratio * budget`` terms in all."""
    if ratio is None:
        return []
    return [(i,) for i in range(n)] + ranked[:max(0, int(np.ceil(ratio * budget)) - n)]


def term_sets(n: int, budget: int, ranked: list):
    """The candidate fixed terms of :func:`._walsh_gp.select` (``TERM_RATIOS``, sizes once each). No fixed
    terms at all only while the choice is made on at least half of the pairs (:data:`._walsh_gp.MOST_PAIRS`): on a
    small share of them the ``n`` singletons look costlier than they are on the whole sample (on the 100-player
    tree games at 80n, choosing "none" on 250 of 4,000 pairs had 1.2-1.5x the error of keeping the singletons).
    Allowed from half rather than only on every pair (and with a walk of their own over ``rho``), the Shapley
    values' MSE on ``sota.py``'s games at 10n-20n (10 seeds each) was 0.82x on the 64-patch image at 10n (250 of 320
    pairs), 0.90-0.97x on forest30, forest100, gbm100, moebius40 and mlp60 at 10n, 0.99-1.00x elsewhere but 1.05x
    and 1.08x on moebius16 (10n, 20n); the walk costs about 2 ms at 210 pairs (30 players: 22-26 factorisations
    a fit against 13-20)."""
    return budget_term_sets(budget, TERM_RATIOS, lambda scaled, ratio: fixed_terms(n, scaled, ranked, ratio), 2 * n,
                            most_pairs_only=(None,))


def fit_odd(S: np.ndarray, y: np.ndarray, w: np.ndarray, budget: int, spectrum: dict | None,
            rng: np.random.Generator) -> Part:
    """OddGP's model of the odd part on complementary pairs (:func:`complementary_pairs`: their members ``S``,
    odd parts ``y``, weights ``w``; ``spectrum``: the tree surrogate's, or None)."""
    n = S.shape[1]
    # only the first terms are ever fixed: ceil(ratio budget) - n at the largest ratio (and budget >= 2n)
    limit = int(np.ceil(max(r for r in TERM_RATIOS if r) * max(budget, 2 * n))) - n
    ranked = rank_odd_terms(spectrum, limit=max(limit, 0)) if spectrum is not None else []
    relevance = feature_relevance(spectrum, n) if spectrum is not None else None
    return fit_part(S, y, w, "odd", term_sets(n, budget, ranked), lambda key: fixed_terms(n, budget, ranked, key),
                    relevance, rng, term_shares(spectrum, range(3, n + 1, 2)))


def odd_gp_fit(S: np.ndarray, y: np.ndarray, w: np.ndarray, total: float, budget: int, spectrum: dict | None,
               rng: np.random.Generator, *, std_errors: bool, readouts=("shapley",)):
    """:func:`fit_odd` and the fit's readouts (``"shapley"``: values shifted to sum to ``total = v(N) -
    v(empty)``, ``"banzhaf"``) as ``{name: (values, std)}``, with what ``info`` records."""
    n = S.shape[1]
    part = fit_odd(S, y, w, budget, spectrum, rng)
    out = {}
    for name in readouts:
        membership, G, prior = _odd_readout(name, S, part.terms, part.decays, n, std_errors)
        values, std = readout(part.fitted, membership, G, prior)
        if name == "shapley":
            values = values + (total - values.sum()) / n  # efficiency, exactly
        out[name] = (values, std)
    return out, part.info()


def _odd_readout(name: str, S: np.ndarray, terms: list, decays: np.ndarray, n: int, std_errors: bool):
    """``(membership, G, prior variances or None)`` of Shapley (``2 a_T / |T|`` for each member of ``T``) or
    Banzhaf values (``2 a_i``) for :func:`._walsh_gp.readout`."""
    membership = np.zeros((len(terms), n))
    if name == "shapley":
        for t, T in enumerate(terms):
            membership[t, list(T)] = 2.0 / len(T)
        return membership, shapley_weights(S, decays), (prior_variance(decays) if std_errors else None)
    for t, T in enumerate(terms):
        if len(T) == 1:
            membership[t, T[0]] = 2.0
    w_single = decays / np.prod(1.0 + decays)  # w_{i}
    return membership, 2.0 * w_single * signs(S), (4.0 * w_single if std_errors else None)


@register("shapley", "odd_gp")
def odd_gp_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator, surrogate="auto",
                   std_errors: bool = True) -> Attribution:
    """Shapley values by OddGP (module docstring); cost ``<= budget`` evaluations."""
    n = game.n_players
    kind = resolve_surrogate(surrogate)
    pairs = ((default_budget(n) if budget is None else budget) - 2) // 2 + 1  # the grand pair included
    if n < 4 or n > MAX_PLAYERS or pairs > MAX_UNITS:
        result = odd_shapley(game, budget=budget, rng=rng, surrogate=surrogate, std_errors=std_errors)
        why = ("under 4 players" if n < 4 else f"over {MAX_PLAYERS} players" if n > MAX_PLAYERS
               else f"over {MAX_UNITS} pairs")
        info = {**result.info, "odd_gp": f"OddSHAP ({why})"}
        return Attribution(result.values, result.baseline, game.feature_names, result.n_evaluations, "odd_gp",
                           result.std_errors, info)
    first = singleton_pairs_first(n, default_budget(n) if budget is None else budget)  # as the gp matrix's
    sample, values, used, budget = draw_leverage_sample(game, budget, rng, method="odd_gp", whole_singletons=first)
    info = {**sample_info(sample, budget), "surrogate": kind if isinstance(kind, str) or kind is None
            else type(kind).__name__, "std_errors": bool(std_errors)}
    empty, full = values[0], values[1]
    if n < 63 and len(sample.coalitions) == 2**n - 2:  # every coalition: the exact KernelSHAP solve (not
        # when only some sizes are enumerated, as every pair {i}, N - {i} at the smallest budgets)
        solution = kernel_solve(sample, values[2:] - empty, np.array([full - empty]), std_errors=bool(std_errors))
        std = None if solution.std_errors is None else solution.std_errors[:, 0]
        return Attribution(solution.phi[:, 0], empty, game.feature_names, used, "odd_gp", std,
                           {**info, "enumerated": True})
    spectrum, seconds = surrogate_spectrum(kind, sample.coalitions, values, rng) if kind is not None else (None, 0.0)
    S, y, _, w = complementary_pairs(game, sample, values, n)
    out, fit_info = odd_gp_fit(S, y, w, full - empty, budget, spectrum, rng, std_errors=bool(std_errors))
    phi, std = out["shapley"]
    info.update(fit_info, surrogate_seconds=seconds)
    return Attribution(phi, empty, game.feature_names, used, "odd_gp", std, info)


def gp_fit(S: np.ndarray, y: np.ndarray, terms: list, rho, noise: float, *, weights: np.ndarray | None = None,
           std_errors: bool = True, return_fit: bool = False):
    """Shapley values (before the efficiency shift) of the universal-kriging posterior mean of ``y`` on the
    pairs ``S`` (module docstring; ``rho``: a number or one per player), and their posterior standard
    deviations (None unless ``std_errors``). With ``return_fit``, also ``(beta, alpha)``: the fitted odd part is
    ``X beta + sum_u alpha_u k(., S_u)``."""
    n = S.shape[1]
    decays = np.broadcast_to(np.asarray(rho, dtype=float), (n,))
    fitted = fit(S, y, design(S, terms), decays, noise, "odd", weights=weights)
    phi, std = readout(fitted, *_odd_readout("shapley", S, terms, decays, n, std_errors))
    if return_fit:
        return phi, std, fitted.beta, fitted.alpha
    return phi, std
