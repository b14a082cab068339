"""Shared plotting helpers: colours, axes creation, argument coercion."""

from __future__ import annotations

import numpy as np

POSITIVE = "#e8384f"   # pushes the output up
NEGATIVE = "#1f77d0"   # pushes it down
NEUTRAL = "#9aa0a6"


def plt():
    try:
        import matplotlib.pyplot as pyplot
    except ImportError:
        raise ImportError("plots need matplotlib: pip install 'interplay[plot]'") from None
    return pyplot


def new_axes(ax, figsize):
    if ax is not None:
        return ax
    fig, ax = plt().subplots(figsize=figsize)
    return ax


def diverging_cmap():
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("interplay", [NEGATIVE, "#f7f7f7", POSITIVE])


def values_and_names(result, feature_names=None):
    """(values, names) from an Attribution, a BivariateExplanation (its univariate values) or an array."""
    if hasattr(result, "univariate"):
        result = result.univariate
    if hasattr(result, "base_values"):  # an Explanation
        if len(result) != 1:
            raise ValueError(f"result: an Explanation of {len(result)} rows; this plot draws one row: pass "
                             "expl[i] (or use bar(expl) / beeswarm(expl) for many rows)")
        result = result[0]
    if hasattr(result, "index") and hasattr(result, "order"):  # Interactions
        raise TypeError(f"result: this plot draws one value per feature, got {result.index} interactions; "
                        "use bar(interactions) or heatmap(interactions)")
    if hasattr(result, "values") and hasattr(result, "feature_names") and not isinstance(result, np.ndarray):
        values = np.asarray(result.values, dtype=float)
        names = list(result.feature_names)
    else:
        values = np.asarray(result, dtype=float)
        names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(len(values))]
    if values.ndim != 1:
        raise ValueError(f"values: expected one value per feature (1-D), got shape {values.shape}")
    if len(names) != len(values):
        raise ValueError(f"feature_names: expected {len(values)} names, got {len(names)}")
    return values, [str(n) for n in names]


def top_order(values, max_features):
    order = np.argsort(-np.abs(values), kind="stable")
    return order if max_features is None else order[:max_features]


def value_cmap():
    """Feature values: low blue, high red (through purple), as in shap's summary plots."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("interplay_value", [NEGATIVE, "#8c3fb0", POSITIVE])


def is_number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))


def encode(column):
    """A column of feature values as ``(numbers, categories)``: numbers as floats (NaN where missing) and
    ``categories=None``; or, when some value is not a number (raw categorical), the position of each value in
    the sorted list of its distinct values (``categories``), NaN where missing."""
    column = np.asarray(column)
    if column.dtype != object:
        return column.astype(float), None
    missing = np.array([v is None or (is_number(v) and np.isnan(v)) for v in column], dtype=bool)
    if all(is_number(v) for v, gone in zip(column, missing) if not gone):
        return np.array([np.nan if gone else float(v) for v, gone in zip(column, missing)]), None
    categories = sorted({str(v) for v, gone in zip(column, missing) if not gone})
    position = {c: k for k, c in enumerate(categories)}
    return np.array([np.nan if gone else position[str(v)] for v, gone in zip(column, missing)], float), categories


def limits(numbers, categories=None) -> tuple[float, float] | None:
    """The range a colour map spans: categories by position, numbers between their 5th and 95th percentiles
    (outliers clipped, as shap does); None when no value is known."""
    finite = numbers[np.isfinite(numbers)]
    if finite.size == 0:
        return None
    if categories is not None:
        return 0.0, float(max(len(categories) - 1, 1))
    lo, hi = np.percentile(finite, [5, 95])
    if hi <= lo:
        lo, hi = finite.min(), finite.max()
    return float(lo), float(hi)


def shade(numbers, categories=None):
    """Numbers mapped to [0, 1] between their :func:`limits` (0.5 when all equal); NaN stays NaN."""
    span = limits(numbers, categories)
    if span is None:
        return numbers
    lo, hi = span
    if hi <= lo:
        return np.where(np.isfinite(numbers), 0.5, np.nan)
    return np.clip((numbers - lo) / (hi - lo), 0.0, 1.0)


def format_value(value) -> str:
    """A feature value for a label: numbers with 4 significant digits, anything else as text."""
    if value is None:
        return "missing"
    if is_number(value):
        value = float(value)
        if np.isnan(value):
            return "missing"
        return f"{value:.4g}"
    return str(value)


def labelled(names, data):
    """``"age = 27"`` labels when ``data`` holds one value per feature, else the names."""
    if data is None or np.ndim(data) != 1 or len(data) != len(names):
        return list(names)
    return [f"{n} = {format_value(v)}" for n, v in zip(names, data)]


def row_data(result):
    """The feature values of a one-row result (``Attribution.data``), or None."""
    result = getattr(result, "univariate", result)
    data = getattr(result, "data", None)
    return None if data is None or isinstance(result, np.ndarray) else data
