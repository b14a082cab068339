"""Regression tests for the QA review of the explanation graph (describe(), H_gamma, the picture, the sweep).

1. A group (strongly connected component of H_gamma) is called "interchangeable" only when every pair is
   mutually redundant; otherwise the sentence says what holds.
2. Features with little effect on their own (|phi| <= 2 gamma) are not read as redundant: in Eq. 6 a feature
   that ignores i keeps phi / 2 given i, so a small additive feature falls under gamma given everything.
   The paper's letter stays reachable unchanged.
3. The picture gives the features with no effect a band, a colour and a legend entry of their own.
4. plot.gamma_sweep marks the graph's own default gamma and counts the groups as G.redundancy() does.
7. On a user's ax the legend stays inside the axes.
8. describe / summary / Ranking.top validate their counts and never write a list without names.
9. ranking("condensation") with gamma=None reads G.redundancy().
10. Ranking ties keep the feature order despite round-off.
11. Layer captions are drawn over the edges and kept clear of them; the sweep's x label is not cut off.
6. The spring layout does not overlap nodes or labels.
"""

import importlib
import itertools

import numpy as np
import pytest

import interplay as ip
from interplay.graph import ExplanationGraph, RedundancyGraph, mean_graph
from interplay.graph.describe import join
from interplay.graph.ranking import Ranking

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from interplay import plot  # noqa: E402

NAMES = ["x1", "x2", "x3", "x4", "x5"]
SMALL = ["big", "s1", "s2", "s3", "s4", "s5"]


def redundancy_game(scale: float = 1.0):
    """x2 == x1; x4 = x3 % 2; x5 does nothing. Shapley values 1.5, 1.5, 2.5, 0.5, 0."""
    def value(Z):
        Z = np.asarray(Z, bool)
        return scale * (3.0 * (Z[:, 0] | Z[:, 1]) + 2.0 * Z[:, 2] + 1.0 * (Z[:, 2] | Z[:, 3]))

    return ip.Game(value, 5, feature_names=NAMES)


def additive_game(scale: float = 1.0):
    """v(S) = 10 [big in S] + 0.4 |S \\ {big}|: no feature replaces another; W(i, j) = a_j / 2 for every i."""
    a = scale * np.array([10, 0.4, 0.4, 0.4, 0.4, 0.4])
    return ip.Game(lambda Z: np.asarray(Z, float) @ a, 6, feature_names=SMALL)


def cycle_graph():
    """a -> b -> c -> a small (a strongly connected component), but W(a, c) = 0.9: c matters given a."""
    w = np.array([[0.0, 0.01, 0.9, 1.0],
                  [0.9, 0.0, 0.01, 1.0],
                  [0.01, 0.9, 0.0, 1.0],
                  [0.5, 0.5, 0.5, 0.0]])
    return ExplanationGraph(w, list("abcd"), univariate=[0.5, 0.5, 0.5, 1.0])


# ------------------------------------------------------------------------------------------------ 1. groups
def test_a_group_that_is_no_clique_is_not_called_interchangeable():
    graph = cycle_graph()
    text = graph.describe()
    assert "interchangeable" not in text, text
    assert ("a, b and c make one another redundant, directly or through one another: each adds little once "
            "another of them is known, but c still matters given a.") in text, text
    h = graph.redundancy()
    assert "(not every pair)" in h.summary()
    assert h.groups() == [["a", "b", "c"]]
    assert ("a", "c") in h.missing_edges(["a", "b", "c"])


def test_a_clique_is_still_interchangeable():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    assert graph.redundancy().missing_edges(["x1", "x2"]) == []
    assert "x1 and x2 are interchangeable: once one of them is known, the other adds nothing." in graph.describe()


# ------------------------------------------------------------------------------------------------ 2. small features
def test_small_additive_features_are_not_redundant_given_everything():
    graph = ip.bivariate(additive_game(), method="exact").graph()
    np.testing.assert_allclose(np.asarray(graph.weights)[1:, 0], 5.0)
    np.testing.assert_allclose(np.asarray(graph.weights)[0, 1:], 0.2)          # phi_j / 2: ignores i
    gamma = graph.default_gamma()
    assert gamma == pytest.approx(0.25) and 0.4 > gamma                       # |phi| above gamma, below 2 gamma
    text = graph.describe()
    for wrong in ("interchangeable", "Once big is known", "make one another redundant"):
        assert wrong not in text, (wrong, text)
    assert "Little effect on their own: s1, s2, s3, s4 and s5 (|Shapley value| at most 2 gamma = 0.5" in text
    h = graph.redundancy()
    assert h.groups() == [] and h.sinks() == [] and h.sources() == ["big"]
    assert h.little_effect == tuple(SMALL[1:]) and h.no_effect == ()
    assert graph.little_effect() == SMALL[1:] and graph.no_effect() == []
    assert "little effect on their own" in h.summary()
    sweep = graph.gamma_sweep([gamma])
    assert sweep.n_little_effect[0] == 5 and sweep.n_grouped[0] == 0


def test_the_papers_letter_is_unchanged_for_small_features():
    graph = ip.bivariate(additive_game(), method="exact").graph()
    gamma = graph.default_gamma()
    paper = graph.redundancy(exclude_no_effect=False)               # what the Table 2 benchmark reads
    assert paper.paper_definition and paper.little_effect is None and paper.no_effect is None
    assert paper.groups() == [SMALL[1:]] and paper.sinks() == SMALL[1:]
    same = RedundancyGraph.from_weights(graph.weights, gamma, graph.feature_names)
    assert same.paper_definition and same.groups() == paper.groups() and same.edges() == paper.edges()
    assert ExplanationGraph(graph.weights, graph.feature_names).gamma_sweep([gamma]).n_grouped[0] == 5
    # the redundancy reading keeps H's edges: only the structure sets the small features aside
    assert graph.redundancy().edges() == paper.edges()


def test_true_redundancy_is_still_found():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    h = graph.redundancy()
    assert h.little_effect == () and h.groups() == [["x1", "x2"]] and h.sinks() == ["x4"]
    copies = ip.Game(lambda Z: np.asarray(Z, bool).any(axis=1).astype(float), 3, feature_names=list("abc"))
    assert ip.bivariate(copies, method="exact").graph().redundancy().groups() == [["a", "b", "c"]]


def test_cohort_sets_small_features_aside_too():
    rows = [ip.bivariate(additive_game(scale), method="exact") for scale in (1.0, 2.0, 0.5)]
    cohort = mean_graph(rows)
    np.testing.assert_allclose(cohort.little_effect_share, [0, 1, 1, 1, 1, 1])
    assert cohort.little_effect() == SMALL[1:]
    h = cohort.redundancy()
    assert h.little_effect == tuple(SMALL[1:]) and h.groups() == []
    assert "Little effect on their own in at least half the rows: s1, s2, s3, s4 and s5" in cohort.describe()
    assert cohort.redundancy(exclude_no_effect=False).groups() == [SMALL[1:]]


# ------------------------------------------------------------------------------------------------ 3. picture
def _captions(ax):
    starts = ("redundant given", "no redundancy edge", "no effect", "little effect")
    return [t for t in ax.texts if t.get_gid() == "layer-caption" or t.get_text().startswith(starts)]


def test_no_effect_features_have_their_own_band_colour_and_legend_entry():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    ax = plot.graph(graph, summary=False)
    captions = sorted(_captions(ax), key=lambda t: -t.get_position()[1])
    texts = [t.get_text() for t in captions]
    assert texts[-1] == "no notable effect on this prediction" and "no redundancy edge, in or out" not in texts
    label = next(t for t in ax._interplay_labels if t.get_text().startswith("x5"))
    band = [t.get_text() for t in captions if t.get_position()[1] >= label.get_position()[1]][-1]
    assert band == "no notable effect on this prediction"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "grey: no notable effect on this prediction" in legend
    dots = [p for p in ax.patches if p.get_gid() == "node"]
    x5 = min(dots, key=lambda p: np.hypot(*(np.array(p.center) - np.array(label.get_position()))))
    no_value = importlib.import_module("interplay.plot.graph").NO_VALUE
    assert matplotlib.colors.to_hex(x5.get_facecolor()) == no_value


def test_little_effect_features_have_their_own_band():
    graph = ip.bivariate(additive_game(), method="exact").graph()
    texts = [t.get_text() for t in _captions(plot.graph(graph, summary=False))]
    assert "little effect on its own: not read as redundant" in texts


# ------------------------------------------------------------------------------------------------ 4. sweep
def test_gamma_sweep_plot_agrees_with_the_graph():
    exact = ip.bivariate(additive_game(), method="exact").graph()
    graph = ExplanationGraph(exact.weights, exact.feature_names, univariate=exact.univariate,
                             std_errors=np.full((6, 6), 0.2))       # a sampled estimate: gamma >= 2 median SE
    assert graph.default_gamma() == pytest.approx(0.4)
    ax = plot.gamma_sweep(graph, gammas=[0.0, 0.3, 0.4, 3.0])
    marker = next(line for line in ax.get_lines() if line.get_label().startswith("default gamma"))
    assert marker.get_xdata()[0] == pytest.approx(0.4)
    twin = next(a for a in ax.figure.axes if a is not ax)
    share = twin.get_lines()[0].get_ydata()
    expected = graph.gamma_sweep([0.0, 0.3, 0.4, 3.0]).n_grouped / 6
    np.testing.assert_allclose(share, expected)
    assert share[2] == 0.0                                           # the paper's letter would say 5 of 6


# ------------------------------------------------------------------------------------------------ 7. own ax
def test_legend_on_a_given_ax_stays_inside_it():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    plot.graph(graph, ax=axes[0])
    axes[1].plot([1, 2, 3])
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = axes[0].get_legend().get_window_extent(renderer)
    own = axes[0].get_window_extent(renderer)
    assert legend.x0 >= own.x0 - 1 and legend.x1 <= own.x1 + 1 and legend.y0 >= own.y0 - 1
    assert legend.x1 < axes[1].get_window_extent(renderer).x0
    fig, ax = plt.subplots(figsize=(6, 4))
    plot.graph(graph, ax=ax)
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent(fig.canvas.get_renderer())
    assert legend.x0 >= 0 and legend.y0 >= 0 and legend.x1 <= fig.bbox.width and legend.y1 <= fig.bbox.height


# ------------------------------------------------------------------------------------------------ 8. counts
def test_describe_and_summary_validate_their_counts():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    text = graph.describe(limit=1)
    assert "Main drivers: x3 (+2.5) and 2 more." in text and ":  and" not in text and ",  and" not in text
    assert join(["a", "b", "c"], 1) == "a and 2 more" and join(["a", "b", "c"], 2) == "a and 2 more"
    for bad, error in ((0, ValueError), (-2, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="limit"):
            graph.describe(limit=bad)
        if bad != 0:  # top=0 leaves the drivers sentence out (as before the counts were checked)
            with pytest.raises(error, match="top"):
                graph.describe(top=bad)
        with pytest.raises(error, match="limit"):
            graph.redundancy().summary(limit=bad)
    assert not graph.describe(top=0).startswith("Main drivers") and graph.ranking().top(0) == []
    with pytest.raises(ValueError, match="top"):
        ip.interactions(redundancy_game(), index="sii").graph().describe(top=-1)
    with pytest.raises(ValueError, match="k"):
        graph.ranking().top(-1)


# ------------------------------------------------------------------------------------------------ 9, 10. ranking
def test_condensation_ranking_reads_the_same_h_as_redundancy():
    exact = ip.bivariate(redundancy_game(), method="exact").graph()
    graph = ExplanationGraph(exact.weights, exact.feature_names, univariate=exact.univariate,
                             std_errors=np.full((5, 5), 0.3))
    default = graph.default_gamma()
    assert default == pytest.approx(0.6)                             # not 5 % of max|W|
    ranking = graph.ranking("condensation")
    np.testing.assert_allclose(ranking.scores, graph.ranking("condensation", gamma=default).scores)
    assert ranking.info["gamma"] == pytest.approx(default) and not ranking.info["paper_definition"]
    assert ranking.order()[-1] == "x5"                               # set aside (no effect): last
    assert ranking.order()[:3] == ["x3", "x1", "x2"] and ranking["x4"] < ranking["x2"]


def test_ranking_ties_keep_the_feature_order():
    graph = ExplanationGraph(np.zeros((4, 4)), list("abcd"))
    assert graph.ranking().order() == ["a", "b", "c", "d"]
    # PageRank on an empty graph is uniform: describe() names no feature as the most central
    assert graph.describe().startswith("Every edge weight is zero: no feature is more central than another.")
    assert "Most central" not in graph.describe()
    tied = ExplanationGraph(np.ones((4, 4)) - np.eye(4), list("abcd"))  # uniform too, with edges: ties kept
    assert tied.describe().startswith("Most central in the graph (PageRank on |W|): a, b and c.")
    assert Ranking([0.25, 0.25 - 3e-17, 0.25 - 6e-17, 0.25 - 3e-17], list("abcd")).order() == list("abcd")
    assert Ranking([0.1, 0.3, 0.2], list("abc")).order() == ["b", "c", "a"]


# ------------------------------------------------------------------------------------------------ 11. small flaws
def test_captions_are_above_the_edges_and_clear_of_them():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    ax = plot.graph(graph, summary=False)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    edges = [p for p, _, _ in ax._interplay_edges]
    assert edges and min(t.get_zorder() for t in _captions(ax)) > max(p.get_zorder() for p in edges)
    inverse = ax.transData.inverted()
    for caption in _captions(ax):
        (x0, y0), (x1, y1) = inverse.transform(caption.get_window_extent(renderer).get_points())
        for patch in edges:
            points = patch.get_path().interpolated(50).vertices
            inside = (points[:, 0] > x0) & (points[:, 0] < x1) & (points[:, 1] > y0) & (points[:, 1] < y1)
            assert not inside.any(), (caption.get_text(), patch.get_gid())


def test_gamma_sweep_axis_label_is_not_cut_off():
    graph = ip.bivariate(redundancy_game(), method="exact").graph()
    ax = plot.gamma_sweep(graph)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    assert ax.xaxis.label.get_window_extent(renderer).y0 >= 0
    twin = next(a for a in fig.axes if a is not ax)
    assert twin.yaxis.label.get_window_extent(renderer).x1 <= fig.bbox.width


# ------------------------------------------------------------------------------------------------ 6. spring layout
def test_spring_layout_does_not_overlap_nodes_or_labels():
    from interplay.synthetic import random_game

    graph = ip.bivariate(random_game(10, random_state=0), method="exact").graph()
    ax = plot.graph(graph, layout="spring", summary=False)
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    labels = [t.get_window_extent(renderer) for t in ax._interplay_labels]
    shapes = [p.get_window_extent(renderer) for p in ax.patches if p.get_gid() in ("node", "group")]
    assert not any(a.overlaps(b) for a, b in itertools.combinations(labels, 2))
    assert not any(a.overlaps(b) for a, b in itertools.combinations(shapes, 2))


def test_main_drivers_leave_out_the_features_set_aside():
    """A feature set aside (no effect, or too small to call redundant) is named in its own sentence, not also as a
    main driver (a bank row said "Main drivers: duration, job and marital. No effect ...: age, job, marital")."""
    game = ip.Game(lambda Z: 10.0 * Z[:, 0] + 0.01 * Z[:, 1] - 0.01 * Z[:, 2], 3, ["big", "tiny1", "tiny2"])
    G = ip.bivariate(game, method="exact").graph()
    text = G.describe()
    assert text.startswith("Main drivers: big (+10).")
    assert "tiny1" in text and "tiny2" in text  # still named, where they belong


def test_features_set_aside_are_in_no_redundant_given_list():
    """redundant_given / made_redundant_by follow the reading that sets features aside (a little-effect feature
    was listed as made redundant while describe() said it was too small to call redundant); the paper's letter
    keeps them."""
    game = ip.Game(lambda Z: 10.0 * Z[:, 0] + 4.0 * Z[:, 1] * Z[:, 0] + 0.5 * Z[:, 2] + 0.0 * Z[:, 3], 4,
                   ["big", "mid", "tiny", "none"])
    G = ip.bivariate(game, method="exact").graph()
    H = G.redundancy()
    assert H.little_effect == ("tiny",) and H.no_effect == ("none",)
    for f in ("big", "mid"):
        assert not {"tiny", "none"} & set(H.redundant_given(f))
    assert H.redundant_given("tiny") == [] and H.made_redundant_by("tiny") == []
    letter = G.redundancy(exclude_no_effect=False)
    assert "tiny" in letter.redundant_given("big") and "none" in letter.redundant_given("big")


def test_cohort_keeps_the_edges_of_the_rows_own_readings():
    """A row's redundancy edge into a feature it sets aside (too small there) counted towards the cohort's
    redundancy: on 600 Adult rows capital-loss became "redundant given age" (54% of rows by |W| <= gamma) where
    the rows' own readings said so in 10%. The cohort's default reading now counts each row's own edges; the
    paper's definition (exclude_no_effect=False) still counts every row with |W| <= gamma."""
    rng = np.random.default_rng(3)
    n, rows = 5, []
    for _ in range(30):
        phi_scale = rng.uniform(0.02, 1.0, n)
        table = rng.normal(size=2**n) * 0.05
        table += (((np.arange(2**n)[:, None] >> np.arange(n)) & 1) * phi_scale).sum(axis=1)
        game = ip.Game(lambda S, t=table: t[S.astype(int) @ (1 << np.arange(n))], n)
        rows.append(ip.bivariate(game, method="exact"))
    cohort = ip.mean_graph(rows)
    own = np.mean([r.graph().redundancy()._effective_adjacency() for r in rows], axis=0)
    np.testing.assert_allclose(cohort.reading_share, own, atol=1e-12)
    raw = np.mean([r.graph().redundancy(exclude_no_effect=False).adjacency for r in rows], axis=0)
    np.testing.assert_allclose(cohort.redundancy_share, raw, atol=1e-12)
    assert not np.allclose(own, raw)  # some rows set features aside: the two readings differ here
    H = cohort.redundancy()
    np.testing.assert_array_equal(H.adjacency, cohort.reading_share >= 0.5)


def test_cohort_unit_and_classes_come_from_the_rows():
    """mean_graph raised on rows whose info held arrays; rows of different classes were titled as one class."""
    rng = np.random.default_rng(0)
    rows = [ip.BivariateExplanation(rng.normal(size=(3, 3)), ip.Attribution(rng.normal(size=3), 0.0, list("abc"), 1,
                                    "exact"), list("abc"), 1, "exact", info={"output": "probability", "target": t})
            for t in ("x", "y", "x")]
    cohort = mean_graph(rows)
    assert cohort.info["output"] == "probability" and cohort.info["targets"] == ["x", "y", "x"]
    assert "target" not in cohort.info
    odd = [ip.BivariateExplanation(r.adjacency, r.univariate, list("abc"), 1, "exact",
                                   info={"output": np.array(["p"]), "target": np.array([1])}) for r in rows]
    assert "output" not in mean_graph(odd).info  # arrays are not a unit to name (this raised)
    assert rows[0].graph().info["output"] == "probability"  # a single graph carries them too
