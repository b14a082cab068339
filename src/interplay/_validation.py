"""One place for input checks, so every error names the parameter, what was expected and what came.

Habit copied from scikit-learn: errors are ``ValueError``/``TypeError`` with actionable messages, never
``assert`` (which vanishes under ``python -O``).
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping
from typing import Any, Sequence

import numpy as np


def check_random_state(random_state: Any) -> np.random.Generator:
    """Turn ``None``, an int, a ``SeedSequence`` or a ``Generator`` into a ``numpy.random.Generator``."""
    if isinstance(random_state, bool):
        raise TypeError("random_state: expected None, a non-negative int, a numpy SeedSequence or Generator; "
                        f"got {random_state!r}")
    if isinstance(random_state, numbers.Integral) and random_state < 0:
        raise ValueError(f"random_state: expected a non-negative integer seed, got {random_state}")
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


def check_bool(value: Any, name: str, *, allow_none: bool = False) -> bool | None:
    """Check that ``value`` is ``True`` or ``False`` (a numpy bool too) and return it as ``bool``: a string such as
    ``"False"`` or ``"no"`` is refused (it is truthy, so it silently meant ``True``)."""
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected {'True, False or None' if allow_none else 'True or False'}, got {value!r}")
    return bool(value)


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
    if isinstance(feature_names, str) and len(feature_names) != n:  # "age" for one feature: 3 names 'a', 'g', 'e'
        raise TypeError(f"{name}: expected a sequence of {n} names, got the string {feature_names!r}"
                        + (f"; for one feature pass [{feature_names!r}]" if n == 1 else ""))
    names = tuple(str(f) for f in feature_names)
    if len(names) != n:
        raise ValueError(f"{name}: expected {n} names, got {len(names)}")
    if len(set(names)) != n:
        dupes = sorted({f for f in names if names.count(f) > 1})
        raise ValueError(f"{name}: names must be unique, got duplicates {dupes}")
    return names


def check_numeric_matrix(X: Any, name: str, *, n_columns: int | None = None, allow_nan: bool = False,
                         ) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """Return ``X`` as a finite float ``(m, d)`` matrix and its column names when it is a DataFrame.

    Non-numeric columns get an error that lists them. ``allow_nan``: missing values (NaN, and ``None``/``pd.NA``
    cells) are kept as NaN instead of refused; inf and complex values are refused either way.
    """
    columns = None
    if hasattr(X, "columns") and hasattr(X, "dtypes"):  # pandas DataFrame, without importing pandas
        columns = _unique_columns(X, name)
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        bad = [str(c) for c, dt in zip(X.columns, X.dtypes) if not (is_numeric_dtype(dt) or is_bool_dtype(dt))]
        if bad:
            raise TypeError(
                f"{name}: non-numeric columns {bad}; encode them first (e.g. one-hot) "
                "or wrap the encoding inside the model"
            )
        _refuse_complex([str(c) for c, dt in zip(X.columns, X.dtypes) if np.dtype(dt).kind == "c"], name)
        X = X.to_numpy(dtype=float)
    arr = as_array(X, name)
    if arr.dtype.kind == "c":
        imaginary = np.atleast_2d(arr.imag != 0).any(axis=0) if arr.ndim <= 2 else np.ones(1, dtype=bool)
        _refuse_complex(np.flatnonzero(imaginary).tolist() if imaginary.any() else ["all"], name)
    if arr.ndim == 1 and arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty 2-D array (rows x features), got an empty sequence")
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        if arr.dtype == object:  # None and pd.NA cells are missing numbers: NaN (refused below unless allowed)
            arr = np.where(missing_mask(arr), np.nan, arr)
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
    if arr.shape[1] == 0:
        raise ValueError(f"{name}: expected at least one column (feature), got shape {arr.shape}")
    if n_columns is not None and arr.shape[1] != n_columns:
        raise ValueError(f"{name}: expected {n_columns} columns, got {arr.shape[1]}")
    if not allow_nan and np.isnan(arr).any():
        raise ValueError(f"{name}: contains NaN; impute missing values or use a model that handles them")
    if np.isinf(arr).any():
        bad = sorted(set(np.nonzero(np.isinf(arr))[1].tolist()))[:5]
        raise ValueError(f"{name}: contains inf in column(s) {bad}; expected finite values")
    return arr, columns


def _unique_columns(X: Any, name: str) -> tuple[str, ...]:
    columns = tuple(str(c) for c in X.columns)
    if len(set(columns)) != len(columns):
        dupes = sorted({c for c in columns if columns.count(c) > 1})
        raise ValueError(f"{name}: duplicated column names {dupes}; column names must be unique")
    return columns


def host_data(data: Any) -> Any:
    """A torch tensor as a detached tensor in the CPU's memory (the same values), which NumPy can read: it cannot
    read one that requires grad ("Can't call numpy() on Tensor that requires grad") or one on a GPU ("can't
    convert cuda:0 device type tensor to numpy"). Anything else unchanged."""
    if callable(getattr(data, "detach", None)) and callable(getattr(data, "cpu", None)):
        return data.detach().cpu()
    return data


def as_array(X: Any, name: str) -> np.ndarray:
    """``np.asarray(X)``, with ragged input (rows of different lengths) as an error naming ``name``; a mapping
    (e.g. one row as ``{column: value}``) is refused, saying how to pass it."""
    if isinstance(X, Mapping):
        raise TypeError(f"{name}: expected a 2-D table (rows x features), got a {type(X).__name__}; pass one row "
                        "as a DataFrame, e.g. pd.DataFrame([row]), or a list of rows")
    try:
        return np.asarray(X)
    except (ValueError, TypeError):
        try:
            lengths = sorted({len(row) for row in X})
        except TypeError:
            lengths = []
        raise ValueError(f"{name}: expected a 2-D array (rows x features) with rows of equal length; got a "
                         f"ragged sequence" + (f" (row lengths {lengths[:5]})" if lengths else "")) from None


def _refuse_complex(columns: list, name: str) -> None:
    """A complex input is an error (casting to float would silently keep only the real part)."""
    if columns:
        raise TypeError(f"{name}: complex values (column(s) {columns[:5]}) are not supported; pass real numbers "
                        "(e.g. the real part or the modulus, chosen explicitly)")


def _is_frame(X: Any) -> bool:
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "to_numpy")


def check_table(X: Any, name: str, *, n_columns: int | None = None, raw: bool = False, allow_missing: bool = False,
                ) -> tuple[np.ndarray, tuple[str, ...] | None, tuple | None]:
    """Like :func:`check_numeric_matrix`, but a DataFrame (or array) with non-numeric columns is kept raw.

    Returns ``(array, columns, dtypes)``: a float matrix when every column is numeric and ``raw`` is false
    (the fast path), else an object matrix whose cells are the original values; ``dtypes`` are the
    DataFrame's column dtypes (``None`` for arrays). Missing values (NaN, ``None``, ``pd.NA``) are an error
    unless ``allow_missing``: they are then kept, as NaN in numeric columns (whether the model takes them is
    the caller's check, see :func:`missing_mask`); inf and complex values are refused either way.
    """
    if not _is_frame(X):
        arr = as_array(X, name)
        numeric = arr.dtype != object and (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool)
        if numeric or not raw:
            try:
                matrix, columns = check_numeric_matrix(X, name, n_columns=n_columns, allow_nan=allow_missing)
                return (matrix.astype(object) if raw else matrix), columns, None
            except TypeError:
                if not raw:
                    raise
        arr = np.array(X, dtype=object)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
            raise ValueError(f"{name}: expected a non-empty 2-D table (rows x columns), got shape {arr.shape}")
        if n_columns is not None and arr.shape[1] != n_columns:
            raise ValueError(f"{name}: expected {n_columns} columns, got {arr.shape[1]}")
        if not allow_missing and missing_mask(arr).any():
            raise ValueError(f"{name}: missing values in columns {missing_columns(arr)}; impute them first")
        infinite = _inf_columns(arr)
        if infinite:
            raise ValueError(f"{name}: contains inf in column(s) {infinite[:5]}; expected finite values")
        return arr, None, None
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    columns = _unique_columns(X, name)
    all_numeric = all(is_numeric_dtype(dt) or is_bool_dtype(dt) for dt in X.dtypes)
    if all_numeric and not raw:
        matrix, _ = check_numeric_matrix(X, name, n_columns=n_columns, allow_nan=allow_missing)
        return matrix, columns, None
    if n_columns is not None and len(columns) != n_columns:
        raise ValueError(f"{name}: expected {n_columns} columns, got {len(columns)}")
    if len(X) == 0:
        raise ValueError(f"{name}: expected at least one row, got none")
    missing = [str(c) for c in X.columns[X.isna().any().to_numpy()]]
    if missing and not allow_missing:
        raise ValueError(f"{name}: missing values in columns {missing}; impute them first")
    _refuse_complex([str(c) for c, dt in zip(X.columns, X.dtypes) if getattr(dt, "kind", "") == "c"], name)
    infinite = [str(c) for c, dt in zip(X.columns, X.dtypes) if is_numeric_dtype(dt) and not is_bool_dtype(dt)
                and np.isinf(X[c].to_numpy(dtype=float, na_value=np.nan)).any()]
    if infinite:
        raise ValueError(f"{name}: contains inf in column(s) {infinite[:5]}; expected finite values")
    table = X.to_numpy(dtype=object)
    if missing:
        _nan_in_numeric_columns(table, X.dtypes)
    return table, columns, tuple(X.dtypes)


def _nan_in_numeric_columns(table: np.ndarray, dtypes: Sequence) -> None:
    """Missing cells (``pd.NA``, ``None``) of a raw table's numeric columns become NaN, in place: the one missing
    number of interplay (and of the models: a float column cannot hold ``pd.NA``)."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    for j, dtype in enumerate(dtypes):
        if is_numeric_dtype(dtype) and not is_bool_dtype(dtype):
            column = table[:, j]
            column[missing_mask(column)] = np.nan


def is_missing(value: Any) -> bool:
    """Whether one cell is a missing value: ``None``, NaN, ``pd.NA`` or ``pd.NaT`` (pandas is not imported)."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return bool(value != value)
    return type(value).__name__ in ("NAType", "NaTType")


def _inf_columns(table: np.ndarray) -> list[int]:
    """Columns of an object table holding a float inf or -inf (not the word "inf"): a column of numbers is checked
    in C, a column mixing words and numbers cell by cell."""
    out = []
    for j in range(table.shape[1]):
        column = table[:, j]
        try:  # every cell a number (or None): one float array
            values = np.asarray(column, dtype=float) if not any(isinstance(v, str) for v in column[:1]) else None
        except (TypeError, ValueError):
            values = None
        if values is None:
            found = any(isinstance(v, (float, np.floating)) and np.isinf(v) for v in column)
        else:
            found = bool(np.isinf(values).any())
        if found:
            out.append(j)
    return out


def missing_mask(rows: np.ndarray) -> np.ndarray:
    """Boolean mask of the missing cells of ``rows`` (a float or an object array, any shape)."""
    rows = np.asarray(rows)
    if rows.dtype.kind in "fc":
        return np.isnan(rows)
    if rows.dtype != object:
        return np.zeros(rows.shape, dtype=bool)
    try:  # pandas' isna: the same cells as is_missing, in C (0.3 s a million cells in Python)
        import pandas as pd
    except ImportError:
        return np.array([is_missing(v) for v in rows.ravel()], dtype=bool).reshape(rows.shape)
    return np.asarray(pd.isna(rows), dtype=bool)


def missing_columns(rows: np.ndarray, names: Sequence[str] | None = None) -> list:
    """The columns of the 2-D ``rows`` that hold a missing value: their names (``names``), else indices."""
    holes = np.flatnonzero(missing_mask(rows).reshape(len(rows), -1).any(axis=0))
    return [str(names[j]) for j in holes] if names is not None else holes.tolist()


def non_numeric_columns(X: Any) -> list[str]:
    """Names of the non-numeric columns of a DataFrame (empty for arrays)."""
    if not _is_frame(X):
        return []
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    return [str(c) for c, dt in zip(X.columns, X.dtypes) if not (is_numeric_dtype(dt) or is_bool_dtype(dt))]


def check_groups(groups: Any, column_names: tuple[str, ...]) -> tuple[tuple[str, ...], list[list[int]]]:
    """Resolve feature groups over the input columns.

    ``groups``: a dict ``name -> list of columns`` or a list of lists of columns (named ``g0, g1, ...`` unless a
    group has one column); a column is a name from ``column_names`` or an integer index (an integer that names
    another column than the one at its position is an error, one that names a column and is no position picks
    that column: a DataFrame's integer column names). Columns in no group
    become single-column features named after the column, after the given groups. A column in two groups is
    an error. Returns the feature names and, per feature, its column indices.
    """
    if isinstance(groups, dict):
        items = [(str(k), v) for k, v in groups.items()]
    elif isinstance(groups, (list, tuple)):
        items = [(None, v) for v in groups]
    else:
        raise TypeError(f"groups: expected a dict name -> columns or a list of lists of columns, "
                        f"got {type(groups).__name__}")
    d = len(column_names)
    owner: dict[int, int] = {}
    names: list[str] = []
    members: list[list[int]] = []
    for g, (gname, cols) in enumerate(items):
        if isinstance(cols, (str, int, np.integer)):
            cols = [cols]
        indices = []
        for c in cols:
            if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
                named = column_names.index(str(c)) if str(c) in column_names else None  # integer column names
                if named is not None and named != int(c):
                    if 0 <= int(c) < d:
                        raise ValueError(
                            f"groups: {c} names column {named} and is also the position of column "
                            f"{column_names[int(c)]!r}; give the name as a string ('{c}') or the position of "
                            f"the column you mean")
                    j = named  # not a position: the column of that name
                elif not 0 <= int(c) < d:
                    raise ValueError(f"groups: column index {c} out of range for {d} columns")
                else:
                    j = int(c)
            elif str(c) in column_names:
                j = column_names.index(str(c))
            else:
                raise ValueError(f"groups: unknown column {c!r}; known columns: {list(column_names)}")
            if j in owner:
                where = "twice in group " + repr(gname or g) if owner[j] == g else "in two groups"
                raise ValueError(f"groups: column {column_names[j]!r} is {where}")
            owner[j] = g
            indices.append(j)
        if not indices:
            raise ValueError(f"groups: group {gname or g} has no columns")
        members.append(indices)
        names.append(gname if gname is not None else (column_names[indices[0]] if len(indices) == 1 else f"g{g}"))
    for j in range(d):
        if j not in owner:
            members.append([j])
            names.append(column_names[j])
    return check_feature_names(names, len(names), "groups"), members


# ---------------------------------------------------------------------------------------------- column names
def _is_series(X: Any) -> bool:
    return hasattr(X, "index") and hasattr(X, "to_numpy") and not hasattr(X, "columns") and getattr(X, "ndim", 0) == 1


def input_names(X: Any) -> list[str] | None:
    """The column names ``X`` carries: a DataFrame's columns, a Series' index (one row); ``None`` for arrays."""
    if _is_frame(X):
        return [str(c) for c in X.columns]
    if _is_series(X):
        return [str(c) for c in X.index]
    return None


def _default_names(names: Sequence[str]) -> bool:
    return tuple(names) == tuple(f"x{i}" for i in range(len(names)))


def column_order(have: Sequence[str], expected: Sequence[str] | None, name: str, *,
                 allow_extra: bool = False, what: str = "the explainer's input columns",
                 renamed_ok: bool = False) -> list[int] | None:
    """Positions in ``have`` (the input's column names) of the ``expected`` columns, in their order.

    ``None`` means "use the input by position": no names are expected, or the expected names are the
    defaults ``x0, x1, ...`` and the input does not use them. Otherwise columns are matched by name: a
    permutation is reordered, extra columns are dropped only with ``allow_extra``, and anything else (missing,
    renamed or duplicated columns) is a ``ValueError`` naming ``name`` and listing the differences. This is
    the one rule of the Explainer, the tree explainers and batch runs. ``renamed_ok`` (a LightGBM model, which
    renames whitespace to ``_``): names that match only so are matched too (:func:`sanitised_order`).
    """
    have = [str(c) for c in have]
    if expected is None:
        return None
    expected = [str(c) for c in expected]
    if have == expected:
        return list(range(len(have)))
    dupes = sorted({c for c in have if have.count(c) > 1})
    if dupes:
        raise ValueError(f"{name}: duplicated column names {dupes}; column names must be unique")
    missing = [c for c in expected if c not in have]
    unexpected = [c for c in have if c not in expected]
    if not missing and (allow_extra or not unexpected):
        position = {c: j for j, c in enumerate(have)}
        return [position[c] for c in expected]
    renamed = sanitised_order(have, expected, allow_extra=allow_extra) if renamed_ok else None
    if renamed is not None:
        return renamed
    if _default_names(expected) and not set(have) & set(expected):
        return None  # the explainer knows no names (x0, x1, ...): columns are used by position
    raise ValueError(
        f"{name}: columns {have} differ from {what} {expected}; missing {missing}, unexpected {unexpected}. "
        "Columns are matched by name: select or rename them (or pass a numpy array to use them by position)"
    )


def _sanitised(name: str) -> str:
    """A column name as LightGBM stores it: every whitespace character replaced by ``_``."""
    return re.sub(r"\s", "_", name)


def renames_columns(model: Any, depth: int = 4) -> bool:
    """Whether ``model`` is, or wraps, a LightGBM model, which records a DataFrame's column names with whitespace
    replaced by ``_`` (and accepts the DataFrame's own names): a Pipeline's last step, a meta-estimator's
    ``regressor_``/``estimator_``/``estimators_[0]`` (TransformedTargetRegressor, MultiOutputRegressor, ...)."""
    if model is None or depth < 0:
        return False
    if type(model).__module__.split(".")[0] == "lightgbm":
        return True
    steps = getattr(model, "steps", None)
    inner = [steps[-1][1]] if isinstance(steps, list) and steps and isinstance(steps[-1], tuple) else []
    for name in ("regressor_", "estimator_", "base_estimator_", "classifier_"):
        inner.append(getattr(model, name, None))
    for name in ("estimators_", "calibrated_classifiers_"):
        items = getattr(model, name, None)
        if isinstance(items, (list, tuple)) and items:
            inner.append(getattr(items[0], "estimator", items[0]))
    return any(renames_columns(m, depth - 1) for m in inner if m is not None and m is not model)


def sanitised_order(have: Sequence[str], expected: Sequence[str], *, allow_extra: bool = False) -> list[int] | None:
    """Positions in ``have`` of the ``expected`` columns when they match only once whitespace in ``have`` is
    replaced by ``_``, one to one: LightGBM fitted on a DataFrame records ``'sepal length (cm)'`` as
    ``'sepal_length_(cm)'`` (``feature_names_in_``) and accepts the DataFrame's own names. ``None`` when the
    names do not match that way (or two input columns would become the same name)."""
    have = [str(c) for c in have]
    expected = [str(c) for c in expected]
    renamed = [_sanitised(c) for c in have]
    if len(set(renamed)) != len(renamed) or len(set(expected)) != len(expected) or renamed == have:
        return None
    position = {c: j for j, c in enumerate(renamed)}
    if any(c not in position for c in expected) or (not allow_extra and len(have) != len(expected)):
        return None
    return [position[c] for c in expected]


def align_columns(X: Any, expected: Sequence[str] | None, name: str, *,
                  what: str = "the explainer's input columns", renamed_ok: bool = False) -> Any:
    """``X`` with its columns (a DataFrame's, or a Series' index) in the ``expected`` order (see
    :func:`column_order`); arrays and inputs without names come back unchanged. Columns matched by
    :func:`sanitised_order` (LightGBM's names) are given the ``expected`` names."""
    have = input_names(X)
    if have is None or expected is None:
        return X
    order = column_order(have, expected, name, what=what, renamed_ok=renamed_ok)
    if order is None:
        return X
    aligned = X if order == list(range(len(have))) else (X.iloc[:, order] if _is_frame(X) else X.iloc[order])
    if [have[j] for j in order] != [str(c) for c in expected]:  # matched by LightGBM's names: take them
        aligned = aligned.set_axis(list(expected), axis=1 if _is_frame(X) else 0)
    return aligned


def as_float(value: Any) -> float:
    """A raw cell as a number: the value when it is one, NaN for a category or text (``Explanation.data``)."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


def float_rows(rows: np.ndarray) -> np.ndarray:
    """Raw (object) rows as floats by :func:`as_float`; numeric rows unchanged."""
    if rows.dtype != object:
        return rows
    return np.array([[as_float(v) for v in row] for row in rows], dtype=float).reshape(rows.shape)


def label_position_clash(classes: Sequence | None, n_outputs: int) -> tuple | None:
    """``(label, position)`` of the first class label that is a number naming another class's output position
    (classes [1, 2, 3]: label 1 at position 0; [0, 2, 5]: label 2 at position 1), else None. With such labels an
    integer target could mean a label or a position, so an integer is read as a label only."""
    for position, label in enumerate(classes if classes is not None else ()):
        if (isinstance(label, (numbers.Real, np.number)) and float(label).is_integer()
                and 0 <= label < n_outputs and label != position):
            return (label.item() if isinstance(label, np.generic) else label), position
    return None


def class_position(classes: Sequence | None, target: Any, n_outputs: int, name: str = "target") -> int | None:
    """The output position an integer ``target`` that is not one of ``classes`` names, or None when ``target``
    is no position (0..n_outputs-1). A class label always wins over a position (classes [5, 6, 7]: 2 is position
    2, class 7; 6 is class 6); when the labels are numbers that are also other classes' positions
    (:func:`label_position_clash`) an integer that is not a label is refused, naming the class at that
    position: with classes [1, 2, 3], 2 is class 2 (not position 2), and 0 is an error, not class 1."""
    if not isinstance(target, (int, np.integer)) or isinstance(target, bool):
        return None
    clash = label_position_clash(classes, n_outputs)
    if clash is None:
        return int(target) if 0 <= target < n_outputs else None
    shown = [c.item() if isinstance(c, np.generic) else c for c in classes]
    at = shown[int(target)] if 0 <= target < n_outputs else None
    raise ValueError(f"{name}: expected one of the model's class labels {shown}, got {int(target)}; its labels are "
                     f"also output positions (label {clash[0]} is at position {clash[1]}), so an integer {name} "
                     "names a class label, never a position" + (
                         f": output position {int(target)} is class {at!r}, pass {name}={at!r}"
                         if at is not None else ""))


def one_target(targets: list) -> Any:
    """The target every row explains, or ``"predicted"`` when rows explain different classes."""
    return targets[0] if targets and all(t == targets[0] for t in targets) else "predicted"


def check_label_order(X: Any, y: Any) -> None:
    """Labels ``y`` are paired with the rows of ``X`` by position. A pandas ``y`` whose index holds the same row
    labels as ``X``'s in another order (``y.iloc[[60, 0]]`` beside ``X.iloc[[0, 60]]``) is refused: row 0 took
    row 60's label, silently (the loss of the wrong class)."""
    x_index, y_index = getattr(X, "index", None), getattr(y, "index", None)
    if x_index is None or y_index is None or not hasattr(X, "iloc") or not hasattr(y, "iloc"):
        return
    if len(x_index) != len(y_index) or x_index.equals(y_index):
        return
    try:
        same_rows = x_index.is_unique and y_index.is_unique and set(x_index) == set(y_index)
    except TypeError:  # unhashable labels: nothing to compare
        return
    if same_rows:
        ours, theirs = ([v.item() if isinstance(v, np.generic) else v for v in index[:5]] + (
            ["..."] if len(index) > 5 else []) for index in (y_index, x_index))
        raise ValueError(f"y: its index holds the rows of X in another order ({ours} against {theirs}); labels "
                         "are paired with rows by position: pass y.loc[X.index]")
