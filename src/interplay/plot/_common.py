"""Shared plotting helpers: colours, axes creation, argument coercion."""

from __future__ import annotations

from collections.abc import Mapping

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


def new_axes(ax, figsize, *, fit: bool = True, layout: str = "tight"):
    """``ax``, or the axes of a new figure of ``figsize`` inches. ``fit``: the new figure gets a layout engine
    (applied at every draw), so long tick labels, axis labels and colorbars stay inside it when saved or shown
    as it is (they were cut off unless saved with ``bbox_inches="tight"``); off for a plot that places its axes
    itself. ``layout``: ``"tight"`` (a user's own ``plt.tight_layout()`` then changes nothing and warns nothing;
    with ``"constrained"`` it warned that the layout changed) or ``"constrained"`` (exact around a colorbar beside
    an image, where "tight" left it 2 pixels over the edge)."""
    if ax is not None:
        return check_axes(ax)
    fig, ax = plt().subplots(figsize=figsize, layout=layout if fit else None)
    return ax


def check_axes(ax):
    """``ax`` when it is None or matplotlib Axes, else a TypeError naming it (a string failed deep inside: "'str'
    object has no attribute 'barh'")."""
    if ax is not None and not (hasattr(ax, "figure") and callable(getattr(ax, "plot", None))):
        raise TypeError(f"ax: expected matplotlib Axes (e.g. fig, ax = plt.subplots()) or None, got {ax!r}")
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
        if values.ndim != 1:  # (a scalar failed on len() below)
            raise ValueError(f"values: expected one value per feature (1-D), got shape {values.shape}")
        names = list(feature_names) if feature_names is not None else [f"x{i}" for i in range(len(values))]
    if values.ndim != 1:
        raise ValueError(f"values: expected one value per feature (1-D), got shape {values.shape}")
    if len(names) != len(values):
        raise ValueError(f"feature_names: expected {len(values)} names, got {len(names)}")
    return values, [str(n) for n in names]


def with_show(plot):
    """The public plot function ``plot`` taking shap's ``show=`` too: ``True`` shows the figure after drawing
    (``plt.show()``), ``False`` (the default: interplay's plots only draw, in a notebook the figure appears by
    itself) does not; the Axes is returned either way. shap's plots take it, with ``True`` as their default."""
    import functools

    @functools.wraps(plot)
    def drawn(*args, show=False, **kwargs):
        from .._validation import check_bool

        show = check_bool(show, "show")  # (before drawing: a word is refused, no figure left behind)
        ax = plot(*args, **kwargs)
        if show:
            import matplotlib.pyplot as plt

            plt.show()
        return ax

    drawn.__doc__ = (plot.__doc__ or "").rstrip() + (
        "\n\n    ``show``: True shows the figure after drawing (``plt.show()``, shap's keyword); False (the default) "
        "only draws.")
    return drawn


def shap_max_display(max_features, max_display):
    """``max_display``, shap's name for ``max_features``: the number of features drawn when given (not None)."""
    return max_features if max_display is None else max_display


def check_max_features(max_features):
    """``max_features`` (a positive integer or None) as given; else a ValueError naming it (a negative one would
    slice from the end, 0 would draw no feature)."""
    if max_features is None:
        return None
    if (isinstance(max_features, (bool, np.bool_)) or not isinstance(max_features, (int, np.integer))
            or max_features < 1):
        raise ValueError(f"max_features: expected a positive integer or None, got {max_features!r}")
    return int(max_features)


def top_order(values, max_features):
    max_features = check_max_features(max_features)
    order = np.argsort(-np.abs(values), kind="stable")
    return order if max_features is None else order[:max_features]


def others(count: int, what: str = "feature") -> str:
    """``"1 other feature"``, ``"5 other features"``."""
    return f"{count} other {what}" + ("" if count == 1 else "s")


def info_of(result) -> dict:
    """``result.info`` (a BivariateExplanation's Shapley values' info when its own lacks the unit), or {}."""
    info = getattr(result, "info", None)
    if not isinstance(info, Mapping) or isinstance(result, np.ndarray):
        return {}
    inner = getattr(getattr(result, "univariate", None), "info", None)
    if "output" not in info and isinstance(inner, Mapping):
        return {**inner, **info}
    return dict(info)


CLASS_OUTPUTS = ("probability", "log-odds", "margin")  # a class's output: "log-odds of class '>50K'"


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _is_predicted(target) -> bool:
    return isinstance(target, str) and target == "predicted"


def target_classes(info) -> tuple[bool, list | None]:
    """``(mixed, classes)``: whether the rows of a result explain different outputs (``target="predicted"``:
    each row's predicted class) and, when ``info["targets"]`` says, which (in order of first appearance)."""
    if info.get("output") == "loss":  # targets are the rows' labels, the loss is one output
        return False, None
    targets = info.get("targets")
    if isinstance(targets, (list, tuple, np.ndarray)) and len(targets):
        distinct = []
        for t in targets:
            t = _plain(t)
            if t not in distinct:
                distinct.append(t)
        return len(distinct) > 1, distinct
    return _is_predicted(info.get("target")), None


def explained(info) -> str | None:
    """What a result's values are in, from its ``info`` (``output``, ``target``, ``targets``):
    ``"log-odds of class '>50K'"``, ``"probability of each row's predicted class"``, ``"prediction"`` (a
    regressor's only output); None when the result does not say."""
    unit = info.get("output")
    if not unit:
        return None
    if unit == "loss":  # which loss, where the result says (info["model_kind"])
        return {"classifier": "minus the log-loss", "regressor": "minus the squared error"}.get(
            info.get("model_kind"), "minus the loss")
    if unit == "margin" and info.get("model_kind") == "regressor":
        return "raw score (before the link)"
    mixed, classes = target_classes(info)
    if mixed:
        return f"{unit} of each row's predicted class"
    target = classes[0] if classes else _plain(info.get("target"))
    if target is None or (unit not in CLASS_OUTPUTS and target == 0):  # e.g. a regressor's only output
        return str(unit)
    return f"{unit} of {'class' if unit in CLASS_OUTPUTS else 'output'} {target!r}"


def with_unit(label: str, info, extra: str | None = None) -> str:
    """``label`` followed by what the values are in (and ``extra``) in parentheses, when known."""
    parts = [p for p in (explained(info), extra) if p]
    return f"{label} ({'; '.join(parts)})" if parts else label


def warn_mixed(info, plot: str, title: str | None) -> str | None:
    """For a result whose rows explain different classes (``target="predicted"``): a UserWarning that ``plot``
    pools them, and the title to draw when none is given (``title`` otherwise)."""
    mixed, classes = target_classes(info)
    if not mixed:
        return title
    import warnings

    listed = f" ({', '.join(repr(c) for c in classes)})" if classes else ""
    warnings.warn(f"explanation: its rows explain different classes (target='predicted': each row's predicted "
                  f"class{listed}); {plot}() pools them as if they were one output. To read one class, select its "
                  "rows, e.g. expl[np.asarray(expl.info['targets']) == cls], or explain one target= for every row",
                  UserWarning, stacklevel=3)
    return title if title is not None else f"rows explain different classes: each row's predicted class{listed}"


def grouped(result) -> set:
    """Names of the features made of several columns (``info["groups"]``): they have no single value."""
    groups = info_of(result).get("groups")
    return {str(k) for k in groups} if isinstance(groups, Mapping) else set()


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


def index_name(index) -> str:
    """An interaction index as the text names it ("SII", "Shapley-Taylor"; a title said "sii")."""
    from ..graph.describe import INDEX_NAMES

    return INDEX_NAMES.get(str(index).lower(), str(index))


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


def format_number(value: float, digits: int = 4, sign: bool = False) -> str:
    """A finite number in plain notation: an integer value as an integer (``83311``, not ``8.331e+04``),
    otherwise ``digits`` significant digits with the integer part kept whole and at least one decimal
    (``1234.6``, ``0.1235``); scientific notation only below 1e-4 or from 1e15 on (integers) / 1e9 on (others).
    ``sign``: a leading ``+`` on positive numbers."""
    plus = "+" if sign else ""
    value = float(value)
    if not np.isfinite(value):
        return f"{value:{plus}}"
    size = abs(value)
    if value == int(value) and size < 1e15:
        return f"{int(value):{plus}d}"
    if size < 1e-4 or size >= 1e9:
        return f"{value:{plus}.{digits}g}"
    decimals = max(digits - 1 - int(np.floor(np.log10(size))), 1)
    text = f"{value:{plus}.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "+0") else text


def format_value(value, digits: int = 4) -> str:
    """A feature value for a label (``"age = 27"``), the one formatter of every plot that writes
    ``"name = value"``: numbers by :func:`format_number` (integers and integer-valued floats as integers, others
    with ``digits`` significant digits, no scientific notation for ordinary magnitudes), missing values (None,
    NaN) as ``"missing"``, anything else (a category) as its text."""
    if value is None:
        return "missing"
    if not is_number(value):
        return str(value)
    if np.isnan(float(value)):
        return "missing"
    return format_number(value, digits)


def labelled(names, data, several=()):
    """``"age = 27"`` labels when ``data`` holds one value per feature, else the names; a feature of several
    columns (a name in ``several``) has no single value: its name alone."""
    if data is None or np.ndim(data) != 1 or len(data) != len(names):
        return list(names)
    return [n if n in several else f"{n} = {format_value(v)}" for n, v in zip(names, data)]


def row_data(result):
    """The feature values of a one-row result (``Attribution.data``), or None."""
    result = getattr(result, "univariate", result)
    data = getattr(result, "data", None)
    return None if data is None or isinstance(result, np.ndarray) else data


def one_result(result, name: str, plot: str):
    """``result`` unchanged, or a TypeError when it is a dict of results (one per class or output, as
    ``Explainer.shapley`` returns for a multi-class model): the message names the parameter, the keys and how to
    pick one class. ``name``: the parameter's name, ``plot``: the plot function's name. A ``shap.Explanation`` is
    a TypeError too (its rows, values and base values are laid out otherwise: a single row was read as rows)."""
    if type(result).__module__.split(".")[0] == "shap":
        raise TypeError(f"{name}: got a shap.{type(result).__name__}; interplay's plots draw interplay's results "
                        f"(ip.Explainer(model, background).shapley(X) gives an Explanation); draw shap's with "
                        f"shap.plots")
    if result is None:  # (failed on len() of an unsized object)
        raise TypeError(f"{name}: expected a result to draw, got None")
    if not isinstance(result, Mapping):
        return result
    keys = [k.item() if isinstance(k, np.generic) else k for k in result]
    example = f"ip.plot.{plot}({name}[{keys[0]!r}])" if keys else f"ip.plot.{plot}({name}[cls])"
    raise TypeError(f"{name}: got a dict of {len(keys)} results, one per class or output (keys: {keys}); "
                    f"{plot}() draws one: pick one class, e.g. {example}")


def fit_texts(ax, texts, span, pad: float = 0.04):
    """Set ``ax``'s x-limits to cover ``span`` (lo, hi in data units) and every text of ``texts`` (value labels
    anchored at a data x, written left or right of it), plus ``pad`` of the axes' width on each side, so that
    no label leaves the axes (where it would run into the tick labels). Text widths are measured with the
    figure's renderer; the limits follow from the axes' width in pixels (a fixed point: the data per pixel
    grows with the limits)."""
    lo, hi = float(min(span)), float(max(span))
    if not texts:
        ax.set_xlim(*_padded(lo, hi, pad))
        return ax
    width = max(ax.get_window_extent().width, 1.0)
    sides = [(float(t.get_position()[0]), t.get_window_extent().width, t.get_horizontalalignment()) for t in texts]
    left, right = lo, hi
    per_pixel = first = (hi - lo) / width if hi > lo else 1.0 / width
    for _ in range(50):  # f(s) = hi(s) - lo(s) is increasing and flatter than s * width: iterate to its fixed point
        right = max([hi] + [x + w * per_pixel for x, w, ha in sides if ha == "left"])
        left = min([lo] + [x - w * per_pixel for x, w, ha in sides if ha == "right"])
        wanted = (right - left) / (width * (1 - 2 * pad))
        if wanted <= per_pixel * (1 + 1e-6) or wanted > 100 * first:  # fits (or labels wider than the axes)
            break
        per_pixel = wanted
    ax.set_xlim(*_padded(left, right, pad))
    return ax


def _padded(lo: float, hi: float, pad: float) -> tuple[float, float]:
    """``(lo, hi)`` widened by ``pad`` of the final width on each side (a unit range around a single point)."""
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    extra = (hi - lo) * pad / (1 - 2 * pad)
    return lo - extra, hi + extra
