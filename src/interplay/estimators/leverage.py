"""Leverage SHAP: KernelSHAP's regression on a leverage-score sample (Musco & Witter, ICLR 2025).

The estimate solves the same constrained weighted least squares as KernelSHAP (lecture, "Kernel SHAP"; exact
efficiency, Shapley kernel weights), on the sample of :mod:`interplay.estimators._leverage`: coalition sizes in
equal shares (their leverage), paired, without replacement, with Horvitz-Thompson weights. At ``budget >= 2**n``
every coalition is enumerated and the result is exact.

Standard errors: the stratified sandwich variance of :func:`~interplay.estimators._sampling.kernel_solve`
(``std_errors=False`` skips them).

Cost (coalition evaluations): ``v(empty)``, ``v(N)`` and ``2 * floor((budget - 2) / 2)`` coalitions: the whole
budget, up to one evaluation when ``budget`` is odd. Minimum budget ``2n`` (``n - 1`` pairs for ``n - 1`` free
unknowns). Default budget ``2048 + 2n``.
"""

from __future__ import annotations

import numpy as np

from ..games import Game
from ..results import Attribution, BivariateExplanation
from ._leverage import leverage_sample
from ._registry import register
from ._sampling import (KernelSample, bivariate_targets, kernel_solve, resolve_budget, sketch_info,
                        split_bivariate)
from .kernel import minimum_budget


def draw_leverage_sample(game: Game, budget: int | None, rng: np.random.Generator, *, method: str,
                         whole_singletons: bool = False) -> tuple[KernelSample, np.ndarray, int, int]:
    """The leverage sample for ``budget`` and its values; returns ``(sample, values, evaluations, budget)``
    (``whole_singletons``: every pair ``{i}``, ``N - {i}`` taken first, :func:`._leverage.allocate_pairs`).

    ``values[0]`` is ``v(empty)``, ``values[1]`` is ``v(N)``, ``values[2:]`` belong to ``sample.coalitions``.
    """
    n = game.n_players
    budget = resolve_budget(budget, n, minimum_budget(n), method)
    rows = min(budget, 2**n if n < 63 else budget) - 2
    sample = leverage_sample(n, rows, rng, whole_singletons=whole_singletons)
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    values = game(np.concatenate([ends, sample.coalitions]))
    return sample, values, 2 + len(sample.coalitions), budget


def sample_info(sample: KernelSample, budget: int) -> dict:
    """What ``info`` records about a leverage sample."""
    return {"budget": budget, "paired": True, "enumerated_sizes": sample.enumerated_sizes,
            "n_sampled_pairs": len(sample.counts)}


@register("shapley", "leverage")
def leverage_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator,
                     std_errors: bool = True) -> Attribution:
    """Shapley values by Leverage SHAP (module docstring); cost ``<= budget`` evaluations."""
    sample, values, used, budget = draw_leverage_sample(game, budget, rng, method="leverage")
    empty, full = values[0], values[1]
    solution = kernel_solve(sample, values[2:] - empty, np.array([full - empty]), std_errors=bool(std_errors))
    std = None if solution.std_errors is None else solution.std_errors[:, 0]
    info = {**sample_info(sample, budget), "std_errors": bool(std_errors), **sketch_info(solution)}
    return Attribution(solution.phi[:, 0], empty, game.feature_names, used, "leverage", std, info)


@register("bivariate", "leverage")
def leverage_bivariate(game: Game, *, budget: int | None = None, rng: np.random.Generator,
                       std_errors: bool = True) -> BivariateExplanation:
    """Bivariate Shapley matrix by Algorithm 2 of the Bivariate Shapley paper on the leverage sample: one
    projection for the ``n + 1`` targets ``v`` and ``u_i(S) = v(S) 1{i in S}`` (Eq. 5); cost ``<= budget``."""
    sample, values, used, budget = draw_leverage_sample(game, budget, rng, method="leverage")
    targets, totals = bivariate_targets(sample.coalitions, values)
    solution = kernel_solve(sample, targets, totals, std_errors=True if std_errors else 1, overwrite_targets=True)
    info = {**sample_info(sample, budget), "std_errors": bool(std_errors), **sketch_info(solution)}
    phi, std_phi, adjacency, std_adj = split_bivariate(solution.phi, solution.std_errors)
    univariate = Attribution(phi, values[0], game.feature_names, used, "leverage", std_phi, info)
    return BivariateExplanation(adjacency, univariate, game.feature_names, used, "leverage", std_adj, info)
