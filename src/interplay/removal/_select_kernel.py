"""The hybrid-row select compiled by numba (imported only when numba is installed; see :mod:`._compiled`)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def select_bits(mask, flip, back, out):  # pragma: no cover - compiled; tested through HybridRows
    """``out[c, j, i] = back[j, i] ^ (flip[j, i] & -mask[c, i])`` on unsigned-integer views of the floats, with
    ``mask`` the coalitions' bytes (0 or 1; ``-1`` is the all-ones word of ``out``'s width): one pass over the
    ``(k, m, d)`` cells (numpy needs two, each iterating rows of only ``d`` cells, and a third for the words of
    the mask)."""
    k, d = mask.shape
    m = back.shape[0]
    zero = out.dtype.type(0)
    for c in range(k):
        present = mask[c]
        for j in range(m):
            back_j, flip_j, row = back[j], flip[j], out[c, j]
            for i in range(d):
                row[i] = back_j[i] ^ (flip_j[i] & (zero - out.dtype.type(present[i])))
