"""Batch-run throughput and peak memory: rows/s of ``interplay.runs.run`` on a cheap model, local or Ray.

Data: ``--rows`` x ``--features`` standard-normal rows, written first to a Parquet file (in batches, so the
benchmark itself never holds them all) and streamed by the run from that file. Model: linear ``X @ w`` (a
numpy function: the cost per row is the explanation machinery, not the model). Removal: ``baseline`` (mean of
1,000 background rows), so a coalition costs one model row. For a linear model under baseline removal the
Shapley value is ``w * (x - mean)`` exactly, and every method must find it: the script checks it on the rows.

Peak memory: ``resource.getrusage`` maximum resident set size of this process (the driver: reading, writing,
manifest) and of its reaped children (the loky workers). Ray workers are not children of this process; their
memory is not included (the driver's is).

Examples (1,000,000 rows take ~30 min on 2 cores; measure a subset and extrapolate, as batch.md does)::

    PYTHONPATH=src python benchmarks/batch.py --rows 20000 --n-jobs 1
    PYTHONPATH=src python benchmarks/batch.py --rows 100000 --n-jobs 2
    PYTHONPATH=src python benchmarks/batch.py --rows 50000 --backend ray --n-jobs 2
    PYTHONPATH=src python benchmarks/batch.py --rows 20000 --features 8 --method exact
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import interplay as ip
from interplay.runs import open_run, run


def linear(X):
    return X @ WEIGHTS


WEIGHTS = np.ones(1)


def write_data(path: str, rows: int, features: int, seed: int = 0, batch: int = 100_000) -> None:
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
    if method == "exact" and args.features > 14:
        sys.exit(f"exact Shapley over {args.features} features costs 2**{args.features} model rows per row; "
                 "use --features <= 14 or a sampling method")

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
        load_before = os.getloadavg()
        started = time.perf_counter()
        result = run(explainer, data, method, out=out, backend=args.backend, n_jobs=args.n_jobs,
                     chunk_size=args.chunk_size, budget=budget, random_state=0, progress=False)
        seconds = time.perf_counter() - started
        load_after = os.getloadavg()
        driver = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        # correctness on the first part: w * (x - mean(background))
        first = next(open_run(out).iter_tables())
        names = result.feature_names
        values = np.column_stack([first.column(f"value.{n}").to_numpy() for n in names])
        x = np.column_stack([first.column(f"data.{n}").to_numpy() for n in names])
        error = np.abs(values - WEIGHTS * (x - background.mean(axis=0))).max()
        disk = sum(os.path.getsize(os.path.join(out, "parts", f)) for f in os.listdir(os.path.join(out, "parts")))
        rate = args.rows / seconds
        print(f"python {platform.python_version()}, numpy {np.__version__}, pyarrow {pa.__version__}, "
              f"cpus {os.cpu_count()}, load average before/after {load_before[0]:.1f}/{load_after[0]:.1f}")
        print(f"backend={args.backend} n_jobs={args.n_jobs} chunk_size={args.chunk_size} method={method} "
              f"budget={budget} features={args.features} rows={args.rows}")
        print(f"time {seconds:.1f} s, {rate:.0f} rows/s ({rate / args.n_jobs:.0f} rows/s per worker), "
              f"evaluations/row {result.n_evaluations / args.rows:.0f}, max |error| {error:.1e}")
        print(f"peak RSS: driver {driver:.0f} MiB, largest child {children:.0f} MiB; parts on disk "
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
