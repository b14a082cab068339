"""Bad inputs give a clear ValueError/TypeError naming the parameter (or, in the CLI, a one-line usage error
with exit code 2), never a traceback or a raw numpy error (issue "Reliability", item 8)."""

import numpy as np
import pytest
from click.testing import CliRunner

import interplay as ip
from interplay.runs import run


def model(X):
    return X @ np.array([1.0, 2.0, 3.0])


@pytest.fixture
def explainer():
    return ip.Explainer(model, np.random.default_rng(0).normal(size=(6, 3)))


@pytest.mark.parametrize("seed", [-1, -(2**70)])
def test_negative_seed(explainer, seed, tmp_path):
    with pytest.raises(ValueError, match=r"^random_state: expected a non-negative integer seed"):
        explainer.shapley(np.ones((1, 3)), method="permutation", budget=20, random_state=seed)
    with pytest.raises(ValueError, match=r"^random_state: expected a non-negative"):
        run(explainer, np.ones((2, 3)), out=tmp_path / "r", random_state=seed, n_jobs=1, progress=False)
    assert not (tmp_path / "r").exists()
    with pytest.raises(TypeError, match=r"^random_state: expected"):
        explainer.shapley(np.ones((1, 3)), random_state=True)


@pytest.mark.parametrize("background", [[], [[]], np.zeros((0, 3)), np.zeros((4, 0))])
def test_empty_background(background):
    with pytest.raises(ValueError, match=r"^background: expected (a non-empty|at least one)"):
        ip.Explainer(model, background)


@pytest.mark.parametrize("x", [[[1.0, 2.0, 3.0], [1.0, 2.0]], [1.0, [2.0, 3.0], 4.0]])
def test_ragged_rows(explainer, x, tmp_path):
    with pytest.raises(ValueError, match=r"^X: expected a 2-D array .* rows of equal length; got a ragged"):
        explainer.shapley(x)
    with pytest.raises(ValueError, match=r"^x: .*ragged"):
        explainer.game(x)
    with pytest.raises(ValueError, match=r"^X: .*ragged"):
        run(explainer, x, out=tmp_path / "r", n_jobs=1, progress=False)
    with pytest.raises(ValueError, match=r"^background: .*ragged"):
        ip.Explainer(model, x)


def test_complex_values_are_refused(explainer, tmp_path):
    pd = pytest.importorskip("pandas")
    x = np.array([[1.0 + 2j, 2.0, 3.0]])
    with pytest.raises(TypeError, match=r"^X: complex values \(column\(s\) \[0\]\)"):
        explainer.shapley(x)
    with pytest.raises(TypeError, match=r"^x: complex"):
        explainer.game(x[0])
    with pytest.raises(TypeError, match=r"^X: complex"):
        explainer.shapley(pd.DataFrame(x, columns=["x0", "x1", "x2"]))
    with pytest.raises(TypeError, match=r"^X: complex"):
        run(explainer, x, out=tmp_path / "r", n_jobs=1, progress=False)
    with pytest.raises(TypeError, match=r"^background: complex"):
        ip.Explainer(model, x.repeat(3, axis=0))
    with pytest.raises(TypeError, match=r"^X: complex"):
        explainer.shapley(x.real.astype(complex))  # zero imaginary parts: still not silently cast


def test_resume_with_another_chunk_size_is_accepted_and_other_data_still_named(explainer, tmp_path):
    X = np.random.default_rng(1).normal(size=(7, 3))
    first = run(explainer, X, out=tmp_path / "r", chunk_size=2, n_jobs=1, progress=False).table()
    again = run(explainer, X, out=tmp_path / "r", chunk_size=3, n_jobs=1, progress=False)  # was refused
    assert again.table().equals(first) and again.params["chunk_size"] == 3
    with pytest.raises(ValueError, match="data: run has"):  # other data is still named
        run(explainer, X + 1, out=tmp_path / "r", chunk_size=3, n_jobs=1, progress=False)


def _no_ray_cluster(monkeypatch) -> None:
    """Ray installed, no cluster running: ``ray.init`` fails as it does then."""
    ray = pytest.importorskip("ray")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)

    def no_cluster(*args, **kwargs):
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "init", no_cluster)


def test_unreachable_ray_cluster(explainer, tmp_path, monkeypatch):
    _no_ray_cluster(monkeypatch)
    with pytest.raises(ValueError, match=r"^ray_address: could not connect to a Ray cluster at 'auto' "
                                         r"\(ConnectionError: Could not find any running Ray instance"):
        run(explainer, np.ones((2, 3)), out=tmp_path / "r", backend="ray", ray_address="auto", progress=False)


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory):
    pd = pytest.importorskip("pandas")
    sio = pytest.importorskip("skops.io")
    from sklearn.linear_model import LinearRegression

    tmp = tmp_path_factory.mktemp("cli-errors")
    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(20, 3)), columns=["a", "b", "c"])
    sio.dump(LinearRegression().fit(frame, frame.sum(axis=1)), tmp / "model.skops")
    frame.to_csv(tmp / "data.csv", index=False)
    return tmp


def _explain(cli_files, out, *args, env=None):
    from interplay.cli import main

    return CliRunner(env=env).invoke(main, ["explain", str(cli_files / "model.skops"), str(cli_files / "data.csv"),
                                            "--rows", "0-3", "--detail-rows", "0", "--n-jobs", "1", "--out",
                                            str(out), *args])


def _clean_usage_error(result, option):
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # no traceback
    assert "Traceback" not in result.output and option in result.output


def test_cli_negative_seed(cli_files, tmp_path):
    _clean_usage_error(_explain(cli_files, tmp_path / "o", "--seed", "-1"), "--seed")


def test_cli_unreachable_ray_cluster(cli_files, tmp_path, monkeypatch):
    _no_ray_cluster(monkeypatch)
    result = _explain(cli_files, tmp_path / "o", "--backend", "ray", "--ray-address", "auto", env={"RAY_ADDRESS": None})
    _clean_usage_error(result, "--ray-address")
    assert "could not connect to a Ray cluster at 'auto'" in result.output


def test_cli_resume_with_another_chunk_size(cli_files, tmp_path):
    assert _explain(cli_files, tmp_path / "o", "--chunk-size", "2").exit_code == 0
    first = ip.load_run(tmp_path / "o").values
    result = _explain(cli_files, tmp_path / "o", "--chunk-size", "3", "--resume")
    assert result.exit_code == 0, result.output  # was refused: the numbers do not depend on it
    np.testing.assert_array_equal(ip.load_run(tmp_path / "o").values, first)


@pytest.mark.parametrize("kind", ["sklearn", "torch"])
def test_background_of_another_width_than_the_model_is_refused_at_construction(kind):
    """A model that declares its input width (scikit-learn's n_features_in_, a network's first Linear layer) and
    a background, baseline or feature_names list of another width: refused when the explainer is built, naming
    the parameter and both widths (it failed only at the first explanation, with the model's own error)."""
    X = np.random.default_rng(0).normal(size=(20, 4))
    if kind == "torch":
        torch = pytest.importorskip("torch")
        model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    else:
        from sklearn.linear_model import LinearRegression

        model = LinearRegression().fit(X, X[:, 0])
    wide = np.hstack([X, X[:, :1]])
    with pytest.raises(ValueError, match=r"background: gives 5 columns, but the model .* takes 4 inputs"):
        ip.Explainer(model, background=wide)
    with pytest.raises(ValueError, match=r"baseline: gives 3 columns, .* takes 4 inputs"):
        ip.Explainer(model, removal="baseline", baseline=np.zeros(3))
    with pytest.raises(ValueError, match=r"feature_names: gives 3 columns, .* takes 4 inputs"):
        ip.Explainer(model, removal="baseline", baseline="zero", feature_names=list("abc"))
    ex = ip.Explainer(model, background=X)  # the right width is accepted and explains
    assert ex.shapley(X[:1], method="exact").values.shape == (1, 4)


def test_custom_torch_modules_are_not_refused_by_the_width_check():
    """Only an nn.Sequential says which layer reads the input: a custom module that expands its rows before its
    first Linear, or registers its head first, takes 4 columns and must not be refused (it was, from the first
    Linear in registration order)."""
    torch = pytest.importorskip("torch")

    class Expanded(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.out = torch.nn.Linear(8, 1)

        def forward(self, z):
            return self.out(torch.cat([z, z ** 2], dim=1))

    class HeadFirst(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.nn.Linear(16, 1)
            self.body = torch.nn.Linear(4, 16)

        def forward(self, z):
            return self.head(torch.tanh(self.body(z)))

    X = np.random.default_rng(0).normal(size=(20, 4))
    for net in (Expanded(), HeadFirst(), torch.nn.Sequential(torch.nn.Sequential(torch.nn.Linear(4, 1)))):
        result = ip.Explainer(net, X).shapley(X[:1], method="exact")
        assert result.values.shape == (1, 4)
    with pytest.raises(ValueError, match="takes 4 inputs"):  # a nested Sequential still declares its width
        ip.Explainer(torch.nn.Sequential(torch.nn.Sequential(torch.nn.Linear(4, 1))), np.hstack([X, X]))
