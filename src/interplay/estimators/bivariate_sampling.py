"""Estimators of the Bivariate Shapley matrix (Bivariate Shapley paper, Eq. 5-6 and App. A, Alg. 1-2).

``u_i(S) = u(S)`` if ``i in S`` else ``0`` (Eq. 5); ``E2[j, i]`` is the Shapley value of ``j`` in ``u_i`` and
``adjacency[i, j] = E2[j, i]`` (importance of ``j`` when ``i`` is present; orientation of the papers' README).
For ``j != i``: ``E2[j, i] = sum_{S: i in S, j not in S} |S|!(n-|S|-1)!/n! (u(S+j) - u(S))`` (Eq. 6).

- ``method="permutation"`` (Alg. 1): ``adjacency[i, j] = E_pi[Delta_j(pi) 1{i precedes j in pi}]``; the same
  permutations give the univariate values, no extra evaluations (cost ``2 + P (n-1)``, see
  :mod:`interplay.estimators.permutation`). Unbiased; standard errors per entry from the running variance.
- ``method="kernel"`` (Alg. 2): one KernelSHAP sample; the weighted least-squares projection is computed once
  and applied to the targets ``y * 1{i in S}`` of every ``u_i`` (``u_i(empty) = 0``, ``u_i(N) = u(N)``), so the
  matrix costs exactly the evaluations of univariate KernelSHAP (:mod:`interplay.estimators.kernel`).
- ``method="general"``: Eq. 5 with any registered univariate Shapley method, run on each ``u_i`` (an
  :class:`~interplay.games.Game` that forwards coalitions containing ``i`` to the cached game).

``n_evaluations`` is the number of coalitions each method requested from the game (for ``"general"``: the
distinct ones, after its own cache); a cached game may answer some without calling its value function. ``info``
holds the resolved ``budget`` (``"general"``: ``None`` means no cap on the total, ``run_budget`` the resolved
budget of each run) and the method's options.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._validation import check_int
from ..games import Game
from ..results import Attribution, BivariateExplanation
from ._registry import available_methods, get_estimator, register
from ._sampling import (RunningMoments, bivariate_targets, default_budget, kernel_solve, sketch_info,
                        split_bivariate)
from .kernel import draw_kernel_sample
from .permutation import sample_means, sample_permutations

_CHUNK = 2**22  # entries of the (permutations, n, n) precedence tensor built at once


@register("bivariate", "permutation")
def permutation_bivariate(game: Game, *, budget: int | None = None, rng: np.random.Generator,
                          antithetic: bool = False) -> BivariateExplanation:
    """Bivariate Shapley matrix by permutation sampling (Alg. 1), univariate values from the same permutations.

    ``antithetic=True`` pairs each permutation with its reverse (standard errors over pair means; exactly 0 for
    an entry whose pair means never vary, see :mod:`interplay.estimators.permutation`).
    Cost: ``2 + P (n - 1)`` evaluations with ``P = floor((budget - 2) / (n - 1))`` permutations.
    """
    method = "permutation"
    sample = sample_permutations(game, budget, rng, antithetic=antithetic, method=method)
    n = game.n_players
    deltas, positions = sample.deltas, sample.positions
    groups = 2 if antithetic else 1  # antithetic: average within pairs first; the standard error uses pair means
    moments = RunningMoments((n, n))
    step = max(1, _CHUNK // (n * n * groups)) * groups
    for start in range(0, len(deltas), step):
        d = deltas[start:start + step]
        before = positions[start:start + step, :, None] < positions[start:start + step, None, :]  # [p, i, j]
        terms = before * d[:, None, :]  # Delta_j when i precedes j
        if antithetic:
            terms = 0.5 * (terms[0::2] + terms[1::2])
        moments.add(terms)
    adjacency = moments.mean
    std = moments.std_errors()
    values, uni_std = sample_means(deltas, antithetic=antithetic)
    info = {"budget": default_budget(n) if budget is None else budget, "n_permutations": len(deltas),
            "antithetic": antithetic}
    univariate = Attribution(values, sample.empty, game.feature_names, sample.n_evaluations, method, uni_std, info)
    if std is not None:
        np.fill_diagonal(std, 0.0)
    return BivariateExplanation(adjacency, univariate, game.feature_names, sample.n_evaluations, method, std, info)


@register("bivariate", "kernel")
def kernel_bivariate(game: Game, *, budget: int | None = None, rng: np.random.Generator,
                     paired: bool = True, std_errors: bool = True) -> BivariateExplanation:
    """Bivariate Shapley matrix by KernelSHAP (Alg. 2): one sample, one projection, ``n + 1`` targets.

    Target 0 is the game itself (univariate KernelSHAP, identical to ``ip.shapley(method="kernel")`` with the
    same seed); target ``1 + i`` is ``u_i`` (values ``v(S) 1{i in S}``, total ``v(N)``). Cost: that of univariate
    KernelSHAP (``<= budget``); equals the exact matrix when ``budget >= 2**n``. ``std_errors=False`` skips the
    matrix's standard errors (the univariate ones are always computed): about half the array work for large ``n``.
    """
    sample, values, used = draw_kernel_sample(game, budget, rng, paired=paired, method="kernel")
    targets, totals = bivariate_targets(sample.coalitions, values)
    solution = kernel_solve(sample, targets, totals, std_errors=True if std_errors else 1, overwrite_targets=True)
    resolved = default_budget(game.n_players) if budget is None else budget
    info = {"budget": resolved, "paired": paired, "enumerated_sizes": sample.enumerated_sizes,
            "n_sampled_units": len(sample.counts), "n_draws": sample.n_draws, "std_errors": std_errors,
            **sketch_info(solution)}
    phi, std_phi, adjacency, std_adj = split_bivariate(solution.phi, solution.std_errors)
    univariate = Attribution(phi, values[0], game.feature_names, used, "kernel", std_phi, info)
    return BivariateExplanation(adjacency, univariate, game.feature_names, used, "kernel", std_adj, info)


class _BudgetedGame:
    """Caches and counts the distinct coalitions sent to the user's game; refuses to go past ``budget``."""

    def __init__(self, game: Game, budget: int | None, univariate: str) -> None:
        self.game, self.budget, self.univariate = game, budget, univariate
        self.cached = Game(self._forward, game.n_players, game.feature_names)

    def _forward(self, coalitions: np.ndarray) -> np.ndarray:
        if self.budget is not None and self.cached.n_evaluations + len(coalitions) > self.budget:
            raise ValueError(
                f"budget: method='general' with univariate={self.univariate!r} needs more than budget={self.budget} "
                "distinct coalitions of the game (the method's samples depend on the conditioning game u_i); "
                "raise budget (at most n * run_budget are needed) or set run_budget lower"
            )
        return self.game(coalitions)

    def conditioned(self, i: int) -> Game:
        """The game ``u_i`` of Eq. 5, as an uncached Game over the cached game."""
        cached = self.cached

        def value_fn(coalitions: np.ndarray) -> np.ndarray:
            out = np.zeros(len(coalitions))
            present = coalitions[:, i]
            if present.any():
                out[present] = cached(coalitions[present])
            return out

        value_fn.__name__ = f"u_{i} (Eq. 5)"
        return Game(value_fn, cached.n_players, cached.feature_names, cache=False)


@register("bivariate", "general")
def general_bivariate(game: Game, *, budget: int | None = None, rng: np.random.Generator,
                      univariate: str = "permutation", run_budget: int | None = None,
                      common_random_numbers: bool = True, **options) -> BivariateExplanation:
    """Eq. 5 with any univariate Shapley method: row ``i`` of the adjacency is ``method(u_i)``.

    ``univariate`` names a registered Shapley method (``ip.available_methods("shapley")``); ``options`` go to
    it. Each run gets ``run_budget`` (default ``budget``) evaluations of its own game; the user's game sees only
    distinct coalitions (cached) and at most ``budget`` of them (error otherwise). With
    ``common_random_numbers`` (default) every run draws from the same state of ``rng`` (the univariate run
    advances ``rng`` itself, so a Generator passed twice gives different results), so methods whose
    samples do not depend on the game values (permutation, antithetic, kernel) ask every ``u_i`` for the
    coalitions of the univariate run, and the whole matrix costs what one univariate run costs (with
    ``univariate="kernel"`` the result equals ``method="kernel"`` for the same ``random_state``). The univariate
    values come from the same method on the game itself; ``std_errors[i]`` are those the method reports for
    ``u_i``.
    """
    if univariate not in available_methods("shapley"):
        raise ValueError(f"univariate: expected one of {available_methods('shapley')}, got {univariate!r}")
    estimator = get_estimator("shapley", univariate)
    run_budget = budget if run_budget is None else check_int(run_budget, "run_budget", minimum=1)
    n = game.n_players
    base = _BudgetedGame(game, budget, univariate)
    # common random numbers: every u_i draws from a copy of rng's current state, and the univariate run (on the
    # game itself) consumes rng, which advances it as the univariate method would (repeated calls differ)
    start = copy.deepcopy(rng) if common_random_numbers else None
    streams = None if common_random_numbers else rng.spawn(n + 1)

    def run(target: Game, k: int) -> Attribution:
        if streams is not None:
            generator = streams[k]
        else:
            generator = rng if k == 0 else copy.deepcopy(start)
        return estimator(target, budget=run_budget, rng=generator, **options)

    uni = run(base.cached, 0)
    rows = [run(base.conditioned(i), i + 1) for i in range(n)]
    adjacency = np.array([r.values for r in rows])
    std = None
    if all(r.std_errors is not None for r in rows):
        std = np.array([r.std_errors for r in rows])
        np.fill_diagonal(std, 0.0)
    used = base.cached.n_evaluations
    info = {"budget": budget, "univariate": univariate, "run_budget": uni.info.get("budget", run_budget),
            "common_random_numbers": common_random_numbers, **{k: _storable(v) for k, v in options.items()}}
    univariate_result = Attribution(uni.values, uni.baseline, game.feature_names, uni.n_evaluations, univariate,
                                    uni.std_errors, {**uni.info, **info})
    return BivariateExplanation(adjacency, univariate_result, game.feature_names, used, f"general:{univariate}",
                                std, info)


def _storable(value: Any) -> Any:
    """An option as ``info`` keeps it: numbers, strings and lists of them as they are; anything else (a networkx
    graph passed as ``graph=``) by a description, so the result saves as JSON."""
    plain = (str, int, float, bool, type(None))
    if isinstance(value, plain):
        return value
    if isinstance(value, (list, tuple)) and all(isinstance(v, plain) for v in value):
        return list(value)
    if hasattr(value, "number_of_nodes") and hasattr(value, "number_of_edges"):
        return f"{type(value).__name__} ({value.number_of_nodes()} nodes, {value.number_of_edges()} edges)"
    return type(value).__name__
