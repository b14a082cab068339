"""Column helpers shared by the removal functions: numeric vs categorical columns of a (possibly object) table,
and the (coalitions x outputs) reduction used by every value function."""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from .._validation import missing_mask
from ._compiled import failed as compiled_failed
from ._compiled import select_kernel


def numeric_columns(data: np.ndarray) -> np.ndarray:
    """Boolean mask of the columns of ``data`` whose values are all numbers (all of them for a float array).

    In an object table, strings and booleans make a column categorical (it then takes modes, never means);
    missing values (NaN, ``None``, ``pd.NA``) do not decide, and a column of missing values only is not numeric
    (its mode, a missing value, is then its reference under every baseline)."""
    if data.dtype != object:
        return np.ones(data.shape[1], dtype=bool)
    mask = np.zeros(data.shape[1], dtype=bool)
    for j in range(data.shape[1]):  # per column, once
        column = data[:, j][~missing_mask(data[:, j])]
        try:
            column.astype(float)
            mask[j] = len(column) > 0 and not any(isinstance(v, (str, bytes, bool, np.bool_)) for v in column)
        except (TypeError, ValueError):
            mask[j] = False
    return mask


def float_column(values: np.ndarray) -> np.ndarray:
    """A numeric column (see :func:`numeric_columns`) as floats, its missing values as NaN."""
    if values.dtype != object:
        return values.astype(float)
    return np.where(missing_mask(values), np.nan, values).astype(float)


def column_modes(data: np.ndarray) -> np.ndarray:
    """The most frequent value of each column (ties: the first in sorted order for numbers, first seen else)."""
    out = np.empty(data.shape[1], dtype=data.dtype)
    for j in range(data.shape[1]):
        out[j] = joint_mode(data[:, [j]])[0]
    return out


def joint_mode(block: np.ndarray) -> np.ndarray:
    """The most frequent row of ``block`` (``(m, g)``): a valid joint value of a group of columns.

    Rows with a missing value count only when every row has one (then the mode holds missing values, as NaN)."""
    holes = missing_mask(block).any(axis=1)
    if holes.any():
        if holes.all():
            return _mode_with_missing(block)
        block = block[~holes]
    if block.dtype != object:
        values, counts = np.unique(block, axis=0, return_counts=True)
        return values[np.argmax(counts)]
    return np.array(_most_frequent_row(block), dtype=object)  # categorical data: hashable values


def _mode_with_missing(block: np.ndarray) -> np.ndarray:
    """:func:`joint_mode` of rows that all hold a missing value: missing values (any kind) count as one value."""
    holes = missing_mask(block)
    marked = np.where(holes, None, block).astype(object)  # None: the one hashable, comparable missing value
    mode = _most_frequent_row(marked)
    out = np.array([np.nan if v is None else v for v in mode], dtype=object)
    return out if block.dtype == object else out.astype(block.dtype)


def _most_frequent_row(block: np.ndarray) -> tuple:
    """The most frequent row of an object ``block`` (hashable cells), first seen on ties."""
    counts: dict = {}
    for row in block:  # once per background row
        key = tuple(row)
        counts[key] = counts.get(key, 0) + 1
    return max(counts, key=counts.get)


class CallSizer:
    """Model rows per call, learned from the model's speed; results never depend on it (rows are independent).

    Calls start at :attr:`START_ROWS` rows, fewer for wide rows (at most :attr:`START_CELLS` cells, 1 MiB of
    float64, and at least :attr:`MIN_START_ROWS` rows): such blocks of hybrid rows stay in the processor's cache
    between being built and being read by the model, and so do a small model's own intermediate arrays (a numpy
    MLP with 100 hidden units took about 2x longer per row on 4,096-row calls than on 1,024-row calls here, from
    page faults of its fresh intermediates; hybrid rows built 20,480 at a time cost a third of its time; with
    1,000 features its whole explanation took 5% less on 256-row calls than on 1,024-row ones). While a
    call of 4x the rows costs at least 25% less per row (a margin above the noise of a shared machine: a step
    taken on noise can cost a small model 5x; the start size's reference is the faster of its first two timed
    calls), calls grow 4x, up to ``max_rows`` rows and
    :attr:`MAX_CELLS` cells: models with a large fixed cost per call want large calls (a 500-tree scikit-learn
    forest, which loops over its trees in Python, ran 1.7x faster per row on 4,096-row calls than on 1,024).
    The first step that does not pay settles the size: kept if about even, undone if slower. Only full calls
    are timed (CPU time), and the very first one not at all (warm-up). One sizer serves every row of an
    explainer. A last call shorter than half a call joins the one before (within ``max_rows`` and
    :attr:`MAX_CELLS`; not with ``learn=False``, whose size is a caller's): a model with a fixed cost per call pays
    it once less (the forest's 4,200 rows in one call, not 4,090 and 110: its fixed cost is most of a 110-row
    call). Cost: two clock reads per call.

    ``learn=False`` keeps the start size (for rows this wide): the calls then depend on the data only, so a model
    whose last bits depend on how many rows a call holds (a BLAS matrix product: MLPs, linear models) gives the
    same bits every time (batch runs use it: two runs, or a run and its resume, agree bit for bit).

    ``start_rows``: the model's own start size (:attr:`ModelFunction.call_rows`, a PyTorch module on a GPU), used
    instead of the cache-sized one, still within ``max_rows`` and :attr:`MAX_CELLS`, and learned from as usual.
    """

    START_ROWS = 1024
    START_CELLS = 2**17  # 1 MiB of float64 hybrid rows in the first calls at most...
    MIN_START_ROWS = 256  # ...but never fewer rows than this (a call has a fixed cost too)
    MAX_CELLS = 2**23  # 64 MiB of float64 hybrid rows per call at most

    def __init__(self, max_rows: int = 65536, *, learn: bool = True, rows: int | None = None,
                 start_rows: int | None = None) -> None:
        self.max_rows = max(1, int(max_rows))
        self.learn = bool(learn)
        self.start_rows = None if start_rows is None else max(1, int(start_rows))
        self.start = self.rows = min(self.START_ROWS if self.start_rows is None else self.start_rows, self.max_rows)
        self.best: float | None = None  # CPU seconds per row at the current size
        self.first: float | None = None  # the first timed call's, at the start size (see _observe)
        self.settled = self.rows >= self.max_rows
        self.warm = False
        if rows is not None:  # a size chosen for a batch run: kept as it is
            self.start = self.rows = max(1, min(int(rows), self.max_rows))
            self.settled, self.learn = True, False

    def map(self, values_of: Callable[[np.ndarray], np.ndarray], coalitions: np.ndarray, *,
            rows_each: int = 1, width: int = 1) -> np.ndarray:
        """``values_of`` on consecutive chunks of ``coalitions`` (each costing ``rows_each`` model rows of
        ``width`` columns), concatenated along the coalition axis."""
        if not (self.warm or self.settled):  # before any timed call: the start size for rows this wide
            self._start_for(width)
        if len(coalitions) * rows_each < min(self.rows, self.MAX_CELLS // max(int(width), 1)):
            return np.asarray(values_of(coalitions))  # one call, less than a full one: nothing to learn
        parts, start = [], 0
        cap = min(self.max_rows, max(1, self.MAX_CELLS // max(int(width), 1)))  # rows a call may hold at most
        while start < len(coalitions):
            rows = min(self.rows, cap)
            size = max(1, rows // max(int(rows_each), 1))
            left = len(coalitions) - start
            if self.learn and size < left < size + (size + 1) // 2 and left * rows_each <= cap:
                size = left  # the rest in this call: a short last call costs a model's fixed cost per call again
            chunk = coalitions[start:start + size]
            began = time.process_time()
            parts.append(np.asarray(values_of(chunk)))
            if len(chunk) == size and not self.settled and self.learn:
                self._observe(size * rows_each, time.process_time() - began)
            start += len(chunk)
        return stack(parts)

    def _start_for(self, width: int) -> None:
        """The start size for rows ``width`` columns wide (at most :attr:`START_CELLS` cells)."""
        if self.start_rows is not None:  # the model's own: within the cells of a call only
            wide = max(1, self.MAX_CELLS // max(int(width), 1))
            self.start = self.rows = min(self.start_rows, wide, self.max_rows)
            return
        wide = max(self.MIN_START_ROWS, self.START_CELLS // max(int(width), 1))
        self.start = self.rows = min(self.START_ROWS, wide, self.max_rows)

    def _observe(self, rows: int, seconds: float) -> None:
        if not self.warm:
            self.warm = True
            return
        per_row = seconds / max(rows, 1)
        if self.best is None:  # the reference: the faster of two timed calls, as noise only ever slows a call (one
            if self.first is None:  # slow reference made a 4x larger call look even, and an MLP kept calls 2x
                self.first = per_row  # slower per row: 2.33x its model time instead of 1.2 at 100 features)
                return
            per_row = min(per_row, self.first)
        if self.best is None or per_row < 0.75 * self.best:  # paid clearly (not noise): try 4x larger calls
            self.best = per_row
            if self.rows >= self.max_rows:
                self.settled = True
            else:
                self.rows = min(self.max_rows, 4 * self.rows)
        elif per_row <= self.best:  # about even: keep the larger calls (fewer of them)
            self.settled = True
        else:  # worse: back to the previous size
            self.rows = max(self.rows // 4, self.start)
            self.settled = True


class HybridRows:
    """``where(mask[:, None, :], x, background)``: the ``(k, m, d)`` hybrid rows of ``k`` coalitions over ``m``
    background rows, exactly (bit for bit, NaN and signed zeros included).

    For float64/float32 data they are built as a bitwise select on the floats' bits,
    ``b ^ (mask & (x ^ b))`` with ``x ^ b`` computed once: two numpy passes, about as fast as ``np.where`` with
    its three broadcast operands (116 against 123 us for 1,020 rows of 100 features on an idle machine; a fifth
    faster in an earlier measurement, not reproduced since), or in one compiled pass where numba is installed
    and worth importing (:mod:`._compiled`: the same bits; 16 against 116 us there, 25 against 120 us at 300
    features; 1.8-3.3x under load; since it reads the mask's bytes itself, 11.6 and 21 us). Other dtypes (object
    tables) use ``np.where``. Each call returns a new array (a model may keep its input). Cost: one or two passes
    over the ``k m d`` cells.
    """

    def __init__(self, x: np.ndarray, background: np.ndarray, *, coded: bool = False) -> None:
        self.x, self.background = x, background
        dtype = np.result_type(x, background)
        self.bits = None
        # an object table, for a model that takes typed columns: indices into per-column palettes (CodedRows)
        self.palettes = Palettes(x, background) if coded and dtype.kind == "O" else None
        if dtype.kind == "f" and dtype.itemsize in (4, 8) and x.dtype == dtype and background.dtype == dtype:
            self.dtype, self.bits = dtype, np.dtype(f"u{dtype.itemsize}")
            self.back = np.require(background, requirements=["C", "W"]).view(self.bits)  # as the kernel takes it
            self.flip = np.ascontiguousarray(x).view(self.bits)[None, :] ^ self.back  # (m, d), once

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        if self.palettes is not None:
            return self.palettes.rows(mask)
        if self.bits is None:
            return np.where(mask[:, None, :], self.x[None, None, :], self.background[None, :, :])
        out = np.empty((len(mask), *self.back.shape), dtype=self.bits)
        kernel = select_kernel(out.size)
        if kernel is not None:
            try:
                kernel(np.ascontiguousarray(mask).view(np.uint8), self.flip, self.back, out)
                return out.view(self.dtype)
            except Exception:  # noqa: BLE001  (numba could not compile this signature: numpy's passes)
                compiled_failed()
        ones = np.negative(mask.view(np.uint8), dtype=self.bits)  # True -> all bits set, False -> 0
        np.bitwise_and(ones[:, None, :], self.flip, out=out)
        np.bitwise_xor(out, self.back, out=out)
        return out.view(self.dtype)


class Palettes:
    """The values a hybrid row of ``x`` over ``background`` can hold, per column: ``x``'s, then each background
    row's (``(m + 1,)`` objects); :meth:`rows` gives hybrid rows as indices into them (:class:`CodedRows`), and
    :meth:`typed` each palette in a model's column dtypes, converted once (``convert(values, dtype)``, the
    adapter's conversion of a raw column) and kept for every later call."""

    def __init__(self, x: np.ndarray, background: np.ndarray) -> None:
        self.values = np.concatenate([np.asarray(x, dtype=object)[None, :], np.asarray(background, dtype=object)])
        m = len(background)
        self.code_dtype = np.int16 if m < 2**15 - 1 else np.int32
        self.background_codes = np.arange(1, m + 1, dtype=self.code_dtype)
        self._typed: dict = {}

    def rows(self, mask: np.ndarray) -> "CodedRows":
        """The ``(k, m, d)`` hybrid rows of the coalitions ``mask`` (``(k, d)``): index 0 (``x``) where a
        feature is in the coalition, else ``1 + b`` (background row ``b``)."""
        codes = np.where(mask[:, None, :], self.code_dtype(0), self.background_codes[None, :, None])
        return CodedRows(self, codes)

    def typed(self, dtypes: tuple, convert: Callable) -> list:
        key = tuple(dtypes)
        if key not in self._typed:
            self._typed[key] = [convert(self.values[:, j], dt) for j, dt in enumerate(dtypes)]
        return self._typed[key]


class CodedRows:
    """Hybrid rows of an object table as indices ``codes`` (``(..., d)``) into per-column :class:`Palettes`:
    cell ``[..., j]`` holds ``palettes.values[codes[..., j], j]``. A model adapter with column dtypes builds each
    column by one ``take`` from the palette already in its dtype (on Adult's 14 columns, 16,384 rows: 3.3 ms
    against 14.6 ms for converting object columns, and no object array of the rows at all); anything else gets
    the object array (``np.asarray(rows)``), value for value the same."""

    def __init__(self, palettes: Palettes, codes: np.ndarray) -> None:
        self.palettes, self.codes = palettes, codes

    @property
    def shape(self) -> tuple:
        return self.codes.shape

    @property
    def ndim(self) -> int:
        return self.codes.ndim

    def __len__(self) -> int:
        return len(self.codes)

    def reshape(self, *shape) -> "CodedRows":
        return CodedRows(self.palettes, self.codes.reshape(*shape))

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        out = np.empty(self.codes.shape, dtype=object)
        for j in range(self.codes.shape[-1]):
            out[..., j] = self.palettes.values[self.codes[..., j], j]
        return out if dtype is None else out.astype(dtype)

    def columns(self, dtypes: tuple, convert: Callable) -> list:
        """Each column (of 2-D rows) in its dtype: its typed palette taken at the column's indices."""
        return [palette.take(self.codes[:, j]) for j, palette in enumerate(self.palettes.typed(dtypes, convert))]


def stack(parts: list[np.ndarray]) -> np.ndarray:
    """Concatenate per-chunk values along the coalition axis."""
    return np.concatenate(parts, axis=0) if parts else np.zeros(0)


def chunked(values_of: Callable[[np.ndarray], np.ndarray], coalitions: np.ndarray, size: int) -> np.ndarray:
    """``values_of`` applied to consecutive chunks of at most ``size`` coalitions (one model call per chunk, so
    memory stays bounded), the results concatenated along the coalition axis."""
    return stack([np.asarray(values_of(coalitions[start:start + size]))
                  for start in range(0, len(coalitions), size)])
