"""Regression tests for what newcomers ran into (feature names, targets, metrics on raw rows, budgets, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import interplay as ip

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def frame_model():
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(200, 3)), columns=list("abc"))
    model = RandomForestClassifier(n_estimators=5, random_state=0).fit(frame, (frame["a"] > 0).astype(int))
    return frame, model


def test_feature_names_rename_the_results_not_the_columns_a_dataframe_is_matched_by(frame_model):
    """feature_names= are display names (as in shap): a DataFrame with the data's own columns is still matched
    (it was refused), a permuted one reordered, and the results carry the new names."""
    frame, model = frame_model
    explainer = ip.Explainer(model, frame.iloc[:20], feature_names=["A", "B", "C"])
    result = explainer.shapley(frame.iloc[:2])
    assert tuple(result.feature_names) == ("A", "B", "C")
    permuted = explainer.shapley(frame.iloc[:2][["c", "a", "b"]])
    np.testing.assert_allclose(permuted.values, result.values)
    with pytest.raises(ValueError, match="columns"):
        explainer.shapley(frame.iloc[:2].rename(columns={"a": "z"}))


def test_a_target_the_model_lacks_is_refused_when_the_explainer_is_built(frame_model):
    """target='>50K' on a 0/1 model: refused at construction (it failed only at the first explanation), with
    the labels printed as plain values ([0, 1], not [np.int64(0), ...])."""
    frame, model = frame_model
    with pytest.raises(ValueError, match=r"target: expected a class label or output index in \[0, 1\], got '>50K'"):
        ip.Explainer(model, frame.iloc[:20], target=">50K")
    with pytest.raises(ValueError, match="got 7"):
        ip.Explainer(model, frame.iloc[:20], target=[1, 7])
    assert ip.Explainer(model, frame.iloc[:20], target=0).target == 0


def test_prediction_game_takes_raw_categorical_rows():
    """metrics.prediction_game read the row as floats, so a DataFrame row with a category crashed; it reads it
    as the Explainer does, and with nothing masked the prediction is kept."""
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    from interplay.metrics.posthoc import posthoc_accuracy, prediction_game

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"job": rng.choice(["admin.", "services", "retired"], 300), "age": rng.normal(40, 9, 300)})
    y = ((frame["job"] == "retired") | (frame["age"] > 45)).astype(int)
    encode = ColumnTransformer([("job", OneHotEncoder(), ["job"])], remainder="passthrough")
    model = make_pipeline(encode, LogisticRegression()).fit(frame, y)
    explainer = ip.Explainer(model, frame.iloc[:20])
    game = prediction_game(explainer, frame.iloc[[0]])
    assert posthoc_accuracy([game], [np.ones((1, 2), dtype=bool)])[0] == 1.0


def test_auto_estimates_third_order_sii_by_the_sparse_fourier_fit():
    """Order-3 SII under auto was permutation sampling, mostly noise at the default budget (relative error 0.8
    on this sparse game, a third of the triples exactly 0); the sparse Fourier fit is about 10x closer."""
    pytest.importorskip("xgboost")
    import warnings

    from interplay.synthetic import UnanimitySum

    soum = UnanimitySum.random(16, n_terms=40, max_size=4, random_state=1)
    exact = ip.interactions(soum.game(), index="sii", order=3, method="exact")
    triples = [k for k in exact.values if len(k) == 3]
    truth = np.array([exact[k] for k in triples])
    errors = {}
    for method in ("auto", "permutation"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = ip.interactions(soum.game(), index="sii", order=3, method=method, budget=2080, random_state=0)
        errors[result.method] = np.sqrt(np.mean((np.array([result[k] for k in triples]) - truth) ** 2))
    assert set(errors) == {"spectral", "permutation"}
    assert errors["spectral"] < 0.3 * errors["permutation"], errors


def test_a_default_budget_raised_to_a_methods_minimum_says_so():
    """Shapley-Taylor of order 3 by permutation needs 6,891 evaluations for 16 players, more than the default:
    without a budget they are used with a warning (it exceeded the default silently); a smaller budget given
    explicitly is refused."""
    w = np.random.default_rng(0).normal(size=16)
    game = ip.Game(lambda Z: np.tanh(np.asarray(Z, float) @ w), 16)
    with pytest.warns(UserWarning, match="needs at least 6891 evaluations for 16 players, more than the default"):
        result = ip.interactions(game, index="stii", order=3, random_state=0)
    assert result.n_evaluations == 6891
    with pytest.raises(ValueError, match="needs at least 6891"):
        ip.interactions(ip.Game(game._value_fn, 16), index="stii", order=3, budget=2080)


def test_interaction_errors_name_what_the_user_chose():
    """A misspelt index is refused as such whatever the number of players (auto said no sampler estimates
    'sti', as if it were an index); a budget too small for the method auto chose says auto chose it."""
    game = ip.Game(lambda Z: Z.sum(axis=1).astype(float), 16)
    with pytest.raises(ValueError, match=r"index: expected one of \[.*'stii'.*\], got 'sti'"):
        ip.interactions(game, index="sti")
    with pytest.raises(ValueError, match="budget: method='auto' chose '[a-z_]+' here, and method="):
        ip.interactions(game, index="sii", budget=5)


def test_third_order_results_keep_their_triples():
    """top(size=4) of an order-3 result was silently empty and to_pandas() dropped the triples; the CLI's
    --index takes every index the library computes."""
    from interplay.cli import INDICES
    from interplay.synthetic import UnanimitySum

    result = ip.interactions(UnanimitySum.random(6, n_terms=8, max_size=3, random_state=0).game(), index="sii",
                             order=3, method="exact")
    with pytest.raises(ValueError, match="size: this result holds subsets of 1 to 3 features, got size=4"):
        result.top(3, size=4)
    table = result.to_pandas()
    assert sorted(set(table["order"])) == [1, 2, 3] and len(table) == 6 + 15 + 20
    with pytest.warns(UserWarning, match="20 subsets of 3 features"):  # the wide matrix drops the triples
        assert result.to_pandas(tidy=False).shape == (6, 6)
    assert {"fsii", "fbii", "ksii"} <= set(INDICES)


def test_a_report_pairs_each_rows_results(frame_model):
    """Single-row results carry their pandas row label (info['row']), so a report pairs bivariate(X.iloc[[1]])
    with row 1 of shapley(X); results that do not say their row fill rows in order (the second used to replace
    the first, under the first row's attributions: a silently mislabelled graph)."""
    from dataclasses import replace

    from interplay.report import _collect

    frame, model = frame_model
    explainer = ip.Explainer(model, frame.iloc[:20])
    rows = frame.iloc[:2]
    expl = explainer.shapley(rows)
    graphs = [explainer.bivariate(rows.iloc[[k]]) for k in (1, 0)]  # out of order on purpose
    assert [g.info["row"] for g in graphs] == [1, 0]
    assert explainer.interactions(rows.iloc[1]).info["row"] == 1  # a Series row: its name
    _, collected, _, _ = _collect([expl, *graphs])
    for k in (0, 1):
        entry = collected[(k, tuple(expl.feature_names))]
        np.testing.assert_allclose(entry["bivariate"].univariate.values, expl.values[k], atol=1e-12)
    unlabelled = [replace(g, info={key: v for key, v in g.info.items() if key != "row"}) for g in graphs[::-1]]
    _, collected, _, _ = _collect([expl, *unlabelled])
    for k in (0, 1):
        entry = collected[(k, tuple(expl.feature_names))]
        np.testing.assert_allclose(entry["bivariate"].univariate.values, expl.values[k], atol=1e-12)


def test_text_and_image_inputs_that_cannot_be_right_are_named():
    """TextExplainer.shapley(None) raised "'NoneType' object is not iterable"; a one-pixel-high image (a
    flattened digit) was explained as strips without a word."""
    from interplay.modalities.image import image_game
    from interplay.modalities.text import TextExplainer

    def model(texts):
        return np.array([[float(len(t))] for t in texts])

    with pytest.raises(TypeError, match="text: expected a string or a list of tokens, got NoneType"):
        TextExplainer(model).shapley(None)

    def brightness(images):
        return np.asarray(images).reshape(len(images), -1).mean(axis=1)

    with pytest.warns(UserWarning, match=r"image: shape \(1, 64\) is one pixel high or wide"):
        image_game(brightness, np.ones((1, 64)), segments="patches", patch_size=2)


def test_the_text_plot_has_a_scale_and_says_what_it_shows():
    """ip.plot.text had no colour scale and no title: the colours could not be read as numbers, nor the method
    (C-Shapley's totals need not add up) told apart."""
    import matplotlib

    matplotlib.use("Agg")
    from interplay.modalities.text import TextExplainer

    def model(texts):
        return np.array([[sum({"bad": -1.0, "good": 1.0}.get(w, 0.0) for w in t.split())] for t in texts])

    result = TextExplainer(model).shapley("a good and a bad day", method="c-shapley", k=1)
    ax = ip.plot.text(result)
    assert len(ax.child_axes) == 1  # the colour bar, placed under the tokens' last line
    assert "red raises the output" in ax.child_axes[0].get_xlabel()
    assert ax.get_title().startswith("c-shapley: attributions") and "sum" in ax.get_title()


def test_torch_modules_that_would_mislead_are_named():
    """Found by a newcomer test with PyTorch: logits declared as a classifier's probabilities were explained as
    'probabilities' summing to 6.9 (now refused); a module in training mode with dropout gave other values on
    every call (now a warning); a ReLU network's Hessian is 0, so SHEAR's cooperators were chosen by ties (now a
    warning)."""
    torch = pytest.importorskip("torch")
    import warnings

    from torch import nn

    from interplay.models.torch import TorchModel

    torch.manual_seed(0)
    X = np.random.default_rng(0).normal(size=(40, 4)).astype(np.float32)
    logits = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3)).eval()
    with pytest.raises(ValueError, match="declared a classifier, but its outputs on the background are not class"):
        ip.Explainer(TorchModel(logits, classifier=True), X[:10])
    softmax = ip.Explainer(TorchModel(nn.Sequential(logits, nn.Softmax(dim=1)), classifier=True), X[:10], target=1)
    result = softmax.shapley(X[:1], method="exact")
    assert result.info["output"] == "probability" and 0 <= result.values.sum() + result.base_values[0] <= 1
    dropout = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 1)).train()
    with pytest.warns(UserWarning, match="training mode and has dropout or batch norm"):
        ip.Explainer(dropout, X[:10])
    relu = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1)).eval()
    with pytest.warns(UserWarning, match="second derivatives between features are all 0"):
        ip.Explainer(relu, X[:10]).cross_contribution(X[0])
    with warnings.catch_warnings():  # a smooth network: no warning
        warnings.simplefilter("error")
        ip.Explainer(nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)).eval(), X[:10]).cross_contribution(X[0])


def test_a_sigmoid_torch_classifier_is_binary_with_the_positive_class_as_target():
    """A one-output sigmoid module declared a classifier explained P(positive) but reported target 0 and refused
    target=1; its output is now the two columns [1 - p, p]: target 1 (default) is p, target 0 is 1 - p, in
    probability and log-odds, and its Hessian for SHEAR reads the same column."""
    torch = pytest.importorskip("torch")
    from torch import nn

    from interplay.models.torch import TorchModel

    torch.manual_seed(0)
    X = np.random.default_rng(0).normal(size=(40, 4)).astype(np.float32)
    net = nn.Sequential(nn.Linear(4, 6), nn.Tanh(), nn.Linear(6, 1), nn.Sigmoid()).eval()
    p = net(torch.as_tensor(X[:2])).detach().numpy().ravel().astype(float)
    for output, expected in (("probability", p), ("log-odds", np.log(p / (1 - p)))):
        explainer = ip.Explainer(TorchModel(net, classifier=True), X[:10], output=output)
        result = explainer.shapley(X[:2], method="exact")
        assert explainer.target == 1 and result.info["target"] == 1
        np.testing.assert_allclose(result.values.sum(axis=1) + result.base_values, expected, atol=1e-6)
    negative = ip.Explainer(TorchModel(net, classifier=True), X[:10], target=0).shapley(X[:2], method="exact")
    np.testing.assert_allclose(negative.values.sum(axis=1) + negative.base_values, 1 - p, atol=1e-6)
    assert ip.Explainer(TorchModel(net, classifier=True), X[:10]).cross_contribution(X[0]).max() > 0


def test_image_regions_are_named_by_where_they_are():
    """Image players were named region0, region1, ...: nothing said where a region is without the plot; they
    carry the (row, column) of their centre now."""
    from interplay.modalities.image import image_game

    def brightness(images):
        return np.asarray(images).reshape(len(images), -1).mean(axis=1)

    game = image_game(brightness, np.arange(64.0).reshape(8, 8), segments="patches", patch_size=4)
    assert list(game.feature_names) == ["region0 (1.5, 1.5)", "region1 (1.5, 5.5)", "region2 (5.5, 1.5)",
                                       "region3 (5.5, 5.5)"]


def test_interaction_samplers_enumerate_when_the_default_budget_covers_every_coalition():
    """budget=None means the default budget (2048 + 2n): an interaction sampler then enumerates, as with an explicit
    budget >= 2**n (it sampled, with error 0.44 on 7 players, and gave 0 for the one player of a 1-player game)."""
    rng = np.random.default_rng(0)
    table = rng.normal(size=2**7)
    def fn(Z):
        return table[(np.asarray(Z, int) << np.arange(7)).sum(1)]

    for index, method in [("sii", "permutation"), ("stii", "permutation"), ("bii", "msr")]:
        result = ip.interactions(ip.Game(fn, 7), index=index, method=method)
        truth = ip.interactions(ip.Game(fn, 7), index=index, method="exact")
        assert result.info["enumerated"] and result.method == method
        assert max(abs(result.values[k] - truth.values[k]) for k in truth.values) < 1e-12
    one = ip.interactions(ip.Game(lambda Z: 1.5 * Z[:, 0], 1), index="sii", order=1, method="permutation")
    assert one.values[(0,)] == pytest.approx(1.5)


def test_an_integer_target_is_reported_as_the_class_it_explains():
    """target=2 of classes [5, 6, 7] explains class 7: results say 7 (they said 2, the index that chose it)."""
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=2000).fit(X, np.array([5, 6, 7])[y])
    for target, label in [(2, 7), (0, 5), (6, 6), ([0, 7], [5, 7])]:
        result = ip.Explainer(model, X[::10], target=target, removal="baseline").shapley(X[60:61], method="exact")
        if isinstance(label, list):
            assert list(result) == label
            result = result[label[1]]
            label = label[1]
        assert result.info["target"] == label
        column = [5, 6, 7].index(label)
        explained = result.base_values[0] + result.values.sum()
        assert explained == pytest.approx(model.predict_proba(X[60:61])[0, column], abs=1e-12)


def test_shapley_excess_on_a_one_player_game_says_why():
    game = ip.Game(lambda Z: Z[:, 0] * 1.0, 1)
    for order in (1, 2):
        with pytest.raises(ValueError, match="defined for pairs of players; the game has 1 player"):
            ip.interactions(game, index="excess", order=order, method="exact")


def test_conditional_removal_warns_when_the_explained_row_is_its_own_neighbour():
    """With few neighbours, a row of the background is its own nearest neighbour: a continuous feature alone picks
    it out and looks like the driver that makes every other feature redundant. Warned (not for held-out rows, the
    default neighbourhood, or discrete data whose ties keep many neighbours)."""
    import warnings

    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    X[:, 1] = X[:, 0]
    discrete = rng.integers(0, 3, size=(400, 3)).astype(float)

    def f(Z):
        return Z[:, 0] + Z[:, 2] ** 2

    with pytest.warns(UserWarning, match="the explained row is also a row of the background"):
        ip.Explainer(f, X, removal="conditional", n_neighbors=1).shapley(X[5], method="exact")
    for data, k, x in [(X, 1, X[5] + 0.01), (X, None, X[5]), (discrete, 1, discrete[5])]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ip.Explainer(f, data, removal="conditional", n_neighbors=k).shapley(x, method="exact")


def test_available_methods_names_the_kinds():
    with pytest.raises(ValueError, match=r"kind: expected one of \['banzhaf', 'bivariate', 'interactions', "
                                         r"'shapley'\], got 'sii'"):
        ip.available_methods("sii")
