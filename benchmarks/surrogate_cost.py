"""What the tree surrogate costs beside the model: issue 12 asks for at most 25% of the model time for a 500-tree
forest at budget 20n.

The games are `sota.py`'s tree games (marginal removal of one breast_cancer row over its background, the model a
500-tree random forest or 100-tree gradient boosting). For each budget the default Shapley sampler's coalitions
(the leverage sample of ``method="auto"`` = OddGP) are drawn; then, interleaved over ``--repeats`` repetitions,
the game's value function is timed on them (the model's time: building rows, the model, averaging) and so is the
surrogate (:func:`interplay.estimators.odd.surrogate_spectrum`: XGBoost, 100 trees, fitted on those coalitions and
their values, read into arrays and its exact Fourier spectrum), the latter also in its three parts. Wall times,
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

import interplay as ip  # noqa: E402
from interplay.estimators import _surrogate  # noqa: E402
from interplay.estimators._leverage import leverage_sample  # noqa: E402
from interplay.estimators.odd import surrogate_spectrum  # noqa: E402


def _seconds(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(value_fn, n: int, budget: int, repeats: int, seed: int = 0) -> dict:
    """Median seconds of the model on the sample, of the surrogate, and of its fit, read and spectrum."""
    rng = np.random.default_rng(seed)
    sample = leverage_sample(n, budget - 2, rng)
    ends = np.zeros((2, n), dtype=bool)
    ends[1] = True
    rows = np.concatenate([ends, sample.coalitions])
    values = np.asarray(value_fn(rows), dtype=float)
    X, y = rows.astype(np.float32), values
    times: dict[str, list] = {k: [] for k in ("model", "surrogate", "fit", "read", "spectrum")}
    for r in range(repeats + 1):  # the first round warms up (imports, compilation)
        model = _seconds(lambda: value_fn(rows))
        surrogate = _seconds(lambda: surrogate_spectrum("xgboost", sample.coalitions, values,
                                                        np.random.default_rng(r)))
        fitted = []
        fit = _seconds(lambda: fitted.append(_surrogate._make("xgboost", r).fit(X, y)))
        ensemble = []
        read = _seconds(lambda: ensemble.append(ip.trees.as_ensemble(fitted[0])))
        spectrum = _seconds(lambda: _surrogate.fourier_spectrum(ensemble[0]))
        if r:
            for key, t in zip(times, (model, surrogate, fit, read, spectrum)):
                times[key].append(t)
    return {key: float(np.median(t)) for key, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", default="forest30,forest100,gbm30")
    parser.add_argument("--budgets", default="10,20,40", help="budgets as multiples of n")
    parser.add_argument("--repeats", type=int, default=7)
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
    print(f"- wall times in ms, median of {args.repeats} interleaved repetitions; the surrogate is XGBoost "
          "(100 trees, depth 4) fitted on the default sampler's coalitions, read and its exact spectrum taken; "
          "fit / read / spectrum are the same three steps timed one by one\n")
    print("| game | budget | model ms | surrogate ms | surrogate / model | fit | read | spectrum |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in args.games.split(","):
        game = sota.build_game(name, 0)
        for factor in (int(f) for f in args.budgets.split(",")):
            r = measure(game.value_fn, game.n, factor * game.n, args.repeats)
            print(f"| {name} | {factor}n = {factor * game.n} | {1000 * r['model']:.1f} | "
                  f"{1000 * r['surrogate']:.1f} | **{r['surrogate'] / r['model']:.2f}** | {1000 * r['fit']:.1f} | "
                  f"{1000 * r['read']:.1f} | {1000 * r['spectrum']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
