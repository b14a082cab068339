"""Baseline removal: removed features take a fixed reference value, ``F(x, S) = f([x_S; r_{-S}])``.

The reference is a summary of the background (mean, median, mode), zero, or given. Categorical (non-numeric)
columns always take their mode (also under ``"zero"``), and a group of columns that forms a one-hot block (or
contains a categorical column) takes the block's most frequent joint value (except a 0/1 block under
``"zero"``, which stays zero), so every hybrid row is a valid input.
Missing values (NaN, ``None``, ``pd.NA``) in the background are left out of every summary: ``"mean"`` and
``"median"`` are those of a column's present values, a mode is that of the present values (of the rows with no
missing value in a group), and a column (group) with no present value gets a missing reference value (NaN).
A given vector may hold NaN (a missing value); the Explainer checks that the model takes it.
Cost: one model row per coalition.
"""

from __future__ import annotations

import warnings

from collections.abc import Mapping
from typing import Any, Callable, Sequence

import numpy as np

from .._validation import host_data, missing_mask
from ._columns import CallSizer, float_column, joint_mode, numeric_columns

REFERENCES = ("mean", "median", "mode", "zero")


def _is_binary_block(block: np.ndarray) -> bool:
    """Whether every present value of ``block`` is 0 or 1 (a one-hot block, missing values aside)."""
    try:
        values = np.unique(np.concatenate([float_column(column) for column in block.T]))
    except (TypeError, ValueError):
        return False
    return bool(np.isin(values[~np.isnan(values)], (0.0, 1.0)).all())


def _no_repeats(values: np.ndarray) -> bool:
    """Whether the present values of a numeric column (at least two) are all distinct (its mode is arbitrary)."""
    values = values[~np.isnan(values)]
    return len(values) > 1 and len(np.unique(values)) == len(values)


def _summary(column: np.ndarray, baseline: str) -> np.float64:
    """``"mean"`` or ``"median"`` of a numeric column's present values (NaN when it has none)."""
    values = float_column(column)
    values = values[~np.isnan(values)]
    if not len(values):
        return np.float64(np.nan)
    return values.mean() if baseline == "mean" else np.median(values)


def reference_vector(baseline, background: np.ndarray | None, n_features: int,
                     groups: Sequence[Sequence[int]] | None = None,
                     column_names: Sequence[str] | None = None) -> np.ndarray:
    """The reference: ``"mean"``, ``"median"``, ``"mode"`` of the background, ``"zero"``, or a given vector.

    ``groups`` (lists of column indices) make multi-column groups take a joint value: the joint mode for
    ``"mode"``, and for ``"mean"``/``"median"`` when the group is a 0/1 block or has a categorical column.
    ``column_names``: how warnings name the columns (else by position).
    """
    if isinstance(baseline, str):
        if baseline == "zero" and (background is None or background.dtype != object):
            return np.zeros(n_features)
        if baseline not in REFERENCES:
            raise ValueError(f"baseline: expected one of {list(REFERENCES)} or a vector, got {baseline!r}")
        if background is None:
            raise ValueError(f"baseline={baseline!r} needs background data to compute it; pass background=")
        numeric = numeric_columns(background)
        if baseline == "mode":
            continuous = [j for j in range(n_features) if numeric[j] and _no_repeats(float_column(background[:, j]))]
            if continuous:
                named = [column_names[j] for j in continuous] if column_names is not None else continuous
                warnings.warn(f"baseline='mode': column(s) {named[:10]} have no repeated value, so their "
                              "mode is arbitrary (the smallest value); 'median' or 'mean' suits continuous columns",
                              UserWarning, stacklevel=3)
        reference = np.empty(n_features, dtype=background.dtype)
        for j in range(n_features):  # per column, not per row or coalition
            column = background[:, j]
            if baseline == "mode" or not numeric[j]:
                reference[j] = joint_mode(column[:, None])[0]
            elif baseline == "zero":
                reference[j] = 0.0
            else:  # "mean" or "median"
                reference[j] = _summary(column, baseline)
        for group in groups or ():
            group = list(group)
            joint = baseline == "mode" or not numeric[group].all() or (
                baseline != "zero" and _is_binary_block(background[:, group]))
            if len(group) > 1 and joint:
                reference[group] = joint_mode(background[:, group])
                block = background[:, group]
                block = block[~missing_mask(block).any(axis=1)]
                if len(block) > 1 and len({tuple(row) for row in block}) == len(block):
                    named = [column_names[j] for j in group] if column_names is not None else group
                    warnings.warn(f"baseline={baseline!r}: group {named} has no repeated joint value, so its joint "
                                  "mode (taken for a group with a categorical column or a one-hot block) is "
                                  "arbitrary (one background row's values); give a baseline vector, or group "
                                  "the categorical columns apart from the continuous ones", UserWarning, stacklevel=3)
        return reference if reference.dtype == object else reference.astype(float)
    baseline = _by_name(host_data(baseline), column_names, n_features)  # a tensor: detached, on the CPU
    shape = np.shape(baseline)
    if len(shape) > 2 or (len(shape) == 2 and shape[0] != 1):  # a (2, 2) table was read as 4 values, row by row
        raise ValueError(f"baseline: expected a vector of {n_features} values (or one row of them), got shape {shape}")
    try:
        reference = np.asarray(baseline, dtype=object if background is not None and background.dtype == object
                               else float).ravel()
    except (TypeError, ValueError) as exc:  # e.g. a word for a numeric model
        raise ValueError(f"baseline: expected a vector of {n_features} numbers, got {baseline!r} ({exc})") from None
    if reference.shape != (n_features,):
        raise ValueError(f"baseline: expected a vector of {n_features} values, got shape {np.shape(baseline)}")
    if reference.dtype != object and np.isinf(reference).any():
        raise ValueError("baseline: contains inf; expected finite values (or NaN for a missing value)")
    return reference


def warn_unseen_categories(reference: np.ndarray, background: np.ndarray, column_names: Sequence[str] | None,
                           skip: Sequence[int] = ()) -> None:
    """Warn when a given reference holds, in a categorical column of an object ``background`` (but those in
    ``skip``), a value no background row holds (a code for a name, a typo): a model whose encoder ignores unknown
    categories takes it silently, as no category at all."""
    if background is None or background.dtype != object:
        return
    numeric = numeric_columns(background)
    unseen = {}
    for j in np.flatnonzero(~numeric):
        if j in skip:
            continue
        value = reference[j]
        if missing_mask(np.array([value], dtype=object))[0]:
            continue
        column = background[:, j]
        if value not in set(column[~missing_mask(column)]):  # 1 == 1.0 == True, as an encoder compares them
            name = column_names[j] if column_names is not None else int(j)
            unseen[name] = [value.item() if isinstance(value, np.generic) else value]
    if unseen:
        listed = "; ".join(f"{name!r}: {values}" for name, values in unseen.items())
        warnings.warn(f"baseline: values no background row holds in categorical columns ({listed}); the model may "
                      "never have seen them (an encoder that ignores unknown categories reads them as no category "
                      "at all): give values of the data", UserWarning, stacklevel=3)


def _by_name(baseline: Any, column_names: Sequence[str] | None, n_features: int) -> Any:
    """A baseline given by name (a dict, a pandas Series indexed by names, a one-row DataFrame) as a vector in the
    columns' order (it was taken by position: a Series ordered c, a, b gave c's value to a); anything else as it
    is. Names must match the columns exactly."""
    if isinstance(baseline, Mapping):
        named = dict(baseline)
    elif hasattr(baseline, "index") and hasattr(baseline, "to_numpy") and getattr(baseline, "ndim", 0) == 1:
        index = baseline.index  # a Series: by name unless its index is the default 0..n-1
        if list(index) == list(range(len(index))):
            return baseline.to_numpy()
        named = dict(zip(index, baseline.to_numpy()))
    elif hasattr(baseline, "columns") and hasattr(baseline, "to_numpy"):
        if len(baseline) != 1:
            raise ValueError(f"baseline: a DataFrame baseline must have one row, got {len(baseline)}")
        named = dict(zip(baseline.columns, baseline.to_numpy()[0]))
    else:
        return baseline
    if column_names is None:
        raise ValueError(f"baseline: given by name ({list(named)[:5]}), but the features have no names; pass a "
                         "vector in the columns' order")
    names = [str(c) for c in column_names]
    keys = {str(k): v for k, v in named.items()}
    unknown = [k for k in keys if k not in names]
    missing = [c for c in names if c not in keys]
    if unknown or missing:
        raise ValueError(f"baseline: names must be the {n_features} columns; "
                         + "; ".join(part for part in (f"not columns: {unknown[:5]}" if unknown else "",
                                                        f"missing: {missing[:5]}" if missing else "") if part))
    return [keys[c] for c in names]


def baseline_value_function(predict: Callable[[np.ndarray], np.ndarray], x: np.ndarray, reference: np.ndarray,
                            *, max_rows: int = 65536, sizer: CallSizer | None = None,
                            ) -> Callable[[np.ndarray], np.ndarray]:
    """``v(S) = predict(where(S, x, reference))``, in chunks of at most ``max_rows`` model rows (``sizer``, shared
    by the rows of an explainer, picks how many; results do not depend on it, but for a BLAS model's last bits)."""
    sizer = CallSizer(max_rows) if sizer is None else sizer

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        return sizer.map(lambda chunk: predict(np.where(chunk, x, reference)), coalitions, width=len(x))

    return value_fn
