"""Killing the driver of a batch run (SIGKILL: no cleanup code runs) takes its local worker processes with it
(issue "Reliability", item 6): no loky worker or resource tracker is left running under init."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from _interrupt import recorded_chunks

import interplay as ip

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.abspath(ip.__file__)).rsplit(os.sep, 1)[0]

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self") or sys.platform != "linux",
                                reason="reads the process table from /proc (Linux)")

API_SCRIPT = """
import sys
sys.path[:0] = [{src!r}, {tests!r}]
import numpy as np
import interplay as ip
from test_runs_models import NAMES, slow_nonlinear
data = np.load({data!r})
explainer = ip.Explainer(slow_nonlinear, data["background"], feature_names=NAMES)
ip.run(explainer, data["X"], out={out!r}, chunk_size=2, n_jobs=2, progress=False)
"""


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, start time) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1]), int(fields[19])


def _descendants(root: int) -> dict[int, int]:
    """pid -> start time of every living descendant of ``root``."""
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            stat = _stat(int(name))
            if stat is not None and stat[0] != "Z":
                table[int(name)] = stat
    found, frontier = {}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, (_, ppid, start) in table.items():
            if ppid == parent and pid not in found:
                found[pid] = start
                frontier.append(pid)
    return found


def _alive(pid: int, start: int) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[0] != "Z" and stat[2] == start  # same process, not a zombie


def _n_workers(pids) -> int:
    n = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                n += b"LokyProcess" in fh.read()
        except OSError:
            pass
    return n


def _kill_and_check(proc, min_workers: int, manifest) -> None:
    """Wait until ``min_workers`` loky workers run and a chunk is finished, SIGKILL the driver, then check that
    every process it had started is gone within a few seconds."""
    deadline = time.monotonic() + 240  # a loaded machine can take minutes to start the CLI and finish a chunk
    workers: dict = {}
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _descendants(proc.pid)
        if _n_workers(workers) >= min_workers and recorded_chunks(manifest):
            break
        time.sleep(0.05)
    workers = _descendants(proc.pid)
    assert proc.poll() is None, "the job ended before it could be killed"
    assert _n_workers(workers) >= min_workers, f"expected {min_workers} worker processes, found {workers}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(p, s) for p, s in workers.items()):
        time.sleep(0.1)
    survivors = [p for p, s in workers.items() if _alive(p, s)]
    for pid in survivors:  # do not leave them behind for the rest of the test session
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not survivors, f"processes of the killed driver still running: {survivors}"


def test_sigkill_of_an_api_driver_leaves_no_worker(tmp_path):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "data.npz", background=rng.normal(size=(8, 5)), X=rng.normal(size=(400, 5)))
    script = tmp_path / "job.py"
    script.write_text(API_SCRIPT.format(src=SRC, tests=HERE, data=str(tmp_path / "data.npz"),
                                        out=str(tmp_path / "out")))
    env = dict(os.environ, INTERPLAY_TEST_SLEEP="0.05")
    proc = subprocess.Popen([sys.executable, str(script)], env=env)
    _kill_and_check(proc, 2, tmp_path / "out" / "run-manifest.json")


def test_sigkill_of_the_cli_leaves_no_worker(tmp_path):
    pd = pytest.importorskip("pandas")
    sio = pytest.importorskip("skops.io")
    from sklearn.neighbors import KNeighborsRegressor

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(3000, 8)), columns=[f"f{i}" for i in range(8)])
    model = KNeighborsRegressor(n_neighbors=25).fit(frame, frame.sum(axis=1))  # slow enough to be caught working
    sio.dump(model, tmp_path / "model.skops")
    frame.to_csv(tmp_path / "data.csv", index=False)
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "interplay.cli", "explain", str(tmp_path / "model.skops"),
                             str(tmp_path / "data.csv"), "--rows", "all", "--out", str(tmp_path / "out"),
                             "--n-jobs", "2", "--chunk-size", "4", "--background", "50", "--trust-model"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_and_check(proc, 2, tmp_path / "out" / "run-manifest.json")
