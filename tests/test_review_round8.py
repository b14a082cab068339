"""Defects found by the eighth round of reviews (removal, outputs, models, modalities), one test each."""

import warnings

import numpy as np
import pytest

import interplay as ip

sklearn = pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def one_two():
    """A logistic regression whose classes are 1 and 2 (not 0 and 1)."""
    from sklearn.linear_model import LogisticRegression

    X = np.random.default_rng(0).normal(size=(200, 2))
    return LogisticRegression().fit(X, np.where(X[:, 0] > 0, 2, 1)), X


def test_a_classifier_loss_reads_y_as_a_class_label_never_as_a_column(one_two):
    model, X = one_two
    explainer = ip.Explainer(model, X[:10], output="loss")
    with pytest.raises(ValueError, match=r"^y: expected one of the model's class labels \[1, 2\], got 0"):
        explainer.game(X[:1], y=0)  # labels 0/1 against classes 1/2: it read column 0 as class 1
    log_p = np.log(model.predict_proba(X[:1])[0])
    for label, column in ((1, 0), (2, 1)):
        assert explainer.game(X[:1], y=label)(np.ones((1, 2), dtype=bool))[0] == pytest.approx(log_p[column])
    assert explainer.shapley(X[:2], y=[1, 2], method="exact").info["targets"] == [1, 2]


def test_target_with_a_classifier_loss_warns_that_it_is_ignored(one_two):
    model, X = one_two
    with pytest.warns(UserWarning, match=r"target=2 is ignored with output='loss'"):
        ip.Explainer(model, X[:10], output="loss", target=2).shapley(X[:1], y=[1], method="exact")


@pytest.mark.parametrize("y, message", [([np.nan], r"^y: a regressor's loss needs a finite true value, got nan"),
                                        (["abc"], r"^y: a regressor's loss needs a number .*, got 'abc'")])
def test_a_regressor_loss_names_a_bad_label(y, message):
    from sklearn.linear_model import LinearRegression

    X = np.random.default_rng(0).normal(size=(100, 2))
    model = LinearRegression().fit(X, X @ [1.0, 2.0])
    with pytest.raises(ValueError, match=message):
        ip.Explainer(model, X[:5], output="loss").shapley(X[:1], y=y)


@pytest.mark.parametrize("output, label", [("log-odds", None), ("loss", 0)])
def test_probabilities_of_zero_or_one_warn_that_the_clip_sets_the_values(output, label):
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 0).astype(int)
    stump = DecisionTreeClassifier(max_depth=1).fit(X, y)  # probabilities exactly 0 and 1
    x = X[y == 1][:1]
    explainer = ip.Explainer(stump, X[:10], output=output)
    with pytest.warns(UserWarning, match=rf"output='{output}': the model gives probabilities of exactly"):
        explainer.shapley(x, method="exact", **({} if label is None else {"y": [label]}))
    from sklearn.linear_model import LogisticRegression

    smooth = LogisticRegression().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # probabilities inside (0, 1): no warning
        ip.Explainer(smooth, X[:10], output=output).shapley(x, method="exact", **({} if label is None
                                                                                  else {"y": [label]}))


def test_a_tokenizer_that_skips_words_gets_each_token_at_its_own_word():
    """A stop-word tokenizer: "thing" was found inside the skipped "nothing", so the model saw texts that never
    existed ("nothing" for "thing present", "nohappened" for "thing removed")."""
    from interplay.modalities import TextExplainer

    skip = lambda s: [w for w in s.split() if w not in {"nothing", "the", "a"}]  # noqa: E731
    game = TextExplainer(lambda t: np.array([float("thing" in x.split()) for x in t]), tokenizer=skip).game(
        "nothing thing happened")
    assert game.gaps == ("nothing ", " ", "")
    texts = game.texts(np.array([[1, 1], [1, 0], [0, 1], [0, 0]], dtype=bool))
    assert texts == ["nothing thing happened", "nothing thing", "nothing happened", "nothing "]
    # subword tokens follow one another inside their word: still found there
    sub = TextExplainer(lambda t: np.zeros(len(t)), tokenizer=lambda s: ["no", "thing", "thing"]).game(
        "nothing thing")
    assert sub.gaps == ("", "", " ", "")


def test_dropping_the_only_thing_between_two_words_leaves_a_space():
    from interplay.modalities import TextExplainer

    game = TextExplainer(lambda t: np.zeros(len(t)), tokenizer=r"\w+|[^\w\s]").game("good,bad!")
    texts = game.texts(np.array([[1, 0, 1, 1], [0, 1, 1, 1], [1, 1, 0, 1], [1, 0, 0, 1]], dtype=bool))
    assert texts == ["good bad!", ",bad!", "good,!", "good!"]  # "goodbad!" before
    subwords = TextExplainer(lambda t: np.zeros(len(t)), tokenizer=lambda s: ["un", "believ", "able"])
    assert subwords.game("unbelievable").texts(np.array([[1, 0, 1]], dtype=bool)) == ["unable"]  # one word
    readme = TextExplainer(lambda t: np.zeros(len(t)), tokenizer=r"\w+|[^\w\s]").game("Not bad, really!")
    assert readme.texts(np.array([[1, 0, 1, 1, 1], [1, 1, 0, 1, 1]], dtype=bool)) == ["Not , really!",
                                                                                       "Not bad really!"]


def test_bivariate_with_a_graph_univariate_gets_the_token_graph():
    from interplay.modalities import ImageExplainer, TextExplainer

    text = TextExplainer(lambda t: np.array([len(x) for x in t], dtype=float))
    result = text.bivariate("a bb ccc", method="general", univariate="l-shapley")
    assert result.info["graph"] == "Graph (3 nodes, 2 edges)"  # a description: the result saves as JSON
    np.testing.assert_allclose(result.univariate.values, text.shapley("a bb ccc", method="l-shapley").values)
    image = ImageExplainer(lambda b: b.reshape(len(b), -1).sum(1), segments="patches", patch_size=2)
    assert image.bivariate(np.ones((4, 5)), method="general", univariate="c-shapley").adjacency.shape == (6, 6)


def test_integer_column_names_in_groups():
    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import LinearRegression

    X = pd.DataFrame(np.random.default_rng(0).normal(size=(40, 4)), columns=[10, 20, 0, 30])
    model = LinearRegression().fit(X, X.sum(axis=1))
    # names that are no position: those columns ("column index 20 out of range" before)
    assert ip.Explainer(model, X[:10], groups={"a": [20, 30]}).feature_names == ("a", "10", "0")
    with pytest.raises(ValueError, match=r"groups: 0 names column 2 and is also the position of column '10'"):
        ip.Explainer(model, X[:10], groups={"a": [0, 1]})
    assert ip.Explainer(model, X[:10], groups={"a": [1, 3]}).feature_names == ("a", "10", "0")  # positions


def test_the_text_plot_grows_with_its_font():
    import matplotlib

    matplotlib.use("Agg")
    tokens = "the quick brown fox jumps over the lazy dog while everyone watches".split()
    for size in (12, 18, 30):
        ax = ip.plot.text(tokens, np.linspace(-1, 1, len(tokens)), fontsize=size)
        figure = ax.figure
        figure.canvas.draw()
        boxes = [t.get_bbox_patch().get_window_extent() for t in ax.texts]
        same_line = [(a, b) for a, b in zip(boxes, boxes[1:]) if abs(a.y0 - b.y0) < 1]
        assert same_line and all(a.x1 <= b.x0 for a, b in same_line), size  # no box overlaps the next
        matplotlib.pyplot.close(figure)


def test_the_title_of_a_not_efficient_method_says_its_sum_need_not_be_the_change():
    import matplotlib

    matplotlib.use("Agg")
    from interplay.modalities import TextExplainer

    text = TextExplainer(lambda t: np.array([len(x.split()) ** 1.5 for x in t], dtype=float))
    for method, efficient in (("c-shapley", False), ("exact", True)):
        ax = ip.plot.text(text.shapley("good bad movie", method=method))
        assert ("not efficient" in ax.get_title()) is not efficient
        matplotlib.pyplot.close(ax.figure)


def test_a_torch_module_failing_with_a_type_error_gets_no_dataframe_hint():
    torch = pytest.importorskip("torch")

    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).eval()

    class Pair(torch.nn.Module):  # returns a tuple, not one tensor
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, x):
            return self.net(x), x

    X = np.random.default_rng(0).normal(size=(30, 4))
    with pytest.raises(RuntimeError, match=r"a torch module must return one tensor") as caught:
        ip.Explainer(Pair().eval(), X[:5]).shapley(X[20:21], method="exact")
    assert "DataFrame" not in str(caught.value)


def test_plots_refuse_a_shap_explanation_clearly():
    shap = pytest.importorskip("shap")
    import matplotlib

    matplotlib.use("Agg")
    values = shap.Explanation(values=np.ones((3, 4)), base_values=np.zeros(3), data=np.ones((3, 4)))
    for draw in (lambda: ip.plot.bar(values), lambda: ip.plot.waterfall(values[0]), lambda: ip.plot.beeswarm(values),
                 lambda: ip.plot.scatter(values, 0)):
        with pytest.raises(TypeError, match=r"got a shap\.Explanation; interplay's plots draw interplay's results"):
            draw()


def test_tree_path_dependent_outside_shapley_and_sii_says_what_it_gives():
    xgb = pytest.importorskip("xgboost")
    X = np.random.default_rng(0).normal(size=(200, 4))
    model = xgb.XGBClassifier(n_estimators=5, max_depth=3).fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))
    explainer = ip.Explainer(model, X[:30])
    expected = r"path-dependent TreeSHAP gives Shapley values \(shapley\) and SHAP interaction values"
    with pytest.raises(ValueError, match=expected + r".*not banzhaf"):
        explainer.banzhaf(X[:1], method="tree", tree_path_dependent=True)
    with pytest.raises(ValueError, match=expected + r".*not the Bivariate Shapley matrix"):
        explainer.bivariate(X[:1], method="tree", tree_path_dependent=True)
    assert explainer.bivariate(X[:1], method="tree", tree_path_dependent=False).adjacency.shape == (4, 4)


@pytest.mark.parametrize("library", ["xgboost", "lightgbm"])
def test_a_boosted_regressor_with_a_link_is_explained_exactly_on_its_raw_score(library):
    """A Poisson booster (prediction = exp(raw score)): output='margin' gives the trees' exact values of the raw
    score, what shap's TreeExplainer explains (it was refused: 'needs a model with predict_proba')."""
    module = pytest.importorskip(library)
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(300, 4)), columns=list("abcd"))
    y = rng.poisson(np.exp(0.5 * X.a - 0.3 * X.b))
    model = (module.XGBRegressor(n_estimators=20, max_depth=3, objective="count:poisson") if library == "xgboost"
             else module.LGBMRegressor(n_estimators=20, objective="poisson", verbose=-1)).fit(X, y)
    explainer = ip.Explainer(model, X[:30], output="margin")
    tree = explainer.shapley(X[:3])
    assert tree.method == "tree" and tree.info["model_kind"] == "regressor"
    exact = explainer.shapley(X[:3], method="exact")
    np.testing.assert_allclose(tree.values, exact.values, atol=1e-6)  # XGBoost adds its trees in float32
    raw = model.predict(X[:3], **({"output_margin": True} if library == "xgboost" else {"raw_score": True}))
    np.testing.assert_allclose(tree.values.sum(axis=1) + tree.base_values, raw, atol=1e-5)
    from interplay.plot._common import explained

    assert explained(tree.info) == "raw score (before the link)"  # not "margin of class 0"
    with pytest.raises(ValueError, match=r"pass output='margin' for exact tree values of the raw score"):
        ip.Explainer(model, X[:30]).shapley(X[:1], method="tree")  # the prediction has a link: sampled


def test_margin_without_a_raw_score_names_what_to_use():
    from sklearn.linear_model import LinearRegression

    X = np.random.default_rng(0).normal(size=(50, 3))
    model = LinearRegression().fit(X, X.sum(axis=1))
    with pytest.raises(ValueError, match=r"output='margin' needs a booster's raw score .*use output='prediction'"):
        ip.Explainer(model, X[:10], output="margin")
    refused = r"output='log-odds' needs a model with predict_proba \(a classifier\); LinearRegression\.predict is not"
    with pytest.raises(ValueError, match=refused):
        ip.Explainer(model, X[:10], output="log-odds")


@pytest.mark.parametrize("scale", [1e160, 1e300, 1e-160, 1e-300])
def test_games_of_huge_or_tiny_values_are_explained_as_in_their_own_scale(scale):
    """Values about 1e154 overflowed the estimators' squares: OddGP (auto) raised 'Eigenvalues did not converge',
    the tree-based Banzhaf estimate came out wrong silently, standard errors were NaN. The game is now explained
    in rescaled units (a power of two) and the result scaled back; at scale 1 nothing changes."""
    w = np.arange(1.0, 13.0)

    def base(C):
        return C @ w + 0.1 * C[:, 0] * C[:, 1]

    for call in (lambda g: ip.shapley(g, budget=200, random_state=0).values,
                 lambda g: ip.banzhaf(g, budget=200, random_state=0).values,
                 lambda g: ip.interactions(g, index="sii", budget=300, random_state=0).matrix,
                 lambda g: ip.bivariate(g, budget=300, random_state=0).adjacency):
        plain = call(ip.Game(base, 12))
        scaled = call(ip.Game(lambda C: scale * base(C), 12))
        np.testing.assert_allclose(scaled / scale, plain, rtol=1e-9, atol=1e-9)
    leverage = ip.shapley(ip.Game(lambda C: scale * base(C), 12), method="leverage", budget=200, random_state=0)
    assert np.all(np.isfinite(leverage.std_errors)) and "rescaled_by" in leverage.info
    assert "rescaled_by" not in ip.shapley(ip.Game(base, 12), method="leverage", budget=200, random_state=0).info


def test_surrogate_sii_is_exact_once_every_coalition_is_sampled():
    T = np.random.default_rng(3).normal(size=32)

    def table(C):
        return T[(C.astype(np.int64) << np.arange(5)).sum(1)]

    exact = ip.interactions(ip.Game(table, 5), index="sii", order=2, method="exact").values
    for budget in (32, 64):
        game = ip.Game(table, 5)
        result = ip.interactions(game, index="sii", order=2, method="surrogate", budget=budget, random_state=0,
                                 exact_if_affordable=False)
        assert max(abs(exact[k] - result.values[k]) for k in exact) < 1e-12  # pairs were 0.46-0.77 off
        assert result.std_errors[(0, 1)] == 0.0 and game.n_evaluations == 32


def test_nan_standard_errors_say_why():
    T = np.random.default_rng(23).normal(size=8)
    three = ip.Game(lambda C: T[(C.astype(np.int64) << np.arange(3)).sum(1)], 3)
    result = ip.interactions(three, index="sii", order=2, method="surrogate", budget=7, random_state=0)
    assert np.isnan(result.std_errors[(0,)]) and "singletons" in result.info["std_errors"]
    zero = ip.interactions(ip.Game(lambda C: np.zeros(len(C)), 8), index="sii", method="spectral", budget=60,
                           random_state=0)
    assert zero.info["fit"] == "surrogate" and "no sampling error" in zero.info["std_errors"]


def test_shear_asks_for_each_coalition_once_and_counts_it_once():
    for n, budget in ((3, 14), (5, None), (8, 200)):
        calls = []

        def value(C, n=n):
            calls.append(len(C))
            return (C * np.arange(1, n + 1)).sum(1) ** 1.5

        game = ip.Game(value, n, cache=False)
        result = ip.shapley(game, method="shear", budget=budget, random_state=0)
        assert result.n_evaluations == sum(calls) <= 2 ** n  # 14 reported where 8 coalitions exist, before


@pytest.mark.parametrize("kind, method", [("banzhaf", "msr"), ("banzhaf", "sampling"), ("banzhaf", "proxy"),
                                          ("shapley", "shear")])
def test_info_budget_is_the_resolved_one_without_a_budget(kind, method):
    result = getattr(ip, kind)(ip.Game(lambda C: C.sum(1) ** 1.5, 5), method=method, random_state=0)
    assert isinstance(result.info["budget"], int) and result.info["budget"] >= result.n_evaluations


def test_conditional_removal_sends_the_model_large_calls_of_whole_coalitions():
    """Calls were sized as if every coalition sent all m background rows (only the empty coalition does): one
    coalition of k rows per call, 16x slower for a forest. They are sized by k now; ties past max_rows split."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3010, 6))
    X[:, 3] = np.round(X[:, 3])  # ties
    w = rng.normal(size=6)
    sizes = []

    def model(A):
        sizes.append(len(A))
        return np.tanh(A @ w)

    explainer = ip.Explainer(model, X[:3000], removal="conditional")  # k = 55
    reference = ip.Explainer(lambda A: np.tanh(A @ w), X[:3000], removal="conditional", max_rows=1)
    result = explainer.shapley(X[3000:3001], method="permutation", budget=200, random_state=0, progress=False)
    assert len(sizes) <= 12  # about 200 before
    np.testing.assert_allclose(result.values, reference.shapley(X[3000:3001], method="permutation", budget=200,
                                                                random_state=0, progress=False).values, atol=1e-12)
    sizes.clear()
    ip.Explainer(model, X[:3000], removal="conditional", max_rows=500).shapley(
        X[3000:3001], method="permutation", budget=200, random_state=0, progress=False)
    # whole coalitions: a call past max_rows holds one coalition with that many tied neighbours (the empty one:
    # all 3000; here one more, 1110 rows tied on the rounded column)
    assert max(sizes) <= 3000 and sum(size > 500 for size in sizes) <= 2


def test_auto_says_oddshap_where_oddgp_would_run_it():
    game = ip.Game(lambda C: C.sum(1) ** 1.5, 20)
    result = ip.shapley(game, budget=9000, random_state=0)  # 4,500 pairs: over OddGP's 4,096
    assert result.method == "odd" and "over 4096 sampled pairs" in result.info["auto"]["reason"]
    assert ip.shapley(ip.Game(lambda C: C.sum(1) ** 1.5, 20), budget=8000, random_state=0).method == "odd_gp"
    wide = ip.shapley(ip.Game(lambda C: C.sum(1) ** 1.5, 600), random_state=0)
    assert wide.method == "odd" and "over 510 players" in wide.info["auto"]["reason"]


def test_the_tree_path_shows_progress_when_asked(capsys):
    """progress=True was ignored by method='tree', auto's choice for every forest and booster."""
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 5))
    forest = RandomForestRegressor(n_estimators=20, max_depth=4, random_state=0).fit(X[:300], X[:300, 0])
    explainer = ip.Explainer(forest, X[:50])
    shown = explainer.shapley(X[300:600], progress=True)
    assert "explaining (shapley, tree)" in capsys.readouterr().err
    quiet = explainer.shapley(X[300:600], progress=False)
    assert "explaining" not in capsys.readouterr().err
    import interplay.trees.explain as tree_explain

    one = tree_explain.PROBE_ABOVE
    try:  # the same rows in one batch: the batches (at least a probe and the rest) change nothing
        tree_explain.PROBE_ABOVE = 10**9
        whole = explainer.shapley(X[300:600], progress=False)
    finally:
        tree_explain.PROBE_ABOVE = one
    np.testing.assert_array_equal(shown.values, whole.values)
    np.testing.assert_array_equal(quiet.values, whole.values)


def test_n_jobs_to_an_explainer_points_to_ip_run():
    X = np.random.default_rng(0).normal(size=(20, 3))
    explainer = ip.Explainer(lambda A: A.sum(1), X[:10])
    for method in ("auto", "permutation"):
        with pytest.raises(TypeError, match=r"in parallel by ip\.run\(explainer, X, method, n_jobs=\.\.\.\)"):
            explainer.shapley(X[10:12], method=method, n_jobs=2)


def test_report_header_names_each_kind_where_kinds_differ_not_rows():
    import re
    from dataclasses import replace

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 16))
    w = rng.normal(size=16)
    explainer = ip.Explainer(lambda A: np.tanh(A @ w), X[:30])
    values, graph = explainer.shapley(X[30:33]), explainer.bivariate(X[[30]])
    assert values.info["budget"] == graph.info["budget"] == 2048 + 2 * 16  # the Explanation recorded None
    html = ip.build_report([replace(values, info={**values.info, "method": values.method}),
                            replace(graph, info={**graph.info, "method": graph.method})])
    assert re.findall(r'\["method","[^"]*"\]', html) == ['["method","shapley: odd_gp; bivariate: gp"]']
    assert re.findall(r'\["budget","[^"]*"\]', html) == ['["budget","2080"]']  # "varies by row: None; 2080"


def test_describe_merges_the_features_that_make_the_same_ones_redundant_and_counts_what_it_leaves_out():
    from interplay.graph import ExplanationGraph

    names = ["duration", "month", "day", "housing", "contact", "balance", "job"]
    w = np.ones((7, 7)) - np.eye(7)
    w[:6, 6] = 0.0  # job adds nothing once any of the six is known (three sentences, then silence, before)
    graph = ExplanationGraph(w, names, univariate=[3.0, 2.5, 2.0, 1.5, 1.2, 1.1, 0.8])
    text = graph.describe(0.0)
    assert "Once any of duration, month, day, housing, contact or balance is known, job adds nothing." in text
    assert "left out" not in text
    # a chain a -> b -> c -> d -> e of one-way redundancies: four statements, one told (top=1), three counted
    chain = np.ones((5, 5)) - np.eye(5)
    for i in range(4):
        chain[i, i + 1] = 0.0
    many = ExplanationGraph(chain, list("abcde"), univariate=[5.0, 4.0, 3.0, 2.0, 1.0]).describe(0.0, top=1)
    assert "Once a is known, b adds nothing." in many
    assert "3 more such statements left out here (graph.redundancy() lists every redundant pair)." in many
    none = ExplanationGraph(chain, list("abcde"), univariate=[5.0, 4.0, 3.0, 2.0, 1.0]).describe(0.0, top=0)
    assert "left out" not in none  # top=0: no lists, and no count of them
    # two interchangeable pairs, top=1: the second pair is counted
    pairs = np.ones((4, 4)) - np.eye(4)
    pairs[0, 1] = pairs[1, 0] = pairs[2, 3] = pairs[3, 2] = 0.0
    text = ExplanationGraph(pairs, list("abcd"), univariate=[4.0, 3.0, 2.0, 1.0]).describe(0.0, top=1)
    assert "1 more group of mutually redundant features left out here" in text


def test_graph_picture_marks_arrows_into_part_of_a_group_and_counts_arrows_left_out():
    import matplotlib

    matplotlib.use("Agg")
    from interplay.graph import ExplanationGraph

    # A -> C only, B and C interchangeable: the arrow into the box {B, C} is dashed (not "once A is known, B
    # and C add little"), and no coloured arc joins A to the box beside it ("B raises the output given A")
    w = np.array([[0, 1.0, 0.0], [1.0, 0, 0.0], [1.0, 0.0, 0]])
    ax = ip.plot.graph(ExplanationGraph(w, list("ABC"), univariate=[1.0, 1.0, 0.5]))
    edges = [(p.get_gid(), a, b) for p, a, b in ax._interplay_edges]
    assert ("partial-redundancy-edge", ["A"], ["B", "C"]) in edges
    assert not any(gid == "strong-edge" and a == ["A"] for gid, a, _ in edges)
    labels = [h.get_label() for h in ax.get_legend().legend_handles]
    assert any(label.startswith("dashed: into a group, only some") for label in labels)
    matplotlib.pyplot.close(ax.figure)
    # 7 x 7 redundancies: 49 arrows, 28 drawn (max_edges = 2n): the legend says 21 were left out
    n = 14
    big = np.ones((n, n)) - np.eye(n)
    big[:7, 7:] = 0.0
    ax = ip.plot.graph(ExplanationGraph(big, [f"A{i}" for i in range(7)] + [f"B{i}" for i in range(7)],
                                        univariate=np.r_[np.ones(7), 0.5 * np.ones(7)]))
    labels = [h.get_label() for h in ax.get_legend().legend_handles]
    assert any(label.startswith("21 more redundancy arrows not drawn") for label in labels)
    matplotlib.pyplot.close(ax.figure)


def test_small_review_fixes_of_the_diff():
    """Subnormal game values, native regressor boosters' raw score, feature names holding ' and '."""
    w = np.linspace(1, 2, 6)
    tiny = ip.shapley(ip.Game(lambda S: (S @ w) * 1e-312, 6), method="kernel", budget=64, random_state=0)
    np.testing.assert_allclose(tiny.values / 1e-312, w, rtol=1e-3)  # the scale overflowed to inf before
    from interplay.graph import ExplanationGraph

    names = ["rock and roll", "b", "c", "d"]
    weights = np.ones((4, 4)) - np.eye(4)
    weights[0, 2] = weights[1, 2] = 0.0
    text = ExplanationGraph(weights, names, univariate=[2.0, 1.5, 1.0, 0.5]).describe(0.0)
    assert "Once any of rock and roll or b is known, c adds nothing." in text
    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    booster = xgb.train({"objective": "count:poisson", "max_depth": 3}, xgb.DMatrix(X, label=rng.poisson(
        np.exp(0.5 * X[:, 0]))), 10)
    result = ip.Explainer(booster, X[:50], output="margin").shapley(X[50:52])  # it was refused
    assert result.method == "tree"
    raw = booster.predict(xgb.DMatrix(X[50:52]), output_margin=True)
    np.testing.assert_allclose(result.values.sum(axis=1) + result.base_values, raw, atol=1e-5)


def test_ctrl_c_on_the_tree_path_keeps_the_finished_batches(monkeypatch):
    """A SIGINT while the compiled tree kernels ran came out as a SystemError, or crashed the process; it now
    stops the run after its batch, the finished rows in ExplanationInterrupted.partial."""
    import os
    import signal

    from sklearn.ensemble import RandomForestRegressor

    import interplay.trees.explain as tree_explain

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        pytest.skip("SIGINT has another handler here")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(700, 5))
    forest = RandomForestRegressor(n_estimators=10, max_depth=4, random_state=0).fit(X[:300], X[:300, 0])
    explainer = ip.Explainer(forest, X[:50])
    whole = explainer.shapley(X[200:700], progress=False)
    original, calls = tree_explain.interventional_shapley, []

    def interrupted(*args, **kwargs):  # Ctrl-C arrives while the first batch runs
        calls.append(1)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(tree_explain, "interventional_shapley", interrupted)
    with pytest.raises(ip.ExplanationInterrupted) as stop:
        explainer.shapley(X[200:700], progress=False)
    partial = stop.value.partial
    assert len(partial) == tree_explain.PROBE_ROWS and partial.info["auto"]["chosen"] == "tree"
    np.testing.assert_array_equal(partial.values, whole.values[:len(partial)])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
    calls.clear()  # Ctrl-C in the only (hence last) batch of 100 rows: still an interrupt, all rows kept
    with pytest.raises(ip.ExplanationInterrupted) as stop:  # it was swallowed: the call returned normally
        explainer.shapley(X[200:300], progress=False)
    np.testing.assert_array_equal(stop.value.partial.values, whole.values[:100])


def test_interactions_that_are_mostly_noise_say_so():
    rng = np.random.default_rng(0)
    n = 14
    W, b = rng.normal(size=(n, n)), rng.normal(size=n)

    def value(Z):
        Z, m = Z.astype(float), Z.shape[1]
        return np.tanh(0.3 * Z @ b[:m] + 0.05 * np.einsum("ki,ij,kj->k", Z, W[:m, :m], Z))

    with pytest.warns(UserWarning, match=r"excess: the standard errors of the interactions are as large as their "
                                         r"values on average .*budget=16384 or method='exact'"):
        ip.interactions(ip.Game(value, n), index="excess", random_state=0)  # auto: permutation, 13 permutations
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ip.interactions(ip.Game(value, 6), index="excess", method="exact")  # exact: nothing to say


def test_interactions_that_are_zero_but_for_round_off_are_not_called_noise():
    """An additive game has no interactions: permutation SII gives pairs of about 1e-17 with errors as small,
    which said "mostly noise" (seed 4 of this game; a Ridge model in a review). Round-off is not noise."""
    w = np.random.default_rng(0).normal(size=12) * 3.3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for seed in range(5):
            result = ip.interactions(ip.Game(lambda Z: np.asarray(Z, float) @ w, 12), method="permutation",
                                     budget=600, random_state=seed)
            assert max(abs(v) for k, v in result.values.items() if len(k) == 2) < 1e-12


def test_top_refuses_a_negative_count():
    result = ip.interactions(ip.Game(lambda C: C.sum(1) ** 2.0, 4), method="exact")
    assert result.top(0) == [] and len(result.top(2)) == 2
    for k in (-1, 2.5, True):
        with pytest.raises(ValueError, match=r"^k: expected a number of subsets"):
            result.top(k)  # k=-1 returned every pair but the smallest


def test_a_run_records_what_the_explainer_records(tmp_path):
    """load_run dropped model_kind (a Poisson booster's raw score read 'margin of class 0'), called a loss run's
    target 'predicted' (the Explainer: 'label'), and kept info['method'] 'auto' beside the rows' one choice."""
    from sklearn.linear_model import LogisticRegression

    from interplay.plot._common import explained

    xgb = pytest.importorskip("xgboost")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    booster = xgb.XGBRegressor(n_estimators=10, max_depth=3, objective="count:poisson").fit(
        X, rng.poisson(np.exp(0.5 * X[:, 0])))
    ip.run(ip.Explainer(booster, X[:30], output="margin"), X[30:40], out=tmp_path / "margin", n_jobs=1)
    margin = ip.load_run(tmp_path / "margin")
    assert margin.info["model_kind"] == "regressor" and explained(margin.info) == "raw score (before the link)"
    labels = (X[:, 0] > 0).astype(int)
    explainer = ip.Explainer(LogisticRegression().fit(X, labels), X[:30], output="loss")
    ip.run(explainer, X[30:40], "permutation", y=labels[30:40], budget=64, out=tmp_path / "loss", n_jobs=1)
    loss = ip.load_run(tmp_path / "loss")
    assert loss.info["target"] == "label" == explainer.shapley(X[30:40], y=labels[30:40], method="permutation",
                                                               budget=64).info["target"]
    ip.run(ip.Explainer(lambda A: np.tanh(A @ [1.0, -1.0, 0.5, 0.0]), X[:30]), X[30:34], out=tmp_path / "auto",
           n_jobs=1)
    auto = ip.load_run(tmp_path / "auto")
    assert auto.method == auto.info["method"] == "exact"  # 4 features: every row enumerated


def test_report_says_which_result_a_seed_belongs_to_and_progress_ends_once(capsys):
    import re

    import interplay._progress as progress

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 6))
    w = rng.normal(size=6)
    explainer = ip.Explainer(lambda A: np.tanh(A @ w), X[:30])
    unseeded = explainer.shapley(X[30:33], method="permutation", budget=64)
    graph = explainer.bivariate(X[[30]], random_state=0)
    html = ip.build_report([unseeded, graph])
    assert re.findall(r'\["seed","[^"]*"\]', html) == ['["seed","bivariate: 0"]']  # it said "seed 0" for all
    delay = progress.DELAY
    try:
        progress.DELAY = 0.0
        with progress.progress(2, "x", enabled=None) as bar:
            bar.update(2)
    finally:
        progress.DELAY = delay
    assert capsys.readouterr().err.count("2/2 rows") == 1  # the last line was written twice


def test_a_run_whose_model_fails_says_what_is_kept_and_writes_a_compact_manifest(tmp_path):
    calls = []

    def model(A):
        calls.append(len(A))
        if np.any(A[:, 0] > 2.5):
            raise ValueError("model exploded on a big value")
        return A.sum(1)

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    X[100, 0] = 3.0
    explainer = ip.Explainer(model, X[:10], removal="baseline")
    with pytest.raises(RuntimeError, match=r"model exploded on a big value\. \d+ of the 120 rows are finished and "
                                           r"kept in .*\(after fixing the cause\)"):
        ip.run(explainer, X, "permutation", budget=16, out=tmp_path / "r", chunk_size=10, n_jobs=1)
    manifest = (tmp_path / "r" / "run-manifest.json").read_text()
    assert "\n" not in manifest.strip()  # compact (json's C encoder): it was rewritten with indent after every chunk
