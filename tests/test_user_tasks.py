"""The shap user's path on Adult (issue 13): default arguments give one target per result, one unit for every
method, exact tree values for tree models (XGBoost/LightGBM on pandas categoricals, a Pipeline with a
OneHotEncoder on raw columns, native boosters), in ``Explainer``, ``ip.run`` and the CLI on the raw CSV.

Ground truth: ``method="exact"`` (enumeration of all 2**8 coalitions of the same marginal game) on 8 features,
and shap's ``TreeExplainer`` for path-dependent values and interaction values. Sub-sampled Adult, small models.
"""

from pathlib import Path

import numpy as np
import pytest

import interplay as ip

pd = pytest.importorskip("pandas")
pytest.importorskip("sklearn")
xgb = pytest.importorskip("xgboost")
lgb = pytest.importorskip("lightgbm")

from sklearn.compose import make_column_transformer  # noqa: E402
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import OneHotEncoder, StandardScaler  # noqa: E402

ADULT = Path("/work/shared/data/adult.csv")
if not ADULT.is_file():  # pragma: no cover - the data set ships with the project's shared folder
    pytest.skip("Adult data set not found", allow_module_level=True)
EIGHT = ["age", "workclass", "education", "marital-status", "occupation", "sex", "hours-per-week", "capital-gain"]


@pytest.fixture(scope="module")
def adult():
    raw = pd.read_csv(ADULT, skipinitialspace=True).sample(1200, random_state=0).reset_index(drop=True)
    y = raw.pop("class")
    text = [c for c in raw.columns if not pd.api.types.is_numeric_dtype(raw[c])]
    return raw, y, text


def _categorical(X, text):
    return X.astype({c: "category" for c in text if c in X.columns})


def _models(X, y, text):
    """Small models as a shap user fits them: boosters on pandas categoricals, a Pipeline on raw columns."""
    Xc = _categorical(X, text)
    positive = (y == ">50K").astype(int)
    cats = [c for c in text if c in X.columns]
    return {
        "xgboost": (xgb.XGBClassifier(n_estimators=15, max_depth=3, enable_categorical=True, tree_method="hist",
                                      n_jobs=1, random_state=0).fit(Xc, positive), Xc),
        "lightgbm": (lgb.LGBMClassifier(n_estimators=15, num_leaves=8, verbose=-1, n_jobs=1,
                                        random_state=0).fit(Xc, positive), Xc),
        "pipeline": (make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), cats),
                                                           remainder=StandardScaler()),
                                   RandomForestClassifier(15, max_depth=5, random_state=0, n_jobs=1)).fit(X, y), X),
        "pipeline-hgb": (make_pipeline(make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore", sparse_output=False), cats), remainder="passthrough"),
            HistGradientBoostingClassifier(max_iter=15, random_state=0)).fit(X, y), X),
    }


@pytest.fixture(scope="module")
def eight(adult):
    X, y, text = adult
    X = X[EIGHT]
    return X, y, _models(X, y, text)


# the XGBoost model's own outputs are float32: its tree values match its enumeration to float32 precision
TOLERANCE = {"xgboost": 2e-6, "lightgbm": 1e-9, "pipeline": 1e-9, "pipeline-hgb": 1e-9}
POSITIVE = {"xgboost": 1, "lightgbm": 1, "pipeline": ">50K", "pipeline-hgb": ">50K"}
UNIT = {"xgboost": "log-odds", "lightgbm": "log-odds", "pipeline": "probability", "pipeline-hgb": "log-odds"}


@pytest.mark.parametrize("name", list(TOLERANCE))
def test_defaults_one_target_one_unit_tree_equals_exact(eight, name):
    X, _, models = eight
    model, data = models[name]
    explainer = ip.Explainer(model, data.iloc[:20])
    assert explainer.target == POSITIVE[name] and explainer.output == UNIT[name]
    rows = data.iloc[100:104]
    auto = explainer.shapley(rows)  # defaults: method="auto" -> exact tree values
    assert auto.method == "tree" and auto.info["auto"]["chosen"] == "tree"
    assert (auto.n_evaluations == 0).all()
    exact = explainer.shapley(rows, method="exact")  # 2**8 coalitions of the same game
    for result in (auto, exact):  # one target per result, stated with its unit
        assert result.info["target"] == POSITIVE[name] and set(result.info["targets"]) == {POSITIVE[name]}
        assert result.info["output"] == UNIT[name]
    np.testing.assert_allclose(auto.values, exact.values, rtol=0, atol=TOLERANCE[name])
    np.testing.assert_allclose(auto.base_values, exact.base_values, rtol=0, atol=TOLERANCE[name])
    # a sampler explains the same unit: permutation sampling is efficient, so its totals are the tree's
    sampled = explainer.shapley(rows, method="permutation", budget=60, random_state=0)
    np.testing.assert_allclose(sampled.values.sum(axis=1) + sampled.base_values,
                               auto.values.sum(axis=1) + auto.base_values, rtol=0, atol=TOLERANCE[name])
    # the interaction index and the explanation graph of the tree method equal enumeration too
    x = data.iloc[[101]]
    np.testing.assert_allclose(explainer.bivariate(x).adjacency, explainer.bivariate(x, method="exact").adjacency,
                               rtol=0, atol=TOLERANCE[name])
    pairs = explainer.interactions(x, index="sii", method="tree")
    exact_pairs = explainer.interactions(x, index="sii", method="exact")
    np.testing.assert_allclose(pairs.matrix, exact_pairs.matrix, rtol=0, atol=TOLERANCE[name])
    for result in (pairs, exact_pairs):
        assert (result.info["target"], result.info["output"]) == (POSITIVE[name], UNIT[name])
    # interventional interaction values in shap's format (shap gives only path-dependent ones)
    matrix = np.asarray(pairs.info["shap_interaction_values"])
    off = ~np.eye(len(EIGHT), dtype=bool)
    np.testing.assert_allclose(matrix[off], exact_pairs.matrix[off] / 2, rtol=0, atol=TOLERANCE[name])
    np.testing.assert_allclose(matrix.sum(axis=1), exact.values[1], rtol=0, atol=TOLERANCE[name])


def test_the_unit_a_booster_is_explained_in_is_never_switched_silently(eight):
    _, _, models = eight
    model, data = models["xgboost"]
    explainer = ip.Explainer(model, data.iloc[:20], output="probability")
    with pytest.raises(ValueError, match="log-odds"):  # the trees sum to log-odds, not probabilities
        explainer.shapley(data.iloc[:2], method="tree")
    auto = explainer.shapley(data.iloc[:2], budget=64, random_state=0)  # auto: a sampler, in probabilities
    assert auto.method != "tree" and auto.info["output"] == "probability"
    p = model.predict_proba(data.iloc[:2])[:, 1]
    np.testing.assert_allclose(auto.values.sum(axis=1) + auto.base_values, p, atol=1e-6)
    predicted = ip.Explainer(model, data.iloc[:20], target="predicted").shapley(data.iloc[:40])
    assert predicted.info["target"] == "predicted"  # a per-row mixture only when asked, and then labelled
    assert predicted.info["targets"] == model.predict(data.iloc[:40]).tolist()


def test_hundred_rows_of_a_tree_model_use_no_coalition_evaluations(adult):
    X, y, text = adult  # all 14 columns: exact enumeration would need 2**14 coalitions per row
    model, data = _models(X, y, text)["lightgbm"]
    explainer = ip.Explainer(model, data.iloc[:100])
    calls = explainer.model.n_rows
    result = explainer.shapley(data.iloc[200:300])
    assert result.method == "tree" and result.values.shape == (100, 14)
    assert int(result.n_evaluations.sum()) == 0
    assert explainer.model.n_rows - calls <= 32  # only auto's check of the unit on background rows
    margin = model.predict(data.iloc[200:300], raw_score=True)
    np.testing.assert_allclose(result.values.sum(axis=1) + result.base_values, margin, atol=1e-9)
    column = next(c for c in text if c in data.columns)  # categories stay as the user's values in .data
    j = list(data.columns).index(column)
    assert list(result.data[:, j]) == list(data[column].iloc[200:300].astype(object))


def test_native_boosters_and_the_readme_example(eight):
    X, _, models = eight
    model, data = models["xgboost"]
    numeric = X.select_dtypes("number")
    positive = (eight[1] == ">50K").astype(int)
    booster = xgb.train({"max_depth": 3, "objective": "binary:logistic"}, xgb.DMatrix(numeric, label=positive), 15)
    explainer = ip.Explainer(booster, numeric.iloc[:20])
    assert (explainer.output, explainer.target) == ("log-odds", 1)
    tree = explainer.shapley(numeric.iloc[:5])
    assert tree.method == "tree"
    np.testing.assert_allclose(tree.values, explainer.shapley(numeric.iloc[:5], method="exact").values, atol=2e-6)
    # README: ip.Explainer(xgb_model.get_booster(), X_bg, target=1).shapley(X[:10], method="kernel", budget=512)
    readme = ip.Explainer(booster, numeric.iloc[:20], target=1).shapley(numeric.iloc[:3], method="kernel",
                                                                          budget=512)
    np.testing.assert_allclose(readme.values.sum(axis=1) + readme.base_values,
                               booster.predict(xgb.DMatrix(numeric.iloc[:3]), output_margin=True), atol=2e-6)
    lgb_booster = lgb.train({"objective": "binary", "num_leaves": 8, "verbose": -1},
                            lgb.Dataset(numeric.to_numpy(), positive.to_numpy()), 10)
    values = ip.Explainer(lgb_booster, numeric.to_numpy()[:20]).shapley(numeric.to_numpy()[:5])
    assert values.method == "tree" and values.info["target"] == 1
    np.testing.assert_allclose(values.values.sum(axis=1) + values.base_values,
                               lgb_booster.predict(numeric.to_numpy()[:5], raw_score=True), atol=1e-9)


@pytest.mark.filterwarnings("ignore:LightGBM binary classifier:UserWarning")
def test_path_dependent_values_and_interaction_values_equal_shaps(eight):
    shap = pytest.importorskip("shap")
    X, y, _ = eight
    numeric = X.select_dtypes("number")
    model = lgb.LGBMClassifier(n_estimators=15, num_leaves=8, verbose=-1, n_jobs=1).fit(numeric, y == ">50K")
    explainer = ip.Explainer(model, numeric.iloc[:20])
    reference = shap.TreeExplainer(model)  # path-dependent, raw log-odds: what shap users get by default
    rows = numeric.iloc[:5]
    values = explainer.shapley(rows, method="tree", tree_path_dependent=True)
    np.testing.assert_allclose(values.values, np.asarray(reference.shap_values(rows)).reshape(5, -1), atol=1e-9)
    expected = np.asarray(reference.shap_interaction_values(rows))
    for k in range(len(rows)):
        result = explainer.interactions(rows.iloc[[k]], method="tree", tree_path_dependent=True)
        mine = np.asarray(result.info["shap_interaction_values"])
        np.testing.assert_allclose(mine, expected[k], atol=1e-9)
        np.testing.assert_allclose(mine.sum(axis=1), values.values[k], atol=1e-9)  # rows sum to the values
        assert result.info["tree"] == "path-dependent" and result.info["target"] == 1


def test_run_and_cli_explain_a_pipeline_on_raw_columns(adult, tmp_path):
    import joblib
    from click.testing import CliRunner

    from interplay.cli import main

    X, y, text = adult
    model, data = _models(X, y, text)["pipeline"]
    explainer = ip.Explainer(model, data.iloc[:30])
    run = ip.run(explainer, data.iloc[:60], out=tmp_path / "run", n_jobs=1, chunk_size=25, progress=False)
    from_run = run.explanation()
    direct = explainer.shapley(data.iloc[:60])
    assert direct.method == "tree"
    assert direct.info["raw_data"][0] == [v.item() if hasattr(v, "item") else v for v in data.iloc[0]]
    np.testing.assert_allclose(from_run.values, direct.values, atol=1e-12)
    # the CLI on the raw CSV (text columns, the label column dropped)
    frame = pd.read_csv(ADULT, skipinitialspace=True).sample(300, random_state=1)
    frame.to_csv(tmp_path / "adult.csv", index=False)
    joblib.dump(model, tmp_path / "model.joblib")
    out = tmp_path / "cli"
    result = CliRunner().invoke(main, ["explain", str(tmp_path / "model.joblib"), str(tmp_path / "adult.csv"),
                                       "--drop", "class", "--rows", "0-19", "--detail-rows", "1", "--trust-model",
                                       "--n-jobs", "1", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "shapley=tree" in result.output
    saved = ip.Explanation.load(out / "shapley.json")
    assert saved.method == "tree" and saved.info["target"] == ">50K" and saved.info["output"] == "probability"
    assert saved.info["explained_outputs"] == ["probability of class '>50K'"] * 20  # every row's (was detail only)
    fresh = ip.Explainer(model, frame.drop(columns="class").iloc[:1])  # same rows, values in the same unit
    expected = model.predict_proba(frame.drop(columns="class").iloc[:20])[:, 1]
    np.testing.assert_allclose(saved.values.sum(axis=1) + saved.base_values, expected, atol=1e-9)
    assert fresh.output == "probability"


def _readme_block(heading: str) -> str:
    """The first Python code block after ``heading`` in the README."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = text[text.index(heading):]
    start = section.index("```python\n") + len("```python\n")
    return section[start:section.index("```", start)]


@pytest.mark.filterwarnings("ignore:LightGBM binary classifier:UserWarning")
def test_readme_tree_example_runs_as_written(eight):
    shap = pytest.importorskip("shap")
    X, y, _ = eight
    numeric = X.select_dtypes("number")
    xgb_model = xgb.XGBClassifier(n_estimators=10, max_depth=3, n_jobs=1).fit(numeric, y == ">50K")
    scope = {"ip": ip, "xgb_model": xgb_model, "X_train": numeric.iloc[:300], "X_test": numeric.iloc[300:305]}
    exec(compile(_readme_block("## Tree ensembles"), "README.md", "exec"), scope)  # noqa: S102
    assert scope["values"].method == "tree" and scope["values"].info["output"] == "log-odds"
    expected = shap.TreeExplainer(xgb_model).shap_interaction_values(numeric.iloc[300:301])[0]
    np.testing.assert_allclose(scope["shap_like"].info["shap_interaction_values"], expected, atol=1e-5)


def test_a_batch_run_refuses_several_outputs_at_once(tmp_path):
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=500).fit(X, y)
    with pytest.raises(ValueError, match="target: a batch run explains one output"):
        ip.run(ip.Explainer(model, X[::10]), X[:3], out=tmp_path / "all", n_jobs=1, progress=False)
    assert not (tmp_path / "all").exists()
    run = ip.run(ip.Explainer(model, X[::10], target=2), X[:3], out=tmp_path / "one", n_jobs=1, progress=False)
    assert run.explanation().values.shape == (3, 4)


def test_cli_asks_a_multi_class_model_for_its_target(tmp_path):
    import joblib
    from click.testing import CliRunner
    from sklearn.datasets import load_iris

    from interplay.cli import main

    X, y = load_iris(return_X_y=True, as_frame=True)
    model = RandomForestClassifier(5, max_depth=3, random_state=0).fit(X, y)
    joblib.dump(model, tmp_path / "model.joblib")
    X.iloc[:6].to_csv(tmp_path / "iris.csv", index=False)
    args = ["explain", str(tmp_path / "model.joblib"), str(tmp_path / "iris.csv"), "--trust-model", "--rows", "0-5",
            "--detail-rows", "1", "--n-jobs", "1"]
    refused = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a")])
    assert refused.exit_code == 2 and "--target" in refused.output and "3 classes" in refused.output
    done = CliRunner().invoke(main, [*args, "--target", "predicted", "--out", str(tmp_path / "b")])
    assert done.exit_code == 0, done.output
    saved = ip.Explanation.load(tmp_path / "b" / "shapley.json")
    assert saved.method == "tree" and saved.info["target"] == "predicted"
    assert saved.info["targets"] == model.predict(X.iloc[:6]).tolist()  # which class each row explains
    assert saved.info["explained_outputs"] == [f"probability of class {c}" for c in model.predict(X.iloc[:6])]
