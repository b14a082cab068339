"""The columns of a run's Parquet parts: one row per explained row, one column per number (wide, SQL-friendly).

``row`` (global index in the input), ``base_value`` (``v(empty)``), ``n_evaluations``, ``target`` (the output the
row explains: the class label, e.g. each row's predicted class for ``target="predicted"``), ``index`` (the row's
label in the input DataFrame, when it was one), ``method`` (under ``method="auto"``: the method each row's choice
was, e.g. ``exact`` where its null players leave few features), ``null_players`` (each row's features explained
as exact zeros, a list of names; only in parts where a row has one), ``budget`` (the coalition evaluations the row's
sampler was given: the resolved default when the run gave no budget; null for a method without one, and absent
in parts with no such row or written by versions before it), then ``value.<feature>``
per feature, ``se.<feature>`` when the method reports standard errors, ``data.<feature>`` (the explained input,
when stored: floats for numeric input; for raw input (a model that encodes its own categorical columns) each
column as its values' type: integers, floats or booleans when every value of the chunk's column is one, else
text, e.g. category names) and, for ``kind="bivariate"``, ``adjacency.<i>-><j>`` for every ordered pair
``i != j`` (the weight of the explanation-graph edge ``i -> j``: importance of ``j`` when ``i`` is present).
"""

from __future__ import annotations

import numbers
from typing import Any, Sequence

import numpy as np

from .._validation import float_rows, is_missing

FIXED = ("row", "base_value", "n_evaluations")
TARGET, INDEX, METHOD, NULL_PLAYERS, BUDGET = "target", "index", "method", "null_players", "budget"


def value_columns(names: Sequence[str], prefix: str) -> list[str]:
    return [f"{prefix}.{f}" for f in names]


def pair_index(d: int) -> tuple[np.ndarray, np.ndarray]:
    """Row/column indices of the off-diagonal entries of a ``(d, d)`` matrix, row-major."""
    i, j = np.nonzero(~np.eye(d, dtype=bool))
    return i, j


def adjacency_columns(names: Sequence[str]) -> list[str]:
    i, j = pair_index(len(names))
    return [f"adjacency.{names[a]}->{names[b]}" for a, b in zip(i, j)]


def labels_array(labels: Sequence[Any]):
    """Row labels or targets (ints, strings, ...) as one pyarrow array: integers when every label is one, else
    by :func:`_raw_array` (floats, booleans, else text)."""
    import pyarrow as pa

    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in labels):
        return pa.array([int(v) for v in labels], pa.int64())
    column = np.empty(len(labels), dtype=object)
    column[:] = list(labels)
    return _raw_array(column)


def to_table(result: dict, names: Sequence[str], data: np.ndarray | None, data_names: Sequence[str] | None = None,
             index: Sequence[Any] | None = None):
    """A pyarrow Table of one chunk's results (see the module docstring for the columns). ``data_names``: the
    input columns, when they differ from the explained features (``groups=``); ``index``: the rows' labels."""
    import pyarrow as pa

    columns = {name: result[name] for name in FIXED}
    columns.update(zip(value_columns(names, "value"), result["values"].T))
    if result["std_errors"] is not None:
        columns.update(zip(value_columns(names, "se"), result["std_errors"].T))
    arrays = {k: pa.array(np.ascontiguousarray(v)) for k, v in columns.items()}
    if result.get("target") is not None:
        arrays[TARGET] = labels_array(result["target"])
    if index is not None:
        arrays[INDEX] = labels_array(index)
    if result.get("method") is not None:
        arrays[METHOD] = pa.array(list(result["method"]), pa.string())
    if any(b is not None for b in result.get("budget") or ()):  # each row's budget, where its method has one
        arrays[BUDGET] = pa.array(list(result["budget"]), pa.int64())
    if any(result.get("null_players") or ()):  # each row's null players (lists of names), when a row has one
        arrays[NULL_PLAYERS] = pa.array([[str(n) for n in row] for row in result["null_players"]],
                                        pa.list_(pa.string()))
    if data is not None:
        arrays.update(zip(value_columns(data_names or names, "data"), data_arrays(data)))
    if result["adjacency"] is not None:
        i, j = pair_index(len(names))
        arrays.update((k, pa.array(np.ascontiguousarray(v)))
                      for k, v in zip(adjacency_columns(names), result["adjacency"][:, i, j].T))
    return pa.table(arrays)


def _kind(value: Any) -> str:
    """The storage kind of one raw cell: ``"bool"``, ``"int"``, ``"float"`` or ``"text"``."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (numbers.Integral, np.integer)):
        return "int"
    if isinstance(value, (numbers.Real, np.floating)):
        return "float"
    return "text"


def _raw_array(column: np.ndarray):
    """One raw (object) input column as a pyarrow array: booleans, integers or floats when every value is one
    (integers and floats together: floats), else text (each value's ``str``; a missing value, None, NaN or
    pd.NA, stays null)."""
    import pyarrow as pa

    kinds = {_kind(v) for v in column if not is_missing(v)}
    if kinds <= {"bool"} and kinds:
        return pa.array([None if is_missing(v) else bool(v) for v in column], pa.bool_())
    if kinds <= {"int"} and kinds:
        try:
            return pa.array([None if is_missing(v) else int(v) for v in column], pa.int64())
        except OverflowError:  # beyond 64 bits: as text, exactly
            return pa.array([None if is_missing(v) else str(v) for v in column], pa.string())
    if kinds <= {"int", "float"}:
        return pa.array(float_rows(column[:, None]).ravel(), pa.float64())
    return pa.array([None if is_missing(v) else str(v) for v in column], pa.string())


def data_arrays(data: np.ndarray) -> list:
    """The explained rows ``(m, n_columns)`` as one pyarrow array per column: floats for a numeric matrix; for raw
    rows (an object matrix), each column by :func:`_raw_array`, so category names are kept as text."""
    import pyarrow as pa

    if data.dtype != object:
        return [pa.array(np.ascontiguousarray(col, dtype=float)) for col in data.T]
    return [_raw_array(col) for col in data.T]


def matrix(table, columns: Sequence[str]) -> np.ndarray:
    """The given columns of ``table`` as a float ``(m, len(columns))`` array."""
    if not len(columns):
        return np.empty((table.num_rows, 0))
    return np.column_stack([table.column(c).to_numpy() for c in columns]).astype(float, copy=False)


def data_matrix(table, columns: Sequence[str]) -> np.ndarray:
    """The stored input columns of ``table`` as an ``(m, len(columns))`` array: floats when every column is
    numeric floats (numeric input), else an object array of the values as stored (numbers, booleans and text,
    e.g. category names; NaN where missing, as :meth:`interplay.Explainer.shapley` gives them)."""
    if not len(columns):
        return np.empty((table.num_rows, 0))
    import pyarrow as pa

    if all(pa.types.is_floating(table.schema.field(c).type) for c in columns):
        return matrix(table, columns)
    out = np.empty((table.num_rows, len(columns)), dtype=object)
    for k, c in enumerate(columns):
        out[:, k] = [np.nan if v is None else v for v in table.column(c).to_pylist()]
    return out


def concat(tables: list):
    """One pyarrow Table of parts whose columns may differ in type (a raw input column stored as numbers in one
    chunk and as text in another): such a column becomes text (floats when all are numbers) in every part; a
    part where the column is all missing has no say (it takes the others' type, as nulls)."""
    import pyarrow as pa

    schemas = [t.schema for t in tables]
    if all(s.equals(schemas[0]) for s in schemas[1:]):
        return pa.concat_tables(tables)
    target = {}
    names = list(dict.fromkeys(n for s in schemas for n in s.names))
    for name in names:
        present = [t.column(name) for t in tables if name in t.column_names]
        if len({c.type for c in present}) < 2:
            continue
        # a part whose column is all missing (stored as floats: NaN) has no say in the type: a numeric category
        # column (3, 7, 11) with a chunk where it is all NaN stays integers (it became 7.0 in every part)
        types = {c.type for c in present if not _all_missing(c)} or {c.type for c in present}
        if len(types) > 1:
            numeric = all(pa.types.is_integer(t) or pa.types.is_floating(t) for t in types)
            target[name] = pa.float64() if numeric else pa.string()
        else:
            target[name] = types.pop()
    # a column some parts lack (``target``/``index`` in the parts of a run begun by an older version) is null there
    return pa.concat_tables([_cast(t, target) for t in tables], promote_options="default")


def _cast(table, target: dict):
    """``table`` with the columns named in ``target`` cast to their type there (NaN to null for any type but
    floats)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for name, kind in target.items():
        if name not in table.column_names or table.schema.field(name).type == kind:
            continue
        column = table.column(name)
        if not pa.types.is_floating(kind) and pa.types.is_floating(column.type):
            column = pc.if_else(pc.is_nan(column), pa.scalar(None, column.type), column)
        table = table.set_column(table.column_names.index(name), name, column.cast(kind))
    return table


def _all_missing(column) -> bool:
    """Whether every value of a pyarrow column is missing: null, or NaN in a float column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if column.null_count == len(column):
        return True
    if not pa.types.is_floating(column.type):
        return False
    return bool(pc.all(pc.fill_null(pc.is_nan(column), True)).as_py())


def adjacency(table, names: Sequence[str]) -> np.ndarray:
    """The ``(m, d, d)`` adjacency matrices stored in ``table`` (zero diagonal)."""
    d = len(names)
    out = np.zeros((table.num_rows, d, d))
    i, j = pair_index(d)
    out[:, i, j] = matrix(table, adjacency_columns(names))
    return out
