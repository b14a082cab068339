"""Baseline removal: removed features take a fixed reference value, ``F(x, S) = f([x_S; r_{-S}])``.

Cost: one model row per coalition.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

REFERENCES = ("mean", "median", "mode", "zero")


def reference_vector(baseline, background: np.ndarray | None, n_features: int) -> np.ndarray:
    """The reference: ``"mean"``, ``"median"``, ``"mode"`` of the background, ``"zero"``, or a given vector."""
    if isinstance(baseline, str):
        if baseline == "zero":
            return np.zeros(n_features)
        if baseline not in REFERENCES:
            raise ValueError(f"baseline: expected one of {list(REFERENCES)} or a vector, got {baseline!r}")
        if background is None:
            raise ValueError(f"baseline={baseline!r} needs background data to compute it; pass background=")
        if baseline == "mean":
            return background.mean(axis=0)
        if baseline == "median":
            return np.median(background, axis=0)
        modes = np.empty(n_features)
        for j in range(n_features):  # per column, not per row or coalition
            values, counts = np.unique(background[:, j], return_counts=True)
            modes[j] = values[np.argmax(counts)]
        return modes
    reference = np.asarray(baseline, dtype=float).ravel()
    if reference.shape != (n_features,):
        raise ValueError(f"baseline: expected a vector of {n_features} values, got shape {np.shape(baseline)}")
    if not np.isfinite(reference).all():
        raise ValueError("baseline: contains NaN or inf")
    return reference


def baseline_value_function(predict: Callable[[np.ndarray], np.ndarray], x: np.ndarray, reference: np.ndarray,
                            *, max_rows: int = 65536) -> Callable[[np.ndarray], np.ndarray]:
    """``v(S) = predict(where(S, x, reference))``, in chunks of at most ``max_rows`` model rows."""

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        out = np.empty(len(coalitions))
        for start in range(0, len(coalitions), max_rows):
            chunk = coalitions[start:start + max_rows]
            out[start:start + len(chunk)] = predict(np.where(chunk, x, reference))
        return out

    return value_fn
