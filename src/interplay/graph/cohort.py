"""Cohort graphs: the mean explanation graph over many rows (the Bivariate Shapley paper's global graphs for
subgroups of samples, e.g. smokers vs non-smokers in the COPD study, App. A).

Eq. 5-6 are linear in the utility ``u``, so the mean of the rows' matrices is the explanation graph of the rows'
mean game, and ``H_gamma`` of the mean graph reads "redundant on average over the cohort". The per-edge standard
errors of the mean are kept, so the default ``gamma`` treats edges within about two standard errors of zero
across the cohort as absent. Cost: no model evaluations.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .explanation import ExplanationGraph


def _as_weights(item) -> tuple[np.ndarray, tuple[str, ...] | None, np.ndarray | None]:
    from ..results import BivariateExplanation, Interactions

    if isinstance(item, ExplanationGraph):
        return np.asarray(item.weights), item.feature_names, item.univariate
    if isinstance(item, BivariateExplanation):
        return np.asarray(item.adjacency), item.feature_names, np.asarray(item.univariate.values)
    if isinstance(item, Interactions):
        graph = item.graph()
        return np.asarray(graph.weights), graph.feature_names, graph.univariate
    raise TypeError("explanations: expected BivariateExplanation, Interactions or ExplanationGraph items, "
                    f"got {type(item).__name__}")


def mean_graph(explanations, feature_names: Sequence[str] | None = None) -> ExplanationGraph:
    """Mean explanation graph over rows.

    ``explanations``: a sequence of :class:`~interplay.results.BivariateExplanation` (or
    :class:`~interplay.results.Interactions`, or :class:`ExplanationGraph`) for the rows of a cohort, or an
    ``(m, n, n)`` array of weight matrices. Returns an :class:`ExplanationGraph` with the mean weights,
    ``std_errors`` = standard error of the mean per edge (sample standard deviation / sqrt(m); zeros when
    ``m = 1``), the mean univariate values when every row has them, and ``info["n_rows"] = m``.
    """
    univariate = None
    kind = "mean"
    if isinstance(explanations, np.ndarray):
        stack = np.asarray(explanations, dtype=float)
        if stack.ndim != 3 or stack.shape[1] != stack.shape[2] or stack.shape[0] == 0:
            raise ValueError(f"explanations: expected an (m, n, n) array with m >= 1, got shape {stack.shape}")
    else:
        items = list(explanations)
        if not items:
            raise ValueError("explanations: expected at least one row, got none")
        parts = [_as_weights(item) for item in items]
        shapes = {w.shape for w, _, _ in parts}
        if len(shapes) != 1:
            raise ValueError(f"explanations: every row must have the same number of features, got shapes {shapes}")
        names = {p[1] for p in parts}
        if feature_names is None:
            if len(names) != 1:
                raise ValueError("explanations: rows have different feature names; pass feature_names")
            feature_names = parts[0][1]
        stack = np.stack([w for w, _, _ in parts])
        if all(u is not None for _, _, u in parts):
            univariate = np.mean([u for _, _, u in parts], axis=0)
    m = stack.shape[0]
    if not np.isfinite(stack).all():
        raise ValueError("explanations: contains NaN or infinite weights")
    se = stack.std(axis=0, ddof=1) / np.sqrt(m) if m > 1 else np.zeros(stack.shape[1:])
    return ExplanationGraph(stack.mean(axis=0), feature_names, univariate=univariate, kind=kind,
                            std_errors=se, info={"n_rows": m})


__all__ = ["mean_graph"]
