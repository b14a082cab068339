"""Order-2 SII and BII from Gaussian-process fits of the game's odd and even parts (``method="gp"``).

A pair's SII or BII depends only on the even part ``(v(S) + v(N - S)) / 2`` of the game, a single player's only
on the odd part (:mod:`._walsh_gp`). In the Walsh basis (:mod:`.spectral`'s closed forms), with ``K = {a, b}``:

    BII_K = 4 a_K,          SII_K = 4 sum_{T >= K, |T| even} a_T / (|T| - 1),

and the singletons are the Banzhaf values ``2 a_i`` (BII) or the Shapley values (SII, OddGP of :mod:`.odd_gp`).
Both parts are fitted on one leverage sample of complementary pairs (:mod:`._leverage`): the odd part by OddGP,
the even part by the same model with even sets, the constant and the surrogate's largest even interactions
(pairs and sets of four) as fixed terms (none beyond the constant, or up to 0.1 or 0.2 of the budget, flat or
with finite prior variances, chosen by leave-one-pair-out error with ``gamma``, ``rho`` and the noise;
:func:`._walsh_gp.select`). The posterior mean's
pair indices have closed forms in the kernel sections ``k(., S_u)`` (``z = +-1`` the memberships of ``S_u``,
``w_T`` the prior weights of :mod:`._walsh_gp`):

- BII: ``4 w_ab z_a z_b``;
- SII: ``4 rho_a rho_b z_a z_b int_0^1 [prod_{k != a, b} (1 + t rho_k z_k) + prod_{k != a, b} (1 - t rho_k z_k)] / 2
  dt / prod_k (1 + rho_k)`` (``1 / (|U| + 1) = int_0^1 t^|U| dt``; Gauss-Legendre, exact);

and prior variances ``16 w_ab`` (BII) and ``16 q_a q_b sum_{m even} P_-ab(m) / (m + 1)^2`` (SII; ``q = rho / (1 +
rho)``, ``P_-ab`` the Poisson-binomial distribution of the other ``q_k``). Biased (regularised fits), exact at
full budget (exact enumeration).

Blend (``blend=True``, the default when a surrogate library is installed): the pairs are ``mu * gp + (1 - mu) *
tree``, ``tree`` the mean exact pair index of 5 tree surrogates each fitted on the sample without one fold of
complementary pairs (the estimate of shapiq's ProxySHAP, which reads one surrogate's exact index and spends no
evaluation on a correction), ``mu = 1 / (1 + q^4)`` with ``q`` the median over the folds of ``e_gp / e_tree``, ``e``
each model's weighted sum of squared out-of-fold errors of the even part on that fold (the lower median with an even
number of folds; :func:`tree_blend`; the GP alone with fewer than 4 pairs). The GP's out-of-fold errors come from
its chosen model refitted without the fold, with the fixed terms and relevance weights of the surrogate fitted
without it: the closed-form residuals of the fit on every pair (the weight's first version, ``e_tree^2 / (e_gp^2 +
e_tree^2)`` of the sums) kept the terms that a surrogate of every pair, the held-out fold included, had ranked, and
came out 2-3x smaller than honest ones, so the GP was weighted too much where the trees were better (0.7 where 0.35
was best on the 40-player Moebius game at 10n). Against that version, 20 seeds of the benchmark's five order-2 games
(16-40 players, SII and BII, 5n-40n): MSE 0.97 as a geometric mean over the 40 cells, 0.84-0.96 on the network and
the 40-player Moebius game at 5n-10n, at most 1.06 (boosting, 5n); the median keeps one fold whose refit goes astray
(on the boosting game at 10n, 50x the other folds' error) from handing the pairs to the trees. A heuristic weight
(the power chosen on those cells); the trees alone had 0.65-0.70 of the GP's error at 10n on the network but 1.3-7x
at 40n-80n. The singletons stay OddGP's (SII) or the odd part's (BII).

Standard errors: posterior standard deviations of the GP (model-based: 95% intervals covered 0.87 (BII) and 0.90
(SII) of the pairs on sparse games of 10 players at budget 150, 15 seeds, but only about half on unstructured
random games, whose spectrum the prior does not expect) while the pairs times the sampled pairs stay within
:data:`MAX_SE_CELLS` (else NaN, said in ``info``). The blend keeps them: on the network and Moebius games above
they covered the blend's errors as often as the GP's (6 seeds each at 10n and 80n: within 0.03, e.g. 0.78 and
0.75 for SII at 10n on the network, 0.93 and 0.93 at 80n on the Moebius game).

Cost: the leverage sample, ``2 + 2 * floor((budget - 2) / 2)`` evaluations (at most ``2**n``); one surrogate fit;
two model choices (on at most ``SELECT_UNITS`` pairs, ``2n + 3`` for the odd part from 124 players on: one
Cholesky factorisation per ``(gamma, rho, noise)`` tried; auto takes it up to 510
players for BII, 200 for SII) and two
Cholesky factorisations of the sampled pairs; the SII readout ``O(units n^3)`` over the Gauss-Legendre nodes. The
blend adds 5 surrogate fits with their spectra and exact pair readouts and 5 GP fits on four fifths of the pairs,
no evaluation (0.06 s of 0.18 s at 400 evaluations of 40 players, 0.22 s of 0.59 s at 1,600; the closed-form
residuals took 0.015 s and 0.07 s).
"""

from __future__ import annotations

import time

import numpy as np

from .._validation import check_choice, check_int
from ..games import Game
from ..results import Interactions
from ._registry import register
from ._sampling import resolve_budget
from ._surrogate import resolve_surrogate
from ._walsh_gp import (Part, budget_term_sets, design, feature_relevance, fit_choice, fit_part,
                        node_factors, player_decays, poisson_binomial, readout, signs, term_shares, walsh_kernel,
                        without_each)
from .exact import enumerated_interactions
from .kernel import minimum_budget
from .leverage import draw_leverage_sample, sample_info
from .odd import rank_terms, surrogate_spectrum
from .odd_gp import complementary_pairs, odd_gp_fit

INDICES = ("sii", "bii")
EVEN_RATIOS = (0.0, 0.1, 0.2)  # fixed even terms: the constant; + the surrogate's top even sets up to 0.1 / 0.2 budget
MAX_SE_CELLS = 4_000_000  # standard errors while pairs x sampled pairs stay within this
BLEND_FOLDS = 5  # folds of the blend's cross-fitting (tree_blend)
BLEND_POWER = 4  # the GP's weight 1 / (1 + q^BLEND_POWER), q the median fold ratio of the out-of-fold errors


def rank_even_terms(spectrum: dict, max_size: int = 4) -> list[tuple[int, ...]]:
    """The even sets of size 2..``max_size`` with a nonzero coefficient in ``spectrum``, largest first."""
    return rank_terms(spectrum, range(2, max_size + 1, 2))


def even_terms(budget: int, ranked: list, ratio: float | None) -> list:
    """The constant and the surrogate's first even interactions up to ``ratio * budget`` terms in all (none
    when ``ratio`` is None: too few pairs for even the constant)."""
    if ratio is None:
        return []
    return [()] + ranked[:max(0, int(np.ceil(ratio * budget)) - 1)]


def fit_even(S: np.ndarray, y: np.ndarray, w: np.ndarray, budget: int, spectrum: dict | None,
             rng: np.random.Generator) -> Part:
    """The model of the even part on complementary pairs (members ``S``, even parts ``y``, weights ``w``)."""
    ranked = rank_even_terms(spectrum) if spectrum is not None else []
    relevance = feature_relevance(spectrum, S.shape[1]) if spectrum is not None else None
    term_sets = budget_term_sets(budget, EVEN_RATIOS, lambda scaled, ratio: even_terms(scaled, ranked, ratio), 2)
    return fit_part(S, y, w, "even", term_sets, lambda key: even_terms(budget, ranked, key), relevance, rng,
                    term_shares(spectrum, range(2, S.shape[1] + 1, 2)))


def pair_index(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs ``a < b`` in the order of ``itertools.combinations``."""
    return np.triu_indices(n, 1)


def _sii_terms(S: np.ndarray, rho):
    """Per Gauss-Legendre node, the SII of each kernel section as ``sum left[u, a] right[u, b]`` (module
    docstring): ``4 (w P+ / 2) C+_a C+_b + 4 (w P- / 2) C-_a C-_b`` with ``C+- = rho z D+-`` (``rho_a z_a``, ``a``'s
    own factor divided out)."""
    Z = signs(S)
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (Z.shape[1],))
    for _, plus, minus, Dp, Dm in node_factors(S, rho):
        up, down = rho * Z * Dp, rho * Z * Dm
        yield [((4.0 * plus)[:, None] * up, up), ((4.0 * minus)[:, None] * down, down)]


def sii_pair_weights(S: np.ndarray, rho) -> np.ndarray:
    """``(units, pairs)``: SII of each pair ``a < b`` in the game ``k(., S_u)`` of the even kernel, by one batched
    product of the stacked factors of :func:`_sii_terms`."""
    a, b = pair_index(S.shape[1])
    terms = [pair for pairs in _sii_terms(S, rho) for pair in pairs]
    left = np.stack([lt for lt, _ in terms], axis=1)  # (units, terms, n)
    right = np.stack([rt for _, rt in terms], axis=1)
    return np.matmul(left.transpose(0, 2, 1), right)[:, a, b]


def sii_pair_values(S: np.ndarray, rho, alpha: np.ndarray) -> np.ndarray:
    """``sum_u alpha_u sii_pair_weights(S, rho)[u]`` without the ``(units, pairs)`` matrix: ``(n, n)``, symmetric,
    zero diagonal."""
    n = S.shape[1]
    out = np.zeros((n, n))
    for pairs in _sii_terms(S, rho):
        for left, right in pairs:
            out += (left * alpha[:, None]).T @ right
    np.fill_diagonal(out, 0.0)
    return out


def sii_prior_variance(rho) -> np.ndarray:
    """Prior variance of each pair's SII (``a < b``): ``16 q_a q_b sum_{m even} P_-ab(m) / (m + 1)^2``."""
    rho = np.asarray(rho, dtype=float)
    q = rho / (1.0 + rho)
    a, b = pair_index(len(q))
    others = without_each(without_each(poisson_binomial(q), q), q)  # (n, n, n - 1): without a, then b
    m = np.arange(others.shape[2])
    sums = others[a, b] @ np.where(m % 2 == 0, 1.0 / (m + 1.0) ** 2, 0.0)
    return 16.0 * q[a] * q[b] * sums


def _even_readout(index: str, S: np.ndarray, terms: list, decays: np.ndarray, std_errors: bool):
    """``(membership, G or None, prior or None)`` of the pairs' SII or BII (module docstring); ``G`` is built
    only for standard errors."""
    n = S.shape[1]
    a, b = pair_index(n)
    position = {(int(i), int(j)): p for p, (i, j) in enumerate(zip(a, b))}
    membership = np.zeros((len(terms), len(a)))
    for t, T in enumerate(terms):
        if index == "bii" and len(T) == 2:
            membership[t, position[T]] = 4.0
        elif index == "sii" and len(T) >= 2:
            for i in range(len(T)):
                for j in range(i + 1, len(T)):
                    membership[t, position[T[i], T[j]]] = 4.0 / (len(T) - 1)
    if not std_errors:
        return membership, None, None
    if index == "bii":
        w_pair = decays[a] * decays[b] / np.prod(1.0 + decays)
        Z = signs(S)
        return membership, 4.0 * w_pair * Z[:, a] * Z[:, b], 16.0 * w_pair
    return membership, sii_pair_weights(S, decays), sii_prior_variance(decays)


def _pair_values(index: str, S: np.ndarray, decays: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """The kernel part of the pairs' index, ``(pairs,)``, without the ``(units, pairs)`` weights."""
    a, b = pair_index(S.shape[1])
    if index == "bii":
        Z = signs(S)
        coef = (Z * alpha[:, None]).T @ Z * (np.outer(decays, decays) / np.prod(1.0 + decays))
        return 4.0 * coef[a, b]
    return sii_pair_values(S, decays, alpha)[a, b]


def tree_blend(index: str, kind, rows: np.ndarray, values: np.ndarray, S: np.ndarray, y: np.ndarray, w: np.ndarray,
               part: Part, budget: int, rng: np.random.Generator, folds: int = BLEND_FOLDS):
    """``(mu, tree pairs, info)`` of the blend ``mu * gp + (1 - mu) * tree`` (module docstring).

    ``tree``: the mean of the exact pair indices of ``folds`` surrogates, each fitted on the sample without one
    fold of complementary pairs (the read of shapiq's ProxySHAP, bagged). Each fold's out-of-fold errors of the
    even part (``y``, weighted sums of squares): the surrogate's from its predictions of the held-out coalitions,
    the GP's from the chosen model (term ratio, ``gamma``, ``rho``, noise) refitted without the fold, with the
    fixed terms and relevance weights of that fold's surrogate (:func:`_fold_gp_residuals`: nothing of the fold
    enters its prediction; the closed-form residuals of the fit on every pair kept the terms a surrogate of every
    pair had chosen, and came out 2-3x smaller). ``mu = blend_weight`` of the two per fold (:func:`blend_weight`).
    ``mu = 1`` (the GP alone, ``info["skipped"]`` says why) with fewer than 2 pairs per fold or when a fold's
    refit fails. No evaluations: ``folds`` surrogate fits, their spectra and exact pair readouts, and ``folds``
    GP fits on the other folds' pairs."""
    from ..games import _packed_keys
    from ._surrogate import fit_surrogate, fourier_spectrum, surrogate_indices, surrogate_values

    n = S.shape[1]
    folds = min(folds, len(S) // 2)
    info = {"folds": folds, "std_errors": "the GP's posterior deviations, before the blend: model-based, "
            "95% intervals covered 0.75-0.93 of the pairs on the benchmark's games and 0.86 on Adult (too narrow "
            "where the prior misses the game's spectrum)"}
    if folds < 2:
        return 1.0, None, {**info, "gp_weight": 1.0, "skipped": f"{len(S)} pairs: too few to cross-fit"}
    fold_of_pair = rng.permutation(len(S)) % folds
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    coalitions = np.concatenate([ends, rows])  # the rows of ``values``
    keys = _packed_keys(S)  # each coalition's pair: the member holding player 0 (as in S)
    order = np.argsort(keys)
    member = np.where(coalitions[:, :1], coalitions, ~coalitions)
    pair_of = order[np.minimum(np.searchsorted(keys[order], _packed_keys(member)), len(S) - 1)]
    if not np.array_equal(S[pair_of], member):
        raise RuntimeError("tree_blend: a sampled coalition's pair is not among the pairs")
    fold = fold_of_pair[pair_of]
    residuals = np.empty(len(coalitions))
    gp_residuals = np.empty(len(S))
    tree = np.zeros(n * (n - 1) // 2)
    a, b = pair_index(n)
    for k in range(folds):
        held = fold == k
        ensemble = fit_surrogate(kind, coalitions[~held], values[~held], rng)
        residuals[held] = values[held] - surrogate_values(ensemble, coalitions[held])
        exact = surrogate_indices(ensemble, n, pairs=True)
        tree += (exact.sii if index == "sii" else exact.bii)[a, b] / folds
        try:
            gp_residuals[fold_of_pair == k] = _fold_gp_residuals(part, S, y, w, budget, fourier_spectrum(ensemble),
                                                                 fold_of_pair != k)
        except np.linalg.LinAlgError:
            return 1.0, None, {**info, "gp_weight": 1.0, "skipped": f"fold {k}: the GP's refit failed"}
    even_residuals = np.zeros(len(S))
    np.add.at(even_residuals, pair_of, residuals / 2.0)  # both members of a pair are in its fold
    e_tree = np.array([np.sum((w * even_residuals**2)[fold_of_pair == k]) for k in range(folds)])
    e_gp = np.array([np.sum((w * gp_residuals**2)[fold_of_pair == k]) for k in range(folds)])
    mu = blend_weight(e_gp, e_tree)
    return mu, tree, {**info, "gp_weight": mu, "cv_error_gp": float(e_gp.sum()), "cv_error_tree": float(e_tree.sum()),
                      "fold_errors_gp": e_gp.tolist(), "fold_errors_tree": e_tree.tolist()}


def _fold_gp_residuals(part: Part, S: np.ndarray, y: np.ndarray, w: np.ndarray, budget: int, spectrum: dict,
                       kept: np.ndarray) -> np.ndarray:
    """``y`` minus the prediction of the even part's model refitted on the pairs ``kept``, for the other pairs:
    the chosen term ratio, ``gamma``, ``rho`` and noise (:func:`fit_even`'s choice on every pair), with the fixed
    terms and relevance weights of ``spectrum`` (a surrogate fitted without the held-out pairs)."""
    n = S.shape[1]
    choice = part.choice
    ranked = rank_even_terms(spectrum)
    decays = player_decays(choice.rho, choice.gamma, feature_relevance(spectrum, n), n)
    weights = term_shares(spectrum, range(2, n + 1, 2)) if choice.tau is not None else None
    terms, refit = fit_choice(S[kept], y[kept], w[kept], choice, lambda key: even_terms(budget, ranked, key),
                              decays, "even", weights)
    held = ~kept
    prediction = design(S[held], terms) @ refit.beta + walsh_kernel(S[held], S[kept], decays, "even") @ refit.alpha
    return y[held] - prediction


def blend_weight(e_gp, e_tree) -> float:
    """The GP's weight ``1 / (1 + q^BLEND_POWER)``, ``q`` the (lower) median over folds of ``e_gp / e_tree`` (each
    fold's out-of-fold errors; numbers: one fold): a fold whose refit goes astray (on the 30-feature boosting game
    at 10n, one fold's GP error was 50x the others') moves it little, also with 2-4 folds (tiny samples). A fold
    ratio is 0 where the GP's error is zero and infinite where only the trees' is; no squares of the errors are
    formed (no underflow)."""
    e_gp, e_tree = np.atleast_1d(np.asarray(e_gp, dtype=float)), np.atleast_1d(np.asarray(e_tree, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(e_gp == 0.0, 0.0, e_gp / e_tree)  # e_tree == 0 < e_gp: inf
    q = float(np.sort(ratios)[(len(ratios) - 1) // 2])  # the lower median: with 2-4 folds, not one fold's
    if q == 0.0:
        return 1.0
    if not np.isfinite(q):
        return 0.0
    return 1.0 / (1.0 + q**BLEND_POWER)


SAMPLINGS = ("auto", "sizes", "uniform")


def _sample(game: Game, budget: int, rng: np.random.Generator, sampling: str, whole_singletons: bool = False):
    """``(rows, values, S, y_odd, y_even, w, info)``: the sampled coalitions and ``[v(empty), v(N), v(rows)...]``,
    and each complementary pair once (as its member holding player 0, the grand pair first) with its odd and
    even parts and weight. ``"sizes"``: the leverage sample (sizes in equal shares, Horvitz-Thompson weights of
    the Shapley kernel's regression; ``whole_singletons``: every pair ``{i}``, ``N - {i}`` first); ``"uniform"``:
    uniform coalitions (BII's measure), equal weights."""
    n = game.n_players
    if sampling == "sizes":
        sample, values, _, budget = draw_leverage_sample(game, budget, rng, method="gp",
                                                         whole_singletons=whole_singletons)
        S, y_odd, y_even, w = complementary_pairs(game, sample, values, n)
        return sample.coalitions, values, S, y_odd, y_even, w, sample_info(sample, budget)
    from .spectral import draw_uniform_pairs

    rows = draw_uniform_pairs(n, 2 * ((min(budget, 2**n if n < 63 else budget) - 2) // 2), rng)
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    values = np.asarray(game(np.concatenate([ends, rows])), dtype=float)
    holds = rows[:, 0]
    S = np.concatenate([ends[1:], rows[holds]])
    first = np.concatenate([[values[1]], values[2:][holds]])
    second = np.concatenate([[values[0]], values[2:][~holds]])  # pairs are adjacent rows, each in one order
    info = {"budget": budget, "paired": True, "n_sampled_pairs": len(S) - 1}
    return rows, values, S, (first - second) / 2.0, (first + second) / 2.0, np.ones(len(S)), info


@register("interactions", "gp")
def gp_interactions(game: Game, *, index: str = "sii", order: int = 2, budget: int | None = None,
                    rng: np.random.Generator, surrogate="auto", sampling: str = "auto",
                    std_errors: bool = True, blend: bool = True) -> Interactions:
    """Order-1 and order-2 SII or BII by Gaussian-process fits of the odd and even parts (module docstring);
    cost ``min(budget, 2**n)`` evaluations (up to one less when the budget is odd). ``sampling``: ``"sizes"``
    (the leverage sample, the default for SII) or ``"uniform"`` (uniform coalitions, the default for BII).
    ``blend``: the pairs blended with the cross-fitted tree surrogates' exact values (module docstring;
    ``info["blend"]`` has the weight, both out-of-fold errors and the blend's ``seconds``)."""
    check_choice(index, "index", INDICES)
    check_choice(sampling, "sampling", SAMPLINGS)
    n = game.n_players
    order = check_int(order, "order", minimum=1, maximum=min(n, 2))
    budget = resolve_budget(budget, n, minimum_budget(n), "gp")
    if n < 63 and budget >= 2**n:
        return enumerated_interactions(game, index, order, budget, "gp", bool(std_errors))
    if sampling == "auto":
        sampling = "sizes" if index == "sii" else "uniform"
    kind = resolve_surrogate(surrogate)
    rows, values, S, y_odd, y_even, w, info = _sample(game, budget, rng, sampling)
    spectrum, seconds = surrogate_spectrum(kind, rows, values, rng) if kind is not None else (None, 0.0)
    single = "shapley" if index == "sii" else "banzhaf"
    out, odd_info = odd_gp_fit(S, y_odd, w, values[1] - values[0], budget, spectrum, rng,
                               std_errors=bool(std_errors), readouts=(single,))
    estimate = {(i,): float(v) for i, v in enumerate(out[single][0])}
    errors = None if not std_errors else {(i,): float(e) for i, e in enumerate(out[single][1])}
    info.update(sampling=sampling, surrogate=kind if isinstance(kind, str) or kind is None else type(kind).__name__,
                surrogate_seconds=seconds, odd=odd_info)
    if order == 2:
        part = fit_even(S, y_even, w, budget, spectrum, rng)
        terms, decays, fitted = part.terms, part.decays, part.fitted
        a, b = pair_index(n)
        with_errors = bool(std_errors) and len(S) * len(a) <= MAX_SE_CELLS
        membership, G, prior = _even_readout(index, S, terms, decays, with_errors)
        pairs = membership.T @ fitted.beta + _pair_values(index, S, decays, fitted.alpha)  # the same with or
        pair_errors = readout(fitted, membership, G, prior)[1] if with_errors else None  # without errors
        if blend and kind is not None:
            began = time.perf_counter()
            mu, tree, info["blend"] = tree_blend(index, kind, rows, values, S, y_even, w, part, budget, rng)
            info["blend"]["seconds"] = time.perf_counter() - began
            if mu < 1.0:
                pairs = mu * pairs + (1.0 - mu) * tree
        estimate.update({(int(i), int(j)): float(v) for i, j, v in zip(a, b, pairs)})
        if errors is not None:
            if pair_errors is None:
                info["std_errors"] = (f"pairs: not computed ({len(a)} pairs x {len(S)} sampled pairs exceed "
                                      f"{MAX_SE_CELLS:,})")
                errors.update({(int(i), int(j)): float("nan") for i, j in zip(a, b)})
            else:
                errors.update({(int(i), int(j)): float(e) for i, j, e in zip(a, b, pair_errors)})
        info["even"] = part.info()
    return Interactions(estimate, index, order, float(values[0]), game.feature_names, len(values), "gp", errors,
                        info)


gp_interactions.indices = INDICES
gp_interactions.choices = {"sampling": SAMPLINGS, "blend": (True, False)}
