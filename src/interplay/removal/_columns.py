"""Column helpers shared by the removal functions: numeric vs categorical columns of a (possibly object) table,
and the (coalitions x outputs) reduction used by every value function."""

from __future__ import annotations

from typing import Callable

import numpy as np


def numeric_columns(data: np.ndarray) -> np.ndarray:
    """Boolean mask of the columns of ``data`` whose values are all numbers (all of them for a float array).

    In an object table, strings and booleans make a column categorical (it then takes modes, never means)."""
    if data.dtype != object:
        return np.ones(data.shape[1], dtype=bool)
    mask = np.zeros(data.shape[1], dtype=bool)
    for j in range(data.shape[1]):  # per column, once
        try:
            data[:, j].astype(float)
            mask[j] = not any(isinstance(v, (str, bytes, bool, np.bool_)) for v in data[:, j])
        except (TypeError, ValueError):
            mask[j] = False
    return mask


def column_modes(data: np.ndarray) -> np.ndarray:
    """The most frequent value of each column (ties: the first in sorted order for numbers, first seen else)."""
    out = np.empty(data.shape[1], dtype=data.dtype)
    for j in range(data.shape[1]):
        out[j] = joint_mode(data[:, [j]])[0]
    return out


def joint_mode(block: np.ndarray) -> np.ndarray:
    """The most frequent row of ``block`` (``(m, g)``): a valid joint value of a group of columns."""
    if block.dtype != object:
        values, counts = np.unique(block, axis=0, return_counts=True)
        return values[np.argmax(counts)]
    keys = [tuple(row) for row in block]  # categorical data: hashable values, once per background row
    counts: dict = {}
    for key in keys:
        counts[key] = counts.get(key, 0) + 1
    best = max(counts, key=counts.get)
    return np.array(best, dtype=object)


def stack(parts: list[np.ndarray]) -> np.ndarray:
    """Concatenate per-chunk values along the coalition axis."""
    return np.concatenate(parts, axis=0) if parts else np.zeros(0)


def chunked(values_of: Callable[[np.ndarray], np.ndarray], coalitions: np.ndarray, size: int) -> np.ndarray:
    """``values_of`` applied to consecutive chunks of at most ``size`` coalitions (one model call per chunk, so
    memory stays bounded), the results concatenated along the coalition axis."""
    return stack([np.asarray(values_of(coalitions[start:start + size]))
                  for start in range(0, len(coalitions), size)])
