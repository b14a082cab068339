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
