"""SHEAR: Shapley values from a few contributive cooperators per feature (SHEAR paper, Sec. 4).

Not efficient: the values need not add up to ``v(N) - v(empty)`` (README, "Not efficient").

For each feature ``i``:

1. Cross-contribution (Eq. 11): ``eta[i, j] = |x_i - xbar_i| |d2f/dx_i dx_j + d2f/dx_j dx_i| |x_j - xbar_j|``.
   Pass it as ``cross_contribution=`` (an ``(n, n)`` matrix, or a callable ``f(game) -> (n, n)``, e.g. from a
   PyTorch model's exact Hessian). Without it, the game's own second-order difference at the full coalition
   ``eta[i, j] = |v(N) - v(N-i) - v(N-j) + v(N-i-j)|`` is used: the finite-difference analogue of Eq. 11 (equal
   to it up to a factor 2 for a quadratic model); it costs ``n(n-1)/2 + n + 1`` evaluations, charged to the
   budget. ``info["cross_contribution"]`` says which was used; a matrix or callable with a ``source`` attribute
   (a string) is recorded under that name (:meth:`interplay.Explainer.shapley` names its autograd Hessians so).
2. Cooperators (Eq. 12): the ``K = floor(log2 N) - 1`` features (at most ``n - 1``) with the largest
   ``|eta[i, j]|`` (ties broken by the lower index), ``N`` = evaluations per feature.
3. Estimate (Eq. 14): the Shapley value of ``i`` in the game of ``i`` and its ``K`` cooperators,
   ``phi_i = 1/(K+1) sum_{S subset C_i} C(K, |S|)^{-1} [v(S + V_S + i) - v(S + V_S)]``, where every
   non-cooperator is present in ``V_S`` with probability 1/2 (``noncooperators="uniform"``, the default),
   ``V_S`` and ``V_{C_i \\ S}`` are complementary within the non-cooperators (antithetic pairs, Table 1) and
   the same ``V_S`` is used with and without ``i``
   (papers' README). The ``2**K`` subsets with and without ``i`` use ``2**(K+1) <= N`` evaluations.

``noncooperators="shapley"`` (an interplay option, not in the paper) draws, per antithetic pair, a presence
probability ``t ~ Beta(|S|+1, K-|S|+1)`` (the complement subset gets ``1 - t`` through the complementary mask):
in a uniformly random order, given which cooperators precede ``i``, ``i``'s relative arrival time has that law
and every non-cooperator precedes ``i`` independently with probability ``t``. This makes the estimate unbiased
for every game, at the price of some variance; the paper's ``"uniform"`` masks (probability 1/2) are exact for
interactions of order 2 but give non-cooperators' higher-order interactions Banzhaf-like weights (bias).
The default stays the paper's ``"uniform"`` (``method="shear"`` is the paper's estimator); ``"shapley"`` had the
lower error at every ``N`` on the paper's Adult benchmark (``benchmarks/results/shear_adult.md``).

With ``K = n - 1`` there is no non-cooperator and the estimate is the exact Shapley value; it is also exact when
every Moebius dividend that contains ``i`` lies inside ``C_i + i`` (e.g. a sparse quadratic model whose
interacting partners of ``i`` are all cooperators), and, when ``K >= 1``, for every game with interactions of
order at most 2 (each non-cooperator is present in exactly one mask of each equally weighted antithetic pair).
Otherwise the paper's estimate is biased (see ``noncooperators``); no standard error is reported.

Expectation of the paper's estimate (``"uniform"``): every mask, drawn or complementary, holds each
non-cooperator with probability 1/2, so Eq. 14 is unbiased for
``E[phi_i] = sum_{S subset C_i} w(S) 2^-d sum_{V subset D_i} [v(S + V + i) - v(S + V)]``, with ``w(S)`` the
weights of Eq. 14 and ``D_i`` the ``d = n - 1 - K`` non-cooperators: Shapley weights over the cooperators, a
uniform (Banzhaf) average over the rest. For a unanimity game on ``T`` containing ``i``, with ``c`` cooperators
and ``e`` non-cooperators in ``T``, that is ``2^-e / (c + 1)`` instead of Shapley's ``1 / (c + e + 1)``: equal
for ``e = 0`` and for ``(c, e) = (0, 1)``, too small otherwise. The bias does not shrink with more samples,
only with more cooperators. On the paper's Adult MLP it is about 60% of the paper-faithful error at N = 8 and
80% at N = 128 (``benchmarks/results/shear_adult.md``). The SHEAR authors' released code draws the
masks the same way (probability 1/2, complementary pairs, same mask with and without ``i``); it differs only
for ``K = 0`` (``N < 4``), where it keeps every non-cooperator present and interplay draws a random mask.

Cost: at most ``1 + n 2**(K+1)`` evaluations (``v(empty)`` is the baseline), plus ``n(n-1)/2 + n + 1`` when the
cross-contribution comes from the game; each distinct coalition is asked for once, and ``n_evaluations`` counts
those (coalitions shared by the finite differences and the masks, or drawn twice, are not paid twice).
``n_per_feature`` defaults to ``(budget - overhead) // n`` (64 when no budget is given).
"""

from __future__ import annotations

from math import comb

import numpy as np

from .._validation import check_choice, check_int
from ..games import Game, GameView, _packed_keys
from ..results import Attribution
from ._registry import register
from .banzhaf_sampling import evaluate_distinct

DEFAULT_PER_FEATURE = 64


class _Asked(GameView):
    """``game``, asked for each coalition once in a SHEAR run: one asked again (by two features' subsets, or by
    the second-order differences and a feature) is answered from this run's own values, so the game (even one
    without a cache) evaluates it once and the run counts it once (it was counted each time it was asked). A
    view: ``game``'s cache and counters."""

    def __init__(self, game: Game) -> None:
        super().__init__(game)
        self.memo: dict = {}

    def __call__(self, coalitions) -> np.ndarray:
        rows = np.asarray(coalitions, dtype=bool).reshape(-1, self.n_players)
        keys = _packed_keys(rows).tolist()
        new = [k for k, key in enumerate(keys) if key not in self.memo]
        if new:
            self.memo.update(zip([keys[k] for k in new], self._game(rows[new]).tolist()))
        return np.array([self.memo[key] for key in keys], dtype=float)


def second_order_cost(n: int) -> int:
    """Evaluations of :func:`second_order_differences`: ``v(N)``, ``v(N-i)`` and ``v(N-i-j)``."""
    return n * (n - 1) // 2 + n + 1


def second_order_differences(game: Game) -> tuple[np.ndarray, int]:
    """``D[i, j] = v(N) - v(N-i) - v(N-j) + v(N-i-j)`` (zero diagonal) and the evaluations it used."""
    n = game.n_players
    iu, ju = np.triu_indices(n, 1)
    rows = np.ones((1 + n + len(iu), n), dtype=bool)
    rows[1 + np.arange(n), np.arange(n)] = False
    rows[1 + n + np.arange(len(iu)), iu] = False
    rows[1 + n + np.arange(len(iu)), ju] = False
    values, used = evaluate_distinct(game, rows)
    full, single, pair = values[0], values[1:1 + n], values[1 + n:]
    D = np.zeros((n, n))
    D[iu, ju] = full - single[iu] - single[ju] + pair
    return D + D.T, used


def _cross_contribution(game: Game, cross_contribution) -> tuple[np.ndarray, int, str]:
    n = game.n_players
    if cross_contribution is None:
        D, used = second_order_differences(game)
        return np.abs(D), used, "second-order differences at the full coalition"
    source = str(getattr(cross_contribution, "source", "user callable" if callable(cross_contribution)
                         else "user matrix"))
    if callable(cross_contribution):
        cross_contribution = cross_contribution(game)
    try:
        eta = np.asarray(cross_contribution, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"cross_contribution: expected an ({n}, {n}) numeric matrix or a callable returning one, "
                        f"got {type(cross_contribution).__name__}") from None
    if eta.shape != (n, n):
        raise ValueError(f"cross_contribution: expected an ({n}, {n}) matrix (one row and column per player), "
                         f"got shape {eta.shape}")
    if not np.isfinite(eta).all():
        raise ValueError("cross_contribution: expected finite values, got NaN or inf")
    return np.abs(eta), 0, source


def select_cooperators(eta: np.ndarray, k: int) -> np.ndarray:
    """Eq. 12: per row ``i``, the ``k`` columns ``j != i`` with the largest ``eta[i, j]`` (ties: lower index).

    Scores are rounded to 10 significant digits of the largest one first, so that ties do not depend on
    floating-point noise (e.g. a model evaluated in other batch sizes).
    """
    scores = np.array(eta, dtype=float, copy=True)
    scale = np.abs(scores).max() if scores.size else 0.0
    if scale > 0:
        scores = np.round(scores / scale, 10)
    np.fill_diagonal(scores, -np.inf)
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


def cooperators_for(n_per_feature: int, n: int) -> int:
    """``K = floor(log2 N) - 1``, capped at ``n - 1`` (papers' README)."""
    return min(int(np.floor(np.log2(n_per_feature))) - 1, n - 1)


@register("shapley", "shear")
def shear_shapley(game: Game, *, budget: int | None = None, rng: np.random.Generator,
                  n_per_feature: int | None = None, cross_contribution=None, noncooperators: str = "uniform",
                  chunk_cells: int = 2**24) -> Attribution:
    """SHEAR estimate of the Shapley values (SHEAR paper, Eq. 11, 12, 14; module docstring for details)."""
    n = game.n_players
    check_choice(noncooperators, "noncooperators", ("uniform", "shapley"))
    overhead = 1 + (second_order_cost(n) if cross_contribution is None else 0)
    if n_per_feature is None:
        if budget is None:
            n_per_feature = DEFAULT_PER_FEATURE
        else:
            budget = check_int(budget, "budget", minimum=1)
            if budget < overhead + 2 * n:
                raise ValueError(
                    f"budget: method='shear' needs at least {overhead + 2 * n} evaluations for {n} players "
                    f"({overhead} for v(empty){' and the second-order differences' if overhead > 1 else ''}, "
                    f"2 per feature), got {budget}")
            n_per_feature = (budget - overhead) // n
    n_per_feature = check_int(n_per_feature, "n_per_feature", minimum=2)
    K = max(cooperators_for(n_per_feature, n), 0)
    n_sub = 2**K
    required = overhead + n * 2 * n_sub
    if budget is not None and required > budget:
        raise ValueError(f"budget: method='shear' with n_per_feature={n_per_feature} needs {required} evaluations "
                         f"for {n} players, got {budget}")

    asked = _Asked(game)
    eta, _, source = _cross_contribution(asked, cross_contribution)
    coop = select_cooperators(eta, K)                       # (n, K)
    bits = ((np.arange(n_sub)[:, None] >> np.arange(K)) & 1).astype(bool)   # (2^K, K): subset m of C_i
    sizes = bits.sum(axis=1)
    weights = 1.0 / ((K + 1) * np.array([comb(K, s) for s in sizes], dtype=float))
    n_free = max(n_sub // 2, 1)                             # subsets drawn freely; the rest are complements
    mirror = (n_sub - 1) - np.arange(n_sub)                 # complement of subset m within the cooperators

    empty_value, _ = evaluate_distinct(asked, np.zeros((1, n), dtype=bool))
    phi = np.zeros(n)
    step = max(1, chunk_cells // (2 * n_sub * n))
    for start in range(0, n, step):
        feats = np.arange(start, min(start + step, n))
        c = len(feats)
        uniforms = rng.random((c, n_free, n))
        if noncooperators == "uniform":
            draws = uniforms < 0.5
        else:   # presence probability t ~ Beta(|S|+1, K-|S|+1): the law of i's "arrival time" given S
            t = rng.beta(sizes[:n_free] + 1.0, K - sizes[:n_free] + 1.0, size=(c, n_free))
            draws = uniforms < t[:, :, None]
        if n_sub > 1:
            masks = np.empty((c, n_sub, n), dtype=bool)
            masks[:, :n_free] = draws
            masks[:, n_free:] = ~draws[:, mirror[n_free:]]
        else:
            masks = draws
        rows_f = np.arange(c)[:, None, None]
        rows_m = np.arange(n_sub)[None, :, None]
        masks[rows_f, rows_m, coop[feats][:, None, :]] = bits[None, :, :]
        masks[np.arange(c), :, feats] = False
        with_i = masks.copy()
        with_i[np.arange(c), :, feats] = True
        values, _ = evaluate_distinct(asked, np.concatenate([masks.reshape(-1, n), with_i.reshape(-1, n)]))
        diffs = (values[c * n_sub:] - values[:c * n_sub]).reshape(c, n_sub)
        phi[feats] = diffs @ weights
    info = {"budget": required if budget is None else budget, "n_per_feature": 2 * n_sub, "n_cooperators": K,
            "cooperators": coop, "cross_contribution": source, "noncooperators": noncooperators}
    return Attribution(phi, empty_value[0], game.feature_names, len(asked.memo), "shear", info=info)
