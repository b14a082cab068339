r"""Exact interventional (marginal) values of tree ensembles: Shapley, Banzhaf, pairwise SII/BII, Bivariate Shapley.

Source: the lecture's "TreeSHAP with background data" (Lundberg et al. 2020, *From local explanations to global
understanding with explainable AI for trees*, Nature MI, Methods: "Interventional Tree SHAP"). The value
function is the empirical interventional one,

    v(S) = 1/|B| sum_{b in B} f(x_S, b_{-S}),

so every index below is the average over background rows ``b`` of the index of ``v_b(S) = f(x_S, b_{-S})``
(all indices here are linear in the game), and ``f`` is a sum over trees, hence over leaves.

Derivation (one tree, one background row ``b``, one leaf ``l`` with value ``c``)
--------------------------------------------------------------------------------
The hybrid row ``z = (x_S, b_{-S})`` reaches ``l`` iff for every feature ``k`` split on along the path, the
value ``z_k`` satisfies all of the path's conditions on ``k``. Call ``X_k`` ("x satisfies them") and ``B_k``
("b satisfies them"). Then ``z`` reaches ``l`` iff for all path features ``k``: ``k in S`` and ``X_k``, or
``k not in S`` and ``B_k``. Hence the leaf's game is zero if some ``k`` has neither, and otherwise

    g_l(S) = c * 1[P subset S] * 1[N cap S = empty],   P = {k: X_k, not B_k},  N = {k: B_k, not X_k},

features with both ``X_k`` and ``B_k`` being dummies. ``P`` and ``N`` are found without visiting every leaf:
walk down from the root; where ``x`` and ``b`` go the same way follow that child; where they part on a
feature not yet in ``P`` or ``N``, follow both, the ``x`` child putting the feature in ``P`` and the ``b``
child in ``N``; a feature already in ``P`` (``N``) follows ``x`` (``b``).

Write ``p = |P|``, ``q = |N|``, ``R = P cup N``, ``d_k = +1`` on ``P``, ``-1`` on ``N``. As a product
``g = c prod_{k in P} s_k prod_{k in N} (1 - s_k)`` of the membership indicators ``s_k``, its Moebius
coefficients are ``m(T) = c (-1)^{|T cap N|}`` for ``P subset T subset R`` and 0 otherwise, and its
discrete derivatives are ``Delta_i g(S) = c d_i 1[P - i subset S, (N - i) cap S = empty]`` and
``Delta_{ij} g(S) = c d_i d_j 1[P - {i,j} subset S, (N - {i,j}) cap S = empty]`` (``i, j in R``; zero
otherwise). With ``W(a, e) = a! e! / (a + e + 1)!``:

- Shapley: ``phi_i = c d_i W(p_i, q_i)`` with ``p_i = |P - i|``, ``q_i = |N - i|`` (the probability that, in a
  random order, ``i`` comes after the other members of ``P`` and before the other members of ``N``).
- Banzhaf: ``beta_i = c d_i 2^{-(p + q - 1)}``.
- Shapley interaction index of ``{i, j}`` (Grabisch & Roubens; only ``R``'s relative order matters):
  ``SII_ij = c d_i d_j W(p_ij, q_ij)`` with ``p_ij = |P - {i,j}|``, ``q_ij = |N - {i,j}|``.
- Banzhaf interaction index (BII paper Eq. 2): ``BII_ij = c d_i d_j 2^{-(p + q - 2)}``.
- Bivariate Shapley (Bivariate Shapley paper Eq. 6, orientation of the papers' README):
  ``A[i, j] = sum_{S: i in S, j notin S} |S|!(n-|S|-1)!/n! Delta_j g(S)`` = ``c d_j Pr[i precedes j, P - j
  precede j, N - j follow j]`` in a uniformly random order, which depends only on the relative order of
  ``R cup {i}``. For ``j in R``:

      i notin R:        A[i, j] = c d_j W(p_j + 1, q_j)      (the same for every such i)
      i in P - j:       A[i, j] = c d_j W(p_j, q_j) = phi_j  (i preceding j is implied)
      i in N - j:       A[i, j] = 0                          (i must follow j)

  and ``A[i, j] = 0`` for ``j notin R``. So one leaf adds a vector to every row and corrects the ``|R|`` rows
  of ``R``: ``O(|R|^2)`` work, never ``O(n)`` per leaf; ``A = 1 base^T + corrections``.

Summing over reached leaves, trees and background rows (divided by ``|B|``) gives exact values for any number
of features; only leaves reachable by some hybrid are visited. All background rows walk a tree together as a
bitset, and rows that reach a leaf with the same ``(P, N)`` share one closed-form update. Cost per explained
row: at most ``O(trees * reached (node, P, N) states * (|B| / 64 + depth))`` for Shapley/Banzhaf (``depth^2``
instead of ``depth`` for the pair indices and the bivariate matrix), plus ``O(|B| * nodes)`` once per call for
the background's directions; no model evaluations. Ground truth: ``interplay.estimators.exact`` on
``Explainer(...).game(x)`` (tests/test_trees*.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lgamma

import numpy as np

from . import _kernels as K
from .ensemble import TreeEnsemble


def _tables(depth: int) -> tuple[np.ndarray, np.ndarray]:
    size = depth + 4
    W = np.array([[np.exp(lgamma(a + 1) + lgamma(e + 1) - lgamma(a + e + 2)) for e in range(size)]
                  for a in range(size)])
    return W, 2.0 ** -np.arange(size, dtype=float)


def _depth(ensemble: TreeEnsemble) -> int:
    return int(K.max_depth(ensemble.feature, ensemble.left, ensemble.right, ensemble.roots))


def _per_row(value, n: int, dtype, name: str) -> np.ndarray:
    arr = np.broadcast_to(np.asarray(value, dtype=dtype), (n,)).copy()
    return arr


def _checked(ensemble: TreeEnsemble, X, name: str) -> np.ndarray:
    X = np.atleast_2d(np.asarray(X, dtype=float))
    if X.ndim != 2 or X.shape[1] != ensemble.n_features:
        raise ValueError(f"{name}: expected a (rows, {ensemble.n_features}) matrix, got shape {np.shape(X)}")
    if len(X) == 0:
        raise ValueError(f"{name}: expected at least one row, got none")
    return ensemble.prepare(X)


def _columns(ensemble: TreeEnsemble, column, sign, n: int) -> tuple[np.ndarray, np.ndarray]:
    cols = _per_row(column, n, np.int64, "column")
    if np.any(cols < 0) or np.any(cols >= ensemble.n_outputs):
        raise ValueError(f"column: expected output columns in [0, {ensemble.n_outputs}), got {np.unique(cols)}")
    return cols, _per_row(sign, n, np.float64, "sign")


def base_values(ensemble: TreeEnsemble, background: np.ndarray, cols: np.ndarray, signs: np.ndarray) -> np.ndarray:
    """``v(empty) = mean_b f(b)`` of each row's output column (times its sign)."""
    mean = ensemble.predict(background).mean(axis=0)
    return signs * mean[cols]


def interventional_shapley(ensemble: TreeEnsemble, X, background, *, column=0, sign=1.0,
                           banzhaf: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Exact interventional Shapley (or Banzhaf) values of every row of ``X`` with ``background``.

    ``column`` (int or one per row) picks the ensemble output, ``sign`` (``-1`` explains minus it, e.g. the
    log-odds of class 0 of a binary booster). Returns ``(values (N, d), base (N,))`` with
    ``base = v(empty)``; Shapley values add up to ``f(x) - base``.
    """
    X = _checked(ensemble, X, "X")
    B = _checked(ensemble, background, "background")
    cols, signs = _columns(ensemble, column, sign, len(X))
    K.announce_compilation(K.max_depth, K.interventional)
    depth = _depth(ensemble)
    W, pow2 = _tables(depth)
    phi, beta, *_ = K.interventional(X, B, *ensemble.arrays(), cols, signs, K.SHAPLEY, W, pow2, depth)
    return (beta if banzhaf else phi), base_values(ensemble, B, cols, signs)


@dataclass(frozen=True)
class TreeIndices:
    """Exact interventional indices of one row: ``shapley``/``banzhaf`` ``(d,)``, symmetric ``sii``/``bii``
    ``(d, d)`` (pairs; zero diagonal), the Bivariate Shapley ``adjacency`` (``[i, j]`` = importance of ``j``
    when ``i`` is present; zero diagonal) and ``base = v(empty)``."""

    shapley: np.ndarray
    banzhaf: np.ndarray
    sii: np.ndarray
    bii: np.ndarray
    adjacency: np.ndarray
    base: float


def interventional_indices(ensemble: TreeEnsemble, x, background, *, column: int = 0,
                           sign: float = 1.0) -> TreeIndices:
    """Shapley, Banzhaf, pairwise SII/BII and the Bivariate Shapley matrix of one row, exactly, from the
    closed forms of the module docstring (cost ``O(|B| * trees * reached leaves * depth^2)``)."""
    X = _checked(ensemble, x, "x")
    if len(X) != 1:
        raise ValueError(f"x: expected one row, got {len(X)}")
    B = _checked(ensemble, background, "background")
    cols, signs = _columns(ensemble, column, sign, 1)
    K.announce_compilation(K.max_depth, K.interventional)
    depth = _depth(ensemble)
    W, pow2 = _tables(depth)
    phi, beta, sii, bii, adj_base, adj_corr = K.interventional(
        X, B, *ensemble.arrays(), cols, signs, K.SHAPLEY | K.PAIRS | K.BIVARIATE, W, pow2, depth)
    sii = sii + sii.T
    bii = bii + bii.T
    adjacency = adj_base[None, :] + adj_corr
    np.fill_diagonal(adjacency, 0.0)
    return TreeIndices(phi[0], beta[0], sii, bii, adjacency, float(base_values(ensemble, B, cols, signs)[0]))
