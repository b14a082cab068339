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
budget: the singletons first, then the largest odd interactions. The default ``"auto"`` takes
``min(0.2 B, max(0.1 B, 2n))`` terms for a budget of ``B``: the paper's ``eta = 10`` evaluations per term, but
never fewer than ``n`` interactions where five evaluations per term allow them. Measured at budgets 10n-80n on
five games of ``benchmarks/sota.py`` (boosting and a forest at 100 features, an MLP at 60, an image at 64, text
at 42; 5 seeds): a fixed ``0.1`` has no interactions at 10n and up to 3.7x the error of ``0.2`` there (boosting);
a fixed ``0.2`` has 1.03-1.3x the error of ``0.1`` at 20n-80n; the rule takes the better of the two at each.
At budgets below ``5 n`` it is Leverage SHAP.

Standard errors: stratified sandwich over the sampled pairs (as :func:`._sampling._stratified_std`), with the
degrees-of-freedom factor for the fitted terms; ``std_errors=False`` skips them.

Cost: the leverage sample, ``2 + 2 * floor((budget - 2) / 2)`` evaluations; the surrogate fit and its spectrum
cost no evaluations (their seconds are in ``info["surrogate_seconds"]``).
"""

from __future__ import annotations

import time

import numpy as np

from ..games import Game
from ..results import Attribution
from ._registry import register
from ._sampling import KernelSample, gram_solver, kernel_solve, stratified_variance
from ._surrogate import fit_surrogate, odd_spectrum, resolve_surrogate
from .leverage import draw_leverage_sample, sample_info


def _features(coalitions: np.ndarray, terms: list[tuple[int, ...]]) -> np.ndarray:
    """``chi_T(S)`` for every row ``S`` and term ``T``: ``(rows, terms)`` of +-1."""
    signs = np.where(coalitions, 1.0, -1.0)
    out = np.empty((len(coalitions), len(terms)))
    for t, T in enumerate(terms):
        out[:, t] = signs[:, T[0]] if len(T) == 1 else np.prod(signs[:, list(T)], axis=1)
    return out


def odd_regression(sample: KernelSample, values: np.ndarray, terms: list[tuple[int, ...]], n: int, *,
                   std_errors: bool = True) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """Constrained odd regression on a leverage sample; returns ``(phi, std_errors, coefficients)``.

    ``values`` are ``[v(empty), v(N), v(sample.coalitions)...]``. Sampled pairs enter as one row each: the pair
    ``(x, y1), (-x, y2)`` with weight ``w`` has the loss of ``(x, (y1 - y2) / 2)`` with weight ``2 w`` up to a
    constant.
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
    if not std_errors or first == len(sample.coalitions):
        return phi, (np.zeros(n) if std_errors else None), coef
    p = len(terms) - 1
    if units <= p:
        return phi, None, coef
    residual = reduced[first:] - design[first:] @ b
    # phi's influence of each unit: membership [G^-1 x_u; -sum(G^-1 x_u)] = (G^-1 M')' x_u with M' the membership
    # of the free coefficients minus that of the eliminated one (G symmetric): n p^2 + n p units work, not p^2 units
    reduced_membership = membership[:, :-1] - membership[:, -1:]
    influence = solve(reduced_membership.T).T @ design[first:].T           # (n, units)
    var = stratified_variance(sample.strata, sample.stratum_sizes, influence,
                              (weights[first:] * residual)[:, None])[:, 0]
    return phi, np.sqrt(var * units / (units - p)), coef


def number_of_terms(n: int, budget: int, terms_ratio: float | str = "auto") -> int:
    """Terms of the odd regression (singletons included) at ``budget``: ``ceil(terms_ratio * budget)``, or for
    ``"auto"`` ``min(ceil(0.2 budget), max(ceil(0.1 budget), 2 n))`` (module docstring)."""
    if terms_ratio == "auto":
        return min(int(np.ceil(0.2 * budget)), max(int(np.ceil(0.1 * budget)), 2 * n))
    return int(np.ceil(terms_ratio * budget))


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
    n_terms = number_of_terms(n, budget, terms_ratio)
    enumerated = sample.n_enumerated == len(sample.coalitions)
    info = {**sample_info(sample, budget), "surrogate": kind if isinstance(kind, str) or kind is None
            else type(kind).__name__, "terms_ratio": terms_ratio, "n_terms": n_terms,
            "std_errors": bool(std_errors)}
    terms: list[tuple[int, ...]] = [(i,) for i in range(n)]
    seconds = 0.0
    if kind is not None and not enumerated and n_terms > n and n >= 3:
        start = time.perf_counter()
        rows = np.concatenate([np.zeros((1, n), bool), np.ones((1, n), bool), sample.coalitions])
        ensemble = fit_surrogate(kind, rows, values, rng)
        spectrum = odd_spectrum(ensemble, tuple(range(3, max_size + 1, 2)))
        ranked = sorted(spectrum.items(), key=lambda kv: (-abs(kv[1]), kv[0]))
        terms += [T for T, c in ranked[:n_terms - n] if abs(c) > 0]
        seconds = time.perf_counter() - start
    info.update(n_interaction_terms=len(terms) - n, surrogate_seconds=seconds)
    if len(terms) == n:  # no interaction terms: Leverage SHAP, solved by the KernelSHAP routine
        empty, full = values[0], values[1]
        solution = kernel_solve(sample, values[2:] - empty, np.array([full - empty]), std_errors=bool(std_errors))
        phi = solution.phi[:, 0]
        std = None if solution.std_errors is None else solution.std_errors[:, 0]
    else:
        phi, std, _ = odd_regression(sample, values, terms, n, std_errors=bool(std_errors))
    return Attribution(phi, values[0], game.feature_names, used, "odd", std, info)
