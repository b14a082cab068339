"""Interaction heatmap."""

from __future__ import annotations

import numpy as np

from ._common import diverging_cmap, new_axes


def heatmap(result, *, feature_names=None, ax=None, title: str | None = None, annotate: bool | None = None,
            diagonal: bool = True):
    """Pairwise matrix as a heatmap with a symmetric diverging colour scale (0 is white).

    ``result``: Interactions (its ``matrix``: pairs off the diagonal, order-1 values on it), a
    BivariateExplanation (its ``adjacency``: row i, column j = importance of j when i is present) or an
    ``(n, n)`` array. ``diagonal=False`` blanks the diagonal. Values are written in the cells when
    ``annotate`` (default: at most 12 features).
    """
    if hasattr(result, "feature_names") and not hasattr(result, "adjacency") and not hasattr(result, "matrix"):
        raise TypeError(f"result: heatmap draws a pairwise matrix (Interactions, a BivariateExplanation or an "
                        f"(n, n) array), got {type(result).__name__}; use bar() or beeswarm()")
    if hasattr(result, "adjacency"):
        matrix, names = np.array(result.adjacency), list(result.feature_names)
        label = "importance of column feature when row feature is present"
    elif hasattr(result, "matrix"):
        matrix, names = np.array(result.matrix), list(result.feature_names)
        label = f"{result.index} interaction"
    else:
        matrix = np.array(result, dtype=float)
        names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(len(matrix))]
        label = "value"
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"matrix: expected a square (n, n) matrix, got shape {matrix.shape}")
    n = len(matrix)
    shown = matrix.astype(float).copy()
    if not diagonal:
        np.fill_diagonal(shown, np.nan)
    ax = new_axes(ax, (0.45 * n + 2.5, 0.45 * n + 1.8))
    limit = np.nanmax(np.abs(shown)) if np.isfinite(shown).any() else 1.0
    limit = limit or 1.0
    image = ax.imshow(shown, cmap=diverging_cmap(), vmin=-limit, vmax=limit)
    ax.set_xticks(range(n), [str(s) for s in names], rotation=60, ha="right")
    ax.set_yticks(range(n), [str(s) for s in names])
    ax.figure.colorbar(image, ax=ax, shrink=0.8, label=label)
    if annotate is None:
        annotate = n <= 12
    if annotate:
        for i in range(n):
            for j in range(n):
                if np.isfinite(shown[i, j]):
                    cell = shown[i, j] if abs(shown[i, j]) > 1e-9 * limit else 0.0  # hide round-off
                    ax.text(j, i, f"{cell:.2g}", ha="center", va="center", fontsize=7,
                            color="white" if abs(shown[i, j]) > 0.6 * limit else "#222")
    if title:
        ax.set_title(title)
    return ax
