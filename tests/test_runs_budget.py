"""A run records the budget its rows used: the resolved default when none was given (it recorded None), as
Explainer.shapley's info does; the fingerprint keeps the argument, so runs begun earlier still resume."""

import json

import numpy as np
import pytest

pytest.importorskip("pyarrow")

import interplay as ip  # noqa: E402
from interplay.runs import load_run, open_run, run  # noqa: E402

D = 10
WEIGHTS = np.linspace(-1.0, 1.0, D)


def linear(X):
    return np.asarray(X, dtype=float) @ WEIGHTS


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(5, D)), rng.normal(size=(6, D))


def test_a_run_without_budget_records_the_default_its_rows_used(data, tmp_path):
    background, X = data
    explainer = ip.Explainer(linear, background)
    single = explainer.shapley(X, method="permutation", random_state=1)
    assert isinstance(single.info["budget"], int)  # the library's own record: 2048 + 2 * 10
    done = run(explainer, X, "permutation", out=tmp_path / "r", chunk_size=4, n_jobs=1, random_state=1,
               progress=False)
    loaded = load_run(tmp_path / "r")
    assert loaded.info["budget"] == single.info["budget"]  # it was None
    assert done.budget == single.info["budget"]
    assert open_run(tmp_path / "r").budgets == [single.info["budget"]]
    assert open_run(tmp_path / "r").table().column("budget").to_pylist() == [single.info["budget"]] * len(X)
    assert done.params["budget"] is None  # the argument, as the fingerprint compares it
    np.testing.assert_array_equal(loaded.values, single.values)
    given = run(explainer, X, "permutation", budget=300, out=tmp_path / "g", chunk_size=4, n_jobs=1, progress=False)
    assert given.budget == 300 and load_run(tmp_path / "g").info["budget"] == 300
    exact = run(explainer, X[:2], "exact", out=tmp_path / "e", n_jobs=1, progress=False)
    assert exact.budget is None and load_run(tmp_path / "e").info["budget"] is None  # no budget: enumerated


def test_a_run_begun_before_budgets_were_recorded_resumes(data, tmp_path):
    """Its parts have no budget column and its entries no budgets: resumed with the same call, not refused."""
    import pyarrow.parquet as pq

    from interplay.runs._store import sha256_file

    background, X = data
    explainer = ip.Explainer(linear, background)
    out = tmp_path / "r"
    run(explainer, X, "permutation", out=out, chunk_size=2, n_jobs=1, random_state=1, progress=False)
    path = out / "run-manifest.json"
    manifest = json.loads(path.read_text())
    for entry in manifest["chunks"].values():  # as the previous version wrote them
        part = out / entry["file"]
        pq.write_table(pq.read_table(part).drop_columns(["budget"]), part)
        entry.pop("budgets")
        entry["sha256"], entry["bytes"] = sha256_file(str(part)), part.stat().st_size
    (out / manifest["chunks"].pop("1")["file"]).unlink()
    manifest["complete"] = False
    path.write_text(json.dumps(manifest))
    resumed = run(explainer, X, "permutation", out=out, chunk_size=2, n_jobs=1, progress=False)
    single = explainer.shapley(X, method="permutation", random_state=1)
    np.testing.assert_array_equal(load_run(out).values, single.values)
    assert resumed.budget == single.info["budget"]  # the recomputed chunk's rows recorded it
    assert load_run(out).info["budget"] == single.info["budget"]


def test_the_cli_records_the_default_budget_in_its_results(tmp_path):
    pd = pytest.importorskip("pandas")
    sio = pytest.importorskip("skops.io")
    from click.testing import CliRunner
    from sklearn.linear_model import LinearRegression

    from interplay import io
    from interplay.cli import main

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(20, D)), columns=[f"f{i}" for i in range(D)])
    sio.dump(LinearRegression().fit(frame, frame.sum(axis=1)), tmp_path / "model.skops")
    frame.to_csv(tmp_path / "data.csv", index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, [str(a) for a in (
        "explain", tmp_path / "model.skops", tmp_path / "data.csv", "--rows", "0-2", "--method", "permutation",
        "--background", "5", "--detail-rows", "1", "--index", "sii", "--n-jobs", "1", "--out", out)],
        catch_exceptions=False)
    assert result.exit_code == 0, result.output
    shapley = io.load(out / "shapley.json")
    assert isinstance(shapley.info["budget"], int) and shapley.info["budget"] == open_run(out).budget
    detail = io.load(out / "row-0-bivariate.json")  # (the sii file: 2**10 coalitions fit, enumerated, None)
    assert isinstance(detail.info["budget"], int) and detail.univariate.info["budget"] == detail.info["budget"]
    assert f"{shapley.info['budget']}" in (out / "report.html").read_text()
