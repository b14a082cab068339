"""Accuracy at equal budget against exact ground truth, interplay vs shap vs shapiq, on the very same games.

Games: marginal (interventional) removal of one row over a fixed background, for MLPs fitted on scikit-learn's
diabetes (10 features), wine (13) and breast_cancer (first 16 features). Ground truth: interplay's exact
enumeration (2**n coalitions). Before comparing, the games are checked to be the same: shap's ExactExplainer,
shap's KernelExplainer at full budget and shapiq's ExactComputer (SV, SII, BII) must agree with interplay's
exact values (max abs differences reported).

Budget = coalition evaluations (for shap: model rows / background rows, measured). Every interplay Shapley
method registered at run time is run (``interplay.available_methods("shapley")``; L-/C-Shapley left out: they
need a feature graph), and every registered interaction method for SII/BII of order 2. Metrics: AE (sum over features of |error|) and ranking ACC
(SHEAR Sec. 5.2, ``interplay.metrics``).

    PYTHONPATH=src python benchmarks/accuracy.py            # full run, writes benchmarks/results/accuracy.md
    PYTHONPATH=src python benchmarks/accuracy.py --quick    # seconds, prints only
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (STRUCTURED, general_methods, has, header, interplay_game, ip, load_task, table,  # noqa: E402
                     value_function)

from interplay.metrics import absolute_error, ranking_accuracy  # noqa: E402

TASKS = ("diabetes", "wine", "breast_cancer")
PER_FEATURE = (8, 32, 128)  # budget = N evaluations per feature x n features (SHEAR's N)


# ------------------------------------------------------------------ one runner per (library, method)
def shapley_runners(task, *, include=None, shap_jit=True) -> dict:
    """name -> run(x, budget, seed) -> (values, coalitions used). Explainers are built once per task.

    shap's PermutationExplainer compiles numba code on its first call (tens of seconds on a loaded machine):
    it is warmed up once, untimed (``shap_jit=False`` leaves it out)."""
    bg, model = task.background, task.model
    B = len(bg)
    runners = {}
    for method in general_methods("shapley"):
        def run(x, budget, seed, method=method):
            r = ip.shapley(interplay_game(model, x, bg), method=method, budget=budget, random_state=seed)
            return r.values, r.n_evaluations

        runners[f"interplay {method}"] = run
    if has("shap"):
        import shap

        kernel = shap.KernelExplainer(model, bg)

        def shap_kernel(x, budget, seed):
            np.random.seed(seed)
            model.reset()
            v = kernel.shap_values(x[None], nsamples=budget, l1_reg=False, silent=True)
            return np.ravel(v), model.rows / B

        def shap_permutation(x, budget, seed):
            explainer = shap.PermutationExplainer(model, shap.maskers.Independent(bg, max_samples=B), seed=seed)
            model.reset()
            v = explainer(x[None], max_evals=budget, silent=True).values[0]
            return np.ravel(v), model.rows / B

        runners["shap KernelExplainer"] = shap_kernel
        if shap_jit:
            shap_permutation(task.rows[0], 2 * task.n_features + 2, 0)  # warm-up: numba compilation
            runners["shap PermutationExplainer"] = shap_permutation
    if has("shapiq"):
        import shapiq

        for cls in ("KernelSHAP", "PermutationSamplingSV", "SVARM"):
            def run(x, budget, seed, cls=cls):
                counted = _counting(value_function(model, x, bg))
                approx = getattr(shapiq.approximator, cls)(n=task.n_features, random_state=seed)
                iv = approx.approximate(budget=budget, game=counted)
                return np.array([iv[(i,)] for i in range(task.n_features)]), counted.n

            runners[f"shapiq {cls}"] = run
    if include:
        runners = {k: v for k, v in runners.items() if any(s in k for s in include)}
    return runners


def interaction_runners(task, index: str) -> dict:
    """name -> run(x, budget, seed) -> ({pair: value}, coalitions used), for order-2 ``index``."""
    bg, model, n = task.background, task.model, task.n_features
    runners = {}
    for method in general_methods("interactions"):
        def run(x, budget, seed, method=method):
            r = ip.interactions(interplay_game(model, x, bg), index=index, order=2, method=method, budget=budget,
                                random_state=seed)
            return {k: v for k, v in r.values.items() if len(k) == 2}, r.n_evaluations

        runners[f"interplay {method}"] = run
    if has("shapiq"):
        import shapiq

        # SVARMIQ left out: 1-9 s per explanation here, it alone would double the run time
        classes = ("KernelSHAPIQ",) if index == "sii" else ("SHAPIQ",)
        for cls in classes:
            def run(x, budget, seed, cls=cls):
                counted = _counting(value_function(model, x, bg))
                approx = getattr(shapiq.approximator, cls)(n=n, max_order=2, index=index.upper(), random_state=seed)
                iv = approx.approximate(budget=budget, game=counted)
                return {(i, j): float(iv[(i, j)]) for i in range(n) for j in range(i + 1, n)}, counted.n

            runners[f"shapiq {cls}"] = run
    return runners


class _counting:
    """Value function wrapper counting the coalitions it is asked for (shapiq's budget unit)."""

    def __init__(self, fn):
        self.fn, self.n = fn, 0

    def __call__(self, S):
        S = np.atleast_2d(S)
        self.n += len(S)
        return self.fn(S)


# ------------------------------------------------------------------ checks that the games are the same
def game_check(task, x, *, shap_jit=True) -> dict:
    bg, model, n = task.background, task.model, task.n_features
    game = interplay_game(model, x, bg)
    truth = ip.shapley(game).values
    out = {"task": task.name}
    if has("shap") and shap_jit and n <= 13:  # shap's ExactExplainer needs minutes at 16 features here
        import shap

        exact = shap.ExactExplainer(model, shap.maskers.Independent(bg, max_samples=len(bg)))
        out["shap Exact"] = float(np.abs(exact(x[None], max_evals=2**n + 1).values[0] - truth).max())
    if has("shap"):
        import shap

        kernel = shap.KernelExplainer(model, bg)
        v = np.ravel(kernel.shap_values(x[None], nsamples=2**n, l1_reg=False, silent=True))
        out["shap Kernel (2^n)"] = float(np.abs(v - truth).max())
    if has("shapiq"):
        import shapiq

        computer = shapiq.ExactComputer(n_players=n, game=value_function(model, x, bg))
        sv = computer(index="SV", order=1)
        out["shapiq Exact SV"] = float(np.abs(np.array([sv[(i,)] for i in range(n)]) - truth).max())
        for index in ("sii", "bii"):
            ours = ip.interactions(game, index=index, order=2)
            theirs = computer(index=index.upper(), order=2)
            out[f"shapiq Exact {index.upper()}"] = max(abs(theirs[k] - v) for k, v in ours.values.items())
    return out


# ------------------------------------------------------------------ the run
def run_shapley(tasks, per_feature, seeds, include=None, shap_jit=True, log=print) -> list[dict]:
    records = []
    for task in tasks:
        runners = shapley_runners(task, include=include, shap_jit=shap_jit)
        for r, x in enumerate(task.rows):
            truth = ip.shapley(interplay_game(task.model, x, task.background)).values
            for name, run in runners.items():
                for N in per_feature:
                    budget = N * task.n_features
                    for seed in seeds:
                        rec = {"task": task.name, "method": name, "N": N, "budget": budget, "row": r, "seed": seed}
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                start = time.perf_counter()
                                values, used = run(x, budget, seed)
                                rec["seconds"] = time.perf_counter() - start
                            rec.update(ae=absolute_error(values, truth), acc=ranking_accuracy(values, truth),
                                       evals=float(used))
                        except Exception as exc:  # noqa: BLE001  (a method refusing a budget is a result)
                            rec["error"] = f"{type(exc).__name__}: {str(exc)[:80]}"
                        records.append(rec)
        log(f"  shapley {task.name}: {len(task.rows)} rows done ({time.strftime('%H:%M:%S')})")
    return records


def run_interactions(tasks, per_feature, seeds, log=print) -> list[dict]:
    records = []
    for task in tasks:
        for index in ("sii", "bii"):
            runners = interaction_runners(task, index)
            for r, x in enumerate(task.rows):
                exact = ip.interactions(interplay_game(task.model, x, task.background), index=index, order=2)
                truth = {k: v for k, v in exact.values.items() if len(k) == 2}
                keys = sorted(truth)
                t = np.array([truth[k] for k in keys])
                for name, run in runners.items():
                    for N in per_feature:
                        budget = N * task.n_features
                        for seed in seeds:
                            rec = {"task": task.name, "index": index.upper(), "method": name, "N": N,
                                   "budget": budget, "row": r, "seed": seed}
                            try:
                                with warnings.catch_warnings():
                                    warnings.simplefilter("ignore")
                                    start = time.perf_counter()
                                    values, used = run(x, budget, seed)
                                    rec["seconds"] = time.perf_counter() - start
                                rec.update(ae=float(np.abs(np.array([values[k] for k in keys]) - t).sum()),
                                           evals=float(used))
                            except Exception as exc:  # noqa: BLE001
                                if str(exc).startswith("index:"):  # the method does not estimate this index
                                    continue
                                rec["error"] = f"{type(exc).__name__}: {str(exc)[:80]}"
                            records.append(rec)
        log(f"  interactions {task.name}: done ({time.strftime('%H:%M:%S')})")
    return records


def summarise(records, keys) -> list[dict]:
    groups = defaultdict(list)
    for rec in records:
        groups[tuple(rec[k] for k in keys)].append(rec)
    out = []
    for key, recs in groups.items():
        ok = [r for r in recs if "error" not in r]
        row = dict(zip(keys, key))
        if not ok:
            row["note"] = recs[0]["error"]
            row.update(ae=float("nan"), acc=float("nan"), evals=float("nan"), ms=float("nan"))
        else:
            ae = np.array([r["ae"] for r in ok])
            row.update(ae=float(ae.mean()), ae_sd=float(ae.std()), evals=float(np.mean([r["evals"] for r in ok])),
                       ms=1000 * float(np.mean([r["seconds"] for r in ok])), runs=len(ok),
                       note="" if len(ok) == len(recs) else f"{len(recs) - len(ok)} runs failed: {recs[0].get('error', '')}")
            if "acc" in ok[0]:
                row["acc"] = float(np.mean([r["acc"] for r in ok]))
        out.append(row)
    return out


def pivot(summary, value, tasks, per_feature, label) -> str:
    text = ""
    for task in tasks:
        rows = [s for s in summary if s["task"] == task]
        methods = sorted({s["method"] for s in rows}, key=lambda m: (not m.startswith("interplay"), m))
        out = []
        for m in methods:
            line = {"method": m}
            for N in per_feature:
                hit = [s for s in rows if s["method"] == m and s["N"] == N]
                line[f"N={N}"] = hit[0][value] if hit else float("nan")
            out.append(line)
        text += f"\n**{task}** ({label})\n\n" + table(out, ["method"] + [f"N={N}" for N in per_feature])
    return text


def main(tasks=TASKS, *, n_rows=5, n_background=10, per_feature=PER_FEATURE, seeds=(0,), interactions=True,
         interaction_rows=2, include=None, shap_jit=True, out: str | None = None, command: str = "",
         log=print) -> dict:
    """Run the benchmark; returns ``{"shapley": records, "interactions": records, "checks": [...]}`` and writes
    the markdown report to ``out`` when given."""
    loaded = [load_task(t, n_rows=n_rows, n_background=n_background) for t in tasks]
    start = time.perf_counter()
    checks = [game_check(task, task.rows[0], shap_jit=shap_jit) for task in loaded]
    log(f"  game checks done ({time.perf_counter() - start:.1f}s)")
    shap_records = run_shapley(loaded, per_feature, seeds, include=include, shap_jit=shap_jit, log=log)
    inter_records = []
    if interactions:
        small = [replace(t, rows=t.rows[:interaction_rows]) for t in loaded]
        inter_records = run_interactions(small, per_feature, seeds, log=log)
    total = time.perf_counter() - start
    result = {"shapley": shap_records, "interactions": inter_records, "checks": checks, "seconds": total,
              "tasks": loaded}
    if out:
        Path(out).write_text(report(result, per_feature, seeds, n_rows, interaction_rows, command))
    log(f"  total {total:.0f}s")
    return result


def report(result, per_feature, seeds, n_rows, interaction_rows, command) -> str:
    tasks = [t.name for t in result["tasks"]]
    text = header("Accuracy at equal budget: interplay vs shap vs shapiq", command)
    text += (f"- total run time: {result['seconds']:.0f} s; {n_rows} rows per task, seeds {list(seeds)}; budget = "
             "N x n_features coalition evaluations (N = evaluations per feature, as in SHEAR)\n"
             f"- interplay Shapley methods registered at run time: {ip.available_methods('shapley')}; "
             f"interaction methods: {ip.available_methods('interactions')}; {list(STRUCTURED)} are left out "
             "(they need a feature graph: sequences, image grids)\n\n")
    text += "## Tasks\n\n" + "".join(f"- {t.description}\n" for t in result["tasks"])
    cols = list(dict.fromkeys(c for check in result["checks"] for c in check if c != "task"))
    text += ("\n## Same games? (max abs difference to interplay's exact values, first row of each task; shap's ExactExplainer only up to 13 features, its KernelExplainer at 2^n coalitions enumerates every coalition too)\n\n"
             + table(result["checks"], ["task"] + cols))
    summary = summarise(result["shapley"], ["task", "method", "N", "budget"])
    text += ("\n## Shapley values: AE (sum over features of |error|, mean over rows and seeds; lower is better)\n"
             + pivot(summary, "ae", tasks, per_feature, "AE"))
    text += ("\n## Shapley values: ranking ACC (SHEAR Sec. 5.2; higher is better)\n"
             + pivot(summary, "acc", tasks, per_feature, "ACC"))
    text += ("\n## Shapley values: all numbers (evals = coalitions actually used, ms = wall time per explanation)\n\n"
             + table(summary, ["task", "method", "budget", "evals", "ae", "ae_sd", "acc", "ms", "note"]))
    if result["interactions"]:
        s2 = summarise(result["interactions"], ["task", "index", "method", "N", "budget"])
        text += (f"\n## Order-2 interactions: AE over all pairs ({interaction_rows} rows per task)\n\n"
                 + table(s2, ["task", "index", "method", "budget", "evals", "ae", "ae_sd", "ms", "note"]))
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny setting (seconds), no report file")
    parser.add_argument("--rows", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "accuracy.md"))
    args = parser.parse_args()
    command = "PYTHONPATH=src python benchmarks/accuracy.py " + " ".join(sys.argv[1:])
    if args.quick:
        main(("diabetes",), n_rows=1, n_background=5, per_feature=(8,), interaction_rows=1, shap_jit=False)
    else:
        main(n_rows=args.rows, seeds=tuple(range(args.seeds)), out=args.out, command=command.strip())
