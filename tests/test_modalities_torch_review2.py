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
