"""Coalitions stratified by size for the regression estimators: complete sizes where affordable, the rest sampled
without replacement within each size, paired with complements, and Horvitz-Thompson weights.

The regression objectives are sums over all coalitions, ``L = sum_s mass(s) mean_{|S| = s} loss(S)``. Sampling
``c_s`` distinct coalitions of size ``s`` uniformly without replacement and weighting each by ``mass(s) / c_s``
(its Horvitz-Thompson weight: inclusion probability ``c_s / C(n, s)``) makes the weighted sample objective
unbiased for ``L``; a completely listed size gets ``mass(s) / C(n, s)``, so a sample that lists every size is the
objective itself (exact). Cost: exactly the number of rows asked for (every row is a distinct coalition).

Sizes come in groups ``{s, n - s}``; a sampled unit is a coalition and its complement (paired sampling, Covert &
Lee 2021), and an odd row left over is one extra unpaired coalition of the group's smaller size. Groups are listed
completely ("water-filling") while the rows left afford them at their share ``rows * p_g / sum p`` of the
allocation weights ``p``; the remaining rows are split between the remaining groups in proportion to ``p``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from .._bits import masks_of_size
from ..games import _packed_keys


@dataclass(frozen=True)
class StratifiedSample:
    """Distinct coalitions with Horvitz-Thompson weights.

    ``stratum[r]`` is the size group of row ``r`` (``-1`` when the group is listed completely), ``unit[r]`` the
    sampled unit (a coalition and its complement) it belongs to; ``fpc[g]`` is the finite-population factor
    ``1 - units sampled / units in group g``; ``listed_sizes`` the sizes enumerated completely.
    """

    coalitions: np.ndarray
    weights: np.ndarray
    stratum: np.ndarray
    unit: np.ndarray
    fpc: np.ndarray
    listed_sizes: tuple[int, ...]
    sampled_per_size: dict


def _all_of_size(n: int, s: int, first: bool = False) -> np.ndarray:
    """Every coalition of size ``s`` (only those holding player 0 when ``first``)."""
    if first:
        rest = masks_of_size(n - 1, s - 1)
        return np.concatenate([np.ones((len(rest), 1), dtype=bool), rest], axis=1)
    return masks_of_size(n, s)


def _distinct_of_size(n: int, s: int, m: int, rng: np.random.Generator, first: bool = False) -> np.ndarray:
    """``m`` distinct coalitions of size ``s``, uniformly without replacement (holding player 0 if ``first``)."""
    population = comb(n - 1, s - 1) if first else comb(n, s)
    if population <= 4 * m or population <= 4096:          # list the population and choose
        pool = _all_of_size(n, s, first)
        return pool[np.sort(rng.choice(len(pool), size=m, replace=False))]
    free, size = (n - 1, s - 1) if first else (n, s)
    found = np.zeros((0, free), dtype=bool)
    while len(found) < m:                                    # rejection: collisions are rare here
        keys = rng.random((2 * (m - len(found)) + 8, free))
        kth = np.sort(keys, axis=1)[:, size - 1:size] if size else np.full((len(keys), 1), -1.0)
        found = np.concatenate([found, keys <= kth])
        _, keep = np.unique(_packed_keys(found), return_index=True)
        found = found[np.sort(keep)]
    found = found[:m]
    return np.concatenate([np.ones((m, 1), dtype=bool), found], axis=1) if first else found


def _split(total: int, shares: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """Integers ``<= caps`` summing to ``min(total, caps.sum())``, proportional to ``shares`` (largest remainder)."""
    out = np.zeros(len(shares), dtype=np.int64)
    open_ = caps > 0
    left = min(total, int(caps.sum()))
    while left > 0 and open_.any():
        share = np.where(open_, shares, 0.0)
        ideal = left * share / share.sum()
        add = np.minimum(np.floor(ideal).astype(np.int64), caps - out)
        if add.sum() == 0:                                   # hand out single rows by largest remainder
            order = np.argsort(-(ideal - np.floor(ideal)) - 1e-9 * np.arange(len(ideal)), kind="stable")
            for g in order:
                if open_[g] and out[g] < caps[g] and left > 0:
                    out[g] += 1
                    left -= 1
        else:
            out += add
            left -= int(add.sum())
        open_ = out < caps
    return out


def stratified_sample(n: int, n_rows: int, mass: np.ndarray, allocation: np.ndarray, rng: np.random.Generator,
                      *, paired: bool = True) -> StratifiedSample:
    """``n_rows`` distinct coalitions (all of them if fewer exist) of the sizes with ``mass[s] > 0``.

    ``mass[s]`` (``s = 0..n``) is the objective's total weight on size ``s``; ``allocation[s]`` how rows are shared
    between sizes. Row weights are ``mass[s] / (rows of size s)`` (module docstring).
    """
    sizes = [s for s in range(n + 1) if mass[s] > 0]
    groups = sorted({tuple(sorted({s, n - s})) if paired else (s,) for s in sizes})
    groups = [tuple(s for s in g if mass[s] > 0) for g in groups]
    count = np.array([sum(comb(n, s) for s in g) for g in groups], dtype=float)
    share = np.array([sum(allocation[s] for s in g) for g in groups], dtype=float)
    listed = np.zeros(len(groups), dtype=bool)
    left = n_rows
    while not listed.all():                                  # water-filling: list groups their share affords
        rest = ~listed
        if count[rest].sum() <= left:
            fits = rest
        else:
            fits = rest & (left * share / max(share[rest].sum(), 1e-300) >= count * (1 - 1e-12))
        if not fits.any():
            break
        listed |= fits
        left -= int(count[fits].sum())
    rows, weights, stratum, unit, per_size = [], [], [], [], {}
    for g, group in enumerate(groups):
        if listed[g]:
            for s in group:
                block = _all_of_size(n, s)
                rows.append(block)
                weights.append(np.full(len(block), mass[s] / len(block)))
                stratum.append(np.full(len(block), -1))
                unit.append(np.full(len(block), -1))
    sampled = [g for g in range(len(groups)) if not listed[g]]
    fpc = np.ones(len(groups))
    if sampled and left > 0:
        # units per group: a pair when the group has two sizes or is self-complementary (s = n - s), else one row
        pairs = [paired and (len(groups[g]) == 2 or 2 * groups[g][0] == n) for g in sampled]
        width = np.array([2 if p else 1 for p in pairs])
        population = np.array([count[g] // w for g, w in zip(sampled, width)], dtype=np.int64)
        units = _split(left // 2 if paired else left, share[sampled], population)
        extra = left - int((units * width).sum())          # 0 or 1 row: an unpaired coalition
        next_unit = 0
        for slot, g in enumerate(sampled):
            group, m = groups[g], int(units[slot])
            single = int(extra > 0 and m < population[slot])   # one leftover row, as an unpaired coalition
            extra -= single
            if m + single == 0:
                continue
            self_pair = pairs[slot] and len(group) == 1
            first = _distinct_of_size(n, group[0], m + single, rng, first=self_pair)
            block = np.concatenate(([first[:m], ~first[:m]] if pairs[slot] else [first[:m]]) + [first[m:]])
            ids = np.concatenate([np.arange(m)] * int(width[slot]) + [np.arange(m, m + single)]) + next_unit
            next_unit += m + single
            size_of = block.sum(axis=1)
            for size in np.unique(size_of):
                per_size[int(size)] = int((size_of == size).sum())
            rows.append(block)
            weights.append(mass[size_of] / np.array([per_size[int(z)] for z in size_of], dtype=float))
            stratum.append(np.full(len(block), g))
            unit.append(ids)
            fpc[g] = max(1.0 - (m + single / width[slot]) / population[slot], 0.0)
    coalitions = np.concatenate(rows) if rows else np.zeros((0, n), dtype=bool)
    listed_sizes = tuple(s for g in range(len(groups)) if listed[g] for s in groups[g])
    return StratifiedSample(coalitions, np.concatenate(weights) if weights else np.zeros(0),
                            np.concatenate(stratum) if stratum else np.zeros(0, np.int64),
                            np.concatenate(unit) if unit else np.zeros(0, np.int64), fpc, listed_sizes, per_size)
