"""Redundancy graph H_gamma: components, condensation, sources and sinks against networkx; density in gamma;
transitivity for monotone games (Corollary 1.1); the paper's illustrative sentence."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interplay as ip
from interplay.graph import ExplanationGraph, RedundancyGraph, gamma_for_density, gamma_sweep
from interplay.graph.redundancy import DEFAULT_RELATIVE_GAMMA, default_gamma
from interplay.synthetic import SENTENCE, monotone_random_game, sentence_game


@st.composite
def digraphs(draw):
    n = draw(st.integers(1, 12))
    p = draw(st.sampled_from([0.05, 0.15, 0.3, 0.6]))
    seed = draw(st.integers(0, 2**32 - 1))
    adjacency = np.random.default_rng(seed).random((n, n)) < p
    np.fill_diagonal(adjacency, False)
    return adjacency


def _as_sets(lists):
    return {frozenset(x) for x in lists}


@settings(max_examples=150, deadline=None)
@given(digraphs())
def test_structure_matches_networkx(adjacency):
    n = len(adjacency)
    names = [f"f{i}" for i in range(n)]
    h = RedundancyGraph(adjacency, 0.0, names)
    ref = h.to_networkx()
    assert set(ref.edges) == {(names[i], names[j]) for i, j in zip(*np.nonzero(adjacency))}

    # strongly connected components and mutual redundancy groups
    sccs = list(nx.strongly_connected_components(ref))
    assert _as_sets(h.components()) == _as_sets(sccs)
    assert _as_sets(h.groups()) == _as_sets(c for c in sccs if len(c) > 1)

    # condensation: same classes, same class edges, acyclic
    ours = h.condensation()
    theirs = nx.condensation(ref, scc=sccs)
    members = {c: frozenset(ours.nodes[c]["members"]) for c in ours}
    their_members = {c: frozenset(theirs.nodes[c]["members"]) for c in theirs}
    assert {(members[a], members[b]) for a, b in ours.edges} == \
        {(their_members[a], their_members[b]) for a, b in theirs.edges}
    assert nx.is_directed_acyclic_graph(ours)
    assert all(name in members[c] for name, c in ours.graph["mapping"].items())

    # sources and sinks: every class of in-degree 0 / out-degree 0, per weakly connected component
    sources = {name for c in theirs if theirs.in_degree(c) == 0 for name in their_members[c]}
    sinks = {name for c in theirs if theirs.out_degree(c) == 0 for name in their_members[c]}
    assert set(h.sources()) == sources and len(h.sources()) == len(sources)
    assert set(h.sinks()) == sinks
    weak = [frozenset(c) for c in nx.weakly_connected_components(ref)]
    assert _as_sets(h.sources(per_component=True)) == {w & sources for w in weak}
    assert _as_sets(h.sinks(per_component=True)) == {w & sinks for w in weak}
    assert set(h.isolated()) == {v for v in ref if ref.degree(v) == 0}

    # density and transitivity
    assert h.density == pytest.approx(nx.density(ref)) if n > 1 else h.density == 0.0
    closure = nx.transitive_closure(ref, reflexive=None)  # None: no self-loops
    assert h.is_transitive() == (set(closure.edges) == set(ref.edges))


def test_several_sources_and_sinks_per_component():
    # 0 -> 2 <- 1, 2 -> 3, 2 -> 4 (one weak component, two sources, two sinks); 5 <-> 6 (a group, both)
    adjacency = np.zeros((7, 7), dtype=bool)
    for i, j in [(0, 2), (1, 2), (2, 3), (2, 4), (5, 6), (6, 5)]:
        adjacency[i, j] = True
    h = RedundancyGraph(adjacency, 0.0, list("abcdefg"))
    assert h.sources(per_component=True) == [["a", "b"], ["f", "g"]]
    assert h.sinks(per_component=True) == [["d", "e"], ["f", "g"]]
    assert h.groups() == [["f", "g"]]
    assert h.redundant_given("c") == ["d", "e"] and h.made_redundant_by("c") == ["a", "b"]
    assert not h.is_transitive()


def test_gamma_zero_tolerates_roundoff():
    weights = np.array([[0.0, 2.2e-16, 1.0], [-4e-16, 0.0, 0.5], [1e-3, 0.3, 0.0]])
    h = RedundancyGraph.from_weights(weights, 0.0, list("abc"))
    assert sorted(h.edges()) == [("a", "b"), ("b", "a")]
    graph = ExplanationGraph(weights, list("abc"))
    assert graph.sinks() == [] and graph.sources() == []
    graph = ExplanationGraph(np.array([[0.0, 1.0], [-3e-16, 0.0]]), list("ab"))
    assert graph.sinks() == ["b"] and graph.sources() == ["a"]


def test_redundancy_edges_follow_the_definition():
    weights = np.array([[0.0, 0.1, -0.3], [0.05, 0.0, 2.0], [-0.1, 0.0, 0.0]])
    h = ExplanationGraph(weights, ["a", "b", "c"]).redundancy(0.1)
    assert sorted(h.edges()) == [("a", "b"), ("b", "a"), ("c", "a"), ("c", "b")]
    assert h.gamma == 0.1 and h.n_edges == 4 and h.density == pytest.approx(4 / 6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_density_never_decreases_with_gamma(seed):
    rng = np.random.default_rng(seed)
    n = 9
    weights = rng.normal(size=(n, n)) * (rng.random((n, n)) < 0.7)
    sweep = gamma_sweep(weights, rng.random(25) * 2.5)
    assert np.all(np.diff(sweep.gamma) >= 0)
    assert np.all(np.diff(sweep.density) >= 0) and np.all(np.diff(sweep.n_edges) >= 0)
    default = ExplanationGraph(weights).gamma_sweep()
    assert default.gamma[0] == 0 and default.gamma[-1] == pytest.approx(np.abs(weights - np.diag(np.diag(weights))).max())
    assert np.all(np.diff(default.density) >= 0)
    assert default.density[-1] == 1.0 and default.n_groups[-1] == 1 and default.n_grouped[-1] == n
    for gamma, density, groups in zip(sweep.gamma, sweep.density, sweep.n_groups):
        h = RedundancyGraph.from_weights(weights, gamma)
        assert h.density == density and len(h.groups()) == groups


def test_gamma_for_density_and_default_gamma():
    rng = np.random.default_rng(3)
    weights = rng.normal(size=(6, 6))
    for target in [0.1, 0.5, 0.9, 1.0]:
        gamma = gamma_for_density(weights, target)
        assert RedundancyGraph.from_weights(weights, gamma).density >= target
        assert RedundancyGraph.from_weights(weights, gamma - 1e-6).density < target
    off = np.abs(weights[~np.eye(6, dtype=bool)]).max()
    assert default_gamma(weights) == pytest.approx(DEFAULT_RELATIVE_GAMMA * off)
    assert default_gamma(weights, np.full((6, 6), 0.5)) == pytest.approx(1.0)
    assert ExplanationGraph(weights).redundancy().gamma == pytest.approx(DEFAULT_RELATIVE_GAMMA * off)


def _coverage_game(n, universe, rng):
    """Monotone weighted coverage game: v(S) = total weight of the union of the players' sets."""
    sets = rng.random((n, universe)) < 0.4
    weight = rng.random(universe) + 0.1
    return ip.Game(lambda s: (((s.astype(float) @ sets) > 0) @ weight), n)


@pytest.mark.parametrize("seed", range(8))
def test_monotone_games_give_transitive_h0(seed):
    """Corollary 1.1: exact Bivariate Shapley of a monotone utility gives a transitive H at gamma = 0, and its
    strongly connected components are cliques (Theorem 1)."""
    rng = np.random.default_rng(seed)
    nontrivial = 0
    for game in [_coverage_game(7, 5, rng), _coverage_game(6, 3, rng), monotone_random_game(6, random_state=seed)]:
        h = ip.bivariate(game).graph().redundancy(0.0)
        assert h.is_transitive()
        for group in h.groups():
            idx = [h.feature_names.index(g) for g in group]
            block = h.adjacency[np.ix_(idx, idx)]
            assert block.sum() == len(idx) * (len(idx) - 1)
        nontrivial += h.n_edges > 0
    assert nontrivial >= 2  # the check is not vacuous


def test_non_monotone_game_can_break_transitivity():
    """Corollary 1.1 needs monotonicity: among small games with values in {-1, 0, 1}, some give an H_0 with
    i -> j -> k but not i -> k (zeros by cancellation), so the transitivity check above can fail."""
    rng = np.random.default_rng(0)
    for _ in range(2000):
        table = rng.integers(-1, 2, size=8).astype(float)
        h = ip.bivariate(ip.synthetic.table_game(table)).graph().redundancy(0.0)
        if not h.is_transitive():
            return
    pytest.fail("no intransitive H found among small non-monotone games")


def test_sentence_game_redundancy():
    graph = ip.bivariate(sentence_game()).graph()
    fillers = ["The", "movie", "is", "the"]
    for gamma in [0.0, None]:
        h = graph.redundancy(gamma, exclude_no_effect=False)  # the paper's definitions as written
        assert ["worst", "awful"] in h.groups()                     # interchangeable strong words
        assert h.sources() == ["worst", "awful"]                    # ... the only source of the condensation
        assert h.sinks() == fillers                                 # fillers end as sinks
        assert "surprisingly" in h.redundant_given("worst")         # directionally redundant to the strong words
        assert "surprisingly" in h.redundant_given("awful")
        assert "worst" not in h.redundant_given("surprisingly")     # ... but not the other way round
        assert h.made_redundant_by("surprisingly") == ["worst", "awful"]
        assert h.is_transitive()
    text = graph.redundancy().summary()
    assert "{worst, awful}" in text and "{worst, awful} -> {surprisingly}" in text


def test_sentence_game_weights_match_closed_form():
    strong, cancel = 1.0, 0.6
    biv = ip.bivariate(sentence_game(strong=strong, cancel=cancel))
    w = biv.graph()
    np.testing.assert_allclose(biv.univariate.values, [0, 0, 0, 0, strong / 2 + cancel / 6, -cancel / 3,
                                                      strong / 2 + cancel / 6], atol=1e-12)
    assert w.weight("worst", "surprisingly") == 0 and w.weight("worst", "awful") == 0
    # worst matters given surprisingly iff awful is absent: orders surprisingly < worst < awful, probability 1/6
    assert w.weight("surprisingly", "worst") == pytest.approx((strong + cancel) / 6)
    # given a filler: strong when the filler comes before worst before awful (1/6), plus cancel when surprisingly
    # also comes before worst (1/12)
    assert w.weight("The", "worst") == pytest.approx(strong / 6 + cancel / 12)
    assert w.weight("The", "surprisingly") == pytest.approx(-cancel / 12)
    assert SENTENCE == ("The", "movie", "is", "the", "worst", "surprisingly", "awful")


def test_symmetric_graphs_have_no_directional_structure():
    interactions = ip.interactions(sentence_game(), index="sii", order=2)
    graph = interactions.graph()
    assert graph.is_symmetric and graph.kind == "sii"
    np.testing.assert_allclose(graph.weights, interactions.matrix - np.diag(np.diag(interactions.matrix)))
    np.testing.assert_allclose(graph.univariate, ip.shapley(sentence_game()).values, atol=1e-12)
    with pytest.raises(ValueError, match="Bivariate Shapley"):  # a pair value near 0: effects add up
        graph.redundancy(0.0)
    h = RedundancyGraph.from_weights(graph.weights, 0.0, graph.feature_names)  # the paper's Section 5 comparison
    assert h.sources() == h.sinks() == list(SENTENCE)  # the condensation of a symmetric H has no edges
    assert _as_sets(h.components()) == _as_sets(nx.connected_components(h.to_networkx().to_undirected()))
    # the symmetric index cannot tell the interchangeable strong words apart from the fillers' zeros
    assert ["worst", "awful"] not in h.groups()


def test_input_errors():
    with pytest.raises(ValueError, match="gamma"):
        ExplanationGraph(np.zeros((2, 2))).redundancy(-1.0)
    with pytest.raises(TypeError, match="gamma"):
        ExplanationGraph(np.zeros((2, 2))).redundancy("small")
    with pytest.raises(ValueError, match="square"):
        RedundancyGraph(np.zeros((2, 3), dtype=bool), 0.0)
    with pytest.raises(ValueError, match="density"):
        gamma_for_density(np.zeros((2, 2)), 0.0)
    with pytest.raises(ValueError, match="names"):
        RedundancyGraph(np.zeros((2, 2), dtype=bool), 0.0, ["a"])
