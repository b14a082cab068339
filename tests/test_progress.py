"""Progress and interruption (issue "The shap user's path", item 6): long work shows progress (a tqdm bar on a
terminal, plain periodic lines in logs) in Explainer.shapley, ip.run and the CLI; Ctrl-C in ip.run says how to
finish. The clock is replaced by a counter: no test waits on or asserts the wall clock."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import interplay as ip
from interplay import _progress
from interplay.runs import load_run, resume_run, run

from test_runs_models import NAMES, nonlinear, slow_nonlinear
from _interrupt import interrupt_after_first_chunk, with_ctrl_c

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.abspath(ip.__file__)).rsplit(os.sep, 1)[0]


@pytest.fixture
def clock(monkeypatch):
    """A clock that advances ``step`` seconds at every read (set ``clock.step``)."""
    state = {"now": 0.0, "step": 10.0}

    def read():
        state["now"] += state["step"]
        return state["now"]

    monkeypatch.setattr(_progress, "_clock", read)
    monkeypatch.setattr(_progress, "_interactive", lambda: False)  # a log, whatever runs the tests
    monkeypatch.delenv(_progress.ENV, raising=False)
    return state


def lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("interplay: ")]


def test_plain_lines_after_the_delay_then_every_interval(clock, capsys):
    clock["step"] = 1.0  # one second per unit of work
    with _progress.progress(100, "explaining") as bar:
        for _ in range(100):
            bar.update(1)
    shown = lines(capsys.readouterr().err)
    delay, interval = _progress.DELAY, _progress.INTERVAL
    assert len(shown) == 1 + int((100 - delay) // interval) + 1  # the first after DELAY, one per INTERVAL, the end
    first = int(delay)  # one unit per second: the first line comes after DELAY seconds, DELAY units done
    assert shown[0].startswith(f"interplay: explaining {first}/100 rows ({first}%), 0:00:0{first} elapsed, "
                               "about 0:01:")
    assert shown[-1] == "interplay: explaining 100/100 rows (100%), 0:01:41 elapsed, done"


def test_quick_work_prints_nothing_and_false_never_prints(clock, capsys):
    clock["step"] = 0.01
    with _progress.progress(50, "explaining") as bar:
        bar.update(50)
    clock["step"] = 100.0
    with _progress.progress(50, "explaining", enabled=False) as bar:
        for _ in range(50):
            bar.update(1)
    assert capsys.readouterr().err == ""


def test_true_shows_at_once_and_the_environment_sets_the_default(clock, capsys, monkeypatch):
    clock["step"] = 0.01
    with _progress.progress(4, "explaining", enabled=True) as bar:
        bar.update(4)
    assert lines(capsys.readouterr().err)[0].startswith("interplay: explaining 0/4 rows (0%)")
    monkeypatch.setenv(_progress.ENV, "1")
    with _progress.progress(4, "explaining") as bar:
        bar.update(4)
    assert len(lines(capsys.readouterr().err)) == 2
    monkeypatch.setenv(_progress.ENV, "0")
    clock["step"] = 100.0
    with _progress.progress(4, "explaining") as bar:
        bar.update(4)
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress: expected True, False or None"):
        _progress.progress(4, enabled="yes")


def test_a_terminal_gets_tqdm_s_bar(capsys, monkeypatch):
    pytest.importorskip("tqdm")
    monkeypatch.setattr(_progress, "_interactive", lambda: True)
    with _progress.progress(8, "explaining", enabled=True) as bar:
        bar.update(8)
    err = capsys.readouterr().err
    assert "explaining: 100%|" in err and "8/8" in err and "interplay: " not in err


def test_explainer_rows_show_progress(clock, capsys):
    explainer = ip.Explainer(nonlinear, np.zeros((2, 5)), feature_names=NAMES)
    X = np.random.default_rng(0).normal(size=(6, 5))
    explained = explainer.shapley(X, method="exact")
    shown = lines(capsys.readouterr().err)
    assert shown and shown[-1] == "interplay: explaining (shapley) 6/6 rows (100%), 0:01:10 elapsed, done"
    quiet = explainer.shapley(X, method="exact", progress=False)
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(quiet.values, explained.values)  # progress changes nothing computed
    explainer.banzhaf(X[:2], method="exact")
    assert lines(capsys.readouterr().err)[-1].startswith("interplay: explaining (banzhaf) 2/2 rows")


def test_run_shows_progress_from_the_rows_already_done(clock, capsys, tmp_path):
    explainer = ip.Explainer(nonlinear, np.zeros((2, 5)), feature_names=NAMES)
    X = np.random.default_rng(1).normal(size=(10, 5))
    out = tmp_path / "run"
    run(explainer, X, out=out, chunk_size=3, n_jobs=1, progress=False)
    assert capsys.readouterr().err == ""
    manifest = json.loads((out / "run-manifest.json").read_text())
    del manifest["chunks"]["3"]  # the last chunk (row 9) to do again
    manifest["complete"] = False
    (out / "run-manifest.json").write_text(json.dumps(manifest))
    run(explainer, X, out=out, chunk_size=3, n_jobs=1, progress=True)
    shown = lines(capsys.readouterr().err)
    assert shown[0] == (f"interplay: resuming the run in {str(out)!r}: 9 of the 10 rows already done and kept, "
                        "1 left to explain")
    assert shown[1].startswith("interplay: explaining (resumed, 9 rows kept) 9/10 rows (90%)")
    assert shown[-1].startswith("interplay: explaining (resumed, 9 rows kept) 10/10 rows (100%)")
    assert shown[-1].endswith("done")


def test_cli_shows_progress_in_logs(clock, tmp_path):
    pd = pytest.importorskip("pandas")
    joblib = pytest.importorskip("joblib")
    from click.testing import CliRunner

    import test_runs_models
    from interplay.cli import main

    pd.DataFrame(np.random.default_rng(2).normal(size=(6, 5)), columns=NAMES).to_csv(tmp_path / "d.csv", index=False)
    joblib.dump(test_runs_models.nonlinear, tmp_path / "m.joblib")
    result = CliRunner().invoke(main, ["explain", str(tmp_path / "m.joblib"), str(tmp_path / "d.csv"), "--rows",
                                       "all", "--chunk-size", "2", "--n-jobs", "1", "--detail-rows", "2",
                                       "--trust-model", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    shown = lines(result.stderr)
    assert any(line.startswith("interplay: explaining 6/6 rows (100%)") for line in shown)
    assert any(line.startswith("interplay: explaining in detail 2/2 rows (100%)") for line in shown)


SLOW_RUN = """
import sys
sys.path[:0] = [{src!r}, {tests!r}]
import numpy as np
import interplay as ip
from test_runs_models import NAMES, slow_nonlinear
data = np.load({data!r})
explainer = ip.Explainer(slow_nonlinear, data["background"], feature_names=NAMES)
ip.run(explainer, data["X"], "permutation", out={out!r}, budget=30, chunk_size=2, n_jobs=1, random_state=3)
"""


def test_ctrl_c_in_run_says_how_to_finish_and_the_resume_is_exact(tmp_path):
    rng = np.random.default_rng(3)
    X, background = rng.normal(size=(16, 5)), rng.normal(size=(4, 5))
    np.savez(tmp_path / "data.npz", X=X, background=background)
    out = tmp_path / "out"
    script = SLOW_RUN.format(src=SRC, tests=HERE, data=str(tmp_path / "data.npz"), out=str(out))
    env = dict(os.environ, INTERPLAY_TEST_SLEEP="0.1", INTERPLAY_PROGRESS="0")
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, preexec_fn=with_ctrl_c, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    manifest = out / "run-manifest.json"
    err = interrupt_after_first_chunk(proc, manifest)
    assert proc.returncode != 0, "the run ended before it could be interrupted"
    assert "KeyboardInterrupt: ip.run interrupted. " in err and "of the 16 rows are finished and kept in" in err, err
    assert f"ip.run(explainer, X, 'permutation', out={str(out)!r}, budget=30, chunk_size=2, n_jobs=1)" in err
    assert f"ip.resume_run(explainer, X, {str(out)!r})" in err
    recorded = json.loads(manifest.read_text())
    assert not recorded["complete"] and 0 < len(recorded["chunks"]) < 8

    explainer = ip.Explainer(slow_nonlinear, background, feature_names=NAMES)  # the same model (no sleep here)
    resume_run(explainer, X, out, n_jobs=1, progress=False)
    reference = explainer.shapley(X, method="permutation", budget=30, random_state=3, progress=False)
    got = load_run(out)
    np.testing.assert_array_equal(got.values, reference.values)
    np.testing.assert_array_equal(ip.open_run(out).table().column("row").to_numpy(), np.arange(16))


def test_a_bad_progress_value_is_refused_before_any_work(tmp_path):
    explainer = ip.Explainer(nonlinear, np.zeros((2, 5)), feature_names=NAMES)
    with pytest.raises(TypeError, match="progress: expected True, False or None"):
        run(explainer, np.ones((3, 5)), out=tmp_path / "run", progress="yes")
    assert not (tmp_path / "run").exists()
    with pytest.raises(TypeError, match="progress: expected True, False or None"):
        explainer.shapley(np.ones((3, 5)), method="exact", progress=1)
