"""Marginal (interventional) removal: ``v(S) = mean_b f(x_S, b_{-S})`` over background rows ``b`` (lecture,
"interventional SHAP"; Janzing et al. 2020).

All (coalition x background) rows of a chunk are built as one array and sent to the model in one call. Rows
may be an object array (raw categorical columns): each hybrid row takes whole values from ``x`` or from one
background row, so every removed categorical feature keeps a valid value. ``predict`` may return ``(N,)`` or
``(N, T)`` (several outputs explained at once); the value function then returns ``(k,)`` or ``(k, T)``.
Cost: ``len(background)`` model rows per coalition.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ._columns import chunked


def marginal_value_function(predict: Callable[[np.ndarray], np.ndarray], x: np.ndarray, background: np.ndarray,
                            *, max_rows: int = 65536) -> Callable[[np.ndarray], np.ndarray]:
    """Value function of marginal removal; each model call gets at most ``max(max_rows, len(background))`` rows."""
    m = len(background)
    per_chunk = max(1, max_rows // m)

    def chunk_values(chunk: np.ndarray) -> np.ndarray:  # all (coalition x background) rows in one model call
        rows = np.where(chunk[:, None, :], x[None, None, :], background[None, :, :])
        preds = np.asarray(predict(rows.reshape(-1, len(x))))
        return preds.reshape(len(chunk), m, *preds.shape[1:]).mean(axis=1)

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        return chunked(chunk_values, coalitions, per_chunk)

    return value_fn
