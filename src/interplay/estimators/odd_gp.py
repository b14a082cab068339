"""OddGP: Shapley values of a Gaussian-process fit of the game's odd part (OddSHAP's regression plus a kernel).

The Shapley value depends only on the odd part ``v_odd(S) = (v(S) - v(N - S)) / 2`` (:mod:`.odd`); in the Walsh
basis ``chi_T(S) = prod_{k in T} (+1 if k in S else -1)`` it is ``v_odd = sum_{|T| odd} a_T chi_T`` and
``phi_i = sum_{T odd, i in T} 2 a_T / |T|``. OddSHAP fits a few ``a_T`` (the singletons and the odd interactions a
tree surrogate ranks first) and treats the rest as noise. Here the rest is modelled too: every odd ``a_T`` not
among the fixed terms is a priori ``N(0, w_|T|)`` with ``w_d = rho^d / (1 + rho)^n`` (a term's prior variance
falls geometrically with its order; ``rho`` is learned), so ``v_odd = X beta + g + noise`` with ``g`` a Gaussian
process (universal kriging: ``beta`` has a flat prior). Everything has a closed form in the Hamming distance
``h(S, S')``:

- kernel (covariance of ``g``): ``k(S, S') = sum_{d odd} w_d K_d(h) = (r^h - r^(n - h)) / 2`` with
  ``r = (1 - rho) / (1 + rho)``, ``K_d`` the Krawtchouk polynomial (``sum_{|T| = d} chi_T(S) chi_T(S')``);
- Shapley value of ``k(., S')``: ``2 z_i c(q)``, with ``z_i = +-1`` the membership of ``i`` in ``S'``, ``q`` the
  number of other players outside ``S'`` and
  ``c(q) = (1 + rho)^-n  int_0^rho [(1 + t)^(m - q) (1 - t)^q + (1 - t)^(m - q) (1 + t)^q] / 2 dt``, ``m = n - 1``
  (the sum over odd ``T`` holding ``i`` of ``w_|T| chi_T(S') / |T|`` is ``z_i`` times the even part of
  ``sum_d w_d t^(d - 1) e_(d - 1)(z_-i)`` integrated; Gauss-Legendre, exact for these polynomials).

So the posterior mean ``X beta + sum_u alpha_u k(., S_u)`` has Shapley values
``phi = sum_T beta_T 2 [i in T] / |T| + 2 sum_u alpha_u z_ui c(q_ui)``, computed in ``O(units n)``; they are then
shifted equally to meet efficiency exactly (the fit leaves ``v(N) - v(empty)`` off by its noise term).

Choices, by leave-one-pair-out error of the odd part (closed form: ``e_u = (P y)_u / P_uu`` with
``P = A^-1 - A^-1 X (X' A^-1 X)^-1 X' A^-1``, ``A = K + lambda I``; Dubrule 1983): the fixed terms (none, the
singletons, or the singletons and the surrogate's odd interactions up to 0.1 or 0.2 of the budget, as
OddSHAP), ``rho`` in :data:`DECAYS` and the noise ``lambda / k(S, S)`` in :data:`NOISES`; in two stages: ``rho``
and the noise with the singletons as fixed terms, then the terms and the noise at that ``rho`` (the larger term
sets cost most; choosing everything jointly took 2-3x longer for the same error on six games). With more than
:data:`SELECT_UNITS` sampled pairs the choice is made on that many of them (one eigendecomposition per ``rho``)
and the chosen model fitted once on all (one Cholesky factorisation).

Measured (``benchmarks/results/sota.md``, 10 games, budgets 10n-80n, 5 seeds): less error than OddSHAP on the same
samples in 32 of 40 cells, most where the odd part is spread over many interactions (1.3-3.8x on the sparse Moebius
games, 1.4-2.4x on a 30-feature forest, 1.1-1.4x on boosting and the MLPs), at most 1.27x more in the others (a
100-feature forest at 20n, chosen on 500 of its 1,000 pairs; the text classifier up to 1.15x). It is biased (a
regularised fit; exact at full budget), and its computation is about twice OddSHAP's (median 2.1x there).

Sample: the leverage sample (:mod:`._leverage`), paired; ``2 + 2 * floor((budget - 2) / 2)`` evaluations. At a
budget covering every coalition it is exact (the KernelSHAP solve of the whole design). Beyond
:data:`MAX_UNITS` pairs it is OddSHAP (a Cholesky factorisation of that size costs seconds).

Standard errors: the posterior standard deviation of each value (kriging variance, with the process variance
estimated as ``y' P y / (units - terms)``): a model-based error, not a sampling one; ``std_errors=False`` skips it.

Cost beyond the evaluations: the surrogate fit; per ``rho`` an eigendecomposition of ``min(units,
SELECT_UNITS)`` pairs; one ``units^3 / 3`` factorisation; ``units^2 (terms + n)`` for the fit and its errors.
"""

from __future__ import annotations

import numpy as np

from ..games import Game
from ..results import Attribution
from ._registry import register
from ._sampling import default_budget, kernel_solve
from ._surrogate import resolve_surrogate
from .leverage import draw_leverage_sample, sample_info
from .odd import _features, odd_shapley, ranked_odd_terms

DECAYS = (0.003, 0.01, 0.03, 0.1, 0.3)  # rho: prior variance of an odd term of order d is rho^d / (1 + rho)^n
NOISES = 10.0 ** np.arange(-7, 1)  # noise variance / process variance at a point (on a pair of weight 1)
TERM_RATIOS = (None, 0.0, 0.1, 0.2)  # fixed terms: none; singletons; + surrogate odd terms up to 0.1 / 0.2 budget
SELECT_UNITS = 500  # pairs the choice of the model is made on
LOO_UNITS = 200  # of which this many are left out in turn
MAX_UNITS = 3000  # above this many pairs: OddSHAP


def walsh_kernel(h: np.ndarray, n: int, rho: float) -> np.ndarray:
    """``sum_{|T| odd} w_|T| chi_T(S) chi_T(S')`` for Hamming distances ``h``: ``(r^h - r^(n-h)) / 2``."""
    r = (1.0 - rho) / (1.0 + rho)
    table = (r ** np.arange(n + 1) - r ** (n - np.arange(n + 1))) / 2.0
    return table[h]


def shapley_weights(n: int, rho: float) -> np.ndarray:
    """``c(q)`` for ``q = 0..n-1`` other players outside the coalition (module docstring): the Shapley value of
    player ``i`` in ``k(., S')`` is ``2 z_i c(q)``. Gauss-Legendre on ``[0, rho]``, exact for degree ``n - 1``."""
    m = n - 1
    nodes, weights = np.polynomial.legendre.leggauss(n // 2 + 2)
    t = (nodes + 1.0) * rho / 2.0
    weights = weights * rho / 2.0
    q = np.arange(m + 1)[:, None]
    # (1 + t)^(m - q) (1 - t)^q, scaled by (1 + rho)^-n inside the powers (no overflow at any n)
    up, down = np.log1p(t)[None, :], np.log1p(-t)[None, :]
    scale = n * np.log1p(rho)
    even = 0.5 * (np.exp((m - q) * up + q * down - scale) + np.exp((m - q) * down + q * up - scale))
    return even @ weights


def prior_variance(n: int, rho: float) -> float:
    """Prior variance of ``phi_i`` under the process: ``4 sum_{d odd} C(n-1, d-1) w_d / d^2``."""
    from scipy.special import gammaln

    d = np.arange(1, n + 1, 2)
    log_terms = (gammaln(n) - gammaln(d) - gammaln(n - d + 1) + d * np.log(rho) - n * np.log1p(rho))
    return float(4.0 * np.sum(np.exp(log_terms) / d**2))


def _pairs(game: Game, sample, values: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each sampled pair once, as its member holding player 0 (the grand coalition first), the odd part
    ``(v(S) - v(N - S)) / 2`` there (values from the game's cache: no new evaluations) and the pair's weight in
    the leverage sample's regression (mean 1; the grand coalition: the largest)."""
    holds = sample.coalitions[:, 0]
    rows = sample.coalitions[holds]
    S = np.concatenate([np.ones((1, n), dtype=bool), rows])
    y = np.concatenate([[(values[1] - values[0]) / 2.0], (game(rows) - game(~rows)) / 2.0])
    w = sample.weights[holds]
    w = np.concatenate([[w.max()], w])
    return S, y, w / w.mean()


def fixed_terms(n: int, budget: int, ranked: list, ratio: float | None) -> list:
    """The fixed terms for a term ratio: none (``None``), or the singletons and the surrogate's first odd
    interactions up to ``ratio * budget`` terms in all."""
    if ratio is None:
        return []
    return [(i,) for i in range(n)] + ranked[:max(0, int(np.ceil(ratio * budget)) - n)]


def _loo(V, ev, VX, Vy, rows, lam, root_w) -> float:
    """Weighted mean squared leave-one-out residual of the universal-kriging fit over the units ``rows``, from
    the eigenpairs ``(ev, V)`` of the scaled kernel ``D^1/2 K D^1/2`` (``D``: the pairs' weights, ``root_w`` their
    square roots), the rotated scaled design ``VX = V' D^1/2 X`` and values ``Vy = V' D^1/2 y`` (noise
    ``lam / w_u`` on pair ``u``: the residual of pair ``u`` is ``(P~ y~)_u / (P~_uu root_w_u)``)."""
    import scipy.linalg

    d = 1.0 / (ev + lam)
    Vr = V[rows]
    p_diag = (Vr * Vr) @ d
    if VX.shape[1] == 0:
        alpha = Vr @ (d * Vy)
    else:
        dVX = d[:, None] * VX
        try:
            factor = scipy.linalg.cholesky(VX.T @ dVX, lower=True, check_finite=False)  # of X' A^-1 X
        except np.linalg.LinAlgError:
            return np.inf
        beta = scipy.linalg.cho_solve((factor, True), VX.T @ (d * Vy), check_finite=False)
        alpha = Vr @ (d * (Vy - VX @ beta))
        # L^-1 (A^-1 X)_rows': its squared column norms are w' (X' A^-1 X)^-1 w
        half = scipy.linalg.solve_triangular(factor, (Vr @ dVX).T, lower=True, check_finite=False)
        p_diag = p_diag - np.sum(half * half, axis=0)
    if np.any(p_diag <= 0):
        return np.inf
    w = root_w[rows] ** 2
    return float(np.sum(w * (alpha / (p_diag * root_w[rows])) ** 2) / np.sum(w))


def _select(S, y, w, n, budget, ranked, rng) -> tuple[float | None, float, float, float]:
    """``(term ratio, rho, noise, leave-one-out error)`` with the smallest error (module docstring)."""
    units = len(S)
    if units > SELECT_UNITS:
        keep = np.concatenate([[0], np.sort(rng.choice(np.arange(1, units), SELECT_UNITS - 1, replace=False))])
        S, y, w = S[keep], y[keep], w[keep]
        budget = max(2 * n, int(budget * len(keep) / units))
    Z = np.where(S, 1.0, -1.0)
    h = np.rint((n - Z @ Z.T) / 2.0).astype(np.int64)
    sets, sizes = [], set()
    for ratio in TERM_RATIOS:
        terms = fixed_terms(n, budget, ranked, ratio)
        if len(terms) not in sizes and len(terms) < len(S) - 2:
            sizes.add(len(terms))
            sets.append((ratio, _features(S, terms) if terms else np.zeros((len(S), 0))))
    rows = (np.arange(len(S)) if len(S) <= LOO_UNITS
            else np.sort(rng.choice(len(S), LOO_UNITS, replace=False)))
    root_w = np.sqrt(w)
    eigen = {}
    # stage 1: rho and the noise with the cheapest fixed terms (the singletons, or none); stage 2: the terms (and
    # the noise again) at that rho. Large term sets are fitted at one rho only: most of the cost is theirs.
    first = next(((ratio, X) for ratio, X in sets if ratio == 0.0), sets[0])
    best = (None, DECAYS[0], NOISES[0], np.inf)
    for rho in DECAYS:
        K = walsh_kernel(h, n, rho)
        ev, V = np.linalg.eigh(root_w[:, None] * K * root_w[None, :])
        eigen[rho] = (np.maximum(ev, 0.0), V, V.T @ (root_w * y), K[0, 0])
        ev, V, Vy, at_zero = eigen[rho]
        VX = V.T @ (root_w[:, None] * first[1])
        for noise in NOISES:
            score = _loo(V, ev, VX, Vy, rows, noise * at_zero, root_w)
            if score < best[3]:
                best = (first[0], rho, float(noise), score)
    rho = best[1]
    ev, V, Vy, at_zero = eigen[rho]
    for ratio, X in sets:
        if ratio == first[0]:
            continue
        VX = V.T @ (root_w[:, None] * X)
        for noise in NOISES:
            score = _loo(V, ev, VX, Vy, rows, noise * at_zero, root_w)
            if score < best[3]:
                best = (ratio, rho, float(noise), score)
    return best


@register("shapley", "odd_gp")
def odd_gp_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator, surrogate="auto",
                   std_errors: bool = True) -> Attribution:
    """Shapley values by OddGP (module docstring); cost ``<= budget`` evaluations."""
    n = game.n_players
    kind = resolve_surrogate(surrogate)
    pairs = ((default_budget(n) if budget is None else budget) - 2) // 2 + 1  # the grand pair included
    if n < 4 or pairs > MAX_UNITS:
        result = odd_shapley(game, budget=budget, rng=rng, surrogate=surrogate, std_errors=std_errors)
        info = {**result.info, "odd_gp": f"OddSHAP ({'under 4 players' if n < 4 else f'over {MAX_UNITS} pairs'})"}
        return Attribution(result.values, result.baseline, game.feature_names, result.n_evaluations, "odd_gp",
                           result.std_errors, info)
    sample, values, used, budget = draw_leverage_sample(game, budget, rng, method="odd_gp")
    info = {**sample_info(sample, budget), "surrogate": kind if isinstance(kind, str) or kind is None
            else type(kind).__name__, "std_errors": bool(std_errors)}
    empty, full = values[0], values[1]
    if sample.n_enumerated == len(sample.coalitions):  # every coalition: the exact KernelSHAP solve
        solution = kernel_solve(sample, values[2:] - empty, np.array([full - empty]), std_errors=bool(std_errors))
        std = None if solution.std_errors is None else solution.std_errors[:, 0]
        return Attribution(solution.phi[:, 0], empty, game.feature_names, used, "odd_gp", std,
                           {**info, "enumerated": True})
    ranked, seconds = ranked_odd_terms(kind, sample, values, rng) if kind is not None else ([], 0.0)
    S, y, w = _pairs(game, sample, values, n)
    ratio, rho, noise, score = _select(S, y, w, n, budget, ranked, rng)
    terms = fixed_terms(n, budget, ranked, ratio)
    phi, std = gp_fit(S, y, terms, n, rho, noise, weights=w, std_errors=bool(std_errors))
    phi += (full - empty - phi.sum()) / n  # efficiency, exactly
    info.update(decay=rho, noise=noise, loo=score, n_terms=len(terms),
                n_interaction_terms=sum(len(T) > 1 for T in terms), surrogate_seconds=seconds,
                selection_units=min(len(S), SELECT_UNITS))
    return Attribution(phi, empty, game.feature_names, used, "odd_gp", std, info)


def gp_fit(S: np.ndarray, y: np.ndarray, terms: list, n: int, rho: float, noise: float, *,
           weights: np.ndarray | None = None, std_errors: bool = True, return_fit: bool = False):
    """Shapley values (before the efficiency shift) of the universal-kriging posterior mean of ``y`` on the
    pairs ``S`` (module docstring), and their posterior standard deviations (None unless ``std_errors``).
    With ``return_fit``, also ``(beta, alpha)``: the fitted odd part is ``X beta + sum_u alpha_u k(., S_u)``."""
    import scipy.linalg

    Z = np.where(S, 1.0, -1.0)
    h = np.rint((n - Z @ Z.T) / 2.0).astype(np.int64)
    A = walsh_kernel(h, n, rho)
    at_zero = A[0, 0]
    A[np.diag_indices_from(A)] += noise * at_zero / (1.0 if weights is None else weights)
    factor = scipy.linalg.cho_factor(A, lower=True, check_finite=False)
    X = _features(S, terms) if terms else np.zeros((len(S), 0))
    a_y = scipy.linalg.cho_solve(factor, y, check_finite=False)
    membership = np.zeros((len(terms), n))  # Shapley value of chi_T: 2 / |T| for each i in T
    for t, T in enumerate(terms):
        membership[t, list(T)] = 2.0 / len(T)
    if terms:
        W = scipy.linalg.cho_solve(factor, X, check_finite=False)
        M_inverse = np.linalg.pinv(X.T @ W, hermitian=True)  # pseudo-inverse: terms the sample cannot separate
        beta = M_inverse @ (W.T @ y)
        alpha = a_y - W @ beta
    else:
        beta, alpha = np.zeros(0), a_y
    q = (~S).sum(axis=1)[:, None] - (~S)  # other players outside S_u, for each i
    G = 2.0 * Z * shapley_weights(n, rho)[q]  # (units, n): Shapley value of k(., S_u) for each player
    phi = membership.T @ beta + G.T @ alpha
    std = None
    if std_errors:
        dof = max(len(y) - len(terms), 1)
        scale = float(y @ alpha) / dof  # process variance (REML-type estimate)
        AG = scipy.linalg.cho_solve(factor, G, check_finite=False)
        var = prior_variance(n, rho) - np.sum(G * AG, axis=0)
        if terms:
            R = membership - X.T @ AG  # (terms, n)
            var = var + np.sum(R * (M_inverse @ R), axis=0)
        std = np.sqrt(np.maximum(var, 0.0) * max(scale, 0.0))
    if return_fit:
        return phi, std, beta, alpha
    return phi, std
