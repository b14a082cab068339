"""Modalities: token highlighting for text, region overlay for images."""

from __future__ import annotations

import numpy as np

from ..estimators._registry import NOT_EFFICIENT
from ..modalities.display import displayable
from ._common import diverging_cmap, explained, new_axes, one_result


def _limit(values):
    top = float(np.max(np.abs(values))) if len(values) else 0.0
    return top or 1.0


def _default_title(result, values: np.ndarray) -> str | None:
    """What a text or image plot shows, when the result says: the method, the output and target, and the sum of
    the values; for the methods that are not efficient (SHEAR, L- and C-Shapley) the title says that the sum
    need not be the output's change (the result does not store ``v(N)``)."""
    info = getattr(result, "info", None) or {}
    method = getattr(result, "method", None)
    if method is None:
        return None
    what = explained(info) or "output"  # "probability of class 1", as the tabular plots' labels
    title = f"{method}: attributions to the {what}; sum {float(np.sum(values)):+.3g}"
    if str(method).split(":")[-1] in NOT_EFFICIENT:
        title += " (not efficient: need not equal the output's change)"
    return title


def _one_row(result, what: str):
    """The Attribution inside ``result`` (a BivariateExplanation's Shapley values, an Explanation's only row)."""
    if hasattr(result, "univariate"):
        return result.univariate
    if hasattr(result, "base_values"):
        if len(result) != 1:
            raise ValueError(f"result: an Explanation of {len(result)} rows; {what} draws one: pass expl[i]")
        return result[0]
    return result


def text(result, values=None, *, ax=None, title: str | None = None, width: float = 60.0, fontsize: int = 12):
    """Tokens written in order on coloured boxes: red for positive, blue for negative attribution, the stronger
    the darker (symmetric scale). Lines wrap at about ``width`` characters (fewer when a new figure would be
    wider than 16 inches at this ``fontsize``; the figure's size follows the font, so boxes never overlap).

    ``result``: a result of :class:`~interplay.TextExplainer` (an Attribution, or a BivariateExplanation: it
    carries its tokens in ``info["tokens"]``), or a list of tokens with ``values``.
    """
    named = None
    if values is None:
        result = _one_row(one_result(result, "result", "text"), "text()")
        named = result
        tokens = (getattr(result, "info", None) or {}).get("tokens")
        if tokens is None:
            raise ValueError("result: carries no tokens (info['tokens']); pass a TextExplainer result, or "
                             "text(tokens, values)")
        values = result.values
    else:
        tokens = result
    tokens = [str(t) for t in tokens]
    values = np.asarray(values, dtype=float)
    if values.shape != (len(tokens),):
        raise ValueError(f"values: expected one value per token ({len(tokens)}), got shape {values.shape}")
    unit = 0.13 * max(float(fontsize), 1.0) / 12  # inches per character: a monospace character and its box
    if ax is None:  # the figure grows with the font (boxes overlapped above size 12); lines fit in 16 inches
        width = min(float(width), max(10.0, 16.0 / unit - 1.5))
    lines, line, used = [], [], 0
    for k, token in enumerate(tokens):
        if line and used + len(token) + 1 > width:
            lines.append(line)
            line, used = [], 0
        line.append(k)
        used += len(token) + 1
    if line:
        lines.append(line)
    per_line = 0.45 * fontsize / 12  # inches a line of text takes
    below = 0.9  # inches under the text for the colour bar (a gap, the bar, its ticks and label)
    ax = new_axes(ax, (unit * (width + 1.5), per_line * len(lines) + below + 0.45))
    cmap, limit = diverging_cmap(), _limit(values)
    for row, members in enumerate(lines):
        x = 0.0
        for k in members:
            shade = 0.5 + 0.5 * values[k] / limit
            ax.text(x, -row, tokens[k], fontsize=fontsize, va="center", ha="left", family="monospace",
                    bbox={"boxstyle": "round,pad=0.2", "fc": cmap(shade), "ec": "none"})
            x += len(tokens[k]) + 1
    ax.set_xlim(-0.5, width + 1)
    ax.set_ylim(-len(lines) + 0.4 - below / per_line, 0.6)
    ax.set_axis_off()
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    # a bar half the text's width and 0.12 inch thick below it, whatever the number of lines (with a fraction
    # of the axes, one line's bar was drawn a third as long as several lines')
    from matplotlib.transforms import blended_transform_factory

    thick, gap = 0.12 / per_line, 0.25 / per_line  # in lines
    cax = ax.inset_axes([0.25, -len(lines) + 0.4 - gap - thick, 0.5, thick],
                        transform=blended_transform_factory(ax.transAxes, ax.transData))
    ax.figure.colorbar(ScalarMappable(norm=Normalize(-limit, limit), cmap=cmap), cax=cax, orientation="horizontal",
                       label="attribution (red raises the output, blue lowers it)")
    title = title if title is not None else (_default_title(named, values) if named is not None else None)
    if title:
        ax.set_title(title, fontsize=10)
    return ax


def _region_edges(segments: np.ndarray):
    """Thin lines along the pixel edges between two regions (between pixels, so no pixel is covered)."""
    from matplotlib.collections import LineCollection

    ys, xs = np.nonzero(segments[:, :-1] != segments[:, 1:])  # edge right of pixel (y, x)
    vertical = np.stack([np.stack([xs + 0.5, ys - 0.5], 1), np.stack([xs + 0.5, ys + 0.5], 1)], 1)
    ys, xs = np.nonzero(segments[:-1] != segments[1:])  # edge below pixel (y, x)
    horizontal = np.stack([np.stack([xs - 0.5, ys + 0.5], 1), np.stack([xs + 0.5, ys + 0.5], 1)], 1)
    return LineCollection(np.concatenate([vertical, horizontal]), colors="#f2f2f2", linewidths=0.6, alpha=0.8)


def image(result, segments=None, values=None, *, ax=None, title: str | None = None, alpha: float = 0.65,
          boundaries: bool = True, image_alpha: float = 0.45):
    """The image with each region (``segments[y, x]`` = region id, ids ``0..len(values)-1``) tinted by its
    attribution (red positive, blue negative, symmetric scale): the tint's opacity grows with ``|value|`` (up to
    ``alpha``), so the image stays visible under weak regions; the image itself faded (``image_alpha`` over
    white; 1: as it is), so a tint over its dark pixels keeps the colour bar's colour (over black, a strong red
    read as maroon, a colour the bar does not have); region boundaries drawn as thin lines between
    pixels; a colour bar. Colour images in [0, 1] or uint8 are drawn as they are, others (e.g. standardised
    for a network) rescaled from their min..max, and grayscale ones from their min..max, for display only.

    ``result``: a result of :class:`~interplay.ImageExplainer` (it carries ``info["image"]`` and
    ``info["segments"]``), or the image with ``segments`` and ``values``.
    """
    if segments is None and values is None:
        result = _one_row(one_result(result, "result", "image"), "image()")
        info = getattr(result, "info", None) or {}
        if info.get("image") is None or info.get("segments") is None:
            raise ValueError("result: carries no image (info['image'], info['segments']); pass an ImageExplainer "
                             "result, or image(img, segments, values)")
        img, segments, values = info["image"], info["segments"], result.values
        title = title if title is not None else _default_title(result, np.asarray(values, dtype=float))
    elif segments is None or values is None:
        raise TypeError("image: pass a result alone, or the image with both segments and values")
    else:
        img = result
    img = np.asarray(img)
    segments = np.asarray(segments)
    values = np.asarray(values, dtype=float)
    if segments.shape != img.shape[:2]:
        raise ValueError(f"segments: expected the image's height x width {img.shape[:2]}, got {segments.shape}")
    if segments.min() < 0 or segments.max() >= len(values):
        raise ValueError(f"segments: region ids must lie in 0..{len(values) - 1} (one value per region)")
    from matplotlib.cm import ScalarMappable
    from matplotlib.colors import Normalize

    ax = new_axes(ax, (5, 5 * img.shape[0] / max(img.shape[1], 1)), layout="constrained")
    shown = displayable(img)
    for value, name in ((alpha, "alpha"), (image_alpha, "image_alpha")):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0 <= value <= 1:
            raise ValueError(f"{name}: expected an opacity between 0 and 1, got {value!r}")
    ax.imshow(shown, cmap="gray" if shown.ndim == 2 else None, alpha=image_alpha)
    limit = _limit(values)
    norm, cmap = Normalize(-limit, limit), diverging_cmap()
    tint = cmap(norm(values[segments]))
    tint[..., 3] = alpha * np.abs(values[segments]) / limit
    ax.imshow(tint)
    if boundaries:
        ax.add_collection(_region_edges(segments))
    ax.figure.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.8, label="attribution")
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=10, wrap=True)  # wider than a small image: wrapped
    return ax
