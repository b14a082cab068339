"""Fault injection for batch runs (issue "Reliability"): the driver killed (SIGKILL) at seeded points of a part's
write, of the run manifest's update and of the report's write; a disk full at seeded writes; a read-only output
folder; a local worker and a Ray actor that die. Each ends in a resume whose results are bitwise identical to an uninterrupted run's, with every
row exactly once.

The kill points use the one test hook of ``interplay._files.atomic_write`` (every file a run, the CLI or the report
writes goes through it): ``INTERPLAY_CRASH_AT="PATTERN:N:PHASE"`` SIGKILLs the process at the N-th write of a file
matching PATTERN, before writing, half-way through the temporary file, before the rename or after it.
"""

import builtins
import errno
import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
joblib = pytest.importorskip("joblib")

import interplay as ip  # noqa: E402
from interplay import _files, io  # noqa: E402
from interplay.cli import main  # noqa: E402
from interplay.runs import load_run, open_run, resume_run, run  # noqa: E402

import test_runs_models  # noqa: E402
from test_runs_models import NAMES, AlwaysDies, DieOnce, nonlinear  # noqa: E402
from _interrupt import recorded_chunks

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.abspath(ip.__file__)).rsplit(os.sep, 1)[0]
N_ROWS, CHUNK = 18, 3  # 6 chunks: 6 parts, 6 journal lines (one per chunk), 2 run-manifest writes (start, complete)
# a sampling method, so that a mix-up of the per-row seeds would show; --index sii adds interaction files
OPTIONS = ["--rows", "all", "--method", "permutation", "--budget", "40", "--seed", "3", "--background", "8",
           "--chunk-size", str(CHUNK), "--n-jobs", "1", "--detail-rows", "2", "--index", "sii", "--trust-model"]
WRITES = {"part-*.parquet": N_ROWS // CHUNK, "run-chunks.jsonl": N_ROWS // CHUNK, "run-manifest.json": 2, "report.html": 1,
          "shapley.json": 1, "manifest.json": 1, "row-*.json": 4}


def _kill_points(seed: int, per_file: dict) -> list[tuple[str, int, str]]:
    """Seeded kill points: for each file pattern, which of its writes and at which phase."""
    rng = np.random.default_rng(seed)
    points = []
    others = [phase for phase in _files.CRASH_PHASES if phase != "partial"]
    for pattern, count in per_file.items():
        # a half-written temporary file always, then other phases at random
        for phase in ["partial", *rng.choice(others, size=count - 1, replace=False)]:
            points.append((pattern, int(rng.integers(1, WRITES[pattern] + 1)), str(phase)))
    return points


CLI_POINTS = _kill_points(15, {"part-*.parquet": 3, "run-manifest.json": 3, "report.html": 2, "shapley.json": 1,
                               "run-chunks.jsonl": 3})  # the journal's "partial": a torn last line
API_POINTS = _kill_points(16, {"part-*.parquet": 1, "run-manifest.json": 1, "run-chunks.jsonl": 1})

CLI_SCRIPT = """
import sys
sys.path[:0] = [{src!r}, {tests!r}]
from interplay.cli import main
main({args!r})
"""

API_SCRIPT = """
import sys
sys.path[:0] = [{src!r}, {tests!r}]
import numpy as np
import interplay as ip
from test_runs_models import NAMES, nonlinear
data = np.load({data!r})
explainer = ip.Explainer(nonlinear, data["background"], feature_names=NAMES)
ip.run(explainer, data["X"], "permutation", budget=40, out={out!r}, chunk_size={chunk}, n_jobs={n_jobs},
       random_state=7, progress=False)
"""


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("faults")
    rng = np.random.default_rng(4)
    X = rng.normal(size=(N_ROWS, len(NAMES)))
    pd.DataFrame(X, columns=NAMES).to_csv(tmp / "data.csv", index=False)
    joblib.dump(test_runs_models.nonlinear, tmp / "model.joblib")  # a function: pickled by reference
    background = rng.normal(size=(6, len(NAMES)))
    np.savez(tmp / "data.npz", X=X, background=background)
    reference = tmp / "reference"
    result = cli("explain", tmp / "model.joblib", tmp / "data.csv", *OPTIONS, "--out", reference)
    assert result.exit_code == 0, result.output
    return {"dir": tmp, "X": X, "background": background, "reference": reference}


def _kill_at(script: str, point: tuple[str, int, str]) -> None:
    pattern, n, phase = point
    env = dict(os.environ, **{_files.CRASH_VARIABLE: f"{pattern}:{n}:{phase}"})
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, f"not killed at {point}: rc={done.returncode}\n{done.stderr[-2000:]}"


def _no_half_written_file(out) -> None:
    """After the kill: the run manifest (if any) is complete JSON and every part it lists verifies, those its
    journal lists too (all of its lines complete JSON but a torn last one)."""
    manifest = out / "run-manifest.json"
    if manifest.exists():
        json.loads(manifest.read_text())
        journal = out / "run-chunks.jsonl"
        if journal.exists():
            for line in journal.read_bytes().split(b"\n")[:-1]:
                json.loads(line)
        for entry in recorded_chunks(manifest).values():
            assert _files_sha(out / entry["file"]) == entry["sha256"]
    for name in ("shapley.json", "manifest.json"):
        if (out / name).exists():
            json.loads((out / name).read_text())


def _files_sha(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def _same_run(out, reference) -> None:
    """Bitwise the reference run: the same manifest entries (part bytes' SHA-256, rows, data fingerprints), the
    same part files and nothing else, every row exactly once, the same numbers; no temporary file left."""
    got, want = (json.loads((d / "run-manifest.json").read_text()) for d in (out, reference))
    assert got["complete"] and got["chunks"] == want["chunks"] and got["params"] == want["params"]
    assert sorted(os.listdir(out / "parts")) == sorted(os.listdir(reference / "parts"))
    for name in os.listdir(reference / "parts"):
        assert (out / "parts" / name).read_bytes() == (reference / "parts" / name).read_bytes()
    np.testing.assert_array_equal(open_run(out).table().column("row").to_numpy(), np.arange(N_ROWS))
    a, b = load_run(out), load_run(reference)
    for field in ("values", "base_values", "std_errors", "n_evaluations", "data"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name or ".probe-" in p.name]
    assert not (out / "run-chunks.jsonl").exists()  # folded into the manifest


@pytest.mark.parametrize("point", CLI_POINTS, ids=[":".join(map(str, p)) for p in CLI_POINTS])
def test_cli_killed_at_a_write_resumes_to_the_uninterrupted_results(files, tmp_path, point):
    d, out = files["dir"], tmp_path / "out"
    args = ["explain", str(d / "model.joblib"), str(d / "data.csv"), *OPTIONS, "--out", str(out)]
    _kill_at(CLI_SCRIPT.format(src=SRC, tests=HERE, args=args), point)
    _no_half_written_file(out)

    result = cli(*args[:3], *OPTIONS, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    reference = files["reference"]
    _same_run(out, reference)
    for name in json.loads((reference / "manifest.json").read_text())["results"]:
        want, got = io.load(reference / name), io.load(out / name)
        for field in ("values", "adjacency"):
            if hasattr(want, field):
                np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
    assert json.loads((out / "manifest.json").read_text())["results"] \
        == json.loads((reference / "manifest.json").read_text())["results"]
    assert f"row {N_ROWS - 1}" in (out / "report.html").read_text()


@pytest.mark.parametrize("point, n_jobs", list(zip(API_POINTS, [1, 2, 2])), ids=[":".join(map(str, p)) for p in API_POINTS])
def test_ip_run_killed_at_a_write_resumes_to_the_uninterrupted_results(files, tmp_path, point, n_jobs):
    """With n_jobs=2, local worker processes have chunks in flight when the driver dies."""
    d = files["dir"]
    explainer = ip.Explainer(nonlinear, files["background"], feature_names=NAMES)
    reference = tmp_path / "reference"
    run(explainer, files["X"], "permutation", budget=40, out=reference, chunk_size=CHUNK, n_jobs=1,
        random_state=7, progress=False)
    out = tmp_path / "out"
    _kill_at(API_SCRIPT.format(src=SRC, tests=HERE, data=str(d / "data.npz"), out=str(out), chunk=CHUNK,
                               n_jobs=n_jobs), point)
    _no_half_written_file(out)
    if (out / "run-manifest.json").exists():
        resume_run(explainer, files["X"], out, n_jobs=1, progress=False)
    else:  # killed before the run was recorded: the same call starts it
        run(explainer, files["X"], "permutation", budget=40, out=out, chunk_size=CHUNK, n_jobs=1, random_state=7,
            progress=False)
    _same_run(out, reference)


# ---------------------------------------------------------------------------------------------- full disk
FULL_POINTS = [(pattern, int(n)) for pattern, n in zip(
    ["part-*.parquet", "run-manifest.json", "report.html"],
    np.random.default_rng(17).integers(1, [WRITES["part-*.parquet"] + 1, WRITES["run-manifest.json"] + 1, 2]))]


@pytest.mark.parametrize("point", FULL_POINTS, ids=[":".join(map(str, p)) for p in FULL_POINTS])
def test_disk_full_at_a_write_then_resume_gives_the_uninterrupted_results(files, tmp_path, monkeypatch, point):
    import fnmatch

    pattern, n = point
    seen = {"n": 0}
    real = _files._write

    def write(fh, data):  # the n-th matching write finds the disk full half-way
        if fnmatch.fnmatchcase(os.path.basename(fh.name).split(".tmp-")[0].lstrip("."), pattern):
            seen["n"] += 1
            if seen["n"] == n:
                fh.write(data[: len(data) // 2])
                fh.flush()
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fh, data)

    d, out = files["dir"], tmp_path / "out"
    args = ["explain", d / "model.joblib", d / "data.csv", *OPTIONS, "--out", out]
    monkeypatch.setattr(_files, "_write", write)
    result = cli(*args)
    monkeypatch.undo()
    assert result.exit_code == 1 and "no space left on device" in result.output, result.output
    assert "Traceback" not in result.output and "--resume" in result.output
    _no_half_written_file(out)
    assert not [p for p in out.rglob("*") if ".tmp-" in p.name]
    result = cli(*args, "--resume")
    assert result.exit_code == 0, result.output
    _same_run(out, files["reference"])
    assert f"row {N_ROWS - 1}" in (out / "report.html").read_text()


# ---------------------------------------------------------------------------------------------- read-only folder
def _read_only(monkeypatch, folder) -> None:
    """Every write, creation, rename or removal under ``folder`` fails with EROFS (a read-only file system: the
    tests may run as root, for whom a chmod changes nothing)."""
    folder = os.path.realpath(folder)

    def inside(path) -> bool:
        try:
            path = os.path.realpath(os.fspath(path))
        except TypeError:  # a file descriptor
            return False
        return path == folder or path.startswith(folder + os.sep)

    def refuse(path):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))

    real_open, real_os_open = builtins.open, os.open

    def fake_open(file, mode="r", *args, **kwargs):
        if any(c in mode for c in "wax+") and inside(file):
            refuse(file)
        return real_open(file, mode, *args, **kwargs)

    def fake_os_open(path, flags, *args, **kwargs):
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and inside(path):
            refuse(path)
        return real_os_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "open", fake_os_open)
    for name in ("mkdir", "remove", "unlink", "rmdir"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda path, *a, _real=real, **k: refuse(path) if inside(path)
                            else _real(path, *a, **k))
    for name in ("replace", "rename"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda src, dst, *a, _real=real, **k: refuse(dst) if inside(src) or inside(dst)
                            else _real(src, dst, *a, **k))


def _snapshot(folder) -> dict:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in folder.rglob("*")}


def test_read_only_output_is_a_clear_error_and_leaves_nothing(files, tmp_path, monkeypatch):
    explainer = ip.Explainer(nonlinear, files["background"], feature_names=NAMES)
    locked = tmp_path / "locked"
    locked.mkdir()
    _read_only(monkeypatch, locked)
    with pytest.raises(ValueError, match=r"out: cannot write to the output directory .*locked.*Read-only file system"):
        run(explainer, files["X"], out=locked / "run", chunk_size=CHUNK, n_jobs=1, progress=False)
    with pytest.raises(ValueError, match=r"out: cannot write .*locked.*Read-only"):
        run(explainer, files["X"], out=locked, chunk_size=CHUNK, n_jobs=1, progress=False)
    d = files["dir"]
    for out in (locked, locked / "sub"):
        result = cli("explain", d / "model.joblib", d / "data.csv", *OPTIONS, "--out", out)
        assert result.exit_code in (1, 2), result.output  # an error (2: of the --out option), not a crash
        assert "Traceback" not in result.output and "Read-only file system" in result.output
        assert str(locked) in result.output
    monkeypatch.undo()
    assert list(locked.iterdir()) == []  # no partial garbage


def test_a_run_whose_folder_became_read_only_is_refused_untouched_then_resumes(files, tmp_path, monkeypatch):
    d, out = files["dir"], tmp_path / "out"
    shutil_copy(files["reference"], out)
    manifest = json.loads((out / "run-manifest.json").read_text())
    for key in ("4", "5"):  # an interrupted run: two chunks not done
        (out / manifest["chunks"].pop(key)["file"]).unlink()
    manifest["complete"] = False
    (out / "run-manifest.json").write_text(json.dumps(manifest))
    for name in ("report.html", "manifest.json", "shapley.json"):
        (out / name).unlink()
    before = _snapshot(out)
    _read_only(monkeypatch, out)
    result = cli("explain", d / "model.joblib", d / "data.csv", *OPTIONS, "--out", out, "--resume")
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "Read-only file system" in result.output and str(out) in result.output
    explainer = ip.Explainer(nonlinear, files["background"], feature_names=NAMES)
    with pytest.raises(ValueError, match="out: cannot write .*Read-only"):
        resume_run(explainer, files["X"], out, n_jobs=1, progress=False)
    monkeypatch.undo()
    assert _snapshot(out) == before
    result = cli("explain", d / "model.joblib", d / "data.csv", *OPTIONS, "--out", out, "--resume")
    assert result.exit_code == 0, result.output
    _same_run(out, files["reference"])


def shutil_copy(src, dst):
    import shutil

    shutil.copytree(src, dst)


# ---------------------------------------------------------------------------------------------- dying workers
def test_a_local_worker_dying_mid_run_is_replaced(files, tmp_path):
    explainer = ip.Explainer(DieOnce(str(tmp_path / "marker")), files["background"], feature_names=NAMES)
    reference = ip.Explainer(nonlinear, files["background"], feature_names=NAMES)
    run(explainer, files["X"], "permutation", budget=40, out=tmp_path / "out", chunk_size=CHUNK, n_jobs=2,
        random_state=7, progress=False)
    assert (tmp_path / "marker").exists()  # a worker did die
    run(reference, files["X"], "permutation", budget=40, out=tmp_path / "ref", chunk_size=CHUNK, n_jobs=1,
        random_state=7, progress=False)
    np.testing.assert_array_equal(load_run(tmp_path / "out").values, load_run(tmp_path / "ref").values)


def test_workers_that_keep_dying_are_reported_clearly(files, tmp_path):
    explainer = ip.Explainer(AlwaysDies(), files["background"], feature_names=NAMES)
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match=r"worker processes died .* rows 0\.\.2.*resume"):
        run(explainer, files["X"], out=out, chunk_size=CHUNK, n_jobs=2, progress=False)
    assert json.loads((out / "run-manifest.json").read_text())["chunks"] == {}


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a Ray instance is already connected in this process")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([SRC, HERE])}})
    yield ray
    ray.shutdown()


def test_a_ray_actor_dying_mid_run_is_replaced(files, tmp_path, ray_cluster):
    explainer = ip.Explainer(DieOnce(str(tmp_path / "marker")), files["background"], feature_names=NAMES)
    run(explainer, files["X"], "permutation", budget=40, out=tmp_path / "out", backend="ray", chunk_size=CHUNK,
        n_jobs=2, random_state=7, progress=False)
    assert (tmp_path / "marker").exists()  # an actor did die
    reference = ip.Explainer(nonlinear, files["background"], feature_names=NAMES)
    run(reference, files["X"], "permutation", budget=40, out=tmp_path / "ref", chunk_size=CHUNK, n_jobs=1,
        random_state=7, progress=False)
    _same_run_values(tmp_path / "out", tmp_path / "ref")


def test_ray_actors_that_keep_dying_are_reported_clearly(files, tmp_path, ray_cluster):
    explainer = ip.Explainer(AlwaysDies(), files["background"], feature_names=NAMES)
    with pytest.raises(RuntimeError, match=r"Ray actors died 4 times.* rows \d+\.\.\d+.*resume"):
        run(explainer, files["X"], out=tmp_path / "out", backend="ray", chunk_size=CHUNK, n_jobs=1, progress=False)


def _same_run_values(out, reference):
    np.testing.assert_array_equal(open_run(out).table().column("row").to_numpy(), np.arange(N_ROWS))
    a, b = load_run(out), load_run(reference)
    for field in ("values", "base_values", "std_errors", "n_evaluations"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
