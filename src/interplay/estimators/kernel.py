"""KernelSHAP: Shapley values as a constrained weighted least squares (lecture, "Kernel SHAP"; Lundberg & Lee 2017).

``min_phi sum_S mu(S) (v(S) - v(empty) - sum_{i in S} phi_i)^2  s.t.  sum_i phi_i = v(N) - v(empty)``, with the
Shapley kernel ``mu(S) = (n-1) / (C(n,|S|) |S| (n-|S|))`` (Charnes et al. 1988). Over all ``2**n`` coalitions
the solution is the exact Shapley value; KernelSHAP solves it on a sample:

- size groups ``{s, n-s}`` are enumerated completely, smallest first, while the budget affords them (the rule of
  shap's ``KernelExplainer``); the remaining sizes are sampled from the kernel distribution;
- sampling is paired by default: each drawn coalition comes with its complement (Covert & Lee 2021, "KS-Pair");
- the efficiency constraint is exact (one unknown eliminated), no feature selection, no regularisation.

Standard errors: sandwich (delta-method) variance with the drawn pairs as i.i.d. units, with the
degrees-of-freedom factor ``sqrt(U / (U - (n - 1)))`` for ``U`` distinct sampled units (zero when everything was
enumerated; ``None`` when ``U <= n - 1``, where the sampled units are fitted exactly and no residual variance is
left, e.g. at the minimum budget), see :func:`interplay.estimators._sampling.kernel_solve`; with many sampled
units of many players the sandwich's sums over units come from a sign sketch (unbiased, within about 7%).

Cost (coalition evaluations requested): ``v(empty)``, ``v(N)`` and at most ``budget - 2`` coalitions of sizes
``1..n-1`` (pairs: an even number of sampled coalitions). Minimum budget ``2n`` (paired: ``n - 1`` pairs) or
``n + 1`` (unpaired): enough independent rows for the ``n - 1`` free unknowns (:func:`minimum_budget`).
Default budget ``2048 + 2n``. With ``budget >= 2**n`` every coalition is enumerated and the result is exact.
``n_evaluations`` is the number of coalitions the method requested from the game (a cached game may answer some
without calling its value function); ``info`` holds the resolved ``budget`` and ``paired``.
"""

from __future__ import annotations

import numpy as np

from ..games import Game
from ..results import Attribution
from ._registry import register
from ._sampling import KernelSample, default_budget, kernel_sample, kernel_solve, resolve_budget, sketch_info


def minimum_budget(n: int, *, paired: bool = True) -> int:
    """Smallest budget KernelSHAP accepts: empty + full + enough sampled rows for the ``n - 1`` free unknowns.

    Unpaired: ``n - 1`` coalitions, so ``n + 1``. Paired: a coalition and its complement give the same row of the
    reduced design up to sign (``x(N - S) = -x(S)``), so ``n - 1`` pairs are needed: ``2n``. Never more than
    ``2**n`` (everything enumerated).
    """
    if n == 1:
        return 2
    return min(2 * n if paired else n + 1, 2**n)


def draw_kernel_sample(game: Game, budget: int | None, rng: np.random.Generator, *, paired: bool,
                       method: str) -> tuple[KernelSample, np.ndarray, int]:
    """The coalition sample for ``budget`` and the game's values; returns ``(sample, values, evaluations)``.

    ``values[0]`` is ``v(empty)``, ``values[1]`` is ``v(N)``, ``values[2:]`` belong to ``sample.coalitions``.
    """
    n = game.n_players
    budget = resolve_budget(budget, n, minimum_budget(n, paired=paired), method)
    sample = kernel_sample(n, min(budget, 2**n if n < 63 else budget) - 2, rng, paired=paired)
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    values = game(np.concatenate([ends, sample.coalitions]))
    return sample, values, 2 + len(sample.coalitions)


@register("shapley", "kernel")
def kernel_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator,
                   paired: bool = True, std_errors: bool = True) -> Attribution:
    """KernelSHAP with exact efficiency constraint and paired sampling (module docstring; cost ``<= budget``)."""
    sample, values, used = draw_kernel_sample(game, budget, rng, paired=paired, method="kernel")
    empty, full = values[0], values[1]
    solution = kernel_solve(sample, values[2:] - empty, np.array([full - empty]), std_errors=bool(std_errors))
    std = None if solution.std_errors is None else solution.std_errors[:, 0]
    return Attribution(
        solution.phi[:, 0], empty, game.feature_names, used, "kernel", std,
        info={"budget": default_budget(game.n_players) if budget is None else budget, "paired": paired,
              "enumerated_sizes": sample.enumerated_sizes,
              "n_sampled_units": len(sample.counts), "n_draws": sample.n_draws, **sketch_info(solution)},
    )
