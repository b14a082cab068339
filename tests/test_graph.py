"""Explanation graph G: construction and orientation, PageRank ranking (transform, no self-loops, personalization,
against a direct linear solve and networkx), cohort mean graphs, symmetric graphs from interaction indices."""

import networkx as nx
import numpy as np
import pytest

import interplay as ip
from interplay.graph import ExplanationGraph, mean_graph, pagerank
from interplay.graph.ranking import transition_weights
from interplay.synthetic import UnanimitySum, sentence_game


def _pagerank_by_solve(weights, transform, damping=0.85, personalization=None):
    """PageRank as the solution of (I - d P^T) s = (1 - d) p, P row-stochastic with dangling rows set to p."""
    n = len(weights)
    t = {"softplus": lambda w: np.log1p(np.exp(w)), "relu": lambda w: np.where(w > 0, w, 0.0),
         "abs": np.abs}[transform](np.asarray(weights, dtype=float))
    t[np.diag_indices(n)] = 0.0
    p = np.full(n, 1.0 / n) if personalization is None else np.asarray(personalization) / np.sum(personalization)
    out = t.sum(axis=1)
    P = np.where(out[:, None] > 0, t / np.where(out > 0, out, 1.0)[:, None], p[None, :])
    return np.linalg.solve(np.eye(n) - damping * P.T, (1 - damping) * p)


HAND = np.array([[5.0, 2.0, -1.0, 0.0],
                 [0.5, 0.0, 0.0, 1.5],
                 [0.0, 0.0, -7.0, 0.0],
                 [-0.2, 3.0, 0.3, 0.0]])  # node 2 has no positive out-edge; the diagonal must be ignored


@pytest.mark.parametrize("transform", ["softplus", "relu", "abs"])
@pytest.mark.parametrize("personalization", [None, [0.1, 0.0, 0.6, 0.3]])
def test_pagerank_matches_linear_solve_and_networkx(transform, personalization):
    ranking = pagerank(HAND, transform=transform, personalization=personalization, feature_names="abcd")
    expected = _pagerank_by_solve(HAND, transform, personalization=personalization)
    np.testing.assert_allclose(ranking.scores, expected, atol=1e-10)
    assert ranking.scores.sum() == pytest.approx(1.0)
    # the same graph handed to networkx by hand: off-diagonal transformed weights only
    t = transition_weights(HAND, transform)
    graph = nx.DiGraph()
    graph.add_nodes_from(range(4))
    graph.add_weighted_edges_from((i, j, t[i, j]) for i in range(4) for j in range(4) if i != j and t[i, j] > 0)
    restart = None if personalization is None else dict(enumerate(personalization))
    reference = nx.pagerank(graph, alpha=0.85, personalization=restart, tol=1e-13, max_iter=1000)
    np.testing.assert_allclose(ranking.scores, [reference[i] for i in range(4)], atol=1e-9)
    assert ranking.info["transform"] == transform and ranking.info["damping"] == 0.85


def test_pagerank_ignores_the_diagonal_and_applies_the_transform():
    t = transition_weights(HAND, "softplus")
    assert np.all(np.diag(t) == 0)
    assert t[0, 3] == pytest.approx(np.log(2.0)) and t[0, 2] == pytest.approx(np.log1p(np.exp(-1.0)))
    no_diag = HAND - np.diag(np.diag(HAND))
    for transform in ["softplus", "relu", "abs"]:
        np.testing.assert_array_equal(pagerank(HAND, transform=transform).scores,
                                      pagerank(no_diag, transform=transform).scores)
    # a self-loop of weight log 2 (the authors' 1e-70 + softplus) would change the scores
    assert not np.allclose(pagerank(no_diag).scores, _looped_solve(no_diag), atol=1e-3)
    # transforms differ: relu drops the negative edge 0 -> 2, abs keeps it
    assert pagerank(HAND, transform="relu")["x2"] < pagerank(HAND, transform="abs")["x2"]


def _looped_solve(weights):
    n = len(weights)
    t = np.log1p(np.exp(weights))  # diagonal kept: every node gets a self-loop
    P = t / t.sum(axis=1, keepdims=True)
    return np.linalg.solve(np.eye(n) - 0.85 * P.T, np.full(n, 0.15 / n))


def test_pagerank_mass_collects_at_the_sinks_of_a_dag():
    chain = np.zeros((4, 4))
    chain[0, 1] = chain[1, 2] = chain[2, 3] = chain[0, 3] = 1.0
    for transform in ["relu", "abs"]:
        ranking = ExplanationGraph(chain, list("abcd")).pagerank(transform)
        assert ranking.order() == ["d", "c", "b", "a"]
    assert ExplanationGraph(chain, list("abcd")).sinks() == ["d"]
    assert ExplanationGraph(chain, list("abcd")).sources() == ["a"]


def test_damping_zero_returns_the_personalization():
    p = np.array([1.0, 3.0, 0.0, 4.0])
    np.testing.assert_allclose(pagerank(HAND, damping=0.0, personalization=p).scores, p / p.sum(), atol=1e-12)
    np.testing.assert_allclose(pagerank(HAND, damping=0.0).scores, np.full(4, 0.25), atol=1e-12)


def test_sentence_game_ranking():
    biv = ip.bivariate(sentence_game())
    graph = biv.graph()
    assert graph.sinks() == ["worst", "awful"]               # the strong words are the sinks of G
    assert graph.sources() == ["The", "movie", "is", "the"]  # nothing is ever important for the fillers
    for transform in ["softplus", "relu", "abs"]:
        for personalization in [None, "univariate"]:
            ranking = graph.pagerank(transform, personalization=personalization)
            assert set(ranking.order()[:2]) == {"worst", "awful"}, (transform, personalization)
            assert ranking["worst"] == pytest.approx(ranking["awful"])
    # personalization by |phi| lifts "surprisingly" above the fillers
    ranking = graph.pagerank("softplus", personalization="univariate")
    assert ranking.order()[2] == "surprisingly"
    np.testing.assert_allclose(
        ranking.scores, graph.pagerank("softplus", personalization=np.abs(biv.univariate.values)).scores)
    assert ranking.info["personalization"] == "univariate"


def test_graph_from_bivariate_keeps_orientation_and_names():
    game = UnanimitySum.random(6, n_terms=8, max_size=3, random_state=4).game(feature_names=list("abcdef"))
    biv = ip.bivariate(game)
    graph = biv.graph()
    assert isinstance(graph, ExplanationGraph) and graph.kind == "bivariate"
    np.testing.assert_array_equal(graph.weights, biv.adjacency)
    assert graph.feature_names == tuple("abcdef")
    np.testing.assert_array_equal(graph.univariate, biv.univariate.values)
    assert graph.weight("a", "c") == biv.adjacency[0, 2] == biv.e2[2, 0]
    assert graph.info["n_evaluations"] == 64
    nxg = graph.to_networkx()
    assert nx.number_of_selfloops(nxg) == 0
    assert {(u, v): d["weight"] for u, v, d in nxg.edges(data=True)} == {
        ("abcdef"[i], "abcdef"[j]): biv.adjacency[i, j] for i in range(6) for j in range(6)
        if i != j and biv.adjacency[i, j] != 0}
    assert nxg.nodes["a"]["univariate"] == biv.univariate.values[0]
    assert graph.to_networkx(include_zero=True).number_of_edges() == 30


def test_large_closed_form_graph():
    """n = 30 from the unanimity-sum closed form (no enumeration): ranking and redundancy still consistent."""
    us = UnanimitySum.random(30, n_terms=40, max_size=3, random_state=1)
    graph = ExplanationGraph(us.bivariate(), univariate=us.shapley())
    for transform in ["softplus", "relu", "abs"]:
        np.testing.assert_allclose(graph.pagerank(transform).scores,
                                   _pagerank_by_solve(graph.weights, transform), atol=1e-9)
    h = graph.redundancy(0.0, exclude_no_effect=False)  # the paper's Def. 4.1 as written
    # the players in no term are null players: redundant given everyone
    null = [f"x{i}" for i in range(30) if all(i not in t for t in us.sets)]
    assert null and set(null) <= set(h.sinks())
    for name in null:
        assert set(h.made_redundant_by(name)) == set(graph.feature_names) - {name}


def test_mean_graph():
    games = [sentence_game(strong=strong, cancel=cancel) for strong, cancel in [(1.0, 0.6), (2.0, 0.2), (0.5, 1.0)]]
    rows = [ip.bivariate(g) for g in games]
    mean = mean_graph(rows, aggregate="signed")
    stack = np.stack([r.adjacency for r in rows])
    np.testing.assert_allclose(mean.weights, stack.mean(axis=0))
    np.testing.assert_allclose(mean.std_errors, stack.std(axis=0, ddof=1) / np.sqrt(3))
    np.testing.assert_allclose(mean.univariate, np.mean([r.univariate.values for r in rows], axis=0))
    assert mean.feature_names == rows[0].feature_names and mean.info["n_rows"] == 3 and mean.kind == "mean"
    # linear in the game: the mean graph is the graph of the mean game
    avg = ip.Game(lambda s: np.mean([g._value_fn(s) for g in games], axis=0), 7, games[0].feature_names)
    np.testing.assert_allclose(mean.weights, ip.bivariate(avg).adjacency, atol=1e-12)
    assert mean.redundancy(0.0, exclude_no_effect=False).groups() == [["The", "movie", "is", "the"], ["worst", "awful"]]
    from_array = mean_graph(stack, feature_names=rows[0].feature_names, aggregate="signed")
    np.testing.assert_allclose(from_array.weights, mean.weights)
    assert from_array.univariate is None
    single = mean_graph([rows[0].graph()], aggregate="signed")
    np.testing.assert_array_equal(single.std_errors, np.zeros((7, 7)))
    assert np.all(single.weights == rows[0].adjacency)


def test_interactions_graph_and_cohort_of_interactions():
    game = UnanimitySum.random(5, n_terms=6, random_state=2).game()
    result = ip.interactions(game, index="stii", order=2)
    graph = result.graph()
    assert graph.is_symmetric and graph.kind == "stii"
    np.testing.assert_allclose(graph.weights, result.matrix - np.diag(np.diag(result.matrix)))
    mean = mean_graph([result, result], aggregate="signed")
    np.testing.assert_allclose(mean.weights, graph.weights)
    np.testing.assert_allclose(mean_graph([result, result]).weights, np.abs(graph.weights))
    with pytest.raises(ValueError, match="order"):
        ip.interactions(game, index="moebius", order=1).graph()


def test_input_errors():
    graph = ExplanationGraph(HAND)
    with pytest.raises(ValueError, match="transform"):
        graph.pagerank("square")
    with pytest.raises(ValueError, match="damping"):
        graph.pagerank(damping=1.0)
    with pytest.raises(ValueError, match="univariate"):
        graph.pagerank(personalization="univariate")
    with pytest.raises(ValueError, match="personalization"):
        graph.pagerank(personalization=[1.0, -1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="personalization"):
        graph.pagerank(personalization=np.zeros(4))
    with pytest.raises(ValueError, match="personalization"):
        graph.pagerank(personalization=[1.0, 2.0])
    with pytest.raises(ValueError, match="personalization"):
        graph.pagerank(personalization="shapley")
    with pytest.raises(ValueError, match="square"):
        ExplanationGraph(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        ExplanationGraph(np.array([[0.0, np.nan], [1.0, 0.0]]))
    with pytest.raises(ValueError, match="univariate"):
        ExplanationGraph(np.zeros((2, 2)), univariate=[1.0])
    with pytest.raises(ValueError, match="m, n, n"):
        mean_graph(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="at least one"):
        mean_graph([])
    with pytest.raises(TypeError, match="BivariateExplanation"):
        mean_graph([np.zeros((2, 2))])
    a = ip.bivariate(sentence_game())
    b = ip.bivariate(UnanimitySum.random(3, random_state=0).game())
    with pytest.raises(ValueError, match="same number"):
        mean_graph([a, b])


def test_from_a_model_and_a_row():
    """The README path: model + row -> interchangeable features, directional redundancy, ranking."""
    def model(X):
        return 2 * np.maximum(X[:, 0], X[:, 1]) + X[:, 2] + 0.0 * X[:, 3]

    background = np.random.default_rng(0).random((20, 4))
    explainer = ip.Explainer(model, background, removal="baseline", baseline="zero",
                             feature_names=["income", "salary", "age", "id"])
    rows = [np.array([1.0, 1.0, 0.5, 7.0]), np.array([1.0, 0.6, 0.5, 7.0])]
    tied, untied = (explainer.bivariate(x).graph() for x in rows)
    h = tied.redundancy(exclude_no_effect=False)
    assert h.groups() == [["income", "salary"]]                  # equal values: interchangeable
    assert h.sources() == ["income", "salary", "age"] and h.sinks() == ["id"]
    h = untied.redundancy()
    assert h.groups() == [] and "salary" in h.redundant_given("income")  # the larger one makes the other redundant
    assert "income" not in h.redundant_given("salary")
    assert untied.pagerank(personalization="univariate").order()[0] == "income"
    cohort = mean_graph([explainer.bivariate(x) for x in rows])
    assert cohort.redundancy(exclude_no_effect=False).sinks() == ["id"]
