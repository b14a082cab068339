"""What standard errors cost: each sampler with ``std_errors=True`` and ``False`` on the same game and seeds.

The game is a cheap network-like value function (``sum tanh(z W)``, 16 hidden units), so nearly all of a call is
the library's own time. For each seed the two calls alternate ``--repeats`` times and each keeps its fastest CPU
time (``time.process_time``, one BLAS thread: the machine is shared, and wall times measured the neighbours);
the table gives the mean over seeds of both, the model's time on the same number of coalitions, and the
standard errors' cost as a fraction of the library's own time, ``(on - off) / (off - model)`` from the sums over
seeds (the same seed draws the same sample and chooses the same model either way). Issue 12 asks for at most 0.1.

    PYTHONPATH=src python benchmarks/std_errors.py            # writes benchmarks/results/std_errors.md
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

import interplay as ip

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = ((30, 600), (30, 1200), (100, 2000), (100, 4000))
# (label, entry point, method, options): Shapley samplers, then the Gaussian-process pairs and matrix
METHODS = (("odd_gp", "shapley", "odd_gp", {}), ("odd", "shapley", "odd", {}), ("proxy", "shapley", "proxy", {}),
           ("leverage", "shapley", "leverage", {}), ("kernel", "shapley", "kernel", {}),
           ("gp SII pairs", "interactions", "gp", {"index": "sii"}),
           ("gp BII pairs", "interactions", "gp", {"index": "bii"}), ("gp bivariate", "bivariate", "gp", {}))


def measure(n: int, budget: int, method: str, seeds: int, entry: str = "shapley", options: dict | None = None,
            repeats: int = 3) -> dict:
    W = np.random.default_rng(n).normal(size=(n, 16))

    def value(Z):
        return np.tanh(Z @ W).sum(axis=1)

    def call(seed: int, se: bool) -> float:
        game = ip.Game(value, n)
        start = time.process_time()
        getattr(ip, entry)(game, method=method, budget=budget, random_state=seed, std_errors=se, **(options or {}))
        return time.process_time() - start

    call(0, True)  # warm-up: imports, compilation
    on, off = [], []
    for seed in range(seeds):
        pairs = [(call(seed, True), call(seed, False)) for _ in range(repeats)]  # alternating
        on.append(min(p[0] for p in pairs))
        off.append(min(p[1] for p in pairs))
    Z = np.random.default_rng(0).random((budget, n)) < 0.5
    model = min(_timed(value, Z) for _ in range(5))
    return {"on": float(np.mean(on)), "off": float(np.mean(off)), "model": model,
            "share": (sum(on) - sum(off)) / max(sum(off) - seeds * model, 1e-12)}


def _timed(fn, Z) -> float:
    start = time.process_time()
    fn(Z)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3, help="alternating calls per seed (the fastest kept)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "std_errors.md"))
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    lines = ["# What standard errors cost (`benchmarks/std_errors.py`)", "",
             f"Command: `PYTHONPATH=src python benchmarks/std_errors.py --seeds {args.seeds} --repeats {args.repeats}`;"
             f" commit {commit}; Python {platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, "
             f"load average {os.getloadavg()[0]:.1f} at the start; CPU time, the fastest of {args.repeats} alternating "
             "calls per seed, mean over seeds, one BLAS thread.", "",
             "| method | n | budget | std_errors=True ms | std_errors=False ms | model ms | cost / own time |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for label, entry, method, options in METHODS:
        for n, budget in SETTINGS:
            r = measure(n, budget, method, args.seeds, entry, options, args.repeats)
            lines.append(f"| {label} | {n} | {budget} | {r['on'] * 1e3:.1f} | {r['off'] * 1e3:.1f} | "
                         f"{r['model'] * 1e3:.2f} | **{r['share']:.2f}** |")
            print(lines[-1], flush=True)
    Path(args.out).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
