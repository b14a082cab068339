"""Coalitions as bit patterns: coalition index ``c`` in ``[0, 2**n)`` has player ``i`` iff bit ``i`` of ``c`` is set.

The subset transforms below run in ``n * 2**n`` array operations with the "reshape" trick: viewing a length
``2**n`` array as ``(2**(n-i-1), 2, 2**i)`` puts the coalitions without player ``i`` in ``[:, 0, :]`` and
their partners with player ``i`` in ``[:, 1, :]``.
"""

from __future__ import annotations

from math import comb

import numpy as np


def all_coalitions(n: int) -> np.ndarray:
    """The ``(2**n, n)`` boolean matrix of every coalition, row ``c`` being the bits of ``c``."""
    codes = np.arange(2**n, dtype=np.int64)
    return ((codes[:, None] >> np.arange(n, dtype=np.int64)) & 1).astype(bool)


def popcounts(n: int) -> np.ndarray:
    """Coalition sizes ``|c|`` for every ``c`` in ``[0, 2**n)``, as int64."""
    sizes = np.zeros(1, dtype=np.int64)
    for _ in range(n):
        sizes = np.concatenate([sizes, sizes + 1])
    return sizes


def split_by_player(values: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Views ``(without_i, with_i)`` of a length-``2**n`` array, paired coalition by coalition."""
    halves = values.reshape(-1, 2, 2**i)
    return halves[:, 0, :], halves[:, 1, :]


def moebius_transform(values: np.ndarray, n: int) -> np.ndarray:
    """Harsanyi dividends ``m(T) = sum_{L subset T} (-1)^{|T|-|L|} v(L)`` for every ``T`` (``n 2**n`` work)."""
    m = np.array(values, dtype=float, copy=True)
    for i in range(n):
        without, with_ = split_by_player(m, i)
        with_ -= without
    return m


def superset_sum(values: np.ndarray, n: int) -> np.ndarray:
    """``g(S) = sum_{T superset of S} values(T)`` for every ``S`` (``n 2**n`` work)."""
    g = np.array(values, dtype=float, copy=True)
    for i in range(n):
        without, with_ = split_by_player(g, i)
        without += with_
    return g


def members_of_size(n: int, size: int) -> np.ndarray:
    """The ``(C(n, size), size)`` int64 members of every subset of ``size`` players, in lexicographic order."""
    from itertools import chain, combinations

    count = comb(n, size)
    flat = np.fromiter(chain.from_iterable(combinations(range(n), size)), dtype=np.int64, count=count * size)
    return flat.reshape(count, size)


def masks_of_size(n: int, size: int) -> np.ndarray:
    """The ``(C(n, size), n)`` boolean matrix of every coalition of ``size`` players, in lexicographic order of
    their members. Above ``n / 2`` it is built from the complements (whose lexicographic order is the reverse),
    so coalitions of ``n - 1`` players cost ``n`` members, not ``n^2``. Cost ``O(C(n, size) n)``."""
    if 2 * size > n:
        return ~masks_of_size(n, n - size)[::-1]
    members = members_of_size(n, size)
    out = np.zeros((len(members), n), dtype=bool)
    np.put_along_axis(out, members, True, axis=1)
    return out


def subset_codes(n: int, size: int) -> np.ndarray:
    """Coalition indices of all subsets of ``size`` players, in lexicographic order of their members."""
    if size == 0:
        return np.zeros(1, dtype=np.int64)
    members = members_of_size(n, size)
    return (np.int64(1) << members).sum(axis=1)


def codes_to_tuples(codes: np.ndarray, n: int) -> list[tuple[int, ...]]:
    """Members of each coalition index, as sorted tuples."""
    bits = (codes[:, None] >> np.arange(n, dtype=np.int64)) & 1
    return [tuple(np.flatnonzero(row).tolist()) for row in bits]
