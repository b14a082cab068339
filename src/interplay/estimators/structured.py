"""L-Shapley and C-Shapley for features on a graph (L-/C-Shapley poster; full definitions in the papers' README).

Neither is efficient: the values need not add up to ``v(N) - v(empty)``, and the gap can flip the total's sign
(README, "Not efficient"). Features are the nodes ``0..n-1`` of an undirected graph ``G``; ``N_k(i)`` is the set of nodes within ``k`` hops
of ``i`` (``i`` included). Every value ``v(S)`` has only the features of ``S`` present; all others, including
those outside ``N_k(i)``, are removed.

- L-Shapley of order ``k``: the exact Shapley value of ``i`` in the game restricted to ``N_k(i)``,
  ``phi_L(i) = 1/|N_k(i)| sum_{T subset N_k(i), i in T} [v(T) - v(T - i)] / C(|N_k(i)| - 1, |T| - 1)``.
  Cost: ``2**|N_k(i)|`` coalitions per feature (``2**(2k+1)`` inside a sequence), distinct ones evaluated once.
- C-Shapley of order ``k``: only connected subsets ``U`` of ``N_k(i)`` that contain ``i``,
  ``phi_C(i) = sum_U w(U) [v(U) - v(U - i)]`` with ``w(U) = (|U|-1)! |dU|! / (|U| + |dU|)!`` (``dU``: the nodes
  of ``G`` outside ``U`` adjacent to ``U``): the probability, in a uniformly random order, that ``i`` comes after
  the rest of ``U`` and before all of ``dU``. ``weights="paper"`` uses the poster's constant-boundary weight
  ``2 / ((|U|+2)(|U|+1)|U|)`` (the value of ``w`` for ``|dU| = 2``, a window inside a sequence).
  Cost: two coalitions per connected subset (``(k+1)**2`` subsets per feature inside a sequence).

With ``N_k(i)`` the whole feature set L-Shapley is the exact Shapley value; on a complete graph (``k >= 1``)
C-Shapley is the exact Shapley value. Neighbourhoods and subsets are enumerated once per feature; all features'
coalitions go to the game in one call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from math import factorial

import numpy as np
from scipy.special import gammaln

from .._bits import popcounts
from .._validation import check_choice, check_int
from ..games import Game
from ..results import Attribution
from ._registry import register
from .banzhaf_sampling import distinct_rows

MAX_NEIGHBOURHOOD = 20
MAX_SUBSETS = 2**20  # C-Shapley: connected sets listed at most, over all features (each row n booleans)

if TYPE_CHECKING:  # annotations only; networkx is imported when a graph method runs
    import networkx as nx


def feature_graph(graph, n: int) -> nx.Graph:
    """The undirected feature graph on nodes ``0..n-1`` described by ``graph``.

    ``graph``: a networkx graph whose nodes are exactly ``0..n-1`` (directed graphs are made undirected);
    ``"sequence"`` (the path ``0 - 1 - ... - n-1``, e.g. words of a text); or ``("grid", height, width)`` with
    ``height * width == n`` (pixels or superpixels in row-major order, 4-neighbour grid).
    """
    import networkx as nx  # imported when a graph method runs, not with interplay

    n = check_int(n, "n", minimum=1)
    if isinstance(graph, str):
        check_choice(graph, "graph", ("sequence",))
        return nx.path_graph(n)
    if isinstance(graph, tuple) and len(graph) > 0 and graph[0] == "grid":
        if len(graph) != 3:
            raise ValueError(f"graph: expected ('grid', height, width), got {graph!r}")
        height = check_int(graph[1], "graph height", minimum=1)
        width = check_int(graph[2], "graph width", minimum=1)
        if height * width != n:
            raise ValueError(f"graph: a ('grid', {height}, {width}) has {height * width} nodes but the game has "
                             f"{n} players")
        grid = nx.grid_2d_graph(height, width)
        return nx.relabel_nodes(grid, {(r, c): r * width + c for r, c in grid.nodes})
    if isinstance(graph, nx.Graph):
        nodes = set(graph.nodes)
        if nodes != set(range(n)):
            extra = sorted(map(repr, nodes - set(range(n))))[:5]
            missing = sorted(set(range(n)) - nodes)[:5]
            raise ValueError(
                f"graph: expected nodes 0..{n - 1} (one per player), got {graph.number_of_nodes()} nodes"
                + (f"; unexpected {extra}" if extra else "") + (f"; missing {missing}" if missing else ""))
        out = nx.Graph(graph.to_undirected() if graph.is_directed() else graph)
        out.remove_edges_from(nx.selfloop_edges(out))
        return out
    raise TypeError(f"graph: expected a networkx graph, 'sequence' or ('grid', height, width), got {graph!r}")


def neighbourhood(G: nx.Graph, i: int, k: int) -> list[int]:
    """``N_k(i)``: the nodes within ``k`` hops of ``i``, sorted (``i`` included)."""
    import networkx as nx

    return sorted(nx.single_source_shortest_path_length(G, i, cutoff=k))


class TooManySubsets(Exception):
    """Raised by :func:`connected_codes` past its ``limit``."""


def connected_codes(G: nx.Graph, i: int, members: list[int], limit: int | None = None) -> np.ndarray:
    """Every connected node set ``U`` with ``i in U subset members``, each exactly once, as bit codes over
    ``members`` (bit ``b`` = ``members[b]``; at most 62 members). Past ``limit`` sets: :class:`TooManySubsets`
    (before they fill the memory: a 9 x 9 grid at k = 3 has over 17 million).

    Reverse-search enumeration on bitmasks: a branch either adds a candidate neighbour or excludes it for good.
    """
    if len(members) > 62:
        raise ValueError(f"k: a neighbourhood of {len(members)} features is too large for C-Shapley; lower k")
    local = {node: b for b, node in enumerate(members)}
    nbr = [sum(1 << local[u] for u in G[node] if u in local and u != node) for node in members]
    out: list[int] = []

    def grow(current: int, candidates: int, excluded: int) -> None:
        out.append(current)
        if limit is not None and len(out) > limit:
            raise TooManySubsets
        while candidates:
            bit = candidates & -candidates
            candidates ^= bit
            v = bit.bit_length() - 1
            grow(current | bit, candidates | (nbr[v] & ~current & ~excluded & ~candidates & ~bit), excluded)
            excluded |= bit

    start = 1 << local[i]
    grow(start, nbr[local[i]], 0)
    return np.array(out, dtype=np.int64)


def connected_subsets(G: nx.Graph, i: int, allowed: set[int]) -> list[frozenset]:
    """Every connected node set ``U`` with ``i in U subset allowed``, each exactly once (as frozensets)."""
    members = sorted(allowed)
    codes = connected_codes(G, i, members)
    return [frozenset(members[b] for b in range(len(members)) if (c >> b) & 1) for c in codes.tolist()]


def _check_common(game: Game, graph, k) -> tuple[nx.Graph, int]:
    if graph is None:
        raise ValueError("graph: required for L-/C-Shapley: a networkx graph, 'sequence' or ('grid', h, w)")
    return feature_graph(graph, game.n_players), check_int(k, "k", minimum=0)


def _finish(game: Game, rows: list[np.ndarray], weights: list[np.ndarray], budget, method: str, info) -> Attribution:
    """Evaluate every feature's (without i, with i) pairs in one call; ``phi_i = sum w (v(with) - v(without))``."""
    n = game.n_players
    counts = np.array([len(w) for w in weights])
    without = np.concatenate(rows)
    with_i = without.copy()
    owner = np.repeat(np.arange(n), counts)
    with_i[np.arange(len(owner)), owner] = True
    distinct, inverse = distinct_rows(np.concatenate([np.zeros((1, n), dtype=bool), without, with_i]))
    used = len(distinct)
    if budget is not None and used > check_int(budget, "budget", minimum=1):
        raise ValueError(f"budget: method={method!r} needs {used} evaluations here (every coalition of its "
                         f"definition), got {budget}; lower k or raise the budget")
    values = game(distinct)[inverse]
    m = len(owner)
    diffs = values[1 + m:] - values[1:1 + m]
    phi = np.bincount(owner, weights=np.concatenate(weights) * diffs, minlength=n)
    return Attribution(phi, values[0], game.feature_names, used, method, info={"budget": budget, **info})


def _local_rows(n: int, members: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Global coalitions (rows) from bit codes over the local players ``members``."""
    rows = np.zeros((len(codes), n), dtype=bool)
    rows[:, members] = ((codes[:, None] >> np.arange(len(members))) & 1).astype(bool)
    return rows


@register("shapley", "l-shapley")
def l_shapley(game: Game, *, budget: int | None = None, rng=None, graph=None, k: int = 1,
              max_neighbourhood: int = MAX_NEIGHBOURHOOD) -> Attribution:
    """L-Shapley of order ``k`` (module docstring). Cost: the distinct coalitions of all ``2**|N_k(i)|``."""
    G, k = _check_common(game, graph, k)
    n = game.n_players
    rows, weights, sizes = [], [], []
    for i in range(n):
        members = np.array(neighbourhood(G, i, k))
        size = len(members)
        if size > max_neighbourhood:
            raise ValueError(f"k: N_{k}({i}) has {size} features, 2**{size} coalitions, above max_neighbourhood="
                             f"{max_neighbourhood}; lower k or raise max_neighbourhood")
        local_i = int(np.searchsorted(members, i))
        codes = np.arange(2**size, dtype=np.int64)
        codes = codes[((codes >> local_i) & 1) == 0]         # coalitions T - i of N_k(i) without i
        t = popcounts(size)[codes]                            # |T| - 1
        rows.append(_local_rows(n, members, codes))
        weights.append(np.array([factorial(s) * factorial(size - s - 1) / factorial(size) for s in range(size)])[t])
        sizes.append(size)
    return _finish(game, rows, weights, budget, "l-shapley", {"k": k, "neighbourhood_sizes": sizes})


@register("shapley", "c-shapley")
def c_shapley(game: Game, *, budget: int | None = None, rng=None, graph=None, k: int = 1,
              weights: str = "boundary", max_subsets: int = MAX_SUBSETS) -> Attribution:
    """C-Shapley of order ``k`` (module docstring); ``weights``: ``"boundary"`` (default, exact weight
    ``(|U|-1)! |dU|! / (|U|+|dU|)!``) or ``"paper"`` (``2 / ((|U|+2)(|U|+1)|U|)``). Cost: distinct coalitions
    ``U`` and ``U - i`` over all connected ``U``. Refused, before they are listed, when one feature has more
    connected sets than ``budget`` (each is a distinct coalition) or all features together more than
    ``max_subsets``.
    """
    G, k = _check_common(game, graph, k)
    max_subsets = check_int(max_subsets, "max_subsets", minimum=1)
    budget = check_int(budget, "budget", minimum=1, allow_none=True)
    check_choice(weights, "weights", ("boundary", "paper"))
    n = game.n_players
    import networkx as nx

    adjacency = nx.to_scipy_sparse_array(G, nodelist=range(n), format="csr", dtype=float)
    rows, ws, counts = [], [], []
    for i in range(n):
        hood = neighbourhood(G, i, k)
        left = max_subsets - sum(counts)
        try:
            subsets = connected_codes(G, i, hood, limit=left if budget is None else min(left, budget))
        except TooManySubsets:
            if budget is not None and budget < left:  # the same message as the total check of _finish
                raise ValueError(f"budget: method='c-shapley' needs more than {budget} evaluations here (feature "
                                 f"{i} alone is in more connected sets at k={k}), got {budget}; lower k or raise "
                                 "the budget") from None
            raise ValueError(f"max_subsets: with k={k} the features' connected sets exceed {max_subsets:,} (each "
                             "is a coalition to evaluate); lower k, or raise max_subsets") from None
        members = _local_rows(n, np.array(hood), subsets)
        u = members.sum(axis=1)
        if weights == "paper":
            w = 2.0 / ((u + 2.0) * (u + 1.0) * u)
        else:   # |dU|: nodes outside U adjacent to U
            b = (((adjacency @ members.T.astype(float)).T > 0) & ~members).sum(axis=1)
            w = np.exp(gammaln(u) + gammaln(b + 1.0) - gammaln(u + b + 1.0))
        members[:, i] = False
        rows.append(members)
        ws.append(w)
        counts.append(len(subsets))
    return _finish(game, rows, ws, budget, "c-shapley", {"k": k, "weights": weights, "n_subsets": counts})
