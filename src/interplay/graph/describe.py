"""A plain-language paragraph for one explanation graph.

A Bivariate Shapley graph is read through its redundancy graph ``H_gamma`` (Bivariate Shapley paper, Section
4.1: mutual and directional redundancy). For example, on the diabetes demo row: "Main drivers: bmi (+25.3), s5
(+19.9) and bp (-8.1). Once bmi is known, s1 and s2 add little. age, s3 and s4 are interchangeable: once one of
them is known, the others add little. ..." The sentences:

- "Main drivers": the features of largest ``|phi|`` (the univariate Shapley values, Section 3), with their
  signs; what the prediction is made of. Without univariate values: the features most central in the graph
  (PageRank, :meth:`ExplanationGraph.ranking`), labelled so.
- "Once i is known, j adds little": the edge ``i -> j`` of ``H_gamma`` (``|W(i, j)| <= gamma``, Def. 4.1).
- "interchangeable": a strongly connected component of ``H_gamma`` (mutual redundancy, Def. 4.2, Algorithm 3)
  whose members are pairwise mutually redundant (a clique, as Theorem 1 gives at ``gamma = 0``). A component
  that is no clique (possible at ``gamma > 0``) is said to "make one another redundant, directly or through one
  another", with a pair that is not mutually redundant ("but c still matters given a").
- "No effect on this prediction": the features of :meth:`ExplanationGraph.no_effect` (``|phi|`` and the
  importance given every other feature at most ``gamma``), kept out of the sentences above: by the letter of
  Def. 4.1 every feature makes such a feature "redundant", which says nothing about either.
- "Little effect on their own": the features of :meth:`ExplanationGraph.little_effect` (``|phi| <= 2 gamma``),
  also kept out: given a feature it ignores, such a feature keeps ``phi / 2 <= gamma``, so ``H_gamma`` would
  call it redundant only because it is small.

A graph of a symmetric interaction index (SII, BII, Shapley-Taylor, ..., see
:attr:`ExplanationGraph.interaction_index`) is not a redundancy graph: a pair value near 0 there means the two
features' effects add up. Its paragraph names the main drivers, the strongest positive and negative pairs with
their values and the features without a notable interaction (``|value| > gamma``, default 5 % of the
strongest pair). Cost: no model evaluations.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

#: How the paragraph names each interaction index.
INDEX_NAMES = {"sii": "SII", "bii": "BII", "stii": "Shapley-Taylor", "fsii": "Faith-Shap", "fbii": "Faith-Banzhaf",
               "ksii": "k-SII", "k-sii": "k-SII", "excess": "Shapley excess", "moebius": "Moebius"}


def join(names: Sequence[str], limit: int = 6, word: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``; beyond ``limit`` names: ``a, b, ... and 4 more`` (at least one name is
    always written: ``limit=1`` gives ``a and 4 more``); ``word="or"``: ``a, b or c``."""
    names = list(names)
    if len(names) > limit:
        shown = names[:max(limit - 1, 1)]
        return ", ".join(shown) + f" {word} {len(names) - len(shown)} more"
    if len(names) <= 2:
        return f" {word} ".join(names)
    return ", ".join(names[:-1]) + f" {word} " + names[-1]


def _number(x: float) -> str:
    return f"{x:+.3g}"


def _verb(items: Sequence, singular: str, plural: str) -> str:
    return singular if len(items) == 1 else plural


def _magnitudes(graph) -> bool:
    """True for a cohort graph of magnitudes (mean ``|phi|``, mean ``|W|``): no signs to print."""
    return graph.kind == "cohort"


def _index_name(graph) -> str:
    index = graph.interaction_index
    return INDEX_NAMES.get(index.lower(), index)


def _phi_order(graph) -> list[int]:
    """Features by decreasing ``|phi|`` (ties, to 12 significant digits, keep the feature order); PageRank order
    without univariate values."""
    from .ranking import tie_order

    if graph.univariate is None:
        return [graph.index(f) for f in graph.ranking().order()]
    return [int(i) for i in tie_order(np.abs(graph.univariate))]


def _leaders(graph, top: int, exclude) -> list[int]:
    """The ``top`` features of largest ``|phi|`` (above round-off of the largest) outside ``exclude``."""
    phi = graph.univariate
    floor = 1e-9 * max(float(np.abs(phi).max()), 1e-300)
    return [i for i in _phi_order(graph) if abs(phi[i]) > floor and i not in exclude][:top]


def drivers_sentence(graph, top: int, limit: int, exclude: frozenset | set = frozenset()) -> str | None:
    """The ``top`` features of largest ``|phi|`` with their values (the univariate Shapley values), largest first.

    Features with ``|phi|`` 0 (up to round-off) are no drivers. Without univariate values: the ``top`` features of
    the graph's PageRank ranking, labelled as the most central ones (not as drivers; none when every weight is
    zero, where PageRank is uniform). For an interaction index the order-1 values are labelled as the index's
    single-feature values (for Shapley-Taylor, Faith-Shap, k-SII and Moebius they are not Shapley values: the
    pairs carry the rest). ``exclude``: features set aside (no or
    little effect), named in their own sentence instead.
    """
    names = graph.feature_names
    if top <= 0:
        return None
    phi = graph.univariate
    if phi is None:
        if graph.max_abs_weight() == 0:  # PageRank on an empty graph is uniform: no feature is more central
            return "Every edge weight is zero: no feature is more central than another."
        central = graph.ranking().order()[:top]
        return f"Most central in the graph (PageRank on |W|): {join(central, limit)}." if central else None
    leaders = _leaders(graph, top, exclude)
    if not leaders:
        return None
    label = "Main drivers"
    if graph.interaction_index is not None:  # order-1 terms: Shapley values for SII, not for Shapley-Taylor etc.
        label = f"Largest single-feature values ({_index_name(graph)})"
    if graph.kind == "mean":  # a cohort's signed mean: directions that differ between rows cancel
        return (f"{label} (signed mean over the rows; a feature that raises the output in some rows and lowers it "
                "in others cancels here): " + join([f"{names[i]} ({_number(phi[i])})" for i in leaders], limit) + ".")
    if _magnitudes(graph):
        return f"{label} (mean |value| over the rows): " + join(
            [f"{names[i]} ({abs(phi[i]):.3g})" for i in leaders], limit) + "."
    return f"{label}: " + join([f"{names[i]} ({_number(phi[i])})" for i in leaders], limit) + "."


def describe(graph, gamma: float | None = None, *, top: int = 3, limit: int = 6) -> str:
    """One paragraph about an :class:`~interplay.graph.ExplanationGraph` at threshold ``gamma`` (None: its default).

    A Bivariate Shapley graph (or a cohort of them): :func:`describe_redundancy`. A graph of a symmetric
    interaction index: :func:`describe_interactions` (``gamma``: the size above which a pair counts as an
    interaction). ``top``: drivers named and statements made per kind; ``limit``: names per list (both positive
    integers).
    """
    from .redundancy import _check_count

    top, limit = _check_count(top, "top", minimum=0), _check_count(limit, "limit")
    if graph.interaction_index is not None:
        return describe_interactions(graph, gamma, top=top, limit=limit)
    return describe_redundancy(graph, gamma, top=top, limit=limit)


# ------------------------------------------------------------------------------------------------ redundancy
def _is_exact(graph, h, gamma, cohort: bool) -> bool:
    """Whether every redundancy edge is an exact zero (then "adds nothing", else "adds little")."""
    if h.gamma == 0:
        return True
    if gamma is not None or cohort:
        return False
    from .explanation import roundoff

    adjacency = np.asarray(h.adjacency)
    return bool(np.all(np.abs(graph.weights[adjacency]) <= roundoff(graph.weights, graph.univariate)))


def _once_sentences(graph, h, order, aside, top, limit, little, cohort) -> list[str]:
    """Up to ``top`` "Once i is known, j and k add little" (out-edges of ``H_gamma``), drivers first, leaving out
    features of i's own group and the features with no effect. Features that make the same features redundant
    share one sentence ("Once any of a, b or c is known, j adds little"); when more statements exist than
    ``top``, a last sentence says how many were left out and where they are."""
    names = graph.feature_names
    adjacency = np.asarray(h.adjacency)
    component = {name: k for k, members in enumerate(h.components()) for name in members}
    statements: dict[tuple, list] = {}  # targets -> the features that make them redundant, in order
    for i in order:
        if i in aside:
            continue
        targets = tuple(j for j in order if adjacency[i, j] and j not in aside
                        and component[names[j]] != component[names[i]])
        if targets:
            statements.setdefault(targets, []).append(i)
    sentences = []
    rows = " in at least half the rows" if cohort else ""
    for targets, sources in list(statements.items())[:top]:
        known = (f"Once {names[sources[0]]} is known" if len(sources) == 1 else
                 f"Once any of {join([names[i] for i in sources], limit, 'or')} is known")
        sentences.append(f"{known}, {join([names[j] for j in targets], limit)} "
                         f"{_verb(list(targets), 'adds', 'add')} {little}{rows}.")
    left = len(statements) - len(sentences)
    if top > 0 and left > 0:  # top=0: no lists at all
        sentences.append(f"{left} more such statement{'s' if left > 1 else ''} left out here "
                         "(graph.redundancy() lists every redundant pair).")
    return sentences


def _group_sentences(graph, h, order, top, limit, little, cohort) -> list[str]:
    """The groups (strongly connected components of ``H_gamma`` with more than one feature, no set-aside feature
    in them), the group of the largest ``|phi|`` first, members by ``|phi|``: "interchangeable" when every pair
    is mutually redundant (a clique), else what holds (each is redundant given another member) and the pair of
    largest ``|W|`` that is not redundant."""
    rank = {graph.feature_names[i]: r for r, i in enumerate(order)}
    groups = sorted((sorted(g, key=rank.get) for g in h.groups()), key=lambda g: rank[g[0]])
    rows = " in at least half the rows" if cohort else ""
    sentences = []
    for group in groups[:top]:
        missing = h.missing_edges(group)
        if not missing:
            rest = "the other adds" if len(group) == 2 else "the others add"
            sentences.append(f"{join(group, limit)} are interchangeable: once one of them is known, {rest} {little}"
                             f"{rows}.")
            continue
        i, j = max(missing, key=lambda e: (abs(graph.weight(*e)), -rank[e[0]], -rank[e[1]]))
        gap = (f"{i} and {j} each still matter given the other" if (j, i) in missing
               else f"{j} still matters given {i}")
        sentences.append(f"{join(group, limit)} make one another redundant, directly or through one another: "
                         f"each adds {little} once another of them is known{rows}, but {gap}.")
    left = len(groups) - len(sentences)
    if top > 0 and left > 0:  # counted, not dropped (top=0: no lists at all)
        sentences.append(f"{left} more group{'s' if left > 1 else ''} of mutually redundant features left out here "
                         "(graph.redundancy().groups() lists them).")
    return sentences


def _no_effect_sentence(graph, names, little, cohort, limit) -> str | None:
    """"No effect ...: a and b add nothing whichever other feature is known" (``|phi|`` at most gamma too)."""
    if not names:
        return None
    if cohort:
        label = "No effect in at least half the rows"
    elif graph.redundancy_share is not None or graph.kind in ("cohort", "mean"):
        label = "No effect in the cohort's mean graph"
    else:  # at gamma > 0 "no effect" would overstate it: a feature up to gamma is small, not null
        label = "No effect on this prediction" if little == "nothing" else "No notable effect on this prediction"
    return (f"{label}: {join(names, limit)} {_verb(names, 'adds', 'add')} {little} whichever other feature is "
            "known.")


def _little_effect_sentence(names, gamma, cohort, limit) -> str | None:
    """"Little effect on their own: a and b (|Shapley value| at most 2 gamma = 0.1: too small to call
    redundant)."""
    if not names:
        return None
    if cohort:
        return (f"Little effect on their own in at least half the rows: {join(names, limit)} (|Shapley value| at "
                "most twice the row's gamma: too small to call redundant).")
    return (f"Little effect on their own: {join(names, limit)} (|Shapley value| at most 2 gamma = {2 * gamma:.3g}: "
            "too small to call redundant).")


def _strong_aside(graph, aside) -> list[tuple[int, int]]:
    """Features a cohort sets aside (no or little effect in at least half the rows) whose mean ``|phi|`` is larger
    than that of the weakest feature it keeps: large in the other rows, so "no effect" alone would mislead. Pairs
    ``(feature, weakest kept feature)``, largest ``|phi|`` first; empty without univariate values."""
    if graph.univariate is None or not aside:
        return []
    phi = np.abs(np.asarray(graph.univariate, dtype=float))
    keep = [i for i in range(len(phi)) if i not in aside]
    floor = 1e-9 * max(float(phi.max()), 1e-300)
    if keep:
        weakest = min(keep, key=lambda i: (phi[i], i))
        bar = phi[weakest]
    else:
        weakest, bar = -1, floor
    return [(int(j), weakest) for j in _phi_order(graph) if j in aside and phi[j] > max(bar, floor)]


def _strong_aside_sentence(graph, strong, limit) -> str | None:
    """"Yet large in the other rows, so among the drivers: a (mean |value| 1.5, little or no effect in 70% of the
    rows), more than c (0.5)." for the features of :func:`_strong_aside`."""
    if not strong:
        return None
    names = graph.feature_names
    phi = np.abs(np.asarray(graph.univariate, dtype=float))
    share = graph.little_effect_share if graph.little_effect_share is not None else graph.no_effect_share
    items = []
    for j, _ in strong:
        rows = f", little or no effect in {share[j]:.0%} of the rows" if share is not None else ""
        items.append(f"{names[j]} (mean |value| {phi[j]:.3g}{rows})")
    weakest = strong[0][1]
    than = f", more than {names[weakest]} ({phi[weakest]:.3g})" if weakest >= 0 else ""
    return f"Yet large in the other rows, so among the drivers: {join(items, limit)}{than}."


def _threshold_sentence(graph, h, cohort: bool, aside: bool) -> str:
    if cohort:
        tail = "; no effect: in as many rows, also at most that threshold on its own" if aside else ""
        return (f"(Redundant: in at least {h.info.get('share', 0.5):.0%} of the rows, each at its own "
                f"threshold{tail}.)")
    scale = graph.max_abs_weight()
    rel = f", {h.gamma / scale:.0%} of the strongest edge" if scale > 0 and h.gamma > 0 else ""
    tail = "; no effect: also at most gamma on its own" if aside else ""
    return f"(Redundant: importance given the other feature at most gamma = {h.gamma:.3g}{rel}{tail}.)"


def describe_redundancy(graph, gamma: float | None = None, *, top: int = 3, limit: int = 6) -> str:
    """The paragraph of a Bivariate Shapley graph (see the module docstring), each sentence omitted when empty.

    The ``top`` main drivers (largest ``|phi|``); up to ``top`` statements "once i is known, j adds little"
    (out-edges of ``H_gamma`` from the drivers first); the interchangeable groups; the features with no effect;
    "no feature is redundant given another" when ``H_gamma`` has no edge between features with an effect; the
    threshold. A cohort graph (``redundancy_share``) speaks of "in at least half the rows" and of mean ``|value|``.
    """
    from .redundancy import _check_count

    top, limit = _check_count(top, "top", minimum=0), _check_count(limit, "limit")
    h = graph.redundancy(gamma)
    names = list(graph.feature_names)
    cohort = graph.redundancy_share is not None and gamma is None
    little = "nothing" if _is_exact(graph, h, gamma, cohort) else "little"
    order = _phi_order(graph)
    none = {graph.index(f) for f in h.no_effect or ()}
    small = {graph.index(f) for f in h.little_effect or ()}
    aside = none | small
    strong = _strong_aside(graph, aside) if cohort and _magnitudes(graph) else []  # signed means cancel anyway
    # a feature set aside is named there, not a driver; in a cohort, one set aside by most rows but larger on
    # average than a feature kept is still a driver of the mean (it matters much in the other rows)
    exclude = aside - {i for i, _ in strong}
    sentences = [drivers_sentence(graph, top, limit, exclude)]
    # the sentence names only those the drivers sentence names: a feature larger on average than the weakest one
    # kept can still be far from the drivers (Adult's workclass, 0.108 against capital-gain's 0.779), and was
    # called one of them
    leaders = set(_leaders(graph, top, exclude)) if strong else set()
    strong = [(j, weakest) for j, weakest in strong if j in leaders]
    sentences += _once_sentences(graph, h, order, aside, top, limit, little, cohort)
    sentences += _group_sentences(graph, h, order, top, limit, little, cohort)
    sentences.append(_no_effect_sentence(graph, [names[j] for j in sorted(none)], little, cohort, limit))
    sentences.append(_little_effect_sentence([names[j] for j in order if j in small], h.gamma, cohort, limit))
    sentences.append(_strong_aside_sentence(graph, strong, limit))
    adjacency = np.asarray(h.adjacency)
    keep = [i for i in range(len(names)) if i not in aside]
    if not adjacency[np.ix_(keep, keep)].any() and (len(keep) > 1 or not aside):
        sentences.append("None of the others is redundant given another." if aside
                         else "No feature is redundant given another.")
    sentences.append(_threshold_sentence(graph, h, cohort, bool(none)))
    return " ".join(s for s in sentences if s)  # feature names keep their case, also at the start of a sentence


# ------------------------------------------------------------------------------------------------ interactions
def _pairs(weights: np.ndarray) -> list[tuple[int, int, float]]:
    """Every pair ``i < j`` with its value, strongest ``|value|`` first (ties in feature order)."""
    n = len(weights)
    rows, cols = np.triu_indices(n, k=1)
    values = weights[rows, cols]
    order = np.argsort(-np.abs(values), kind="stable")
    return [(int(rows[k]), int(cols[k]), float(values[k])) for k in order]


def _pair_list(pairs, names, limit, signed: bool) -> str:
    value = _number if signed else (lambda x: f"{abs(x):.3g}")
    return join([f"{names[i]} x {names[j]} ({value(v)})" for i, j, v in pairs], limit)


def _interaction_sentences(graph, notable, top, limit) -> list[str]:
    """The strongest pairs: by sign for signed values, by size for a cohort's mean magnitudes."""
    names = graph.feature_names
    label = _index_name(graph)
    if top == 0:  # describe(top=0): no lists of drivers or pairs
        return []
    if _magnitudes(graph):
        return [f"Strongest interactions ({label}, mean |value| over the rows): "
                f"{_pair_list(notable[:top], names, limit, False)}."]
    sentences = []
    positive = [p for p in notable if p[2] > 0][:top]
    negative = [p for p in notable if p[2] < 0][:top]
    if positive:
        sentences.append(f"Strongest positive interactions ({label}; together the pair adds more than its two "
                         f"features apart): {_pair_list(positive, names, limit, True)}.")
    if negative:
        sentences.append(f"Strongest negative interactions ({label}; together the pair adds less than its two "
                         f"features apart): {_pair_list(negative, names, limit, True)}.")
    return sentences


def describe_interactions(graph, gamma: float | None = None, *, top: int = 3, limit: int = 6) -> str:
    """The paragraph of a symmetric interaction index's graph: main drivers (its order-1 values), the ``top``
    strongest positive and negative pairs with ``|value| > gamma`` (``gamma=None``: :meth:`default_gamma`, 5 % of
    the strongest pair), the features in no such pair, or, when no pair exceeds ``gamma``, that the features'
    effects add up (as far as pairs go). Never a statement of redundancy: a pair value near 0 says the two
    effects add up, not that one feature replaces the other (Bivariate Shapley paper, Section 1 and Def. 4.1).
    """
    from .redundancy import _check_count, _check_gamma

    top, limit = _check_count(top, "top", minimum=0), _check_count(limit, "limit")
    names = graph.feature_names
    label = _index_name(graph)
    threshold = graph.default_gamma() if gamma is None else _check_gamma(gamma)
    slack = 1e-9 * graph.max_abs_weight()
    notable = [p for p in _pairs(np.asarray(graph.weights)) if abs(p[2]) > threshold + slack]
    sentences = [drivers_sentence(graph, top, limit)]
    if notable:
        sentences += _interaction_sentences(graph, notable, top, limit)
        touched = {i for p in notable for i in p[:2]}
        quiet = [names[i] for i in range(len(names)) if i not in touched]
        if quiet:
            sentences.append(f"No notable interaction: {join(quiet, limit)}.")
    else:
        size = "0" if threshold == 0 else f"at most {threshold:.3g} in size"
        sentences.append(f"No pair of features interacts (every pairwise {label} value is {size}): as far as pairs "
                         "go, the features' effects add up.")
    scale = graph.max_abs_weight()
    rel = f", {threshold / scale:.0%} of the strongest pair" if scale > 0 and threshold > 0 else ""
    sentences.append(f"(Interaction: |{label} pair value| above {threshold:.3g}{rel}. A pair value near 0 means the "
                     "two features' effects add up, not that one feature replaces the other; which features "
                     "replace which needs the Bivariate Shapley graph, ip.bivariate(...).graph().)")
    left_out = graph.info.get("left_out") if isinstance(graph.info, dict) else None
    if left_out:  # an order-3 result: its triples are not in the graph (the strongest one went unmentioned)
        sentences.append(f"(The graph holds pairs only: {left_out}; see the result's top(k, size=3).)")
    return " ".join(s for s in sentences if s)


__all__ = ["INDEX_NAMES", "describe", "describe_interactions", "describe_redundancy", "drivers_sentence", "join"]
