"""Batch-run throughput and peak memory: rows/s of ``interplay.runs.run`` on a cheap model, local or Ray.

Data: ``--rows`` x ``--features`` standard-normal rows, written first to a Parquet file (in batches, so the
benchmark itself never holds them all) and streamed by the run from that file. Model: linear ``X @ w`` (a
numpy function: the cost per row is the explanation machinery, not the model). Removal: ``baseline`` (mean of
1,000 background rows), so a coalition costs one model row. For a linear model under baseline removal the
Shapley value is ``w * (x - mean)`` exactly, and every method must find it: the script checks it on the rows.

Throughput: wall-clock rows/s, and rows per CPU-second (user + system time of this process and its reaped
worker processes), which does not depend on how busy a shared machine is and is what extrapolates to a cluster.
Peak memory: the peak resident set size (``VmHWM`` in ``/proc``) of this process (the driver: reading, writing,
manifest) during the run (reset just before it), and the largest peak among its worker processes / Ray actor
processes (polled every 0.5 s). Outside Linux the driver's ``resource.getrusage`` maximum is shown instead.

Examples (1,000,000 rows took 3.7 min on the shared 2-core machine under load 7-8, 8,100 rows per CPU-second;
see benchmarks/results/batch.md)::

    PYTHONPATH=src python benchmarks/batch.py --rows 20000 --n-jobs 1
    PYTHONPATH=src python benchmarks/batch.py --rows 100000 --n-jobs 2
    PYTHONPATH=src python benchmarks/batch.py --rows 50000 --backend ray --n-jobs 2
    PYTHONPATH=src python benchmarks/batch.py --rows 20000 --features 8 --method exact
    PYTHONPATH=src python benchmarks/batch.py --rows 1000000 --driver-only
    PYTHONPATH=src OMP_NUM_THREADS=1 python benchmarks/batch.py --rows 1000000 --n-jobs 2 --chunk-size 20000
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import sys
import tempfile
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import interplay as ip
from interplay.runs import open_run, run


def linear(X):
    return X @ WEIGHTS


WEIGHTS = np.ones(1)


def _cpu_seconds() -> tuple[float, float]:
    """User + system CPU time of this process, and of its reaped children (the loky workers, after shutdown)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def _status_kib(pid: int | str, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class WorkerMemory(threading.Thread):
    """Polls /proc (Linux) for the peak RSS (VmHWM) of this process's descendants and of Ray actor processes."""

    def __init__(self, interval: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.interval, self.peak_kib, self.stop = interval, 0, threading.Event()

    def _workers(self) -> list[str]:
        me, parents, names = str(os.getpid()), {}, {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            parents[pid] = str(_status_kib(pid, "PPid"))
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as fh:
                    names[pid] = fh.read().decode(errors="replace")
            except OSError:
                names[pid] = ""
        out = []
        for pid in parents:
            node, seen = pid, 0
            while node in parents and node != me and seen < 50:
                node, seen = parents[node], seen + 1
            if (node == me and pid != me) or "_RayWorker" in names[pid]:
                out.append(pid)
        return out

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            for pid in self._workers():
                self.peak_kib = max(self.peak_kib, _status_kib(pid, "VmHWM"))


def _reset_peak_rss() -> bool:
    """Reset this process's peak RSS (Linux: write 5 to /proc/self/clear_refs) so VmHWM covers the run only."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _free_chunk(explainer, task, chunk) -> dict:
    """Stand-in for the explanation of a chunk (``--driver-only``): the right shapes, no work."""
    m = len(chunk.rows)
    return {"start": chunk.start, "row": np.arange(chunk.start, chunk.start + m, dtype=np.int64),
            "base_value": np.zeros(m), "n_evaluations": np.zeros(m, dtype=np.int64), "values": chunk.rows / 2,
            "std_errors": None, "adjacency": None}


def write_data(path: str, rows: int, features: int, seed: int = 0, batch: int = 10_000) -> None:
    rng = np.random.default_rng(seed)
    names = [f"f{j}" for j in range(features)]
    with pq.ParquetWriter(path, pa.schema([(n, pa.float64()) for n in names])) as writer:
        for start in range(0, rows, batch):
            block = rng.normal(size=(min(batch, rows - start), features))
            writer.write_table(pa.table(dict(zip(names, block.T))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--method", default="auto", help="auto: permutation if registered, else exact")
    parser.add_argument("--budget", type=int, default=None, help="default: 2 permutations for sampling methods")
    parser.add_argument("--backend", default="local", choices=["local", "ray"])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--chunk-size", type=int, default=2000)
    parser.add_argument("--target-rows", type=int, default=1_000_000, help="rows to extrapolate to")
    parser.add_argument("--driver-only", action="store_true",
                        help="replace the explanation by a free stand-in (values = x / 2) to measure the driver alone: "
                             "reading, fingerprinting, Parquet parts and manifest (forces n_jobs=1)")
    parser.add_argument("--keep", default=None, help="keep the run in this folder (default: a temp folder)")
    args = parser.parse_args()

    global WEIGHTS
    WEIGHTS = np.linspace(-1.0, 1.0, args.features)
    method = args.method
    if method == "auto":
        method = "permutation" if "permutation" in ip.available_methods("shapley") else "exact"
    budget = args.budget
    if budget is None and method != "exact":
        budget = 2 + 2 * (args.features - 1)  # two permutations: exact for an additive game
    if method == "exact" and args.features > 14 and not args.driver_only:
        sys.exit(f"exact Shapley over {args.features} features costs 2**{args.features} model rows per row; "
                 "use --features <= 14 or a sampling method")

    if args.driver_only:
        from interplay.runs import _backends

        _backends.explain_chunk = _free_chunk
        args.n_jobs, args.backend = 1, "local"
    work = tempfile.mkdtemp(prefix="interplay-batch-")
    try:
        data = os.path.join(work, "X.parquet")
        write_data(data, args.rows, args.features)
        background = np.random.default_rng(1).normal(size=(1000, args.features))
        explainer = ip.Explainer(linear, background, removal="baseline")
        out = args.keep or os.path.join(work, "run")
        if args.backend == "ray":
            import ray

            src = os.path.dirname(os.path.dirname(os.path.abspath(ip.__file__)))
            started = time.perf_counter()
            ray.init(num_cpus=args.n_jobs, include_dashboard=False, log_to_driver=False,
                     runtime_env={"env_vars": {"PYTHONPATH": src}})
            print(f"ray.init: {time.perf_counter() - started:.1f} s (not counted)")
        reset = _reset_peak_rss()
        workers = WorkerMemory()
        workers.start()
        load_before = os.getloadavg()
        cpu_before = _cpu_seconds()
        started = time.perf_counter()
        result = run(explainer, data, method, out=out, backend=args.backend, n_jobs=args.n_jobs,
                     chunk_size=args.chunk_size, budget=budget, random_state=0, progress=False)
        seconds = time.perf_counter() - started
        driver_cpu, workers_cpu = (a - b for a, b in zip(_cpu_seconds(), cpu_before))
        cpu = driver_cpu + workers_cpu
        load_after = os.getloadavg()
        workers.stop.set()
        workers.join()
        driver = (_status_kib("self", "VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
        driver /= 1024
        children = workers.peak_kib / 1024
        # correctness on the first part: w * (x - mean(background))
        first = next(open_run(out).iter_tables())
        names = result.feature_names
        values = np.column_stack([first.column(f"value.{n}").to_numpy() for n in names])
        x = np.column_stack([first.column(f"data.{n}").to_numpy() for n in names])
        truth = x / 2 if args.driver_only else WEIGHTS * (x - background.mean(axis=0))
        error = np.abs(values - truth).max()
        disk = sum(os.path.getsize(os.path.join(out, "parts", f)) for f in os.listdir(os.path.join(out, "parts")))
        rate = args.rows / seconds
        print(f"python {platform.python_version()}, numpy {np.__version__}, pyarrow {pa.__version__}, "
              f"cpus {os.cpu_count()}, load average before/after {load_before[0]:.1f}/{load_after[0]:.1f}")
        print(f"backend={args.backend} n_jobs={args.n_jobs} chunk_size={args.chunk_size} method={method} "
              f"budget={budget} features={args.features} rows={args.rows}")
        print(f"time {seconds:.1f} s, {rate:.0f} rows/s ({rate / args.n_jobs:.0f} rows/s per worker), "
              f"evaluations/row {result.n_evaluations / args.rows:.0f}, max |error| {error:.1e}")
        if args.backend == "local":  # Ray workers are not children of this process: their CPU is not counted
            print(f"CPU time {cpu:.1f} s (driver {driver_cpu:.1f} s + workers {workers_cpu:.1f} s): "
                  f"{args.rows / cpu:.0f} rows per CPU-second; the driver alone (read, fingerprint, write) "
                  f"{args.rows / max(driver_cpu, 1e-9):.0f} rows per CPU-second")
        else:
            print(f"driver CPU time {driver_cpu:.1f} s ({args.rows / max(driver_cpu, 1e-9):.0f} rows per CPU-second)")
        print(f"peak RSS during the run: driver {driver:.0f} MiB, largest worker {children:.0f} MiB; parts on disk "
              f"{disk / 2**20:.1f} MiB ({disk / args.rows:.0f} B/row)")
        print(f"extrapolated to {args.target_rows:,} rows: {args.target_rows / rate / 60:.1f} min on "
              f"{args.n_jobs} workers")
        if args.backend == "ray":
            import ray

            ray.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
