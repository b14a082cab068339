"""Compiled (numba) loops over tree nodes: prediction, interventional and path-dependent TreeSHAP.

Every kernel takes the node arrays of :class:`~interplay.trees.ensemble.TreeEnsemble` (``ensemble.arrays()``)
and loops over rows, background rows, trees and nodes inside compiled code. The derivations are in
:mod:`interplay.trees.interventional` and :mod:`interplay.trees.path_dependent`.

The kernels are compiled on their first call and cached on disk by numba (``cache=True``): about 8 s once, in a
fresh environment. :func:`announce_compilation`, called before a kernel, says so on stderr (once per process,
and only when the kernel's cache is cold), so that the pause is not a silent one.
"""

from __future__ import annotations

import os
import sys

import numpy as np
from numba import njit

# mode bits of the interventional kernel
SHAPLEY, PAIRS, BIVARIATE = 1, 2, 4


@njit(cache=True)
def _numeric_left(v, thr, d, m, dl):
    # scalars only: a helper taking arrays costs atomic reference counts per call (10-30x slower)
    if v != v:  # NaN
        if m != 1:
            return dl
        v = 0.0
    if m == 2 and abs(v) <= 1e-35:
        return dl
    if d == 1:
        return v < thr
    return v <= thr


@njit(cache=True)
def _category_left(i, v, dl, m, cat_bits, exact):
    if v != v:
        if m != 1:
            return dl
        v = 0.0
    unknown = True if m == 3 else dl  # XGBoost sends every category not listed (negative, unseen) left
    if v < 0.0:
        return unknown
    c = int(v)
    if exact and c != v:  # HistGradientBoosting: a non-integer is an unknown category
        return dl
    w = c >> 5
    if w >= cat_bits.shape[1]:
        return unknown
    return (cat_bits[i, w] >> np.uint32(c & 31)) & np.uint32(1) == np.uint32(1)


@njit(cache=True, inline="always")
def _goes_left(i, v, threshold, default_left, decision, missing, cat_bits):
    """Does value ``v`` go to the left child of node ``i``? (NaN, zero-as-missing and categories included.)"""
    d = decision[i]
    if d >= 2:
        return _category_left(i, v, default_left[i], missing[i], cat_bits, d == 3)
    return _numeric_left(v, threshold[i], d, missing[i], default_left[i])


@njit(cache=True)
def _directions(X, lo, hi, feature, threshold, default_left, decision, missing, cat_bits):
    """``out[r, k] = True`` iff row ``r`` goes left at node ``lo + k`` (internal nodes of one tree)."""
    out = np.zeros((X.shape[0], hi - lo), dtype=np.bool_)
    for r in range(X.shape[0]):
        for k in range(hi - lo):
            i = lo + k
            f = feature[i]
            if f >= 0:
                out[r, k] = _goes_left(i, X[r, f], threshold, default_left, decision, missing, cat_bits)
    return out


@njit(cache=True)
def predict_rows(X, feature, threshold, left, right, default_left, decision, missing, cat_bits, value, roots,
                 tree_output):
    """Sum over trees of the leaf value each row reaches: ``(N, n_outputs)``."""
    n_out = value.shape[1]
    out = np.zeros((X.shape[0], n_out))
    for r in range(X.shape[0]):
        for t in range(roots.shape[0]):
            i = roots[t]
            while feature[i] >= 0:
                if _goes_left(i, X[r, feature[i]], threshold, default_left, decision, missing, cat_bits):
                    i = left[i]
                else:
                    i = right[i]
            for k in range(n_out):
                out[r, k] += value[i, k]
    return out


@njit(cache=True)
def max_depth(feature, left, right, roots):
    """Largest number of internal nodes on a root-to-leaf path over all trees."""
    depth = np.zeros(feature.shape[0], dtype=np.int64)
    best = 0
    for t in range(roots.shape[0]):
        stack = [roots[t]]
        depth[roots[t]] = 0
        while len(stack) > 0:
            i = stack.pop()
            if feature[i] < 0:
                best = max(best, depth[i])
            else:
                depth[left[i]] = depth[i] + 1
                depth[right[i]] = depth[i] + 1
                stack.append(left[i])
                stack.append(right[i])
    return best


@njit(cache=True, inline="always")
def _popcount(w):
    w = w - ((w >> np.uint64(1)) & np.uint64(0x5555555555555555))
    w = (w & np.uint64(0x3333333333333333)) + ((w >> np.uint64(2)) & np.uint64(0x3333333333333333))
    w = (w + (w >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((w * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def _background_bits(BT, lo, hi, feature, threshold, default_left, decision, missing, cat_bits):
    """``bits[k]``: bitset of the background rows (columns of ``BT``) that go left at node ``lo + k``."""
    nb = BT.shape[1]
    nw = (nb + 63) // 64
    bits = np.zeros((hi - lo, nw), dtype=np.uint64)
    for k in range(hi - lo):
        i = lo + k
        f = feature[i]
        if f < 0:
            continue
        for b in range(nb):
            if _goes_left(i, BT[f, b], threshold, default_left, decision, missing, cat_bits):
                bits[k, b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    return bits


@njit(cache=True)
def interventional(X, B, feature, threshold, left, right, default_left, decision, missing, cat_bits, value,
                   roots, tree_output, cols, signs, mode, W, pow2, depth):
    """Interventional TreeSHAP (with background data) and its closed-form pair indices.

    For every row ``x`` of ``X``, background row ``b`` of ``B`` and tree, walk the nodes the hybrid rows
    ``(x_S, b_{-S})`` can reach: where ``x`` and ``b`` go the same way there is one child; where they part on a
    feature not yet decided, the ``x`` child puts the feature in ``P`` (must be present) and the ``b`` child in
    ``N`` (must be absent). Each reached leaf with value ``v`` adds the closed forms of the game
    ``v * 1[P subset S, N cap S empty] / |B|`` (see :mod:`interplay.trees.interventional`).

    All background rows walk together, as a bitset (64 rows per machine word): rows in the same node with the
    same ``(P, N)`` form one group, split only where they part, and a leaf's closed forms are added once per
    group, weighted by its size. So the cost per node is ``|B| / 64`` words, not ``|B|`` walks.

    Returns ``phi (N, d)``, ``beta (N, d)`` (Banzhaf), and for ``mode & PAIRS``/``BIVARIATE`` (one row) the
    pairwise SII, BII and bivariate ``(d, d)`` accumulators ``sii, bii, adj_corr`` and ``adj_base (d,)``.
    """
    n_rows = X.shape[0]
    d = X.shape[1]
    nb = B.shape[0]
    nw = (nb + 63) // 64
    BT = np.ascontiguousarray(B.T)
    phi = np.zeros((n_rows, d))
    beta = np.zeros((n_rows, d))
    pd = d if (mode & (PAIRS | BIVARIATE)) else 1
    sii = np.zeros((pd, pd))
    bii = np.zeros((pd, pd))
    adj_corr = np.zeros((pd, pd))
    adj_base = np.zeros(pd)
    state = np.zeros(d, dtype=np.int8)  # 0 free, 1 in P, -1 in N
    size = 3 * depth + 6
    s_node = np.empty(size, dtype=np.int64)
    s_depth = np.empty(size, dtype=np.int64)
    s_feat = np.empty(size, dtype=np.int64)
    s_new = np.empty(size, dtype=np.int8)
    s_group = np.zeros((size, nw), dtype=np.uint64)
    group = np.zeros(nw, dtype=np.uint64)
    full = np.zeros(nw, dtype=np.uint64)
    for b in range(nb):
        full[b >> 6] |= np.uint64(1) << np.uint64(b & 63)
    m_feat = np.empty(depth + 2, dtype=np.int64)
    m_new = np.empty(depth + 2, dtype=np.int8)
    r_feat = np.empty(depth + 2, dtype=np.int64)
    r_sign = np.empty(depth + 2, dtype=np.int8)
    inv_nb = 1.0 / nb
    n_trees = roots.shape[0]
    for t in range(n_trees):
        lo = roots[t]
        hi = roots[t + 1] if t + 1 < n_trees else feature.shape[0]
        xdir = _directions(X, lo, hi, feature, threshold, default_left, decision, missing, cat_bits)
        bl = _background_bits(BT, lo, hi, feature, threshold, default_left, decision, missing, cat_bits)
        for r in range(n_rows):
            col = cols[r]
            if tree_output[t] >= 0 and tree_output[t] != col:
                continue
            scale = signs[r] * inv_nb
            top = 0
            s_node[0] = lo
            s_depth[0] = 0
            s_feat[0] = -1
            s_new[0] = 0
            s_group[0, :] = full
            cur = 0
            while top >= 0:
                node = s_node[top]
                dep = s_depth[top]
                f_mod = s_feat[top]
                new = s_new[top]
                for w in range(nw):
                    group[w] = s_group[top, w]
                top -= 1
                while cur > dep:  # backtrack: undo the choices made below this depth
                    cur -= 1
                    if m_feat[cur] >= 0:
                        state[m_feat[cur]] = 0
                m_feat[dep] = f_mod
                m_new[dep] = new
                if f_mod >= 0:
                    state[f_mod] = new
                cur = dep + 1
                f = feature[node]
                if f >= 0:
                    k = node - lo
                    dx = xdir[r, k]
                    xchild = left[node] if dx else right[node]
                    st = state[f]
                    if st == 1:  # f must be x's: the whole group follows x
                        top += 1
                        s_node[top] = xchild
                        s_depth[top] = dep + 1
                        s_feat[top] = -1
                        s_new[top] = 0
                        for w in range(nw):
                            s_group[top, w] = group[w]
                        continue
                    if st == -1:  # f must be b's: the group splits by b's direction
                        for side in range(2):
                            any_row = False
                            for w in range(nw):
                                g = group[w] & bl[k, w] if side == 0 else group[w] & ~bl[k, w]
                                s_group[top + 1, w] = g
                                if g != 0:
                                    any_row = True
                            if any_row:
                                top += 1
                                s_node[top] = left[node] if side == 0 else right[node]
                                s_depth[top] = dep + 1
                                s_feat[top] = -1
                                s_new[top] = 0
                        continue
                    # undecided: rows agreeing with x follow it; the others branch into P (x) and N (b)
                    any_agree = False
                    any_part = False
                    for w in range(nw):
                        agree = group[w] & bl[k, w] if dx else group[w] & ~bl[k, w]
                        part = group[w] & ~agree
                        s_group[top + 1, w] = part
                        s_group[top + 2, w] = part
                        s_group[top + 3, w] = agree
                        if agree != 0:
                            any_agree = True
                        if part != 0:
                            any_part = True
                    if any_part:
                        top += 1
                        s_node[top] = right[node] if dx else left[node]
                        s_depth[top] = dep + 1
                        s_feat[top] = f
                        s_new[top] = -1
                        top += 1
                        s_node[top] = xchild
                        s_depth[top] = dep + 1
                        s_feat[top] = f
                        s_new[top] = 1
                    if any_agree:
                        top += 1
                        if not any_part:
                            for w in range(nw):
                                s_group[top, w] = group[w]
                        s_node[top] = xchild
                        s_depth[top] = dep + 1
                        s_feat[top] = -1
                        s_new[top] = 0
                    continue
                # leaf: the game v * 1[P subset S] * 1[N cap S empty], once per group of background rows
                v = value[node, col]
                if v == 0.0:
                    continue
                count = 0
                for w in range(nw):
                    count += _popcount(group[w])
                v *= scale * count
                p = 0
                q = 0
                nr = 0
                for k in range(cur):
                    if m_feat[k] >= 0:
                        r_feat[nr] = m_feat[k]
                        r_sign[nr] = m_new[k]
                        nr += 1
                        if m_new[k] == 1:
                            p += 1
                        else:
                            q += 1
                if nr == 0:
                    continue
                wp = v * W[p - 1, q] if p > 0 else 0.0
                wn = v * W[p, q - 1] if q > 0 else 0.0
                for k in range(nr):
                    if r_sign[k] == 1:
                        phi[r, r_feat[k]] += wp
                        beta[r, r_feat[k]] += v * pow2[nr - 1]
                    else:
                        phi[r, r_feat[k]] -= wn
                        beta[r, r_feat[k]] -= v * pow2[nr - 1]
                if mode & PAIRS:
                    for a in range(nr):
                        for c in range(a + 1, nr):
                            pa = p - (r_sign[a] == 1) - (r_sign[c] == 1)
                            qa = q - (r_sign[a] == -1) - (r_sign[c] == -1)
                            sgn = v * r_sign[a] * r_sign[c]
                            i = r_feat[a]
                            j = r_feat[c]
                            sii[i, j] += sgn * W[pa, qa]
                            bii[i, j] += sgn * pow2[nr - 2]
                if mode & BIVARIATE:
                    for c in range(nr):
                        j = r_feat[c]
                        pa = p - (r_sign[c] == 1)
                        qa = q - (r_sign[c] == -1)
                        phij = r_sign[c] * v * W[pa, qa]
                        basej = r_sign[c] * v * W[pa + 1, qa]
                        adj_base[j] += basej
                        for a in range(nr):
                            i = r_feat[a]
                            if a != c and r_sign[a] == 1:
                                adj_corr[i, j] += phij - basej
                            else:
                                adj_corr[i, j] -= basej
            while cur > 0:  # reset the feature states for the next row
                cur -= 1
                if m_feat[cur] >= 0:
                    state[m_feat[cur]] = 0
    return phi, beta, sii, bii, adj_base, adj_corr


@njit(cache=True)
def _shapley_weights(size):
    """``w[m, s] = s! (m-1-s)! / m!`` for ``m < size`` (Shapley weights of a coalition of ``s`` of ``m - 1``)."""
    wts = np.zeros((size, size))
    for m in range(1, size):
        for s in range(m):
            lw = 0.0
            for k in range(1, s + 1):
                lw += np.log(k)
            for k in range(1, m - s):
                lw += np.log(k)
            for k in range(1, m + 1):
                lw -= np.log(k)
            wts[m, s] = np.exp(lw)
    return wts


@njit(cache=True)
def _leaf_paths(lo, feature, left, right, paths, depths, s_node, s_depth):
    """Every leaf of the tree rooted at ``lo``, depth first: ``paths[l, :depths[l] + 1]`` its nodes from the root;
    returns the number of leaves. Computed once per tree, shared by every row."""
    n_leaves = 0
    top = 0
    s_node[0] = lo
    s_depth[0] = 0
    path = paths[0]
    while top >= 0:
        node = s_node[top]
        dep = s_depth[top]
        top -= 1
        path[dep] = node
        if feature[node] >= 0:
            top += 1
            s_node[top] = left[node]
            s_depth[top] = dep + 1
            top += 1
            s_node[top] = right[node]
            s_depth[top] = dep + 1
            continue
        paths[n_leaves, : dep + 1] = path[: dep + 1]
        depths[n_leaves] = dep
        n_leaves += 1
        path = paths[n_leaves] if n_leaves < paths.shape[0] else path
        path[: dep] = paths[n_leaves - 1, : dep]
    return n_leaves


@njit(cache=True, inline="always")
def _path_features(path, dep, feature, left, ratio, xdir_row, lo, seen, zf, of, r_feat):
    """The distinct features on the path ``path[:dep + 1]`` to a leaf, into ``r_feat[:m]`` (returns ``m``), with
    ``zf[k]`` the product of their cover ratios and ``of[k]`` 1 iff the row follows the path at all of ``k``'s
    nodes (:func:`path_dependent`); marks them in ``seen`` (the caller clears it)."""
    m = 0
    for k in range(dep):
        par = path[k]
        child = path[k + 1]
        f = feature[par]
        if not seen[f]:
            seen[f] = True
            zf[f] = 1.0
            of[f] = 1.0
            r_feat[m] = f
            m += 1
        zf[f] *= ratio[child]
        if xdir_row[par - lo] != (child == left[par]):
            of[f] = 0.0
    return m


@njit(cache=True)
def path_dependent(X, feature, threshold, left, right, default_left, decision, missing, cat_bits, value,
                   roots, tree_output, ratio, cols, signs, depth):
    """Path-dependent TreeSHAP (Lundberg et al. 2020, Alg. 2), computed leaf by leaf.

    For a leaf with value ``v``, each distinct feature ``k`` on its path has ``o_k`` (1 iff ``x`` follows the
    path at all of ``k``'s nodes) and ``z_k`` (product of the cover ratios child/parent at those nodes,
    ``ratio[child]``); the leaf's game is ``v * prod_k (o_k if k in S else z_k)``. Its Shapley value for ``i``
    is ``v (o_i - z_i) sum_s q_s s! (m-1-s)! / m!`` where ``q`` are the coefficients of
    ``prod_{k != i} (z_k + o_k t)`` (the polynomial form of EXTEND/UNWIND). Features with ``o_k = 0`` only scale
    the polynomial, and all get the same value ``-v sum_s c_s s! (m-1-s)! / m!``; only features with ``o_k = 1``
    need a division by ``(z_k + t)``. Cost ``O(leaves * depth^2)`` per row and tree at most.
    Returns ``phi (N, d)`` and the expected values ``(N,)``.
    """
    n_rows = X.shape[0]
    d = X.shape[1]
    phi = np.zeros((n_rows, d))
    expected = np.zeros(n_rows)
    size = 2 * depth + 4
    s_node = np.empty(size, dtype=np.int64)
    s_depth = np.empty(size, dtype=np.int64)
    paths = np.empty((feature.shape[0], depth + 2), dtype=np.int64)  # per leaf of a tree: its root-to-leaf nodes
    depths = np.empty(feature.shape[0], dtype=np.int64)
    zf = np.ones(d)
    of = np.ones(d)
    seen = np.zeros(d, dtype=np.bool_)
    r_feat = np.empty(depth + 2, dtype=np.int64)
    poly = np.zeros(depth + 3)
    wts = _shapley_weights(depth + 3)
    n_trees = roots.shape[0]
    for t in range(n_trees):
        lo = roots[t]
        hi = roots[t + 1] if t + 1 < n_trees else feature.shape[0]
        xdir = _directions(X, lo, hi, feature, threshold, default_left, decision, missing, cat_bits)
        n_leaves = _leaf_paths(lo, feature, left, right, paths, depths, s_node, s_depth)
        for r in range(n_rows):
            col = cols[r]
            if tree_output[t] >= 0 and tree_output[t] != col:
                continue
            sign = signs[r]
            for leaf in range(n_leaves):
                path = paths[leaf]
                dep = depths[leaf]
                v = value[path[dep], col] * sign
                if v == 0.0:
                    continue
                m = _path_features(path, dep, feature, left, ratio, xdir[r], lo, seen, zf, of, r_feat)
                # prod over o=0 features of z (a scale), polynomial prod over o=1 features of (z + t)
                scale = 1.0
                ev = v
                deg = 0
                poly[0] = 1.0
                for a in range(m):
                    f = r_feat[a]
                    z = zf[f]
                    ev *= z
                    if of[f] == 0.0:
                        scale *= z
                    else:
                        deg += 1
                        poly[deg] = 0.0
                        for s in range(deg, 0, -1):
                            poly[s] = poly[s] * z + poly[s - 1]
                        poly[0] *= z
                expected[r] += ev
                if scale != 0.0:
                    total0 = 0.0
                    for s in range(deg + 1):
                        total0 += poly[s] * wts[m, s]
                    for a in range(m):
                        f = r_feat[a]
                        if of[f] == 0.0:
                            phi[r, f] -= v * scale * total0
                        else:
                            z = zf[f]
                            q = poly[deg]  # synthetic division by (z + t), from the top
                            total = q * wts[m, deg - 1]
                            for s in range(deg - 1, 0, -1):
                                q = poly[s] - z * q
                                total += q * wts[m, s - 1]
                            phi[r, f] += v * scale * (1.0 - z) * total
                for a in range(m):
                    seen[r_feat[a]] = False
    return phi, expected


@njit(cache=True)
def path_dependent_pairs(X, feature, threshold, left, right, default_left, decision, missing, cat_bits, value,
                         roots, tree_output, ratio, cols, signs, depth):
    """Shapley interaction index of every pair in the path-dependent game (Lundberg et al. 2020, "SHAP
    interaction values": ``Phi_ij = SII_ij / 2``), computed leaf by leaf.

    With the leaf game ``v prod_k (o_k if k in S else z_k)`` of :func:`path_dependent` over its ``m`` distinct
    path features, the discrete derivative in ``i`` and ``j`` is ``v (o_i - z_i)(o_j - z_j) prod_{k != i, j}
    (o_k if k in S else z_k)``, so ``SII_ij = v (o_i - z_i)(o_j - z_j) sum_s s! (m-2-s)! / (m-1)! [t^s]
    prod_{k != i, j} (z_k + o_k t)``: shap's conditioning of TreeSHAP on ``j`` present minus ``j`` absent.
    Cost ``O(leaves * depth^3)`` per row and tree. Returns the symmetric ``(N, d, d)`` array (zero diagonal).
    """
    n_rows = X.shape[0]
    d = X.shape[1]
    sii = np.zeros((n_rows, d, d))
    size = 2 * depth + 4
    s_node = np.empty(size, dtype=np.int64)
    s_depth = np.empty(size, dtype=np.int64)
    paths = np.empty((feature.shape[0], depth + 2), dtype=np.int64)  # per leaf of a tree: its root-to-leaf nodes
    depths = np.empty(feature.shape[0], dtype=np.int64)
    zf = np.ones(d)
    of = np.ones(d)
    seen = np.zeros(d, dtype=np.bool_)
    r_feat = np.empty(depth + 2, dtype=np.int64)
    poly = np.zeros(depth + 3)
    wts = _shapley_weights(depth + 3)
    n_trees = roots.shape[0]
    for t in range(n_trees):
        lo = roots[t]
        hi = roots[t + 1] if t + 1 < n_trees else feature.shape[0]
        xdir = _directions(X, lo, hi, feature, threshold, default_left, decision, missing, cat_bits)
        n_leaves = _leaf_paths(lo, feature, left, right, paths, depths, s_node, s_depth)
        for r in range(n_rows):
            col = cols[r]
            if tree_output[t] >= 0 and tree_output[t] != col:
                continue
            sign = signs[r]
            for leaf in range(n_leaves):
                path = paths[leaf]
                dep = depths[leaf]
                v = value[path[dep], col] * sign
                if v == 0.0:
                    continue
                m = _path_features(path, dep, feature, left, ratio, xdir[r], lo, seen, zf, of, r_feat)
                for a in range(m):
                    fa = r_feat[a]
                    da = of[fa] - zf[fa]
                    if da == 0.0:
                        continue
                    for b in range(a + 1, m):
                        fb = r_feat[b]
                        db = of[fb] - zf[fb]
                        if db == 0.0:
                            continue
                        deg = 0
                        poly[0] = 1.0
                        for c in range(m):
                            if c == a or c == b:
                                continue
                            fc = r_feat[c]
                            z = zf[fc]
                            o = of[fc]
                            deg += 1
                            poly[deg] = poly[deg - 1] * o
                            for s in range(deg - 1, 0, -1):
                                poly[s] = poly[s] * z + poly[s - 1] * o
                            poly[0] *= z
                        total = 0.0
                        for s in range(deg + 1):
                            total += poly[s] * wts[m - 1, s]
                        inc = v * da * db * total
                        sii[r, fa, fb] += inc
                        sii[r, fb, fa] += inc
                for a in range(m):
                    seen[r_feat[a]] = False
    return sii


COMPILING = ("interplay: compiling the tree kernels (numba; once, typically 10-20 s: they are cached for later "
             "sessions)")
_announced: set = set()  # the kernels whose compilation has been announced in this process (by their Python function)


def _cache_cold(kernel) -> bool:
    """Whether calling ``kernel`` (a numba dispatcher) compiles it: not compiled in this process, and its on-disk
    cache holds no version for this source (numba's index ``<module>.<name>-<line>.pyXY.nbi`` is missing, or was
    written for another source or numba: numba's own check, one small file read). False when numba's cache
    cannot be inspected (another numba layout): nothing is said then."""
    if getattr(kernel, "signatures", None):
        return False
    try:
        cache_file = kernel._cache._cache_file
        index = cache_file._index_path
    except AttributeError:
        return False
    try:
        return not cache_file._load_index()
    except Exception:  # noqa: BLE001 - an unreadable index (numba recompiles then too), or another layout
        return not os.path.exists(index)


def announce_compilation(*kernels) -> None:
    """Say on stderr that the tree kernels are being compiled, when the first call of one of ``kernels`` is about
    to compile it (a cold numba cache); once per kernel and process: a kernel first used later (path-dependent
    TreeSHAP after interventional values, its pairs, the coded categorical ensembles) is announced when it
    compiles (it compiled silently once another had been announced). Silent on warm runs (a kernel compiled in
    this process costs a set look-up and one attribute read, one whose cache is on disk a file check) and with
    ``INTERPLAY_PROGRESS=0``. The kernels see one type signature each (the ensembles' arrays and the rows are
    cast to fixed dtypes, :class:`~interplay.trees.ensemble.TreeEnsemble`): a compiled kernel does not compile
    again."""
    cold = [k for k in kernels if getattr(k, "py_func", k) not in _announced and _cache_cold(k)]
    if not cold:
        return
    _announced.update(getattr(k, "py_func", k) for k in cold)
    from .._progress import _resolve

    if _resolve(None) is not False:
        print(COMPILING, file=sys.stderr, flush=True)
