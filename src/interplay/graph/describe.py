"""A plain-language paragraph for one explanation graph (Bivariate Shapley paper, Section 4.1: mutual and
directional redundancy, read off the redundancy graph ``H_gamma``).

For example, on the diabetes demo row: "Main drivers: bmi (+25.3), s5 (+19.9) and bp (-8.1). Once bmi is known,
s1 and s2 add little. age, s3 and s4 are interchangeable: once one of them is known, the others add little. ..."
Every statement is an edge or a component of ``H_gamma``: "once i is known, j adds little" is the edge
``i -> j`` (``|W(i, j)| <= gamma``); "interchangeable" is a strongly connected component; "adds little whichever
feature is known" is a feature with an edge from every other one. Cost: no model evaluations.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np


def join(names: Sequence[str], limit: int = 6) -> str:
    """``a``, ``a and b``, ``a, b and c``; beyond ``limit`` names: ``a, b, ... and 4 more``."""
    names = list(names)
    if len(names) > limit:
        shown = names[:limit - 1]
        return ", ".join(shown) + f" and {len(names) - len(shown)} more"
    if len(names) <= 2:
        return " and ".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _number(x: float) -> str:
    return f"{x:+.3g}"


def describe(graph, gamma: float | None = None, *, top: int = 3, limit: int = 6) -> str:
    """One paragraph about an :class:`~interplay.graph.ExplanationGraph` at threshold ``gamma`` (None: its default).

    Sentences, each omitted when empty: the ``top`` features of :meth:`ExplanationGraph.ranking`, largest first, with their
    univariate values (those with a non-zero value); up to ``top`` statements "once i is known, j and k add little" (out-edges of ``H_gamma``
    from the highest-ranked features, leaving out features of the same group and those that add little given
    anything); the interchangeable groups; the features made redundant by every other feature; and the threshold
    used. A cohort graph (``redundancy_share``) speaks of "in most rows" and of mean ``|value|``.
    """
    h = graph.redundancy(gamma)
    names = list(graph.feature_names)
    n = len(names)
    adjacency = np.asarray(h.adjacency)
    ranking = graph.ranking()
    order = [graph.index(f) for f in ranking.order()]
    cohort = graph.redundancy_share is not None and gamma is None
    exact = h.gamma == 0 or (gamma is None and not cohort and
                             np.all(np.abs(graph.weights[adjacency]) <= 1e-9 * max(graph.max_abs_weight(), 1e-300)))
    little = "nothing" if exact else "little"
    sentences = []

    phi = graph.univariate
    leaders = order[:max(0, top)]
    if phi is not None:  # a feature with no value of its own is no driver
        leaders = [i for i in leaders if abs(phi[i]) > 1e-9 * max(float(np.abs(phi).max()), 1e-300)]
        leaders.sort(key=lambda i: -abs(phi[i]))  # the top-ranked features, named largest value first
    if leaders:
        if phi is None:
            sentences.append(f"Most influential: {join([names[i] for i in leaders], limit)}.")
        elif graph.kind == "cohort":
            sentences.append("Main drivers (mean |value| over the rows): "
                             + join([f"{names[i]} ({abs(phi[i]):.3g})" for i in leaders], limit) + ".")
        else:
            sentences.append("Main drivers: " + join([f"{names[i]} ({_number(phi[i])})" for i in leaders], limit)
                             + ".")

    null = [j for j in range(n) if n > 1 and adjacency[:, j].sum() == n - 1]
    component = {name: k for k, members in enumerate(h.components()) for name in members}
    said = 0
    for i in order:
        if said >= top:
            break
        targets = [j for j in order if adjacency[i, j] and component[names[j]] != component[names[i]]
                   and j not in null]
        if targets:
            verb = "adds" if len(targets) == 1 else "add"
            sentences.append(f"Once {names[i]} is known, {join([names[j] for j in targets], limit)} {verb} {little}"
                             + (" in most rows." if cohort else "."))
            said += 1

    null_names = {names[j] for j in null}
    for group in [g for g in h.groups() if not set(g) <= null_names][:top]:  # all-null groups: said below
        rest = "the other adds" if len(group) == 2 else "the others add"
        sentences.append(f"{join(group, limit)} are interchangeable: once one of them is known, {rest} {little}"
                         + (" in most rows." if cohort else "."))

    if null:
        verb = "adds" if len(null) == 1 else "add"
        sentences.append(f"{join([names[j] for j in sorted(null)], limit)} {verb} {little} whichever other feature "
                         "is known.")
    if h.n_edges == 0:
        sentences.append("No feature is redundant given another.")
    if cohort:
        sentences.append(f"(Redundant: in at least {h.info.get('share', 0.5):.0%} of the rows, each at its own "
                         "threshold.)")
    else:
        scale = graph.max_abs_weight()
        rel = f", {h.gamma / scale:.0%} of the strongest edge" if scale > 0 and h.gamma > 0 else ""
        sentences.append(f"(Redundant: importance given the other feature at most gamma = {h.gamma:.3g}{rel}.)")
    return " ".join(sentences)  # feature names keep their case, also at the start of a sentence


__all__ = ["describe", "join"]
