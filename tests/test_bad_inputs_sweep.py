"""A sweep of bad inputs over the public API: each one is refused with an error naming the parameter, rather
than accepted with a surprising result."""

import matplotlib
import numpy as np
import pytest

import interplay as ip
import interplay.metrics as metrics

matplotlib.use("Agg")


def _model(X):
    X = np.asarray(X, dtype=float)
    return X @ np.array([1.0, 2.0, 3.0, 4.0]) + X[:, 0] * X[:, 1]


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4))
    explainer = ip.Explainer(_model, X[:8])
    return explainer, X, explainer.shapley(X[:3], method="exact"), explainer.interactions(X[0], method="exact"), \
        explainer.bivariate(X[0], method="exact")


def _game(n=6):
    return ip.Game(lambda S: S.astype(float) @ np.arange(1.0, n + 1) + S[:, 0] * S[:, 1], n)


# a string where a switch (True/False) is expected is truthy: "False" and "no" silently meant True
SWITCHES = {
    "Game(cache=)": lambda f, v: ip.Game(lambda S: S.sum(axis=1), 3, cache=v),
    "Explanation.to_pandas(tidy=)": lambda f, v: f[2].to_pandas(tidy=v),
    "Explanation.to_pandas(data=)": lambda f, v: f[2].to_pandas(data=v),
    "Interactions.to_pandas(tidy=)": lambda f, v: f[3].to_pandas(tidy=v),
    "ranking_accuracy(absolute=)": lambda f, v: metrics.ranking_accuracy(np.ones(3), np.arange(3.0), absolute=v),
    "monotonicity(absolute=)": lambda f, v: metrics.monotonicity(f[0].game(f[1][0]), np.ones(4), absolute=v),
    "shapley(std_errors=)": lambda f, v: ip.shapley(_game(), method="kernel", budget=40, std_errors=v),
    "interactions(exact_if_affordable=)": lambda f, v: ip.interactions(_game(), method="permutation", budget=100,
                                                                       exact_if_affordable=v),
    "ExplanationGraph.redundancy(exclude_no_effect=)": lambda f, v: f[4].graph().redundancy(exclude_no_effect=v),
    "RedundancyGraph.sinks(per_component=)": lambda f, v: f[4].graph().redundancy().sinks(per_component=v),
    "ExplanationGraph.to_networkx(include_zero=)": lambda f, v: f[4].graph().to_networkx(include_zero=v),
    "plot.heatmap(annotate=)": lambda f, v: ip.plot.heatmap(f[3], annotate=v),
    "plot.heatmap(diagonal=)": lambda f, v: ip.plot.heatmap(f[3], diagonal=v),
    "plot.graph(summary=)": lambda f, v: ip.plot.graph(f[4], summary=v),
}


@pytest.mark.parametrize("call", list(SWITCHES), ids=list(SWITCHES))
@pytest.mark.parametrize("value", ["False", "no"])
def test_a_word_for_a_switch_is_refused(fitted, call, value):
    name = call.split("(")[1].rstrip("=)")
    with pytest.raises(TypeError, match=rf"^{name}: expected True"):
        SWITCHES[call](fitted, value)


@pytest.mark.parametrize("call", list(SWITCHES), ids=list(SWITCHES))
def test_a_numpy_bool_is_a_switch(fitted, call):
    import matplotlib.pyplot as plt

    SWITCHES[call](fitted, np.False_)
    plt.close("all")


def test_run_refuses_a_word_for_store_data(fitted, tmp_path):
    pytest.importorskip("pyarrow")
    explainer, X = fitted[:2]
    with pytest.raises(TypeError, match=r"^store_data: expected True or False, got 'no'"):
        ip.run(explainer, X[:2], "exact", out=tmp_path / "r", store_data="no", n_jobs=1, progress=False)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("option", ["strongest", "max_edges"])
@pytest.mark.parametrize("value, error", [(2.7, TypeError), ("3", TypeError), (-1, ValueError)])
def test_plot_graph_edge_counts_are_integers(fitted, option, value, error):
    # 2.7 was cut to 2 without a word, "3" failed inside int()
    with pytest.raises(error, match=rf"^{option}: expected an integer"):
        ip.plot.graph(fitted[4], **{option: value})


@pytest.mark.parametrize("baseline", [np.arange(4.0).reshape(2, 2), np.zeros((1, 2, 2)), np.zeros((4, 1))])
def test_a_table_is_no_baseline_vector(baseline):
    # its values were read row by row as one vector of 4 values
    with pytest.raises(ValueError, match=r"^baseline: expected a vector of 4 values \(or one row of them\), got shape"):
        ip.Explainer(_model, removal="baseline", baseline=baseline)


def test_a_one_row_baseline_is_a_vector():
    explainer = ip.Explainer(_model, removal="baseline", baseline=[[1.0, 2.0, 3.0, 4.0]])
    assert explainer.reference.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_n_neighbors_beyond_the_background_is_refused(fitted):
    X = fitted[1]
    # it was cut to the background's 8 rows: every row, marginal removal, without a word
    with pytest.raises(ValueError, match=r"^n_neighbors: expected at most the 8 background rows, got 9"):
        ip.Explainer(_model, X[:8], removal="conditional", n_neighbors=9)
    ip.Explainer(_model, X[:8], removal="conditional", n_neighbors=8)


# raw errors from deep inside (numpy, matplotlib, os) that named no parameter
@pytest.mark.parametrize("plot", ["bar", "waterfall", "heatmap", "beeswarm", "graph"])
def test_plots_refuse_none(plot):
    with pytest.raises(TypeError, match=r"^(result|explanation): expected a result to draw, got None"):
        getattr(ip.plot, plot)(None)


@pytest.mark.parametrize("plot, which", [("bar", 2), ("waterfall", 2), ("heatmap", 3), ("beeswarm", 2),
                                         ("graph", 4)])
def test_plots_refuse_an_ax_that_is_no_axes(fitted, plot, which):
    result = fitted[which][0] if plot == "waterfall" else fitted[which]
    with pytest.raises(TypeError, match=r"^ax: expected matplotlib Axes"):
        getattr(ip.plot, plot)(result, ax="left")


def test_a_scalar_is_no_attribution():
    with pytest.raises(ValueError, match=r"^values: expected one value per feature \(1-D\), got shape \(\)"):
        ip.plot.bar(3.0)


@pytest.mark.parametrize("plot", ["beeswarm", "scatter"])
def test_plots_name_a_bad_random_state(fitted, plot):
    args = (fitted[2], "x0") if plot == "scatter" else (fitted[2],)
    with pytest.raises(TypeError, match=r"^random_state: expected"):
        getattr(ip.plot, plot)(*args, random_state="seed")


@pytest.mark.parametrize("color, error", [("zz", KeyError), (9, IndexError)])
def test_scatter_names_a_bad_color(fitted, color, error):
    with pytest.raises(error, match=r"color: "):
        ip.plot.scatter(fitted[2], "x0", color=color)


@pytest.mark.parametrize("damping", ["x", None, True])
def test_pagerank_names_a_bad_damping(fitted, damping):
    with pytest.raises(TypeError, match=r"^damping: expected a number in \[0, 1\)"):
        fitted[4].graph().pagerank(damping=damping)


@pytest.mark.parametrize("size", ["2", 2.0, None])
def test_top_names_a_bad_size(fitted, size):
    with pytest.raises(TypeError, match=r"^size: expected an integer"):
        fitted[3].top(size=size)


def test_run_names_a_missing_out(fitted):
    pytest.importorskip("pyarrow")
    with pytest.raises(TypeError, match=r"^out: expected the path of the run's folder"):
        ip.run(fitted[0], fitted[1][:2], "exact", out=None, n_jobs=1, progress=False)


@pytest.mark.parametrize("method, index", [("surrogate", "sii"), ("proxy", "bii"), ("permutation", "sii"),
                                           ("exact", "sii")])
@pytest.mark.parametrize("order", [2.0, "2"])
def test_every_interaction_method_takes_an_integer_order(method, index, order):
    # surrogate took 2.0, proxy failed inside: "'float' object cannot be interpreted as an integer"
    with pytest.raises(TypeError, match=r"^order: expected an integer"):
        ip.interactions(_game(5), index=index, order=order, method=method, budget=64, exact_if_affordable=False)


def test_explainer_interactions_takes_an_integer_order(fitted):
    with pytest.raises(TypeError, match=r"^order: expected an integer, got 2.0"):
        fitted[0].interactions(fitted[1][0], order=2.0, method="surrogate", budget=64, exact_if_affordable=False)
    assert fitted[0].interactions(fitted[1][0], order=np.int64(2), method="exact").order == 2


def test_run_refuses_a_misspelled_option_before_making_its_folder(tmp_path):
    """ip.run(..., budjet=3) named the option only once the first chunk ran, after the run's folder was made."""
    explainer = ip.Explainer(lambda Z: Z @ np.arange(1.0, 4.0), np.zeros((2, 3)))
    out = tmp_path / "r"
    with pytest.raises(TypeError, match=r"options: method='kernel'.*unknown \['budjet'\]"):
        ip.run(explainer, np.ones((4, 3)), "kernel", out=out, budjet=3)
    assert not out.exists()
    done = ip.run(explainer, np.ones((4, 3)), "kernel", out=out, std_errors=False, paired=True, progress=False)
    assert done.complete and done.explanation().values.shape == (4, 3)  # the options it takes still pass


@pytest.mark.parametrize("call, option", [
    ("shapley", {"tree_path_dependent": "no"}), ("shapley", {"std_errors": "False"}),
    ("interactions", {"tree_path_dependent": "no"}), ("bivariate", {"tree_path_dependent": "no"}),
    ("bivariate", {"std_errors": "False"})])
def test_the_tree_path_refuses_words_for_switches(call, option):
    """method='tree' (auto's choice for a tree model) bypasses ip.*'s checks: tree_path_dependent='no' was
    truthy, so the path-dependent values came back for a user who asked for the interventional ones."""
    pytest.importorskip("numba")
    from sklearn.ensemble import RandomForestRegressor

    X = np.random.default_rng(0).standard_normal((60, 3))
    model = RandomForestRegressor(5, max_depth=3, random_state=0).fit(X, X[:, 0] * X[:, 1])
    explainer = ip.Explainer(model, X[:10])
    with pytest.raises(TypeError, match=f"{next(iter(option))}: expected True or False"):
        getattr(explainer, call)(X[:1], **option)
