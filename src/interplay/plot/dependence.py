"""Dependence (scatter) plot: a feature's value against its attribution, coloured by the feature it interacts
with most (shap's ``dependence_plot`` / ``plots.scatter``)."""

from __future__ import annotations

import numpy as np

from ..results import _feature_index
from ._common import encode, new_axes, shade, value_cmap
from .attribution import value_colorbar


def _bins(numbers: np.ndarray, categories, n_bins: int) -> np.ndarray:
    """Integer bin of every row: the category, or one of ``n_bins`` quantile bins; missing values get their own."""
    out = np.full(len(numbers), -1, dtype=np.int64)
    known = np.isfinite(numbers)
    if not known.any():
        return out
    if categories is not None:
        out[known] = numbers[known].astype(np.int64)
        return out
    edges = np.unique(np.quantile(numbers[known], np.linspace(0, 1, n_bins + 1)[1:-1]))
    out[known] = np.searchsorted(edges, numbers[known], side="right")
    return out


def _explained_share(target: np.ndarray, groups: np.ndarray) -> float:
    """Share of ``target``'s variance between the ``groups``, adjusted for their number (adjusted R squared of
    the group means: a feature with many small groups gains nothing by chance)."""
    n = len(target)
    total = np.sum((target - target.mean()) ** 2)
    labels, inverse = np.unique(groups, return_inverse=True)
    k = len(labels)
    if total <= 0 or k < 2 or n <= k:
        return 0.0
    sums = np.bincount(inverse, weights=target)
    counts = np.bincount(inverse)
    share = float(np.sum(sums ** 2 / counts) - target.sum() ** 2 / n) / total
    return 1.0 - (1.0 - share) * (n - 1) / (n - k)


def strongest_interaction(explanation, feature, interactions=None) -> int:
    """The feature that interacts most with ``feature``: from ``interactions`` when given (Interactions, an
    ``(d, d)`` matrix or per-row ``(m, d, d)`` values; the largest mean ``|value|`` of the pair), else estimated
    from the rows: the share of the variance of ``feature``'s attribution, after removing what its own value
    explains (mean per value bin), that another feature's value bins explain (adjusted R squared of the bin means;
    numbers and raw categories alike). Cost: ``O(m d)``, no model call."""
    names = tuple(explanation.feature_names)
    j = _feature_index(feature, names)
    d = len(names)
    if d < 2:
        raise ValueError("explanation: colouring by an interaction needs at least two features")
    if interactions is not None:
        matrix = np.asarray(getattr(interactions, "matrix", interactions), dtype=float)
        if matrix.ndim == 3:
            matrix = np.abs(matrix).mean(axis=0)
        if matrix.shape != (d, d):
            raise ValueError(f"interactions: expected Interactions or a ({d}, {d}) matrix, got shape {matrix.shape}")
        score = np.abs(matrix[j]).astype(float)
    else:
        if not explanation._data_aligned:
            raise ValueError("explanation: has no feature values (.data) to find interactions from")
        values = np.asarray(explanation.values[:, j], dtype=float)
        own = _bins(*encode(explanation.data[:, j]), n_bins=20)
        _, inverse = np.unique(own, return_inverse=True)
        residual = values - (np.bincount(inverse, weights=values) / np.bincount(inverse))[inverse]
        score = np.array([_explained_share(residual, _bins(*encode(explanation.data[:, k]), n_bins=10))
                          for k in range(d)])
    score[j] = -np.inf
    return int(np.argmax(score))


def scatter(explanation, feature, *, color="auto", interactions=None, ax=None, title: str | None = None,
            random_state=0):
    """One dot per row: ``feature``'s value (x) against its attribution (y), coloured by another feature's
    value (low blue to high red, a colour bar names it).

    ``explanation``: an Explanation of many rows (with ``.data``). ``feature``: a name or index. ``color``:
    ``"auto"`` (the feature that interacts most, see :func:`strongest_interaction`; ``interactions=`` may pass
    interaction values to choose it), a feature name or index, or None (one colour). Raw categorical values are
    placed at their sorted positions, slightly spread.
    """
    if not hasattr(explanation, "base_values"):
        raise TypeError(f"explanation: scatter draws many rows of an Explanation, got {type(explanation).__name__}")
    names = [str(n) for n in explanation.feature_names]
    j = _feature_index(feature, tuple(names))
    if not explanation._data_aligned:
        raise ValueError("explanation: has no feature values (.data) with one column per feature to plot against")
    x, categories = encode(explanation.data[:, j])
    y = np.asarray(explanation.values[:, j], dtype=float)
    if categories is not None:  # spread the dots of a category sideways
        x = x + np.random.default_rng(random_state).uniform(-0.2, 0.2, len(x))
    c = None
    if color is not None:
        c = strongest_interaction(explanation, j, interactions) if isinstance(color, str) and color == "auto" \
            else _feature_index(color, tuple(names))
    ax = new_axes(ax, (6.5, 4.5))
    if c is None:
        ax.scatter(x, y, s=14, color="#1f77d0", linewidths=0, alpha=0.8)
    else:
        level = shade(*encode(explanation.data[:, c]))
        colours = np.tile(np.array([0.6, 0.63, 0.65, 1.0]), (len(y), 1))
        known = np.isfinite(level)
        colours[known] = value_cmap()(level[known])
        ax.scatter(x, y, s=14, c=colours, linewidths=0, alpha=0.85)
        value_colorbar(ax, label=names[c], categories=encode(explanation.data[:, c])[1])
    if categories is not None:
        ax.set_xticks(range(len(categories)), categories, rotation=45 if len(categories) > 4 else 0,
                      ha="right" if len(categories) > 4 else "center")
    ax.axhline(0, color="#888", lw=0.6)
    ax.set_xlabel(names[j])
    ax.set_ylabel(f"attribution of {names[j]}")
    if title:
        ax.set_title(title)
    return ax
