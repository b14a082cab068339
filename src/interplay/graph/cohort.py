"""Cohort and global explanation graphs over many rows (the Bivariate Shapley paper's global graphs for
subgroups of samples, e.g. smokers vs non-smokers in the COPD study, App. A).

Default (``aggregate="abs"``): magnitudes are kept. The cohort's weight ``W(i, j)`` is the mean over rows of
``|W_r(i, j)|`` (how much ``j`` matters given ``i``, whatever the direction in each row), the univariate values
are the mean ``|phi_r|``, and ``redundancy_share[i, j]`` is the share of rows in which the edge ``i -> j`` is a
redundancy (``|W_r(i, j)| <= gamma_r``, each row's own default gamma unless ``gamma`` is given);
``reading_share[i, j]`` the share of rows whose own reading has it: a redundancy between two features neither of
which the row sets aside (an edge into a feature too small to matter in a row only says it is small there;
counting those made capital-loss "redundant given age" on 600 Adult rows where 10% of the rows' readings said
so). The cohort's
redundancy graph :meth:`ExplanationGraph.redundancy` then keeps the edges of at least half the rows' readings
(``exclude_no_effect=False``: the edges redundant in at least half the rows, by the paper's definition).
The same rule as for one row sets features with no effect aside: ``no_effect_share[j]`` is the share of rows in
which ``j`` has no effect (:func:`~interplay.graph.redundancy.no_effect_mask` at the row's gamma: ``|phi_r(j)|``
and every ``|W_r(i, j)|`` at most ``gamma_r``), and the cohort's no-effect features are those with no effect in
at least half the rows (known only when every row has univariate values). Likewise ``little_effect_share[j]`` is
the share of rows in which ``|phi_r(j)| <= 2 gamma_r`` (little or no effect on its own, see
:func:`~interplay.graph.redundancy.little_effect_mask`); the features at most that small in at least half the
rows, and not without effect, are set aside too.

A cohort of symmetric interaction indices (rows from ``Interactions`` or their graphs) keeps the index in
``info["interaction_index"]``: like a single row's, its graph describes interactions and refuses the redundancy
analysis. Rows of different indices, or of an index and Bivariate Shapley, are refused.

``aggregate="signed"``: the signed means (Eq. 5-6 are linear in the utility, so this is the explanation graph of
the rows' mean game). A feature that pushes the output up in half the rows and down in the others cancels out
there: use it only for a cohort in which the directions agree. Per-edge standard errors of the mean are kept
either way. Cost: no model evaluations; ``O(m n^2)`` work, streamed (:class:`CohortAccumulator`) so a run of many
rows never holds all matrices at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Sequence

import numpy as np

from .._validation import check_choice
from .explanation import ExplanationGraph, check_square
from .redundancy import default_gamma, no_effect_mask, redundancy_adjacency, small_mask

AGGREGATES = ("abs", "signed")


def _as_row(item) -> tuple[np.ndarray, tuple[str, ...] | None, np.ndarray | None, np.ndarray | None]:
    from ..results import BivariateExplanation, Interactions

    if isinstance(item, ExplanationGraph):
        return np.asarray(item.weights), item.feature_names, item.univariate, item.std_errors
    if isinstance(item, BivariateExplanation):
        uni = None if item.univariate is None else np.asarray(item.univariate.values)
        return np.asarray(item.adjacency), item.feature_names, uni, item.std_errors
    if isinstance(item, Interactions):
        graph = item.graph()
        return np.asarray(graph.weights), graph.feature_names, graph.univariate, None
    raise TypeError("explanations: expected BivariateExplanation, Interactions or ExplanationGraph items, "
                    f"got {type(item).__name__}")


def _aligned(rows: list) -> list:
    """The rows with their features in the first named row's order (matrix, values and errors permuted): rows
    that name the same features in another order were averaged position by position (the suggested
    ``feature_names=`` only renamed them); rows naming different features are refused."""
    named = [r[1] for r in rows if r[1] is not None]
    if not named or all(tuple(n) == tuple(named[0]) for n in named):
        return rows
    order = list(named[0])
    out = []
    for w, names, phi, std in rows:
        if names is None or tuple(names) == tuple(order):
            out.append((w, names, phi, std))
            continue
        if sorted(map(str, names)) != sorted(map(str, order)):
            raise ValueError(f"explanations: rows explain different features ({list(order)[:6]} and "
                             f"{list(names)[:6]}); a cohort graph averages rows over the same features")
        where = {str(name): k for k, name in enumerate(names)}
        p = np.array([where[str(name)] for name in order])
        out.append((np.asarray(w)[np.ix_(p, p)], tuple(order), None if phi is None else np.asarray(phi)[p],
                    None if std is None else np.asarray(std)[np.ix_(p, p)]))
    return out


class CohortAccumulator:
    """Running sums for a cohort graph: add rows one by one or in blocks, then :meth:`graph`.

    ``aggregate``: ``"abs"`` (mean ``|W|``, mean ``|phi|``) or ``"signed"``; ``gamma``: the redundancy threshold of
    every row (None: each row's :func:`~interplay.graph.redundancy.default_gamma`, with its standard errors).
    ``interaction_index``: the rows' symmetric interaction index, None for Bivariate Shapley rows.
    """

    def __init__(self, n: int, *, aggregate: str = "abs", gamma: float | None = None,
                 interaction_index: str | None = None) -> None:
        self.aggregate = check_choice(aggregate, "aggregate", AGGREGATES)
        self.gamma = None if gamma is None else float(gamma)
        if self.gamma is not None and not (np.isfinite(self.gamma) and self.gamma >= 0):
            raise ValueError(f"gamma: expected a finite number >= 0 or None, got {gamma!r}")
        self.n = int(n)
        self.count = 0
        self.total = np.zeros((n, n))
        self.squares = np.zeros((n, n))
        self.redundant = np.zeros((n, n))
        self.read = np.zeros((n, n))  # the same, in the rows' own readings (no feature set aside)
        self.gammas: list[float] = []
        self.univariate_total = np.zeros(n)
        self.univariate_count = 0
        self.no_effect = np.zeros(n)
        self.small = np.zeros(n)
        self.interaction_index = None if interaction_index is None else str(interaction_index)

    def add(self, weights, univariate=None, std_errors=None) -> None:
        """One row's ``(n, n)`` weights (its univariate values and standard errors when known)."""
        w = check_square(weights)
        if w.shape != (self.n, self.n):
            raise ValueError(f"explanations: every row must have {self.n} features, got shape {w.shape}")
        np.fill_diagonal(w, 0.0)
        u = None if univariate is None else np.asarray(univariate, dtype=float)
        gamma = default_gamma(w, std_errors) if self.gamma is None else self.gamma
        redundant = redundancy_adjacency(w, gamma, u)
        self.redundant += redundant
        if u is not None:  # the row's own reading: an edge from or into a feature it sets aside is no redundancy
            none, small = no_effect_mask(w, u, gamma), small_mask(w, u, gamma)
            aside = none | small
            redundant[aside, :] = False
            redundant[:, aside] = False
            self.read += redundant
        self.gammas.append(gamma)
        value = np.abs(w) if self.aggregate == "abs" else w
        self.total += value
        self.squares += value * value
        self.count += 1
        if u is not None:
            self.univariate_total += np.abs(u) if self.aggregate == "abs" else u
            self.univariate_count += 1
            self.no_effect += none
            self.small += small

    def graph(self, feature_names=None, *, univariate_complete: bool | None = None,
              info: dict | None = None) -> ExplanationGraph:
        """The cohort's :class:`ExplanationGraph` (``kind="cohort"`` for magnitudes, ``"mean"`` for signed);
        ``info`` (e.g. the rows' ``output`` and ``target``) joins its ``info``."""
        m = self.count
        if m == 0:
            raise ValueError("explanations: expected at least one row, got none")
        mean = self.total / m
        if m > 1:
            var = np.clip(self.squares - m * mean * mean, 0.0, None) / (m - 1)
            se = np.sqrt(var / m)
        else:
            se = np.zeros_like(mean)
        complete = self.univariate_count == m if univariate_complete is None else univariate_complete
        univariate = self.univariate_total / m if complete and m > 0 else None
        info = {**(info or {}), "n_rows": m, "aggregate": self.aggregate,
                "row_gamma": "default per row" if self.gamma is None else self.gamma,
                "mean_row_gamma": float(np.mean(self.gammas))}
        if self.interaction_index is not None:
            info["interaction_index"] = self.interaction_index
        return ExplanationGraph(
            mean, feature_names, univariate=univariate, kind="cohort" if self.aggregate == "abs" else "mean",
            std_errors=se, redundancy_share=_off_diagonal(self.redundant / m), info=info,
            no_effect_share=self.no_effect / m if self.univariate_count == m else None,
            little_effect_share=self.small / m if self.univariate_count == m else None,
            reading_share=_off_diagonal(self.read / m) if self.univariate_count == m else None)


def _off_diagonal(share: np.ndarray) -> np.ndarray:
    np.fill_diagonal(share, 0.0)
    return share


def _row_index(item) -> str | None:
    """The symmetric interaction index of one row (None for Bivariate Shapley rows and bare matrices)."""
    from ..results import Interactions

    if isinstance(item, Interactions):
        return str(item.index)
    if isinstance(item, ExplanationGraph):
        return item.interaction_index
    return None


def _cohort_index(explanations) -> str | None:
    """The rows' common interaction index, None for Bivariate Shapley rows; mixed rows are refused."""
    indices = {_row_index(item) for item in explanations}
    if len(indices) > 1:
        shown = sorted("bivariate" if i is None else i for i in indices)
        raise ValueError(f"explanations: rows mix {', '.join(shown)}; a cohort graph needs one kind of explanation "
                         "(Bivariate Shapley rows for redundancy, or one interaction index)")
    return indices.pop() if indices else None


def _per_class(value, name: str) -> None:
    """A dict of results, one per class (what a multi-class Explainer's ``bivariate(x)`` returns by default), is
    refused, saying how to pick a class: a list of them failed with "expected ... items, got dict", the dict
    itself with "got str" (its keys)."""
    if not isinstance(value, Mapping) or not value:
        return
    keys = [k.item() if isinstance(k, np.generic) else k for k in value]
    raise TypeError(f"{name}: got a dict of {len(keys)} results, one per class or output (keys: {keys}); a cohort "
                    f"graph reads one class: pass its rows, e.g. [b[{keys[0]!r}] for b in results] (or build the "
                    "Explainer with target= one class)")


def mean_graph(explanations, feature_names: Sequence[str] | None = None, *, aggregate: str = "abs",
               gamma: float | None = None) -> ExplanationGraph:
    """The explanation graph of a cohort of rows (a data set's global graph when the rows are all of it).

    ``explanations``: a sequence of :class:`~interplay.results.BivariateExplanation` (or
    :class:`~interplay.results.Interactions`, or :class:`ExplanationGraph`) for the rows, or an ``(m, n, n)``
    array of weight matrices. ``aggregate="abs"`` (default) keeps magnitudes: weights = mean ``|W|``,
    univariate = mean ``|phi|`` (when every row has them); ``"signed"``: the signed means. Either way:
    ``std_errors`` = standard error of the mean per edge (zeros when ``m = 1``), ``redundancy_share`` = share of
    rows in which ``|W_r(i, j)| <= gamma`` (``gamma=None``: each row's default gamma), ``reading_share`` = share of
    rows whose own reading has the edge (neither end set aside there: what ``redundancy()`` keeps by default when
    every row has univariate values), ``no_effect_share`` = share
    of rows in which a feature has no effect and ``little_effect_share`` = share of rows in which its ``|phi|`` is
    at most twice the row's gamma (both when every row has univariate values), ``info["n_rows"] = m``.
    Rows of a symmetric interaction index give ``info["interaction_index"]`` (see the module docstring).
    """
    check_choice(aggregate, "aggregate", AGGREGATES)
    if isinstance(explanations, np.ndarray):
        stack = np.asarray(explanations, dtype=float)
        if stack.ndim != 3 or stack.shape[1] != stack.shape[2] or stack.shape[0] == 0:
            raise ValueError(f"explanations: expected an (m, n, n) array with m >= 1, got shape {stack.shape}")
        rows = [(w, None, None, None) for w in stack]
        index = None
    else:
        _per_class(explanations, "explanations")
        items = list(explanations)
        for k, item in enumerate(items):
            _per_class(item, f"explanations[{k}]")
        index = _cohort_index(items)
        rows = [_as_row(item) for item in items]
        if not rows:
            raise ValueError("explanations: expected at least one row, got none")
        shapes = {w.shape for w, *_ in rows}
        if len(shapes) != 1:
            raise ValueError(f"explanations: every row must have the same number of features, got shapes {shapes}")
        rows = _aligned(rows)  # by name: a row listing the same features in another order is reordered
        if feature_names is None:
            feature_names = rows[0][1]
    acc = CohortAccumulator(rows[0][0].shape[0], aggregate=aggregate, gamma=gamma, interaction_index=index)
    shared = {}  # the unit and class(es) the rows explain, as plots name them (plain values only)
    if not isinstance(explanations, np.ndarray):
        outputs = [getattr(item, "info", {}).get("output") for item in items]
        targets = [getattr(item, "info", {}).get("target") for item in items]
        if isinstance(outputs[0], str) and all(o == outputs[0] for o in outputs):
            shared["output"] = outputs[0]
            if all(isinstance(t, (str, int, float)) for t in targets):  # bools too: classes may be True/False
                if all(t == targets[0] for t in targets):
                    shared["target"] = targets[0]
                else:  # rows of different classes (target="predicted"): said, not pooled as one class
                    shared["targets"] = targets
    complete = all(u is not None for _, _, u, _ in rows)
    for w, _, u, se in rows:
        if not np.isfinite(w).all():
            raise ValueError("explanations: contains NaN or infinite weights")
        acc.add(w, u if complete else None, se)
    return acc.graph(feature_names, info=shared)


cohort_graph = mean_graph

__all__ = ["AGGREGATES", "CohortAccumulator", "cohort_graph", "mean_graph"]
