"""Regressions from a modalities QA pass (text and image explainers, the image plot): logits declared as
probabilities refused, a binary classifier's default target is its positive class, images of any range
visible, the regex tokenizer rebuilds the input text (v(N) = f(text)), and input errors that name their
parameter."""

import warnings

import numpy as np
import pytest

import interplay as ip
from interplay.modalities import (
    ImageExplainer,
    TextExplainer,
    image_game,
    text_game,
    tokenize,
)


# ------------------------------------------------------------------------------------------------ helpers
def _softmax(z):
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _image_logits(batch):
    """A 10-class 'network' on 4x4 images returning logits (not probabilities)."""
    flat = np.asarray(batch, dtype=float).reshape(len(batch), -1)
    weights = np.linspace(-1, 1, flat.shape[1] * 10).reshape(flat.shape[1], 10)
    return flat @ weights + np.arange(10)


def _text_logits(texts):
    """Two 'logits' per text: counts of letters and of words."""
    return np.array([[len(t), len(t.split()) + 3.0] for t in texts])


@pytest.fixture(scope="module")
def sentiment():
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    X = ["great film", "bad film", "great acting", "bad acting", "lovely plot", "awful plot"] * 2
    y = ["pos", "neg", "pos", "neg", "pos", "neg"] * 2
    return make_pipeline(TfidfVectorizer(), LogisticRegression(C=10)).fit(X, y)


# --------------------------------------------------------------------------- 1. logits declared classifier
def test_image_logits_declared_classifier_are_refused():
    image = np.linspace(0, 1, 16).reshape(4, 4)
    for output in ("auto", "log-odds"):
        with pytest.raises(ValueError, match=r"model: declared a classifier, but its outputs on the image .*"
                                             r"not class probabilities \(outside \[0, 1\].*classifier=False"):
            ImageExplainer(_image_logits, classifier=True, output=output, segments="patches",
                           patch_size=2).shapley(image)
    # the same network ending in a softmax is explained, and its values add up to the probability difference
    phi = ImageExplainer(lambda b: _softmax(_image_logits(b)), classifier=True, segments="patches",
                         patch_size=2).shapley(image)
    assert phi.info["output"] == "probability" and abs(phi.values.sum()) <= 1
    # as a regressor the logits are explained as they are
    raw = ImageExplainer(_image_logits, segments="patches", patch_size=2, target=3).shapley(image)
    assert raw.info["output"] == "prediction"


def test_text_logits_declared_classifier_are_refused():
    with pytest.raises(ValueError, match=r"model: declared a classifier, but its outputs on the text .*outside"):
        TextExplainer(_text_logits, classifier=True).shapley("not a bad film")

    def unnormalised(texts):  # in [0, 1] but rows do not sum to 1
        return np.array([[0.5, 0.9] for _ in texts])

    with pytest.raises(ValueError, match="rows do not sum to 1"):
        text_game(unnormalised, "a b", classifier=True)
    # one probability column (a sigmoid) is fine: it is P(class 1), the positive class explained by default
    # (it was reported as class 0), and target=0 explains 1 - p
    sigmoid = lambda t: np.array([0.2 + 0.1 * len(s.split()) for s in t])  # noqa: E731
    game = text_game(sigmoid, "a b c", classifier=True)
    assert game.explained == {"output": "probability", "target": 1}
    np.testing.assert_allclose(game(np.array([[1, 1, 1], [1, 0, 0]], dtype=bool)), [0.5, 0.3])
    negative = text_game(sigmoid, "a b c", classifier=True, target=0)
    np.testing.assert_allclose(negative(np.array([[1, 1, 1], [1, 0, 0]], dtype=bool)), [0.5, 0.7])
    with pytest.raises(ValueError, match=r"outside \[0, 1\], e\.g\. \[1\.5\]\)"):  # the model's own output
        text_game(lambda t: np.array([1.5 for _ in t]), "a b", classifier=True)


def test_torch_logit_image_network_is_refused():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(16, 10)).eval()
    image = np.linspace(0, 1, 16).reshape(4, 4)
    with pytest.raises(ValueError, match="declared a classifier, but its outputs"):
        ImageExplainer(net, classifier=True, segments="patches", patch_size=2).shapley(image)
    soft = torch.nn.Sequential(net, torch.nn.Softmax(dim=1)).eval()
    phi = ImageExplainer(soft, classifier=True, segments="patches", patch_size=2).shapley(image)
    assert phi.info["output"] == "probability"


# ------------------------------------------------------------------------------- 4. default target
def test_binary_text_classifier_explains_its_positive_class_for_every_text(sentiment):
    explainer = TextExplainer(sentiment)
    assert list(sentiment.predict(["awful plot", "great plot"])) == ["neg", "pos"]
    negative = explainer.shapley("awful plot")
    positive = explainer.shapley("great plot")
    assert negative.info["target"] == positive.info["target"] == "pos"  # not each text's predicted class
    assert negative["0:awful"] < 0 < positive["0:great"]  # red raises P(pos) in every text
    # "predicted" keeps the old behaviour: each text's predicted class
    predicted = TextExplainer(sentiment, target="predicted").shapley("awful plot")
    assert predicted.info["target"] == "neg" and predicted["0:awful"] > 0
    np.testing.assert_allclose(predicted.values, -negative.values, atol=1e-12)


def test_binary_image_classifier_default_is_positive_multiclass_is_predicted():
    image = np.linspace(0, 1, 16).reshape(4, 4)

    def binary(batch):  # P(class 1) low on this image: predicted class 0
        p = 0.2 * np.asarray(batch, dtype=float).reshape(len(batch), -1).mean(axis=1)
        return np.stack([1 - p, p], axis=1)

    game = image_game(binary, image, segments="patches", patch_size=2, classifier=True)
    assert game.explained["target"] == 1
    assert image_game(binary, image, segments="patches", patch_size=2, classifier=True,
                      target="predicted").explained["target"] == 0
    multi = image_game(lambda b: _softmax(_image_logits(b)), image, segments="patches", patch_size=2,
                       classifier=True)
    assert multi.explained["target"] == int(np.argmax(_image_logits(image[None])[0]))
    with pytest.raises(ValueError, match="target: 'predicted' explains the predicted class of a classifier"):
        image_game(lambda b: np.asarray(b).reshape(len(b), -1).sum(axis=1), image, segments="patches",
                   target="predicted")


# ------------------------------------------------------------------------------- 5. image plot ranges
def _red_square():
    base = np.full((8, 8, 3), 0.5)
    base[2:6, 2:6] = [1.0, 0.1, 0.1]
    return base


@pytest.mark.parametrize("kind", ["unit", "uint8", "standardised", "digits"])
def test_image_plot_keeps_any_range_visible(kind):
    import matplotlib

    matplotlib.use("Agg")
    from interplay.modalities.image import patch_segments

    base = _red_square()
    image = {"unit": base, "uint8": np.round(base * 255).astype(np.uint8),
             "standardised": (base - 0.45) / 0.22, "digits": base * 16}[kind]
    segments = patch_segments((8, 8), 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "Clipping input data" warning
        ax = ip.plot.image(image, segments, np.array([0.1, -0.1, 0.0, 0.2]))
    shown = np.asarray(ax.images[0].get_array(), dtype=float)
    assert shown.shape == (8, 8, 3) and shown.min() >= 0 and shown.max() <= 1
    # the red square stays red and the background gray, as in the [0, 1] image
    assert shown[3, 3, 0] > 0.9 and shown[3, 3, 1] < 0.2
    assert 0.3 < shown[0, 0, 0] < 0.7 and np.allclose(shown[0, 0], shown[0, 0, 0])
    if kind in ("unit", "uint8"):
        np.testing.assert_allclose(shown, base, atol=0.003)


def test_image_plot_of_an_explainer_result_on_standardised_rgb():
    import matplotlib

    matplotlib.use("Agg")
    image = (_red_square() - 0.45) / 0.22

    def model(batch):
        return np.asarray(batch)[..., 0].mean(axis=(1, 2))

    result = ImageExplainer(model, segments="patches", patch_size=4, baseline="mean").shapley(image)
    shown = np.asarray(ip.plot.image(result).images[0].get_array(), dtype=float)
    assert shown.max() == pytest.approx(1.0) and shown.min() == pytest.approx(0.0)


# ------------------------------------------------------------------------------- 6. the text as given
def _spaces(texts):
    return np.array([t.count(" ") + 10 * t.count("\n") for t in texts], dtype=float)


def test_regex_tokenizer_explains_the_input_text():
    text = "Not bad, really!"
    explainer = TextExplainer(_spaces, tokenizer=r"\w+|[^\w\s]")
    game = explainer.game(text)
    assert game.tokens == ("Not", "bad", ",", "really", "!")
    everything = np.ones((1, 5), dtype=bool)
    assert game.texts(everything) == [text]
    assert game(everything)[0] == _spaces([text])[0]  # v(N) = f(x)
    phi = explainer.shapley(text)
    assert phi.values.sum() == pytest.approx(_spaces([text])[0] - _spaces([""])[0])
    # a dropped token takes its span and all but the longest separator around it: words never run together
    def keep(*dropped):
        return [[i not in dropped for i in range(5)]]

    assert game.texts(keep(1)) == ["Not , really!"]
    assert game.texts(keep(2)) == ["Not bad really!"]
    assert game.texts(keep(0)) == ["bad, really!"]
    assert game.texts(keep(4)) == ["Not bad, really"]
    assert game.texts(keep(0, 1, 2, 3, 4)) == [""]
    # a mask takes the token's place, every separator kept
    masked = TextExplainer(_spaces, tokenizer=r"\w+|[^\w\s]", mask="[MASK]").game(text)
    assert masked.texts(keep(1, 2)) == ["Not [MASK][MASK] really!"]
    assert masked.texts(everything) == [text]


def test_whitespace_tokens_keep_line_breaks_and_brackets_do_not_glue_words():
    text = "first line\n\nsecond  line"
    game = text_game(_spaces, text)
    assert game.tokens == ("first", "line", "second", "line")
    assert game.texts(np.ones((1, 4), bool)) == [text]
    assert game.texts([[True, False, True, True]]) == ["first\n\nsecond  line"]
    paren = text_game(_spaces, "a (b) c", tokenizer=r"\w+|[^\w\s]")
    assert paren.texts([[True, False, True, True, True]]) == ["a b) c"]


def test_callable_tokenizer_spans_and_subword_warning():
    game = text_game(_spaces, "it's  fine", tokenizer=lambda s: s.replace("'", " ' ").split())
    assert game.tokens == ("it", "'", "s", "fine") and game.texts(np.ones((1, 4), bool)) == ["it's  fine"]
    with pytest.warns(UserWarning, match="not found in the text in order"):
        pieces = text_game(_spaces, "playing", tokenizer=lambda s: ["play", "##ing"])
    assert pieces.texts(np.ones((1, 2), bool)) == ["play ##ing"]
    given = text_game(_spaces, tokens=["a", "b"], separator="_")  # tokens= are joined with separator
    assert given.texts(np.ones((1, 2), bool)) == ["a_b"]


# ------------------------------------------------------------------------------- 8. input errors
def test_bytes_text_is_refused_naming_text(sentiment):
    with pytest.raises(TypeError, match=r"text: expected a string, got bytes; decode it"):
        TextExplainer(sentiment).shapley(b"bad film")
    with pytest.raises(TypeError, match="text: expected a string, got bytes"):
        text_game(sentiment, b"bad film")
    with pytest.raises(TypeError, match="tokens: expected strings, got bytes"):
        text_game(sentiment, tokens=[b"bad", b"film"])


def test_regex_tokenizer_groups_and_empty_matches():
    with pytest.raises(ValueError, match=r"tokenizer: .*capturing group.*\(\?:\.\.\.\)"):
        tokenize("Not bad, really!", r"(\w+)|([^\w\s])")
    with pytest.raises(ValueError, match="tokenizer: .*capturing"):
        TextExplainer(_spaces, tokenizer=r"(\w+)").shapley("a b")
    assert tokenize("Not bad, really!", r"(?:\w+)|(?:[^\w\s])") == ["Not", "bad", ",", "really", "!"]
    assert tokenize("Not bad, really!", r"\w*") == ["Not", "bad", "really"]  # empty matches dropped
    with pytest.raises(ValueError, match="tokenizer: .*not a valid regular expression"):
        tokenize("a b", r"(\w+")


def test_wrong_shape_image_baseline_names_baseline():
    image = np.zeros((8, 8))
    with pytest.raises(ValueError, match=r"baseline: expected a number or an image of the image's shape "
                                         r"\(8, 8\).*got shape \(4, 4\)"):
        ImageExplainer(lambda b: np.asarray(b).reshape(len(b), -1).sum(axis=1), segments="patches",
                       baseline=np.zeros((4, 4))).game(image)
    rgb = image_game(lambda b: np.asarray(b).sum(axis=(1, 2, 3)), np.zeros((4, 4, 3)), segments="patches",
                     patch_size=2, baseline=[0.1, 0.2, 0.3])  # one value per channel broadcasts
    assert rgb.baseline.shape == (4, 4, 3)


def test_target_errors_print_plain_values(sentiment):
    with pytest.raises(ValueError) as info:
        TextExplainer(sentiment, target="positive").shapley("great film")
    assert "['neg', 'pos'] or 'predicted'" in str(info.value) and "np.str_" not in str(info.value)
    with pytest.raises(ValueError) as info:
        TextExplainer(lambda t: np.ones((len(t), 2)), target=np.int64(5)).shapley("great film")
    assert "[0, 1], got 5" in str(info.value) and "np.int64" not in str(info.value)


def test_many_outputs_without_classifier_hint_classifier_true():
    image = np.linspace(0, 1, 16).reshape(4, 4)
    with pytest.raises(ValueError, match=r"target: the model returns 10 outputs; choose one with target=.*"
                                         r"classifier=True \(a classifier explains its predicted class"):
        ImageExplainer(lambda b: _softmax(_image_logits(b)), segments="patches", patch_size=2).shapley(image)
