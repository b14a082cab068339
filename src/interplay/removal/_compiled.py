"""Whether the hybrid rows are built by a compiled kernel (numba) or by numpy: the same bits either way.

numpy builds ``b ^ (mask & (x ^ b))`` in two passes whose inner loops run over one row of ``d`` cells (two
broadcast operands), about 1.1 ns a cell here at 100 and 300 features on an idle machine; the compiled kernel
(:mod:`._select_kernel`) makes one pass at about 0.16-0.25 ns a cell (1.8-3.3x faster than numpy under load).
Importing numba costs about 0.25-0.37 s once per process and loading the cached kernel (both float widths) another
0.18-0.22 s, so by default the kernel is used only once this process has built :data:`COMPILE_AFTER_CELLS` cells
with numpy (about 0.3 s of numpy's passes, what the kernel then saves every 2**28 cells): a short session never
pays for it. Without numba (it is the ``trees`` extra), or when it fails to compile, numpy builds the rows.
"""

from __future__ import annotations

import numpy as np

from .._optional import installed

COMPILE_AFTER_CELLS = 2**28  # cells built by numpy before the kernel is loaded

_state: dict = {"numpy_cells": 0, "kernel": None, "failed": False, "mode": None}


def use_select(mode: str | None) -> str | None:
    """For tests and benchmarks: build hybrid rows with ``"numpy"`` or ``"compiled"`` (numba; numpy when it is
    missing) from now on; ``None`` restores the default rule (module docstring). Returns the previous mode."""
    if mode not in (None, "numpy", "compiled"):
        raise ValueError(f"mode: expected None, 'numpy' or 'compiled', got {mode!r}")
    previous, _state["mode"] = _state["mode"], mode
    return previous


def select_kernel(cells: int):
    """The compiled select (``kernel(mask, flip, back, out)``: the coalitions' bytes as ``uint8`` and C-contiguous,
    writable unsigned-integer arrays of 8 or 4 bytes, the signatures compiled when it is loaded), or ``None`` when
    numpy should build these ``cells``."""
    mode = _state["mode"]
    if mode == "numpy":
        return None
    if _state["kernel"] is not None or _state["failed"]:
        return _state["kernel"]
    if mode is None and _state["numpy_cells"] < COMPILE_AFTER_CELLS:
        _state["numpy_cells"] += cells
        return None
    return _load()


def failed() -> None:
    """The kernel failed on a call: numpy builds the rows from now on."""
    _state["failed"], _state["kernel"] = True, None


_GRAM: dict = {"kernel": None, "failed": False}


def gram_kernel():
    """KernelSHAP's Gram matrix counted on bits (:func:`interplay.estimators._gram_kernel.sign_pair_counts`), or
    None: loaded only once the select kernel is (this process pays for numba already, so a short session never
    loads it), and never again after it failed. It gives the same numbers as the single-precision product it
    replaces (exact integer counts either way)."""
    if _GRAM["kernel"] is not None or _GRAM["failed"]:
        return _GRAM["kernel"]
    if _state["kernel"] is None:
        return None
    try:
        from ..estimators._gram_kernel import sign_pair_counts

        sign_pair_counts(np.zeros((1, 2), dtype=np.uint8), np.empty((1, 1), order="F"))  # compile (or load) it
    except Exception:  # noqa: BLE001  (a numba that cannot compile it: the single-precision product)
        _GRAM["failed"] = True
        return None
    _GRAM["kernel"] = sign_pair_counts
    return sign_pair_counts


def _load():
    if not installed("numba"):
        _state["failed"] = True
        return None
    try:
        from ._select_kernel import select_bits

        for bits in (np.uint64, np.uint32):  # float64 and float32 rows: compile (or load) both once, here
            probe = np.zeros((1, 1), dtype=bits)
            select_bits(np.zeros((1, 1), dtype=np.uint8), probe, probe, np.empty((1, 1, 1), dtype=bits))
    except Exception:  # noqa: BLE001  (a numba that cannot compile here: numpy's passes give the same bits)
        _state["failed"] = True
        return None
    _state["kernel"] = select_bits
    return select_bits
