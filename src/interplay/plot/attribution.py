"""Attribution plots: bar and waterfall for one row, beeswarm summary for many rows."""

from __future__ import annotations

import numpy as np

from ._common import NEGATIVE, POSITIVE, new_axes, plt, top_order, values_and_names


def bar(result, *, feature_names=None, max_features: int | None = 12, ax=None, title: str | None = None):
    """Horizontal bars of one row's attributions, largest ``|value|`` on top (red raises the output, blue
    lowers it). ``result``: an Attribution, a BivariateExplanation (its Shapley values) or an array."""
    values, names = values_and_names(result, feature_names)
    order = top_order(values, max_features)[::-1]
    ax = new_axes(ax, (6, 0.35 * len(order) + 1.2))
    colors = [POSITIVE if values[i] > 0 else NEGATIVE for i in order]
    ax.barh(range(len(order)), values[order], color=colors)
    ax.set_yticks(range(len(order)), [names[i] for i in order])
    ax.axvline(0, color="#444", lw=0.8)
    for k, i in enumerate(order):
        ax.text(values[i], k, f" {values[i]:+.3g} ", va="center", ha="left" if values[i] >= 0 else "right",
                fontsize=8)
    ax.set_xlabel("attribution")
    ax.margins(x=0.2)
    if title:
        ax.set_title(title)
    return ax


def waterfall(result, *, feature_names=None, max_features: int | None = 10, ax=None, title: str | None = None):
    """From the baseline ``v(empty)`` to the prediction, one step per feature (largest ``|value|`` at the
    bottom, near the prediction); the smallest features are merged into one "other features" step."""
    values, names = values_and_names(result, feature_names)
    baseline = float(getattr(getattr(result, "univariate", result), "baseline", 0.0))
    order = list(top_order(values, None))
    shown = order[:max_features] if max_features is not None else order
    rest = order[len(shown):]
    steps = [(names[i], values[i]) for i in shown]
    if rest:
        steps.append((f"{len(rest)} other features", float(values[rest].sum())))
    steps = steps[::-1]  # smallest first, so the running total ends at the prediction
    ax = new_axes(ax, (6.5, 0.4 * len(steps) + 1.5))
    start = baseline
    for k, (name, value) in enumerate(steps):
        ax.barh(k, value, left=start, color=POSITIVE if value > 0 else NEGATIVE, height=0.7)
        ax.text(start + value, k, f" {value:+.3g} ", va="center", ha="left" if value >= 0 else "right",
                fontsize=8)
        if k + 1 < len(steps):
            ax.plot([start + value] * 2, [k + 0.35, k + 0.65], color="#666", lw=0.6)
        start += value
    ax.set_yticks(range(len(steps)), [s[0] for s in steps])
    ax.axvline(baseline, color="#888", lw=0.8, ls="--")
    ax.axvline(start, color="#222", lw=0.8)
    ax.set_xlabel(f"output (baseline {baseline:.4g} -> {start:.4g})")
    ax.margins(x=0.3)
    if title:
        ax.set_title(title)
    return ax


def beeswarm(explanation, *, max_features: int | None = 12, ax=None, title: str | None = None, random_state=0):
    """Summary of many rows: one line per feature (most important on top), one dot per row at its value,
    coloured by the feature's value in that row (low blue, high red), jittered where dots pile up."""
    values = np.asarray(explanation.values, dtype=float)
    data = np.asarray(explanation.data, dtype=float)
    names = [str(n) for n in explanation.feature_names]
    if values.ndim != 2 or len(values) == 0:
        raise ValueError(f"explanation: expected values of shape (rows, features), got {values.shape}")
    order = top_order(np.abs(values).mean(axis=0), max_features)[::-1]
    ax = new_axes(ax, (7, 0.4 * len(order) + 1.5))
    rng = np.random.default_rng(random_state)
    cmap = plt().get_cmap("coolwarm")
    for k, j in enumerate(order):
        v = values[:, j]
        col = data[:, j]
        lo, hi = np.nanmin(col), np.nanmax(col)
        shade = (col - lo) / (hi - lo) if hi > lo else np.full_like(col, 0.5)
        span = np.ptp(v) or 1.0
        bins = np.round((v - v.min()) / span * 60).astype(int)
        counts = np.bincount(bins)
        spread = np.minimum(counts[bins] / max(counts.max(), 1), 1.0) * 0.35
        y = k + rng.uniform(-1, 1, len(v)) * spread
        ax.scatter(v, y, c=cmap(shade), s=12, linewidths=0, alpha=0.85)
    ax.set_yticks(range(len(order)), [names[j] for j in order])
    ax.axvline(0, color="#444", lw=0.8)
    ax.set_xlabel("attribution (one dot per row; colour: feature value, low blue to high red)")
    if title:
        ax.set_title(title)
    return ax
