"""Time per row of interplay's tree algorithms against shap's TreeExplainer (C++), same machine, same run.

    PYTHONPATH=src python benchmarks/trees.py [--out benchmarks/results/trees.md] [--quick]

For forests and boosted ensembles of 100-500 trees, depth 6-8, 10-100 features: interventional TreeSHAP with
100 background rows (interplay ``interventional_shapley`` vs ``shap.TreeExplainer(model, data=background,
feature_perturbation="interventional")``) and path-dependent TreeSHAP (``path_dependent_shapley`` vs
``feature_perturbation="tree_path_dependent"``); the largest absolute difference between the two libraries'
values is printed next to the times. Then the exact Bivariate Shapley matrix (and pairwise SII/BII, same call)
of a 100-feature boosted model, per row. Both libraries run single-threaded. Times are wall-clock medians of
3 repeats over the same rows; each library is warmed up first (numba compilation is excluded).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np


def _time(fn, repeats=3):
    out = fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def _data(n_features, n_rows=2500, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    k = min(n_features, 10)
    y = X[:, 0] * X[:, 1] + np.sin(2 * X[:, 2]) + (X[:, 3] > 0) * X[:, 4] + X[:, 5:k].sum(axis=1)
    y = y + 0.1 * X[:, k:].sum(axis=1) if n_features > k else y
    return X, y


def _models(quick):
    from sklearn.ensemble import ExtraTreesClassifier, RandomForestRegressor
    import lightgbm as lgb
    import xgboost as xgb

    n = 100 if quick else None
    return [
        ("RandomForestRegressor", 10, lambda: RandomForestRegressor(n or 200, max_depth=8, n_jobs=2, random_state=0),
         False),
        ("ExtraTreesClassifier", 50, lambda: ExtraTreesClassifier(n or 100, max_depth=8, n_jobs=2, random_state=0),
         True),
        ("XGBRegressor", 100, lambda: xgb.XGBRegressor(n_estimators=n or 500, max_depth=6, n_jobs=2,
                                                       random_state=0), False),
        ("LGBMClassifier", 30, lambda: lgb.LGBMClassifier(n_estimators=n or 300, max_depth=8, num_leaves=64,
                                                          n_jobs=2, verbose=-1), True),
    ]


def _shap_values(explainer, rows, column):
    values = np.asarray(explainer.shap_values(rows, check_additivity=False))
    if values.ndim == 3:  # (rows, features, outputs) or (outputs, rows, features)
        values = values[..., column] if values.shape[0] == len(rows) else values[column]
    return values


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=None, help="markdown file to write (default: benchmarks/results/trees.md; "
                        "--quick: none, it prints only)")
    parser.add_argument("--quick", action="store_true", help="100 trees everywhere (a smoke run)")
    parser.add_argument("--rows", type=int, default=20)
    args = parser.parse_args()
    if args.out is None and not args.quick:  # a smoke run does not overwrite the committed table
        args.out = "benchmarks/results/trees.md"

    import threadpoolctl
    import shap
    import lightgbm
    import numba
    import sklearn
    import xgboost

    from interplay.trees import as_ensemble, interventional_indices, interventional_shapley, path_dependent_shapley
    from interplay.trees.interventional import _depth

    lines = []
    say = lambda s="": (print(s, flush=True), lines.append(s))  # noqa: E731
    say("# Tree ensembles: interplay vs shap.TreeExplainer")
    say()
    say(f"Command: `PYTHONPATH=src python benchmarks/trees.py{' --quick' if args.quick else ''}`")
    say()
    say(f"Machine: {platform.machine()} {platform.processor() or ''}, {os.cpu_count()} cores shared with other "
        f"jobs (load average at start {os.getloadavg()[0]:.1f}); Python {platform.python_version()}, "
        f"numpy {np.__version__}, numba {numba.__version__}, shap {shap.__version__}, scikit-learn "
        f"{sklearn.__version__}, xgboost {xgboost.__version__}, lightgbm {lightgbm.__version__}.")
    say()
    say(f"Per row: wall-clock median of 3 repeats over {args.rows} rows (interventional, 100 background rows) and "
        "100 rows (path-dependent), single thread, after warm-up. `max |diff|` is the largest absolute "
        "difference between the two libraries' values.")
    say()
    say("| model | trees | depth | features | interventional: interplay ms/row | shap ms/row | speed-up | "
        "max abs diff | path-dependent: interplay ms/row | shap ms/row | speed-up | max abs diff |")
    say("|---|---|---|---|---|---|---|---|---|---|---|---|")
    boosted_100 = None
    for name, d, make, classifier in _models(args.quick):
        X, y = _data(d)
        target = (y > np.median(y)).astype(int) if classifier else y
        model = make().fit(X, target)
        with threadpoolctl.threadpool_limits(1):
            ensemble = as_ensemble(model)
            column = 1 if ensemble.output == "probability" else 0
            background, rows, many = X[:100], X[1000:1000 + args.rows], X[2000:2100]
            ours_t, (ours, _) = _time(lambda: interventional_shapley(ensemble, rows, background, column=column))
            explainer = shap.TreeExplainer(model, data=background, feature_perturbation="interventional")
            shap_t, theirs = _time(lambda: _shap_values(explainer, rows, column))
            diff_i = np.abs(ours - theirs).max()
            ours_pt, (ours_p, _) = _time(lambda: path_dependent_shapley(ensemble, many, column=column))
            explainer = shap.TreeExplainer(model, feature_perturbation="tree_path_dependent")
            shap_pt, theirs_p = _time(lambda: _shap_values(explainer, many, column))
            diff_p = np.abs(ours_p - theirs_p).max()
        say(f"| {name} | {ensemble.n_trees} | {_depth(ensemble)} | {d} | {1e3 * ours_t / len(rows):.2f} | "
            f"{1e3 * shap_t / len(rows):.2f} | {shap_t / ours_t:.1f}x | {diff_i:.1e} | "
            f"{1e3 * ours_pt / len(many):.3f} | {1e3 * shap_pt / len(many):.3f} | {shap_pt / ours_pt:.1f}x | "
            f"{diff_p:.1e} |")
        if d == 100:
            boosted_100 = (name, ensemble, X)

    if boosted_100 is not None:
        name, ensemble, X = boosted_100
        say()
        say(f"## Exact Bivariate Shapley matrix, {name} ({ensemble.n_trees} trees, 100 features)")
        say()
        say("One call gives the exact Shapley and Banzhaf values, pairwise SII and BII matrices and the 100 x 100 "
            "Bivariate Shapley adjacency of one row (closed forms per leaf; no coalition is evaluated; exact "
            "enumeration would need 2^100 coalitions).")
        say()
        say("| background rows | seconds per row (median of 3 rows) | nonzero edges |")
        say("|---|---|---|")
        with threadpoolctl.threadpool_limits(1):
            interventional_indices(ensemble, X[0], X[:2])
            for n_background in (10, 100):
                times, nonzero = [], 0
                for r in range(3):
                    start = time.perf_counter()
                    indices = interventional_indices(ensemble, X[2200 + r], X[:n_background])
                    times.append(time.perf_counter() - start)
                    nonzero = int(np.count_nonzero(np.abs(indices.adjacency) > 1e-12))
                say(f"| {n_background} | {np.median(times):.3f} | {nonzero} |")
    if args.out is None:
        return
    with open(args.out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
