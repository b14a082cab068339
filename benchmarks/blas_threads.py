"""BLAS threads during interplay's own work: one thread (interplay's rule, :mod:`interplay._threads`) against
the caller's default, for a numpy MLP explained by ``Explainer.shapley`` / ``interactions`` / ``bivariate``.

Three settings per case, in one process, alternating, best of ``--repeats`` wall times:
- ``default``: interplay as shipped (one BLAS thread for its own work up to the sizes in ``interplay._threads``,
  the caller's threads for the model);
- ``never``: interplay never limits (``ONE_THREAD_BUDGET = 0``): every BLAS call gets the default threads;
- ``always``: the whole call, model included, under ``threadpoolctl.threadpool_limits(1)``.
``--busy 0,2``: one table with nothing beside it, one with 2 busy-looping processes (cores taken by other work).

    python benchmarks/blas_threads.py --busy 0,2 --out benchmarks/results/blas_threads.md
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import interplay as ip  # noqa: E402
from interplay import _threads  # noqa: E402

CASES = [  # (players, kind, method, budget)
    (30, "shapley", "auto", 600),
    (30, "interactions", "auto", 600),
    (30, "bivariate", "auto", 600),
    (100, "shapley", "kernel", 4000),
    (100, "shapley", "auto", 4000),
    (100, "shapley", "auto", 8000),
    (300, "shapley", "leverage", 6000),
    (500, "shapley", "kernel", 8000),
    (1000, "shapley", "kernel", 4048),
    (30, "shapley", "auto", 12000),
    (100, "shapley", "auto", 16000),
    (1000, "shapley", "kernel", 20000),
]


def _busy() -> None:  # pragma: no cover - a separate process
    while True:
        pass


def mlp(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    W1, W2 = rng.normal(size=(n, 64)) / np.sqrt(n), rng.normal(size=64)
    return (lambda X: np.tanh(X @ W1) @ W2), rng.normal(size=(10, n)), rng.normal(size=n)


def run_case(n: int, kind: str, method: str, budget: int, repeats: int) -> dict:
    from threadpoolctl import threadpool_limits

    f, background, x = mlp(n)
    explainer = ip.Explainer(f, background)

    def call():
        return getattr(explainer, kind)(x, method=method, budget=budget, random_state=0)

    chosen = call().method  # warm-up
    settings = {"default": _threads.ONE_THREAD_BUDGET, "never": 0, "always": _threads.ONE_THREAD_BUDGET}
    times: dict[str, list[float]] = {name: [] for name in settings}
    for _ in range(repeats):
        for name, limit in settings.items():
            _threads.ONE_THREAD_BUDGET = limit
            start = time.perf_counter()
            if name == "always":
                with threadpool_limits(1, user_api="blas"):
                    call()
            else:
                call()
            times[name].append(time.perf_counter() - start)
    _threads.ONE_THREAD_BUDGET = settings["default"]
    return {"n": n, "kind": kind, "method": f"{method} ({chosen})" if method == "auto" else method,
            "budget": budget, "one thread": _threads.one_thread_suits(n, budget),
            **{name: min(values) for name, values in times.items()}}


def report(tables: dict[int, list[dict]], args, command: str) -> str:
    from threadpoolctl import threadpool_info

    blas = ", ".join(sorted({f"{i['internal_api']} {i.get('version', '')} ({i['num_threads']} threads)"
                             for i in threadpool_info() if i["user_api"] == "blas"}))
    lines = ["# BLAS threads during interplay's own work (`benchmarks/blas_threads.py`)", "",
             f"Command: `{command}`; Python {platform.python_version()}, numpy {np.__version__}, "
             f"{os.cpu_count()} CPUs, BLAS: {blas}; wall time, the best of {args.repeats} alternating calls. "
             "`default`: interplay as shipped; `never`: interplay never limits BLAS; `always`: the whole call, "
             "model included, on one BLAS thread."]
    for busy, rows in tables.items():
        lines += ["", f"## {busy} busy-looping processes beside it", "",
                  "| players | call | budget | interplay limits | default s | never s | always s | never / default |",
                  "|---:|---|---:|---|---:|---:|---:|---:|"]
        for r in rows:
            lines.append(f"| {r['n']} | {r['kind']}, {r['method']} | {r['budget']} | "
                         f"{'one thread' if r['one thread'] else 'no'} | {r['default']:.3f} | {r['never']:.3f} | "
                         f"{r['always']:.3f} | {r['never'] / r['default']:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--busy", default="0,2", help="comma list: busy-looping processes beside it, per table")
    parser.add_argument("--quick", action="store_true", help="the first two cases only, one repeat")
    parser.add_argument("--out", default="", help="markdown file to (over)write; default: print only")
    args = parser.parse_args()
    cases = CASES[:2] if args.quick else CASES
    args.repeats = repeats = 1 if args.quick else args.repeats
    tables: dict[int, list[dict]] = {}
    for busy in [int(b) for b in args.busy.split(",")]:
        burners = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(busy)]
        for p in burners:
            p.start()
        try:
            rows = tables.setdefault(busy, [])
            for case in cases:
                rows.append(run_case(*case, repeats=repeats))
                r = rows[-1]
                print(f"busy {busy} {r['n']:5d} {r['kind']:13s} {r['method']:22s} {r['budget']:6d}  default "
                      f"{r['default']:.3f}  never {r['never']:.3f}  always {r['always']:.3f}", flush=True)
        finally:
            for p in burners:
                p.terminate()
    text = report(tables, args, "python benchmarks/blas_threads.py " + " ".join(sys.argv[1:]))
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
