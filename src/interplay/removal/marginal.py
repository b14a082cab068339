"""Marginal (interventional) removal: ``v(S) = mean_b f(x_S, b_{-S})`` over background rows ``b`` (lecture,
"interventional SHAP"; Janzing et al. 2020).

All (coalition x background) rows of a chunk are built as one array and sent to the model in one call; the
chunk size is learned from the model's speed by a :class:`~interplay.removal._columns.CallSizer` (small
blocks built and read in cache for cheap models, large calls for models with a fixed cost per call; at most
``max_rows`` rows), results never depend on it. Only the coalitions asked for are built (a
:class:`~interplay.games.Game` asks for distinct ones only). Rows
may be an object array (raw categorical columns): each hybrid row takes whole values from ``x`` or from one
background row, so every removed categorical feature keeps a valid value. ``predict`` may return ``(N,)`` or
``(N, T)`` (several outputs explained at once); the value function then returns ``(k,)`` or ``(k, T)``.
Missing values (NaN in ``x`` or a background row) are passed to the model as they are: a hybrid row holds one
where the value it takes is missing (the Explainer checks first that the model gives finite outputs on them).
Cost: ``len(background)`` model rows per coalition.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ._columns import CallSizer, HybridRows


def marginal_value_function(predict: Callable[[np.ndarray], np.ndarray], x: np.ndarray, background: np.ndarray,
                            *, max_rows: int = 65536, sizer: CallSizer | None = None, coded: bool = False,
                            ) -> Callable[[np.ndarray], np.ndarray]:
    """Value function of marginal removal; each model call gets at most ``max(max_rows, len(background))`` rows
    (``sizer``, shared by the rows of an explainer, picks how many; results do not depend on it, but for a BLAS
    model's last bits). ``coded``:
    rows of an object table go to ``predict`` as :class:`~interplay.removal._columns.CodedRows` (for a model
    adapter that reads them; ``np.asarray`` gives the object rows)."""
    m = len(background)
    sizer = CallSizer(max_rows) if sizer is None else sizer
    hybrid = HybridRows(x, background, coded=coded)

    def chunk_values(chunk: np.ndarray) -> np.ndarray:  # all (coalition x background) rows in one model call
        rows = hybrid(chunk)
        preds = np.asarray(predict(rows.reshape(-1, len(x))))
        per_row = preds.reshape(len(chunk), m, *preds.shape[1:])
        if preds.dtype not in (np.float64, np.float32):
            return per_row.mean(axis=1)
        # the mean over the background as np.mean computes it for floats (the sum in their dtype, then the
        # division), without its Python-level checks (about 10 us a call)
        return np.add.reduce(per_row, axis=1) / preds.dtype.type(m)

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        return sizer.map(chunk_values, coalitions, rows_each=m, width=len(x))

    return value_fn
