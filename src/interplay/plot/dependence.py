"""Dependence (scatter) plot: a feature's value against its attribution, coloured by the feature it interacts
with most (shap's ``dependence_plot`` / ``plots.scatter``)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._validation import check_random_state
from ..results import _feature_index
from ._common import (encode, format_value, grouped, info_of, limits, new_axes, one_result, shade, value_cmap,
                      warn_mixed, with_unit)
from .attribution import value_colorbar

MAX_CODES = 10       # a numeric colouring feature of at most this many distinct integers is coloured per value
MAX_COLOURS = 9      # colours of a categorical colouring feature (tab10 less its grey); beyond, the 8 most frequent
MISSING = (0.6, 0.63, 0.65, 1.0)   # grey: value unknown
OTHERS = (0.33, 0.36, 0.4, 1.0)    # dark grey: the categories past MAX_COLOURS, pooled


def _chunk_correlations(target: np.ndarray, columns: np.ndarray, order: np.ndarray, n_chunks: int) -> np.ndarray:
    """Sum over consecutive chunks of ``order`` of ``|corr(target, column)|`` per column (pairs with a missing
    value left out; a chunk where a column or the target is constant adds nothing)."""
    total = np.zeros(columns.shape[1])
    for chunk in np.array_split(order, n_chunks):
        z = columns[chunk]
        ok = np.isfinite(z)
        count = ok.sum(axis=0)
        v = np.where(ok, target[chunk, None], 0.0)
        z = np.where(ok, z, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            dz = np.where(ok, z - z.sum(axis=0) / count, 0.0)
            dv = np.where(ok, v - v.sum(axis=0) / count, 0.0)
            corr = (dz * dv).sum(axis=0) / np.sqrt((dz ** 2).sum(axis=0) * (dv ** 2).sum(axis=0))
        total += np.where((count > 2) & np.isfinite(corr), np.abs(corr), 0.0)
    return total


def strongest_interaction(explanation, feature, interactions=None) -> int:
    """The feature that interacts most with ``feature``.

    From ``interactions`` when given (Interactions, a ``(d, d)`` matrix or per-row ``(m, d, d)`` values, e.g.
    tree interaction values): the largest mean ``|value|`` of the pair. Otherwise estimated from the rows, the
    idea of shap's ``approximate_interactions``: the rows are sorted by ``feature``'s value and cut into ten
    consecutive chunks, so that ``feature`` barely varies inside one; a feature whose value still moves
    ``feature``'s attribution inside the chunks interacts with it, scored by the sum over chunks of
    ``|correlation|`` (raw categories by their sorted position). Measured on Adult with XGBoost (3 samples of
    300 rows, 12 features), ranked by mean ``|path-dependent SHAP interaction value|`` with ``feature``, the
    feature it picks was on average 2nd to 3rd strongest of 11 (mean 0-based rank 1.2 to 2.1; shap's heuristic
    0.75 to 1.2): pass ``interactions=`` when interaction values are at hand. Cost: ``O(m d)``, no model call.
    """
    names = tuple(explanation.feature_names)
    j = _feature_index(feature, names)
    d = len(names)
    if d < 2:
        raise ValueError("explanation: colouring by an interaction needs at least two features")
    if interactions is not None:
        _check_interactions_target(explanation, interactions)
        matrix = np.asarray(getattr(interactions, "matrix", interactions), dtype=float)
        if matrix.ndim == 3:
            matrix = np.abs(matrix).mean(axis=0)
        if matrix.shape != (d, d):
            raise ValueError(f"interactions: expected Interactions or a ({d}, {d}) matrix, got shape {matrix.shape}")
        score = np.abs(matrix[j]).astype(float)
    else:
        if not explanation._data_aligned:
            raise ValueError("explanation: has no feature values (.data) to find interactions from")
        columns = np.column_stack([encode(explanation.data[:, k])[0] for k in range(d)])
        own = columns[:, j]
        order = np.argsort(np.where(np.isnan(own), np.inf, own), kind="stable")
        score = _chunk_correlations(np.asarray(explanation.values[:, j], dtype=float), columns, order,
                                    max(1, min(10, len(order) // 3)))
    score[j] = -np.inf
    return int(np.argmax(score))


def _check_interactions_target(explanation, interactions) -> None:
    """``interactions=`` of another class than the explanation's (or a dict of one per class) is refused, naming
    both: the colouring feature was chosen from another class's pairs, silently (a dict failed with "float()
    argument must be ... not 'dict'")."""
    target = info_of(explanation).get("target")
    target = target.item() if isinstance(target, np.generic) else target
    if isinstance(interactions, Mapping):
        keys = [k.item() if isinstance(k, np.generic) else k for k in interactions]
        pick = target if target in keys else (keys[0] if keys else "cls")
        raise TypeError(f"interactions: got a dict of {len(keys)} results, one per class or output (keys: {keys}); "
                        f"pass one, of the class the explanation explains: interactions=result[{pick!r}]")
    theirs = getattr(interactions, "info", {}).get("target")
    theirs = theirs.item() if isinstance(theirs, np.generic) else theirs
    if target is None or theirs is None or (isinstance(target, str) and target in ("predicted", "label")) or (
            isinstance(theirs, str) and theirs in ("predicted", "label")):
        return
    if theirs != target:
        raise ValueError(f"interactions: explain class {theirs!r}, the explanation class {target!r}; pass the "
                         f"interactions of class {target!r} (the colouring feature is chosen from their pairs)")


def _levels(column):
    """A colouring feature read as levels, or None when it is a number with many values (a colour bar):
    ``(level per row, -1 where missing; level names; ordered)``. Raw categories (strings, a pandas category's
    names) are levels by their sorted names, not ``ordered``; numbers that are all integers (codes, booleans)
    with at most :data:`MAX_CODES` distinct values are levels in numeric order, ``ordered``."""
    numbers, categories = encode(column)
    known = np.isfinite(numbers)
    level = np.full(len(numbers), -1)
    if categories is not None:
        level[known] = numbers[known].astype(int)
        return level, [str(c) for c in categories], False
    values = np.unique(numbers[known])
    if 0 < len(values) <= MAX_CODES and np.all(values == np.round(values)):
        level[known] = np.searchsorted(values, numbers[known])
        return level, [format_value(v) for v in values], True
    return None


def _level_colours(level: np.ndarray, names: list[str], ordered: bool):
    """The colour of each row's dot and the legend's entries ``(colour, label)``, one per level in the levels'
    order: integer codes from blue (lowest) to red (highest), as the colour bar's numbers; categories in
    distinct colours (matplotlib's ``tab10`` less its grey, which means missing or pooled here); of more than
    :data:`MAX_COLOURS` categories the 8 most frequent keep a colour and the others share dark grey ("k other
    categories"); missing values light grey."""
    from matplotlib import colormaps

    k = len(names)
    counts = np.bincount(level[level >= 0], minlength=k)
    if ordered:
        palette = value_cmap()(np.linspace(0, 1, k)) if k > 1 else value_cmap()([0.5])
        own = list(range(k))
    else:
        own = sorted(np.argsort(-counts, kind="stable")[:MAX_COLOURS - 1 if k > MAX_COLOURS else k].tolist())
        palette = np.zeros((k, 4))
        palette[own] = colormaps["tab10"]([0, 1, 2, 3, 4, 5, 6, 8, 9][:len(own)])
    pooled = [j for j in range(k) if j not in own]
    palette[pooled] = OTHERS
    colours = np.tile(np.array(MISSING), (len(level), 1))
    colours[level >= 0] = palette[level[level >= 0]]
    entries = [(palette[j], names[j]) for j in own]
    if pooled:
        entries.append((OTHERS, f"{len(pooled)} other categories" if len(pooled) > 1 else names[pooled[0]]))
    if (level < 0).any():
        entries.append((MISSING, "missing"))
    return colours, entries


def _level_legend(ax, entries, title: str):
    """The colouring feature's legend right of the axes: one dot per level."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="o", ls="", mfc=colour, mec="none", ms=6, label=label)
               for colour, label in entries]
    return ax.legend(handles=handles, title=title, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                     fontsize=8, title_fontsize=9, borderaxespad=0.0, handletextpad=0.3)


def scatter(explanation, feature=None, *, color="auto", interactions=None, ax=None, title: str | None = None,
            random_state=0):
    """One dot per row: ``feature``'s value (x) against its attribution (y), coloured by another feature's
    value. A numeric colouring feature with many values: low blue to high red between its 5th and 95th
    percentiles, a colour bar names it and its range. A categorical one (strings, a pandas category, or
    integer codes with at most :data:`MAX_CODES` distinct values): one colour per level and a legend naming
    each (categories in distinct colours, sorted by name; more than :data:`MAX_COLOURS`: the 8 most frequent,
    the others pooled in dark grey; integer codes blue to red in numeric order); missing values grey.

    ``explanation``: an Explanation of many rows (with ``.data``). ``feature``: a name or index (optional for a
    one-feature selection, as shap's ``scatter(expl[:, "age"])``). ``color``:
    ``"auto"`` (the feature that interacts most, see :func:`strongest_interaction`; ``interactions=`` may pass
    interaction values to choose it), a feature name or index, or None (one colour). Raw categorical values are
    placed at their sorted positions, slightly spread. The y label names the unit and the class explained when
    the result records them; rows that explain different classes (``target="predicted"``) are drawn with a
    warning and a title saying so. A feature of several columns (``groups=``) has no single value: it can be
    neither ``feature`` nor ``color``.
    """
    if not hasattr(one_result(explanation, "explanation", "scatter"), "base_values"):
        raise TypeError(f"explanation: scatter draws many rows of an Explanation, got {type(explanation).__name__}")
    rng = check_random_state(random_state)
    names = [str(n) for n in explanation.feature_names]
    if feature is None:
        if len(names) != 1:
            raise TypeError(f"feature: expected the feature to plot (a name or index) for an Explanation of "
                            f"{len(names)} features, got none: scatter(expl, {names[0]!r}), or select one feature "
                            f"first: scatter(expl[:, {names[0]!r}])")
        feature = 0
    j = _feature_index(feature, tuple(names))
    if not explanation._data_aligned:
        raise ValueError("explanation: has no feature values (.data) with one column per feature to plot against")
    info = info_of(explanation)
    several = grouped(explanation)
    if names[j] in several:
        raise ValueError(f"feature: {names[j]!r} is a group of several columns ({_columns(info, names[j])}); it has "
                         "no single value to plot against")
    title = warn_mixed(info, "scatter", title)
    x, categories = encode(explanation.data[:, j])
    y = np.asarray(explanation.values[:, j], dtype=float)
    absent = ~np.isfinite(x)  # rows whose value is missing: drawn at a place of their own, named "missing"
    finite = x[~absent]
    if absent.any():
        if categories is not None:
            x[absent] = len(categories)
        elif finite.size:
            span = float(finite.max() - finite.min()) or 1.0
            x[absent] = finite.min() - 0.12 * span
        else:
            x[absent] = 0.0
    if categories is not None:  # spread the dots of a category sideways
        x = x + rng.uniform(-0.2, 0.2, len(x))
    c = None
    if isinstance(color, str) and color == "auto":
        c = strongest_interaction(explanation, j, interactions) if len(names) > 1 else None
        if c is not None and names[c] in several:  # no single value to colour by
            c = None
    elif color is not None:
        try:
            c = _feature_index(color, tuple(names))
        except (KeyError, IndexError) as exc:  # the message named no parameter
            raise type(exc)(f"color: {exc.args[0]}") from None
        if names[c] in several:
            raise ValueError(f"color: {names[c]!r} is a group of several columns ({_columns(info, names[c])}); it "
                             "has no single value to colour by")
    ax = new_axes(ax, (6.5, 4.5))
    if c is None:
        ax.scatter(x, y, s=14, color="#1f77d0", linewidths=0, alpha=0.8)
    else:
        levels = _levels(explanation.data[:, c])
        if levels is not None:  # categorical: one colour per level, named in a legend
            colours, entries = _level_colours(*levels)
            ax.scatter(x, y, s=14, c=colours, linewidths=0, alpha=0.85)
            _level_legend(ax, entries, names[c])
        else:
            numbers, _ = encode(explanation.data[:, c])
            level = shade(numbers)
            colours = np.tile(np.array(MISSING), (len(y), 1))
            known = np.isfinite(level)
            colours[known] = value_cmap()(level[known])
            ax.scatter(x, y, s=14, c=colours, linewidths=0, alpha=0.85)
            value_colorbar(ax, label=names[c], span=limits(numbers), values=numbers)
    if categories is not None:
        labels = categories + (["missing"] if absent.any() else [])
        ax.set_xticks(range(len(labels)), labels, rotation=45 if len(labels) > 4 else 0,
                      ha="right" if len(labels) > 4 else "center")
    elif absent.any():  # numbers: the missing rows left of the smallest value, a tick of their own
        left = float(x[absent][0])
        lo, hi = ax.get_xlim()
        ticks = [t for t in ax.get_xticks() if lo <= t <= hi and (not finite.size or t >= finite.min() - 0.06 * (
            float(finite.max() - finite.min()) or 1.0))]
        ax.set_xticks([left, *ticks], ["missing", *[format_value(t) for t in ticks]])
        ax.set_xlim(lo, hi)
        ax.axvline(left + 0.06 * (float(finite.max() - finite.min()) or 1.0) if finite.size else left + 0.5,
                   color="#bbb", lw=0.6, ls=":")
    ax.axhline(0, color="#888", lw=0.6)
    ax.set_xlabel(names[j])
    ax.set_ylabel(with_unit(f"attribution of {names[j]}", info))
    if title:
        ax.set_title(title)
    return ax


def _columns(info, name: str) -> str:
    """The columns of group ``name`` (``info["groups"]``), comma-separated."""
    return ", ".join(str(c) for c in info.get("groups", {}).get(name, []))
