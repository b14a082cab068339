"""Interoperability review: what users of shap, shapiq and captum bring to interplay, and what they take away."""

import numpy as np
import pytest

import interplay as ip


# ---------------------------------------------------------------------------------------------- captum users: tensors
def test_a_baseline_tensor_that_requires_grad_is_taken_as_its_values():
    """A captum user's baseline is a tensor, often one requiring grad; Explainer raised torch's "Can't call
    numpy() on Tensor that requires grad" (rows and background were detached, the baseline not)."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1)).eval()
    x = torch.randn(2, 4, requires_grad=True)
    base = torch.full((4,), 0.5, requires_grad=True)
    got = ip.Explainer(net, removal="baseline", baseline=base).shapley(x, method="exact")
    want = ip.Explainer(net, removal="baseline", baseline=np.full(4, 0.5)).shapley(x.detach().numpy(),
                                                                                    method="exact")
    np.testing.assert_allclose(got.values, want.values, rtol=1e-12)
    np.testing.assert_allclose(got.base_values, want.base_values, rtol=1e-12)
    assert isinstance(got.values, np.ndarray) and base.requires_grad  # numpy back; the caller's tensor untouched


def _channel_model(batch):
    """(N, C, H, W) -> a score that weighs the channels and the pixels differently (so a transposed baseline
    gives other values)."""
    batch = np.asarray(batch, dtype=float)
    weights = np.arange(1, batch.shape[1] + 1)[None, :, None, None]
    rows = np.arange(batch.shape[2])[None, None, :, None]
    return (batch * weights * (1 + rows)).sum(axis=(1, 2, 3))


@pytest.mark.parametrize("layout", ["image", "per-channel"])
def test_channels_first_takes_its_baseline_in_the_images_layout(layout):
    """With channels_first=True the image is (C, H, W), and so is a captum user's baseline (or (C, 1, 1) per
    channel); it was refused: "expected ... the image's shape (8, 8, 3)", a shape the user never passed."""
    from interplay.modalities import ImageExplainer

    rng = np.random.default_rng(0)
    image = rng.random((3, 8, 8))  # (C, H, W)
    base = rng.random((3, 8, 8)) if layout == "image" else np.array([0.2, 0.5, 0.7])[:, None, None]
    options = dict(segments="patches", patch_size=4, output="prediction")
    got = ImageExplainer(_channel_model, channels_first=True, baseline=base, **options).shapley(image,
                                                                                                method="exact")
    last = ImageExplainer(lambda b: _channel_model(np.moveaxis(b, -1, 1)), baseline=np.moveaxis(base, 0, -1),
                          **options).shapley(np.moveaxis(image, 0, -1), method="exact")
    np.testing.assert_allclose(got.values, last.values, rtol=1e-12)
    assert got.baseline == pytest.approx(last.baseline, rel=1e-12)
    assert got.baseline == pytest.approx(float(_channel_model(np.broadcast_to(base, image.shape)[None])[0]))


def test_channels_first_baseline_tensor_that_requires_grad():
    torch = pytest.importorskip("torch")
    from interplay.modalities import ImageExplainer

    image = torch.rand(3, 8, 8, generator=torch.Generator().manual_seed(0))
    base = torch.full((3, 8, 8), 0.25, requires_grad=True)
    got = ImageExplainer(_channel_model, channels_first=True, baseline=base, segments="patches", patch_size=4,
                         output="prediction").shapley(image, method="exact")
    assert got.baseline == pytest.approx(float(_channel_model(np.full((1, 3, 8, 8), 0.25))[0]))


# ---------------------------------------------------------------------------------------------- shap: text results
def _count_model(texts):
    return np.array([t.count("good") - t.count("bad") for t in texts], dtype=float)


def test_to_shap_of_a_text_result_keeps_the_texts_spacing_for_shaps_text_plot():
    """shap.plots.text joins the tokens of its Explanation; shap's own text explanations carry each token's
    following spaces. to_shap gave the bare tokens, so the plot ran the words together ("notabadmovie,good")."""
    shap = pytest.importorskip("shap")
    from interplay.modalities import TextExplainer

    text = "  not a bad\nmovie,  good "
    result = TextExplainer(_count_model, output="prediction").shapley(text, method="exact")
    converted = result.to_shap()
    assert "".join(converted.data) == text  # the text as given, its spaces and line break included
    assert [t.strip() for t in converted.data] == result.info["tokens"]
    np.testing.assert_array_equal(converted.values, result.values)
    shown = shap.plots.text(converted, display=False)
    assert "bad" in shown and "badmovie" not in shown.replace("\n", "")


def test_to_shap_of_a_text_bivariate_result_carries_its_tokens():
    """A text result's Bivariate Shapley keeps its tokens in its own info, not its univariate's: to_shap() gave
    data None, and shap.plots.text raised."""
    shap = pytest.importorskip("shap")
    from interplay.modalities import TextExplainer

    result = TextExplainer(_count_model, output="prediction").bivariate("not a bad movie , good", method="exact")
    converted = result.to_shap()
    assert list(converted.data) == ["not ", "a ", "bad ", "movie ", ", ", "good"]
    np.testing.assert_array_equal(converted.values, result.univariate.values)
    assert "movie" in shap.plots.text(converted, display=False)


def test_to_shap_of_tokens_given_as_a_list_joins_them_with_the_separator():
    pytest.importorskip("shap")
    from interplay.modalities import TextExplainer

    result = TextExplainer(_count_model, output="prediction", separator="_").shapley(["good", "bad", "film"],
                                                                                    method="exact")
    assert list(result.to_shap().data) == ["good_", "bad_", "film"]


# ---------------------------------------------------------------------------------- shap: Bivariate's univariate
@pytest.mark.parametrize("groups", [None, {"ab": ["a", "b"]}])
def test_an_explainers_bivariate_result_carries_the_rows_values(groups):
    """explainer.bivariate(x).univariate had no data, so its to_shap() (shap's waterfall) and ip.plot.waterfall
    showed no feature values, where shapley(x)[0] has them."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 4)), columns=["a", "b", "c", "d"])
    explainer = ip.Explainer(lambda rows: np.asarray(rows, float) @ np.arange(1.0, 5.0), X[:10], groups=groups)
    biv = explainer.bivariate(X.iloc[[12]], method="exact")
    row = explainer.shapley(X.iloc[[12]], method="exact")[0]
    np.testing.assert_array_equal(biv.univariate.data, row.data)
    assert not np.isnan(biv.univariate.data[-1]) and biv.univariate.data[-1] == X.iloc[12]["d"]
    np.testing.assert_allclose(biv.univariate.values, row.values, atol=1e-12)
    if pytest.importorskip("shap"):
        np.testing.assert_array_equal(biv.to_shap().data, row.to_shap().data)


def test_from_shap_brings_shaps_explanations_in():
    """A shap user's own shap.Explanation into interplay (plots, metrics, tables): one row an Attribution, many
    rows an Explanation, (rows, features, outputs) a dict by output; to_shap gives the same values back."""
    shap = pytest.importorskip("shap")
    rng = np.random.default_rng(0)
    values, data = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    theirs = shap.Explanation(values=values, base_values=np.full(4, 0.5), data=data, feature_names=["a", "b", "c"])
    mine = ip.from_shap(theirs)
    assert isinstance(mine, ip.Explanation) and mine.feature_names == ("a", "b", "c") and mine.method == "shap"
    np.testing.assert_array_equal(mine.values, values)
    np.testing.assert_array_equal(mine.data, data)
    np.testing.assert_array_equal(mine.base_values, np.full(4, 0.5))
    np.testing.assert_array_equal(ip.io.to_shap(mine).values, values)
    row = ip.from_shap(theirs[1])
    assert isinstance(row, ip.Attribution) and row.baseline == 0.5 and row["b"] == values[1, 1]
    multi = ip.from_shap(shap.Explanation(values=rng.standard_normal((4, 3, 2)), base_values=np.zeros((4, 2)),
                                          output_names=["no", "yes"]))
    assert list(multi) == ["no", "yes"] and multi["yes"].feature_names == ("x0", "x1", "x2")
    assert multi["yes"].info["target"] == "yes"
    with pytest.raises(TypeError, match="explanation: expected a shap.Explanation"):
        ip.from_shap(values)
