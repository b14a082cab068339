"""QA of the result objects and the attribution plots (/tmp/qa/plots.md): feature values matched to the right
features with ``groups=`` (plots, tables, shap), the unit and class named on every tabular plot, mixed classes
said, interaction bars summed per subset size, modality results stating their target, Interactions picklable,
``max_features`` checked, and the small ones (grammar, dtypes, repr, empty aggregates, heatmap labels)."""

import copy
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import interplay as ip  # noqa: E402
from interplay import plot  # noqa: E402


def _labels(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


def _colorbars(ax):
    return [other for other in ax.figure.axes if other is not ax]


# ---------------------------------------------------------------------------------------------- 1. groups
@pytest.fixture(scope="module")
def diabetes():
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    return X, LinearRegression().fit(X, y)


@pytest.fixture(scope="module")
def single_groups(diabetes):
    """One single-column group ("bmi"): it moves first, the other columns follow in input order."""
    X, model = diabetes
    return ip.Explainer(model, X[:20], groups={"bmi": ["bmi"]}).shapley(X.iloc[:6], method="exact")


@pytest.fixture(scope="module")
def blood_groups(diabetes):
    """s1..s6 grouped as "blood" (several columns), bmi alone as a group."""
    X, model = diabetes
    return ip.Explainer(model, X[:20], groups={"bmi": ["bmi"], "blood": ["s1", "s2", "s3", "s4", "s5", "s6"]}
                        ).shapley(X.iloc[:6], method="exact")


def test_single_column_groups_data_follows_the_features(diabetes, single_groups):
    X, _ = diabetes
    E = single_groups
    assert E.feature_names[:3] == ("bmi", "age", "sex")
    assert E._data_aligned and E.data.shape == (6, 10)
    for k, name in enumerate(E.feature_names):
        np.testing.assert_array_equal(E.data[:, k], X[name].to_numpy()[:6])
    np.testing.assert_array_equal(E.to_pandas(data=True)["bmi"].to_numpy(), X["bmi"].to_numpy()[:6])
    tidy = E.to_pandas(tidy=True)
    np.testing.assert_array_equal(tidy[tidy.feature == "bmi"]["data"].to_numpy(dtype=float), X["bmi"].to_numpy()[:6])
    np.testing.assert_array_equal(E[:, "bmi"].data[:, 0], X["bmi"].to_numpy()[:6])
    assert f"bmi = {X['bmi'].iloc[0]:.4g}" in _labels(plot.bar(E[0]))
    assert f"age = {X['age'].iloc[0]:.4g}" in _labels(plot.waterfall(E[0]))
    ax = plot.scatter(E, "bmi", color=None)
    np.testing.assert_array_equal(ax.collections[0].get_offsets()[:, 0], X["bmi"].to_numpy()[:6])


def test_a_group_of_several_columns_has_no_single_value(diabetes, blood_groups, tmp_path):
    X, _ = diabetes
    E = blood_groups
    assert E.feature_names == ("bmi", "blood", "age", "sex", "bp")
    assert E.info["groups"] == {"blood": ["s1", "s2", "s3", "s4", "s5", "s6"]}
    assert E.data.shape == (6, 5) and np.isnan(E.data[:, 1]).all()
    np.testing.assert_array_equal(E.data[:, [0, 2, 3, 4]], X[["bmi", "age", "sex", "bp"]].to_numpy()[:6])
    labels = _labels(plot.waterfall(E[0]))
    assert "blood" in labels and f"bmi = {X['bmi'].iloc[0]:.4g}" in labels  # the group: its name alone
    assert not any(label.startswith("blood =") for label in labels + _labels(plot.bar(E[0])))
    ax = plot.beeswarm(E)
    grey = ax.collections[_labels(ax).index("blood")].get_facecolors()
    assert np.allclose(grey[:, :3], [0.6, 0.63, 0.65])  # no value to colour by
    with pytest.raises(ValueError, match="'blood' is a group of several columns"):
        plot.scatter(E, "blood")
    with pytest.raises(ValueError, match="color: 'blood'"):
        plot.scatter(E, "bmi", color="blood")
    E.save(tmp_path / "g.json")
    assert ip.Explanation.load(tmp_path / "g.json").info["groups"] == E.info["groups"]


# ---------------------------------------------------------------------------------------------- 2. to_shap
def test_to_shap_of_a_grouped_explanation_lines_data_up_with_the_features(diabetes, blood_groups):
    shap = pytest.importorskip("shap")
    X, _ = diabetes
    se = blood_groups.to_shap()
    assert se.values.shape == se.data.shape == (6, 5)
    np.testing.assert_array_equal(se.data[:, 0], X["bmi"].to_numpy()[:6])
    assert np.isnan(se.data[:, 1]).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shap.plots.beeswarm(se, show=False)  # crashed: data had the 10 input columns
        plt.close("all")
        shap.plots.waterfall(se[0], show=False)
    assert blood_groups[0].to_shap().data.shape == (5,)
    misaligned = ip.Attribution([1.0, 2.0], 0.0, ["a", "b"], 4, "exact", data=[1.0, 2.0, 3.0])
    assert misaligned.to_shap().data is None  # input columns, not one value per feature
    raw = ip.Explanation(np.zeros((2, 2)), np.zeros(2), np.array([[1, None], [2, "x"]], dtype=object), ["a", "b"],
                         "exact", np.zeros(2))
    data = raw.to_shap().data
    assert np.isnan(data[0, 1]) and data[1, 1] == "x"  # a missing value reaches shap as NaN


# ---------------------------------------------------------------------------------------------- 3. units
@pytest.fixture(scope="module")
def adult_like():
    rng = np.random.default_rng(0)
    data = np.empty((30, 3), dtype=object)
    data[:, 0] = rng.integers(20, 60, 30)
    data[:, 1] = rng.choice(["Husband", "Wife", "Own-child"], 30)
    data[:, 2] = rng.normal(size=30)
    return ip.Explanation(rng.normal(size=(30, 3)), np.full(30, -2.0), data, ["age", "relationship", "x"], "tree",
                          np.zeros(30), info={"output": "log-odds", "target": ">50K", "targets": [">50K"] * 30})


def test_every_tabular_plot_names_the_unit_and_the_class(adult_like):
    unit = "log-odds of class '>50K'"
    assert unit in plot.bar(adult_like).get_xlabel()
    assert plot.bar(adult_like[0]).get_xlabel() == f"attribution ({unit})"
    assert unit in plot.bar(adult_like.global_importance()).get_xlabel()
    assert plot.waterfall(adult_like[0]).get_xlabel().startswith(f"{unit} (baseline -2 -> ")
    assert unit in plot.beeswarm(adult_like).get_xlabel()
    assert plot.scatter(adult_like, "age").get_ylabel() == f"attribution of age ({unit})"
    regression = ip.Explanation(np.ones((3, 2)), np.zeros(3), np.ones((3, 2)), ["a", "b"], "exact", np.zeros(3),
                                info={"output": "prediction", "target": 0})
    assert plot.bar(regression[0]).get_xlabel() == "attribution (prediction)"
    assert plot.waterfall(regression[0]).get_xlabel().startswith("prediction (baseline")
    unknown = ip.Attribution([1.0, -1.0], 0.0, ["a", "b"], 4, "exact")
    assert plot.waterfall(unknown).get_xlabel().startswith("output (baseline")
    assert plot.bar(unknown).get_xlabel() == "attribution"


def test_explainer_results_name_unit_and_class_on_plots():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    model = LogisticRegression().fit(X, np.where(X[:, 0] > 0, "yes", "no"))
    explainer = ip.Explainer(model, X[:10])
    E = explainer.shapley(X[:4], method="exact")
    assert plot.bar(E[0]).get_xlabel() == "attribution (probability of class 'yes')"
    sii = explainer.interactions(X[0], method="exact")
    assert "(probability of class 'yes')" in plot.bar(sii).get_xlabel()
    assert "(probability of class 'yes')" in _colorbars(plot.heatmap(sii))[0].get_ylabel().replace("\n", " ")  # wrapped


# ---------------------------------------------------------------------------------------------- 4. interactions bar
def test_interaction_bar_sums_the_rest_per_subset_size():
    w = np.random.default_rng(0).normal(size=6)
    game = ip.Game(lambda S: S @ w + 2.0 * S[:, 0] * S[:, 1] - 1.5 * S[:, 2] * S[:, 3], 6)
    sii = ip.interactions(game, index="sii", order=2, method="exact")
    ax = plot.bar(sii, max_features=5)
    labels = _labels(ax)
    names = sii.feature_names
    shown = {tuple(sorted(names.index(n) for n in label.split(" x "))) for label in labels if "other" not in label}
    assert len(shown) == 5
    singles = [k for k in sii.values if len(k) == 1 and k not in shown]
    pairs = [k for k in sii.values if len(k) == 2 and k not in shown]
    assert len(singles) + len(pairs) == 16
    single_label = f"{len(singles)} other feature{'s' if len(singles) != 1 else ''}"
    pair_label = f"{len(pairs)} other pairs"
    assert labels[:2] == [single_label, pair_label]  # one grey bar per subset size, at the bottom
    widths = dict(zip(labels, [p.get_width() for p in ax.patches]))
    assert widths[pair_label] == pytest.approx(sum(sii.values[k] for k in pairs))
    assert widths[single_label] == pytest.approx(sum(sii.values[k] for k in singles))


# ---------------------------------------------------------------------------------------------- 5. mixed classes
def test_plots_that_pool_rows_of_different_classes_say_so(adult_like):
    mixed = ip.Explanation(adult_like.values, adult_like.base_values, adult_like.data, adult_like.feature_names,
                           "tree", np.zeros(30), info={"output": "margin", "target": "predicted",
                                                       "targets": [0, 1, 2] * 10})
    for draw in (plot.bar, plot.beeswarm):
        with pytest.warns(UserWarning, match="different classes"):
            ax = draw(mixed)
        assert "predicted class" in ax.get_title() and "each row's predicted class" in ax.get_xlabel()
    with pytest.warns(UserWarning, match="different classes"):
        plot.scatter(mixed, "age")
    with pytest.warns(UserWarning, match="different classes"):
        plot.bar(mixed.global_importance())
    with pytest.warns(UserWarning, match="different classes"):
        assert plot.bar(mixed, title="mine").get_title() == "mine"  # a given title is kept
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot.bar(mixed[0])  # one row: one class
        assert "class 0" in plot.bar(mixed[0]).get_xlabel()
        plot.beeswarm(mixed[np.arange(30) % 3 == 1])  # rows of one class
        plot.beeswarm(adult_like)


# ---------------------------------------------------------------------------------------------- 6. categories
def test_beeswarm_says_categories_are_coloured_alphabetically(adult_like):
    assert "alphabetical" in _colorbars(plot.beeswarm(adult_like))[0].get_ylabel()
    numbers = ip.Explanation(np.ones((4, 2)), np.zeros(4), np.arange(8.0).reshape(4, 2), ["a", "b"], "exact",
                             np.zeros(4))
    assert _colorbars(plot.beeswarm(numbers))[0].get_ylabel() == "feature value"


# ---------------------------------------------------------------------------------------------- 7. modalities
def test_text_and_image_results_record_target_and_unit():
    from interplay.modalities import ImageExplainer, TextExplainer

    def positive(texts):  # a classifier: P(class "pos") grows with the count of "good"
        p = np.array([1 / (1 + np.exp(-t.split().count("good") + 0.5)) for t in texts])
        return np.column_stack([1 - p, p])

    text = TextExplainer(positive, classifier=True).shapley("good film good", method="exact")
    assert text.info["output"] == "probability" and text.info["target"] == 1  # the predicted class
    assert "probability of class 1" in plot.text(text).get_title()
    scores = TextExplainer(lambda texts: np.array([len(t) for t in texts], float)).bivariate("a bb ccc",
                                                                                             method="exact")
    assert scores.info["output"] == scores.univariate.info["output"] == "prediction"
    image = np.arange(16.0).reshape(4, 4) / 16

    def predict(batch):
        p = batch.reshape(len(batch), -1).mean(axis=1)
        return np.column_stack([1 - p, p])

    result = ImageExplainer(predict, classifier=True, segments="patches", patch_size=2, target=0).shapley(
        image, method="exact")
    assert result.info["output"] == "probability" and result.info["target"] == 0
    assert "probability of class 0" in plot.image(result).get_title()


# ---------------------------------------------------------------------------------------------- 8. pickling
def test_interactions_pickle_and_deepcopy():
    game = ip.Game(lambda S: S.sum(axis=1) + S[:, 0] * S[:, 1], 3)
    sii = ip.interactions(game, index="sii", method="exact")
    noisy = ip.Interactions({(0,): 1.0, (0, 1): 0.5}, "sii", 2, 0.0, ["a", "b"], 8, "kernel",
                            std_errors={(0,): 0.1, (0, 1): 0.2})
    for result in (sii, noisy):
        for again in (pickle.loads(pickle.dumps(result)), copy.deepcopy(result)):
            assert dict(again.values) == dict(result.values) and again.feature_names == result.feature_names
            assert again.info == result.info and again.order == result.order
            with pytest.raises(TypeError):
                again.values[(0,)] = 2.0  # still read-only
    again = copy.deepcopy(noisy)
    assert dict(again.std_errors) == {(0,): 0.1, (0, 1): 0.2}


# ---------------------------------------------------------------------------------------------- 9. max_features
@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_max_features_is_checked(adult_like, bad):
    for draw, result in ((plot.bar, adult_like[0]), (plot.waterfall, adult_like[0]), (plot.beeswarm, adult_like),
                         (plot.bar, adult_like)):
        with pytest.raises(ValueError, match="max_features: expected a positive integer or None"):
            draw(result, max_features=bad)
    assert len(plot.bar(adult_like[0], max_features=np.int64(1)).patches) == 2


# ---------------------------------------------------------------------------------------------- 11. heatmap
def test_heatmap_pairs_set_the_scale_and_labels_fit():
    sii = ip.Interactions({(0,): 0.92, (1,): 0.5, (2,): 0.01, (0, 1): 0.2, (0, 2): -0.0098, (1, 2): 0.00033},
                          "sii", 2, 0.0, ["a", "b", "c"], 8, "exact")
    ax = plot.heatmap(sii)
    assert ax.images[0].get_clim() == pytest.approx((-0.2, 0.2))  # the pairs, not the diagonal's 0.92
    assert "diagonal" in _colorbars(ax)[0].get_ylabel()
    texts = [t.get_text() for t in ax.texts]
    assert "-0.01" in texts and "0.92" in texts and max(len(t) for t in texts) <= 5
    assert plot.heatmap(np.eye(3)).images[0].get_clim() == (-1.0, 1.0)  # an array: unchanged


# ---------------------------------------------------------------------------------------------- 12. small ones
def test_one_other_feature_is_singular():
    ax = plot.bar(np.arange(1.0, 4.0), feature_names=["a", "b", "c"], max_features=2)
    assert _labels(ax)[0] == "1 other feature"
    assert _labels(plot.waterfall(np.arange(1.0, 4.0), feature_names=["a", "b", "c"], max_features=2))[0] == \
        "1 other feature"


def test_numeric_columns_stay_numeric_next_to_categories(adult_like):
    frame = adult_like.to_pandas(data=True)
    assert pd.api.types.is_numeric_dtype(frame["age"]) and pd.api.types.is_numeric_dtype(frame["x"])
    assert not pd.api.types.is_numeric_dtype(frame["relationship"])


def test_repr_says_how_many_features_are_left_out():
    rng = np.random.default_rng(0)
    names = [f"f{i}" for i in range(25)]
    E = ip.Explanation(rng.normal(size=(3, 25)), np.zeros(3), rng.normal(size=(3, 25)), names, "exact", np.zeros(3))
    assert "15 more" in repr(E) and "15 more" in repr(E[0]) and "15 more" in repr(E.global_importance())
    assert "more" not in repr(E[:, :10])


def test_empty_aggregate_raises_without_a_numpy_warning(adult_like):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="no row to aggregate"):
            adult_like[:0].global_importance()
        with pytest.raises(ValueError, match="no row to aggregate"):
            adult_like[:0].mean_attribution()


def test_graph_and_gamma_sweep_titles_say_what_the_values_are_in():
    """The graph's node values and gamma are in the explainer's unit (log-odds of a class), which only the other
    plots said."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    model = LogisticRegression().fit(X, X[:, 0] + X[:, 1] * X[:, 2] > 0)
    result = ip.Explainer(model, X[:10], output="log-odds").bivariate(X[:1], method="exact")
    assert plot.graph(result).get_title(loc="left").endswith("(log-odds of class True)")
    assert plot.gamma_sweep(result).get_title() == "redundancy threshold sweep (log-odds of class True)"
    assert plot.graph(result, title="mine").get_title(loc="left") == "mine"
    explainer = ip.Explainer(model, X[:10], output="log-odds")
    cohort = ip.mean_graph([explainer.bivariate(x[None, :], method="exact") for x in X[:3]])
    assert plot.graph(cohort).get_title(loc="left").endswith("(log-odds of class True)")  # a cohort's too
    plt.close("all")


def test_bivariate_repr_names_rows_and_columns():
    """The Bivariate matrix printed as an unlabelled array (a newcomer could not tell rows from columns); it now
    names both, says what row i / column j mean, shows round-off as 0 and counts the features left out."""
    game = ip.Game(lambda Z: (np.asarray(Z, float) * np.arange(12)).sum(axis=1), 12,
                   feature_names=[f"feature_{k}" for k in range(12)])
    text = repr(ip.bivariate(game, method="exact"))
    lines = text.splitlines()
    assert "row i, column j: the importance of j when i is present" in lines[0]
    assert lines[1].split() == [f"feature_{k}" for k in range(10)]
    assert lines[3].split()[:5] == ["feature_1", "0", "0", "1", "1.5"]  # round-off (-1.4e-14) as 0
    assert lines[-1].strip() == "... 2 more features (to_pandas() or .adjacency for all)"
    long = ip.Game(lambda Z: np.asarray(Z, float).sum(axis=1), 2, feature_names=["marital-status", "b"])
    assert "marital-s~" in repr(ip.bivariate(long, method="exact"))


def test_scatter_colour_bar_says_where_it_clips():
    """The colour feature's bar spans its 5th-95th percentiles: education-num's 1-16 read as 5-14 with nothing to
    say the ends were clipped. Now an arrow at a clipped end and a '<=' / '>=' in its label."""
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(0)
    X = np.c_[np.r_[np.full(10, 1.0), rng.uniform(5, 14, 180), np.full(10, 16.0)], rng.normal(size=200)]
    explainer = ip.Explainer(lambda Z: Z[:, 0] * Z[:, 1], X[:30], feature_names=["education-num", "age"])
    explanation = explainer.shapley(X[:200], progress=False)
    ax = ip.plot.scatter(explanation, "age", color="education-num")
    bar = ax.figure.axes[-1]
    labels = [t.get_text() for t in bar.get_yticklabels()]
    assert labels[0].startswith("<= ") and labels[1].startswith(">= ")
    assert float(labels[0][3:]) > 1 and float(labels[1][3:]) < 16
    assert len(bar.collections) + len(bar.patches) > 0 and ax.figure.colorbar  # drawn
    levels = np.c_[np.tile(np.arange(1.0, 17.0), 10), rng.normal(size=160)]  # each end 6% of the rows: no clip
    whole = explainer.shapley(levels, progress=False)
    inside = ip.plot.scatter(whole, "age", color="education-num").figure.axes[-1]
    assert [t.get_text() for t in inside.get_yticklabels()] == ["1", "16"]


def test_waterfall_labels_stay_readable_over_the_baseline_and_prediction_lines():
    """A step's label at the bar's end on the prediction line (Adult's hours-per-week, -0.198) was crossed by it:
    the labels now sit on a white box above the lines."""
    pytest.importorskip("matplotlib")
    weights = np.array([-0.198, -0.0752, 0.0667, 0.0599, -0.0314])
    game = ip.Game(lambda Z: 0.26 + np.asarray(Z, float) @ weights, 5)
    ax = ip.plot.waterfall(ip.shapley(game, method="exact"))
    lines = [line for line in ax.get_lines() if len(set(line.get_xdata())) == 1 and line.get_linewidth() == 0.8]
    assert len(lines) == 2  # the baseline and the prediction
    labels = [t for t in ax.texts if t.get_text().strip().startswith(("+", "-"))]
    assert len(labels) == 5
    for text in labels:
        patch = text.get_bbox_patch()
        assert patch is not None and patch.get_facecolor()[:3] == (1.0, 1.0, 1.0)
        assert text.get_zorder() > max(line.get_zorder() for line in lines)


def test_interaction_plots_name_the_index_as_the_text_does():
    """The heatmap's colour bar read "sii interaction (...)" and the graph's title "sii interaction graph"; the
    paragraph says "SII" (and "Shapley-Taylor" for stii)."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    game = ip.Game(lambda Z: np.asarray(Z, float).sum(axis=1) + Z[:, 0] * Z[:, 1] - Z[:, 2] * Z[:, 3], 4)
    for index, name in (("sii", "SII"), ("stii", "Shapley-Taylor")):
        pairs = ip.interactions(game, index=index, method="exact")
        bar = ip.plot.heatmap(pairs).figure.axes[-1]
        assert bar.get_ylabel().startswith(f"{name} interaction")
        ax = ip.plot.graph(pairs.graph())
        titles = [a.get_title(loc) for a in ax.figure.axes for loc in ("left", "center")]
        assert any(t.startswith(f"{name} interaction graph") for t in titles), titles
        assert ip.plot.bar(pairs).get_xlabel().startswith(f"{name} interaction")
        plt.close("all")


def test_image_is_faded_under_its_tint_and_opacities_are_checked():
    """Over the digits' black pixels a strong red tint read as maroon, a colour the bar does not have: the image
    is now drawn faded (image_alpha, over white) under the tint; both opacities are checked by name."""
    pytest.importorskip("matplotlib")
    image = np.zeros((4, 4))
    segments = np.repeat(np.repeat(np.arange(4).reshape(2, 2), 2, axis=0), 2, axis=1)
    ax = ip.plot.image(image, segments, np.array([0.3, -0.1, 0.0, 0.05]))
    drawn, tint = ax.get_images()
    assert drawn.get_alpha() == pytest.approx(0.45) and tint.get_alpha() is None
    assert ip.plot.image(image, segments, np.ones(4), image_alpha=1).get_images()[0].get_alpha() == 1
    for bad in (1.5, -0.1, "0.5", True):
        with pytest.raises(ValueError, match="image_alpha: expected an opacity between 0 and 1"):
            ip.plot.image(image, segments, np.ones(4), image_alpha=bad)
    with pytest.raises(ValueError, match="alpha: expected an opacity between 0 and 1, got 2"):
        ip.plot.image(image, segments, np.ones(4), alpha=2)


def test_text_colour_bar_is_half_the_width_whatever_the_lines():
    """One line of tokens drew its colour bar a third as long as several lines' (a fraction of a 1.25-inch
    figure): the bar is now half the text's width, 0.12 inch thick, below the last line."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    widths = []
    for tokens in (["it", "is", "not", "a", "bad", "movie"], ["word"] * 60):
        ax = ip.plot.text(tokens, np.sin(np.arange(len(tokens))))
        ax.figure.canvas.draw()
        (cax,) = ax.child_axes
        bar = cax.get_window_extent()
        lowest = min(t.get_window_extent().y0 for t in ax.texts if t.get_text() in tokens)
        assert bar.y1 < lowest and bar.height == pytest.approx(0.12 * ax.figure.dpi, rel=0.05)
        assert bar.y0 > 0  # inside the figure, its label too
        assert cax.xaxis.label.get_window_extent().y0 >= 0
        widths.append(bar.width / ax.get_window_extent().width)
        plt.close("all")
    assert widths[0] == pytest.approx(0.5) and widths[1] == pytest.approx(0.5)
