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

Choices, by leave-one-pair-out error of the odd part (closed form: ``e_u = (P y)_u / P_uu`` with
``P = A^-1 - A^-1 X (X' A^-1 X)^-1 X' A^-1``, ``A = K + lambda I``; Dubrule 1983): the fixed terms (none, the
singletons, or the singletons and the surrogate's odd interactions up to 0.1 or 0.2 of the budget, as
OddSHAP), ``gamma`` in :data:`RELEVANCE_POWERS`, ``rho`` in :data:`DECAYS` and the noise ``lambda / k(S, S)`` in
:data:`NOISES`; in two stages: ``gamma``, ``rho`` and the noise with the singletons as fixed terms, then the terms
and the noise at those (the larger term sets cost most; choosing everything jointly took 2-3x longer for the
same error on six games). With more than :data:`SELECT_UNITS` sampled pairs the choice is made on that many of
them (one eigendecomposition per ``(gamma, rho)``) and the chosen model fitted once on all (one Cholesky
factorisation).

Measured (``benchmarks/results/sota.md``): see the README's estimator table. Against the kernel with one ``rho``
for all players (``gamma = 0`` only), the relevance weights had less error in every one of 30 cells (10 games,
budgets 10n-40n, 5 seeds; 1.4x as a geometric mean, up to 3x on tree ensembles). It is biased (a regularised
fit; exact at full budget).

Sample: the leverage sample (:mod:`._leverage`), paired; ``2 + 2 * floor((budget - 2) / 2)`` evaluations. At a
budget covering every coalition it is exact (the KernelSHAP solve of the whole design). Beyond
:data:`MAX_UNITS` pairs it is OddSHAP (a Cholesky factorisation of that size costs seconds).

Standard errors: the posterior standard deviation of each value (kriging variance, with the process variance
estimated as ``y' P y / (units - terms)``): a model-based error, not a sampling one; ``std_errors=False`` skips it.

Cost beyond the evaluations: the surrogate fit and its spectrum; per ``(gamma, rho)`` an eigendecomposition of
``min(units, SELECT_UNITS)`` pairs; one ``units^3 / 3`` factorisation; ``units^2 (terms + n)`` for the fit and
its errors.
"""

from __future__ import annotations

import numpy as np

from ..games import Game
from ..results import Attribution
from ._registry import register
from ._sampling import default_budget, kernel_solve
from ._surrogate import resolve_surrogate
from .leverage import draw_leverage_sample, sample_info
from .odd import _features, odd_shapley, rank_odd_terms, surrogate_spectrum

DECAYS = (0.003, 0.01, 0.03, 0.1, 0.3)  # rho: the most relevant player's factor in a term's prior variance
RELEVANCE_POWERS = (0.0, 0.5, 1.0)  # gamma: rho_k = rho (r_k / max r)^gamma
NOISES = 10.0 ** np.arange(-7, 1)  # noise variance / process variance at a point (on a pair of weight 1)
TERM_RATIOS = (None, 0.0, 0.1, 0.2)  # fixed terms: none; singletons; + surrogate odd terms up to 0.1 / 0.2 budget
SELECT_UNITS = 500  # pairs the choice of the model is made on
LOO_UNITS = 200  # of which this many are left out in turn
MAX_UNITS = 3000  # above this many pairs: OddSHAP


def _signs(S: np.ndarray) -> np.ndarray:
    return np.where(S, 1.0, -1.0)


def walsh_kernel(S: np.ndarray, S2: np.ndarray, rho) -> np.ndarray:
    """``sum_{|T| odd} w_T chi_T(S) chi_T(S')`` for the rows of ``S`` and ``S2`` (module docstring):
    ``(prod_{k differ} r_k - prod_{k agree} r_k) / 2``, ``r_k = (1 - rho_k) / (1 + rho_k)``; ``rho``: a number or
    one per player, each in ``[0, 1)``."""
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (S.shape[1],))
    log_r = 2.0 * np.arctanh(rho)  # -log r_k
    agree = (_signs(S) * log_r) @ _signs(S2).T  # sum over agreeing k minus sum over differing k of -log r_k
    total = log_r.sum()
    return 0.5 * (np.exp(-0.5 * (total - agree)) - np.exp(-0.5 * (total + agree)))


def kernel_at_zero(rho) -> float:
    """``k(S, S) = (1 - prod_k r_k) / 2``."""
    return float(-0.5 * np.expm1(-2.0 * np.sum(np.arctanh(np.asarray(rho, dtype=float)))))


def shapley_weights(S: np.ndarray, rho) -> np.ndarray:
    """``(units, n)``: the Shapley value of player ``i`` in the game ``k(., S_u)`` (module docstring), by
    Gauss-Legendre on ``[0, 1]`` with ``n // 2 + 2`` nodes (exact for degree ``n - 1``)."""
    Z = _signs(S)
    n = Z.shape[1]
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (n,))
    nodes, weights = np.polynomial.legendre.leggauss(n // 2 + 2)
    t = (nodes + 1.0) / 2.0
    tr = t[:, None] * rho[None, :]  # (nodes, n)
    # log prod_k (1 +- t rho_k z_k) / prod_k (1 + rho_k) = base(t) +- sum_k z_k atanh(t rho_k)
    base = 0.5 * np.sum(np.log1p(tr) + np.log1p(-tr), axis=1) - np.sum(np.log1p(rho))
    linear = Z @ np.arctanh(tr).T  # (units, nodes)
    half_w = weights / 4.0  # Gauss-Legendre on [0, 1] (w / 2) times the even part's 1 / 2
    plus, minus = half_w * np.exp(base + linear), half_w * np.exp(base - linear)
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
    pmf = np.zeros(len(q) + 1)
    pmf[0] = 1.0
    for k, qk in enumerate(q):  # Poisson-binomial distribution of all players
        pmf[1:k + 2] = pmf[1:k + 2] * (1.0 - qk) + pmf[:k + 1] * qk
        pmf[0] *= 1.0 - qk
    # without player i: P_-i(m) = (P(m) - q_i P_-i(m - 1)) / (1 - q_i), stable (q_i / (1 - q_i) = rho_i < 1)
    total = np.zeros(len(q))
    previous = np.zeros(len(q))
    for m in range(len(q)):
        current = np.maximum((pmf[m] - q * previous) / (1.0 - q), 0.0)
        if m % 2 == 0:
            total += current / (m + 1) ** 2
        previous = current
    return 4.0 * q * total


def feature_relevance(spectrum: dict, n: int) -> np.ndarray:
    """``r_k = sqrt(sum_{T ni k} a_T^2)`` over a (surrogate's) Fourier spectrum ``{T: a_T}``."""
    relevance = np.zeros(n)
    for T, c in spectrum.items():
        if T:
            relevance[list(T)] += c * c
    return np.sqrt(relevance)


def player_decays(rho: float, gamma: float, relevance: np.ndarray | None, n: int) -> np.ndarray:
    """``rho_k = rho (r_k / max r)^gamma`` (the same ``rho`` for every player when ``gamma = 0`` or without a
    relevance)."""
    if gamma == 0 or relevance is None or relevance.max() <= 0:
        return np.full(n, rho)
    return rho * (relevance / relevance.max()) ** gamma


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


def _select(S, y, w, n, budget, ranked, relevance, rng) -> tuple[float | None, float, float, float, float]:
    """``(term ratio, gamma, rho, noise, leave-one-out error)`` with the smallest error (module docstring)."""
    units = len(S)
    if units > SELECT_UNITS:
        keep = np.concatenate([[0], np.sort(rng.choice(np.arange(1, units), SELECT_UNITS - 1, replace=False))])
        S, y, w = S[keep], y[keep], w[keep]
        budget = max(2 * n, int(budget * len(keep) / units))
    sets, sizes = [], set()
    for ratio in TERM_RATIOS:
        terms = fixed_terms(n, budget, ranked, ratio)
        if len(terms) not in sizes and len(terms) < len(S) - 2:
            sizes.add(len(terms))
            sets.append((ratio, _features(S, terms) if terms else np.zeros((len(S), 0))))
    rows = (np.arange(len(S)) if len(S) <= LOO_UNITS
            else np.sort(rng.choice(len(S), LOO_UNITS, replace=False)))
    root_w = np.sqrt(w)
    powers = RELEVANCE_POWERS if relevance is not None and relevance.max() > 0 else (0.0,)
    eigen = {}
    # stage 1: gamma, rho and the noise with the cheapest fixed terms (the singletons, or none); stage 2: the
    # terms (and the noise again) at those. Large term sets are fitted once only: most of the cost is theirs.
    first = next(((ratio, X) for ratio, X in sets if ratio == 0.0), sets[0])
    best = (None, 0.0, DECAYS[0], NOISES[0], np.inf)
    for gamma in powers:
        for rho in DECAYS:
            decays = player_decays(rho, gamma, relevance, n)
            K = walsh_kernel(S, S, decays)
            ev, V = np.linalg.eigh(root_w[:, None] * K * root_w[None, :])
            eigen[gamma, rho] = (np.maximum(ev, 0.0), V, V.T @ (root_w * y), kernel_at_zero(decays))
            ev, V, Vy, at_zero = eigen[gamma, rho]
            VX = V.T @ (root_w[:, None] * first[1])
            for noise in NOISES:
                score = _loo(V, ev, VX, Vy, rows, noise * at_zero, root_w)
                if score < best[4]:
                    best = (first[0], gamma, rho, float(noise), score)
    _, gamma, rho, _, _ = best
    ev, V, Vy, at_zero = eigen[gamma, rho]
    for ratio, X in sets:
        if ratio == first[0]:
            continue
        VX = V.T @ (root_w[:, None] * X)
        for noise in NOISES:
            score = _loo(V, ev, VX, Vy, rows, noise * at_zero, root_w)
            if score < best[4]:
                best = (ratio, gamma, rho, float(noise), score)
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
    ranked, relevance, seconds = [], None, 0.0
    if kind is not None:
        spectrum, seconds = surrogate_spectrum(kind, sample, values, rng)
        ranked, relevance = rank_odd_terms(spectrum), feature_relevance(spectrum, n)
    S, y, w = _pairs(game, sample, values, n)
    ratio, gamma, rho, noise, score = _select(S, y, w, n, budget, ranked, relevance, rng)
    terms = fixed_terms(n, budget, ranked, ratio)
    phi, std = gp_fit(S, y, terms, player_decays(rho, gamma, relevance, n), noise, weights=w,
                      std_errors=bool(std_errors))
    phi += (full - empty - phi.sum()) / n  # efficiency, exactly
    info.update(decay=rho, relevance_power=gamma, noise=noise, loo=score, n_terms=len(terms),
                n_interaction_terms=sum(len(T) > 1 for T in terms), surrogate_seconds=seconds,
                selection_units=min(len(S), SELECT_UNITS))
    return Attribution(phi, empty, game.feature_names, used, "odd_gp", std, info)


def gp_fit(S: np.ndarray, y: np.ndarray, terms: list, rho, noise: float, *, weights: np.ndarray | None = None,
           std_errors: bool = True, return_fit: bool = False):
    """Shapley values (before the efficiency shift) of the universal-kriging posterior mean of ``y`` on the
    pairs ``S`` (module docstring; ``rho``: a number or one per player), and their posterior standard
    deviations (None unless ``std_errors``). With ``return_fit``, also ``(beta, alpha)``: the fitted odd part is
    ``X beta + sum_u alpha_u k(., S_u)``."""
    import scipy.linalg

    n = S.shape[1]
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (n,))
    A = walsh_kernel(S, S, rho)
    A[np.diag_indices_from(A)] += noise * kernel_at_zero(rho) / (1.0 if weights is None else weights)
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
    G = shapley_weights(S, rho)  # (units, n): Shapley value of k(., S_u) for each player
    phi = membership.T @ beta + G.T @ alpha
    std = None
    if std_errors:
        dof = max(len(y) - len(terms), 1)
        scale = float(y @ alpha) / dof  # process variance (REML-type estimate)
        AG = scipy.linalg.cho_solve(factor, G, check_finite=False)
        var = prior_variance(rho) - np.sum(G * AG, axis=0)
        if terms:
            R = membership - X.T @ AG  # (terms, n)
            var = var + np.sum(R * (M_inverse @ R), axis=0)
        std = np.sqrt(np.maximum(var, 0.0) * max(scale, 0.0))
    if return_fit:
        return phi, std, beta, alpha
    return phi, std
