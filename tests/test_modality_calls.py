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
