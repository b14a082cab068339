"""Interaction indices by one weighted least-squares fit on one sample of coalitions (``method="regression"``).

An order-``k`` polynomial ``g(S) = sum_{T subset S, |T| <= k} e(T)`` is fitted to the game on a sample of
coalitions stratified by size (:mod:`interplay.estimators._stratified`: sizes listed completely where the budget
affords them, the rest drawn without replacement within each size, paired with complements, Horvitz-Thompson
weights ``mass(s) / rows of size s``), so the weighted sample objective is unbiased for the objective over all
``2**n`` coalitions and equals it at full budget (the estimate is then the exact index).

- ``index="fsii"`` (Faith-Shap, Tsai, Yeh & Ravikumar 2023): objective ``sum_S mu(S) (v(S) - g(S))^2`` over
  ``1 <= |S| <= n-1`` with the Shapley kernel ``mu(S) ~ (n-1) / (C(n,|S|) |S| (n-|S|))``, and ``g(empty) = v(empty)``,
  ``g(N) = v(N)`` exactly: ``e(empty) = v(empty)`` and the last coefficient is eliminated as
  ``v(N) - v(empty) - sum(others)``. Sizes are drawn uniformly over ``1..n-1`` by default (``sizes="uniform"``,
  the leverage-score choice of Musco & Witter 2025 for KernelSHAP; ``"kernel"``: in proportion to the kernel).
- ``index="fbii"`` (Faith-Banzhaf, same paper): every coalition weighted ``2^-n``, intercept free (reported as
  ``info["intercept"]``); coalitions drawn uniformly (``sizes="coalitions"``).
- ``index="bii"``: BII paper Thm. 2: the order-``s`` coefficients of the uniform least-squares polynomial of order
  ``s`` are ``BII`` of the sets of size ``s``. One uniform sample; one fit of each order ``s = 1..k`` (order 1: the
  Banzhaf values), keeping its top-order coefficients.

Pairs: a pair's difference ``g(S) - g(N-S)`` is affine in ``S`` for ``k <= 2`` (``z_i z_j - (1-z_i)(1-z_j) =
z_i + z_j - 1``), so ``U`` pairs identify at most about ``U + n + 1`` coefficients: with fewer than ``2 d`` rows to
sample the design would be rank-deficient, and ``paired="auto"`` samples single coalitions instead (at larger
budgets pairs halve the error, ``benchmarks/results/interaction_regression.md``).

SII and k-SII are not estimated here (KernelSHAP-IQ is not implemented): use ``method="permutation"``.

Cost: exactly ``budget`` coalition evaluations when ``budget < 2**n`` (every row is a distinct coalition; ``v(empty)``
and ``v(N)`` are two of them), ``2**n`` otherwise. Minimum ``max(2n, d + 2)`` for ``d = sum_{s=1}^{k} C(n, s)``
coefficients. Work: the ``(rows, d)`` design, one Cholesky factorisation of its ``d x d`` weighted Gram matrix per
fit, reused for the standard errors.

Standard errors (``std_errors=True``): linearising ``e_hat - e = G^-1 sum_r w_r x_r r_r`` (``G`` the weighted
Gram matrix, ``r`` the residuals), each sampled unit (a coalition and its complement) contributes
``G^-1 sum_{r in unit} w_r x_r r_r``; the variance is the stratified without-replacement sum
``sum_g (1 - f_g) U_g / (U_g - 1) sum_u (p_u - mean_g p)^2`` over size groups ``g`` with ``U_g`` sampled units and
sampled fraction ``f_g`` (a group with one unit is merged into the nearest group). Residuals are scaled by ``1 / (1 - h_r)`` (HC3,
``h_r`` the row's leverage) so that a fit with few rows per coefficient does not report too small errors (HC2's
``1 / sqrt(1 - h_r)`` covered 0.87 instead of 0.95 with pairs at ``n = 12``, budget ``20 n``; HC3 0.93, and it is
conservative, 0.98-1.0, for single coalitions near the minimum budget); a rank-deficient design (solved by
the pseudo-inverse, ``info["full_rank"] = False``) or a row of leverage 1 leaves no residual information
(standard errors ``inf``). Listed sizes add no variance: at full budget the errors are 0.
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from .._bits import members_of_size
from .._validation import check_choice, check_int
from ..games import Game
from ..results import Interactions
from ._registry import register
from ._stratified import StratifiedSample, stratified_sample
from .banzhaf_sampling import DEFAULT_BUDGET_PER_PLAYER

INDICES = ("fsii", "fbii", "bii")
SIZES = ("uniform", "kernel", "coalitions")


def _terms(n: int, k: int) -> list[tuple[int, ...]]:
    return [T for s in range(1, k + 1) for T in combinations(range(n), s)]


def _design(Z: np.ndarray, n: int, k: int) -> np.ndarray:
    """``X[r, T] = [T subset Z_r]`` for every ``T`` with ``1 <= |T| <= k`` (columns in :func:`_terms` order)."""
    blocks = []
    for s in range(1, k + 1):
        members = members_of_size(n, s)
        blocks.append(Z[:, members].all(axis=2))
    return np.concatenate(blocks, axis=1).astype(float)


def _masses(index: str, n: int) -> np.ndarray:
    """Objective weight of each size ``0..n``: Shapley-kernel mass (FSII, sizes ``1..n-1``) or ``C(n,s)/2^n``."""
    if index == "fsii":
        mass = np.zeros(n + 1)
        s = np.arange(1, n)
        mass[1:n] = (n - 1) / (s * (n - s))
        return mass / max(mass.sum(), 1e-300)                  # one player: nothing between empty and N
    return np.array([comb(n, s) for s in range(n + 1)], dtype=float) / 2.0**n


def _allocation(sizes: str, mass: np.ndarray) -> np.ndarray:
    if sizes == "kernel" or sizes == "coalitions":
        return mass.copy()
    return (mass > 0).astype(float)                            # uniform over the sizes in the objective


def _factor(gram: np.ndarray):
    """``(b -> gram^+ b, full rank?)``: Cholesky when the pivots show ``gram`` is clearly positive definite
    (smallest pivot above ``1e-10`` times the largest), else the pseudo-inverse (minimum-norm solution)."""
    import scipy.linalg  # imported on first solve, not with interplay

    try:
        factor = scipy.linalg.cho_factor(gram, check_finite=False)
        pivots = np.diag(factor[0]) ** 2
        if pivots.min() > 1e-10 * pivots.max():
            return (lambda b: scipy.linalg.cho_solve(factor, b, check_finite=False)), True
    except np.linalg.LinAlgError:
        pass
    inverse = np.linalg.pinv(gram, hermitian=True)
    return (lambda b: inverse @ b), False


def _fit(X, y, sample: StratifiedSample, want_se: bool, total: float | None):
    """Weighted least squares on rows ``X, y`` with ``sample``'s weights; ``total`` fixes ``sum(coefficients)``.

    Returns ``(coefficients, standard errors or None, full rank?)``; standard errors are ``inf`` when the sample
    does not identify every coefficient.
    """
    w = sample.weights
    if total is not None:                                      # eliminate the last coefficient
        Xr, yr = X[:, :-1] - X[:, -1:], y - X[:, -1] * total
    else:
        Xr, yr = X, y
    if Xr.shape[1] == 0:                                       # one player: the constraint is the answer
        return np.array([total], dtype=float), (np.zeros(1) if want_se else None), True
    gram = (Xr.T * w) @ Xr
    solve, full_rank = _factor(gram)
    beta = solve((Xr.T * w) @ yr)
    coef = np.append(beta, total - beta.sum()) if total is not None else beta
    if not want_se:
        return coef, None, full_rank
    sampled = sample.stratum >= 0
    if not sampled.any():
        return coef, np.zeros(len(coef)), full_rank
    if not full_rank:
        return coef, np.full(len(coef), np.inf), full_rank
    Xs, ws = Xr[sampled], w[sampled]
    projected = solve(Xs.T)                                    # (d, rows): G^-1 x_r
    leverage = ws * np.einsum("rd,dr->r", Xs, projected)
    if leverage.max() > 1 - 1e-9:
        return coef, np.full(len(coef), np.inf), full_rank
    residual = (yr[sampled] - Xs @ beta) / (1.0 - leverage)
    contrib = projected * (ws * residual)                      # (d, rows)
    if total is not None:
        contrib = np.vstack([contrib, -contrib.sum(axis=0)])
    units, strata = sample.unit[sampled], sample.stratum[sampled]
    n_units = units.max() + 1
    per_unit = np.zeros((len(contrib), n_units))
    np.add.at(per_unit.T, units, contrib.T)
    unit_stratum = np.zeros(n_units, dtype=np.int64)
    unit_stratum[units] = strata
    counts = np.bincount(unit_stratum, minlength=len(sample.fpc))
    fpc = sample.fpc.copy()
    full = np.flatnonzero(counts >= 2)
    if len(full) == 0:                                         # fewer than two units in every stratum
        return coef, np.full(len(coef), np.inf), full_rank
    for g in np.flatnonzero(counts == 1):                      # collapse a lone unit into the nearest stratum
        near = full[np.argmin(np.abs(full - g))]
        unit_stratum[unit_stratum == g] = near
        fpc[near] = max(fpc[near], fpc[g])
    var = np.zeros(len(contrib))
    for g in full:
        p = per_unit[:, unit_stratum == g]
        u = p.shape[1]
        var += fpc[g] * u / (u - 1) * ((p - p.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    return coef, np.sqrt(var), full_rank


def _minimum(n: int, k: int) -> int:
    return min(2**n, max(2 * n, sum(comb(n, s) for s in range(1, k + 1)) + 2))


@register("interactions", "regression")
def regression_interactions(game: Game, *, index: str = "fsii", order: int = 2, budget: int | None = None,
                            rng: np.random.Generator, sizes: str = "auto", paired: bool | str = "auto",
                            std_errors: bool = True) -> Interactions:
    """FSII, FBII or BII of every subset of size ``1..order`` from one sample and least-squares fit (module
    docstring). ``sizes``: ``"auto"`` (``"uniform"`` over sizes for FSII, ``"coalitions"`` for FBII/BII),
    ``"uniform"``, ``"kernel"`` or ``"coalitions"``; ``paired``: draw complements too (``"auto"``: when the budget
    leaves at least ``2 d`` sampled rows); ``std_errors``: compute them.
    """
    if index not in INDICES:
        raise ValueError(f"index: method='regression' estimates {list(INDICES)}, got {index!r}; use "
                         "method='permutation' for 'sii' and 'stii', or method='exact'")
    n = game.n_players
    order = check_int(order, "order", minimum=1, maximum=n)
    sizes = check_choice(sizes, "sizes", ("auto",) + SIZES)
    if sizes == "auto":
        sizes = "uniform" if index == "fsii" else "coalitions"
    minimum = _minimum(n, order)
    if budget is None:
        budget = max(DEFAULT_BUDGET_PER_PLAYER * n, minimum)
    budget = check_int(budget, "budget", minimum=1)
    if budget < minimum:
        raise ValueError(f"budget: method='regression' for index={index!r}, order={order} and {n} players needs at "
                         f"least {minimum} evaluations (min(2**n, max(2n, coefficients + 2))), got {budget}")
    from ._sampling import resolve_budget

    resolve_budget(budget, n, minimum, "regression")  # refuses budgets whose coalitions cannot fit in memory
    if paired == "auto":                                       # module docstring: pairs need about 2 d rows
        paired = budget - 2 >= 2 * len(_terms(n, order))
    elif not isinstance(paired, (bool, np.bool_)):
        raise ValueError(f"paired: expected True, False or 'auto', got {paired!r}")
    paired = bool(paired)
    mass = _masses(index, n)
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    if index == "fsii":                                        # v(empty), v(N) are constraints, not sampled
        sample = stratified_sample(n, min(budget, 2**n) - 2, mass, _allocation(sizes, mass), rng, paired=paired)
        coalitions = np.concatenate([ends, sample.coalitions])
    else:                                                      # the group {empty, N} is always listed
        mass_rest = mass.copy()
        mass_rest[[0, n]] = 0.0
        sample = stratified_sample(n, min(budget, 2**n) - 2, mass_rest, _allocation(sizes, mass_rest), rng,
                                   paired=paired)
        sample = StratifiedSample(np.concatenate([ends, sample.coalitions]),
                                  np.concatenate([mass[[0, n]], sample.weights]),
                                  np.concatenate([[-1, -1], sample.stratum]), np.concatenate([[-1, -1], sample.unit]),
                                  sample.fpc, (0, n) + sample.listed_sizes, sample.sampled_per_size)
        coalitions = sample.coalitions
    values = game(coalitions)
    empty, full = float(values[0]), float(values[1])
    terms = _terms(n, order)
    out, se, info = {}, {}, {}
    if index == "fsii":
        X = _design(sample.coalitions, n, order)
        coef, err, rank_ok = _fit(X, values[2:] - empty, sample, std_errors, full - empty)
        info["full_rank"] = rank_ok
        out, se = dict(zip(terms, coef)), dict(zip(terms, err)) if err is not None else None
    else:
        fits = range(order, order + 1) if index == "fbii" else range(1, order + 1)
        X = np.concatenate([np.ones((len(coalitions), 1)), _design(coalitions, n, order)], axis=1)
        se = {}
        for k in fits:
            columns = 1 + sum(comb(n, s) for s in range(1, k + 1))
            coef, err, rank_ok = _fit(X[:, :columns], values, sample, std_errors, None)
            info["full_rank"] = info.get("full_rank", True) and rank_ok
            if index == "fbii":
                info["intercept"] = float(coef[0])
                keys, keep = terms, slice(1, None)
            else:                                              # Thm. 2: keep the top-order coefficients
                keys, keep = list(combinations(range(n), k)), slice(columns - comb(n, k), columns)
            out.update(zip(keys, coef[keep]))
            if err is not None:
                se.update(zip(keys, err[keep]))
        se = se if std_errors else None
    used = len(coalitions)
    info.update({"budget": budget, "sizes": sizes, "paired": paired, "listed_sizes": sample.listed_sizes,
                 "sampled_per_size": dict(sample.sampled_per_size), "n_coefficients": len(terms)})
    return Interactions(out, index, order, empty, game.feature_names, used, "regression", std_errors=se, info=info)


regression_interactions.indices = INDICES
regression_interactions.choices = {"sizes": ("auto",) + SIZES, "paired": (True, False, "auto")}
