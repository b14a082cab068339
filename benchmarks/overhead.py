"""The library's own time beside the model's: total / pure model time, bivariate / univariate, batch rows/s.

Setup (issue 16): one explained row, ``Explainer(model, background, removal="marginal")`` over 10 background rows,
``ex.shapley(x, method="kernel", budget=2048)`` (so 20,480 model rows per explanation), for

- ``mlp``: a numpy MLP ``tanh(X W1) w2`` with 100 hidden units (the Bivariate Shapley paper's Table 8 size), float64;
- ``gbm``: scikit-learn ``HistGradientBoostingRegressor`` (100 trees), fitted on 2,000 synthetic rows;
- ``forest``: scikit-learn ``RandomForestRegressor`` with 500 trees (depth 8, ``max_features="sqrt"``, one job);

at 10, 30, 100, 300 and 1,000 features (standard-normal data; the target mixes a few features non-linearly).

**Total / model.** Total: CPU time of the whole ``ex.shapley(x, ...)`` call. Model: CPU time of the model called
alone on exactly the same hybrid rows, in the same chunks (recorded in an untimed call, then replayed from
memory). Both are the minimum over ``--repeats`` interleaved repetitions, in CPU time (``time.process_time``)
with one BLAS/OpenMP thread, because the machine running this is shared: wall-clock times would measure the
neighbours. Also shown: the ratio with ``std_errors=False``, the ratio with the hybrid rows built by numpy's
two passes instead of the compiled (numba) select (:mod:`interplay.removal._compiled`: a session uses the compiled
one after 2**28 cells, enough to pay for loading it; the benchmark sets it, so every row measures the same), and
the time to write the rows once (a copy of the recorded rows: the floor of building them, whatever the
library). **Bivariate / univariate**: CPU time of
``ex.bivariate(x, method="kernel", budget=2048)`` over that of ``ex.shapley(x, method="kernel", budget=2048)``,
same seed, same model rows. **Batch**: rows per CPU-second of the per-row compute of a batch run
(``interplay.runs._compute.explain_chunk`` on 5,000 rows in this process): linear model ``X @ w``, 20 features,
baseline removal, permutation Shapley with budget 40 (benchmarks/batch.py measures the whole run, reading,
workers and writing included).

Run (about 8 minutes here)::

    PYTHONPATH=src python benchmarks/overhead.py --repeats 7 > benchmarks/results/overhead.md

Options: ``--models mlp gbm``, ``--features 100 300``, ``--repeats 5``, ``--quick`` (smoke test: tiny sizes),
``--processes 5`` (the MLP's ratios at 100 and 300 features again in that many fresh processes: their smallest,
median and largest; a process's minimum over repetitions moves with the process by about 0.04 here).
"""

from __future__ import annotations

import argparse
import os

if __name__ == "__main__":  # one BLAS/OpenMP thread, set before numpy and scikit-learn start their pools
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[_var] = "1"

import json  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

import interplay as ip  # noqa: E402

from interplay.removal import _compiled  # noqa: E402

BUDGET = 2048
N_BACKGROUND = 10
SELECT = "compiled"  # how the hybrid rows are built (--select)


def _select_words() -> str:
    if _compiled.select_kernel(1) is None:
        return "numpy's two passes" + (" (numba missing or not compiling)" if SELECT == "compiled" else "")
    import numba

    return f"the compiled select (numba {numba.__version__})"


def make_data(d: int, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    k = min(d, 5)
    y = np.sin(X[:, :k]).sum(axis=1) + X[:, 0] * X[:, k - 1] + 0.1 * rng.normal(size=n)
    return X, y


def make_model(name: str, d: int, seed: int = 0):
    """A regressor ``(N, d) -> (N,)`` (plain callable or fitted scikit-learn estimator)."""
    if name == "mlp":
        rng = np.random.default_rng(seed)
        w1 = rng.normal(size=(d, 100)) / np.sqrt(d)
        w2 = rng.normal(size=100) / 10

        def mlp(X):
            return np.tanh(X @ w1) @ w2

        return mlp
    X, y = make_data(d, 2000 if name == "gbm" else 500, seed)
    if name == "gbm":
        from sklearn.ensemble import HistGradientBoostingRegressor

        return HistGradientBoostingRegressor(max_iter=100, random_state=seed).fit(X, y)
    if name == "forest":
        from sklearn.ensemble import RandomForestRegressor

        return RandomForestRegressor(n_estimators=500, max_depth=8, max_features="sqrt", n_jobs=1,
                                     random_state=seed).fit(X, y)
    raise ValueError(f"unknown model {name!r}")


class Recorder:
    """Wraps the explainer's model: records the size of every call, and copies of the rows while ``on``."""

    def __init__(self, fn) -> None:
        self.fn, self.on, self.chunks, self.sizes = fn, False, [], []

    def __call__(self, X):
        self.sizes.append(len(X))
        if self.on:
            self.chunks.append(np.array(X, copy=True))
        return self.fn(X)


def cpu(f) -> float:
    start = time.process_time()
    f()
    return time.process_time() - start


def overhead(name: str, d: int, repeats: int, budget: int = BUDGET) -> dict:
    """Total / model CPU time of one kernel-Shapley explanation (module docstring)."""
    model = make_model(name, d)
    predict = model if callable(model) and not hasattr(model, "predict") else model.predict
    background, _ = make_data(d, N_BACKGROUND, seed=1)
    x, _ = make_data(d, 1, seed=2)
    recorder = Recorder(predict)
    ex = ip.Explainer(recorder, background, removal="marginal")

    def explain(std_errors=True):
        return ex.shapley(x, method="kernel", budget=budget, random_state=0, std_errors=std_errors)

    def explain_numpy_select():
        previous = _compiled.use_select("numpy")
        try:
            explain()
        finally:
            _compiled.use_select(previous)

    for _ in range(3):  # warm-up: imports, first allocations, and the explainer learns its rows per model call
        explain()
    recorder.on = True
    explain()
    recorder.on = False
    # (the explainer reads the model's output width with a one-row call once, in the first warm-up: none here)
    chunks = [c for c in recorder.chunks if len(c) > 1]
    head = [c for c in recorder.chunks if len(c) == 1]
    recorded = [len(c) for c in recorder.chunks]

    def model_alone():
        for chunk in head + chunks:
            predict(chunk)

    def write_rows():  # a lower bound on building the rows: writing that many float64 cells once
        for chunk in chunks:
            np.copyto(np.empty_like(chunk), chunk)

    totals, models, writes, plain, numpy_select = [], [], [], [], []
    for _ in range(repeats):
        writes.append(cpu(write_rows))
        plain.append(cpu(lambda: explain(std_errors=False)))
        numpy_select.append(cpu(explain_numpy_select))
        recorder.sizes = []
        totals.append(cpu(explain))
        if recorder.sizes != recorded:
            raise RuntimeError(f"model calls changed between the recorded and a timed call: {recorded} vs "
                               f"{recorder.sizes}")
        models.append(cpu(model_alone))
    total, alone = min(totals), min(models)
    return {"model": name, "d": d, "total": total, "alone": alone, "ratio": total / alone, "write": min(writes),
            "plain": min(plain) / alone, "numpy_select": min(numpy_select) / alone,
            "rows": sum(len(c) for c in chunks), "calls": len(chunks)}


def breakdown(name: str, d: int, repeats: int, budget: int = BUDGET) -> dict:
    """CPU ms per part of one ``ex.shapley(x, method="kernel")`` call (the fastest of ``repeats``): the model,
    building rows and averaging outputs, the coalition cache, the sample, the solve, and the rest (explainer,
    checks, results). Timers wrap the library's functions, so the parts are only indicative."""
    from interplay import games
    from interplay.estimators import kernel

    spent: dict = {}

    def timed(part, fn):
        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[part] = spent.get(part, 0.0) + time.process_time() - start
        return wrapper

    model = make_model(name, d)
    predict = model if callable(model) and not hasattr(model, "predict") else model.predict
    background, _ = make_data(d, N_BACKGROUND, seed=1)
    x, _ = make_data(d, 1, seed=2)
    saved = kernel.kernel_sample, kernel.kernel_solve, games.Game._evaluate, games.Game.__call__
    kernel.kernel_sample, kernel.kernel_solve = timed("sample", saved[0]), timed("solve", saved[1])
    games.Game._evaluate, games.Game.__call__ = timed("evaluate", saved[2]), timed("game", saved[3])
    try:
        ex = ip.Explainer(timed("model", predict), background, removal="marginal")
        best = None
        for k in range(repeats + 3):  # 3 warm-ups
            spent.clear()
            total = cpu(lambda: ex.shapley(x, method="kernel", budget=budget, random_state=0))
            if k >= 3 and (best is None or total < best[0]):
                best = total, dict(spent)
    finally:
        kernel.kernel_sample, kernel.kernel_solve, games.Game._evaluate, games.Game.__call__ = saved
    total, parts = best
    return {"total": total, "model": parts["model"], "rows": parts["evaluate"] - parts["model"],
            "cache": parts["game"] - parts["evaluate"], "sample": parts["sample"], "solve": parts["solve"],
            "rest": total - parts["game"] - parts["sample"] - parts["solve"]}


def bivariate_ratio(name: str, d: int, repeats: int, budget: int = BUDGET) -> dict:
    """CPU time of ``ex.bivariate`` over ``ex.shapley`` (kernel, same seed and budget)."""
    model = make_model(name, d)
    background, _ = make_data(d, N_BACKGROUND, seed=1)
    x, _ = make_data(d, 1, seed=2)
    ex = ip.Explainer(model, background, removal="marginal")
    uni = lambda: ex.shapley(x, method="kernel", budget=budget, random_state=0)  # noqa: E731
    bi = lambda: ex.bivariate(x, method="kernel", budget=budget, random_state=0)  # noqa: E731
    uni(), bi()
    us, bs = [], []
    for _ in range(repeats):
        us.append(cpu(uni))
        bs.append(cpu(bi))
    same = np.allclose(uni().values[0], bi().univariate.values, rtol=1e-9, atol=1e-12)
    return {"model": name, "d": d, "uni": min(us), "bi": min(bs), "ratio": min(bs) / min(us), "same": same}


def batch_rate(rows: int = 5000, d: int = 20, budget: int = 40, repeats: int = 3) -> dict:
    """Rows per CPU-second of the batch per-row compute (module docstring)."""
    from interplay.runs._compute import Task, explain_chunk
    from interplay.runs._sources import Chunk

    w = np.linspace(-1.0, 1.0, d)

    def linear(X):
        return X @ w

    rng = np.random.default_rng(0)
    background, X = rng.normal(size=(1000, d)), rng.normal(size=(rows, d))
    ex = ip.Explainer(linear, background, removal="baseline")
    task = Task("shapley", "permutation", budget, 12345, {})
    explain_chunk(ex, task, Chunk(0, X[:50], None))
    best = min(cpu(lambda: explain_chunk(ex, task, Chunk(0, X, None))) for _ in range(repeats))
    values = explain_chunk(ex, task, Chunk(0, X[:100], None))["values"]
    error = float(np.abs(values - w * (X[:100] - background.mean(axis=0))).max())
    return {"rows": rows, "seconds": best, "rate": rows / best, "error": error}


def fresh_processes(count: int, features: list[int], repeats: int) -> None:
    """The MLP's ratios in ``count`` fresh processes per width: a process's minimum over repetitions still moves
    with the process (its memory layout), by about 0.04 here, so one process's ratio says little about the next."""
    print(f"\n## The MLP's ratios in {count} fresh processes (each the minimum of {repeats} repetitions, as "
          "above): smallest, median, largest\n")
    print("| features | total / model | bivariate / univariate |")
    print("|---:|---|---|")
    for d in features:
        runs = []
        for _ in range(count):
            out = subprocess.run([sys.executable, __file__, "--one-process", str(d), "--repeats", str(repeats),
                                  "--select", SELECT], capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
        cells = []
        for key in ("ratio", "bivariate"):
            values = sorted(run[key] for run in runs)
            cells.append(f"{values[0]:.2f}, **{float(np.median(values)):.2f}**, {values[-1]:.2f} "
                         f"({', '.join(f'{v:.2f}' for v in values)})")
        print(f"| {d} | {cells[0]} | {cells[1]} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="+", default=["mlp", "gbm", "forest"])
    parser.add_argument("--features", nargs="+", type=int, default=[10, 30, 100, 300, 1000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smoke test: tiny sizes, one repeat")
    parser.add_argument("--select", choices=["compiled", "numpy"], default="compiled",
                        help="how the hybrid rows are built (compiled: numba's one pass where installed)")
    parser.add_argument("--processes", type=int, default=5,
                        help="fresh processes for the spread of the MLP's ratios at 100 and 300 features (0: none)")
    parser.add_argument("--one-process", type=int, metavar="FEATURES", help=argparse.SUPPRESS)  # (one of them)
    args = parser.parse_args()
    global SELECT
    SELECT = args.select
    _compiled.use_select(SELECT)
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # one BLAS/OpenMP thread: CPU time = the work, no oversubscription
    if args.one_process:  # one fresh process's ratios (the spread section): total / model, bivariate / univariate
        r, b = overhead("mlp", args.one_process, args.repeats), bivariate_ratio("mlp", args.one_process, args.repeats)
        print(json.dumps({"ratio": r["ratio"], "bivariate": b["ratio"]}))
        return
    if args.quick:
        args.features, args.repeats, args.processes = [5, 12], 1, min(args.processes, 1)
    budget = 64 if args.quick else BUDGET
    load = os.getloadavg()[0]
    print("# Overhead: the library's time beside the model's (`benchmarks/overhead.py`)\n")
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs (shared with other "
          f"jobs: load average {load:.1f} at the start), one BLAS thread; CPU times (process_time), minimum of "
          f"{args.repeats} interleaved repetitions; hybrid rows built by {_select_words()}. Command: "
          f"`PYTHONPATH=src python benchmarks/overhead.py{' --quick' if args.quick else ''}"
          f"{' --select numpy' if SELECT == 'numpy' else ''}`.\n")
    print(f"## Total / pure model time: `ex.shapley(x, method='kernel', budget={budget})`, marginal removal over "
          f"{N_BACKGROUND} background rows\n")
    print("| model | features | model rows | model calls | total ms | model alone ms | total / model | "
          "same, std_errors=False | same, rows by numpy | writing the rows once ms |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.models:
        for d in args.features:
            repeats = args.repeats if name != "forest" or d < 300 else max(1, min(args.repeats, 2))
            r = overhead(name, d, repeats, budget)
            print(f"| {name} | {d} | {r['rows']:,} | {r['calls']} | {r['total'] * 1e3:.1f} | "
                  f"{r['alone'] * 1e3:.1f} | **{r['ratio']:.2f}** | {r['plain']:.2f} | {r['numpy_select']:.2f} | "
                  f"{r['write'] * 1e3:.1f} |",
                  flush=True)
    print(f"\n## Where the time goes: CPU ms per part of one `ex.shapley(x, method='kernel', budget={budget})` "
          "(numpy MLP; timers around the library's functions, the fastest of the repetitions)\n")
    print("| features | total | model | building rows, averaging outputs | coalition cache | sample | solve "
          "(with standard errors) | rest |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for d in ([12] if args.quick else [100, 300]):
        b = breakdown("mlp", d, args.repeats, budget)
        print(f"| {d} | " + " | ".join(f"{b[k] * 1e3:.2f}" for k in ("total", "model", "rows", "cache", "sample",
                                                                     "solve", "rest")) + " |", flush=True)
    print(f"\n## Bivariate / univariate: `ex.bivariate(x, method='kernel')` over `ex.shapley(x, method='kernel')`, "
          f"budget {budget}, same seed\n")
    print("| model | features | shapley ms | bivariate ms | bivariate / shapley | same univariate values |")
    print("|---|---:|---:|---:|---:|---|")
    for d in ([12] if args.quick else [30, 100, 300]):
        r = bivariate_ratio("mlp", d, args.repeats, budget)
        print(f"| mlp | {d} | {r['uni'] * 1e3:.1f} | {r['bi'] * 1e3:.1f} | **{r['ratio']:.2f}** | "
              f"{'yes' if r['same'] else 'NO'} |", flush=True)
    if args.processes:
        fresh_processes(args.processes, [12] if args.quick else [100, 300], args.repeats)
    r = batch_rate(rows=200 if args.quick else 5000, repeats=1 if args.quick else 3)
    print("\n## Batch per-row compute: linear model, 20 features, baseline removal, permutation Shapley, budget 40\n")
    print(f"{r['rows']:,} rows in {r['seconds']:.2f} CPU s: **{r['rate']:,.0f} rows per CPU-second** "
          f"(max |error| against w (x - mean) {r['error']:.1e}). The whole run with workers, reading and writing: "
          "benchmarks/results/batch.md.")


if __name__ == "__main__":
    main()
