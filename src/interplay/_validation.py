"""One place for input checks, so every error names the parameter, what was expected and what came.

Habit copied from scikit-learn: errors are ``ValueError``/``TypeError`` with actionable messages, never
``assert`` (which vanishes under ``python -O``).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np


def check_random_state(random_state: Any) -> np.random.Generator:
    """Turn ``None``, an int, a ``SeedSequence`` or a ``Generator`` into a ``numpy.random.Generator``."""
    if random_state is None or isinstance(random_state, (numbers.Integral, np.random.SeedSequence)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise TypeError(
        "random_state: expected None, an int, a numpy SeedSequence or Generator; "
        f"got {type(random_state).__name__}"
    )


def check_int(value: Any, name: str, *, minimum: int | None = None, maximum: int | None = None,
              allow_none: bool = False) -> int | None:
    """Check that ``value`` is an integer within ``[minimum, maximum]`` and return it as ``int``."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {value!r} ({type(value).__name__})")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}: expected an integer >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}: expected an integer <= {maximum}, got {value}")
    return value


def check_choice(value: Any, name: str, choices) -> str:
    """Check that ``value`` is one of ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name}: expected one of {sorted(choices)}, got {value!r}")
    return value


def check_coalitions(coalitions: Any, n_players: int, name: str = "coalitions") -> np.ndarray:
    """Return coalitions as a C-contiguous ``(k, n_players)`` boolean matrix.

    Accepts booleans or 0/1 integers; a 1-D vector is one coalition.
    """
    arr = np.asarray(coalitions)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a (k, {n_players}) boolean matrix, got an array of shape {arr.shape}")
    if arr.shape[1] != n_players:
        raise ValueError(
            f"{name}: expected {n_players} columns (one per player), got shape {arr.shape}"
        )
    if arr.dtype != bool:
        if not np.issubdtype(arr.dtype, np.number) or not np.isin(arr, (0, 1)).all():
            raise ValueError(f"{name}: expected booleans or 0/1 values, got dtype {arr.dtype}")
        arr = arr.astype(bool)
    return np.ascontiguousarray(arr)


def check_feature_names(feature_names: Any, n: int, name: str = "feature_names") -> tuple[str, ...]:
    """Return ``n`` feature names as a tuple of strings (defaults ``x0 .. x{n-1}``)."""
    if feature_names is None:
        return tuple(f"x{i}" for i in range(n))
    names = tuple(str(f) for f in feature_names)
    if len(names) != n:
        raise ValueError(f"{name}: expected {n} names, got {len(names)}")
    if len(set(names)) != n:
        dupes = sorted({f for f in names if names.count(f) > 1})
        raise ValueError(f"{name}: names must be unique, got duplicates {dupes}")
    return names


def check_numeric_matrix(X: Any, name: str, *, n_columns: int | None = None, allow_nan: bool = False) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """Return ``X`` as a finite float ``(m, d)`` matrix and its column names when it is a DataFrame.

    Non-numeric columns get an error that lists them.
    """
    columns = None
    if hasattr(X, "columns") and hasattr(X, "dtypes"):  # pandas DataFrame, without importing pandas
        columns = tuple(str(c) for c in X.columns)
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        bad = [str(c) for c, dt in zip(X.columns, X.dtypes) if not (is_numeric_dtype(dt) or is_bool_dtype(dt))]
        if bad:
            raise TypeError(
                f"{name}: non-numeric columns {bad}; encode them first (e.g. one-hot) "
                "or wrap the encoding inside the model"
            )
        X = X.to_numpy(dtype=float)
    arr = np.asarray(X)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        try:
            arr = arr.astype(float)
        except (TypeError, ValueError):
            raise TypeError(f"{name}: expected numeric values, got dtype {arr.dtype}") from None
    arr = arr.astype(float, copy=False)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array (rows x features), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name}: expected at least one row, got none")
    if n_columns is not None and arr.shape[1] != n_columns:
        raise ValueError(f"{name}: expected {n_columns} columns, got {arr.shape[1]}")
    if not allow_nan and np.isnan(arr).any():
        raise ValueError(f"{name}: contains NaN; impute missing values or use a model that handles them")
    return arr, columns
