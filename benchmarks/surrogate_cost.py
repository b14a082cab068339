"""What the tree surrogate costs beside the model: issue 12 asks for at most 25% of the model time for a 500-tree
forest at budget 20n.

The games are `sota.py`'s tree games (marginal removal of one breast_cancer row over its background, the model a
500-tree random forest or 100-tree gradient boosting). For each budget the default Shapley sampler's coalitions
(the leverage sample of ``method="auto"`` = OddGP) are drawn; then, interleaved over ``--repeats`` repetitions,
the game's value function is timed on them (the model's time: building rows, the model, averaging) and so is each
surrogate (:func:`interplay.estimators.odd.surrogate_spectrum`: 100 trees fitted on those coalitions and their
values, as arrays, and their exact Fourier spectrum), the latter also in two parts. ``binary`` is interplay's own
boosting on 0/1 inputs (the default); ``xgboost`` is XGBoost's, read into arrays. Wall times,
one BLAS/OpenMP thread, median over the repetitions.

    PYTHONPATH=src python benchmarks/surrogate_cost.py > benchmarks/results/surrogate_cost.md
"""

from __future__ import annotations

import os

if __name__ == "__main__":  # one BLAS/OpenMP thread, set before numpy and scikit-learn start their pools
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
        os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "benchmarks")]

from interplay.estimators import _surrogate  # noqa: E402
from interplay.estimators._leverage import leverage_sample  # noqa: E402
from interplay.estimators.odd import surrogate_spectrum  # noqa: E402


def _seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(value_fn, n: int, budget: int, repeats: int, surrogates: list[str], seed: int = 0) -> dict:
    """Median seconds of the model on the sample and, per surrogate, of the whole surrogate step and of its fit
    (for a library: its fit plus reading its trees) and spectrum."""
    rng = np.random.default_rng(seed)
    sample = leverage_sample(n, budget - 2, rng)
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    rows = np.concatenate([ends, sample.coalitions])
    values = np.asarray(value_fn(rows), dtype=float)
    times: dict = {"model": []}
    for kind in surrogates:
        times.update({(kind, part): [] for part in ("surrogate", "fit", "spectrum")})
    for r in range(repeats + 1):  # the first round warms up (imports, compilation)
        round_times = {"model": _seconds(lambda: value_fn(rows))}
        for kind in surrogates:
            round_times[kind, "surrogate"] = _seconds(lambda: surrogate_spectrum(
                kind, sample.coalitions, values, np.random.default_rng(r)))
            fitted = []
            round_times[kind, "fit"] = _seconds(lambda: fitted.append(
                _surrogate.fit_surrogate(kind, rows, values, np.random.default_rng(r))))
            round_times[kind, "spectrum"] = _seconds(lambda: _surrogate.fourier_spectrum(fitted[0]))
        if r:
            for key, t in round_times.items():
                times[key].append(t)
    return {key: float(np.median(t)) for key, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default="forest30,forest100,gbm30")
    parser.add_argument("--budgets", default="10,20,40", help="budgets as multiples of n")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--surrogates", default="binary,xgboost", help="surrogate kinds (interplay's own: binary)")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    import sota

    threadpool_limits(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    print("# What the tree surrogate costs beside the model (`benchmarks/surrogate_cost.py`)\n")
    print(f"- command: `PYTHONPATH=src python benchmarks/surrogate_cost.py --games {args.games} --budgets "
          f"{args.budgets} --repeats {args.repeats}`")
    print(f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores (load average "
          f"{os.getloadavg()[0]:.1f} at the start), one BLAS/OpenMP thread; interplay at {commit}; Python "
          f"{platform.python_version()}, numpy {np.__version__}")
    kinds = args.surrogates.split(",")
    print(f"- wall times in ms, median of {args.repeats} interleaved repetitions. Each surrogate (100 trees, depth 4) "
          "is fitted on the default sampler's coalitions and its exact Fourier spectrum taken (`surrogate_spectrum`, "
          "what OddGP runs); fit (for a library: its fit and reading its trees into arrays) and spectrum are the "
          "same steps timed one by one. `binary` is interplay's own boosting on 0/1 inputs (the default), "
          "`xgboost` XGBoost's `hist` boosting with the same parameters\n")
    head = " | ".join(f"{k} ms | {k} / model | fit | spectrum" for k in kinds)
    print(f"| game | budget | model ms | {head} |")
    print("|---|---:|---:|" + "---:|---:|---:|---:|" * len(kinds))
    for name in args.games.split(","):
        game = sota.build_game(name, 0)
        for factor in (int(f) for f in args.budgets.split(",")):
            r = measure(game.value_fn, game.n, factor * game.n, args.repeats, kinds)
            cells = " | ".join(f"{1000 * r[k, 'surrogate']:.1f} | **{r[k, 'surrogate'] / r['model']:.2f}** | "
                               f"{1000 * r[k, 'fit']:.1f} | {1000 * r[k, 'spectrum']:.1f}" for k in kinds)
            print(f"| {name} | {factor}n = {factor * game.n} | {1000 * r['model']:.1f} | {cells} |", flush=True)

if __name__ == "__main__":
    main()
