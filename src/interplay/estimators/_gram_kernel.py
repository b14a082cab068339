"""KernelSHAP's Gram matrix counted on bits, compiled by numba (imported only once numba is in use: see
:func:`interplay.removal._compiled.gram_kernel`)."""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic


@intrinsic
def _popcount(typingctx, word):  # pragma: no cover - compiled; tested through weighted_gram
    """The set bits of a 64-bit word (LLVM's ``ctpop``: one instruction where the processor has it)."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.uint64(types.uint64), codegen


@njit(cache=True, nogil=True)
def sign_pair_counts(membership, out):  # pragma: no cover - compiled; tested through weighted_gram
    """``out[i, j] = #{u: z_ui != z_u,n-1 and z_uj != z_u,n-1}`` for ``i, j < n - 1`` (both triangles), with
    ``z = membership`` (the coalitions' bytes, 0 or 1): the Gram matrix of KernelSHAP's reduced design
    ``x_u = z_u,<n - z_u,n``, whose entries ``-1, 0, 1`` multiply to 1 exactly where both differ from ``z_u,n``.

    Each column ``i`` becomes a bitset over the rows (64 rows a word, built a block of 64 rows at a time so that
    the block stays in cache), then each pair of columns is ``popcount(a & b)`` summed over the words: about
    ``rows n^2 / 128`` word operations where a float product makes ``rows n^2``."""
    rows, n = membership.shape
    last = n - 1
    words = (rows + 63) >> 6
    bits = np.zeros((last, words), dtype=np.uint64)
    block = np.zeros(last, dtype=np.uint64)
    for w in range(words):
        start = w << 6
        block[:] = 0
        for r in range(min(64, rows - start)):
            row = membership[start + r]
            anchor = row[last]
            shift = np.uint64(r)
            for i in range(last):
                block[i] |= np.uint64(row[i] ^ anchor) << shift
        for i in range(last):
            bits[i, w] = block[i]
    for i in range(last):
        a = bits[i]
        for j in range(i, last):
            b = bits[j]
            count = np.uint64(0)
            for w in range(words):
                count += _popcount(a[w] & b[w])
            out[i, j] = count
            out[j, i] = count
