"""Batch runs (interplay.runs): chunking/backend invariance, resume after SIGKILL, corrupt parts, refusals."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import interplay as ip
from interplay.estimators import _registry
from interplay.runs import load_run, open_run, resume_run, run
from test_runs_models import NAMES, DieOnce, NoisyModel, _noisy, nonlinear, other_model, slow_nonlinear
from _interrupt import recorded_chunks

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.abspath(ip.__file__)).rsplit(os.sep, 1)[0]


@pytest.fixture
def noisy(monkeypatch):
    monkeypatch.setitem(_registry._REGISTRY["shapley"], "test-noisy", _noisy)


# ---------------------------------------------------------------- data
@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(8, 5)), rng.normal(size=(23, 5))


def _explainer(model=nonlinear, removal="marginal", background=None):
    return ip.Explainer(model, background, removal=removal, feature_names=NAMES)


@pytest.fixture(scope="module")
def reference(data):
    background, X = data
    return _explainer(background=background).shapley(X)


def _rows_and_values(out):
    table = open_run(out).table()
    return table.column("row").to_numpy(), load_run(out).values


# ---------------------------------------------------------------- invariance
def test_matches_explainer_for_chunk_sizes_and_workers(data, reference, tmp_path):
    background, X = data
    explainer = _explainer(background=background)
    for chunk_size, n_jobs in [(1, 1), (3, 1), (7, 1), (7, 2)]:
        out = tmp_path / f"c{chunk_size}-j{n_jobs}"
        result = run(explainer, X, out=out, chunk_size=chunk_size, n_jobs=n_jobs)
        assert result.complete and result.n_rows == len(X)
        explanation = load_run(out)
        np.testing.assert_array_equal(explanation.values, reference.values)
        np.testing.assert_array_equal(explanation.base_values, reference.base_values)
        np.testing.assert_array_equal(explanation.data, X)
        np.testing.assert_array_equal(explanation.n_evaluations, reference.n_evaluations)
        assert explanation.feature_names == tuple(NAMES)
        assert len(os.listdir(out / "parts")) == -(-len(X) // chunk_size)


def test_random_method_seeded_per_row(data, tmp_path, noisy):
    background, X = data
    explainer = _explainer(NoisyModel(), background=background)
    expected = explainer.shapley(X, method="test-noisy", random_state=7)
    assert not np.allclose(expected.values, explainer.shapley(X, method="exact").values)  # the noise is there
    for chunk_size, n_jobs in [(1, 1), (3, 2), (7, 1)]:
        out = tmp_path / f"c{chunk_size}-j{n_jobs}"
        run(explainer, X, "test-noisy", out=out, chunk_size=chunk_size, n_jobs=n_jobs, random_state=7)
        got = load_run(out)
        np.testing.assert_array_equal(got.values, expected.values)
        np.testing.assert_array_equal(got.std_errors, expected.std_errors)
    other = tmp_path / "seed8"
    run(explainer, X, "test-noisy", out=other, chunk_size=5, n_jobs=1, random_state=8, progress=True)
    assert not np.allclose(load_run(other).values, expected.values)
    # resume_run reads the options back from the manifest, so they must survive JSON
    run(explainer, X, "test-noisy", out=tmp_path / "json", chunk_size=5, n_jobs=1, scale=[1, 2])
    assert resume_run(explainer, X, tmp_path / "json", n_jobs=1).complete
    run(explainer, X, "test-noisy", out=tmp_path / "array", chunk_size=5, n_jobs=1, scale=np.ones(2))
    with pytest.raises(ValueError, match="not plain JSON"):
        resume_run(explainer, X, tmp_path / "array", n_jobs=1)


def test_files_and_dataframes_give_the_same_rows(data, reference, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    background, X = data
    explainer = _explainer(background=background)
    frame = pd.DataFrame(X[:, ::-1], columns=NAMES[::-1])  # other column order: matched by name
    frame.insert(2, "id", np.arange(len(X)))  # an extra column is ignored
    frame.to_csv(tmp_path / "x.csv", index=False)
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "x.parquet", row_group_size=4)
    for i, source in enumerate([frame, str(tmp_path / "x.csv"), tmp_path / "x.parquet"]):
        run(explainer, source, out=tmp_path / f"out{i}", chunk_size=5, n_jobs=1)
        np.testing.assert_array_equal(load_run(tmp_path / f"out{i}").values, reference.values)


def test_labels_from_a_column(data, tmp_path):
    background, X = data
    y = np.arange(len(X), dtype=float)
    explainer = ip.Explainer(nonlinear, background, output="loss", feature_names=NAMES)
    expected = explainer.shapley(X, y=y)
    frame = pd.DataFrame(X, columns=NAMES).assign(target=y)
    run(explainer, frame, out=tmp_path / "a", y="target", chunk_size=4, n_jobs=1)
    run(explainer, X, out=tmp_path / "b", y=y, chunk_size=6, n_jobs=1)
    np.testing.assert_array_equal(load_run(tmp_path / "a").values, expected.values)
    np.testing.assert_array_equal(load_run(tmp_path / "b").values, expected.values)


def test_bivariate_cohort_graphs_and_importance(data, tmp_path):
    background, X = data
    X = X[:9]
    explainer = _explainer(background=background)
    result = run(explainer, X, out=tmp_path, kind="bivariate", chunk_size=4, n_jobs=1)
    graphs = [explainer.bivariate(x) for x in X]
    adjacency = np.array([g.adjacency for g in graphs])
    shapley = np.array([g.univariate.values for g in graphs])
    np.testing.assert_allclose(load_run(tmp_path).info["adjacency"], adjacency, rtol=0, atol=1e-14)
    cohort = X[:, 0] > 0
    assert 0 < cohort.sum() < len(X)
    graph = result.cohort_graph(cohort)  # magnitudes, as graph() and mean_graph
    np.testing.assert_allclose(graph.adjacency, np.abs(adjacency[cohort]).mean(axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(graph.univariate.values, np.abs(shapley[cohort]).mean(axis=0), rtol=1e-12, atol=1e-14)
    graph = result.cohort_graph(cohort, aggregate="signed")
    np.testing.assert_allclose(graph.adjacency, adjacency[cohort].mean(axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(graph.univariate.values, shapley[cohort].mean(axis=0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(result.cohort_graph(aggregate="signed").adjacency, adjacency.mean(axis=0),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(result.global_importance(), np.abs(shapley).mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(result.global_importance(np.flatnonzero(cohort)),
                               np.abs(shapley[cohort]).mean(axis=0), rtol=1e-12)
    frame = result.to_pandas()
    assert list(frame.index) == list(range(len(X)))
    assert frame["adjacency.age->income"].to_numpy() == pytest.approx(adjacency[:, 0, 1], abs=1e-14)
    with pytest.raises(ValueError, match="mask needs 9 entries"):
        result.global_importance(np.ones(3, dtype=bool))


# ---------------------------------------------------------------- crash, resume, corruption
KILL_SCRIPT = """
import sys
sys.path[:0] = [{src!r}, {tests!r}]
import numpy as np, interplay as ip, test_runs_models as T
from interplay.runs import run
background, X = np.load({data!r})["background"], np.load({data!r})["X"]
run(ip.Explainer(T.slow_nonlinear, background, feature_names=T.NAMES), X, out={out!r},
            chunk_size=4, n_jobs=1)
"""


def test_sigkill_then_resume_gives_exactly_the_uninterrupted_run(data, tmp_path):
    background, X = data
    X = np.vstack([X, X + 1.0])  # 46 rows, 12 chunks
    np.savez(tmp_path / "data.npz", background=background, X=X)
    out = tmp_path / "killed"
    script = tmp_path / "job.py"
    script.write_text(KILL_SCRIPT.format(src=SRC, tests=HERE, data=str(tmp_path / "data.npz"), out=str(out)))
    env = dict(os.environ, INTERPLAY_TEST_SLEEP="0.02")  # ~0.2 s per chunk
    proc = subprocess.Popen([sys.executable, str(script)], env=env)
    manifest = out / "run-manifest.json"
    deadline = time.monotonic() + 60
    done = 0
    while time.monotonic() < deadline and proc.poll() is None:
        if manifest.exists():
            done = len(recorded_chunks(manifest))  # the manifest and the journal of finished chunks
            if done >= 3:
                break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the job ended before it could be killed"
    recorded = json.loads(manifest.read_text())
    assert 3 <= len(recorded_chunks(manifest)) < 12 and not recorded["complete"]

    explainer = _explainer(slow_nonlinear, background=background)
    resumed = resume_run(explainer, X, out, n_jobs=2)  # what `interplay explain --resume` calls
    full = run(explainer, X, out=tmp_path / "full", chunk_size=4, n_jobs=1)
    assert resumed.complete
    rows, values = _rows_and_values(out)
    np.testing.assert_array_equal(rows, np.arange(len(X)))  # no gaps, no duplicates
    np.testing.assert_array_equal(values, load_run(tmp_path / "full").values)
    assert resumed.n_evaluations == full.n_evaluations
    assert sorted(os.listdir(out / "parts")) == sorted(os.listdir(tmp_path / "full" / "parts"))
    assert not [f for f in os.listdir(out) if ".tmp-" in f]


def test_corrupt_and_missing_parts_are_recomputed(data, reference, tmp_path):
    background, X = data
    explainer = _explainer(background=background)
    run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=1)
    parts = sorted((tmp_path / "parts").iterdir())
    truncated, flipped, removed = parts[0], parts[2], parts[4]
    truncated.write_bytes(truncated.read_bytes()[:100])
    data_bytes = bytearray(flipped.read_bytes())
    data_bytes[len(data_bytes) // 2] ^= 0xFF
    flipped.write_bytes(bytes(data_bytes))
    removed.unlink()
    with pytest.warns(RuntimeWarning, match="corrupt") as caught:
        run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=1)
    assert len(caught) == 3
    rows, values = _rows_and_values(tmp_path)
    np.testing.assert_array_equal(rows, np.arange(len(X)))
    np.testing.assert_array_equal(values, reference.values)
    # an intact run resumes without recomputing anything
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "parts").iterdir()}
    run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=1)
    assert before == {p.name: p.stat().st_mtime_ns for p in (tmp_path / "parts").iterdir()}


def test_a_dying_local_worker_is_replaced(data, reference, tmp_path):
    background, X = data
    explainer = _explainer(DieOnce(str(tmp_path / "marker")), background=background)
    run(explainer, X, out=tmp_path / "out", chunk_size=4, n_jobs=2)
    assert (tmp_path / "marker").exists()
    np.testing.assert_array_equal(load_run(tmp_path / "out").values, reference.values)


# ---------------------------------------------------------------- refusals and bad input
def test_changed_parameters_are_refused(data, tmp_path):
    background, X = data
    explainer = _explainer(background=background)
    run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=1, random_state=1)
    changes = [
        (dict(random_state=2), "seed_entropy"),
        (dict(kind="banzhaf"), "kind"),
        (dict(store_data=False), "store_data"),
        (dict(explainer=_explainer(other_model, background=background)), "model"),
        (dict(explainer=_explainer(background=background[:4])), "background"),
        (dict(explainer=_explainer(background=background, removal="conditional")), "removal"),
    ]
    for change, name in changes:
        kwargs = dict(explainer=explainer, X=X, out=tmp_path, chunk_size=5, n_jobs=1, random_state=1)
        kwargs.update(change)
        with pytest.raises(ValueError, match=f"refusing to mix(.|\n)*{name}: run has"):
            run(**kwargs)
    changed = X.copy()
    changed[12, 3] += 1e-9
    with pytest.raises(ValueError, match="refusing to mix(.|\n)*data: run has"):
        run(explainer, changed, out=tmp_path, chunk_size=5, n_jobs=1, random_state=1)
    with pytest.raises(ValueError, match="n_rows: run has 23, this call has 22"):
        run(explainer, X[:-1], out=tmp_path, chunk_size=5, n_jobs=1, random_state=1)
    with pytest.raises(ValueError, match="resume=False"):
        run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=1, random_state=1, resume=False)
    # same parameters (random_state=None reuses the recorded seed): accepted, nothing recomputed
    assert run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=2).complete
    assert run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=1, random_state=1).complete
    # another chunk_size is accepted (the numbers do not depend on it; tests/test_run_resume_rules.py)
    assert run(explainer, X, out=tmp_path, chunk_size=4, n_jobs=1, random_state=1).complete


def test_bad_input(data, tmp_path):
    background, X = data
    explainer = _explainer(background=background)
    lock = threading.Lock()
    unpicklable = ip.Explainer(lambda X, lock=lock: X.sum(axis=1), background)  # noqa: E731 (holds a lock)
    with pytest.raises(TypeError, match="model: cannot be pickled"):
        run(unpicklable, X, out=tmp_path / "a", n_jobs=1)
    assert not (tmp_path / "a").exists()  # checked before anything is written
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ValueError, match="out: cannot write"):
        run(explainer, X, out=blocker / "out", n_jobs=1)
    with pytest.raises(ValueError, match="at least one row"):
        run(explainer, X[:0], out=tmp_path / "b", n_jobs=1)
    (tmp_path / "empty.csv").write_text(",".join(NAMES) + "\n")
    with pytest.raises(ValueError, match="at least one row"):
        run(explainer, str(tmp_path / "empty.csv"), out=tmp_path / "b", n_jobs=1)
    with pytest.raises(ValueError, match="expected 5 columns"):
        run(explainer, X[:, :4], out=tmp_path / "c", n_jobs=1)
    renamed = pd.DataFrame(X, columns=["age", "income", "debt", "score", "years"])
    with pytest.raises(ValueError, match=r"missing \['tenure'\], unexpected \['years'\]"):
        run(explainer, renamed, out=tmp_path / "c", n_jobs=1)
    with pytest.raises(TypeError, match="non-numeric"):
        run(explainer, pd.DataFrame(X, columns=NAMES).assign(age="x"), out=tmp_path / "c", n_jobs=1)
    with pytest.raises(ValueError, match="method: expected one of"):
        run(explainer, X, "no-such-method", out=tmp_path / "c", n_jobs=1)
    with pytest.raises(ValueError, match="backend"):
        run(explainer, X, out=tmp_path / "c", backend="spark")
    with pytest.raises(ValueError, match="holds no run"):
        load_run(tmp_path / "nothing-here")
    nan = X.copy()
    nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        run(explainer, nan, out=tmp_path / "d", n_jobs=1)


def test_unfinished_run_is_not_loaded_as_complete(data, tmp_path):
    background, X = data
    explainer = _explainer(background=background)
    run(explainer, X, out=tmp_path, chunk_size=5, n_jobs=1)
    manifest = json.loads((tmp_path / "run-manifest.json").read_text())
    del manifest["chunks"]["2"]
    manifest["complete"] = False
    (tmp_path / "run-manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="not finished"):
        load_run(tmp_path)
    assert len(open_run(tmp_path).table()) == len(X) - 5  # finished rows stay readable


# ---------------------------------------------------------------- Ray
def test_ray_needs_an_existing_instance(data, tmp_path, monkeypatch):
    ray = pytest.importorskip("ray")
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    background, X = data
    with pytest.raises(RuntimeError, match=r"Ray is not initialised(.|\n)*ray.init"):
        run(_explainer(background=background), X, out=tmp_path, backend="ray")


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        yield ray
        return
    # the workers import this worktree's interplay and this test module (for the models)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             runtime_env={"env_vars": {"PYTHONPATH": os.pathsep.join([SRC, HERE])}})
    yield ray
    ray.shutdown()


def test_ray_gives_exactly_the_local_results(local_ray, data, reference, tmp_path, noisy):
    background, X = data
    noisy_explainer = _explainer(NoisyModel(), background=background)
    run(noisy_explainer, X, "test-noisy", out=tmp_path / "noisy", backend="ray", chunk_size=4, random_state=3,
        n_jobs=2)
    expected = noisy_explainer.shapley(X, method="test-noisy", random_state=3)
    np.testing.assert_array_equal(load_run(tmp_path / "noisy").values, expected.values)
    # a preempted worker: its actor dies, the chunk goes to a replacement actor
    dying = _explainer(DieOnce(str(tmp_path / "marker")), background=background)
    run(dying, X, out=tmp_path / "dying", backend="ray", chunk_size=5)
    assert (tmp_path / "marker").exists()
    np.testing.assert_array_equal(load_run(tmp_path / "dying").values, reference.values)


def test_run_with_feature_groups_matches_the_explainer(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 5))
    explainer = ip.Explainer(nonlinear, X[:5], groups={"ab": [0, 1], "cde": [2, 3, 4]})
    ip.run(explainer, X, out=tmp_path / "run", chunk_size=3, n_jobs=1)
    loaded = ip.load_run(tmp_path / "run")
    expected = explainer.shapley(X)
    assert loaded.feature_names == ("ab", "cde")
    np.testing.assert_allclose(loaded.values, expected.values, atol=1e-12)
    np.testing.assert_array_equal(loaded.data, expected.data)  # one column per feature: NaN for a group
    assert np.isnan(loaded.data).all() and loaded.info["groups"] == expected.info["groups"]


def test_run_with_single_column_groups_lines_data_up_with_the_features(tmp_path):
    """groups= of single columns reorders the features (groups first): load_run's .data follows them, as
    Explainer.shapley's does (it kept the input order, so a plot labelled bmi with age's value)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 5))
    explainer = ip.Explainer(nonlinear, X[:4], groups={"c": [2]})
    ip.run(explainer, X, out=tmp_path / "run", chunk_size=4, n_jobs=1)
    loaded = ip.load_run(tmp_path / "run")
    expected = explainer.shapley(X)
    assert loaded.feature_names == expected.feature_names == ("c", "x0", "x1", "x3", "x4")
    np.testing.assert_array_equal(loaded.data, expected.data)
    np.testing.assert_array_equal(loaded.data[:, 0], X[:, 2])


def test_run_without_pyarrow_says_what_to_install(monkeypatch, tmp_path):
    from interplay import _optional

    real = _optional.installed
    monkeypatch.setattr(_optional, "installed", lambda name: name != "pyarrow" and real(name))
    explainer = ip.Explainer(lambda X: X @ np.arange(1.0, 4.0), np.zeros((2, 3)))
    with pytest.raises(ImportError, match=r"pip install 'interplay\[runs\]'"):
        ip.run(explainer, np.ones((4, 3)), out=tmp_path / "run")
    with pytest.raises(ImportError, match="pyarrow"):
        ip.load_run(tmp_path / "run")
    assert not (tmp_path / "run").exists()
