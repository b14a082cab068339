"""Attribution plots: bar (one row, many rows, or interactions), waterfall (one row), beeswarm (many rows)."""

from __future__ import annotations

import numpy as np

from .._validation import check_random_state
from ._common import (NEGATIVE, NEUTRAL, POSITIVE, check_max_features, encode, explained, fit_texts, format_number,
                      format_value, grouped, index_name, info_of, labelled, new_axes, one_result, others, row_data,
                      shade, shap_max_display, top_order, value_cmap, values_and_names, warn_mixed, with_unit)

_SIZE_WORDS = {1: "feature", 2: "pair"}


def _bar_values(result, feature_names):
    """(values, labels, x label, signed, sizes, info) for :func:`bar`; ``sizes``: each entry's subset size
    (Interactions), else None."""
    if hasattr(result, "index") and hasattr(result, "order") and hasattr(result, "top"):  # Interactions
        top = result.top(k=len(result.values), size=result.order) if result.order == 1 else [
            item for size in range(1, result.order + 1) for item in result.top(k=len(result.values), size=size)]
        values = np.array([v for _, v in top], dtype=float)
        sizes = np.array([len(names) for names, _ in top], dtype=int)
        return (values, [" x ".join(names) for names, _ in top],
                with_unit(f"{index_name(result.index)} interaction", info_of(result)), True, sizes, info_of(result))
    if hasattr(result, "base_values") and len(result) > 1:  # many rows: mean |value|, as shap.plots.bar
        values = np.abs(np.asarray(result.values, dtype=float)).mean(axis=0)
        info = info_of(result)
        return (values, [str(n) for n in result.feature_names],
                with_unit(f"mean |value| over {len(result)} rows", info), False, None, info)
    if hasattr(result, "base_values"):
        result = result[0]
    values, names = values_and_names(result, feature_names)
    info = info_of(result)
    if "aggregate" in info:  # e.g. global_importance()
        return (values, names, with_unit(f"{info['aggregate']} over {info.get('rows', '?')} rows", info),
                bool(np.any(values < 0)), None, info)
    return (values, labelled(names, row_data(result), grouped(result)), with_unit("attribution", info), True,
            None, info)


def _rest_bars(values, rest, sizes):
    """The bars that sum the entries ``rest`` not shown: one "N other features" bar, or, for Interactions, one
    per subset size ("3 other features", "13 other pairs"): main effects and interactions are not added up."""
    if not rest:
        return []
    if sizes is None:
        return [(others(len(rest)), float(np.sum(values[rest])))]
    bars = []
    for size in sorted({int(sizes[i]) for i in rest}):
        members = [i for i in rest if sizes[i] == size]
        if size in _SIZE_WORDS:
            label = others(len(members), _SIZE_WORDS[size])
        else:  # "18 other subsets of 3" (the plural on the noun, not the phrase)
            label = f"{len(members)} other subset{'' if len(members) == 1 else 's'} of {size}"
        bars.append((label, float(np.sum(values[members]))))
    return bars


CUT_ABOVE = 1.5  # a summed bar longer than this many times the longest bar shown is cut (drawn to scale below)


def _break_mark(ax, x: float, k: int, span: float) -> None:
    """Two white slanted strokes across bar ``k`` at ``x``: the bar is cut there (``span``: the x range, for the
    strokes' slant)."""
    for shift in (-0.012, 0.012):
        ax.plot([x + (shift - 0.01) * span, x + (shift + 0.01) * span], [k - 0.5, k + 0.5], color="white", lw=2.2,
                solid_capstyle="butt", zorder=3, gid="bar-break")


def bar(result, *, feature_names=None, max_features: int | None = 12, ax=None, title: str | None = None,
        max_display: int | None = None):
    """Horizontal bars, largest ``|value|`` on top; the smallest features are summed into one "N other
    features" bar (as shap's bar plot; grey). A sum more than :data:`CUT_ABOVE` times the longest bar shown (e.g. 75
    small pairs of one sign) is not drawn to scale, where it would squash the bars shown: its bar stops at the
    longest one's length, is cut by two white strokes, and its label gives the sum with "(bar cut)". The x label
    names the unit and the class explained when the result records them (``info["output"]``, ``info["target"]``).

    ``result``: an Attribution (one row, labels ``"age = 27"`` when it holds the row's ``data``; red raises the
    output, blue lowers it), an Explanation of many rows (mean ``|value|`` per feature; rows that explain
    different classes, ``target="predicted"``, are pooled with a warning and a title saying so), a
    BivariateExplanation (its Shapley values), Interactions (the subsets with the largest ``|value|``, labelled
    ``"age x sex"``; the others summed per subset size: "N other features", "N other pairs") or an array with
    ``feature_names``. ``max_features``: a positive integer, or None for all (``max_display``, shap's name, is
    taken for it when given).
    """
    max_features = check_max_features(shap_max_display(max_features, max_display))
    result = one_result(result, "result", "bar")
    values, labels, xlabel, signed, sizes, info = _bar_values(result, feature_names)
    if (hasattr(result, "base_values") and len(result) > 1) or "aggregate" in info:  # rows pooled
        title = warn_mixed(info, "bar", title)
    order = list(top_order(values, None))
    shown = order[:max_features] if max_features is not None else order
    rest = order[len(shown):]
    bars = [(labels[i], float(values[i])) for i in shown]
    extra = _rest_bars(values, rest, sizes)
    scale = float(np.max(np.abs(values))) if len(values) else 0.0
    extra = [(name, 0.0 if abs(v) <= 1e-9 * scale else v) for name, v in extra]  # a sum's round-off: 0
    longest = max((abs(v) for _, v in bars), default=0.0)  # the bars shown set the scale
    bars = (bars + extra[::-1])[::-1]
    cut = [k < len(extra) and longest > 0 and abs(v) > CUT_ABOVE * longest for k, (_, v) in enumerate(bars)]
    drawn = [float(np.sign(v)) * longest if c else v for (_, v), c in zip(bars, cut)]
    ax = new_axes(ax, (6.5, 0.35 * len(bars) + 1.2))
    colors = [(POSITIVE if v > 0 else NEGATIVE) if signed else POSITIVE for _, v in bars]
    colors[:len(extra)] = [NEUTRAL] * len(extra)
    ax.barh(range(len(bars)), drawn, color=colors)
    ax.set_yticks(range(len(bars)), [name for name, _ in bars])
    ax.axvline(0, color="#444", lw=0.8)
    # a value within round-off of 0 beside the largest (an estimate of 1e-13 next to 5) is written 0
    texts = [ax.text(d, k, f" {format_number(0.0 if abs(v) <= 1e-9 * scale else v, 3, sign=signed)}"
                           f"{' (bar cut)' if c else ''} ", va="center",
                     ha="left" if d >= 0 else "right", fontsize=8)
             for k, ((_, v), d, c) in enumerate(zip(bars, drawn, cut))]
    ax.set_xlabel(xlabel)
    ends = [0.0] + drawn
    fit_texts(ax, texts, (min(ends), max(ends)))
    for k, (d, c) in enumerate(zip(drawn, cut)):
        if c:
            _break_mark(ax, 0.75 * d, k, longest)
    if title:
        ax.set_title(title)
    return ax


def waterfall(result, *, feature_names=None, max_features: int | None = 10, ax=None, title: str | None = None,
              max_display: int | None = None):
    """From the baseline ``v(empty)`` to the prediction, one step per feature (largest ``|value|`` on top,
    where the running total reaches the prediction); the smallest features are merged into one "other
    features" step. Labels show the row's feature values (``"age = 27"``) when the result holds them; the x
    label names the output's unit and class when the result records them (``"log-odds of class 1 (baseline
    -2.2 -> 0.58)"``).

    ``result``: an Attribution, an Explanation of one row (or pass ``expl[i]``), a BivariateExplanation (its
    Shapley values) or an array with ``feature_names``. ``max_features``: a positive integer, or None for all
    (``max_display``, shap's name, is taken for it when given).
    """
    max_features = check_max_features(shap_max_display(max_features, max_display))
    values, names = values_and_names(one_result(result, "result", "waterfall"), feature_names)
    one = result[0] if hasattr(result, "base_values") else result
    labels = labelled(names, row_data(one), grouped(one))
    baseline = float(getattr(getattr(one, "univariate", one), "baseline", 0.0))
    order = list(top_order(values, None))
    shown = order[:max_features] if max_features is not None else order
    rest = order[len(shown):]
    steps = [(labels[i], values[i]) for i in shown]
    if rest:
        steps.append((others(len(rest)), float(values[rest].sum())))
    steps = steps[::-1]  # smallest first, so the running total ends at the prediction
    ax = new_axes(ax, (6.5, 0.4 * len(steps) + 1.5))
    start, texts, ends = baseline, [], [baseline]
    for k, (name, value) in enumerate(steps):
        ax.barh(k, value, left=start, color=POSITIVE if value > 0 else NEGATIVE, height=0.7)
        texts.append(ax.text(start + value, k, f" {format_number(value, 3, sign=True)} ", va="center",
                             ha="left" if value >= 0 else "right", fontsize=8, zorder=4,  # over the lines:
                             bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.3, "alpha": 0.85}))
        # a label at a bar's end on the baseline or prediction line was crossed by it
        if k + 1 < len(steps):
            ax.plot([start + value] * 2, [k + 0.35, k + 0.65], color="#666", lw=0.6)
        start += value
        ends.append(start)
    ax.set_yticks(range(len(steps)), [s[0] for s in steps])
    ax.axvline(baseline, color="#888", lw=0.8, ls="--")
    ax.axvline(start, color="#222", lw=0.8)
    unit = explained(info_of(one)) or "output"
    ax.set_xlabel(f"{unit} (baseline {format_number(baseline)} -> {format_number(start)})")
    fit_texts(ax, texts, (min(ends), max(ends)))  # the bars' sticky edges would stop ax.margins at the bars
    if title:
        ax.set_title(title)
    return ax


def value_colorbar(ax, label: str = "feature value", categories=None, span=None, values=None):
    """A colour bar for feature values: "low"/"high" (or, with ``span``, the values at its ends), or the
    category names (sorted; only the first and last of more than 12) when one categorical feature is shown.
    ``values``: the numbers coloured; where some lie outside ``span`` (clipped to its ends' colours) the bar gets
    an arrow at that end and its label a "<=" or ">=" (education-num's 1-16 read as 5-14 without them)."""
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize

    few = categories is not None and 1 < len(categories) <= 12
    if few:  # one block of colour per category
        k = len(categories)
        half = 0.5 / (k - 1)
        mappable = ScalarMappable(norm=BoundaryNorm(np.linspace(-half, 1 + half, k + 1), k),
                                  cmap=ListedColormap(value_cmap()(np.linspace(0, 1, k))))
    else:
        mappable = ScalarMappable(norm=Normalize(0, 1), cmap=value_cmap())
    low = high = False
    if span is not None and values is not None and not few and categories is None:
        finite = np.asarray(values, dtype=float)
        finite = finite[np.isfinite(finite)]
        low, high = bool(finite.size and finite.min() < span[0]), bool(finite.size and finite.max() > span[1])
    extend = {(True, True): "both", (True, False): "min", (False, True): "max"}.get((low, high), "neither")
    bar = ax.figure.colorbar(mappable, ax=ax, shrink=0.8, aspect=30, pad=0.02, extend=extend)
    if few:
        bar.set_ticks(np.linspace(0, 1, len(categories)), labels=[str(c) for c in categories])
    elif categories is not None and len(categories) > 12:  # the ends of the sorted categories
        bar.set_ticks([0, 1], labels=[str(categories[0]), str(categories[-1])])
    elif span is not None and span[1] > span[0]:
        bar.set_ticks([0, 1], labels=[("<= " if low else "") + format_value(span[0]),
                                      (">= " if high else "") + format_value(span[1])])
    else:
        bar.set_ticks([0, 1], labels=["low", "high"])
    bar.set_label(label)
    bar.outline.set_visible(False)
    return bar


def beeswarm(explanation, *, max_features: int | None = 12, ax=None, title: str | None = None, random_state=0,
             max_display: int | None = None):
    """Summary of many rows: one line per feature (most important on top), one dot per row at its value,
    coloured by the feature's value in that row (low blue to high red, each feature on its own scale between its
    5th and 95th percentiles; raw categories by their sorted position; missing values grey), jittered where
    dots pile up; a colour bar explains the colours (it says when categories are coloured by their names'
    alphabetical order); beyond ``max_features`` (a positive integer, or None for all), one grey line of the
    rows' summed values of the other features. The x label names the unit and the class explained when the
    result records them; rows that explain different classes (``target="predicted"``) are drawn with a warning
    and a title saying so. A feature of several columns (``groups=``) has no single value: its dots are grey.
    ``explanation``: an Explanation (many rows). ``max_display``, shap's name, is taken for ``max_features`` when
    given."""
    if not hasattr(one_result(explanation, "explanation", "beeswarm"), "base_values"):
        raise TypeError(f"explanation: beeswarm draws many rows of an Explanation, got {type(explanation).__name__}"
                        "; use bar() or waterfall() for one row")
    max_features = check_max_features(shap_max_display(max_features, max_display))
    rng = check_random_state(random_state)  # (a word failed inside numpy's SeedSequence)
    values = np.asarray(explanation.values, dtype=float)
    names = [str(n) for n in explanation.feature_names]
    if values.ndim != 2 or len(values) == 0:
        raise ValueError(f"explanation: expected values of shape (rows, features), got {values.shape}")
    info = info_of(explanation)
    title = warn_mixed(info, "beeswarm", title)
    data = explanation.data if explanation._data_aligned else None
    several = grouped(explanation)  # features of several columns: no single value to colour by (grey)
    order = list(top_order(np.abs(values).mean(axis=0), max_features)[::-1])
    rest = sorted(set(range(values.shape[1])) - set(order))
    lines = [(names[j], values[:, j], None if data is None or names[j] in several else data[:, j]) for j in order]
    if rest:  # as shap: the rows' summed values of the features not shown, in grey
        lines.insert(0, (others(len(rest)), values[:, rest].sum(axis=1), None))
    ax = new_axes(ax, (7.5, 0.4 * len(lines) + 1.5))
    cmap = value_cmap()
    categorical = False
    for k, (_, v, column) in enumerate(lines):
        colours = np.tile(np.array([0.6, 0.63, 0.65, 1.0]), (len(v), 1))  # grey: value unknown
        if column is not None:
            numbers, categories = encode(column)
            categorical |= categories is not None
            level = shade(numbers, categories)
            known = np.isfinite(level)
            colours[known] = cmap(level[known])
        span = np.ptp(v) or 1.0
        bins = np.round((v - v.min()) / span * 60).astype(int)
        counts = np.bincount(bins)
        spread = np.minimum(counts[bins] / max(counts.max(), 1), 1.0) * 0.35
        y = k + rng.uniform(-1, 1, len(v)) * spread
        ax.scatter(v, y, c=colours, s=12, linewidths=0, alpha=0.85)
    ax.set_yticks(range(len(lines)), [name for name, _, _ in lines])
    ax.axvline(0, color="#444", lw=0.8)
    ax.set_xlabel(with_unit("attribution", info, "one dot per row"))
    if data is not None:
        # categories have no order: their colours follow their names' alphabetical order, which the bar says
        value_colorbar(ax, label="feature value (categories: alphabetical)" if categorical else "feature value")
    if title:
        ax.set_title(title)
    return ax
