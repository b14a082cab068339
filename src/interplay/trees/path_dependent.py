r"""Path-dependent TreeSHAP (the lecture's "TreeSHAP"; Lundberg et al. 2020, Algorithm 2).

The value function replaces the data distribution by the tree's own training covers: ``v(S)`` follows ``x`` at
splits on features in ``S`` and takes the cover-weighted average of both children at the others. For a leaf
with value ``c``, every distinct feature ``k`` on its path contributes the factor ``o_k`` (1 iff ``x``
satisfies all the path's conditions on ``k``) when ``k in S`` and ``z_k`` (the product of the cover ratios
child/parent at ``k``'s nodes) otherwise, so the leaf's game is ``c prod_k (o_k if k in S else z_k)`` and

    phi_i = c (o_i - z_i) sum_{s=0}^{m-1} s! (m-1-s)! / m! * [t^s] prod_{k != i} (z_k + o_k t),

which is what Lundberg et al.'s EXTEND/UNWIND compute; here the polynomial is built per leaf and divided by
``(z_i + o_i t)``. Cost ``O(leaves * depth^2)`` per row and tree, no background data.

This is *not* the empirical interventional value of any background sample: the covers of a split depend on the
splits above it, so two trees computing the same function with the split order swapped get different values
(see ``tests/test_trees_paths.py``); :mod:`interplay.trees.interventional` has no such dependence.
"""

from __future__ import annotations

import numpy as np

from . import _kernels as K
from .ensemble import TreeEnsemble
from .interventional import _checked, _columns, _depth


def cover_ratios(ensemble: TreeEnsemble) -> np.ndarray:
    """``cover[node] / cover[parent]`` for every node (1 at the roots; 0 under a parent with zero cover)."""
    ratio = np.ones(ensemble.n_nodes)
    internal = np.flatnonzero(ensemble.feature >= 0)
    parent_cover = ensemble.cover[internal]
    for child in (ensemble.left[internal], ensemble.right[internal]):
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio[child] = np.where(parent_cover > 0, ensemble.cover[child] / parent_cover, 0.0)
    return ratio


def path_dependent_shapley(ensemble: TreeEnsemble, X, *, column=0, sign=1.0) -> tuple[np.ndarray, np.ndarray]:
    """Path-dependent TreeSHAP values ``(N, d)`` and expected values ``(N,)`` (``v(empty)``, from the covers)."""
    X = _checked(ensemble, X, "X")
    cols, signs = _columns(ensemble, column, sign, len(X))
    if np.any(ensemble.cover[ensemble.roots] <= 0):
        raise ValueError("model: path-dependent TreeSHAP needs positive node covers (sample weights)")
    K.announce_compilation(K.max_depth, K.path_dependent)
    depth = _depth(ensemble)
    phi, expected = K.path_dependent(X, *ensemble.arrays(), cover_ratios(ensemble), cols, signs, depth)
    return phi, expected + signs * ensemble.base[cols]


def path_dependent_interactions(ensemble: TreeEnsemble, X, *, column=0,
                                sign=1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Path-dependent Shapley values ``(N, d)``, pairwise Shapley interaction indices ``(N, d, d)`` (symmetric,
    zero diagonal) and expected values ``(N,)`` of the path-dependent game.

    shap's ``TreeExplainer.shap_interaction_values`` (Lundberg et al. 2020, Methods, "SHAP interaction
    values") are ``Phi_ij = SII_ij / 2`` off the diagonal and ``Phi_ii = phi_i - sum_{j != i} Phi_ij``
    (:func:`shap_interaction_values`). Cost ``O(leaves * depth^3)`` per row and tree.
    """
    X = _checked(ensemble, X, "X")
    cols, signs = _columns(ensemble, column, sign, len(X))
    if np.any(ensemble.cover[ensemble.roots] <= 0):
        raise ValueError("model: path-dependent TreeSHAP needs positive node covers (sample weights)")
    K.announce_compilation(K.max_depth, K.path_dependent, K.path_dependent_pairs)
    depth = _depth(ensemble)
    arrays = (*ensemble.arrays(), cover_ratios(ensemble), cols, signs, depth)
    phi, expected = K.path_dependent(X, *arrays)
    sii = K.path_dependent_pairs(X, *arrays)
    return phi, sii, expected + signs * ensemble.base[cols]


def shap_interaction_values(phi: np.ndarray, sii: np.ndarray) -> np.ndarray:
    """shap's interaction-value matrices ``(N, d, d)`` from Shapley values ``(N, d)`` and pairwise SII
    ``(N, d, d)``: ``SII / 2`` off the diagonal, the rest of each Shapley value on it (rows sum to ``phi``)."""
    out = np.asarray(sii, dtype=float) / 2.0
    d = out.shape[-1]
    idx = np.arange(d)
    out[..., idx, idx] = 0.0
    out[..., idx, idx] = np.asarray(phi, dtype=float) - out.sum(axis=-1)
    return out
