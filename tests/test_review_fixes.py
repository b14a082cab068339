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


def test_images_are_shown_the_same_way_in_the_plot_and_the_report():
    from interplay.modalities.display import displayable

    photo = np.full((2, 2, 3), 200.0)  # a photo's 0..255 kept as floats: drawn as it is
    assert np.allclose(displayable(photo), 200 / 255)
    assert np.allclose(displayable(photo.astype(np.uint8)), 200 / 255)
    digits = np.repeat(np.array([[0.0, 8.0], [16.0, 4.0]])[..., None], 3, axis=2)  # 0..16: stretched
    assert displayable(digits).max() == 1.0 and displayable(digits).min() == 0.0
    rgba = np.concatenate([np.random.default_rng(0).normal(size=(2, 2, 3)), np.ones((2, 2, 1))], axis=2)
    assert np.all(displayable(rgba)[..., 3] == 1.0)  # alpha kept, not rescaled with the colours
    assert set(np.unique(displayable(np.eye(2, dtype=bool)))) == {0.0, 1.0}


def test_modality_games_respect_max_rows_one():
    def one_at_a_time(items):
        assert len(items) == 1, f"batch of {len(items)}"
        return np.array([[0.3, 0.7]])

    from interplay.modalities import TextExplainer

    result = TextExplainer(one_at_a_time, classifier=True, max_rows=1).shapley("good film", method="exact")
    assert result.values.shape[-1] == 2


def test_lightgbm_inside_a_meta_estimator_keeps_its_renamed_columns():
    lgb = pytest.importorskip("lightgbm")
    pd = pytest.importorskip("pandas")
    from sklearn.compose import TransformedTargetRegressor

    X = pd.DataFrame(np.random.default_rng(0).normal(size=(80, 2)), columns=["a b", "c"])
    model = TransformedTargetRegressor(lgb.LGBMRegressor(n_estimators=5, verbose=-1)).fit(X, X["c"] * 2)
    assert list(model.feature_names_in_) == ["a_b", "c"]
    assert ip.Explainer(model, X[:10]).shapley(X[:1], method="exact").values.shape == (1, 2)


def _row_sum(Z):
    return np.asarray(Z, float).sum(1)


def test_an_explainer_pickled_before_the_renaming_flag_still_aligns_dataframes():
    import pickle

    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(np.random.default_rng(0).normal(size=(10, 2)), columns=["a", "b"])
    explainer = ip.Explainer(_row_sum, X)
    del explainer.__dict__["_renamed_ok"]  # as an Explainer pickled by an earlier version
    restored = pickle.loads(pickle.dumps(explainer))
    assert restored.shapley(X[["b", "a"]].iloc[:1], method="exact").values.shape == (1, 2)


def test_describe_top_zero_writes_no_empty_lists():
    games = [ip.Game(lambda Z, a=a: (a * Z[:, 0] * Z[:, 1] + Z[:, 2]).astype(float), 3) for a in (1.0, 2.0)]
    cohort = ip.mean_graph([ip.interactions(g, index="sii", method="exact") for g in games])
    text = cohort.describe(top=0)
    assert "): ." not in text and "Strongest" not in text
    assert "Strongest interactions" in cohort.describe()  # the list is there when asked for


def test_sampler_labels_are_plain_values():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    model = LogisticRegression().fit(X, np.array([5, 6, 7])[np.digitize(X[:, 0], [-0.4, 0.4])])
    per_class = ip.Explainer(model, X[:10]).shapley(X[:1], method="exact")  # "all"
    assert all(type(k) is int for k in per_class)
