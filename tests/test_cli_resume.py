"""`interplay explain --resume`: the batch run behind explain, interrupted (parts lost, corrupted, SIGKILL) and
resumed, gives exactly the uninterrupted run; other options are refused; the background is rebuilt identically."""

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from click.testing import CliRunner

pd = pytest.importorskip("pandas")
pytest.importorskip("sklearn")
sio = pytest.importorskip("skops.io")

import interplay as ip  # noqa: E402
from interplay import io  # noqa: E402
from interplay.cli import main  # noqa: E402
from _interrupt import interrupt_after_first_chunk, recorded_chunks, with_ctrl_c  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.abspath(ip.__file__)).rsplit(os.sep, 1)[0]
# a sampling method, so that the per-row seeds matter (exact values would hide a seeding mix-up)
OPTIONS = ["--rows", "all", "--method", "permutation", "--budget", "48", "--seed", "5", "--background", "12",
           "--chunk-size", "7", "--n-jobs", "1", "--detail-rows", "2", "--index", "none", "--drop", "label",
           "--trust-model"]  # the tree model holds a type skops does not trust by default


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small nonlinear regression model (skops) and a CSV of 30 rows x 4 features plus a label column."""
    from sklearn.ensemble import GradientBoostingRegressor

    tmp = tmp_path_factory.mktemp("resume")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 4)), columns=["a", "b", "c", "d"])
    y = X["a"] * X["b"] + np.sin(X["c"]) - X["d"]
    model = GradientBoostingRegressor(n_estimators=20, max_depth=2, random_state=0).fit(X, y)
    sio.dump(model, tmp / "model.skops")
    X.assign(label=y).to_csv(tmp / "data.csv", index=False)
    out = tmp / "reference"
    result = run("explain", tmp / "model.skops", tmp / "data.csv", *OPTIONS, "--out", out)
    assert result.exit_code == 0, result.output
    return {"dir": tmp, "X": X, "model": model, "reference": out}


def explain(files, out, *extra):
    d = files["dir"]
    return run("explain", d / "model.skops", d / "data.csv", *OPTIONS, *extra, "--out", out)


def run_rows(out):
    return ip.open_run(out).table().column("row").to_numpy()


def test_the_run_is_the_library_run_and_the_report_reads_it(files):
    out = files["reference"]
    reference = io.load(out / "shapley.json")
    assert len(reference) == 30 and reference.info["rows"] == list(range(30))
    assert reference.info["detail_rows"] == [0, 1] and len(reference.info["predictions"]) == 30
    assert None not in reference.info["predictions"]  # past the detail rows by efficiency (they were None)
    np.testing.assert_allclose(reference.info["predictions"], files["model"].predict(files["X"]), atol=1e-9)
    assert sorted(p.name for p in (out / "parts").iterdir()) == [f"part-{k:06d}.parquet" for k in range(5)]
    np.testing.assert_array_equal(ip.load_run(out).values, reference.values)
    np.testing.assert_array_equal(run_rows(out), np.arange(30))
    assert json.loads((out / "manifest.json").read_text())["results"] == [
        "shapley.json", "row-0-bivariate.json", "row-1-bivariate.json"]
    # the same numbers as ip.run gives directly, with the background the CLI draws from --seed/--background
    X = files["X"]
    take = np.random.default_rng(5).choice(len(X), size=12, replace=False)
    explainer = ip.Explainer(files["model"], X.iloc[np.sort(take)])
    direct = explainer.shapley(X, method="permutation", budget=48, random_state=5)
    np.testing.assert_array_equal(reference.values, direct.values)
    assert "row 29" in (out / "report.html").read_text()


def test_lost_and_corrupt_chunks_are_recomputed_on_resume(files, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(files["reference"], out)
    reference = io.load(out / "shapley.json").values
    manifest_path = out / "run-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    # an interrupted run: chunk 3 never finished (no part, no entry), part 1 truncated, no results or report yet
    (out / manifest["chunks"].pop("3")["file"]).unlink()
    part1 = out / manifest["chunks"]["1"]["file"]
    part1.write_bytes(part1.read_bytes()[:50])
    manifest["complete"] = False
    manifest_path.write_text(json.dumps(manifest))
    for name in ("shapley.json", "report.html", "manifest.json"):
        (out / name).unlink()
    kept = {p.name: p.stat().st_mtime_ns for p in (out / "parts").iterdir() if p.name not in (part1.name,)}

    # without --resume: refused, nothing touched
    result = explain(files, out)
    assert result.exit_code != 0 and "--resume" in result.output and "unfinished run (23 rows done)" in result.output
    assert "Traceback" not in result.output

    result = explain(files, out, "--resume")
    assert result.exit_code == 0, result.output
    assert "resuming" in result.output and "part-000001.parquet is missing, truncated or corrupt" in result.output
    np.testing.assert_array_equal(io.load(out / "shapley.json").values, reference)
    np.testing.assert_array_equal(ip.load_run(out).values, reference)
    np.testing.assert_array_equal(run_rows(out), np.arange(30))  # no gap, no duplicate
    after = {p.name: p.stat().st_mtime_ns for p in (out / "parts").iterdir()}
    assert {k: after[k] for k in kept} == kept  # finished chunks were kept, not recomputed
    assert sorted(after) == sorted(p.name for p in (files["reference"] / "parts").iterdir())

    # a finished run: --resume recomputes nothing and gives the same results; without it, refused
    result = explain(files, out, "--resume", "--n-jobs", "2", "--title", "again")
    assert result.exit_code == 0, result.output
    assert {p.name: p.stat().st_mtime_ns for p in (out / "parts").iterdir()} == after
    assert "again" in (out / "report.html").read_text()
    result = explain(files, out)
    assert result.exit_code != 0 and "already holds a finished run" in result.output
    # --overwrite starts afresh (same numbers again: nothing depends on the earlier run)
    result = explain(files, out, "--overwrite")
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(ip.load_run(out).values, reference)


@pytest.mark.parametrize("change, option", [
    (["--seed", "6"], "--seed"),
    (["--background", "11"], "--background"),
    (["--budget", "64"], "--budget"),
    (["--removal", "baseline"], "--removal"),
    (["--rows", "0-28"], "--rows"),
])
def test_resume_with_other_options_is_refused(files, tmp_path, change, option):
    out = tmp_path / "out"
    shutil.copytree(files["reference"], out)
    before = (out / "run-manifest.json").read_text()
    options = [*OPTIONS]
    key = options.index(change[0]) if change[0] in options else None
    if key is None:
        options += change
    else:
        options[key + 1] = change[1]
    d = files["dir"]
    result = run("explain", d / "model.skops", d / "data.csv", *options, "--resume", "--out", out)
    assert result.exit_code != 0
    assert "refusing to mix" in result.output and option in result.output, result.output
    assert "Traceback" not in result.output
    assert (out / "run-manifest.json").read_text() == before  # the run is left as it was
    # in the user's terms: the option as typed, its recorded value, and the run's own command; no hashes
    was = {"--seed": "5", "--background": "12", "--budget": "48", "--chunk-size": "7", "--removal": "marginal",
           "--rows": "all"}[option]
    assert f"{option} {change[1]}, was {was}" in result.output
    assert "sha256" not in result.output and "DATA" not in result.output
    assert "To finish that run, repeat its command:\n  interplay explain " in result.output
    command = result.output.split("To finish that run, repeat its command:\n  ", 1)[1].split("\n")[0]
    assert command.endswith(f"--out {out} --resume")
    result = run(*shlex.split(command)[1:])  # the command given works: the run's options, nothing recomputed
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(ip.load_run(out).values, io.load(files["reference"] / "shapley.json").values)


def test_background_and_model_are_recognised_across_processes(files, tmp_path):
    """A resume in a new process rebuilds the same background (from --seed/--background) and recognises the model
    file by its bytes; a changed model file is refused."""
    out = tmp_path / "out"
    shutil.copytree(files["reference"], out)
    d = files["dir"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    command = [sys.executable, "-m", "interplay.cli", "explain", str(d / "model.skops"), str(d / "data.csv"),
               *OPTIONS, "--resume", "--out", str(out)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    recorded = json.loads((files["reference"] / "run-manifest.json").read_text())["params"]
    assert json.loads((out / "run-manifest.json").read_text())["params"] == recorded
    # another model in a file of the same name: refused
    from sklearn.linear_model import LinearRegression

    other = tmp_path / "model.skops"
    sio.dump(LinearRegression().fit(files["X"], files["X"]["a"]), other)
    result = run("explain", other, d / "data.csv", *OPTIONS, "--resume", "--out", out)
    assert result.exit_code != 0 and "refusing to mix" in result.output and "MODEL" in result.output


KILLED = """
import sys
sys.path[:0] = [{src!r}, {tests!r}]
from interplay.cli import main
main([{args}])
"""


def test_sigkill_then_resume_gives_exactly_the_uninterrupted_run(tmp_path):
    import joblib

    from test_runs_models import NAMES

    rng = np.random.default_rng(1)
    pd.DataFrame(rng.normal(size=(40, 5)), columns=NAMES).to_csv(tmp_path / "data.csv", index=False)
    import test_runs_models

    joblib.dump(test_runs_models.slow_nonlinear, tmp_path / "model.joblib")  # a function: pickled by reference
    options = ["--rows", "all", "--chunk-size", "4", "--n-jobs", "1", "--detail-rows", "1", "--trust-model",
               "--seed", "2", "--background", "10"]
    out = tmp_path / "killed"
    args = ", ".join(repr(str(a)) for a in ["explain", tmp_path / "model.joblib", tmp_path / "data.csv", *options,
                                            "--out", out])
    script = tmp_path / "job.py"
    script.write_text(KILLED.format(src=SRC, tests=HERE, args=args))
    env = dict(os.environ, INTERPLAY_TEST_SLEEP="0.03")
    proc = subprocess.Popen([sys.executable, str(script)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    manifest = out / "run-manifest.json"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if len(recorded_chunks(manifest)) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the job ended before it could be killed"
    assert not json.loads(manifest.read_text())["complete"]

    command = ["explain", tmp_path / "model.joblib", tmp_path / "data.csv", *options]
    result = run(*command, "--out", out, "--resume", "--n-jobs", "2")
    assert result.exit_code == 0, result.output
    result = run(*command, "--out", tmp_path / "full")
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(run_rows(out), np.arange(40))
    np.testing.assert_array_equal(ip.load_run(out).values, ip.load_run(tmp_path / "full").values)
    np.testing.assert_array_equal(io.load(out / "shapley.json").values,
                                  io.load(tmp_path / "full" / "shapley.json").values)
    assert sorted(os.listdir(out / "parts")) == sorted(os.listdir(tmp_path / "full" / "parts"))


def test_bad_batch_options(files, tmp_path):
    result = explain(files, tmp_path / "o", "--resume", "--overwrite")
    assert result.exit_code != 0 and "exclude each other" in result.output
    result = explain(files, tmp_path / "o", "--n-jobs", "0")
    assert result.exit_code != 0 and "--n-jobs" in result.output
    result = CliRunner(env={"RAY_ADDRESS": None}).invoke(
        main, ["explain", str(files["dir"] / "model.skops"), str(files["dir"] / "data.csv"), *OPTIONS,
               "--backend", "ray", "--out", str(tmp_path / "o")])
    assert result.exit_code != 0 and "--ray-address" in result.output
    # --resume where there is no run yet simply starts one
    result = explain(files, tmp_path / "fresh", "--resume")
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(ip.load_run(tmp_path / "fresh").values,
                                  io.load(files["reference"] / "shapley.json").values)


def test_backend_options_reach_the_library(files, tmp_path, monkeypatch):
    """--backend/--ray-address/--n-jobs/--chunk-size are passed to ip.run as given (fast: ip.run is stubbed)."""
    calls = []

    def fake_run(explainer, X, method, **kwargs):
        calls.append(kwargs)
        raise RuntimeError("stub: stop here")

    monkeypatch.setattr(ip, "run", fake_run)
    result = explain(files, tmp_path / "o", "--backend", "ray", "--ray-address", "ray://head:10001",
                     "--n-jobs", "3", "--chunk-size", "9")
    assert result.exit_code != 0 and "stub: stop here" in result.output
    assert {k: calls[0][k] for k in ("backend", "ray_address", "n_jobs", "chunk_size", "random_state", "resume")} \
        == {"backend": "ray", "ray_address": "ray://head:10001", "n_jobs": 3, "chunk_size": 9, "random_state": 5,
            "resume": True}
    assert calls[0]["model_tag"].startswith("file-sha256:")


@pytest.mark.skipif(not os.environ.get("INTERPLAY_TEST_RAY_CLI"),
                    reason="starts a local Ray instance (~15 s); set INTERPLAY_TEST_RAY_CLI=1 to run it")
def test_ray_backend_gives_the_local_results(files, tmp_path):
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray instance is already connected in this process")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([SRC, HERE])}})
    try:
        address = ray.get_runtime_context().gcs_address
        result = explain(files, tmp_path / "ray", "--backend", "ray", "--ray-address", address, "--n-jobs", "2")
    finally:
        ray.shutdown()
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(ip.load_run(tmp_path / "ray").values,
                                  io.load(files["reference"] / "shapley.json").values)


def _slow_job(tmp_path, n_rows=40):
    """A CSV of ``n_rows`` rows and a slow model file (a function pickled by reference) for interrupted runs."""
    import joblib

    import test_runs_models
    from test_runs_models import NAMES

    rng = np.random.default_rng(1)
    pd.DataFrame(rng.normal(size=(n_rows, 5)), columns=NAMES).to_csv(tmp_path / "data.csv", index=False)
    joblib.dump(test_runs_models.slow_nonlinear, tmp_path / "model.joblib")
    return ["explain", str(tmp_path / "model.joblib"), str(tmp_path / "data.csv"), "--rows", "all", "--chunk-size",
            "4", "--n-jobs", "1", "--detail-rows", "1", "--trust-model", "--seed", "2", "--background", "10",
            "--method", "permutation", "--budget", "30"]


def test_ctrl_c_says_how_to_resume_and_that_command_finishes_the_run(tmp_path):
    args = _slow_job(tmp_path)
    out = tmp_path / "stopped"
    script = tmp_path / "job.py"
    script.write_text(KILLED.format(src=SRC, tests=HERE, args=", ".join(repr(a) for a in [*args, "--out", str(out)])))
    env = dict(os.environ, INTERPLAY_TEST_SLEEP="0.05", INTERPLAY_PROGRESS="0")
    proc = subprocess.Popen([sys.executable, str(script)], env=env, preexec_fn=with_ctrl_c, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    manifest = out / "run-manifest.json"
    err = interrupt_after_first_chunk(proc, manifest)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Aborted!" not in err
    assert "Interrupted. The " in err and f"finished rows are kept in {out}." in err
    command = err.split("To finish without recomputing them, run:\n  ", 1)[1].splitlines()[0]
    assert command.startswith("interplay explain ") and command.endswith(f"--out {out} --resume")
    done = recorded_chunks(manifest)
    assert 0 < len(done) < 10

    result = run(*shlex.split(command)[1:])  # exactly the command printed
    assert result.exit_code == 0, result.output
    assert all(json.loads(manifest.read_text())["chunks"][k] == v for k, v in done.items())  # kept, not redone
    full = run(*args, "--out", tmp_path / "full")
    assert full.exit_code == 0, full.output
    np.testing.assert_array_equal(run_rows(out), np.arange(40))
    np.testing.assert_array_equal(ip.load_run(out).values, ip.load_run(tmp_path / "full").values)
    np.testing.assert_array_equal(io.load(out / "shapley.json").values,
                                  io.load(tmp_path / "full" / "shapley.json").values)


def test_overwrite_deletes_the_old_outputs_before_any_new_work(tmp_path):
    args = _slow_job(tmp_path, n_rows=12)
    out = tmp_path / "out"
    first = run(*args, "--seed", "3", "--out", out)  # the old run: other values
    assert first.exit_code == 0, first.output
    old = sorted(p.name for p in out.iterdir())
    assert {"report.html", "manifest.json", "shapley.json", "run-manifest.json", "parts"} <= set(old)
    # the new command is killed at its first write: whatever it cleared must be all of the old outputs
    script = tmp_path / "job.py"
    script.write_text(KILLED.format(src=SRC, tests=HERE, args=", ".join(
        repr(a) for a in [*args, "--out", str(out), "--overwrite"])))
    env = dict(os.environ, INTERPLAY_CRASH_AT="*:1:start")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == []  # no old report or result
    # the next command starts afresh (no old run to refuse), with the new options' results only
    result = run(*args, "--out", out)
    assert result.exit_code == 0, result.output
    fresh = run(*args, "--out", tmp_path / "fresh")
    np.testing.assert_array_equal(ip.load_run(out).values, ip.load_run(tmp_path / "fresh").values)
    assert sorted(os.listdir(out / "parts")) == sorted(os.listdir(tmp_path / "fresh" / "parts"))
    assert fresh.exit_code == 0


def _stub_run_on_8_cpus(monkeypatch) -> list:
    """``ip.run`` replaced by a stub that records its keyword arguments and stops, on a machine of 8 CPUs: the
    list of the recorded calls (what explain asked for, e.g. its ``n_jobs``)."""
    from interplay.runs import _backends

    calls = []

    def fake_run(explainer, X, method, **kwargs):
        calls.append(kwargs)
        raise RuntimeError("stub: stop here")

    monkeypatch.setattr(ip, "run", fake_run)
    monkeypatch.setattr(_backends, "resolve_n_jobs", lambda n_jobs: 8 if n_jobs is None else n_jobs)
    return calls


@pytest.mark.parametrize("first, second, left", [(2, 10, 2), (10, 4, 5)])
def test_resume_with_another_chunk_size_counts_the_chunks_left_for_its_workers(files, tmp_path, monkeypatch, first,
                                                                                second, left):
    """Without --n-jobs, explain starts as many workers as chunks are left (at most the CPUs). On a resume with
    another --chunk-size it counted the run's chunks as if of the new size: 10 rows kept in five chunks of 2, with
    chunks of 10 left ceil(30 / 10) - 5 = -2, so one worker for the 20 rows left in two chunks; kept in one chunk of
    10, with chunks of 4: 8 - 1 = 7 workers for five chunks."""
    options = list(OPTIONS)
    del options[options.index("--n-jobs"):options.index("--n-jobs") + 2]
    options[options.index("--chunk-size") + 1] = str(first)
    d, out = files["dir"], tmp_path / "out"
    result = run("explain", d / "model.skops", d / "data.csv", *options, "--n-jobs", "1", "--out", out)
    assert result.exit_code == 0, result.output
    manifest_path = out / "run-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for key in [k for k, e in manifest["chunks"].items() if e["rows"][0] >= 10]:  # rows 0..9 kept
        (out / manifest["chunks"].pop(key)["file"]).unlink()
    manifest["complete"] = False
    manifest_path.write_text(json.dumps(manifest))

    calls = _stub_run_on_8_cpus(monkeypatch)
    options[options.index("--chunk-size") + 1] = str(second)
    result = run("explain", d / "model.skops", d / "data.csv", *options, "--resume", "--out", out)
    assert "stub: stop here" in result.output
    assert calls[0]["chunk_size"] == second and calls[0]["n_jobs"] == left


@pytest.mark.parametrize("damage", ["truncate", "delete"])
def test_resume_counts_a_damaged_part_as_left_for_its_workers(files, tmp_path, monkeypatch, damage):
    """A part that is missing or whose bytes do not match its checksum is recomputed by the run, so the worker
    count of a resume without --n-jobs counts its rows as left: of 30 rows in chunks of 10, rows 0-19 kept in two
    chunks, one of them damaged -> 2 chunks left, 2 workers (it counted 1)."""
    options = list(OPTIONS)
    del options[options.index("--n-jobs"):options.index("--n-jobs") + 2]
    options[options.index("--chunk-size") + 1] = "10"
    d, out = files["dir"], tmp_path / "out"
    result = run("explain", d / "model.skops", d / "data.csv", *options, "--n-jobs", "1", "--out", out)
    assert result.exit_code == 0, result.output
    manifest_path = out / "run-manifest.json"
    manifest = json.loads(manifest_path.read_text())
    assert len(manifest["chunks"]) >= 3
    for key in [k for k, e in manifest["chunks"].items() if e["rows"][0] >= 20]:  # rows 0..19 kept
        (out / manifest["chunks"].pop(key)["file"]).unlink()
    manifest["complete"] = False
    manifest_path.write_text(json.dumps(manifest))
    damaged = out / next(e["file"] for e in manifest["chunks"].values() if e["rows"][0] == 10)
    if damage == "truncate":
        damaged.write_bytes(damaged.read_bytes()[:-5])
    else:
        damaged.unlink()

    calls = _stub_run_on_8_cpus(monkeypatch)
    result = run("explain", d / "model.skops", d / "data.csv", *options, "--resume", "--out", out)
    assert "stub: stop here" in result.output
    assert calls[0]["n_jobs"] == 2
