"""Rows to explain, streamed in chunks: a numpy array, a pandas DataFrame, or a CSV/Parquet file read in batches.

Numeric inputs become float rows. Non-numeric (categorical, text) columns are accepted when the explainer keeps
raw columns (``raw=True``: its model takes DataFrames and encodes them itself, e.g. a Pipeline with a
OneHotEncoder); the rows are then object arrays of the original values, as :class:`interplay.Explainer` uses.

Only one chunk of rows is held in memory at a time (files are read with pyarrow's streaming readers), so the
input may be larger than memory. Feature columns are matched to the explainer's names (by name when the input
has names, else by position) once, before any work starts.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from .._validation import as_array, check_label_order, check_numeric_matrix, check_table, column_order

FILE_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def match_columns(available: Sequence[str], expected: Sequence[str] | None, n_features: int | None,
                  renamed_ok: bool = False) -> list[str]:
    """The input columns to use, in the explainer's feature order (extra columns are left out; an error names
    missing/unexpected ones). The rule is :func:`interplay._validation.column_order`, as for the Explainer."""
    available = [str(c) for c in available]
    order = column_order(available, expected, "X", allow_extra=True, renamed_ok=renamed_ok)
    if order is not None:
        left_out = [c for j, c in enumerate(available) if j not in set(order)]
        if left_out:  # the Explainer's own methods refuse them; a run reads a table that may hold more
            import warnings

            shown = ", ".join(repr(c) for c in left_out[:10]) + (f", ... ({len(left_out)} in all)"
                                                                  if len(left_out) > 10 else "")
            warnings.warn(f"X: column{'s' if len(left_out) > 1 else ''} {shown} {'are' if len(left_out) > 1 else 'is'} "
                          "not among the explainer's features, left out (y= names a label column)", UserWarning,
                          stacklevel=5)
        return [available[j] for j in order]
    if n_features is not None and len(available) != n_features:
        raise ValueError(
            f"X: {len(available)} columns do not match the explainer's {n_features} features; select the "
            "feature columns (or pass y='label column' for a label column)"
        )
    return available


@dataclass
class Chunk:
    """``rows[k]`` is global row ``start + k``; ``labels`` is ``None`` or one label per row; ``index`` is ``None``
    or the rows' own labels (a DataFrame's index, as ints or strings: see :func:`row_labels`)."""

    start: int
    rows: np.ndarray
    labels: list | None
    index: list | None = None


def row_labels(index: Any) -> list:
    """A pandas index as a list of ints or strings, as :meth:`interplay.Explainer.shapley` records it in
    ``info["index"]`` (numpy scalars as Python values; any label that is neither int nor str makes them all text)."""
    labels = [v.item() if isinstance(v, np.generic) else v for v in index]
    if not all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in labels):
        labels = [str(v) for v in labels]
    return labels


class Source:
    """A stream of rows. ``columns``: the feature names used; ``n_rows``: known up front, or ``None`` (CSV);
    ``index_name``: the name of the rows' index (a DataFrame's), or ``None``."""

    kind = "rows"
    columns: list[str] | None
    n_rows: int | None
    index_name: str | None = None

    def chunks(self, chunk_size: int) -> Iterator[Chunk]:
        raise NotImplementedError


class ArraySource(Source):
    kind = "array"

    def __init__(self, X: Any, expected: Sequence[str] | None, n_features: int | None, y: Any,
                 raw: bool = False, renamed_ok: bool = False) -> None:
        self.frame = None
        self.raw = raw
        if hasattr(X, "columns") and hasattr(X, "iloc"):
            names = [str(c) for c in X.columns]
            if isinstance(y, str):
                if y not in names:
                    raise ValueError(f"y: no column {y!r} in X; columns are {names}")
                y, X = X[y].to_numpy(), X.drop(columns=[y])
                names = [str(c) for c in X.columns]
            check_label_order(X, y)
            self.columns = match_columns(names, expected, n_features, renamed_ok)
            X = X.set_axis(names, axis=1)
            from pandas.api.types import is_bool_dtype, is_numeric_dtype

            bad = [c for c in self.columns if not (is_numeric_dtype(X[c].dtype) or is_bool_dtype(X[c].dtype))]
            if bad and not raw:
                raise TypeError(f"X: non-numeric columns {bad}; encode them first (e.g. one-hot) "
                                "or wrap the encoding inside the model")
            self.frame = X[self.columns]
            self.n_rows = len(X)
            self.index_name = None if X.index.name is None else str(X.index.name)
        else:
            if isinstance(y, str):
                raise ValueError("y: a column name needs X with named columns (a DataFrame or a file)")
            arr = as_array(X, "X")
            if arr.ndim == 1 and n_features is not None and arr.size == n_features:
                arr = arr[None, :]
            if arr.ndim != 2:
                raise ValueError(f"X: expected a 2-D array (rows x features), got shape {arr.shape}")
            if n_features is not None and arr.shape[1] != n_features:
                raise ValueError(f"X: expected {n_features} columns (the explainer's features), got {arr.shape[1]}")
            self.array = arr
            self.columns = list(expected) if expected is not None else None
            self.n_rows = len(arr)
        self.labels = None if y is None else list(np.ravel(np.asarray(y, dtype=object)))
        if self.labels is not None and len(self.labels) != self.n_rows:
            raise ValueError(f"y: expected {self.n_rows} labels (one per row of X), got {len(self.labels)}")

    def chunks(self, chunk_size: int) -> Iterator[Chunk]:
        for start in range(0, self.n_rows, chunk_size):
            stop = min(start + chunk_size, self.n_rows)
            part = self.frame.iloc[start:stop] if self.frame is not None else self.array[start:stop]
            if self.raw:  # the original values (the model encodes them), as the Explainer keeps them
                rows, _, _ = check_table(part, "X", raw=True, allow_missing=True)
            else:
                rows, _ = check_numeric_matrix(part, "X", allow_nan=True)
            labels = None if self.labels is None else self.labels[start:stop]
            index = None if self.frame is None else row_labels(part.index)  # kept, as Explainer.shapley keeps it
            yield Chunk(start, np.ascontiguousarray(rows), labels, index)


class FileSource(Source):
    """CSV or Parquet file, read in record batches by pyarrow and re-cut into chunks of ``chunk_size`` rows."""

    def __init__(self, path: str, expected: Sequence[str] | None, n_features: int | None, y: Any,
                 raw: bool = False, renamed_ok: bool = False) -> None:
        import pyarrow as pa

        self.raw = raw
        self.path = os.fspath(path)
        if not os.path.isfile(self.path):
            raise ValueError(f"X: no such file {self.path!r}")
        self.kind = FILE_SUFFIXES.get(os.path.splitext(self.path)[1].lower())
        if self.kind is None:
            raise ValueError(f"X: expected a .csv, .parquet or .pq file, got {self.path!r}")
        if y is not None and not isinstance(y, str):
            raise ValueError("y: with X a file, give the name of its label column (y='column')")
        schema = self._open().schema if self.kind == "csv" else self._parquet().schema_arrow
        names = [f.name for f in schema]
        if y is not None and y not in names:
            raise ValueError(f"y: no column {y!r} in {self.path}; columns are {names}")
        self.label_column = y
        self.columns = match_columns([c for c in names if c != y], expected, n_features, renamed_ok)
        bad = [c for c in self.columns
               if not (pa.types.is_integer(schema.field(c).type) or pa.types.is_floating(schema.field(c).type)
                       or pa.types.is_boolean(schema.field(c).type) or pa.types.is_decimal(schema.field(c).type)
                       or pa.types.is_null(schema.field(c).type))]
        if bad and not raw:
            raise TypeError(f"X: non-numeric columns {bad} in {self.path}; encode them first "
                            "or wrap the encoding inside the model")
        self.n_rows = self._parquet().metadata.num_rows if self.kind == "parquet" else None

    def _parquet(self):
        import pyarrow.parquet as pq

        # buffered reads without pre-buffering: ``iter_batches`` then holds about a page per column, not whole
        # row groups (pyarrow's default pre-buffering kept RSS growing with the rows read: ~190 MB per 1M x 20)
        return pq.ParquetFile(self.path, buffer_size=1 << 20, pre_buffer=False)

    def _open(self):
        import pyarrow.csv as pcsv

        # an empty text field (a missing value written by pandas) is missing, as pandas.read_csv reads it: pyarrow
        # keeps it as the text '', which a Pipeline's imputer does not fill (another row was explained, silently)
        return pcsv.open_csv(self.path, read_options=pcsv.ReadOptions(block_size=1 << 20, use_threads=False),
                             convert_options=pcsv.ConvertOptions(strings_can_be_null=True))

    def _batches(self, chunk_size: int):
        wanted = self.columns + ([self.label_column] if self.label_column else [])
        if self.kind == "parquet":
            yield from self._parquet().iter_batches(batch_size=chunk_size, columns=wanted, use_threads=False)
        else:
            for batch in self._open():
                yield batch.select(wanted)

    def chunks(self, chunk_size: int) -> Iterator[Chunk]:
        import pyarrow as pa

        pending: list = []
        n_pending = 0
        start = 0
        batches = self._batches(chunk_size)
        exhausted = False
        while not exhausted or n_pending:
            while n_pending < chunk_size and not exhausted:
                batch = next(batches, None)
                if batch is None:
                    exhausted = True
                elif batch.num_rows:
                    pending.append(batch)
                    n_pending += batch.num_rows
            if not n_pending:
                break
            table = pa.Table.from_batches(pending)
            take, rest = table.slice(0, chunk_size), table.slice(chunk_size)
            pending, n_pending = rest.to_batches(), rest.num_rows
            yield self._chunk(start, take)
            start += take.num_rows

    def _chunk(self, start: int, table) -> Chunk:
        cols = [_column_values(table.column(c)) for c in self.columns]
        if self.raw:
            import pandas as pd

            frame = pd.DataFrame({name: col for name, col in zip(self.columns, cols)})
            rows, _, _ = check_table(frame, "X", raw=True, allow_missing=True)
        else:
            rows, _ = check_numeric_matrix(np.column_stack([np.asarray(c, dtype=float) for c in cols]), "X",
                                           allow_nan=True)
        labels = None
        if self.label_column:
            labels = table.column(self.label_column).to_pylist()
        return Chunk(start, np.ascontiguousarray(rows), labels)


def _column_values(column) -> np.ndarray:
    """A pyarrow column as a numpy array, missing values as None/NaN. A dictionary column (a pandas categorical
    written to Parquet) is decoded first: pyarrow's ``to_numpy`` of a chunked dictionary column gives its missing
    values some category of the dictionary (a NaN read as a real category, silently)."""
    import pyarrow as pa

    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    return column.to_numpy(zero_copy_only=False)


def open_source(X: Any, *, feature_names: Sequence[str] | None, n_features: int | None, y: Any = None,
                raw: bool = False, renamed_ok: bool = False) -> Source:
    """A :class:`Source` over ``X`` (array, DataFrame, or path to a CSV/Parquet file); ``raw``: keep
    non-numeric columns as their values (for an explainer whose model encodes them); ``renamed_ok``: a LightGBM
    model's whitespace-renamed names match the data's (:func:`interplay._validation.column_order`)."""
    if isinstance(X, (str, os.PathLike)):
        return FileSource(X, feature_names, n_features, y, raw, renamed_ok)
    return ArraySource(X, feature_names, n_features, y, raw, renamed_ok)
