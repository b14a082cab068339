"""L-Shapley and C-Shapley (papers' README definitions) against exact Shapley and literal brute force."""

from itertools import combinations
from math import factorial

import networkx as nx
import numpy as np
import pytest

import interplay as ip
from interplay.estimators.structured import connected_subsets, feature_graph, neighbourhood
from interplay.synthetic import UnanimitySum, random_game

import _brute as brute


def test_feature_graph_forms():
    path = feature_graph("sequence", 5)
    assert sorted(path.edges) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    grid = feature_graph(("grid", 2, 3), 6)                 # row-major: r * width + c
    assert sorted(tuple(sorted(e)) for e in grid.edges) == [(0, 1), (0, 3), (1, 2), (1, 4), (2, 5), (3, 4), (4, 5)]
    custom = feature_graph(nx.DiGraph([(0, 1), (2, 1), (1, 1)]), 3)
    assert not custom.is_directed() and sorted(map(sorted, custom.edges)) == [[0, 1], [1, 2]]


def test_feature_graph_errors():
    with pytest.raises(ValueError, match=r"\('grid', 2, 3\) has 6 nodes but the game has 5"):
        feature_graph(("grid", 2, 3), 5)
    with pytest.raises(ValueError, match=r"expected nodes 0\.\.3.*missing \[3\]"):
        feature_graph(nx.path_graph(3), 4)
    with pytest.raises(ValueError, match="unexpected"):
        feature_graph(nx.path_graph(["a", "b"]), 2)
    with pytest.raises(ValueError, match="graph"):
        feature_graph("tree", 3)
    with pytest.raises(ValueError, match="grid"):
        feature_graph(("grid", 3), 3)
    with pytest.raises(TypeError, match="graph"):
        feature_graph(42, 3)


def _graphs(n):
    return ["sequence", nx.cycle_graph(n), nx.gnm_random_graph(n, n + 2, seed=n), nx.star_graph(n - 1)]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("n", [4, 6])
def test_l_shapley_with_whole_graph_is_exact(n, seed):
    game = random_game(n, random_state=seed)
    exact = ip.shapley(game).values
    for graph in _graphs(n):
        result = ip.shapley(game, method="l-shapley", graph=graph, k=n)
        np.testing.assert_allclose(result.values, exact, atol=1e-12)
    grid = ip.shapley(random_game(6, random_state=seed), method="l-shapley", graph=("grid", 2, 3), k=3)
    np.testing.assert_allclose(grid.values, ip.shapley(random_game(6, random_state=seed)).values, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 2])
def test_c_shapley_on_complete_graph_is_exact(k, seed):
    game = random_game(6, random_state=seed)
    result = ip.shapley(game, method="c-shapley", graph=nx.complete_graph(6), k=k)
    np.testing.assert_allclose(result.values, ip.shapley(game).values, atol=1e-12)


def _window_weight(size, boundary):
    return factorial(size - 1) * factorial(boundary) / factorial(size + boundary)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_path_graph_windows_and_weights_match_brute_force(k, seed):
    n = 7
    game = random_game(n, random_state=seed)
    v = brute.as_value(game, n)
    c_exact, c_paper, l_ref = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(n):
        lo, hi = max(0, i - k), min(n - 1, i + k)
        for a in range(lo, i + 1):                     # windows [a, b] containing i inside N_k(i)
            for b in range(i, hi + 1):
                U = set(range(a, b + 1))
                boundary = (a > 0) + (b < n - 1)
                diff = v(U) - v(U - {i})
                c_exact[i] += _window_weight(len(U), boundary) * diff
                c_paper[i] += 2.0 / ((len(U) + 2) * (len(U) + 1) * len(U)) * diff
        hood = list(range(lo, hi + 1))
        m = len(hood)
        for r in range(m):                             # L-Shapley: the README formula, literally
            for T in combinations(hood, r + 1):
                if i in T:
                    binom = factorial(m - 1) / (factorial(r) * factorial(m - 1 - r))
                    l_ref[i] += (v(T) - v(set(T) - {i})) / (m * binom)
    result = ip.shapley(game, method="c-shapley", graph="sequence", k=k)
    np.testing.assert_allclose(result.values, c_exact, atol=1e-12)
    assert result.info["n_subsets"] == [(i - max(0, i - k) + 1) * (min(n - 1, i + k) - i + 1) for i in range(n)]
    paper = ip.shapley(game, method="c-shapley", graph="sequence", k=k, weights="paper")
    np.testing.assert_allclose(paper.values, c_paper, atol=1e-12)
    np.testing.assert_allclose(ip.shapley(game, method="l-shapley", graph="sequence", k=k).values, l_ref, atol=1e-12)


def test_c_shapley_on_a_general_graph_matches_brute_force():
    n = 7
    G = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 3), (5, 6)])
    game = random_game(n, random_state=5)
    v = brute.as_value(game, n)
    for k in (1, 2):
        expected = np.zeros(n)
        for i in range(n):
            hood = set(nx.single_source_shortest_path_length(G, i, cutoff=k))
            others = sorted(hood - {i})
            for r in range(len(others) + 1):
                for rest in combinations(others, r):
                    U = set(rest) | {i}
                    if nx.is_connected(G.subgraph(U)):
                        boundary = set().union(*(set(G[x]) for x in U)) - U
                        expected[i] += _window_weight(len(U), len(boundary)) * (v(U) - v(U - {i}))
        result = ip.shapley(game, method="c-shapley", graph=G, k=k)
        np.testing.assert_allclose(result.values, expected, atol=1e-12)


def test_connected_subsets_enumerates_each_once():
    G = feature_graph(("grid", 3, 3), 9)
    for i in (0, 4):
        found = connected_subsets(G, i, set(G.nodes))
        assert len(found) == len(set(found))
        brute_force = {frozenset(c) | {i} for r in range(9) for c in combinations(sorted(set(G) - {i}), r)
                       if nx.is_connected(G.subgraph(set(c) | {i}))}
        assert set(found) == brute_force
    assert neighbourhood(G, 4, 1) == [1, 3, 4, 5, 7]


def test_budget_checked_and_never_exceeded():
    soum = UnanimitySum.random(8, n_terms=10, random_state=0)
    calls = []
    counting = ip.Game(lambda S: (calls.append(len(S)), soum.value(S))[1], 8, cache=False)
    result = ip.shapley(counting, method="l-shapley", graph="sequence", k=1)
    assert result.n_evaluations == sum(calls)
    needed = result.n_evaluations
    calls.clear()
    capped = ip.shapley(counting, method="l-shapley", graph="sequence", k=1, budget=needed)
    assert capped.n_evaluations == sum(calls) <= needed
    with pytest.raises(ValueError, match=f"needs {needed} evaluations"):
        ip.shapley(counting, method="l-shapley", graph="sequence", k=1, budget=needed - 1)
    c = ip.shapley(counting, method="c-shapley", graph="sequence", k=2)
    with pytest.raises(ValueError, match=f"needs {c.n_evaluations} evaluations"):
        ip.shapley(counting, method="c-shapley", graph="sequence", k=2, budget=c.n_evaluations - 1)


@pytest.mark.parametrize("batch_size", [1, 7, None])
def test_same_result_for_any_batch_size(batch_size):
    reference = ip.shapley(random_game(6, random_state=2), method="c-shapley", graph=("grid", 2, 3), k=1).values
    game = random_game(6, random_state=2)
    game.batch_size = batch_size
    np.testing.assert_array_equal(ip.shapley(game, method="c-shapley", graph=("grid", 2, 3), k=1).values, reference)


def test_bad_options():
    game = random_game(5, random_state=0)
    with pytest.raises(ValueError, match="k: expected an integer >= 0"):
        ip.shapley(game, method="l-shapley", graph="sequence", k=-1)
    with pytest.raises(ValueError, match="graph: required"):
        ip.shapley(game, method="c-shapley")
    with pytest.raises(ValueError, match="has 6 nodes but the game has 5"):
        ip.shapley(game, method="c-shapley", graph=("grid", 2, 3))
    with pytest.raises(ValueError, match="weights"):
        ip.shapley(game, method="c-shapley", graph="sequence", weights="uniform")
    with pytest.raises(ValueError, match="max_neighbourhood"):
        ip.shapley(game, method="l-shapley", graph="sequence", k=4, max_neighbourhood=4)


def test_c_shapley_refuses_before_listing_more_connected_sets_than_it_may():
    """A 9 x 9 grid at k = 3 has over 17 million connected sets: listed whole, it filled the memory whatever the
    budget. Refused as soon as one feature's sets pass the budget, or all of them pass max_subsets."""
    game = ip.Game(lambda Z: Z.sum(1) * 1.0, 81)
    with pytest.raises(ValueError, match=r"budget: method='c-shapley' needs more than 5000 evaluations"):
        ip.shapley(game, method="c-shapley", graph=("grid", 9, 9), k=3, budget=5000)
    with pytest.raises(ValueError, match=r"max_subsets: with k=3 the features' connected sets exceed 1,000"):
        ip.shapley(game, method="c-shapley", graph=("grid", 9, 9), k=3, max_subsets=1000)
    small = ip.shapley(ip.Game(lambda Z: Z.sum(1) * 1.0, 16), method="c-shapley", graph=("grid", 4, 4), k=1)
    assert small.values.sum() > 0  # ordinary sizes unaffected
