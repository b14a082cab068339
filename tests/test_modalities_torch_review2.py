"""Text, image and PyTorch paths (review): a module switched to training mode after wrapping warns on its first
call; a call that fails in training mode names module.eval(); batch_size is validated; text tokenizers that
return nothing usable and images that are empty or the wrong size for the model are named in the errors."""

import warnings

import numpy as np
import pytest

import interplay as ip

torch = pytest.importorskip("torch")
from interplay.models.torch import TorchModel  # noqa: E402


def _rows(n: int = 30, d: int = 4) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, d))


def _dropout_net(d: int = 4):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(d, 8), torch.nn.Dropout(0.5), torch.nn.Tanh(), torch.nn.Linear(8, 1))


def test_module_switched_to_training_after_wrapping_warns_on_first_call():
    net = _dropout_net().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = TorchModel(net)  # in eval mode: no warning
    net.train()  # random outputs from now on: the explanation would silently change from call to call
    X = _rows()
    with pytest.warns(UserWarning, match="training mode and has dropout or batch norm.*module.eval"):
        model(X[:3])
    with warnings.catch_warnings():  # once per model, not on every call
        warnings.simplefilter("error")
        model(X[:3])


def test_batch_norm_in_training_mode_error_names_eval():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.Linear(8, 1))
    X = _rows()
    with pytest.warns(UserWarning, match="updates its batch norm running statistics"):
        explainer = ip.Explainer(net, X[:20], removal="baseline")
    with pytest.raises(RuntimeError, match=r"training mode: call module\.eval\(\)"):
        explainer.shapley(X[20:21], method="exact")  # batch norm refuses one row in training mode


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-1, ValueError), (2.5, TypeError), ("8", TypeError)])
def test_batch_size_validated(bad, error):
    net = _dropout_net().eval()
    with pytest.raises(error, match="batch_size: expected an integer"):
        TorchModel(net, batch_size=bad)


def test_batch_size_does_not_change_values():
    net = _dropout_net().double().eval()
    X = _rows()
    whole = ip.Explainer(net, X[:20]).shapley(X[20:22], method="exact").values
    for size in (1, 7):
        values = ip.Explainer(TorchModel(net, batch_size=size), X[:20]).shapley(X[20:22], method="exact").values
        np.testing.assert_allclose(values, whole, rtol=0, atol=1e-12)


def _length(texts):
    return np.array([len(t.split()) ** 0.5 for t in texts])


@pytest.mark.parametrize("tokenizer, message", [
    (lambda s: None, "tokenizer: <lambda> must return a list of token strings, got NoneType"),
    (lambda s: s.lower(), "tokenizer: <lambda> must return a list of token strings, got a string 'not bad"),
    (lambda s: {"input_ids": [1, 2], "attention_mask": [1, 1]}, "got a mapping dict .*input_ids.*tokenize"),
])
def test_tokenizer_returning_no_list_is_refused(tokenizer, message):
    from interplay.modalities import TextExplainer

    with pytest.raises(TypeError, match=message):  # a string was split into characters, spaces included
        TextExplainer(_length, tokenizer=tokenizer).shapley("not bad at all")


def test_tokenizer_returning_nothing_is_named():
    from interplay.modalities import TextExplainer

    with pytest.raises(ValueError, match="tokenizer: <lambda> returned no tokens for 'not bad at all'"):
        TextExplainer(_length, tokenizer=lambda s: []).shapley("not bad at all")
    with pytest.raises(ValueError, match="text: no tokens found in ''"):  # an empty text is the text's fault
        TextExplainer(_length, tokenizer=lambda s: s.split()).shapley("")


def _cnn():
    """Softmax over 3 classes of an (N, 8, 8) batch (a CNN that adds the channel axis itself)."""

    class CNN(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(0)
            self.conv, self.fc = torch.nn.Conv2d(1, 2, 3, padding=1), torch.nn.Linear(2 * 8 * 8, 3)

        def forward(self, x):
            return torch.softmax(self.fc(torch.tanh(self.conv(x.unsqueeze(1))).flatten(1)), dim=1)

    return CNN().eval()


def test_image_of_the_wrong_size_names_the_image():
    from interplay.modalities import ImageExplainer

    explainer = ImageExplainer(TorchModel(_cnn(), classifier=True), segments="patches", patch_size=4)
    image = np.random.default_rng(0).random((8, 8))
    assert explainer.shapley(image, method="exact").values.shape == (4,)
    with pytest.raises(RuntimeError, match=r"image: the model failed on a batch of this image \(shape \(10, 10\).*"
                                           r"mat1 and mat2"):
        explainer.shapley(np.random.default_rng(0).random((10, 10)), method="exact")


@pytest.mark.parametrize("shape", [(0, 8), (8, 0, 3)])
def test_empty_image_refused(shape):
    from interplay.modalities import ImageExplainer

    with pytest.raises(ValueError, match=r"image: expected at least one pixel, got shape"):
        ImageExplainer(lambda b: np.asarray(b).reshape(len(b), -1).sum(1), segments="patches").shapley(
            np.zeros(shape), method="exact")


def test_image_with_nan_refused():
    from interplay.modalities import ImageExplainer

    image = np.random.default_rng(0).random((4, 4))
    image[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"image: expected finite pixel values, got NaN or inf at 1 of 16 values "
                                         r"\(first at \(1, 2\)\)"):
        ImageExplainer(lambda b: np.asarray(b).reshape(len(b), -1).sum(1), segments="patches",
                       patch_size=2).shapley(image, method="exact")


def test_channels_first_image_warns():
    from interplay.modalities import ImageExplainer

    explainer = ImageExplainer(lambda b: np.asarray(b).reshape(len(b), -1).mean(1), segments="patches",
                               patch_size=4)
    image = np.random.default_rng(0).random((3, 8, 8))  # torch's (C, H, W)
    with pytest.warns(UserWarning, match=r"looks channels-first \(C, H, W\).*transpose\(1, 2, 0\)"):
        explainer.game(image)
    with warnings.catch_warnings():  # the same image channels-last: no warning
        warnings.simplefilter("error")
        explainer.game(image.transpose(1, 2, 0))


@pytest.mark.parametrize("mask, removal", [(None, "tokens dropped"), ("[MASK]", "tokens replaced by '[MASK]'")])
def test_text_results_record_how_tokens_were_removed(mask, removal):
    from interplay.modalities import TextExplainer

    explainer = TextExplainer(_length, mask=mask)
    assert explainer.shapley("not bad at all", method="exact").info["removal"] == removal
    assert explainer.shapley("not bad at all", method="c-shapley", k=1).info["removal"] == removal


@pytest.mark.parametrize("baseline, removal", [
    ("zero", "regions set to the baseline 'zero'"), ("blur", "regions set to the baseline 'blur' (sigma 2)"),
    (0.5, "regions set to the value 0.5"), (np.full((4, 4), 0.25), "regions set to the given baseline image")])
def test_image_results_record_the_baseline(baseline, removal):
    from interplay.modalities import ImageExplainer

    explainer = ImageExplainer(lambda b: np.asarray(b).reshape(len(b), -1).mean(1), segments="patches",
                               patch_size=2, baseline=baseline)
    image = np.random.default_rng(0).random((4, 4))
    assert explainer.shapley(image, method="exact").info["removal"] == removal
