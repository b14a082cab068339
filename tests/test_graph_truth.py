"""The explanation graph says what is true, in words and numbers (Bivariate Shapley paper, Section 4.1).

- A graph of a symmetric interaction index (SII, BII, Shapley-Taylor, ...) is not a redundancy graph: a pair
  value near 0 means the two effects add up. It knows its index, describes interactions and refuses the
  redundancy analysis (the paper's Section 5 structural comparison stays one explicit call away).
- "Main drivers" are the features of largest |phi|, with their signs.
- Features with no effect (|phi| and every incoming |W| at most gamma) are reported as such and kept out of the
  interchangeable groups, the sources and sinks and the redundancy sentences; the sinks are then the
  directionally redundant features. The paper's exact definitions stay reachable.
- Cohort graphs follow the same rules.

Every game here is a set function evaluated exactly (v(S) = f(features known)): no removal subtleties.
"""

import re

import numpy as np
import pytest

import interplay as ip
from interplay.graph import ExplanationGraph, RedundancyGraph, mean_graph
from interplay.synthetic import sentence_game

NAMES = ["x1", "x2", "x3", "x4", "x5"]
INDICES = ["sii", "bii", "stii", "fsii", "ksii", "fbii", "excess", "moebius"]


def linear_game():
    a = np.array([3.0, 2.0, 1.0, 0.5])
    return ip.Game(lambda Z: np.asarray(Z, float) @ a, 4, feature_names=list("abcd"))


def redundancy_game(scale: float = 1.0):
    """x2 carries exactly what x1 carries (x2 == x1); x4 is a function of x3 (x4 = x3 % 2: x3 tells x4's part,
    x4 tells only that part of x3); x5 does nothing. v(S) = 3 [x1 or x2 known] + 2 [x3 known] + 1 [x3 or x4 known].
    Shapley values: 1.5, 1.5, 2.5, 0.5, 0."""
    def value(Z):
        Z = np.asarray(Z, bool)
        return scale * (3.0 * (Z[:, 0] | Z[:, 1]) + 2.0 * Z[:, 2] + 1.0 * (Z[:, 2] | Z[:, 3]))

    return ip.Game(value, 5, feature_names=NAMES)


def pair_game():
    """a and b only count together (+2), c and d cancel together (-1), e alone (+0.5)."""
    def value(Z):
        Z = np.asarray(Z, bool)
        return 2.0 * (Z[:, 0] & Z[:, 1]) - 1.0 * (Z[:, 2] & Z[:, 3]) + 0.5 * Z[:, 4]

    return ip.Game(value, 5, feature_names=list("abcde"))


# ------------------------------------------------------------------------------------------------ defect 1
def test_sii_graph_of_a_linear_game_says_the_effects_add_up():
    graph = ip.interactions(linear_game(), index="sii").graph()
    assert graph.interaction_index == "sii"
    text = graph.describe()
    assert "No pair of features interacts" in text and "add up" in text, text
    for wrong in ("add nothing", "adds nothing", "redundan", "interchangeable", "Once "):
        assert wrong not in text, (wrong, text)
    # the directed graph of the same game agrees: nothing is redundant, nothing is without effect
    biv = ip.bivariate(linear_game(), method="exact").graph()
    assert biv.interaction_index is None
    assert "No feature is redundant given another." in biv.describe() and biv.no_effect() == []


@pytest.mark.parametrize("index", INDICES)
def test_interaction_graphs_refuse_redundancy_but_keep_the_structural_call(index):
    graph = ip.interactions(pair_game(), index=index, order=2).graph()
    assert graph.interaction_index == index and graph.is_symmetric
    for call in (graph.redundancy, graph.sinks, graph.sources, graph.no_effect, graph.gamma_sweep,
                 lambda: graph.ranking("condensation")):
        with pytest.raises(ValueError, match="Bivariate Shapley"):
            call()
    text = graph.describe()
    assert "redundan" not in text and "interchangeable" not in text and "adds nothing" not in text, text
    # the paper's Section 5 comparison (same graph algorithms on the symmetric matrix): explicit, still there
    h = RedundancyGraph.from_weights(graph.weights, 0.0, graph.feature_names)
    assert h.paper_definition and h.n_features == 5
    assert len(graph.pagerank().scores) == 5 and len(graph.ranking().scores) == 5


def test_interaction_describe_names_the_strongest_pairs_with_their_values():
    graph = ip.interactions(pair_game(), index="sii").graph()
    text = graph.describe()
    assert re.search(r"Strongest positive interactions \(SII[^)]*\): a x b \(\+2\)\.", text), text
    assert re.search(r"Strongest negative interactions \(SII[^)]*\): c x d \(-1\)\.", text), text
    assert "No notable interaction: e." in text
    # a cohort of interaction rows keeps the index and its reading
    cohort = mean_graph([ip.interactions(pair_game(), index="sii")] * 2)
    assert cohort.interaction_index == "sii" and "Strongest interactions (SII, mean |value|" in cohort.describe()
    with pytest.raises(ValueError, match="Bivariate Shapley"):
        cohort.redundancy()
    with pytest.raises(ValueError, match="mix"):
        mean_graph([ip.interactions(pair_game(), index="sii"), ip.bivariate(pair_game())])


# ------------------------------------------------------------------------------------------------ defect 2
def _drivers(text: str) -> list[tuple[str, float]]:
    sentence = re.match(r"Main drivers: (.*?\))\.", text).group(1)
    return [(name, float(value)) for name, value in re.findall(r"(\w+) \(([-+][0-9.e+-]+)\)", sentence)]


def test_main_drivers_are_the_largest_abs_phi_not_the_pagerank_top():
    def value(Z):  # a, b, c copies of one signal (plus own bonuses); d, e independent and smaller
        Z = np.asarray(Z, bool)
        return 3.0 * (Z[:, 0] | Z[:, 1] | Z[:, 2]) + 0.3 * Z[:, 0] + 0.2 * Z[:, 1] + 0.9 * Z[:, 3] - 0.8 * Z[:, 4]

    graph = ip.bivariate(ip.Game(value, 5, feature_names=list("abcde")), method="exact").graph()
    np.testing.assert_allclose(graph.univariate, [1.3, 1.2, 1.0, 0.9, -0.8], atol=1e-12)
    assert graph.ranking().order()[:2] == ["d", "e"]  # PageRank: the features nothing else replaces
    assert _drivers(graph.describe()) == [("a", 1.3), ("b", 1.2), ("c", 1.0)]


@pytest.mark.parametrize("seed", [0, 2, 3, 4])  # games whose PageRank top 3 is not their |phi| top 3
def test_main_drivers_match_abs_phi_with_signs(seed):
    from interplay.synthetic import random_game

    graph = ip.bivariate(random_game(8, random_state=seed), method="exact").graph()
    phi = graph.univariate
    top = [int(i) for i in np.argsort(-np.abs(phi), kind="stable")[:3]]
    assert set(graph.ranking().order()[:3]) != {graph.feature_names[i] for i in top}
    assert _drivers(graph.describe()) == [(graph.feature_names[i], float(f"{phi[i]:+.3g}")) for i in top]


def test_without_univariate_values_pagerank_is_labelled_as_centrality():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    bare = ExplanationGraph(graph.weights, graph.feature_names)
    text = bare.describe()
    assert text.startswith("Most central in the graph (PageRank") and "Main drivers" not in text


# ------------------------------------------------------------------------------------------------ defect 3
def test_no_effect_features_are_set_aside_and_sinks_are_directionally_redundant():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    np.testing.assert_allclose(graph.univariate, [1.5, 1.5, 2.5, 0.5, 0.0], atol=1e-12)
    assert graph.no_effect() == ["x5"] and graph.no_effect(0.0) == ["x5"]
    for gamma in (None, 0.0):
        h = graph.redundancy(gamma)
        assert h.no_effect == ("x5",) and not h.paper_definition
        assert h.groups() == [["x1", "x2"]]                  # x2 == x1: interchangeable, x5 not with them
        assert h.sinks() == ["x4"]                            # redundant given x3, makes nothing redundant
        assert "x4" in h.redundant_given("x3") and "x3" not in h.redundant_given("x4")
        assert h.sources() == ["x1", "x2", "x3"]              # nothing outside replaces them
        assert "x5" not in h.sources() + h.sinks() + h.isolated() + [f for g in h.groups() for f in g]
        assert "no effect" in h.summary() and "{x5}" in h.summary()
    # why only incoming edges count: given the null x5 the others keep their importance
    assert graph.weight("x5", "x3") > graph.default_gamma() and graph.weight("x3", "x5") == pytest.approx(0.0)


def test_describe_reports_no_effect_separately():
    text = ip.bivariate(redundancy_game(), method="exact").graph().describe()
    assert _drivers(text) == [("x3", 2.5), ("x1", 1.5), ("x2", 1.5)]
    assert "Once x3 is known, x4 adds nothing." in text
    assert "x1 and x2 are interchangeable: once one of them is known, the other adds nothing." in text
    assert "No effect on this prediction: x5 adds nothing whichever other feature is known." in text
    assert text.count("x5") == 1, text  # in no other sentence


def test_the_papers_exact_definitions_stay_reachable():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    paper = graph.redundancy(0.0, exclude_no_effect=False)
    assert paper.paper_definition and paper.no_effect is None
    assert paper.sinks() == ["x5"]                 # by the letter of Def. 4.1 the null is the only sink
    same = RedundancyGraph.from_weights(graph.weights, 0.0, graph.feature_names)
    assert same.sinks() == ["x5"] and same.edges() == paper.edges() == graph.redundancy(0.0).edges()
    # the sweep counts the set-aside features; without univariate values it is the paper's
    sweep = graph.gamma_sweep([0.0])
    assert sweep.n_no_effect[0] == 1 and sweep.n_sinks[0] == 1 and sweep.n_groups[0] == 1
    assert ExplanationGraph(graph.weights, graph.feature_names).gamma_sweep([0.0]).n_no_effect[0] == 0


def test_copies_are_a_group_not_no_effect_and_cancellation_is_an_effect():
    copies = ip.Game(lambda Z: np.asarray(Z, bool).any(axis=1).astype(float), 3, feature_names=list("abc"))
    graph = ip.bivariate(copies, method="exact").graph()
    assert graph.no_effect(0.0) == [] and graph.redundancy(0.0).groups() == [["a", "b", "c"]]
    # j: -1 alone, +1 once i is known: Shapley value 0, but it matters given i
    table = {(): 0.0, (0,): 1.0, (1,): -1.0, (0, 1): 2.0}
    game = ip.Game(lambda Z: np.array([table[tuple(np.flatnonzero(z))] for z in np.asarray(Z, bool)]), 2,
                   feature_names=["i", "j"])
    graph = ip.bivariate(game, method="exact").graph()
    assert graph.univariate[1] == pytest.approx(0.0) and graph.weight("i", "j") == pytest.approx(0.5)
    assert graph.no_effect(0.0) == []


def test_sentence_game_no_effect_words():
    graph = ip.bivariate(sentence_game()).graph()
    h = graph.redundancy()
    assert h.no_effect == ("The", "movie", "is", "the")
    assert h.groups() == [["worst", "awful"]] and h.sinks() == ["surprisingly"] and h.sources() == ["worst", "awful"]


# ------------------------------------------------------------------------------------------------ cohorts
def test_cohort_graphs_use_the_same_rules():
    rows = [ip.bivariate(redundancy_game(scale), method="exact") for scale in (1.0, 2.0, 0.5)]
    for aggregate in ("abs", "signed"):
        cohort = mean_graph(rows, aggregate=aggregate)
        np.testing.assert_allclose(cohort.no_effect_share, [0, 0, 0, 0, 1])
        assert cohort.no_effect() == ["x5"]
        h = cohort.redundancy()
        assert h.no_effect == ("x5",) and h.groups() == [["x1", "x2"]] and h.sinks() == ["x4"]
        assert cohort.redundancy(0.0).sinks() == ["x4"]  # an explicit gamma: the same rule on the mean graph
    text = mean_graph(rows).describe()
    assert text.startswith("Main drivers (mean |value| over the rows): x3 (")
    assert "No effect in at least half the rows: x5" in text and text.count("x5") == 1


def test_cohort_feature_large_in_few_rows_is_not_hidden_as_no_effect():
    """A feature worth 5 in 3 of 10 rows and nothing in the others has the largest mean |value| (1.5): the
    cohort sets it aside (no effect in 70% of the rows) but the paragraph must still name it as a driver and
    say that it is large in the other rows (it was left out of the drivers and only called "no effect")."""
    def game(effect):
        return ip.Game(lambda Z: (np.asarray(Z, bool) * [effect, 1.0, 0.5]).sum(axis=1), 3,
                       feature_names=["a", "b", "c"])

    rows = [ip.bivariate(game(5.0 if r < 3 else 0.0), method="exact") for r in range(10)]
    cohort = mean_graph(rows)
    assert cohort.no_effect() == ["a"] and cohort.univariate[0] == pytest.approx(1.5)
    text = cohort.describe()
    assert text.startswith("Main drivers (mean |value| over the rows): a (1.5), b (1) and c (0.5).")
    assert "Yet large in the other rows, so among the drivers: a (mean |value| 1.5, little or no effect in 70% of " \
           "the rows), more than c (0.5)." in text
    # signed means: the sentence is not added (directions cancel there; the drivers sentence says so)
    assert "Yet large" not in mean_graph(rows, aggregate="signed").describe()
    # a cohort in which the set-aside feature is small on average too: no such sentence
    small = mean_graph([ip.bivariate(game(0.0), method="exact") for _ in range(3)])
    assert "Yet large" not in small.describe()
    assert small.describe().startswith("Main drivers (mean |value| over the rows): b (1)")


def test_cohort_feature_set_aside_and_far_below_the_drivers_is_not_called_one():
    """Adult, 20 rows: workclass (mean |value| 0.108, set aside in most rows) was "large in the other rows, so
    among the drivers" beside capital-gain's 0.779, only because it beat the weakest feature kept. The sentence
    now names only features the drivers sentence names."""
    def game(effect):
        return ip.Game(lambda Z: (np.asarray(Z, bool) * [effect, 1.0, 0.9, 0.8, 0.2]).sum(axis=1), 5,
                       feature_names=["a", "b", "c", "d", "e"])

    cohort = mean_graph([ip.bivariate(game(1.0 if r < 3 else 0.0), method="exact") for r in range(10)])
    assert "a" in cohort.no_effect() and cohort.univariate[0] == pytest.approx(0.3)
    assert "e" not in cohort.no_effect()  # kept, and smaller on average than a
    text = cohort.describe()
    assert text.startswith("Main drivers (mean |value| over the rows): b (1), c (0.9) and d (0.8).")
    assert "Yet large" not in text and "No effect in at least half the rows: a" in text
    wider = cohort.describe(top=4)  # a is named as a driver now: the sentence says why
    assert wider.startswith("Main drivers (mean |value| over the rows): b (1), c (0.9), d (0.8) and a (0.3).")
    assert "Yet large in the other rows, so among the drivers: a (mean |value| 0.3, little or no effect in 70% " \
           "of the rows), more than e (0.2)." in wider


def _null_feature_result():
    """y = 2 a + b + 0.5 c, d null: every edge d -> j carries j's own importance (W(d, a) = 1, the strongest of G
    beside c -> a and b -> a), an interplay that is not there."""
    game = ip.Game(lambda Z: (np.asarray(Z, bool) * [2.0, 1.0, 0.5, 0.0]).sum(axis=1), 4,
                   feature_names=["a", "b", "c", "d"])
    return ip.bivariate(game, method="exact")


def test_no_coloured_arc_starts_at_a_feature_with_no_effect():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    result = _null_feature_result()
    graph = result.graph()
    assert graph.no_effect() == ["d"]
    w = np.abs(graph.weights)
    assert w[3].max() >= np.delete(w[:3], 3, axis=1).max() - 1e-12  # d's edges are among the strongest
    ax = ip.plot.graph(graph, summary=False, strongest=3)
    from interplay.plot import _analysis
    from interplay.plot.graph import _strong_edges

    s = _analysis.analyse(graph, graph.default_gamma())
    edges = _strong_edges(graph, s, 3)
    assert len(edges) == 3 and all(i != 3 for i, _ in edges)
    assert len([p for p in ax.patches if p.get_gid() == "strong-edge"]) == 3


def test_report_draws_no_coloured_arc_from_a_feature_with_no_effect(browser, tmp_path):
    from interplay.report import save_report

    path = save_report([_null_feature_result()], tmp_path / "null.html")
    browser.open(path.as_uri())
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    starts = browser.evaluate("Array.from(document.querySelectorAll('#graph path.edge.strong'))"
                              ".map(function (p) { return p.getAttribute('data-from'); })")
    assert starts and "3" not in starts


def _chain_result():
    """y depends on x1 only through the chain x1 -> x2 -> x3 (each a lossy copy of the one before) plus an
    independent w: |phi| orders x1 (0.65), w (0.5), x2, x3, but PageRank ranks w first (x1 makes x2 and x3
    redundant, so the walk leaves x1 only for w)."""
    def value(z):
        chain = 1.0 if z[0] else 0.6 if z[1] else 0.3 if z[2] else 0.0
        return chain + 0.5 * z[3]

    game = ip.Game(lambda Z: np.array([value(z) for z in np.asarray(Z, bool)]), 4,
                   feature_names=["x1", "x2", "x3", "w"])
    return ip.bivariate(game, method="exact")


def test_report_says_what_the_ranking_is_and_where_it_departs_from_the_attributions(browser, tmp_path):
    from interplay.report import save_report

    result = _chain_result()
    graph = result.graph()
    h = graph.redundancy()
    assert h.redundant_given("x1") == ["x2", "x3"] and h.sinks() == ["x3"]
    assert graph.ranking().order()[:2] == ["w", "x1"] and graph.univariate[0] > graph.univariate[3]
    path = save_report([result], tmp_path / "chain.html")
    browser.open(path.as_uri())
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    note = browser.evaluate("(document.querySelector('.ranking-note') || {}).textContent || ''")
    assert note.startswith("PageRank on |weight|, the walk restarting in proportion to |attribution|")
    assert "differs from the attribution order here: w ranks above x1, whose |attribution| is larger." in note
    path = save_report([_null_feature_result()], tmp_path / "additive.html")  # a = 2b = 4c: the same order
    browser.open(path.as_uri())
    assert browser.evaluate("document.querySelector('.ranking-note').textContent").endswith(
        "Here it follows the attribution order.")
