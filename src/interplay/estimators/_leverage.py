"""Coalition sample of Leverage SHAP: sizes in proportion to their leverage, paired, without replacement.

Musco & Witter (ICLR 2025, "Provably accurate Shapley value estimation via leverage score sampling") show that
the rows of KernelSHAP's regression (after the efficiency constraint is eliminated) have leverage scores
proportional to ``1 / C(n, |S|)``: every coalition *size* carries the same leverage mass. Sampling in proportion
to leverage, paired and without replacement, gives their error guarantee; the kernel distribution of shap's
KernelExplainer concentrates on the smallest and largest sizes instead.

Here the sizes are *stratified*: the number of coalitions drawn of each size is fixed in advance to its share of
the leverage mass (equal for every size), not left to chance, which can only lower the variance (each size is a
stratum). A pair ``{S, N - S}`` covers sizes ``g`` and ``n - g``, so pair group ``g < n/2`` gets one share and
the middle group ``g = n/2`` half a share. A group whose share exceeds the pairs it has is enumerated completely
and its excess shared among the others (water-filling), so a small game gets every small and large size
exactly. Within a sampled group, pairs are drawn uniformly without replacement; each then stands for
``pairs_in_group / pairs_drawn`` pairs (Horvitz-Thompson weight), so the regression's weighted sums are unbiased
for their full-enumeration values, whatever the sizes' share.

The sample is returned as a :class:`~interplay.estimators._sampling.KernelSample` with strata, so
:func:`~interplay.estimators._sampling.kernel_solve` solves it (one Cholesky factorisation for any number of
targets) and computes stratified standard errors.

Cost: ``2 + 2 * pairs`` evaluations (``v(empty)``, ``v(N)``, the pairs), i.e. the whole budget up to one
evaluation when ``budget`` is odd.
"""

from __future__ import annotations

from math import comb

import numpy as np

from .._bits import masks_of_size
from ..games import _packed_keys, unique_keys
from ._sampling import KernelSample, kernel_size_masses


def _group_pairs(n: int, g: int) -> int:
    """Number of pairs ``{S, N - S}`` with ``|S| = g`` (``g <= n/2``)."""
    return comb(n, g) // 2 if 2 * g == n else comb(n, g)


SINGLETON_PAIRS_UP_TO = 3  # up to this many sampled pairs per player, every pair {i}, N - {i} is taken first


def singleton_pairs_first(n: int, budget: int) -> bool:
    """Whether a sample of ``budget`` coalitions takes every pair ``{i}``, ``N - {i}`` first
    (:func:`allocate_pairs`' ``whole_singletons``): from ``n`` up to :data:`SINGLETON_PAIRS_UP_TO` (3) sampled
    pairs per player, budgets ``2n + 2`` to ``6n + 2``. OddGP's Shapley values and the ``gp`` Bivariate matrix
    use it alike, so the same seed gives them the same sample (:mod:`.bivariate_gp` says why it pays)."""
    pairs = (min(budget, 2**n if n < 63 else budget) - 2) // 2
    return n <= pairs <= SINGLETON_PAIRS_UP_TO * n


def allocate_pairs(n: int, n_pairs: int, whole_singletons: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Pairs drawn per group ``g = 1..n//2`` and whether the group is enumerated completely.

    Shares are 1 per group and 1/2 for the middle group (equal coalitions per size); groups whose share exceeds
    their pairs are enumerated and the rest re-shared (water-filling); largest remainders round the shares.
    ``whole_singletons``: group 1 (the pairs ``{i}``, ``N - {i}``) is enumerated first when the pairs allow it,
    the rest shared among the other groups as above.
    """
    groups = np.arange(1, n // 2 + 1)
    caps = np.array([min(_group_pairs(n, g), n_pairs + 1) for g in groups], dtype=np.int64)  # capped: no overflow
    share = np.where(2 * groups == n, 0.5, 1.0)
    full = np.zeros(len(groups), dtype=bool)
    left = n_pairs
    if whole_singletons and len(groups) and caps[0] <= n_pairs:
        full[0] = True
        left -= int(caps[0])
    while True:
        open_ = ~full
        if not open_.any():
            break
        quota = left * share[open_] / share[open_].sum()
        newly = np.flatnonzero(open_)[quota >= caps[open_]]
        if len(newly) == 0:
            break
        full[newly] = True
        left -= int(caps[newly].sum())
    counts = np.where(full, caps, 0)
    open_ = np.flatnonzero(~full)
    if len(open_) and left > 0:
        quota = left * share[open_] / share[open_].sum()
        base = np.floor(quota).astype(np.int64)
        extra = left - int(base.sum())
        order = np.argsort(-(quota - base), kind="stable")[:extra]
        base[order] += 1
        counts[open_] = np.minimum(base, caps[open_])
    return counts, full


def _all_pairs(n: int, g: int) -> np.ndarray:
    """Canonical members of every pair of group ``g``: all ``g``-subsets (for ``g = n/2``: those holding 0)."""
    if 2 * g == n:
        rest = masks_of_size(n - 1, g - 1)
        return np.concatenate([np.ones((len(rest), 1), dtype=bool), rest], axis=1)
    return masks_of_size(n, g)


def _random_pairs(n: int, g: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``k`` distinct canonical pair members of group ``g``, uniformly without replacement."""
    total = _group_pairs(n, g)
    if total <= 4 * k or total <= 2048:  # small group: list it, then choose
        rows = _all_pairs(n, g)
        return rows[np.sort(rng.choice(len(rows), size=k, replace=False))]
    found = np.zeros((0, n), dtype=bool)
    while len(found) < k:
        want = k - len(found)
        keys = rng.random((want + want // 4 + 8, n))
        if 2 * g == n:  # canonical member holds player 0
            keys[:, 0] = -1.0
        kth = np.partition(keys, g - 1, axis=1)[:, g - 1:g]
        draws = keys <= kth
        found = np.concatenate([found, draws])
        _, first, _ = unique_keys(_packed_keys(found))
        found = found[np.sort(first)]
    return found[:k]


def leverage_sample(n: int, n_rows: int, rng: np.random.Generator, *, whole_singletons: bool = False) -> KernelSample:
    """At most ``n_rows`` coalitions of sizes ``1..n-1``: ``n_rows // 2`` pairs allocated by :func:`allocate_pairs`.

    Rows: the enumerated groups first (each size's coalitions, weight = kernel mass of the size / its number of
    coalitions), then the canonical members of the sampled pairs and then their complements, each with weight
    ``kernel mass of its size / coalitions of that size drawn``. ``strata`` gives the group of each sampled pair
    and ``stratum_sizes`` the pairs each group has, for the stratified standard errors of ``kernel_solve``.
    """
    masses = kernel_size_masses(n)
    counts, full = allocate_pairs(n, n_rows // 2, whole_singletons)
    enumerated, enum_weights = [], []
    units, unit_weights, strata, populations = [], [], [], []
    for g_index, (k, is_full) in enumerate(zip(counts.tolist(), full.tolist())):
        g = g_index + 1
        if k == 0:
            continue
        middle = 2 * g == n
        if is_full:
            rows = _all_pairs(n, g)
            block = np.concatenate([rows, ~rows])
            enumerated.append(block)
            enum_weights.append(np.full(len(block), masses[g - 1] / comb(n, g)))
            continue
        rows = _random_pairs(n, g, k, rng)
        units.append(rows)
        # k pairs stand for all pairs of the group: each row of size g (or n - g) weighs mass / rows of that size
        unit_weights.append(np.full(k, masses[g - 1] / (2 * k if middle else k)))
        strata.append(np.full(k, len(populations)))
        populations.append(_group_pairs(n, g))
    empty = np.zeros((0, n), dtype=bool)
    enum_rows = np.concatenate(enumerated) if enumerated else empty
    unit_rows = np.concatenate(units) if units else empty
    weights_u = np.concatenate(unit_weights) if units else np.zeros(0)
    coalitions = np.concatenate([enum_rows, unit_rows, ~unit_rows])
    weights = np.concatenate([np.concatenate(enum_weights) if enumerated else np.zeros(0), weights_u, weights_u])
    n_units = len(unit_rows)
    enumerated_sizes = {s for g, f in zip(range(1, n // 2 + 1), full) if f for s in (g, n - g)}
    return KernelSample(
        coalitions, weights, len(enum_rows), np.tile(np.arange(n_units), 2), np.ones(n_units), n_units,
        float(weights_u.sum()), 2, tuple(sorted(enumerated_sizes)),
        strata=np.concatenate(strata) if units else np.zeros(0, np.int64),
        stratum_sizes=np.array(populations, dtype=float),
    )
