"""The command line end to end: explain (skops, pickle with and without --trust-model), report, demo, errors."""

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")
sio = pytest.importorskip("skops.io")

import interplay as ip  # noqa: E402
from interplay import io  # noqa: E402
from interplay.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    import joblib
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression

    tmp = tmp_path_factory.mktemp("cli")
    data = load_breast_cancer(as_frame=True)
    X = data.data.iloc[:80, :5]
    X.columns = ["radius", "texture", "perimeter", "area", "<script>alert(1)</script>"]
    model = LogisticRegression(max_iter=2000).fit(X, data.target.iloc[:80])
    frame = X.assign(label=data.target.iloc[:80].to_numpy())
    frame.to_csv(tmp / "data.csv", index=False)
    frame.to_parquet(tmp / "data.parquet")
    sio.dump(model, tmp / "model.skops")
    joblib.dump(model, tmp / "model.joblib")
    return {"dir": tmp, "model": model, "X": X}


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_help_reads_well():
    result = run("--help")
    assert result.exit_code == 0
    assert "explain" in result.output and "report" in result.output and "demo" in result.output
    result = run("explain", "--help")
    assert result.exit_code == 0 and "--trust-model" in result.output and "runs code" in result.output
    assert "--background" in result.output and "Examples:" in result.output
    for option in ("--resume", "--overwrite", "--backend", "--ray-address", "--n-jobs", "--chunk-size", "--detail-rows"):
        assert option in result.output


def test_explain_skops_end_to_end(files, tmp_path):
    d = files["dir"]
    out = tmp_path / "out"
    result = run("explain", d / "model.skops", d / "data.csv", "--rows", "0,2-3", "--drop", "label",
                 "--background", "20", "--index", "bii", "--seed", "3", "--out", out)
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in out.iterdir() if not p.name.startswith("."))
    assert names == ["manifest.json", "parts", "report.html", "row-0-bii.json", "row-0-bivariate.json",
                     "row-2-bii.json", "row-2-bivariate.json", "row-3-bii.json", "row-3-bivariate.json",
                     "run-manifest.json", "shapley.json"]
    np.testing.assert_array_equal(ip.load_run(out).values, io.load(out / "shapley.json").values)
    assert json.loads((out / "manifest.json").read_text())["results"] == [
        "shapley.json", "row-0-bivariate.json", "row-0-bii.json", "row-2-bivariate.json", "row-2-bii.json",
        "row-3-bivariate.json", "row-3-bii.json"]
    expl = io.load(out / "shapley.json")
    assert isinstance(expl, ip.Explanation) and len(expl) == 3
    assert expl.info["rows"] == [0, 2, 3] and expl.info["seed"] == 3 and expl.info["removal"] == "marginal"
    assert expl.info["model_file"] == "model.skops" and expl.info["interplay_version"] == ip.__version__
    assert expl.info["output"] == "probability" and expl.info["method"] == "exact"
    # the same numbers as the library gives directly, with the same background draw
    X = files["X"]
    rng = np.random.default_rng(3)
    background = X.iloc[np.sort(rng.choice(len(X), size=20, replace=False))]
    explainer = ip.Explainer(files["model"], background)
    direct = ip.shapley(explainer.game(X.iloc[[2]]))
    np.testing.assert_allclose(expl.values[1], direct.values, atol=1e-12)
    biv = io.load(out / "row-2-bivariate.json")
    assert biv.info["row"] == 2 and biv.info["prediction"] == pytest.approx(direct.baseline + direct.values.sum())
    np.testing.assert_allclose(biv.univariate.values, direct.values, atol=1e-12)
    inter = io.load(out / "row-2-bii.json")
    assert inter.index == "bii" and inter.info["index"] == "bii"
    html = (out / "report.html").read_text()
    assert "<script>alert(1)</script>" not in html and "model.skops" in html
    # and `interplay report` rebuilds a report from the folder (only this run's files, per the manifest)
    ip.Attribution([1.0], 0.0, ["other"], 2, "exact").save(out / "stale.json")
    result = run("report", out, "--out", tmp_path / "again.html", "--title", "again")
    assert result.exit_code == 0, result.output
    assert "again" in (tmp_path / "again.html").read_text()
    result = run("report", *sorted(out.glob("row-*.json")), "--out", tmp_path / "rows.html")
    assert result.exit_code == 0, result.output


def test_pickle_needs_trust(files, tmp_path):
    d = files["dir"]
    result = run("explain", d / "model.joblib", d / "data.parquet", "--drop", "label", "--out", tmp_path / "o")
    assert result.exit_code != 0
    assert "runs code" in result.output and "--trust-model" in result.output
    assert not (tmp_path / "o").exists()
    result = run("explain", d / "model.joblib", d / "data.parquet", "--drop", "label", "--background", "10",
                 "--trust-model", "--out", tmp_path / "o", "--target", "0", "--index", "none")
    assert result.exit_code == 0, result.output
    assert not list((tmp_path / "o").glob("row-*-none.json")) and (tmp_path / "o" / "row-0-bivariate.json").exists()
    expl = io.load(tmp_path / "o" / "shapley.json")
    assert expl.info["target"] == 0  # the class label the values explain
    proba = files["model"].predict_proba(files["X"].iloc[[0]])[0, 0]
    assert expl.info["predictions"][0] == pytest.approx(proba)


def test_a_column_the_model_does_not_take_is_left_out_with_a_warning(files, tmp_path):
    """Without --drop the label column was left out without a word (a batch run names it; the README says the
    command does too)."""
    d = files["dir"]
    result = CliRunner().invoke(main, [str(a) for a in ("explain", d / "model.skops", d / "data.csv", "--rows",
                                                          "0", "--background", "10", "--out", tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "Warning: data.csv: column ['label'] is not among the model's features, left out" in result.output
    result = CliRunner().invoke(main, [str(a) for a in ("explain", d / "model.skops", d / "data.csv", "--rows",
                                                          "0", "--drop", "label", "--background", "10", "--out",
                                                          tmp_path / "p")])
    assert result.exit_code == 0 and "Warning" not in result.output


def test_untrusted_skops_types_need_trust(files, tmp_path):
    from sklearn.tree import DecisionTreeClassifier

    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(files["X"], np.arange(80) % 2)
    sio.dump(tree, tmp_path / "tree.skops")
    d = files["dir"]
    result = run("explain", tmp_path / "tree.skops", d / "data.csv", "--drop", "label", "--out", tmp_path / "o")
    assert result.exit_code != 0 and "does not trust" in result.output and "--trust-model" in result.output
    result = run("explain", tmp_path / "tree.skops", d / "data.csv", "--drop", "label", "--background", "5",
                 "--trust-model", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("args, message", [
    (["missing.skops", "data.csv"], "model file not found"),
    (["model.skops", "missing.csv"], "data file not found"),
    (["data.csv", "data.csv"], "unknown model file type"),
    (["bad.skops", "data.csv"], "not a readable skops file"),
    (["model.skops", "model.joblib"], "unknown data file type"),
    (["model.skops", "bad.csv"], "model needs column"),
    (["model.skops", "text.csv"], "non-numeric"),
    (["model.skops", "data.csv", "--drop", "label", "--rows", "1-x"], "row numbers like"),
    (["model.skops", "data.csv", "--drop", "label", "--rows", "500"], "out of range"),
    (["model.skops", "data.csv", "--drop", "nope"], "no column"),
    (["model.skops", "data.csv", "--drop", "label", "--method", "magic"], "not available"),
    (["model.skops", "data.csv", "--drop", "label", "--budget", "0"], "--budget"),
    (["model.skops", "data.csv", "--drop", "label", "--budget", "8", "--method", "exact"], "budget"),
    (["model.skops", "data.csv", "--drop", "label", "--removal", "magic"], "--removal"),
    (["model.skops", "data.csv", "--drop", "label", "--target", "7"], "target"),
])
def test_bad_files_and_options(files, tmp_path, args, message):
    d = files["dir"]
    (tmp_path / "bad.skops").write_bytes(b"not a zip file")
    (tmp_path / "bad.csv").write_text("a,b\n1,2\n")
    pd.DataFrame({"radius": ["x"], "texture": [1], "perimeter": [1], "area": [1],
                  "<script>alert(1)</script>": [1]}).to_csv(tmp_path / "text.csv", index=False)
    resolved = [str(tmp_path / a) if (tmp_path / a).exists() or a.startswith("missing") or a.startswith("bad")
                or a == "text.csv" else (str(d / a) if (d / a).exists() else a) for a in args]
    result = run("explain", *resolved, "--out", tmp_path / "o")
    assert result.exit_code != 0
    assert message in result.output, result.output
    assert "Traceback" not in result.output


def test_report_errors(tmp_path):
    result = run("report", tmp_path / "nothing.json", "--out", tmp_path / "r.html")
    assert result.exit_code != 0 and "no such file" in result.output
    (tmp_path / "x.json").write_text(json.dumps({"a": 1}))
    result = run("report", tmp_path / "x.json", "--out", tmp_path / "r.html")
    assert result.exit_code != 0 and "not an interplay result" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run("report", empty, "--out", tmp_path / "r.html")
    assert result.exit_code != 0 and "no result files" in result.output
    a = ip.Attribution([1.0, 2.0], 0.0, ["a", "b"], 4, "exact")
    b = ip.Attribution([1.0], 0.0, ["c"], 2, "exact")
    a.save(tmp_path / "a.json")
    b.save(tmp_path / "b.json")
    result = run("report", tmp_path / "a.json", tmp_path / "b.json", "--out", tmp_path / "r.html")
    assert result.exit_code == 0, result.output  # results over different features: one page, a row each
    page = (tmp_path / "r.html").read_text()
    assert '"feature_names":["c"]' in page.replace(" ", "")


def test_demo_tour_writes_a_report(tmp_path):
    result = run("demo", "--out", tmp_path / "tour")
    assert result.exit_code == 0, result.output
    assert "== tabular ==" in result.output and "Report:" in result.output
    html = (tmp_path / "tour" / "report.html").read_text()
    assert "diabetes: test row 0" in html and "interplay tour" in html


def test_too_many_features_for_auto_says_what_to_do(tmp_path):
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 15)), columns=[f"f{i}" for i in range(15)])
    sio.dump(LinearRegression().fit(X, X.sum(axis=1)), tmp_path / "lin.skops")
    X.to_csv(tmp_path / "wide.csv", index=False)
    result = run("explain", tmp_path / "lin.skops", tmp_path / "wide.csv", "--out", tmp_path / "o")
    if ip.available_methods("shapley") == ["exact"]:
        assert result.exit_code != 0 and "too many for exact" in result.output
    else:  # a sampling method is installed: auto picks it; interactions are skipped when none fits
        assert result.exit_code == 0, result.output
        expl = io.load(tmp_path / "o" / "shapley.json")
        assert expl.method != "exact"
        if ip.available_methods("interactions") == ["exact"]:
            assert "no interaction estimator fits 15 features" in result.output


def test_regression_model_and_budget_recorded(tmp_path):
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.normal(size=(40, 4)), columns=list("abcd"))
    model = LinearRegression().fit(X, X @ np.array([1.0, -2.0, 0.5, 0.0]))
    sio.dump(model, tmp_path / "lin.skops")
    X.to_parquet(tmp_path / "x.parquet")
    result = run("explain", tmp_path / "lin.skops", tmp_path / "x.parquet", "--rows", "all", "--budget", "64",
                 "--removal", "baseline", "--out", tmp_path / "o")
    assert result.exit_code == 0, result.output
    expl = io.load(tmp_path / "o" / "shapley.json")
    assert len(expl) == 40 and expl.info["budget"] == 64 and expl.info["removal"] == "baseline"
    assert expl.info["output"] == "prediction"
    # linear model, mean baseline: phi_j = w_j (x_j - mean_j)
    expected = (X.to_numpy() - X.to_numpy().mean(axis=0)) * model.coef_
    np.testing.assert_allclose(expl.values, expected, atol=1e-9)
    # a regressor's one output is target 0 in every file and row, as the library's Explainer records it
    library = ip.Explainer(model, X, removal="baseline").shapley(X.iloc[:2], method="permutation", budget=64)
    assert library.info["target"] == 0 and library.info["targets"] == [0, 0]
    assert expl.info["targets"] == [0] * 40 and expl.info["target"] == 0  # the batch's too (it was None)
    assert io.load(tmp_path / "o" / "row-0-bivariate.json").info["target"] == 0


def test_every_step_is_checked_before_any_work(tmp_path):
    """A budget the chosen methods refuse stops the command at once (no run folder, no batch), for the Shapley
    step and for the detail rows' steps; a Shapley method with no interaction counterpart falls back to auto's."""
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 14)), columns=[f"f{i}" for i in range(14)])
    sio.dump(LinearRegression().fit(X, X.sum(axis=1)), tmp_path / "lin.skops")
    X.to_csv(tmp_path / "wide.csv", index=False)
    small = run("explain", tmp_path / "lin.skops", tmp_path / "wide.csv", "--out", tmp_path / "o",
                "--method", "kernel", "--budget", "8")
    assert small.exit_code == 2 and "--budget" in small.output and "needs at least" in small.output
    assert not (tmp_path / "o" / "run-manifest.json").exists()
    ok = run("explain", tmp_path / "lin.skops", tmp_path / "wide.csv", "--out", tmp_path / "p",
             "--method", "antithetic", "--budget", "64", "--rows", "0-3")
    assert ok.exit_code == 0, ok.output


def test_explain_with_a_faith_index(files, tmp_path):
    """--index takes fsii (and fbii, ksii): the row's interaction file is written and the report built."""
    d = files["dir"]
    out = tmp_path / "faith"
    result = run("explain", d / "model.skops", d / "data.csv", "--rows", "0", "--drop", "label",
                 "--background", "10", "--index", "fsii", "--seed", "3", "--out", out)
    assert result.exit_code == 0, result.output
    assert (out / "row-0-fsii.json").exists() and (out / "report.html").exists()
    assert io.load(out / "row-0-fsii.json").index == "fsii"


def test_explanation_file_keeps_each_rows_prediction_and_label_when_sliced(files, tmp_path):
    """shapley.json held predictions for the detail rows only, so a slice gave row 3 row 0's prediction (in the
    report too); and its rows were labelled by position (row 1) where load_run and the row files say 60."""
    from interplay.report import build_report

    d, out = files["dir"], tmp_path / "out"
    result = run("explain", d / "model.skops", d / "data.csv", "--rows", "0,2,40-42", "--drop", "label",
                 "--background", "10", "--index", "none", "--detail-rows", "2", "--out", out)
    assert result.exit_code == 0, result.output
    expl = io.load(out / "shapley.json")
    assert list(expl.to_pandas().index) == [0, 2, 40, 41, 42] == list(ip.load_run(out).to_pandas().index)
    assert expl[1].info["row"] == 2 == io.load(out / "row-2-bivariate.json").info["row"]
    truth = files["model"].predict_proba(files["X"].iloc[[0, 2, 40, 41, 42]])[:, 1]
    np.testing.assert_allclose(expl.info["predictions"][:2], truth[:2], atol=1e-12)  # the detail rows: evaluated
    # the others by efficiency (they were None, as was their explained output)
    np.testing.assert_allclose(expl.info["predictions"][2:], truth[2:], atol=1e-9)
    assert len(set(expl.info["explained_outputs"])) == 1 and None not in expl.info["explained_outputs"]
    tail = expl[3:5]
    np.testing.assert_allclose(tail.info["predictions"], truth[3:], atol=1e-9)
    assert tail[0].info["prediction"] == pytest.approx(truth[3], abs=1e-9)
    assert expl[1].info["prediction"] == pytest.approx(truth[1], abs=1e-12)
    page = re.search(r'id="interplay-data">(.*?)</script>', build_report([tail]), re.S).group(1)
    shown = json.loads(page)["rows"]
    assert [r["label"] for r in shown] == ["row 41", "row 42"]
    assert [r.get("prediction") for r in shown] == pytest.approx(truth[3:], abs=1e-9)  # it showed row 0's


def test_target_error_lists_the_classes_as_typed(tmp_path):
    """The error printed np.str_('setosa') for each class."""
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True, as_frame=True)
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    sio.dump(LogisticRegression(max_iter=500).fit(X, labels), tmp_path / "m.skops")
    X.to_csv(tmp_path / "d.csv", index=False)
    result = CliRunner().invoke(main, ["explain", str(tmp_path / "m.skops"), str(tmp_path / "d.csv"), "--rows", "0",
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code != 0
    assert "['setosa', 'versicolor', 'virginica']" in result.output and "np.str_" not in result.output


def test_call_rows_reaches_the_run(files, tmp_path):
    d, out = files["dir"], tmp_path / "out"
    result = run("explain", d / "model.skops", d / "data.csv", "--rows", "0-1", "--drop", "label", "--background",
                 "10", "--index", "none", "--detail-rows", "0", "--method", "permutation", "--call-rows", "300",
                 "--out", out)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "run-manifest.json").read_text())["call_rows"] == 300


def test_auto_enumerates_rows_whose_null_players_leave_few_features(tmp_path):
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 12)), columns=[f"f{j}" for j in range(12)])
    X.iloc[:, 4:] = 1.0  # constant columns: null players of every row (x equals every background row there)
    y = X.iloc[:, :4].sum(axis=1) + X["f0"] * X["f1"]
    sio.dump(LinearRegression().fit(X, y), tmp_path / "model.skops")
    X.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    result = run("explain", tmp_path / "model.skops", tmp_path / "data.csv", "--rows", "0-3", "--budget", "200",
                 "--background", "20", "--detail-rows", "1", "--out", out)
    assert result.exit_code == 0, result.output
    assert "shapley=auto (" in result.output  # what the full width would get is said too
    explanation = io.load(out / "shapley.json")
    assert list(explanation.n_evaluations) == [16] * 4  # 2**4 coalitions of the four varying features: exact
    assert np.all(explanation.values[:, 4:] == 0.0)
    assert explanation.info["method"] == "exact" and explanation.info["auto"]["full_width"] == "odd_gp"
    assert "at 12 features" in explanation.info["auto"]["reason"]
    assert explanation.info["auto"]["chosen"] == "exact"  # as the Explainer's info["auto"] says it
    biv = io.load(out / "row-0-bivariate.json")
    assert biv.info["method"] == "exact" and biv.univariate.n_evaluations == 16
    sii = io.load(out / "row-0-sii.json")
    assert sii.info["method"] == "exact" and sii.n_evaluations == 16


def _constant_columns_files(tmp_path):
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(60, 12)), columns=[f"f{j}" for j in range(12)])
    X.iloc[:, 10:] = 1.0  # two null players in every row: ten features left, sampled
    sio.dump(LinearRegression().fit(X, X.sum(axis=1)), tmp_path / "model.skops")
    X.to_csv(tmp_path / "data.csv", index=False)
    return ["explain", tmp_path / "model.skops", tmp_path / "data.csv", "--rows", "0-5", "--budget", "100",
            "--background", "10", "--detail-rows", "0", "--chunk-size", "2", "--out", tmp_path / "out"]


def _interrupted(out, **params):
    manifest = json.loads((out / "run-manifest.json").read_text())
    manifest["params"].update(params)
    for key in (k for k in params if params[k] is None):
        manifest["params"].pop(key)
    manifest["chunks"].pop(sorted(manifest["chunks"])[-1])
    manifest["complete"] = False
    (out / "run-manifest.json").write_text(json.dumps(manifest))


def test_resume_finishes_a_run_that_recorded_the_full_widths_method(tmp_path):
    args = _constant_columns_files(tmp_path)
    assert run(*args).exit_code == 0
    _interrupted(tmp_path / "out", method="odd_gp")  # as interplay recorded it before auto chose per row
    result = run(*args, "--resume")
    assert result.exit_code == 0, result.output
    assert "with shapley=odd_gp;" in result.output and "resuming the run" in result.output
    assert io.load(tmp_path / "out" / "shapley.json").info["method"] == "odd_gp"


def test_resume_of_a_run_begun_before_the_null_player_rule_says_it_cannot_finish_it(tmp_path):
    args = _constant_columns_files(tmp_path)
    assert run(*args).exit_code == 0
    _interrupted(tmp_path / "out", null_players=None)  # no such key: an earlier interplay's run
    result = CliRunner().invoke(main, [str(a) for a in args] + ["--resume"])
    assert result.exit_code != 0
    assert "begun by an earlier interplay" in result.output and "--overwrite" in result.output
    assert "repeat its command" not in result.output


def test_resuming_a_run_without_the_rows_methods_keeps_exact(tmp_path):
    """A run written before the parts kept each row's method (no 'method' column): resumed, a Shapley file whose
    rows the full width enumerates is still named 'exact', as that version named it."""
    import hashlib

    import pyarrow.parquet as pq
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(40, 5)), columns=[f"f{j}" for j in range(5)])
    sio.dump(LinearRegression().fit(X, X.sum(axis=1)), tmp_path / "model.skops")
    X.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    args = ["explain", tmp_path / "model.skops", tmp_path / "data.csv", "--rows", "0-3", "--background", "10",
            "--detail-rows", "0", "--out", out]
    assert run(*args).exit_code == 0
    assert io.load(out / "shapley.json").info["method"] == "exact"
    manifest_path = out / "run-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for entry in manifest["chunks"].values():  # as the previous version wrote them
        part = out / entry["file"]
        pq.write_table(pq.read_table(part).drop_columns(["method"]), part)
        entry["sha256"], entry["bytes"] = hashlib.sha256(part.read_bytes()).hexdigest(), part.stat().st_size
    manifest_path.write_text(json.dumps(manifest))
    result = run(*args, "--resume")
    assert result.exit_code == 0, result.output
    saved = io.load(out / "shapley.json")
    assert saved.info["method"] == "exact" and "methods" not in saved.info
