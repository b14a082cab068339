"""PyTorch models on a GPU: every path gives the values of the same module on the CPU.

Skipped where CUDA is not available (CI has no GPU); run on a GPU machine with
``python -m pytest tests/test_torch_device.py``. ``INTERPLAY_TEST_DEVICE=cpu`` runs the same comparisons with the
"device" module on the CPU too (a check of the tests themselves, where there is no GPU).

Tolerances: float32 matrix products on a GPU round differently from the CPU's (about 1e-7 relative per product),
so values agree to about 1e-5; float64 modules to 1e-10.
"""

import os

import numpy as np
import pytest

import interplay as ip

torch = pytest.importorskip("torch")

DEVICE = os.environ.get("INTERPLAY_TEST_DEVICE", "cuda")
pytestmark = pytest.mark.skipif(DEVICE == "cuda" and not torch.cuda.is_available(), reason="needs a CUDA GPU")

F32 = dict(rtol=1e-4, atol=2e-5)
F64 = dict(rtol=1e-10, atol=1e-10)


def _data(d: int = 6, n: int = 40) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, d))


def _net(d: int, outputs: int = 1, dtype=torch.float32, softmax: bool = False):
    torch.manual_seed(0)
    layers = [torch.nn.Linear(d, 16), torch.nn.Tanh(), torch.nn.Linear(16, outputs)]
    if softmax:
        layers.append(torch.nn.Softmax(dim=1))
    return torch.nn.Sequential(*layers).to(dtype).eval()


def _pair(d: int = 6, **kwargs):
    """The same module on the CPU and on the device (a copy of the CPU one, moved)."""
    cpu = _net(d, **kwargs)
    device = _net(d, **kwargs).to(DEVICE)
    return cpu, device


def test_the_module_runs_on_its_device_and_gives_the_cpu_values():
    X = _data()
    cpu, device = _pair()
    from interplay.models.torch import TorchModel

    wrapped = TorchModel(device)
    assert str(wrapped.device).startswith(DEVICE)
    np.testing.assert_allclose(wrapped(X), TorchModel(cpu)(X), **F32)


@pytest.mark.parametrize("method", ["exact", "kernel", "permutation"])
def test_shapley_on_the_device_equals_the_cpu(method):
    X = _data()
    cpu, device = _pair()
    options = dict(method=method, random_state=0) if method != "exact" else dict(method="exact")
    if method != "exact":
        options["budget"] = 200
    on_cpu = ip.Explainer(cpu, X[:8]).shapley(X[30:33], **options)
    on_device = ip.Explainer(device, X[:8]).shapley(X[30:33], **options)
    np.testing.assert_allclose(on_device.values, on_cpu.values, **F32)


def test_rows_and_background_given_as_device_tensors():
    """Tensors on the GPU (what a GPU user has at hand) are read as their values (NumPy cannot read them)."""
    X = _data()
    cpu, device = _pair()
    expected = ip.Explainer(cpu, X[:8]).shapley(X[30:32], method="exact").values
    background = torch.tensor(X[:8], dtype=torch.float32, device=DEVICE)
    rows = torch.tensor(X[30:32], dtype=torch.float32, device=DEVICE)
    got = ip.Explainer(device, background).shapley(rows, method="exact").values
    np.testing.assert_allclose(got, expected, **F32)


def test_float64_module_on_the_device():
    X = _data()
    cpu, device = _pair(dtype=torch.float64)
    expected = ip.Explainer(cpu, X[:8]).shapley(X[30:33], method="exact").values
    got = ip.Explainer(device, X[:8]).shapley(X[30:33], method="exact").values
    np.testing.assert_allclose(got, expected, **F64)


@pytest.mark.parametrize("output", ["probability", "log-odds"])
def test_classifier_on_the_device(output):
    X = _data()
    from interplay.models.torch import TorchModel

    cpu, device = _pair(outputs=3, softmax=True)
    kwargs = dict(output=output, target=2)
    expected = ip.Explainer(TorchModel(cpu, classifier=True), X[:8], **kwargs).shapley(X[30:32], method="exact")
    got = ip.Explainer(TorchModel(device, classifier=True), X[:8], **kwargs).shapley(X[30:32], method="exact")
    np.testing.assert_allclose(got.values, expected.values, **F32)


def test_interactions_and_bivariate_on_the_device():
    X = _data()
    cpu, device = _pair()
    ex_cpu, ex_dev = ip.Explainer(cpu, X[:8]), ip.Explainer(device, X[:8])
    np.testing.assert_allclose(np.asarray(ex_dev.interactions(X[30], index="sii", method="exact").matrix),
                               np.asarray(ex_cpu.interactions(X[30], index="sii", method="exact").matrix), **F32)
    np.testing.assert_allclose(ex_dev.bivariate(X[30], method="exact").adjacency,
                               ex_cpu.bivariate(X[30], method="exact").adjacency, **F32)


def test_shear_cross_contribution_on_the_device():
    """SHEAR's autograd Hessian (SHEAR Eq. 11) computed on the GPU, returned to the CPU as float64."""
    X = _data()
    cpu, device = _pair(dtype=torch.float64)
    ex_cpu, ex_dev = ip.Explainer(cpu, X[:8]), ip.Explainer(device, X[:8])
    np.testing.assert_allclose(ex_dev.cross_contribution(X[30]), ex_cpu.cross_contribution(X[30]), **F64)
    a = ex_dev.shapley(X[30], method="shear", budget=64, random_state=0)
    b = ex_cpu.shapley(X[30], method="shear", budget=64, random_state=0)
    assert a.info["estimators"][0]["cross_contribution"] == "autograd Hessian (SHEAR Eq. 11)"
    np.testing.assert_allclose(a.values, b.values, **F64)


def test_image_model_on_the_device():
    """A small convolutional network on 8x8 images, patches as players (the image explainer's batches of images
    go to the module's device)."""

    class Conv(torch.nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv = torch.nn.Conv2d(1, 4, 3, padding=1)
            self.head = torch.nn.Linear(4 * 64, 3)

        def forward(self, images):
            z = torch.tanh(self.conv(images.reshape(-1, 1, 8, 8)))
            return torch.softmax(self.head(z.reshape(len(images), -1)), dim=1)

    from interplay.modalities import ImageExplainer

    image = np.random.default_rng(1).random((8, 8))
    cpu, device = Conv().eval(), Conv().to(DEVICE).eval()
    kwargs = dict(segments="patches", patch_size=4, classifier=True, target=1)
    expected = ImageExplainer(cpu, **kwargs).shapley(image, method="exact").values
    got = ImageExplainer(device, **kwargs).shapley(image, method="exact").values
    np.testing.assert_allclose(got, expected, **F32)
    # the image itself as a tensor on the device
    on_device = torch.tensor(image, dtype=torch.float32, device=DEVICE)
    got = ImageExplainer(device, **kwargs).shapley(on_device, method="exact").values
    np.testing.assert_allclose(got, expected, **F32)


def test_batch_run_of_a_device_model(tmp_path):
    """ip.run in this process (n_jobs=1) with a module on the GPU: the Explainer's values, row by row."""
    X = _data()
    _, device = _pair()
    ex = ip.Explainer(device, X[:8])
    run = ip.run(ex, X[30:34], method="exact", out=tmp_path / "run", n_jobs=1, chunk_size=2)
    np.testing.assert_allclose(run.explanation().values, ex.shapley(X[30:34], method="exact").values, **F32)


def test_a_module_on_the_device_starts_with_large_calls():
    """On a GPU a call's fixed cost (copies, launches) wants many rows: TorchModel.call_rows (16,384) is the
    explainer's first call size; on the CPU, None (the explainer's cache-sized calls)."""
    from interplay.models.torch import ACCELERATOR_CALL_ROWS, TorchModel

    cpu, device = _pair()
    assert TorchModel(cpu).call_rows is None
    assert TorchModel(device).call_rows == (None if DEVICE == "cpu" else ACCELERATOR_CALL_ROWS)
