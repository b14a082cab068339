"""What explaining null players as exact zeros gains (:mod:`interplay.fixed_players`): error and time of the
Explainer's default (``method="auto"``), which now explains the smaller game of the other features, against the
same estimator on the whole game (``ip.shapley(explainer.game(x))``, what it did before), same seeds and budget.

- Adult (``../shared/data/adult.csv``): a Pipeline (one-hot, scaling, a 32-unit MLP) on 5,000 rows,
  ``removal="baseline"``, ``baseline="mode"``, the default budget (2,076 evaluations); truth: exact enumeration
  of the whole game (2**14 coalitions, one model row each).
- sklearn's digits: a logistic regression on the 64 pixels, ``ImageExplainer(segments="patches", patch_size=1,
  baseline="zero")`` (a pixel is a player; black pixels are null players), budgets 5n and 10n; truth: permutation
  sampling of the smaller game with 100,000 evaluations (unbiased; its own error is below 1e-7 here).

    PYTHONPATH=src python benchmarks/null_players.py > benchmarks/results/null_players.md
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
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src")]

import interplay as ip  # noqa: E402
from interplay.fixed_players import restricted_game  # noqa: E402

ADULT_CSV = ROOT.parent / "shared" / "data" / "adult.csv"


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


def adult(rows: int, seeds: int) -> list[dict]:
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    frame = pd.read_csv(ADULT_CSV)
    y = frame["class"].astype(str).str.contains(">50K").astype(int)
    X = frame.drop(columns=["class"])
    cat = X.select_dtypes(exclude="number").columns.tolist()
    num = X.select_dtypes("number").columns.tolist()
    pre = ColumnTransformer([("c", OneHotEncoder(handle_unknown="ignore"), cat), ("n", StandardScaler(), num)])
    model = make_pipeline(pre, MLPClassifier(hidden_layer_sizes=(32,), max_iter=200, random_state=0)).fit(X[:5000],
                                                                                                  y[:5000])
    ex = ip.Explainer(model, background=X.sample(100, random_state=0), removal="baseline", baseline="mode")
    out = []
    for r in range(rows):
        x = X.iloc[[5000 + r]]
        truth = ip.shapley(ex.game(x), method="exact").values
        for seed in range(seeds):
            new, t_new = _timed(lambda: ex.shapley(x, random_state=seed, progress=False))
            old, t_old = _timed(lambda: ip.shapley(ex.game(x), random_state=seed))
            out.append({"case": "adult", "row": r, "null": len(new.info.get("null_players", [[]])[0]),
                        "n": 14, "budget": "default", "mse_new": float(np.mean((new.values[0] - truth) ** 2)),
                        "mse_old": float(np.mean((old.values - truth) ** 2)), "t_new": t_new, "t_old": t_old,
                        "method_new": new.method, "method_old": old.method})
    return out


def digits(images: int, seeds: int, factors: list[int]) -> list[dict]:
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression

    from interplay.modalities.image import ImageExplainer

    X, y = load_digits(return_X_y=True)
    clf = LogisticRegression(max_iter=2000).fit(X / 16, y)

    def predict(images):
        return clf.predict_proba(np.asarray(images).reshape(len(images), -1))

    ex = ImageExplainer(predict, segments="patches", patch_size=1, baseline="zero", classifier=True)
    out = []
    for i in range(images):
        image = X[1000 + i].reshape(8, 8) / 16
        game = ex.game(image)
        null = game.null_players()
        reference = ip.shapley(restricted_game(game, ~null), method="permutation", budget=100_000, random_state=0)
        truth = np.zeros(64)
        truth[~null] = reference.values
        for factor in factors:
            for seed in range(seeds):
                new, t_new = _timed(lambda: ex.shapley(image, budget=factor * 64, random_state=seed))
                old, t_old = _timed(lambda: ip.shapley(ex.game(image), budget=factor * 64, random_state=seed))
                out.append({"case": "digits", "row": i, "null": int(null.sum()), "n": 64, "budget": factor * 64,
                            "mse_new": float(np.mean((new.values - truth) ** 2)),
                            "mse_old": float(np.mean((old.values - truth) ** 2)), "t_new": t_new, "t_old": t_old,
                            "method_new": new.method, "method_old": old.method})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    records = adult(args.rows, args.seeds) + digits(args.rows, args.seeds, [5, 10])
    print("# Null players explained as exact zeros (`benchmarks/null_players.py`)\n")
    print(f"- command: `PYTHONPATH=src python benchmarks/null_players.py --rows {args.rows} --seeds {args.seeds}`")
    print(f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores (load average "
          f"{os.getloadavg()[0]:.1f} at the start), one BLAS/OpenMP thread; interplay at {commit}; Python "
          f"{platform.python_version()}, numpy {np.__version__}")
    print("- `whole game`: `ip.shapley(explainer.game(x))` (the Explainer before null players were reduced); "
          "`reduced`: `explainer.shapley(x)` now; the same seeds and budget; MSE over all features against the "
          "truth (module docstring), mean over seeds; wall ms per explanation, mean\n")
    print("| case | row | null players | budget | method (whole / reduced) | MSE whole game | MSE reduced | "
          "whole / reduced | ms whole | ms reduced |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    keys = sorted({(r["case"], r["row"], str(r["budget"])) for r in records}, key=lambda k: (k[0], k[2], k[1]))
    for case, row, budget in keys:
        rs = [r for r in records if (r["case"], r["row"], str(r["budget"])) == (case, row, budget)]
        old, new = np.mean([r["mse_old"] for r in rs]), np.mean([r["mse_new"] for r in rs])
        ratio = "exact (rounding)" if new < 1e-25 else f"{old / new:.1f}"
        t_old, t_new = 1000 * np.mean([r["t_old"] for r in rs]), 1000 * np.mean([r["t_new"] for r in rs])
        print(f"| {case} | {row} | {rs[0]['null']} of {rs[0]['n']} | {budget} | {rs[0]['method_old']} / "
              f"{rs[0]['method_new']} | {old:.2e} | {new:.2e} | {ratio} | {t_old:.0f} | {t_new:.0f} |", flush=True)


if __name__ == "__main__":
    main()
