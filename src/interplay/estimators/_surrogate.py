"""A tree-ensemble surrogate of the game, fitted on the sampled coalitions and read exactly.

Regression-adjusted estimators (Witter, Liu & Musco, NeurIPS 2025) and OddSHAP (Fumagalli et al. 2026) fit a
gradient-boosted tree model ``f`` on the evaluated coalitions (inputs: the 0/1 membership vectors, targets:
the game's values). A tree model on 0/1 inputs is a game whose indices are known exactly:

- its Shapley/Banzhaf values, pairwise SII/BII and Bivariate Shapley matrix are the interventional tree indices
  of the all-ones row against a single all-zeros background row (``v_f(S) = f(1_S)``), computed by
  :func:`interplay.trees.interventional_indices` (Lundberg et al. 2020; derivation in
  :mod:`interplay.trees.interventional`);
- its Fourier (Walsh) spectrum, in the basis ``chi_T(S) = prod_{k in T} (+1 if k in S else -1)``, is a sum over
  leaves (plus the ensemble's base value in the constant): a leaf reached iff ``x_k = b_k`` on its path features
  ``R`` (value ``c``) is
  ``c prod_{k in R} (1 + s_k chi_k) / 2 = c 2^-|R| sum_{T subset R} prod_{k in T} s_k chi_T``
  with ``s_k = +1`` for ``b_k = 1`` and ``-1`` for ``b_k = 0`` (:func:`odd_spectrum`).

The surrogate is chosen by ``surrogate="auto"``: interplay's own boosting on 0/1 inputs (``"binary"``,
:mod:`._binary_boost`: XGBoost's rules, compiled by numba, 4-7x faster than XGBoost's fit and nothing to read);
``"xgboost"``, ``"lightgbm"`` and ``"sklearn"`` fit those libraries' boosting instead. All need numba (the ``trees``
extra), which reads the trees; without it the estimators fall back to their surrogate-free variant and say so in
``info``. Fitting and reading cost no game evaluations; their time is reported in ``info``.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

import numpy as np

SURROGATES = ("auto", "binary", "xgboost", "lightgbm", "sklearn")


def _installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def resolve_surrogate(surrogate: Any) -> str | None:
    """The surrogate library to use (``None`` when ``"auto"`` finds none installed); a model object is kept."""
    if not isinstance(surrogate, str):
        if not (hasattr(surrogate, "fit") and hasattr(surrogate, "predict")):
            raise TypeError(f"surrogate: expected one of {list(SURROGATES)} or an unfitted regressor with fit/"
                            f"predict (a tree model interplay reads), got {type(surrogate).__name__}")
        if not _installed("numba"):
            raise ValueError("surrogate: reading a tree surrogate needs numba (pip install interplay[trees])")
        return surrogate
    if surrogate not in SURROGATES:
        raise ValueError(f"surrogate: expected one of {list(SURROGATES)} or a regressor, got {surrogate!r}")
    if not _installed("numba"):  # the trees are read by interplay.trees, whose kernels are numba-compiled
        if surrogate != "auto":
            raise ValueError(f"surrogate: reading a {surrogate!r} surrogate needs numba (pip install interplay[trees])")
        return None
    if surrogate == "auto":
        return "binary"
    if surrogate != "binary" and not _installed(surrogate):
        raise ValueError(f"surrogate: {surrogate!r} is not installed (pip install interplay[{surrogate}])")
    return surrogate


def _make(kind: str, seed: int):
    if kind == "xgboost":
        import xgboost

        return xgboost.XGBRegressor(n_estimators=100, max_depth=4, learning_rate=0.2, random_state=seed, n_jobs=1,
                                    tree_method="hist")
    if kind == "lightgbm":
        import lightgbm

        return lightgbm.LGBMRegressor(n_estimators=100, max_depth=4, num_leaves=15, learning_rate=0.2,
                                      min_child_samples=5, random_state=seed, n_jobs=1, verbose=-1)
    from sklearn.ensemble import GradientBoostingRegressor

    return GradientBoostingRegressor(n_estimators=100, max_depth=4, learning_rate=0.2, random_state=seed)


def fit_surrogate(kind: Any, coalitions: np.ndarray, values: np.ndarray, rng: np.random.Generator):
    """Fit the surrogate on 0/1 coalition rows; returns it as an interplay TreeEnsemble."""
    from ..trees import as_ensemble

    seed = int(rng.integers(2**31 - 1))  # drawn for every kind: the estimators' later draws do not depend on it
    if kind == "binary":
        from ._binary_boost import fit_binary_boost

        return fit_binary_boost(coalitions, values)
    if isinstance(kind, str):
        model = _make(kind, seed)
    else:
        from sklearn.base import clone

        model = clone(kind)
    model.fit(coalitions.astype(np.float32), np.asarray(values, dtype=float))
    return as_ensemble(model)


def surrogate_values(ensemble, coalitions: np.ndarray) -> np.ndarray:
    """The surrogate's predictions on coalition rows."""
    return ensemble.predict(coalitions.astype(np.float64))[:, 0]


def surrogate_indices(ensemble, n: int, *, pairs: bool = False):
    """Exact indices of the surrogate game ``S -> f(1_S)``: ``(shapley, banzhaf)`` or a ``TreeIndices``."""
    from ..trees import interventional_indices, interventional_shapley

    ones, zeros = np.ones((1, n)), np.zeros((1, n))
    if pairs:
        return interventional_indices(ensemble, ones, zeros)
    phi, _ = interventional_shapley(ensemble, ones, zeros)
    beta, _ = interventional_shapley(ensemble, ones, zeros, banzhaf=True)
    return phi[0], beta[0]


def _binary_children(ensemble) -> tuple[np.ndarray, np.ndarray]:
    """For each node, the child taken by the value 0 and by the value 1 (numeric splits on 0/1 inputs)."""
    thr, d, m, dl = ensemble.threshold, ensemble.decision, ensemble.missing, ensemble.default_left
    if np.any(d >= 2):
        raise ValueError("surrogate: categorical splits cannot be read as a Fourier spectrum")
    left0 = np.where(d == 1, 0.0 < thr, 0.0 <= thr)
    left0 = np.where(m == 2, dl, left0)  # LightGBM's zero-as-missing
    left1 = np.where(d == 1, 1.0 < thr, 1.0 <= thr)
    child0 = np.where(left0, ensemble.left, ensemble.right)
    child1 = np.where(left1, ensemble.left, ensemble.right)
    return child0, child1


def _leaf_arrays(ensemble) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every reachable leaf of every tree for 0/1 inputs: values ``(L,)``, depths ``(L,)``, path features
    ``(L, D)`` sorted within each path (-1 past a leaf's depth) and their bits ``(L, D)``.

    All trees are walked at once, level by level: a node whose two children agree on 0/1 inputs passes its path
    on, a node splitting on a feature already on its path follows that feature's bit, any other splits it in
    two. Leaves come in the order of a depth-first walk of each tree (the 1-child first), so that sums over
    them do not depend on the walk. Cost: one array pass per level over the frontier, no Python loop over nodes.
    """
    child0, child1 = _binary_children(ensemble)
    feature, value = ensemble.feature, ensemble.value[:, 0]
    try:
        from ._binary_boost import _leaf_walk
    except ImportError:  # no numba: the array walk below
        _leaf_walk = None
    if _leaf_walk is not None:  # the same leaves in the same order, by a compiled depth-first walk
        values, depth, path, bits = _leaf_walk(np.asarray(ensemble.roots, dtype=np.int64),
                                               np.asarray(feature, dtype=np.int64), np.asarray(child0, dtype=np.int64),
                                               np.asarray(child1, dtype=np.int64),
                                               np.ascontiguousarray(value, dtype=np.float64),
                                               max(int(ensemble.n_features), 1))
        if not len(values):
            empty = np.zeros((0, 0), dtype=np.int64)
            return np.zeros(0), np.zeros(0, dtype=np.int64), empty, empty.astype(bool)
        width = int(depth.max())
        return values, depth, path[:, :width], bits[:, :width]
    return _leaf_arrays_walk(child0, child1, feature, value, ensemble.roots)


def _leaf_arrays_walk(child0, child1, feature, value, roots):
    """:func:`_leaf_arrays` without numba: all trees walked at once, level by level."""
    nodes = np.asarray(roots, dtype=np.int64)
    tree = np.arange(len(nodes))
    path = np.zeros((len(nodes), 0), dtype=np.int64)   # features in the order met, -1 past the depth
    bits = np.zeros((len(nodes), 0), dtype=bool)
    turns = np.zeros((len(nodes), 0), dtype=np.int8)   # 0: the 1-child (walked first), 1: the 0-child
    done: list[tuple] = []
    while len(nodes):
        f = feature[nodes]
        leaf = f < 0
        if leaf.any():
            done.append((value[nodes[leaf]], tree[leaf], path[leaf], bits[leaf], turns[leaf]))
            keep = ~leaf
            nodes, f, tree, path, bits, turns = nodes[keep], f[keep], tree[keep], path[keep], bits[keep], turns[keep]
        if not len(nodes):
            break
        c0, c1 = child0[nodes], child1[nodes]
        on_path = path == f[:, None]
        known = on_path.any(axis=1)
        bit = (bits & on_path).any(axis=1)
        follow = (c0 == c1) | known
        split = ~follow
        depth = (path >= 0).sum(axis=1)
        width = path.shape[1] + int(split.any())
        pad = width - path.shape[1]
        path = np.pad(path, ((0, 0), (0, pad)), constant_values=-1)
        bits = np.pad(bits, ((0, 0), (0, pad)))
        turns = np.pad(turns, ((0, 0), (0, pad)), constant_values=-1)  # as many columns as path, always
        rows = np.flatnonzero(split)
        # a split node becomes two rows: its 1-child (bit True, turn 0) and its 0-child (bit False, turn 1)
        ones = path[rows].copy(), bits[rows].copy(), turns[rows].copy()
        zeros = path[rows].copy(), bits[rows].copy(), turns[rows].copy()
        at = depth[rows]
        slot = (turns[rows] >= 0).sum(axis=1)
        for arrays, b in ((ones, True), (zeros, False)):
            arrays[0][np.arange(len(rows)), at] = f[rows]
            arrays[1][np.arange(len(rows)), at] = b
            arrays[2][np.arange(len(rows)), slot] = 0 if b else 1
        moved = np.where(known & (c0 != c1), np.where(bit, c1, c0), c0)[follow]
        nodes = np.concatenate([moved, c1[rows], c0[rows]])
        tree = np.concatenate([tree[follow], tree[rows], tree[rows]])
        path = np.concatenate([path[follow], ones[0], zeros[0]])
        bits = np.concatenate([bits[follow], ones[1], zeros[1]])
        turns = np.concatenate([turns[follow], ones[2], zeros[2]])
    if not done:
        empty = np.zeros((0, 0), dtype=np.int64)
        return np.zeros(0), np.zeros(0, dtype=np.int64), empty, empty.astype(bool)
    width = max(d[2].shape[1] for d in done)
    values = np.concatenate([d[0] for d in done])
    trees = np.concatenate([d[1] for d in done])
    path = np.concatenate([np.pad(d[2], ((0, 0), (0, width - d[2].shape[1])), constant_values=-1) for d in done])
    bits = np.concatenate([np.pad(d[3], ((0, 0), (0, width - d[3].shape[1]))) for d in done])
    turns = np.concatenate([np.pad(d[4], ((0, 0), (0, width - d[4].shape[1])), constant_values=-1) for d in done])
    order = np.lexsort(tuple(turns[:, k] for k in range(width - 1, -1, -1)) + (trees,))  # depth-first order
    values, path, bits = values[order], path[order], bits[order]
    depth = (path >= 0).sum(axis=1)
    by_feature = np.argsort(np.where(path >= 0, path, np.iinfo(np.int64).max), axis=1, kind="stable")
    path = np.take_along_axis(path, by_feature, axis=1)
    bits = np.take_along_axis(bits, by_feature, axis=1) & (path >= 0)
    width = int(depth.max()) if len(depth) else 0  # levels where only other paths split add no column
    return values, depth, path[:, :width], bits[:, :width]


class Spectrum(Mapping):
    """Fourier coefficients ``{T: a_T}`` of a surrogate (a read-only mapping), kept as arrays per set size:
    ``by_size`` holds ``(size, sets, coefficients)`` (``sets`` an ``(m, size)`` integer array, ascending; the
    empty set as size 0). The ``{T: a_T}`` dictionary is built on first use: the relevance of each player and the
    ranked sets (:func:`._walsh_gp.feature_relevance`, :func:`.odd.rank_terms`) read the arrays instead (the
    blend's five fold surrogates never build it)."""

    def __init__(self, by_size: list) -> None:
        self.by_size = by_size
        self._dict: dict | None = None

    def _items(self) -> dict:
        if self._dict is None:
            built: dict[tuple[int, ...], float] = {}
            for _, sets, coefficients in self.by_size:  # sets of one size: each once
                built.update(zip(map(tuple, sets.tolist()), coefficients.tolist()))
            self._dict = built
        return self._dict

    def __getitem__(self, key):
        return self._items()[key]

    def __iter__(self):
        return iter(self._items())

    def __len__(self) -> int:
        return sum(len(coefficients) for _, _, coefficients in self.by_size)

    def __repr__(self) -> str:
        return f"Spectrum({self._items()!r})"


def _spectrum(ensemble, sizes=None, max_size: int | None = None) -> Spectrum:
    """Fourier coefficients of the surrogate on the sets whose size is in ``sizes`` (None: every size up to
    ``max_size``, all when None), by the module docstring's sum over leaves.

    Vectorised over leaves: for each choice of ``t`` positions along the (sorted) paths, every leaf deep enough
    adds ``sign * c / 2^depth`` to the set of its features there; equal sets are summed with one ``np.unique``.
    Cost: ``sum_t C(D, t)`` array passes over the leaves (``D`` the deepest path), no game evaluations.
    """
    values, depth, features, bits = _leaf_arrays(ensemble)
    width = features.shape[1]
    scale = values / 2.0 ** depth
    wanted = range(width + 1) if sizes is None else sizes
    if sizes is None and max_size is not None:
        wanted = range(min(max_size, width) + 1)
    by_size: list = []
    for t in wanted:
        if t > width:
            continue
        if t == 0:  # the constant: the trees' mean plus the ensemble's base value
            constant = float(scale.sum()) + float(np.asarray(ensemble.base).reshape(-1)[0])
            by_size.append((0, np.zeros((1, 0), dtype=np.int64), np.array([constant])))
            continue
        # every choice of t positions at once, in the order of a loop over the choices and then the leaves: a
        # leaf deep enough has every position (paths are sorted by feature)
        combos = np.array(list(combinations(range(width), t)), dtype=np.int64)  # (choices, t)
        deep = depth[None, :] > combos[:, -1:]  # (choices, leaves)
        if not deep.any():
            continue
        sets = features[:, combos].transpose(1, 0, 2)[deep]
        odd_zeros = ((t - bits[:, combos].sum(axis=2, dtype=np.int64)) % 2 == 1).T[deep]
        signed = np.broadcast_to(scale[None, :], deep.shape)[deep]
        amounts = [np.where(odd_zeros, -signed, signed)]
        base = int(features.max()) + 1
        if base ** t <= 4 * len(sets) + 4096:  # few possible codes: a table over them, no sort
            codes = sets @ base ** np.arange(t - 1, -1, -1, dtype=np.int64)
            seen = np.zeros(base ** t, dtype=np.int64)
            seen[codes] = np.arange(1, len(codes) + 1)  # any row with the code (equal codes: equal sets)
            present = np.flatnonzero(seen)
            rank = np.zeros(base ** t, dtype=np.int64)
            rank[present] = np.arange(len(present))
            inverse = rank[codes]  # each set's place among the distinct ones, ascending: as np.unique's
            unique = sets[seen[present] - 1]
        elif base ** t < 2**62:  # each set as one integer (its sorted features as digits), unique in 1-D
            codes = sets @ base ** np.arange(t - 1, -1, -1, dtype=np.int64)
            _, first, inverse = np.unique(codes, return_index=True, return_inverse=True)
            unique = sets[first]
        else:
            unique, inverse = np.unique(sets, axis=0, return_inverse=True)
        totals = np.bincount(inverse.ravel(), weights=np.concatenate(amounts), minlength=len(unique))
        by_size.append((t, np.asarray(unique, dtype=np.int64), totals))
    return Spectrum(by_size)


def odd_spectrum(ensemble, sizes: tuple[int, ...] = (3, 5)) -> Spectrum:
    """Fourier coefficients of the surrogate on odd sets of the given sizes (module docstring)."""
    return _spectrum(ensemble, sizes)


def fourier_spectrum(ensemble, max_size: int | None = None) -> Spectrum:
    """Every Fourier coefficient of the surrogate (sets of size ``<= max_size``, all when None; module docstring)."""
    return _spectrum(ensemble, max_size=max_size)
