"""Regression tests for the QA pass on batch runs, persistence and the CLI (/tmp/qa/runs.md, defects 1, 3, 4, 5, 7,
9 and 10): each failed before its fix."""

import json
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

pd = pytest.importorskip("pandas")
pytest.importorskip("sklearn")
pytest.importorskip("pyarrow")
sio = pytest.importorskip("skops.io")

import interplay as ip  # noqa: E402
from interplay.cli import main  # noqa: E402
from interplay.runs import load_run, open_run, run  # noqa: E402


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def iris():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)  # columns 'sepal length (cm)', ...
    return X, y


@pytest.fixture(scope="module")
def regression(tmp_path_factory):
    """A linear model on 10 features, saved with skops (safe: loads without --trust-model), and its data."""
    from sklearn.linear_model import LinearRegression

    tmp = tmp_path_factory.mktemp("qa-regression")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 10)), columns=[f"f{k}" for k in range(10)])
    y = X.to_numpy() @ np.arange(1.0, 11.0) + X["f0"] * X["f1"]
    sio.dump(LinearRegression().fit(X, y), tmp / "lin.skops")
    X.assign(label=y).to_csv(tmp / "data.csv", index=False)
    return tmp


# ------------------------------------------------------------------ 3: LightGBM's names for columns with spaces
def test_lightgbm_fitted_on_names_with_spaces_takes_the_same_dataframe(iris, tmp_path):
    lgb = pytest.importorskip("lightgbm")
    X, y = iris
    model = lgb.LGBMClassifier(n_estimators=5, verbose=-1).fit(X, y)
    assert list(model.feature_names_in_)[0] == "sepal_length_(cm)"  # what LightGBM records
    explainer = ip.Explainer(model, X.iloc[::10], target=0)  # refused before: "columns ... differ"
    assert explainer.feature_names == tuple(model.feature_names_in_)
    values = explainer.shapley(X.iloc[[0, 60, 120]])
    margin = model.predict(X.iloc[[0, 60, 120]], raw_score=True)[:, 0]
    np.testing.assert_allclose(values.values.sum(axis=1) + values.base_values, margin, atol=1e-10)
    renamed = X.set_axis(list(model.feature_names_in_), axis=1)  # the model's own names give the same values
    np.testing.assert_array_equal(explainer.shapley(renamed.iloc[[0, 60, 120]]).values, values.values)
    permuted = X[X.columns[::-1]]  # matched by name (LightGBM's), not by position
    np.testing.assert_array_equal(explainer.shapley(permuted.iloc[[0, 60, 120]]).values, values.values)
    run(explainer, X.iloc[[0, 60, 120]], out=tmp_path / "run", n_jobs=1, progress=False)
    np.testing.assert_array_equal(load_run(tmp_path / "run").values, values.values)


def test_whitespace_matching_is_one_to_one_only():
    from interplay._validation import align_columns, column_order

    assert column_order(["b c", "a b"], ["a_b", "b_c"], "X", renamed_ok=True) == [1, 0]
    with pytest.raises(ValueError, match="differ"):  # not a LightGBM model: names are names
        column_order(["b c", "a b"], ["a_b", "b_c"], "X")
    with pytest.raises(ValueError, match="differ"):  # two columns would both become 'a_b'
        column_order(["a b", "a\tb"], ["a_b", "a_b2"], "X", renamed_ok=True)
    with pytest.raises(ValueError, match="differ"):  # an extra column is still refused without allow_extra
        column_order(["a b", "c"], ["a_b"], "X", renamed_ok=True)
    assert column_order(["a b", "c"], ["a_b"], "X", allow_extra=True, renamed_ok=True) == [0]
    frame = pd.DataFrame({"x y": [1.0], "z": [2.0]})
    assert list(align_columns(frame, ["z", "x_y"], "X", renamed_ok=True).columns) == ["z", "x_y"]


def test_cli_explains_a_lightgbm_model_on_a_file_with_spaces_in_its_columns(iris, tmp_path):
    lgb = pytest.importorskip("lightgbm")
    import joblib

    X, y = iris
    model = lgb.LGBMClassifier(n_estimators=5, verbose=-1).fit(X, y)
    joblib.dump(model, tmp_path / "m.joblib")
    X.assign(species=y).to_csv(tmp_path / "iris.csv", index=False)
    result = cli("explain", tmp_path / "m.joblib", tmp_path / "iris.csv", "--drop", "species", "--trust-model",
                 "--target", "1", "--rows", "0,60", "--detail-rows", "0", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output  # was: "the model needs column(s) ['sepal_length_(cm)', ...]"
    values = ip.load(tmp_path / "o" / "shapley.json")
    margin = model.predict(X.iloc[[0, 60]], raw_score=True)[:, 1]
    np.testing.assert_allclose(values.values.sum(axis=1) + values.base_values, margin, atol=1e-10)


# ------------------------------------------------------------------ 4: the resume command has only the user's flags
@pytest.mark.parametrize("trust", [False, True])
def test_resume_command_has_trust_model_only_when_given(regression, tmp_path, trust):
    d, out = regression, tmp_path / "o"
    extra = ["--trust-model"] if trust else []
    first = cli("explain", d / "lin.skops", d / "data.csv", "--drop", "label", "--detail-rows", "0", *extra,
                "--out", out)
    assert first.exit_code == 0, first.output
    recorded = json.loads((out / ".explain-options.json").read_text())["command"]
    assert ("--trust-model" in recorded) is trust, recorded
    assert "--resume" not in recorded and "--overwrite" not in recorded
    refused = cli("explain", d / "lin.skops", d / "data.csv", "--drop", "label", "--detail-rows", "0", *extra,
                  "--seed", "3", "--out", out, "--resume")
    assert refused.exit_code != 0 and "--seed 3, was 0" in refused.output
    command = next(line for line in refused.output.splitlines() if line.strip().startswith("interplay explain"))
    assert ("--trust-model" in command) is trust, command


# ------------------------------------------------------------------ 5: targets of a batch run
def test_run_with_predicted_target_keeps_each_rows_class(iris, tmp_path):
    from sklearn.linear_model import LogisticRegression

    X, y = iris
    names = np.array(["setosa", "versicolor", "virginica"])
    model = LogisticRegression(max_iter=500).fit(X, names[y])
    explainer = ip.Explainer(model, X.iloc[::15], target="predicted")
    rows = X.iloc[[0, 60, 120, 1]]
    direct = explainer.shapley(rows, random_state=0)
    run(explainer, rows, out=tmp_path / "run", random_state=0, n_jobs=1, chunk_size=3, progress=False)
    loaded = load_run(tmp_path / "run")
    assert loaded.info["targets"] == direct.info["targets"] == ["setosa", "versicolor", "virginica", "setosa"]
    assert loaded.info["target"] == "predicted" == direct.info["target"]  # was "'predicted'"
    np.testing.assert_array_equal(loaded.values, direct.values)
    assert open_run(tmp_path / "run").table().column("target").to_pylist() == direct.info["targets"]


def test_run_target_is_the_class_label_not_its_repr(iris, tmp_path):
    from sklearn.linear_model import LogisticRegression

    X, y = iris
    binary = (y == 2).astype(int).to_numpy()
    model = LogisticRegression(max_iter=500).fit(X, binary)
    explainer = ip.Explainer(model, X.iloc[::15])  # default target: the positive class, np.int64(1)
    run(explainer, X.iloc[:4], out=tmp_path / "a", method="exact", n_jobs=1, progress=False)
    info = load_run(tmp_path / "a").info
    assert info["target"] == 1 and type(info["target"]) is int and info["targets"] == [1] * 4  # was 'np.int64(1)'
    labels = np.where(binary == 1, ">50K", "<=50K")
    explainer = ip.Explainer(LogisticRegression(max_iter=500).fit(X, labels), X.iloc[::15], target=">50K")
    run(explainer, X.iloc[:4], out=tmp_path / "b", method="exact", n_jobs=1, progress=False)
    assert load_run(tmp_path / "b").info["target"] == ">50K"  # was "'>50K'"


def test_run_begun_by_an_earlier_version_resumes_with_its_repr_target(iris, tmp_path):
    from sklearn.linear_model import LogisticRegression

    X, y = iris
    explainer = ip.Explainer(LogisticRegression(max_iter=500).fit(X, (y == 2).astype(int)), X.iloc[::15])
    out = tmp_path / "run"
    run(explainer, X.iloc[:6], out=out, method="exact", n_jobs=1, chunk_size=3, progress=False)
    manifest_path = out / "run-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["params"]["target"] = "np.int64(1)"  # as earlier versions recorded it
    manifest["chunks"].pop("1")
    manifest["complete"] = False
    manifest_path.write_text(json.dumps(manifest))
    run(explainer, X.iloc[:6], out=out, method="exact", n_jobs=1, chunk_size=3, progress=False)  # not refused
    assert open_run(out).complete and load_run(out).info["target"] == 1


# ------------------------------------------------------------------ 7: row labels and missing raw values
def test_run_keeps_the_dataframes_row_labels(tmp_path):
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(40, 4)), columns=list("abcd"))
    explainer = ip.Explainer(Ridge().fit(X, X.sum(axis=1)), X.iloc[:20])
    rows = X.iloc[20:27].set_axis(pd.Index([f"p{k}" for k in range(7)], name="customer"))
    direct = explainer.shapley(rows, method="exact").to_pandas()
    run(explainer, rows, out=tmp_path / "run", method="exact", n_jobs=1, chunk_size=3, progress=False)
    pd.testing.assert_frame_equal(load_run(tmp_path / "run").to_pandas(), direct)  # was indexed 0..6
    frame = open_run(tmp_path / "run").to_pandas()
    assert list(frame.index) == list(rows.index) and frame.index.name == "customer"
    assert frame["row"].tolist() == list(range(7))
    positional = X.iloc[30:33]  # a slice keeps its labels 30..32, as Explainer.shapley does
    run(explainer, positional, out=tmp_path / "slice", method="exact", n_jobs=1, progress=False)
    assert list(load_run(tmp_path / "slice").to_pandas().index) == [30, 31, 32]
    relabelled = rows.set_axis(pd.Index([f"q{k}" for k in range(7)], name="customer"))
    manifest = json.loads((tmp_path / "run" / "run-manifest.json").read_text())
    manifest["chunks"].pop("2")
    manifest["complete"] = False
    (tmp_path / "run" / "run-manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="row labels"):  # a resume never mixes differently labelled rows
        run(explainer, relabelled, out=tmp_path / "run", method="exact", n_jobs=1, chunk_size=3, progress=False)


def test_missing_raw_category_reads_back_as_nan(tmp_path):
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    frame = pd.DataFrame({"city": ["Paris", "Rome", None, "Oslo"] * 5, "x": np.arange(20.0)})
    model = make_pipeline(ColumnTransformer([("c", OneHotEncoder(handle_unknown="ignore"), ["city"])],
                                            remainder="passthrough"), LinearRegression())
    model.fit(frame, np.arange(20.0))
    explainer = ip.Explainer(model, frame.iloc[:8])
    direct = explainer.shapley(frame.iloc[:4], method="exact")
    run(explainer, frame.iloc[:4], out=tmp_path / "run", method="exact", n_jobs=1, progress=False)
    loaded = load_run(tmp_path / "run").data
    assert isinstance(direct.data[2, 0], float) and np.isnan(direct.data[2, 0])
    assert isinstance(loaded[2, 0], float) and np.isnan(loaded[2, 0])  # was None
    assert loaded[0, 0] == "Paris"


# ------------------------------------------------------------------ 9: n_jobs does not change the last bits
def test_kernel_run_is_bit_identical_for_any_n_jobs(tmp_path):
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import Ridge

    X, y = load_diabetes(return_X_y=True, as_frame=True)
    explainer = ip.Explainer(Ridge().fit(X, y), X.sample(30, random_state=1))
    rows = X.iloc[:16]
    values = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n_jobs in (1, 2):
            run(explainer, rows, "kernel", out=tmp_path / f"n{n_jobs}", chunk_size=8, n_jobs=n_jobs, budget=60,
                random_state=0, progress=False)
            values[n_jobs] = load_run(tmp_path / f"n{n_jobs}").values
    assert (values[1] == values[2]).all()  # differed by 7e-14 (BLAS threads: 2 in this process, 1 per worker)
    from interplay.runs._compute import one_blas_thread

    with warnings.catch_warnings(), one_blas_thread():  # Explainer.shapley with BLAS on one thread: the same bits
        warnings.simplefilter("ignore")
        direct = explainer.shapley(rows, method="kernel", budget=60, random_state=0, progress=False).values
    assert (values[1] == direct).all()


# ------------------------------------------------------------------ 10 and 1: small CLI issues
def test_bad_target_is_a_usage_error_before_anything_is_written(regression, tmp_path):
    d, out = regression, tmp_path / "o"
    result = cli("explain", d / "lin.skops", d / "data.csv", "--drop", "label", "--target", "7", "--out", out)
    assert result.exit_code == 2, result.output  # was 1, after "Explaining ..."
    assert "--target" in result.output and "Explaining" not in result.output
    assert not out.exists()  # was: OUT/parts and OUT/run-manifest.json left behind


def test_one_result_file_is_singular(regression, tmp_path):
    d = regression
    result = cli("explain", d / "lin.skops", d / "data.csv", "--drop", "label", "--detail-rows", "0",
                 "--out", tmp_path / "o")
    assert result.exit_code == 0 and "Wrote 1 result file," in result.output, result.output


def test_unestimated_pairs_get_one_clear_warning_naming_the_budget_that_estimates_them(regression, tmp_path):
    d = regression
    args = ["explain", d / "lin.skops", d / "data.csv", "--drop", "label", "--rows", "0-1", "--method",
            "permutation", "--index", "sii"]
    result = cli(*args, "--budget", "60", "--out", tmp_path / "small")
    assert result.exit_code == 0, result.output
    assert "RuntimeWarning" not in result.output and ".py:" not in result.output  # no raw Python warning
    lines = [line for line in result.output.splitlines() if "pairs with too few samples" in line]
    assert len(lines) == 1 and lines[0].startswith("Warning: the sii heatmap of 2 detail rows"), result.output
    assert "--budget 60" in lines[0] and "n/a" in lines[0]
    suggested = int(lines[0].split("--budget ")[-1].split()[0])
    assert suggested > 60
    for row in (0, 1):
        errors = ip.load(tmp_path / "small" / f"row-{row}-sii.json").std_errors
        assert any(np.isinf(e) for k, e in errors.items() if len(k) == 2)
    again = cli(*args, "--budget", str(suggested), "--out", tmp_path / "enough")
    assert again.exit_code == 0 and "too few samples" not in again.output, again.output
    for row in (0, 1):  # the suggested budget estimates every pair of every detail row
        errors = ip.load(tmp_path / "enough" / f"row-{row}-sii.json").std_errors
        assert all(np.isfinite(e) for k, e in errors.items() if len(k) == 2)


def test_default_n_jobs_starts_in_this_process_and_hands_over_to_workers(tmp_path, monkeypatch):
    """n_jobs=None: a short run never starts worker processes (they cost more than 2,000 rows of tree values);
    past INLINE_SECONDS the rest goes to the workers, with the same results."""
    from interplay.runs import _backends

    monkeypatch.setattr(_backends.os, "cpu_count", lambda: 2)  # two workers whatever machine runs the test
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    explainer = ip.Explainer(lambda Z: np.tanh(Z @ np.arange(1.0, 4.0)), X[:5])
    expected = explainer.shapley(X, method="permutation", budget=20, random_state=3).values

    class NoWorkers:
        def __init__(self, *args, **kwargs):
            raise AssertionError("worker processes started for a short run")

    with monkeypatch.context() as m:
        m.setattr(_backends, "LocalBackend", NoWorkers)
        short = ip.run(explainer, X, out=tmp_path / "short", method="permutation", budget=20, chunk_size=10,
                       random_state=3, progress=False)
    np.testing.assert_array_equal(short.explanation().values, expected)
    started = []
    real = _backends.LocalBackend

    def counting(*args, **kwargs):
        started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(_backends, "INLINE_SECONDS", 0.0)
    monkeypatch.setattr(_backends, "LocalBackend", counting)
    handed = ip.run(explainer, X, out=tmp_path / "handed", method="permutation", budget=20, chunk_size=10,
                    random_state=3, progress=False)
    assert started == [1]
    np.testing.assert_array_equal(handed.explanation().values, expected)


def test_runs_call_the_model_with_a_fixed_number_of_rows(tmp_path):
    """The rows per model call were learned from CPU timings, so a model whose last bits depend on the rows a call
    holds (BLAS: an MLP) gave other bits in two runs of the same options (26 of 100 rows, 5.6e-17). Here the
    output depends on the call's size on purpose, and the model is slow per call (the sizer would grow its
    calls): equal rows must get equal values, in one run and across runs."""
    import time

    w = np.linspace(-1.0, 1.0, 10)

    def model(X):
        start = time.process_time()
        while time.process_time() - start < 0.003:  # a fixed CPU cost per call: larger calls pay
            pass
        return X @ w + 1e-9 * len(X)

    rng = np.random.default_rng(0)
    background, row = rng.normal(size=(10, 10)), rng.normal(size=(1, 10))
    X = np.repeat(row, 4, axis=0)
    explainer = ip.Explainer(model, background)
    runs = []
    for k in range(2):
        run(explainer, X, "exact", out=tmp_path / f"r{k}", chunk_size=2, n_jobs=1, progress=False)
        runs.append(load_run(tmp_path / f"r{k}").values)
    assert (runs[0] == runs[0][0]).all() and (runs[1] == runs[0]).all()


def test_run_with_baseline_removal_on_raw_categorical_columns(tmp_path):
    """The run's fingerprint read the baseline reference (one row of raw values) as a table: ip.run and
    `interplay explain --removal baseline` raised "'numpy.float64' object is not iterable"."""
    pd = pytest.importorskip("pandas")
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 70, 120).astype(float),
                      "job": rng.choice(["admin", "nurse", "chef"], 120), "balance": rng.normal(size=120)})
    y = (X["age"] + 10 * (X["job"] == "chef") + rng.normal(size=120) > 50).astype(int)
    pipe = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["job"]),
                                                 remainder="passthrough"), LogisticRegression(max_iter=500)).fit(X, y)
    explainer = ip.Explainer(pipe, X[:30], removal="baseline")
    run(explainer, X[:3], out=tmp_path / "run", progress=False)
    np.testing.assert_array_equal(load_run(tmp_path / "run").values, explainer.shapley(X[:3]).values)


def test_call_rows_fixes_the_model_calls_of_a_run_and_its_resume(tmp_path):
    sizes = []

    def model(X):
        sizes.append(len(X))
        return X @ np.linspace(-1.0, 1.0, 8)

    rng = np.random.default_rng(0)
    explainer = ip.Explainer(model, rng.normal(size=(10, 8)))
    X = rng.normal(size=(6, 8))
    sizes.clear()
    run(explainer, X, "exact", out=tmp_path / "r", chunk_size=3, n_jobs=1, call_rows=300, progress=False)
    assert max(sizes) == 300  # 256 coalitions x 10 background rows a row: calls of at most 300 rows
    sizes.clear()
    run(explainer, X, "exact", out=tmp_path / "r", chunk_size=3, n_jobs=1, call_rows=5000, progress=False)
    assert sizes == []  # finished: nothing recomputed
    (tmp_path / "r" / "parts" / "part-000001.parquet").unlink()
    with pytest.warns(RuntimeWarning, match="missing"):
        run(explainer, X, "exact", out=tmp_path / "r", chunk_size=3, n_jobs=1, call_rows=5000, progress=False)
    assert max(sizes) == 300  # the resume makes the calls recorded at creation


def test_cohort_rows_outside_the_run_are_refused_and_the_signed_mean_reads_as_a_cohort(tmp_path):
    """Row indices outside the run were dropped silently (a DataFrame's labels selected other rows), and the
    cohort_graph's signed mean was described as one prediction."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 4))
    explainer = ip.Explainer(lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2], rng.normal(size=(6, 4)))
    result = run(explainer, X, "exact", kind="bivariate", out=tmp_path / "r", progress=False)
    with pytest.raises(ValueError, match=r"rows: row positions run from 0 to 7, got \[8, 1000\]"):
        result.graph([0, 1, 8, 1000])
    with pytest.raises(ValueError, match="rows: row positions"):
        result.cohort_graph([-1])
    mean = result.cohort_graph([0, 1, 2], aggregate="signed").graph()
    assert mean.kind == "mean" and mean.info["n_rows"] == 3
    assert "signed mean over the rows" in mean.describe()


def test_a_path_dependent_run_says_how_features_were_removed(tmp_path):
    pytest.importorskip("numba")
    from sklearn.ensemble import GradientBoostingRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    explainer = ip.Explainer(GradientBoostingRegressor(n_estimators=5, random_state=0).fit(X, X[:, 0]), X[:5])
    run(explainer, X[:4], "tree", out=tmp_path / "r", tree_path_dependent=True, progress=False)
    loaded = load_run(tmp_path / "r")
    assert loaded.info["removal"] == "path-dependent (tree cover)"  # was the explainer's 'marginal'
    direct = explainer.shapley(X[:4], method="tree", tree_path_dependent=True)
    np.testing.assert_allclose(loaded.values, direct.values, atol=1e-12)


def test_a_runs_cohort_graph_keeps_magnitudes_like_its_graph(tmp_path):
    """run.cohort_graph(rows) gave the signed mean adjacency while run.graph(rows) and ip.mean_graph keep
    magnitudes: an edge +w in half the rows and -w in the others read as 0 there, a and b as redundant given each
    other and without effect, while graph() of the same rows said neither. Rows of a * b with b = +-1 flip the sign
    of every edge into and out of a and b."""
    X = np.array([[1.0, 1.0, 0.5], [1.0, -1.0, 0.5], [2.0, 1.0, 0.5], [2.0, -1.0, 0.5]])
    explainer = ip.Explainer(lambda Z: Z[:, 0] * Z[:, 1] + Z[:, 2], removal="baseline", baseline=np.zeros(3),
                             feature_names=["a", "b", "c"])
    result = run(explainer, X, "exact", kind="bivariate", out=tmp_path / "r", chunk_size=2, n_jobs=1,
                 progress=False)
    adjacency = load_run(tmp_path / "r").info["adjacency"]
    assert adjacency[:, 0, 1] == pytest.approx([0.5, -0.5, 1.0, -1.0])  # opposite signs: the case in question
    cohort = result.cohort_graph()
    assert cohort.info["aggregate"] == "abs"
    np.testing.assert_allclose(cohort.adjacency, np.abs(adjacency).mean(axis=0), atol=1e-12)
    np.testing.assert_allclose(cohort.adjacency, result.graph().weights, atol=1e-12)  # the same reading as graph()
    np.testing.assert_allclose(cohort.univariate.values, [0.75, 0.75, 0.5], atol=1e-12)  # mean |phi|
    graph = cohort.graph()
    assert graph.kind == "cohort" and graph.info["aggregate"] == "abs" and graph.info["n_rows"] == 4
    assert graph.redundancy().edges() == [] == result.graph().redundancy().edges()
    assert "mean |value| over the rows" in graph.describe() and "No effect" not in graph.describe()
    mask = np.array([True, True, False, False])  # a cohort: its rows only
    np.testing.assert_allclose(result.cohort_graph(mask).adjacency, result.graph(mask).weights, atol=1e-12)

    signed = result.cohort_graph(aggregate="signed")  # still there, and labelled as what it is
    assert signed.info["aggregate"] == "signed"
    np.testing.assert_allclose(signed.adjacency, adjacency.mean(axis=0), atol=1e-12)
    assert abs(signed.adjacency[0, 1]) < 1e-12 and signed.graph().kind == "mean"
    assert ("a", "b") in signed.graph().redundancy().edges()  # the cancelled edge: why it is not the default
    with pytest.raises(ValueError, match="aggregate"):
        result.cohort_graph(aggregate="median")

    import matplotlib

    matplotlib.use("Agg")
    ax = ip.plot.graph(cohort)
    assert ax.get_title(loc="left").startswith("mean |W| explanation graph of 4 rows")
    signed_ax = ip.plot.graph(signed)
    assert signed_ax.get_title(loc="left").startswith("signed mean explanation graph of 4 rows")
    legend = signed_ax.get_legend() or signed_ax.figure.legends[0]
    words = [t.get_text() for t in signed_ax.texts] + [t.get_text() for t in legend.get_texts()]
    assert any("no notable effect on the rows' mean" in w for w in words)  # a and b: no effect on the mean
    assert not any("this prediction" in w for w in words)  # a mean over rows, not one prediction
    import matplotlib.pyplot as plt

    plt.close("all")
