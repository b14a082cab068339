"""Permutation sampling of Shapley values (Strumbelj & Kononenko 2014; lecture, "permutation sampling").

``phi_i = E_pi[v(Pre_i(pi) + i) - v(Pre_i(pi))]`` over uniformly random orderings ``pi``: every permutation gives
one marginal contribution of every player, from the values of its ``n + 1`` prefixes.

Antithetic variant (SHEAR paper App. G, "APS"; Lomeli et al. 2019): permutations come in pairs ``(pi, reverse
pi)``; the reverse's prefixes are the complements of ``pi``'s, which makes the two contributions negatively
correlated. The standard error uses the variance of the pair means.

Cost (coalition evaluations requested): ``v(empty)`` and ``v(N)`` once, plus the ``n - 1`` proper prefixes of each
permutation, i.e. ``2 + P (n - 1)`` for ``P`` permutations. With ``budget`` ``B`` the estimator uses
``P = floor((B - 2) / (n - 1))`` permutations (rounded down to an even number for antithetic sampling); the
remainder of the budget is left unused. Minimum budget: ``n + 1`` (``2n`` for antithetic). Default budget
``2048 + 2n``.
"""

from __future__ import annotations

import numpy as np

from ..games import Game
from ..results import Attribution
from ._registry import register
from ._sampling import (
    PermutationSample,
    draw_permutations,
    evaluate_permutations,
    finite_std_errors,
    permutation_cost,
    resolve_budget,
)


def n_permutations_for(budget: int | None, n: int, *, antithetic: bool, method: str) -> int:
    """Number of permutations a budget affords (checked against the minimum of one permutation or pair)."""
    per = 2 if antithetic else 1
    budget = resolve_budget(budget, n, permutation_cost(per, n), method)
    if n == 1:
        return per
    count = (budget - 2) // (n - 1)
    return count - count % per


def sample_permutations(game: Game, budget: int | None, rng: np.random.Generator, *, antithetic: bool,
                        method: str) -> PermutationSample:
    """Draw as many permutations as ``budget`` affords and evaluate all their prefixes in one game call."""
    n = game.n_players
    count = n_permutations_for(budget, n, antithetic=antithetic, method=method)
    return evaluate_permutations(game, draw_permutations(count, n, rng, antithetic=antithetic))


def sample_means(samples: np.ndarray, *, antithetic: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Mean over the first axis and its standard error (over pair means when ``antithetic``)."""
    if antithetic:
        samples = 0.5 * (samples[0::2] + samples[1::2])
    count = len(samples)
    return samples.mean(axis=0), finite_std_errors(samples.sum(axis=0), (samples**2).sum(axis=0), count)


def _permutation_shapley(game: Game, budget, rng, *, antithetic: bool, method: str) -> Attribution:
    sample = sample_permutations(game, budget, rng, antithetic=antithetic, method=method)
    values, std_errors = sample_means(sample.deltas, antithetic=antithetic)
    return Attribution(
        values, sample.empty, game.feature_names, sample.n_evaluations, method, std_errors,
        info={"budget": budget, "n_permutations": len(sample.deltas)},
    )


@register("shapley", "permutation")
def permutation_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator) -> Attribution:
    """Shapley values by permutation sampling; cost ``2 + P (n - 1)`` evaluations (module docstring)."""
    return _permutation_shapley(game, budget, rng, antithetic=False, method="permutation")


@register("shapley", "antithetic")
def antithetic_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator) -> Attribution:
    """Shapley values by antithetic permutation sampling (each permutation with its reverse); same cost."""
    return _permutation_shapley(game, budget, rng, antithetic=True, method="antithetic")
