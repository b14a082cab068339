"""A batch run's model fingerprint stays the same while the model is only used (nearest-neighbour trees count their
queries in their pickle, a torch wrapper its calls), so the same call again or ip.resume_run finishes the run; a
model fitted otherwise is still refused. And `interplay explain --index ksii|moebius` on a tree model too wide to
enumerate says why the report has no heatmap instead of dropping it silently."""

import hashlib

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("pyarrow")

import interplay as ip
from interplay.runs._params import cloudpickle, model_fingerprint

RUN = {"method": "permutation", "budget": 40, "chunk_size": 10, "n_jobs": 1, "random_state": 0, "progress": False}


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 5))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0, 1.5]) + 0.1 * rng.normal(size=120)
    return X, y


def _knn(kind: str, X, y):
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "regressor-kd":
        return KNeighborsRegressor(algorithm="kd_tree").fit(X, y)
    if kind == "classifier-ball":
        return KNeighborsClassifier(algorithm="ball_tree").fit(X, y > 0)
    return make_pipeline(StandardScaler(), KNeighborsRegressor()).fit(X, y)


@pytest.mark.parametrize("kind", ["regressor-kd", "classifier-ball", "pipeline"])
def test_knn_run_again_and_resume_after_predictions(tmp_path, data, kind):
    """The KD/Ball tree's n_trims, n_leaves, n_splits and n_calls grow with every query and were pickled: the same
    ip.run call, or ip.resume_run, was refused with 'run has another model' even in the same process."""
    X, y = data
    model = _knn(kind, X[:80], y[:80])
    explainer = ip.Explainer(model, X[:15])
    out = tmp_path / "run"
    ip.run(explainer, X[80:100], out=out, **RUN)
    model.predict(X[:7])  # the user checks a prediction in between
    assert ip.resume_run(explainer, X[80:100], out).n_rows == 20
    again = ip.run(explainer, X[80:100], out=out, **RUN)
    assert again.n_rows == 20
    # a new explainer of the same model, after more predictions, is the same model too
    model.predict(X[50:60])
    assert ip.run(ip.Explainer(model, X[:15]), X[80:100], out=out, **RUN).n_rows == 20


def test_knn_fitted_on_other_data_is_still_refused(tmp_path, data):
    from sklearn.neighbors import KNeighborsRegressor

    X, y = data
    first = KNeighborsRegressor().fit(X[:80], y[:80])
    out = tmp_path / "run"
    ip.run(ip.Explainer(first, X[:15]), X[80:100], out=out, **RUN)
    for other in (KNeighborsRegressor().fit(X[20:100], y[20:100]),  # other rows, same shapes
                  KNeighborsRegressor().fit(X[:80], y[:80] + 1.0),  # other targets
                  KNeighborsRegressor(n_neighbors=3).fit(X[:80], y[:80])):  # other parameters
        with pytest.raises(ValueError, match="model: run has another model") as info:
            ip.run(ip.Explainer(other, X[:15]), X[80:100], out=out, **RUN)
        assert "model_tag=" in str(info.value)


def _fingerprint_after_use(model, X) -> tuple[str, str]:
    explainer = ip.Explainer(model, X[:15])
    before = model_fingerprint(explainer, None)
    explainer.model(X[:9])
    explainer.shapley(X[20], method="permutation", budget=20, random_state=0)
    return before, model_fingerprint(explainer, None)


@pytest.mark.parametrize("kind", ["regressor-kd", "classifier-ball", "pipeline"])
def test_knn_fingerprint_is_stable_under_use(data, kind):
    X, y = data
    before, after = _fingerprint_after_use(_knn(kind, X[:80], y[:80]), X)
    assert before == after


def test_torch_fingerprint_is_stable_under_use(tmp_path, data):
    """A torch module's wrapper is its own model function, so its call counters were pickled with it."""
    torch = pytest.importorskip("torch")
    X, _ = data
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)).eval()
    before, after = _fingerprint_after_use(net, X)
    assert before == after
    # tensors count by content: a copy (another storage address, as in another process) is the same model
    import copy

    assert _fingerprint_after_use(copy.deepcopy(net), X)[0] == before
    explainer = ip.Explainer(net, X[:15])
    ip.run(explainer, X[80:100], out=tmp_path / "run", **RUN)
    assert ip.run(explainer, X[80:100], out=tmp_path / "run", **RUN).n_rows == 20
    with torch.no_grad():
        net[0].weight[0, 0] += 1.0  # other weights: another model
    assert model_fingerprint(ip.Explainer(net, X[:15]), None) != before


def _old_fingerprint(model, X) -> str:
    """The fingerprint earlier versions recorded: SHA-256 of cloudpickle's bytes, counters and all."""
    fn = ip.Explainer(model, X[:15]).model
    return "sha256:" + hashlib.sha256(cloudpickle().dumps((fn.fn, fn.kind, fn.classes, fn.columns))).hexdigest()


def test_runs_begun_by_earlier_versions_are_still_recognised(data):
    """Models without usage state keep their fingerprint; a used one gets the fingerprint it had before any use."""
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.linear_model import Ridge
    from sklearn.neighbors import KNeighborsRegressor

    X, y = data
    for model in (Ridge().fit(X, y), RandomForestRegressor(n_estimators=3, random_state=0).fit(X, y),
                  lambda rows: rows.sum(axis=1)):
        assert model_fingerprint(ip.Explainer(model, X[:15]), None) == _old_fingerprint(model, X)
    knn = KNeighborsRegressor(algorithm="kd_tree").fit(X, y)
    unused = _old_fingerprint(knn, X)  # the kd tree counts nothing while it is built
    knn.predict(X[:5])
    assert _old_fingerprint(knn, X) != unused and model_fingerprint(ip.Explainer(knn, X[:15]), None) == unused


# --- interplay explain --index ksii|moebius on a tree model too wide to enumerate ---------------------------


@pytest.fixture(scope="module")
def wide_tree(tmp_path_factory):
    pytest.importorskip("numba")  # the exact tree algorithms
    pd = pytest.importorskip("pandas")
    sio = pytest.importorskip("skops.io")
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(60, 12)), columns=[f"f{i}" for i in range(12)])
    model = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, X["f0"] - X["f1"] * X["f2"])
    tmp = tmp_path_factory.mktemp("wide")
    sio.dump(model, tmp / "tree.skops")
    X.to_csv(tmp / "wide.csv", index=False)
    return tmp


def _explain(tmp, out, *args):
    from click.testing import CliRunner

    from interplay.cli import main

    return CliRunner().invoke(main, ["explain", str(tmp / "tree.skops"), str(tmp / "wide.csv"), "--rows", "0",
                                     "--trust-model", "--out", str(out), *args], catch_exceptions=False)


@pytest.mark.parametrize("index, name", [("ksii", "k-SII"), ("moebius", "Moebius")])
def test_tree_model_too_wide_for_exact_only_index_says_so(tmp_path, wide_tree, index, name):
    result = _explain(wide_tree, tmp_path / "o", "--index", index)
    assert result.exit_code == 0, result.output
    assert "shapley=tree" in result.output
    note = next(line for line in result.output.splitlines() if line.startswith("Note: no interaction estimator"))
    assert f"--index {index}" in note and f"{name} has no sampler" in note and "2**12" in note
    assert "--index sii or bii" in note and "--budget 4096" in note
    assert not list((tmp_path / "o").glob(f"row-*-{index}.json"))


def test_tree_model_budget_that_enumerates_gives_the_exact_only_index(tmp_path, wide_tree):
    """--budget reaches the interaction step's choice on a tree model (it was chosen at the default budget)."""
    result = _explain(wide_tree, tmp_path / "o", "--index", "ksii", "--budget", "4096")
    assert result.exit_code == 0, result.output
    assert "Note: no interaction estimator" not in result.output and "interactions=exact" in result.output
    assert (tmp_path / "o" / "row-0-ksii.json").exists()
