"""Model calls of one long text or image: bounded per call, progress shown, memory-aware image default."""

import numpy as np
import pytest

from interplay import _progress
from interplay.modalities import image as image_module
from interplay.modalities.text import TextExplainer


def test_a_long_text_goes_in_several_calls_with_progress(monkeypatch, capsys):
    """A 300-token text sent all 2,648 strings of method='auto' in one silent call (max_rows 4096); now calls of
    at most 512 strings, and progress once they take longer than the delay (here 0 s)."""
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    monkeypatch.setattr(_progress, "_interactive", lambda: False)  # plain lines on stderr
    sizes = []

    def model(texts):
        sizes.append(len(texts))
        return np.array([t.count("good") / 10.0 for t in texts])

    text = " ".join(["good", "film"] * 150)
    result = TextExplainer(model).shapley(text, budget=2000, random_state=0)
    assert max(sizes) <= 512 and sum(sizes) >= 1900
    err = capsys.readouterr().err
    assert "interplay: calling the model" in err and "texts" in err
    assert result.values.sum() == pytest.approx(model([text])[0] - model([""])[0], abs=1e-9)


def test_an_image_call_is_bounded_in_bytes(monkeypatch):
    """ImageExplainer sent up to 1,024 images a call whatever their size (1.2 GB for 224 x 224 colour images in
    float64); by default now as many as fit CALL_BYTES."""
    monkeypatch.setattr(image_module, "CALL_BYTES", 40 * 16 * 16 * 3 * 8)  # 40 float64 images of 16 x 16 x 3
    sizes = []

    def model(batch):
        sizes.append(len(batch))
        return batch.reshape(len(batch), -1).mean(axis=1)

    picture = np.random.default_rng(0).random((16, 16, 3))
    explainer = image_module.ImageExplainer(model, segments="patches", patch_size=4)
    explainer.shapley(picture, budget=200, random_state=0)
    assert max(sizes) == 40
    sizes.clear()
    image_module.ImageExplainer(model, segments="patches", patch_size=4, max_rows=7).shapley(picture, budget=200,
                                                                                    random_state=0)
    assert max(sizes) == 7  # given: as given


def test_a_channels_first_cnn_takes_its_images_and_batches_as_they_are():
    """A PyTorch CNN takes (N, C, H, W) batches: ImageExplainer gave it (N, H, W, C) and needed a wrapper;
    channels_first=True takes a (C, H, W) image and gives the model (N, C, H, W) batches, with the same values
    as the wrapper gave."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU(), torch.nn.Flatten(),
                              torch.nn.Linear(4 * 8 * 8, 1)).double().eval()
    picture = np.random.default_rng(1).random((3, 8, 8))  # channels first, as torch keeps it
    options = dict(segments="patches", patch_size=4)
    direct = image_module.ImageExplainer(net, channels_first=True, **options).shapley(picture, method="exact")

    def wrapped(batch):  # what a user had to write
        with torch.no_grad():
            return net(torch.from_numpy(np.ascontiguousarray(np.moveaxis(batch, -1, 1)))).numpy()[:, 0]

    by_hand = image_module.ImageExplainer(wrapped, **options).shapley(np.moveaxis(picture, 0, -1), method="exact")
    np.testing.assert_allclose(direct.values, by_hand.values, atol=1e-12)
    gray = image_module.ImageExplainer(lambda b: b.reshape(len(b), -1).mean(axis=1) * (b.shape[1] == 1),
                                       channels_first=True, **options).shapley(picture[0], method="exact")
    assert abs(gray.values.sum()) > 0  # an (H, W) image: (N, 1, H, W) batches
    with pytest.raises(TypeError, match="channels_first: expected True or False"):
        image_module.ImageExplainer(net, channels_first="yes", **options).shapley(picture)
