"""PyTorch models and SHEAR (review fixes): the model's own input copy, the log-odds utility in float64, the
cross-contribution's source and finiteness, runs with the Explainer's per-row options, tensors that require grad,
the hint for an undeclared classifier, a dtype that differs from the module's."""

import warnings

import numpy as np
import pytest

import interplay as ip

torch = pytest.importorskip("torch")
from interplay.models.torch import TorchModel


def _data(d: int = 4, n: int = 30) -> np.ndarray:
    return np.random.default_rng(0).normal(size=(n, d))


def _tanh_net(d: int, dtype=torch.float64):
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(d, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).to(dtype).eval()


class _InPlace(torch.nn.Module):
    """Scales its input in place (a "preprocessing in forward" idiom)."""

    def __init__(self, d: int, inplace: bool) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.lin = torch.nn.Linear(d, 1).double()
        self.inplace = inplace

    def forward(self, x):
        x = x.mul_(2.0) if self.inplace else x.mul(2.0)
        return torch.tanh(self.lin(x))


def test_module_changing_its_input_in_place_leaves_x_and_values_alone():
    X = _data()
    original = X.copy()
    changed = ip.Explainer(_InPlace(4, True).eval(), X[:10]).shapley(X[20:22], method="exact")
    plain = ip.Explainer(_InPlace(4, False).eval(), X[:10]).shapley(X[20:22], method="exact")
    np.testing.assert_array_equal(X, original)
    np.testing.assert_allclose(changed.values, plain.values, rtol=1e-12, atol=1e-12)


def test_float64_model_on_dataframe_rows_does_not_warn():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(_data(3), columns=list("abc"))
    net = torch.nn.Sequential(torch.nn.Linear(3, 1)).double().eval()
    ex = ip.Explainer(net, X[:10])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ex.shapley(X.iloc[20:21], method="exact")


def _saturated_classifier(d: int = 6):
    """A float32 sigmoid classifier whose probability is exactly 1.0 in float32 at every row."""
    core = _tanh_net(d, torch.float32).train(False)
    with torch.no_grad():
        core[2].weight.mul_(10)
        core[2].bias.fill_(20.0)
    return torch.nn.Sequential(core, torch.nn.Sigmoid()).eval()


def test_saturated_float32_sigmoid_log_odds_cross_contribution_is_finite():
    X = _data(6)
    ex = ip.Explainer(TorchModel(_saturated_classifier(), classifier=True), X[:10], output="log-odds")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the clip and the zero Hessian warn
        eta = ex.cross_contribution(X[20])
        assert np.isfinite(eta).all()
        result = ex.shapley(X[20:21], method="shear", budget=100, random_state=0)
    assert np.isfinite(result.values).all()


class _Root(torch.nn.Module):
    """``sqrt|x0| * x1 + x2``: not twice differentiable where ``x0 = 0`` (NaN second derivatives there)."""

    def forward(self, x):
        return torch.sqrt(x[:, :1].abs()) * x[:, 1:2] + x[:, 2:3]


def test_non_finite_hessian_names_its_cause_and_the_way_out():
    X = _data(3)
    x = X[20].copy()
    x[0] = 0.0
    ex = ip.Explainer(_Root(), X[:10])
    with pytest.raises(ValueError, match=r"second derivatives \(autograd Hessian.*NaN or inf.*cross_contribution=None"):
        ex.cross_contribution(x)
    with pytest.raises(ValueError, match="autograd Hessian"):
        ex.shapley(x[None], method="shear", budget=40, random_state=0)
    result = ex.shapley(x[None], method="shear", budget=40, random_state=0, cross_contribution=None)
    assert np.isfinite(result.values).all()


def test_shear_info_names_the_autograd_cross_contribution():
    X = _data(6)
    ex = ip.Explainer(_tanh_net(6), X[:10])
    result = ex.shapley(X[20:22], method="shear", budget=100, random_state=0)
    assert result.info["estimators"][0]["cross_contribution"] == "autograd Hessian (SHEAR Eq. 11)"
    given = ex.shapley(X[20:21], method="shear", budget=100, random_state=0,
                       cross_contribution=ex.cross_contribution(X[20]))
    assert given.info["estimators"][0]["cross_contribution"] == "user matrix"
    np.testing.assert_array_equal(given.values[0], result.values[0])


def test_run_gives_the_explainers_shear_values(tmp_path):
    X = _data(8)
    ex = ip.Explainer(_tanh_net(8), X[:10])
    direct = ex.shapley(X[20:23], method="shear", budget=100, random_state=0)
    ip.run(ex, X[20:23], "shear", budget=100, random_state=0, out=tmp_path / "run", n_jobs=1)
    batch = ip.load_run(tmp_path / "run")
    np.testing.assert_array_equal(batch.values, direct.values)
    np.testing.assert_array_equal(batch.n_evaluations, direct.n_evaluations)


def test_tensors_that_require_grad_are_read_as_their_values():
    X = _data()
    net = _tanh_net(4)
    plain = ip.Explainer(net, X[:5]).shapley(X[20:22], method="exact")
    background = torch.tensor(X[:5], requires_grad=True)
    rows = torch.tensor(X[20:22], requires_grad=True)
    ex = ip.Explainer(net, background)
    np.testing.assert_allclose(ex.shapley(rows, method="exact").values, plain.values, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ex.cross_contribution(rows[0]), ip.Explainer(net, X[:5]).cross_contribution(X[20]),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("output", ["probability", "log-odds"])
def test_undeclared_torch_classifier_points_to_torch_model(output):
    X = _data()
    sig = torch.nn.Sequential(_tanh_net(4), torch.nn.Sigmoid()).eval()
    with pytest.raises(ValueError, match=r"TorchModel\(module, classifier=True\)"):
        ip.Explainer(sig, X[:10], output=output)
    ip.Explainer(TorchModel(sig, classifier=True), X[:10], output=output)  # what the message says works


def test_dtype_other_than_the_modules_is_named():
    X = _data()
    net = _tanh_net(4, torch.float32)
    with pytest.raises(RuntimeError, match=r"dtype: the rows are passed as torch\.float64.*are torch\.float32"):
        ip.Explainer(TorchModel(net, dtype=torch.float64), X[:5]).shapley(X[20:21], method="exact")
    with pytest.raises(ValueError, match=r"dtype: .*pass dtype=torch\.float32"):
        TorchModel(net, dtype=torch.float64).hessian(X[20], lambda out: out[:, 0])


class _Casting(torch.nn.Module):
    """Converts its input to its own float32 layers: takes float64 rows."""

    def __init__(self) -> None:
        super().__init__()
        self.net = _tanh_net(4, torch.float32)

    def forward(self, x):
        return self.net(x.float())


def test_dtype_other_than_the_modules_works_when_the_module_converts():
    X = _data()
    values = ip.Explainer(TorchModel(_Casting().eval(), dtype=torch.float64), X[:5]).shapley(X[20:21],
                                                                                                method="exact")
    assert np.isfinite(values.values).all()


class LargeCalls(TorchModel):
    """A module that asks for 8,192-row calls, as a TorchModel on a GPU asks for 16,384."""

    @property
    def call_rows(self):
        return 8192


def test_a_model_asking_for_large_calls_gets_them_from_its_first_call():
    """ModelFunction.call_rows (a torch module on a GPU asks for 16,384 rows) is where the explainer's calls start,
    instead of its cache-sized ones (about 1,000 rows), within max_rows; the values are the same."""
    X, net, sizes = _data(14, 30), _tanh_net(14), []
    net.register_forward_hook(lambda module, inputs, output: sizes.append(len(inputs[0])))
    plain = ip.Explainer(net, X[:10]).shapley(X[20], method="kernel", budget=2048, random_state=0)
    assert sizes[1] <= 1024, sizes  # sizes[0]: the empty and full coalitions' call
    sizes.clear()
    large = ip.Explainer(LargeCalls(net), X[:10]).shapley(X[20], method="kernel", budget=2048, random_state=0)
    assert sizes[1] >= 8000, sizes
    np.testing.assert_allclose(large.values, plain.values, rtol=1e-12, atol=1e-12)
    sizes.clear()
    ip.Explainer(LargeCalls(net), X[:10], max_rows=3000).shapley(X[20], method="kernel", budget=2048, random_state=0)
    assert 2000 < sizes[1] <= 3000 and max(sizes) <= 3000, sizes


def test_a_batch_run_keeps_the_models_own_call_size(tmp_path):
    """ip.run fixes its calls' size (the same bits on resume); without call_rows= it is the model's own
    (TorchModel.call_rows on a GPU), not the CPU's cache-sized start."""
    X, net, sizes = _data(14, 30), _tanh_net(14), []
    net.register_forward_hook(lambda module, inputs, output: sizes.append(len(inputs[0])))
    ex = ip.Explainer(LargeCalls(net), X[:10])
    run = ip.run(ex, X[20:22], method="kernel", budget=2048, out=tmp_path / "run", n_jobs=1, random_state=0,
                 progress=False)
    assert max(sizes) >= 8000, sizes
    np.testing.assert_allclose(run.explanation().values,
                               ex.shapley(X[20:22], method="kernel", budget=2048, random_state=0).values, atol=1e-12)
