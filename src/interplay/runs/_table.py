"""The columns of a run's Parquet parts: one row per explained row, one column per number (wide, SQL-friendly).

``row`` (global index in the input), ``base_value`` (``v(empty)``), ``n_evaluations``, then ``value.<feature>``
per feature, ``se.<feature>`` when the method reports standard errors, ``data.<feature>`` (the explained input,
when stored) and, for ``kind="bivariate"``, ``adjacency.<i>-><j>`` for every ordered pair ``i != j`` (the weight
of the explanation-graph edge ``i -> j``: importance of ``j`` when ``i`` is present).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .._validation import float_rows

FIXED = ("row", "base_value", "n_evaluations")


def value_columns(names: Sequence[str], prefix: str) -> list[str]:
    return [f"{prefix}.{f}" for f in names]


def pair_index(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Row/column indices of the off-diagonal entries of a ``(d, d)`` matrix, row-major."""
    i, j = np.nonzero(~np.eye(d, dtype=bool))
    return i, j


def adjacency_columns(names: Sequence[str]) -> list[str]:
    i, j = pair_index(len(names))
    return [f"adjacency.{names[a]}->{names[b]}" for a, b in zip(i, j)]


def to_table(result: dict, names: Sequence[str], data: np.ndarray | None, data_names: Sequence[str] | None = None):
    """A pyarrow Table of one chunk's results (see the module docstring for the columns). ``data_names``: the
    input columns, when they differ from the explained features (``groups=``)."""
    import pyarrow as pa

    columns = {name: result[name] for name in FIXED}
    columns.update(zip(value_columns(names, "value"), result["values"].T))
    if result["std_errors"] is not None:
        columns.update(zip(value_columns(names, "se"), result["std_errors"].T))
    if data is not None:
        data = float_rows(data)  # raw rows: numbers where possible, NaN for categories (as Explanation.data)
        columns.update(zip(value_columns(data_names or names, "data"), data.T))
    if result["adjacency"] is not None:
        i, j = pair_index(len(names))
        columns.update(zip(adjacency_columns(names), result["adjacency"][:, i, j].T))
    return pa.table({k: pa.array(np.ascontiguousarray(v)) for k, v in columns.items()})


def matrix(table, columns: Sequence[str]) -> np.ndarray:
    """The given columns of ``table`` as a float ``(m, len(columns))`` array."""
    if not len(columns):
        return np.empty((table.num_rows, 0))
    return np.column_stack([table.column(c).to_numpy() for c in columns]).astype(float, copy=False)


def adjacency(table, names: Sequence[str]) -> np.ndarray:
    """The ``(m, d, d)`` adjacency matrices stored in ``table`` (zero diagonal)."""
    d = len(names)
    out = np.zeros((table.num_rows, d, d))
    i, j = pair_index(d)
    out[:, i, j] = matrix(table, adjacency_columns(names))
    return out
