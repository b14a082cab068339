"""OddSHAP: Shapley values from a regression on the odd part of the game (Fumagalli et al. 2026).

The Shapley value depends only on the odd component ``v_odd(S) = (v(S) - v(N - S)) / 2``. In the Fourier
(Walsh) basis ``chi_T(S) = prod_{k in T} (+1 if k in S else -1)`` a set ``T`` of odd size changes sign under
``S -> N - S`` and an even one does not, so ``v_odd = sum_{|T| odd} a_T chi_T``, and since ``chi_T`` is symmetric
in ``T`` and moves from ``-1`` to ``+1`` when all of ``T`` joins, ``Shapley_i(chi_T) = 2 / |T|`` for ``i in T``:

    phi_i = sum_{T odd, i in T} 2 a_T / |T|.

With only the ``n`` singletons this is paired KernelSHAP (the pair's loss splits into a part free of ``phi`` and
``(v_odd(S) - sum_i phi_i chi_i(S) / 2)^2``). OddSHAP adds the odd sets of size 3 and 5 that matter most, found
in the exact Fourier spectrum of a tree surrogate fitted on the same sample (:mod:`._surrogate`), and solves

    min_a sum_S w(S) (v(S) - sum_T a_T chi_T(S))^2   s.t.  sum_T a_T = (v(N) - v(empty)) / 2

over the leverage sample (:mod:`._leverage`; pairs with equal weights make the even part of ``v`` drop out of
the normal equations). The constraint is efficiency. Over all ``2**n`` coalitions the residual is orthogonal to
every linear direction with zero sum, so the Shapley value of the residual is 0 and the estimate is exact,
whatever terms were added. ``terms_ratio`` (the paper's ``1 / eta``) caps the terms at that fraction of the
budget: the singletons first, then the largest odd interactions. The default ``"auto"`` fits both ``0.1`` (the
paper's ``eta = 10``) and ``0.2`` of the budget and keeps the fit with the smaller PRESS (leave-one-pair-out
prediction error of the odd part, from the hat matrix; over at most ``PRESS_UNITS`` sampled pairs). Neither
ratio wins everywhere: on ``benchmarks/sota.py``'s games (5 seeds, budgets 10n-80n) ``0.2`` had up to 1.8x less
error on the sparse Moebius games and boosting with 30 features, ``0.1`` up to 1.3x less on the MLP with 60
features, the image, the text and the forest with 100 features. With PRESS the error was at most 1.12x that of
the better fixed ratio in all 34 cells (9 games), no more than it in 27, below both in 4 (it chooses per seed);
generalised cross-validation, which ignores how the leverage varies, chose wrongly on Moebius 16 and boosting.
At budgets below ``5 n`` it is Leverage SHAP.

Standard errors: stratified sandwich over the sampled pairs (as :func:`._sampling._stratified_std`), with the
degrees-of-freedom factor for the fitted terms; ``std_errors=False`` skips them.

Cost: the leverage sample, ``2 + 2 * floor((budget - 2) / 2)`` evaluations; the surrogate fit and its spectrum
cost no evaluations (their seconds are in ``info["surrogate_seconds"]``); with ``"auto"``, two regressions
instead of one (the smaller has a quarter of the larger's ``p^2 rows`` work).
"""

from __future__ import annotations

import time

import numpy as np

from ..games import Game
from ..results import Attribution
from ._registry import register
from ._sampling import KernelSample, gram_solver, kernel_solve, stratified_variance
from ._surrogate import fit_surrogate, fourier_spectrum, odd_spectrum, resolve_surrogate
from .leverage import draw_leverage_sample, sample_info


def _features(coalitions: np.ndarray, terms: list[tuple[int, ...]]) -> np.ndarray:
    """``chi_T(S)`` for every row ``S`` and term ``T``: ``(rows, terms)`` of +-1."""
    signs = np.where(coalitions, 1.0, -1.0)
    out = np.empty((len(coalitions), len(terms)))
    for t, T in enumerate(terms):
        out[:, t] = signs[:, T[0]] if len(T) == 1 else np.prod(signs[:, list(T)], axis=1)
    return out


def odd_regression(sample: KernelSample, values: np.ndarray, terms: list[tuple[int, ...]], n: int, *,
                   std_errors: bool = True, press_units: np.ndarray | None = None):
    """Constrained odd regression on a leverage sample; returns ``(phi, std_errors, coefficients)``, and the
    PRESS score (below) as a fourth item when ``press_units`` is given.

    ``values`` are ``[v(empty), v(N), v(sample.coalitions)...]``. Sampled pairs enter as one row each: the pair
    ``(x, y1), (-x, y2)`` with weight ``w`` has the loss of ``(x, (y1 - y2) / 2)`` with weight ``2 w`` up to a
    constant.

    PRESS (Allen 1974): the weighted sum over the sampled units ``press_units`` (indices into the sampled pairs)
    of the squared leave-one-out residuals ``r_u / (1 - h_u)``, ``h_u = w_u x_u' G^-1 x_u`` the unit's leverage:
    the fit's prediction error on pairs it did not see, at ``len(press_units) p^2`` more work.
    """
    empty, full, y = values[0], values[1], values[2:]
    first, units = sample.n_enumerated, len(sample.counts)
    head = first + units
    X = _features(sample.coalitions[:head], terms)
    target = np.concatenate([y[:first], 0.5 * (y[first:head] - y[head:])])
    weights = np.concatenate([sample.weights[:first], 2.0 * sample.weights[first:head]])
    total = 0.5 * (full - empty)
    design = X[:, :-1] - X[:, -1:]  # a_last = total - sum(others)
    reduced = target - X[:, -1] * total
    weighted = design.T * weights
    solve = gram_solver(weighted @ design)
    b = solve(weighted @ reduced)
    coef = np.append(b, total - b.sum())
    membership = np.zeros((n, len(terms)))
    for t, T in enumerate(terms):
        membership[list(T), t] = 2.0 / len(T)
    phi = membership @ coef
    extra = ()
    if press_units is not None:
        rows = first + np.asarray(press_units, dtype=np.int64)
        leverage = weights[rows] * np.einsum("ij,ij->i", design[rows] @ solve.inverse, design[rows])
        loo = (reduced[rows] - design[rows] @ b) / np.maximum(1.0 - leverage, 1e-12)
        extra = (float(np.sum(weights[rows] * loo**2)),)
    if not std_errors or first == len(sample.coalitions):
        return (phi, (np.zeros(n) if std_errors else None), coef, *extra)
    p = len(terms) - 1
    if units <= p:
        return (phi, None, coef, *extra)
    residual = reduced[first:] - design[first:] @ b
    # phi's influence of each unit: membership [G^-1 x_u; -sum(G^-1 x_u)] = (G^-1 M')' x_u with M' the membership
    # of the free coefficients minus that of the eliminated one (G symmetric): n p^2 + n p units work, not p^2 units
    reduced_membership = membership[:, :-1] - membership[:, -1:]
    influence = solve(reduced_membership.T).T @ design[first:].T           # (n, units)
    var = stratified_variance(sample.strata, sample.stratum_sizes, influence,
                              (weights[first:] * residual)[:, None])[:, 0]
    return (phi, np.sqrt(var * units / (units - p)), coef, *extra)


AUTO_RATIOS = (0.1, 0.2)  # terms_ratio="auto": the candidates PRESS chooses between
PRESS_UNITS = 1024  # PRESS over at most this many sampled pairs (a random subset of them beyond)


def surrogate_spectrum(kind, coalitions: np.ndarray, values: np.ndarray, rng: np.random.Generator,
                       sizes: tuple[int, ...] | None = None) -> tuple[dict[tuple[int, ...], float], float]:
    """The exact Fourier spectrum (sets of the given sizes; every size when None) of a tree surrogate fitted on
    the sampled ``coalitions`` (``values[0]``, ``values[1]``: the empty and grand coalitions, ``values[2:]``:
    the coalitions), and the seconds it took."""
    start = time.perf_counter()
    n = coalitions.shape[1]
    rows = np.concatenate([np.zeros((1, n), bool), np.ones((1, n), bool), coalitions])
    ensemble = fit_surrogate(kind, rows, values, rng)
    spectrum = odd_spectrum(ensemble, sizes) if sizes is not None else fourier_spectrum(ensemble)
    return spectrum, time.perf_counter() - start


def rank_terms(spectrum, sizes, limit: int | None = None) -> list[tuple[int, ...]]:
    """The sets whose size is in ``sizes`` with a nonzero coefficient in ``spectrum``, largest first (equal
    magnitudes: the sets in ascending order). A :class:`._surrogate.Spectrum` is read from its arrays of those
    sizes (one numpy sort by magnitude; ties ordered by their sets), else every entry is filtered and sorted."""
    by_size = getattr(spectrum, "by_size", None)
    if by_size is None:
        kept = {T: c for T, c in spectrum.items() if len(T) in sizes and c != 0}
        return [T for T, _ in sorted(kept.items(), key=lambda kv: (-abs(kv[1]), kv[0]))]
    blocks, magnitudes = [], []
    for size, members, coefficients in by_size:
        if size in sizes:
            nonzero = coefficients != 0
            blocks.append(members[nonzero])
            magnitudes.append(np.abs(coefficients[nonzero]))
    if not sum(len(b) for b in blocks):
        return []
    magnitudes = np.concatenate(magnitudes)
    order = np.argsort(-magnitudes, kind="stable")
    ordered = magnitudes[order]
    if limit is not None and limit < len(order):  # the first limit, and the rest of a run of ties at the cut
        cut = max(int(limit), 1)
        while cut < len(order) and ordered[cut] == ordered[cut - 1]:
            cut += 1
        order, ordered = order[:cut], ordered[:cut]
        starts = np.cumsum([0] + [len(b) for b in blocks])
        block = np.searchsorted(starts, order, side="right") - 1
        ranked = [tuple(blocks[b][i - starts[b]].tolist()) for b, i in zip(block.tolist(), order.tolist())]
    else:
        sets = [T for b in blocks for T in map(tuple, b.tolist())]
        ranked = [sets[i] for i in order]
    ties = np.flatnonzero(ordered[1:] == ordered[:-1])  # runs of equal magnitudes: by their sets
    if len(ties):
        starts = ties[np.concatenate([[True], ties[1:] != ties[:-1] + 1])]
        for start in starts:
            stop = start + 1
            while stop < len(ordered) and ordered[stop] == ordered[start]:
                stop += 1
            ranked[start:stop] = sorted(ranked[start:stop])
    return ranked


def rank_odd_terms(spectrum: dict[tuple[int, ...], float], max_size: int = 5,
                   limit: int | None = None) -> list[tuple[int, ...]]:
    """The odd sets of size 3..``max_size`` with a nonzero coefficient in ``spectrum``, largest first (with
    ``limit``: at least the first ``limit`` of them, the same ones)."""
    return rank_terms(spectrum, range(3, max_size + 1, 2), limit)


def ranked_odd_terms(kind, sample: KernelSample, values: np.ndarray, rng: np.random.Generator,
                     max_size: int = 5) -> tuple[list[tuple[int, ...]], float]:
    """The odd sets of size 3..``max_size`` with a nonzero coefficient in the exact Fourier spectrum of a tree
    surrogate fitted on the sample, largest first, and the seconds the surrogate took."""
    spectrum, seconds = surrogate_spectrum(kind, sample.coalitions, values, rng, tuple(range(3, max_size + 1, 2)))
    return rank_odd_terms(spectrum, max_size), seconds


def candidate_term_counts(n: int, budget: int, terms_ratio: float | str = "auto") -> list[int]:
    """Term counts of the odd regression (singletons included) to fit at ``budget``: ``ceil(terms_ratio *
    budget)``, or for ``"auto"`` those of the ratios ``AUTO_RATIOS``; at least ``n`` (the singletons)."""
    ratios = AUTO_RATIOS if terms_ratio == "auto" else (terms_ratio,)
    return sorted({max(n, int(np.ceil(r * budget))) for r in ratios})


@register("shapley", "odd")
def odd_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator, surrogate="auto",
                terms_ratio: float | str = "auto", max_size: int = 5, std_errors: bool = True) -> Attribution:
    """Shapley values by OddSHAP (module docstring); cost ``<= budget`` evaluations."""
    if terms_ratio != "auto" and not (isinstance(terms_ratio, (int, float)) and not isinstance(terms_ratio, bool)
                                      and 0 < terms_ratio <= 0.5):
        raise ValueError(f"terms_ratio: expected 'auto' or a number in (0, 0.5], got {terms_ratio!r}")
    kind = resolve_surrogate(surrogate)
    sample, values, used, budget = draw_leverage_sample(game, budget, rng, method="odd")
    n = game.n_players
    counts = candidate_term_counts(n, budget, terms_ratio)
    enumerated = sample.n_enumerated == len(sample.coalitions)
    info = {**sample_info(sample, budget), "surrogate": kind if isinstance(kind, str) or kind is None
            else type(kind).__name__, "terms_ratio": terms_ratio, "std_errors": bool(std_errors)}
    singletons: list[tuple[int, ...]] = [(i,) for i in range(n)]
    candidates = [singletons]
    seconds = 0.0
    if kind is not None and not enumerated and counts[-1] > n and n >= 3:
        ranked, seconds = ranked_odd_terms(kind, sample, values, rng, max_size)
        candidates = list({len(t): t for t in (singletons + ranked[:c - n] for c in counts)}.values())
    if len(candidates) == 1 and len(candidates[0]) == n:  # no interaction terms: Leverage SHAP (KernelSHAP solve)
        empty, full = values[0], values[1]
        solution = kernel_solve(sample, values[2:] - empty, np.array([full - empty]), std_errors=bool(std_errors))
        phi = solution.phi[:, 0]
        std = None if solution.std_errors is None else solution.std_errors[:, 0]
        terms = singletons
    elif len(candidates) == 1:
        terms = candidates[0]
        phi, std, _ = odd_regression(sample, values, terms, n, std_errors=bool(std_errors))
    else:  # the candidate with the smaller PRESS, on the same (sub)set of sampled pairs
        units = len(sample.counts)
        press_units = (np.arange(units) if units <= PRESS_UNITS
                       else np.sort(rng.choice(units, size=PRESS_UNITS, replace=False)))
        fits = [odd_regression(sample, values, t, n, std_errors=bool(std_errors), press_units=press_units)
                for t in candidates]
        info["press"] = {len(t): fit[3] for t, fit in zip(candidates, fits)}
        best = int(np.argmin([fit[3] for fit in fits]))
        terms, (phi, std) = candidates[best], fits[best][:2]
    info.update(n_terms=len(terms), n_interaction_terms=len(terms) - n, surrogate_seconds=seconds)
    return Attribution(phi, values[0], game.feature_names, used, "odd", std, info)
