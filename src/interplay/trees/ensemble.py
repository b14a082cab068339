"""One array representation of a tree ensemble, shared by every tree algorithm.

All trees are stored node by node in flat arrays (children hold absolute node indices, ``-1`` at leaves):

- ``feature`` (int32; ``-1`` at leaves), ``threshold`` (float64), ``left``/``right`` (int32);
- ``default_left`` (bool): where a missing value (NaN) goes;
- ``decision`` (int8): ``0`` = ``x <= threshold`` goes left (scikit-learn, LightGBM), ``1`` = ``x < threshold``
  goes left (XGBoost), ``2`` = categorical: ``int(x)`` in the node's category set goes left (LightGBM), ``3``
  = categorical, integers only (HistGradientBoosting: a non-integer is an unknown category); NaN, negative and
  unknown categories follow ``default_left`` (``False`` for LightGBM, which sends them right);
- ``missing`` (int8): ``0`` NaN follows ``default_left``; ``1`` NaN is read as ``0.0`` (LightGBM
  ``missing_type=None``); ``2`` NaN and zero follow ``default_left`` (LightGBM ``missing_type=Zero``); ``3``
  (XGBoost categorical nodes) NaN follows ``default_left``, a negative or unseen category goes left;
- ``cat_bits`` (uint32, ``(n_nodes, n_words)``): bitset of the categories that go left (categorical nodes);
- ``value`` (float64, ``(n_nodes, n_outputs)``): leaf values, already scaled (learning rate, ``1/n_trees`` for
  averaging forests, class fractions for forest classifiers);
- ``cover`` (float64): training weight that reached the node (path-dependent TreeSHAP uses its ratios);
- ``roots`` (int32): first node of each tree; ``tree_output`` (int32): output column a tree adds to (``-1``: all);
- ``base`` (float64, ``(n_outputs,)``): constant added to the sum of the trees;
- ``float32_inputs``: inputs are rounded to float32 before comparisons (scikit-learn trees, XGBoost), as the
  libraries themselves do.

The ensemble's output is ``base + sum over trees of the value of the leaf the row reaches``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._kernels import announce_compilation, predict_rows


@dataclass(frozen=True, eq=False)
class TreeEnsemble:
    """Tree ensemble as flat arrays (see the module docstring); ``output`` says what the sum of trees is."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    default_left: np.ndarray
    value: np.ndarray
    cover: np.ndarray
    roots: np.ndarray
    base: np.ndarray
    n_features: int
    decision: np.ndarray | None = None
    missing: np.ndarray | None = None
    cat_bits: np.ndarray | None = None
    tree_output: np.ndarray | None = None
    float32_inputs: bool = False
    output: str = "prediction"
    source: str = "arrays"
    info: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(np.asarray(self.feature))
        put = lambda name, arr: object.__setattr__(self, name, np.ascontiguousarray(arr))  # noqa: E731
        put("feature", np.asarray(self.feature, dtype=np.int32))
        put("threshold", np.asarray(self.threshold, dtype=np.float64))
        put("left", np.asarray(self.left, dtype=np.int32))
        put("right", np.asarray(self.right, dtype=np.int32))
        put("default_left", np.asarray(self.default_left, dtype=np.bool_))
        value = np.asarray(self.value, dtype=np.float64)
        put("value", value[:, None] if value.ndim == 1 else value)
        put("cover", np.asarray(self.cover, dtype=np.float64))
        put("roots", np.asarray(self.roots, dtype=np.int32))
        base = np.atleast_1d(np.asarray(self.base, dtype=np.float64))
        n_out = self.value.shape[1]
        put("base", np.broadcast_to(base, (n_out,)).copy())
        put("decision", np.zeros(n, np.int8) if self.decision is None else np.asarray(self.decision, np.int8))
        put("missing", np.zeros(n, np.int8) if self.missing is None else np.asarray(self.missing, np.int8))
        bits = np.zeros((n, 1), np.uint32) if self.cat_bits is None else np.asarray(self.cat_bits, np.uint32)
        put("cat_bits", bits.reshape(n, -1) if bits.size else np.zeros((n, 1), np.uint32))
        out = (np.full(len(self.roots), -1, np.int32) if self.tree_output is None
               else np.asarray(self.tree_output, np.int32))
        put("tree_output", out)
        for name in ("threshold", "left", "right", "default_left", "value", "cover", "decision", "missing"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name}: expected {n} entries (one per node), got {len(getattr(self, name))}")
        if len(self.tree_output) != len(self.roots):
            raise ValueError(f"tree_output: expected {len(self.roots)} entries (one per tree)")
        internal = self.feature >= 0
        if np.any(self.feature >= self.n_features):
            raise ValueError(f"feature: split features must be < n_features={self.n_features}")
        if np.any(internal & ((self.left < 0) | (self.right < 0))) or np.any(~internal & (self.left >= 0)):
            raise ValueError("left/right: internal nodes need two children and leaves (feature -1) none")

    @property
    def n_trees(self) -> int:
        return len(self.roots)

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    @property
    def n_outputs(self) -> int:
        return self.value.shape[1]

    def prepare(self, X: np.ndarray) -> np.ndarray:
        """Rows as the ensemble compares them (float64, rounded through float32 when the library does)."""
        X = np.asarray(X, dtype=np.float64)
        if self.float32_inputs:
            X = X.astype(np.float32).astype(np.float64)
        return np.ascontiguousarray(X)

    def predict(self, X) -> np.ndarray:
        """``(N, n_outputs)`` ensemble outputs (``base`` + the sum of the trees' leaf values)."""
        X = self.prepare(np.atleast_2d(X))
        # the first ensemble prediction (the tree check) comes just before the interventional kernels: one notice
        from ._kernels import interventional, max_depth

        announce_compilation(predict_rows, max_depth, interventional)
        return predict_rows(X, *self.arrays()) + self.base

    def arrays(self) -> tuple:
        """The node arrays in the order the compiled kernels take them."""
        return (self.feature, self.threshold, self.left, self.right, self.default_left, self.decision,
                self.missing, self.cat_bits, self.value, self.roots, self.tree_output)
