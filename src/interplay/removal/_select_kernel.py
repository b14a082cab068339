"""The hybrid-row select compiled by numba (imported only when numba is installed; see :mod:`._compiled`)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def select_bits(ones, flip, back, out):  # pragma: no cover - compiled; tested through HybridRows
    """``out[c, j, i] = back[j, i] ^ (flip[j, i] & ones[c, i])`` on unsigned-integer views of the floats: one
    pass over the ``(k, m, d)`` cells (numpy needs two, each iterating rows of only ``d`` cells)."""
    k, d = ones.shape
    m = back.shape[0]
    for c in range(k):
        for j in range(m):
            for i in range(d):
                out[c, j, i] = back[j, i] ^ (flip[j, i] & ones[c, i])
