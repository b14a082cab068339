"""Interaction heatmap."""

from __future__ import annotations

import textwrap

import numpy as np

from .._validation import check_bool
from ._common import check_max_features, diverging_cmap, index_name, info_of, new_axes, one_result, with_unit

MAX_INCHES = 12.0  # the heatmap's cells and labels fit in at most this many inches each way


def _matrix(result, feature_names):
    """(square matrix, names, colour bar label) of a heatmap's ``result``."""
    if hasattr(result, "feature_names") and not hasattr(result, "adjacency") and not hasattr(result, "matrix"):
        raise TypeError(f"result: heatmap draws a pairwise matrix (Interactions, a BivariateExplanation or an "
                        f"(n, n) array), got {type(result).__name__}; use bar() or beeswarm()")
    if hasattr(result, "adjacency"):
        matrix, names = np.array(result.adjacency), list(result.feature_names)
        label = with_unit("importance of column feature when row feature is present", info_of(result))
    elif hasattr(result, "matrix"):
        matrix, names = np.array(result.matrix), list(result.feature_names)
        label = with_unit(f"{index_name(result.index)} interaction", info_of(result))
    else:
        matrix = np.array(result, dtype=float)
        names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(len(matrix))]
        label = "value"
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"matrix: expected a square (n, n) matrix, got shape {matrix.shape}")
    if len(names) != len(matrix):
        raise ValueError(f"feature_names: expected {len(matrix)} names, got {len(names)}")
    return matrix.astype(float), [str(s) for s in names], label


def strongest_features(matrix: np.ndarray, max_features: int | None) -> np.ndarray:
    """Indices (in their original order) of the ``max_features`` features with the largest total ``|value|``
    in their row and column (the diagonal counted once; NaN ignored); all of them when ``max_features`` is None
    or not smaller than the number of features."""
    n = len(matrix)
    max_features = check_max_features(max_features)
    if max_features is None or max_features >= n:
        return np.arange(n)
    size = np.nan_to_num(np.abs(matrix))
    total = size.sum(axis=0) + size.sum(axis=1) - np.diag(size)
    return np.sort(np.argsort(-total, kind="stable")[:max_features])


def _figsize(n: int) -> tuple[float, float]:
    """About 0.45 inch per cell, at most :data:`MAX_INCHES` (plus room for labels and the colour bar)."""
    side = min(0.45 * n, MAX_INCHES)
    return side + 2.5, side + 1.8


def _annotate(ax, shown: np.ndarray, limit: float) -> None:
    """Each finite cell's value written in it (white on dark cells), every cell with the same number of
    decimals: two significant digits of the largest ``|value|`` off the diagonal (``0.92``, ``-0.01``, ``0``),
    so that no label is wider than its cell (``.2g`` wrote ``-0.00083`` next to ``0.00033``) and the pairs keep
    their digits beside large order-1 values on the diagonal (the strongest pair, 0.37, was written "0" next
    to a main effect of 27)."""
    off = shown[~np.eye(len(shown), dtype=bool)]
    cells = off if np.isfinite(off).any() else shown
    top = float(np.nanmax(np.abs(cells))) if np.isfinite(cells).any() else 0.0
    decimals = max(0, 1 - int(np.floor(np.log10(top)))) if top > 0 else 0
    n = len(shown)
    for i in range(n):
        for j in range(n):
            if np.isfinite(shown[i, j]):
                text = f"{shown[i, j]:.{decimals}f}"
                if float(text) == 0:  # hide round-off and the sign of a rounded 0
                    text = "0"
                ax.text(j, i, text, ha="center", va="center", fontsize=7,
                        color="white" if abs(shown[i, j]) > 0.6 * limit else "#222")


def heatmap(result, *, feature_names=None, max_features: int | None = 12, ax=None, title: str | None = None,
            annotate: bool | None = None, diagonal: bool = True):
    """Pairwise matrix as a heatmap with a symmetric diverging colour scale (0 is white).

    ``result``: Interactions (its ``matrix``: pairs off the diagonal, order-1 values on it), a
    BivariateExplanation (its ``adjacency``: row i, column j = importance of j when i is present) or an
    ``(n, n)`` array; above order 2 the x label says how many subsets of 3 or more features (and how large) the
    matrix leaves out. Only the ``max_features`` features with the largest total ``|value|`` (row and column)
    are drawn, in their original order; the others are left out (the x label says how many; None: all). The
    figure grows about 0.45 inch per feature up to :data:`MAX_INCHES`. ``diagonal=False`` blanks the
    diagonal. For Interactions the pairs set the colour scale (the order-1 values on the diagonal, main effects,
    are often much larger and would wash the pairs out): a larger diagonal cell takes the end colour, and the
    colour bar says so. Values are written in the cells when ``annotate`` (default: at most 12 features drawn),
    all with the same number of decimals. ``max_features``: a positive integer, or None for all.
    """
    annotate, diagonal = check_bool(annotate, "annotate", allow_none=True), check_bool(diagonal, "diagonal")
    matrix, names, label = _matrix(one_result(result, "result", "heatmap"), feature_names)
    keep = strongest_features(matrix, max_features)
    shown = matrix[np.ix_(keep, keep)].copy()
    names = [names[i] for i in keep]
    n = len(shown)
    if not diagonal:
        np.fill_diagonal(shown, np.nan)
    ax = new_axes(ax, _figsize(n), layout="constrained")  # a colorbar beside an image: see new_axes
    limit = np.nanmax(np.abs(shown)) if np.isfinite(shown).any() else 1.0
    limit = limit or 1.0
    clipped = False
    if diagonal and n > 1 and hasattr(result, "matrix"):  # Interactions: the pairs set the colour scale
        pairs = shown[~np.eye(n, dtype=bool)]
        pairs = pairs[np.isfinite(pairs)]
        top = float(np.max(np.abs(pairs))) if pairs.size else 0.0
        if 0 < top < limit:  # the order-1 values on the diagonal are larger: their colour is clipped
            limit, clipped = top, True
            label = f"{label}; diagonal: order-1 values, colour clipped"
    image = ax.imshow(shown, cmap=diverging_cmap(), vmin=-limit, vmax=limit)
    fontsize = float(np.clip(0.7 * 72 * min(0.45, MAX_INCHES / max(n, 1)), 4.0, 10.0))
    crowded = n > 24  # slanted labels would run into each other
    ax.set_xticks(range(n), names, rotation=90 if crowded else 60, ha="center" if crowded else "right",
                  fontsize=fontsize)
    ax.set_yticks(range(n), names, fontsize=fontsize)
    xlabel = []
    if n < len(matrix):
        xlabel.append(f"{n} of {len(matrix)} features (largest total |value|; max_features={max_features})")
    note = result.larger_subsets_note() if hasattr(result, "larger_subsets_note") else ""
    if note:  # an order-3 result: the triples are not in a pairwise matrix (the strongest one was drawn as nothing)
        xlabel.append(f"pairs and single features only: {note} (ip.plot.bar shows them)")
    if xlabel:  # wrapped to the figure's width (a long label widened the figure)
        width = max(30, int(ax.figure.get_size_inches()[0] * 72 / (0.6 * 10)))
        ax.set_xlabel("\n".join(textwrap.fill(line, width) for line in xlabel))
    # a label longer than the colorbar is wrapped (it ran off the top of a small figure)
    fits = max(20, int(0.8 * ax.figure.get_size_inches()[1] * 72 / (0.6 * 10)))
    ax.figure.colorbar(image, ax=ax, shrink=0.8, label=textwrap.fill(label, fits),
                       extend="both" if clipped else "neither")
    if annotate is None:
        annotate = n <= 12
    if annotate:
        _annotate(ax, shown, limit)
    if title:
        ax.set_title(title)
    return ax
