"""Regression tests for a review of this session's changes: target keys on the tree path, resuming a grouped run
begun before groups were recorded, LightGBM-only column renaming, lazy torch layers, and the tree reader's
verdict cached under conditional removal."""

import json

import numpy as np
import pytest

import interplay as ip


def test_an_index_target_is_the_class_it_explains_on_the_tree_path_too():
    pytest.importorskip("numba")
    from sklearn.ensemble import RandomForestClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    labels = np.array([5, 6, 7])[np.digitize(X[:, 0], [-0.4, 0.4])]
    model = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, labels)
    for target, keys in ((2, None), ([0, 2], [5, 7])):
        explainer = ip.Explainer(model, X[:10], target=target)
        tree = explainer.shapley(X[:2], method="tree")
        sampled = explainer.shapley(X[:2], method="exact")
        if keys is None:
            assert tree.info["target"] == sampled.info["target"] == 7
        else:
            assert list(tree) == list(sampled) == keys


def test_a_grouped_run_begun_before_groups_were_recorded_resumes(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(9, 4))
    explainer = ip.Explainer(lambda Z: Z @ np.arange(1.0, 5.0), X[:4], groups={"ab": [0, 1]})
    out = tmp_path / "run"
    ip.run(explainer, X, out=out, chunk_size=3, n_jobs=1, random_state=0, progress=False)
    manifest = json.loads((out / "run-manifest.json").read_text())
    del manifest["params"]["groups"]  # as an earlier version wrote it
    manifest["chunks"].pop(max(manifest["chunks"], key=int))
    manifest["complete"] = False
    (out / "run-manifest.json").write_text(json.dumps(manifest))
    done = ip.run(explainer, X, out=out, chunk_size=3, n_jobs=1, random_state=0, resume=True, progress=False)
    np.testing.assert_allclose(done.explanation().values, explainer.shapley(X, random_state=0).values)


def test_whitespace_renaming_is_accepted_for_lightgbm_only():
    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import LinearRegression

    X = pd.DataFrame(np.random.default_rng(0).normal(size=(30, 2)), columns=["a_b", "c"])
    model = LinearRegression().fit(X, X["c"])
    with pytest.raises(ValueError, match=r"missing \['a_b'\], unexpected \['a b'\]"):
        ip.Explainer(model, X.rename(columns={"a_b": "a b"}))


def test_a_lazy_torch_layer_has_no_declared_width():
    torch = pytest.importorskip("torch")
    net = torch.nn.Sequential(torch.nn.LazyLinear(3), torch.nn.Tanh(), torch.nn.Linear(3, 1))
    X = np.random.default_rng(0).normal(size=(10, 5))
    assert ip.Explainer(net, X).shapley(X[:1], method="exact").values.shape == (1, 5)


def test_the_tree_readers_verdict_is_read_once_under_conditional_removal(monkeypatch):
    pytest.importorskip("numba")
    from sklearn.decomposition import PCA
    from sklearn.ensemble import RandomForestRegressor
    from sklearn.pipeline import make_pipeline

    import interplay.trees.explain as tree_explain

    X = np.random.default_rng(0).normal(size=(60, 4))  # a Pipeline whose trees read mixed columns: not readable
    model = make_pipeline(PCA(2), RandomForestRegressor(n_estimators=3, max_depth=2, random_state=0)).fit(X, X[:, 0])
    explainer = ip.Explainer(model, X[:20], removal="conditional")
    calls = []
    real = tree_explain.tree_inputs
    monkeypatch.setattr(tree_explain, "tree_inputs", lambda e: calls.append(1) or real(e))
    for _ in range(3):
        explainer.bivariate(X[40])
    assert len(calls) <= 1
