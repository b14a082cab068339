"""Conditional (observational) removal: ``v(S) ~ E[f(x_S, X_{-S}) | X_S ~ x_S]`` (lecture, "observational
SHAP"), estimated with the background rows nearest to ``x`` on the features in ``S``.

For each coalition, background rows are ranked by their standardised Euclidean distance to ``x`` over the
features in ``S``; the ``n_neighbors`` nearest are kept, together with every row tied with the last one (so
all rows at distance 0 are always kept: on discrete data this is the exact empirical conditional
distribution whenever at least ``n_neighbors`` rows match). The model is averaged over hybrid rows
``(x_S, b_{-S})`` of the kept rows ``b``. Categorical (non-numeric) columns contribute a 0/1 mismatch to the
squared distance. ``predict`` may return ``(N,)`` or ``(N, T)``; the value function then returns ``(k,)`` or
``(k, T)``. Cost: at most ``len(background)`` model rows per coalition.

Missing values (in ``x`` or the background) are refused: a distance over the present features of ``S`` would
compare rows on different features, and a neighbour missing a feature of ``S`` matches no value of ``x``, so
the conditional distribution has no single natural estimate here; marginal removal takes them.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._validation import missing_columns
from ._columns import CallSizer, numeric_columns


SELF_MATCH_WARNING = 10  # neighbours: at most this many, an explained row found in the background is warned of


def default_n_neighbors(n_background: int) -> int:
    """Default neighbourhood size: ``ceil(sqrt(len(background)))``, at least 1."""
    return max(1, int(np.ceil(np.sqrt(n_background))))


DISTANCE_CELLS = 2**22  # (coalition x background row) distances held at once: 32 MiB


def conditional_value_function(predict: Callable[[np.ndarray], np.ndarray], x: np.ndarray, background: np.ndarray,
                               *, n_neighbors: int | None = None, max_rows: int = 65536,
                               sizer: CallSizer | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """Value function of conditional removal with ``n_neighbors`` nearest background rows (ties kept)."""
    refuse_missing(background, "background")
    refuse_missing(x[None, :], "x")
    m, d = background.shape
    k = default_n_neighbors(m) if n_neighbors is None else min(int(n_neighbors), m)
    squared = _squared_terms(x, background)  # (m, d)
    if k <= SELF_MATCH_WARNING and k < m and np.any(squared.sum(axis=1) == 0) and np.any((squared == 0).sum(0) == 1):
        import warnings

        warnings.warn(f"x: the explained row is also a row of the background, so with n_neighbors={k} it is its "
                      "own nearest neighbour: any present feature that singles it out (a continuous one) makes "
                      "v(S) close to the model's output at x, and that feature looks like the main driver that "
                      "makes every other redundant; explain rows held out of the background", UserWarning,
                      stacklevel=4)
    sizer = CallSizer(max_rows) if sizer is None else sizer

    step = max(1, DISTANCE_CELLS // m)  # coalitions whose distances to every background row are held at once

    def chunk_values(chunk: np.ndarray) -> np.ndarray:  # the kept (coalition x neighbour) rows, few model calls
        # calls of whole coalitions, at most `limit` rows each unless one coalition has more (ties): the sizer's
        # rows, max_rows and the sizer's cells bound alike
        limit = max(1, min(max_rows, sizer.rows, CallSizer.MAX_CELLS // max(d, 1)))
        counts = np.zeros(len(chunk))
        sums: list = []  # per model call: (coalition indices, predictions)
        pending: list = []  # (coalition indices, row indices) not yet sent
        held = 0

        def flush() -> None:
            nonlocal pending, held
            if pending:
                coalition_idx = np.concatenate([c for c, _ in pending])
                row_idx = np.concatenate([r for _, r in pending])
                preds = np.asarray(predict(np.where(chunk[coalition_idx], x, background[row_idx])))
                sums.append((coalition_idx, preds))
            pending, held = [], 0

        for lo in range(0, len(chunk), step):
            distances = chunk[lo:lo + step].astype(float) @ squared.T  # (c, m)
            kth = np.partition(distances, k - 1, axis=1)[:, k - 1]
            coalition_idx, row_idx = np.nonzero(distances <= kth[:, None] * (1 + 1e-12) + 1e-15)
            coalition_idx = coalition_idx + lo
            per = np.bincount(coalition_idx - lo, minlength=len(distances))
            counts[lo:lo + len(per)] = per
            ends = np.cumsum(per)
            a = 0
            while a < len(per):  # whole coalitions a..b-1 of this block, filling the pending call up to `limit`
                base = ends[a - 1] if a else 0
                b = max(int(np.searchsorted(ends, base + max(limit - held, 0), side="right")), a + 1)
                if held and ends[b - 1] - base > limit - held:  # the next coalition does not fit: send first
                    flush()
                    continue
                b = min(b, len(per))
                pending.append((coalition_idx[base:ends[b - 1]], row_idx[base:ends[b - 1]]))
                held += int(ends[b - 1] - base)
                if held >= limit:
                    flush()
                a = b
        flush()
        coalition_idx = np.concatenate([c for c, _ in sums])
        preds = np.concatenate([p for _, p in sums])
        if preds.ndim == 1:
            return np.bincount(coalition_idx, weights=preds, minlength=len(chunk)) / counts
        # several outputs: one weighted count per output column
        return np.stack([np.bincount(coalition_idx, weights=preds[:, t], minlength=len(chunk))
                         for t in range(preds.shape[1])], axis=1) / counts[:, None]

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        # a coalition sends its k nearest rows (all m only when they tie, as for the empty coalition): calls are
        # sized by k; ties beyond max_rows split the chunk's model calls (whole coalitions each)
        return sizer.map(chunk_values, coalitions, rows_each=k, width=d)

    return value_fn


def refuse_missing(rows: np.ndarray, name: str, names=None) -> None:
    """A ``ValueError`` naming ``name`` when ``rows`` hold missing values (conditional removal cannot use them)."""
    columns = missing_columns(rows, names)
    if columns:
        raise ValueError(f"{name}: missing values in columns {columns}; removal='conditional' finds neighbours by "
                         "distances over the present features, which missing values leave undefined: use "
                         "removal='marginal' (which passes them to the model) or impute them first")


def _squared_terms(x: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Per-feature squared distances ``(m, d)``: standardised for numeric columns, 0/1 mismatch otherwise."""
    numeric = numeric_columns(background)
    squared = np.empty(background.shape, dtype=float)
    if numeric.any():
        values = background[:, numeric].astype(float)
        scale = values.std(axis=0)
        scale[scale == 0] = 1.0
        squared[:, numeric] = ((values - x[numeric].astype(float)) / scale) ** 2
    if not numeric.all():
        squared[:, ~numeric] = (background[:, ~numeric] != x[~numeric]).astype(float)
    return squared
