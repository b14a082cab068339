"""State of the art at equal budget: interplay's Shapley, order-2 SII/BII and Bivariate Shapley estimators against
the newest shapiq approximators and shap's KernelExplainer / PermutationExplainer, on the very same games.

Every library is handed the same value function ``(k, n) bool -> (k,)`` and the same budget (coalition
evaluations). shapiq's approximators get it directly (``approximate(budget, game)``); shap explains it through
the model ``f(Z) = v(Z > 0.5)`` with one background row of zeros and the explained row all ones (so shap's
masking builds exactly the coalitions; checked at full budget in the report). Games (``GAMES``): sparse
Moebius games (closed-form truth), MLPs on tabular data (exact enumeration at 20 features, a reference
estimate at 60), gradient boosting and 500-tree random forests (exact interventional values by
``method="tree"``), VADER on a 42-token review (tokens dropped) and an MLP on the 64 pixels of a digit (both
against reference estimates). A reference estimate is the mean of 10 runs of interplay's ``kernel`` with
``--reference-factor`` (200) times the largest benchmark budget in all; its standard error is in the report.
Order-2 SII/BII and Bivariate Shapley are compared on the games with at most 40 players and an exact truth
(closed form; exact enumeration at 20 players; the trees' exact pairwise algorithms at 30).

Metric: MSE against the truth (mean over features / pairs / off-diagonal entries), mean over seeds with the
standard error over seeds, and wall time per explanation. A (game, method) whose explanations take longer than
``--max-seconds`` on average at one budget is not run at larger ones ("too slow" in the tables). Results are
cached per (game, kind, method, budget, seed) in a JSON-lines file (``--cache-dir``), so an interrupted run
continues where it stopped; the file name carries the git commit and the shapiq/shap versions.

The full run wants the newest shapiq (1.8: LeverageSHAP, OddSHAP, ProxySHAP, RegressionMSR, ProxySPEX) in its
own environment, interplay from the source tree (see benchmarks/README.md)::

    PYTHONPATH=src /tmp/shapiq-latest/bin/python benchmarks/sota.py          # writes benchmarks/results/sota.md
    PYTHONPATH=src python benchmarks/sota.py --quick                          # < 1 min, prints only

With an older shapiq the missing approximators are recorded as "n/a". Time here (2 shared cores): the partial
run with 2 seeds took 813 s, so the full run (5 seeds) about 30 min, plus whatever new interplay methods cost;
about 80 % of it is shapiq's SVARMIQ and ProxySPEX (``--max-seconds 3`` leaves most of them out).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):  # xgboost/lightgbm inside shapiq's
    os.environ.setdefault(_var, "1")                                        # proxies: one thread, like BLAS

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (ROOT, general_methods, has, header, ip, load_task, make_data, table,  # noqa: E402
                     value_function, versions)

PER_FEATURE = (5, 10, 20, 40, 80)  # budget = factor x n (capped below 2^n)
# speed at equal accuracy: budgets in steps of sqrt(2), so no method is far past the accuracy it needs
EQUAL_PER_FEATURE = (5, 7, 10, 14, 20, 28, 40, 57, 80, 113, 160, 226, 320, 453, 640)
# the time at the budget reached: the median of this many runs per row (one run's time varied by 20% between
# runs of the section: shap KernelExplainer 219 and 263 ms at 4,800 evaluations on the same idle machine)
EQUAL_REPEATS = 5
GAMES = ("moebius16", "moebius40", "mlp20", "mlp60", "gbm30", "gbm100", "forest30", "forest100", "text42",
         "image64")
KINDS = ("sv", "sii", "bii", "biv")
KIND_TITLES = {"sv": "Shapley values", "sii": "order-2 SII (pairs)", "bii": "order-2 BII (pairs)",
               "biv": "Bivariate Shapley (adjacency, off-diagonal)"}
# interplay methods always run (besides whatever else is registered): the estimators of the current release
ALWAYS = {"sv": ("auto", "kernel", "antithetic"), "sii": ("auto", "permutation", "msr", "pairwise"),
          "bii": ("auto", "permutation", "msr", "pairwise"), "biv": ("auto", "kernel", "permutation")}
REGISTRY = {"sv": "shapley", "sii": "interactions", "bii": "interactions", "biv": "bivariate"}
# shapiq approximators: class name -> constructor options (besides n and random_state)
SHAPIQ_SV = {"LeverageSHAP": {}, "OddSHAP": {}, "ProxySHAP": {"max_order": 1, "index": "SV"},
             "RegressionMSR": {"index": "SV"}, "KernelSHAP": {}, "PermutationSamplingSV": {}}
SHAPIQ_ORDER2 = {  # ProxySPEX without its hyper-parameter search (minutes per explanation here)
    "sii": {"KernelSHAPIQ": {}, "SVARMIQ": {}, "ProxySPEX": {"hpo": False}, "ProxySHAP": {},
            "PermutationSamplingSII": {}},
    "bii": {"SHAPIQ": {}, "SVARMIQ": {}, "ProxySPEX": {"hpo": False}, "ProxySHAP": {}},
}
TEXT = ("the hotel was not bad at all , the staff were friendly and helpful , but the room was small , the "
        "breakfast was cold and the wifi kept failing , although the view of the harbour at sunset was truly "
        "wonderful")  # 42 tokens


class Unavailable(Exception):
    """The estimator does not exist in the installed library version (recorded as n/a, not as an error)."""


# ------------------------------------------------------------------ games
@dataclass
class BenchGame:
    """One explained game: the value function every library gets, and its ground truth.

    ``truth``: ``"sv"`` (n,), and where known ``"sii"``/``"bii"`` (n, n) pair matrices and ``"biv"`` (n, n)."""

    name: str
    n: int
    value_fn: Callable[[np.ndarray], np.ndarray]
    description: str
    truth: dict
    truth_note: str
    truth_se: np.ndarray | None = None  # per-feature standard error of a reference estimate
    # tree games: what a user of the model gets by default, ``Explainer(model, background).shapley(x)`` (auto)
    model_default: Callable[[], tuple[np.ndarray, str]] | None = None


def _vf(fn):
    """Accept one coalition or a matrix (shapiq sometimes passes a 1-D coalition)."""
    return lambda S: np.asarray(fn(np.atleast_2d(np.asarray(S, dtype=bool))), dtype=float).ravel()


def moebius(n: int, row: int = 0, n_terms: int = 50, max_order: int = 5, seed: int = 0) -> BenchGame:
    """``v(S) = sum_T m(T) [T subset of S]`` over ``n_terms`` random sets T of sizes 1..max_order."""
    rng = np.random.default_rng([seed, n, row])
    sizes = rng.integers(1, min(max_order, n) + 1, size=n_terms)
    members = np.zeros((n_terms, n))
    for k, s in enumerate(sizes):
        members[k, rng.choice(n, size=s, replace=False)] = 1.0
    coef = rng.normal(size=n_terms)

    def value_fn(S):
        return ((S.astype(float) @ members.T) == sizes) @ coef

    higher = sizes >= 2

    def pairs(weights):
        M = (members[higher] * weights[:, None]).T @ members[higher]
        np.fill_diagonal(M, 0.0)
        return M

    truth = {"sv": members.T @ (coef / sizes),
             "sii": pairs(coef[higher] / (sizes[higher] - 1)),
             "bii": pairs(coef[higher] / 2.0 ** (sizes[higher] - 2))}
    return BenchGame(f"moebius{n}", n, _vf(value_fn), f"sparse Moebius game: {n_terms} random terms of orders "
                     f"1..{max_order} over {n} players, N(0,1) coefficients", truth, "closed form")


def _tabular_mlp(n: int, row: int):
    """MLP(32,32) P(class 1) on breast_cancer (first n <= 30 features) or a synthetic 60-feature classification
    set; marginal removal over 4 background rows."""
    if n <= 30:
        task = load_task("breast_cancer", n_rows=row + 1, n_background=4, n_features=n)
        return value_function(task.model, task.rows[row], task.background), task.description
    from sklearn.datasets import make_classification
    from sklearn.model_selection import train_test_split

    from _common import _mlp

    X, y = make_classification(n_samples=1000, n_features=n, n_informative=20, n_redundant=10, random_state=0)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = _mlp(True, 0).fit(X_train, y_train)
    desc = (f"synthetic make_classification ({n} features, 20 informative): MLP(32,32) P(class 1), marginal "
            "removal over 4 background rows")
    return value_function(lambda Z: est.predict_proba(Z)[:, 1], X_test[4 + row], X_test[:4]), desc


def _trees(kind: str, n: int, row: int):
    """Gradient boosting (100 trees) or a 500-tree random forest; breast_cancer at 30 features, the synthetic
    data of speed.py otherwise; marginal removal over 10 background rows; truth by ``method="tree"``."""
    from sklearn.ensemble import (GradientBoostingClassifier, GradientBoostingRegressor, RandomForestClassifier,
                                  RandomForestRegressor)

    if n == 30:
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
        perm = np.random.default_rng(0).permutation(len(X))
        X, y = X[perm], y[perm]
        est = (GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0) if kind == "gbm"
               else RandomForestClassifier(n_estimators=500, max_depth=8, n_jobs=1, random_state=0))
        output, data = ("log-odds" if kind == "gbm" else "probability"), "breast_cancer (30 features)"
    else:
        X, y = make_data(n, 600, 0)
        est = (GradientBoostingRegressor(n_estimators=100, max_depth=4, random_state=0) if kind == "gbm"
               else RandomForestRegressor(n_estimators=500, max_depth=8, max_features=0.3, n_jobs=1, random_state=0))
        output, data = "prediction", f"synthetic correlated Gaussian data of speed.py ({n} features)"
    est.fit(X[:400], y[:400])
    explainer = ip.Explainer(est, background=X[400:410], removal="marginal", output=output)
    x = X[420 + row]
    truth = {"sv": np.asarray(explainer.shapley(x[None], method="tree").values, dtype=float).reshape(-1)}
    if n <= 40:  # exact pairwise indices and Bivariate Shapley matrix of the trees too
        for index in ("sii", "bii"):
            truth[index] = _pair_matrix(explainer.interactions(x, index=index, method="tree").values, n)
        truth["biv"] = np.asarray(explainer.bivariate(x, method="tree").adjacency, dtype=float)
    name = "GradientBoosting(100 trees, depth 3-4)" if kind == "gbm" else "RandomForest(500 trees, depth 8)"

    def model_default():
        result = explainer.shapley(x[None])  # method="auto": the exact tree algorithm for this model
        return np.asarray(result.values, dtype=float).reshape(-1), result.info["auto"]["chosen"]

    desc = f"{data}: {name} {output}, marginal removal over 10 background rows"
    return _vf(explainer.game(x)._value_fn), desc, truth, model_default


def _text(row: int):
    import vaderSentiment.vaderSentiment as vader

    from interplay.modalities.text import text_game

    analyzer = vader.SentimentIntensityAnalyzer()
    tokens = TEXT.split()
    if row:
        tokens = tokens[row:] + tokens[:row]  # other rows: the sentence rotated

    def model(texts):
        return np.array([analyzer.polarity_scores(t)["compound"] for t in texts])

    game = text_game(model, tokens=tokens)
    return _vf(game._value_fn), len(tokens), (f"VADER compound score of a {len(tokens)}-token review, absent tokens dropped "
                                 "(interplay's text game)")


def _image(row: int):
    from sklearn.datasets import load_digits

    from _common import _mlp

    X, y = load_digits(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = _mlp(True, 0).fit(X[:1200], y[:1200])
    x = X[1300 + row]
    label = int(est.predict(x[None])[0])

    def value_fn(S):
        return est.predict_proba(np.where(S, x, 0.0))[:, label]

    return _vf(value_fn), ("sklearn digits (8x8): MLP(32,32) P(predicted class), 64 players = the pixels, absent "
                           "pixel = 0 (the background intensity); one model row per coalition")


def build_game(name: str, row: int = 0, *, reference_per_player: int = 16000, cache_dir: Path | None = None,
               log=print) -> BenchGame:
    """The game ``name`` (``moebius<n>``, ``mlp<n>``, ``gbm<n>``, ``forest<n>``, ``text42``, ``image64``) for
    explained row ``row``, with its truth (exact where affordable, else a cached reference estimate of
    ``reference_per_player`` x n evaluations)."""
    match = re.fullmatch(r"([a-z]+)(\d+)", name)
    if not match:
        raise ValueError(f"game: expected e.g. 'moebius16', got {name!r}")
    family, n = match.group(1), int(match.group(2))
    if family == "moebius":
        game = moebius(n, row)
    else:
        truth, note, model_default = None, "", None
        if family == "mlp":
            vf, desc = _tabular_mlp(n, row)
        elif family in ("gbm", "forest"):
            vf, desc, truth, model_default = _trees(family, n, row)
            note = "exact interventional values (interplay method='tree')"
        elif family == "text":
            vf, n, desc = _text(row)
        elif family == "image":
            vf, desc = _image(row)
        else:
            raise ValueError(f"game: unknown family {family!r}")
        n = len(truth["sv"]) if truth else n
        game = BenchGame(name, n, vf, desc, truth or {}, note, model_default=model_default)
    if not game.truth:
        _attach_truth(game, row, reference_per_player * game.n, cache_dir, log)
    if game.n <= 20 and "biv" not in game.truth:  # Bivariate Shapley truth: exact enumeration
        exact_game = ip.Game(game.value_fn, game.n)
        game.truth["biv"] = ip.bivariate(exact_game, method="exact").adjacency
        if "sii" not in game.truth:
            for index in ("sii", "bii"):
                game.truth[index] = _pair_matrix(ip.interactions(exact_game, index=index, order=2,
                                                                 method="exact").values, game.n)
    return game


def _attach_truth(game: BenchGame, row: int, reference_budget: int | None, cache_dir: Path | None, log) -> None:
    if game.n <= 20:
        game.truth["sv"] = ip.shapley(ip.Game(game.value_fn, game.n), method="exact").values
        game.truth_note = f"exact enumeration (2^{game.n} coalitions)"
        return
    runs = 10
    per_run = max(4 * game.n, int(reference_budget) // runs)
    path = cache_dir / f"truth-{game.name}-row{row}-{per_run}x{runs}.npz" if cache_dir else None
    if path is not None and path.exists():
        saved = np.load(path)
        estimates = saved["estimates"]
    else:
        start = time.perf_counter()
        estimates = np.array([ip.shapley(ip.Game(game.value_fn, game.n), method="kernel", budget=per_run,
                                         random_state=10_000 + k).values for k in range(runs)])
        log(f"  reference for {game.name}: {runs} x {per_run} evaluations, {time.perf_counter() - start:.0f}s")
        if path is not None:
            np.savez(path, estimates=estimates)
    game.truth["sv"] = estimates.mean(axis=0)
    game.truth_se = estimates.std(axis=0, ddof=1) / np.sqrt(runs)
    game.truth_note = (f"reference estimate: mean of {runs} runs of interplay 'kernel' at {per_run} evaluations "
                       f"each ({runs * per_run} in all)")


def _pair_matrix(values: dict, n: int) -> np.ndarray:
    M = np.zeros((n, n))
    for key, v in values.items():
        if len(key) == 2:
            M[key[0], key[1]] = M[key[1], key[0]] = float(v)
    return M


# ------------------------------------------------------------------ runners: run(vf, n, budget, seed) -> (estimate, evaluations)
class _Counting:
    """Value function wrapper counting the coalitions it is asked for."""

    def __init__(self, fn):
        self.fn, self.n = fn, 0

    def __call__(self, S):
        S = np.atleast_2d(np.asarray(S))
        self.n += len(S)
        return self.fn(S)


def interplay_runner(kind: str, method: str):
    def run(vf, n, budget, seed):
        game = ip.Game(vf, n)  # a fresh cache per run
        if kind == "sv":
            r = ip.shapley(game, method=method, budget=budget, random_state=seed)
            return np.asarray(r.values, dtype=float), r.n_evaluations
        if kind == "biv":
            r = ip.bivariate(game, method=method, budget=budget, random_state=seed)
            return np.asarray(r.adjacency, dtype=float), game.n_evaluations
        r = ip.interactions(game, index=kind, order=2, method=method, budget=budget, random_state=seed)
        return _pair_matrix(r.values, n), game.n_evaluations

    return run


def _shapiq_get(iv, key) -> float:
    pos = iv.interaction_lookup.get(key)
    return 0.0 if pos is None else float(iv.values[pos])  # sparse outputs (ProxySPEX): a missing term is 0


def shapiq_runner(kind: str, cls_name: str, options: dict):
    def run(vf, n, budget, seed):
        import shapiq

        cls = getattr(shapiq.approximator, cls_name, None)
        if cls is None:
            raise Unavailable(f"not in shapiq {versions()['shapiq']}")
        kwargs = dict(options)
        if kind != "sv":
            kwargs.update(max_order=2, index=kind.upper())
        counted = _Counting(vf)
        iv = cls(n=n, random_state=seed, **kwargs).approximate(budget, counted)
        if kind == "sv":
            return np.array([_shapiq_get(iv, (i,)) for i in range(n)]), counted.n
        M = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                M[i, j] = M[j, i] = _shapiq_get(iv, (i, j))
        return M, counted.n

    return run


_SHAP_WARM = set()


def shap_runner(which: str):
    """shap on the game itself: model ``f(Z) = v(Z > 0.5)``, one background row of zeros, explained row of ones."""

    def run(vf, n, budget, seed):
        import shap

        counted = _Counting(lambda Z: vf(np.asarray(Z) > 0.5))
        zeros, ones = np.zeros((1, n)), np.ones((1, n))
        if which == "kernel":
            explainer = shap.KernelExplainer(counted, zeros)
            counted.n = 0
            np.random.seed(seed)
            values = explainer.shap_values(ones, nsamples=budget, l1_reg=False, silent=True)
        else:
            if n not in _SHAP_WARM:  # numba compilation on first use: untimed warm-up
                shap.PermutationExplainer(counted, shap.maskers.Independent(zeros, max_samples=1), seed=0)(
                    ones, max_evals=2 * n + 2, silent=True)
                _SHAP_WARM.add(n)
                raise _Retry
            explainer = shap.PermutationExplainer(counted, shap.maskers.Independent(zeros, max_samples=1), seed=seed)
            counted.n = 0
            values = explainer(ones, max_evals=budget, silent=True).values[0]
        return np.asarray(values, dtype=float).ravel(), counted.n

    return run


class _Retry(Exception):
    """The runner did an untimed warm-up; run it again."""


def interplay_methods(kind: str, requested=None) -> tuple[list[str], list[str]]:
    """(methods to run, requested but not registered). Default: every registered sampling method (``auto``
    included when registered) plus ``ALWAYS``."""
    registered = set(ip.available_methods(REGISTRY[kind])) | {"auto"}  # auto: the API's default, not registered
    wanted = list(requested) if requested else general_methods(REGISTRY[kind])
    wanted = list(dict.fromkeys(list(ALWAYS[kind]) + [m for m in wanted if m != "exact"]))
    return [m for m in wanted if m in registered], [m for m in wanted if m not in registered]


def runners(kind: str, methods: list[str], *, peers: bool = True, shap_permutation: bool = True) -> dict:
    out = {f"interplay {m}": interplay_runner(kind, m) for m in methods}
    if not peers:
        return out
    if has("shapiq"):
        for cls, options in (SHAPIQ_SV if kind == "sv" else SHAPIQ_ORDER2.get(kind, {})).items():
            out[f"shapiq {cls}"] = shapiq_runner(kind, cls, options)
    if kind == "sv" and has("shap"):
        out["shap KernelExplainer"] = shap_runner("kernel")
        if shap_permutation:
            out["shap PermutationExplainer"] = shap_runner("permutation")
    return out


# ------------------------------------------------------------------ metric, cache, one timed run
def mse(kind: str, estimate: np.ndarray, truth: np.ndarray) -> float:
    if kind == "sv":
        return float(np.mean((estimate - truth) ** 2))
    n = len(truth)
    mask = np.triu(np.ones((n, n), bool), 1) if kind in ("sii", "bii") else ~np.eye(n, dtype=bool)
    return float(np.mean((estimate[mask] - truth[mask]) ** 2))


class Cache:
    """Records keyed by (game, kind, method, budget, seed) in a JSON-lines file, appended as they come."""

    def __init__(self, path: Path | None):
        self.path, self.data = path, {}
        if path is not None and path.exists():
            for line in path.read_text().splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:  # a line cut by a crash
                    continue
                self.data[rec["key"]] = rec

    def get(self, key: str):
        return self.data.get(key)

    def put(self, key: str, rec: dict) -> None:
        rec = {"key": key, **rec}
        self.data[key] = rec
        if self.path is not None:
            with open(self.path, "a") as fh:
                fh.write(json.dumps(rec) + "\n")


def timed(run, vf, n, budget, seed) -> dict:
    for _ in range(2):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                start = time.perf_counter()
                estimate, used = run(vf, n, budget, seed)
                return {"estimate": estimate, "seconds": time.perf_counter() - start, "evals": float(used)}
        except _Retry:
            continue
        except Unavailable as exc:
            return {"na": str(exc)}
        except Exception as exc:  # noqa: BLE001  (a method refusing a budget is a result)
            if str(exc).startswith("index:"):  # the method does not estimate this index: not a result
                return {"unsupported": str(exc)[:100]}
            return {"error": f"{type(exc).__name__}: {str(exc)[:100]}"}
    return {"error": "warm-up failed"}


def budgets_for(n: int, per_feature) -> list[int]:
    return sorted({min(f * n, 2 ** n - 1) for f in per_feature}) if n < 63 else [f * n for f in per_feature]


def run_game(game: BenchGame, kind: str, methods: dict, per_feature, seeds, cache: Cache, max_seconds: float,
             log=print) -> list[dict]:
    truth = game.truth[kind]
    records = []
    for name, run in methods.items():
        slow, mark = None, len(records)
        for budget in budgets_for(game.n, per_feature):
            seconds = []
            for seed in seeds:
                key = f"{game.name}|{kind}|{name}|{budget}|{seed}"
                rec = cache.get(key)
                if rec is None:
                    if slow:
                        rec = {"skipped": slow}
                    else:
                        out = timed(run, game.value_fn, game.n, budget, seed)
                        rec = {k: v for k, v in out.items() if k != "estimate"}
                        if "estimate" in out:
                            rec["mse"] = mse(kind, out["estimate"], truth)
                    cache.put(key, rec)
                rec = {k: v for k, v in rec.items() if k != "key"}
                if "unsupported" in rec:
                    break
                records.append({"game": game.name, "kind": kind, "method": name, "budget": budget, "seed": seed,
                                **rec})
                if "seconds" in rec:
                    seconds.append(rec["seconds"])
                if "na" in rec:
                    break
            if "unsupported" in rec:
                del records[mark:]
                break
            if records[-1].get("na"):
                records.extend({"game": game.name, "kind": kind, "method": name, "budget": b, "seed": seeds[0],
                                "na": records[-1]["na"]} for b in budgets_for(game.n, per_feature) if b > budget)
                break
            if seconds and np.mean(seconds) > max_seconds and not slow:
                slow = f"too slow ({np.mean(seconds):.0f} s at budget {budget})"
    log(f"  {game.name} {kind}: {len(methods)} methods done ({time.strftime('%H:%M:%S')})")
    return records


# ------------------------------------------------------------------ checks, summaries
def same_game_checks(n: int = 12, log=print) -> list[dict]:
    """At full budget the libraries compute the same numbers on the same game (``moebius<n>``): shap's
    KernelExplainer at 2^n samples, interplay's and shapiq's exact values, against the closed form."""
    game, out = moebius(n), []
    tag = f"moebius{n}"
    if has("shap"):
        values, used = shap_runner("kernel")(game.value_fn, n, 2 ** n, 0)
        out.append({"check": f"shap KernelExplainer, nsamples 2^{n}, vs closed form ({tag}, SV)",
                    "max abs diff": float(np.abs(values - game.truth["sv"]).max()), "evaluations": used})
    exact = ip.Game(game.value_fn, n)
    out.append({"check": f"interplay exact vs closed form ({tag}, SV)",
                "max abs diff": float(np.abs(ip.shapley(exact, method="exact").values - game.truth["sv"]).max())})
    for index in ("sii", "bii"):
        M = _pair_matrix(ip.interactions(exact, index=index, order=2, method="exact").values, n)
        out.append({"check": f"interplay exact vs closed form ({tag}, {index.upper()})",
                    "max abs diff": float(np.abs(M - game.truth[index]).max())})
    out += tree_check()
    if has("shapiq"):
        import shapiq

        computer = shapiq.ExactComputer(game.value_fn, n)
        for index, order in (("SV", 1), ("SII", 2), ("BII", 2)):
            iv = computer(index=index, order=order)
            if index == "SV":
                diff = max(abs(_shapiq_get(iv, (i,)) - game.truth["sv"][i]) for i in range(n))
            else:
                diff = max(abs(_shapiq_get(iv, (i, j)) - game.truth[index.lower()][i, j])
                           for i in range(n) for j in range(i + 1, n))
            out.append({"check": f"shapiq ExactComputer vs closed form ({tag}, {index})", "max abs diff": float(diff)})
    log("  same-game checks done")
    return out


def tree_check(d: int = 12) -> list[dict]:
    """interplay's exact tree algorithms (the truth of the tree games) against exact enumeration of the same
    marginal game: gradient boosting on the first ``d`` breast_cancer features."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import GradientBoostingClassifier

    X, y = load_breast_cancer(return_X_y=True)
    X = X[:, :d]
    est = GradientBoostingClassifier(n_estimators=50, max_depth=3, random_state=0).fit(X[:400], y[:400])
    explainer = ip.Explainer(est, background=X[400:410], removal="marginal", output="log-odds")
    x = X[420]
    exact = ip.Game(explainer.game(x)._value_fn, d)
    tag = f"interplay method='tree' vs exact enumeration (boosting, {d} breast_cancer features"
    out = [{"check": f"{tag}, SV)", "max abs diff": float(np.abs(
        np.ravel(explainer.shapley(x[None], method="tree").values) - ip.shapley(exact, method="exact").values).max())}]
    for index in ("sii", "bii"):
        tree = _pair_matrix(explainer.interactions(x, index=index, method="tree").values, d)
        full = _pair_matrix(ip.interactions(exact, index=index, order=2, method="exact").values, d)
        out.append({"check": f"{tag}, {index.upper()})", "max abs diff": float(np.abs(tree - full).max())})
    out.append({"check": f"{tag}, Bivariate)", "max abs diff": float(np.abs(
        explainer.bivariate(x, method="tree").adjacency - ip.bivariate(exact, method="exact").adjacency).max())})
    return out


def efficiency_check(game: BenchGame) -> dict:
    full, empty = game.value_fn(np.ones((1, game.n), bool))[0], game.value_fn(np.zeros((1, game.n), bool))[0]
    row = {"game": game.name, "n": game.n, "v(N) - v(empty)": float(full - empty),
           "|sum truth - (v(N) - v(empty))|": float(abs(game.truth["sv"].sum() - (full - empty))),
           "mean truth^2": float(np.mean(game.truth["sv"] ** 2)), "truth": game.truth_note}
    if game.truth_se is not None:
        row["reference se^2 (mean)"] = float(np.mean(game.truth_se ** 2))
    return row


def summarise(records: list[dict]) -> list[dict]:
    groups: dict = {}
    for rec in records:
        groups.setdefault((rec["game"], rec["kind"], rec["method"], rec["budget"]), []).append(rec)
    out = []
    for (g, kind, method, budget), recs in groups.items():
        ok = [r for r in recs if "mse" in r]
        row = {"game": g, "kind": kind, "method": method, "budget": budget}
        if ok:
            m = np.array([r["mse"] for r in ok])
            row.update(mse=float(m.mean()), se=float(m.std(ddof=1) / np.sqrt(len(m))) if len(m) > 1 else float("nan"),
                       ms=1000 * float(np.mean([r["seconds"] for r in ok])),
                       evals=float(np.mean([r["evals"] for r in ok])), runs=len(ok))
        else:
            first = recs[0]
            row["note"] = ("n/a: " + first["na"] if "na" in first else first.get("skipped")
                           or first.get("error", "?"))
        out.append(row)
    return out


def _cell(row, value="mse") -> str:
    if row is None:
        return ""
    if value not in row:
        note = row.get("note", "")
        if note.startswith(("n/a", "too slow")):
            return note.split(":")[0].split(" (")[0]
        return "refused" if "budget:" in note else "error"
    if value == "ms":
        return f"{row['ms']:.3g}"
    se = "" if np.isnan(row["se"]) else f" ± {row['se']:.2g}"
    return f"{row['mse']:.3g}{se}"


def pivot(summary: list[dict], game: str, kind: str, value: str = "mse") -> str:
    rows = [s for s in summary if s["game"] == game and s["kind"] == kind]
    budgets = sorted({s["budget"] for s in rows})
    methods = list(dict.fromkeys(s["method"] for s in rows))
    lines = []
    for m in methods:
        line = {"method": m}
        for b in budgets:
            hit = [s for s in rows if s["method"] == m and s["budget"] == b]
            line[f"{b}"] = _cell(hit[0] if hit else None, value)
        lines.append(line)
    first_note = {}
    for s in rows:  # one note per method (its smallest budget's)
        if "note" in s:
            first_note.setdefault(s["method"], s["note"])
    notes = [f"{m}: {note}" for m, note in first_note.items()]  # n/a, refused (budget too small), too slow
    evals = [f"{s['method']} @ {s['budget']}: {s['evals']:.0f}" for s in rows
             if "evals" in s and abs(s["evals"] - s["budget"]) > max(2, 0.02 * s["budget"])]
    text = table(lines, ["method"] + [f"{b}" for b in budgets])
    if value == "mse" and notes:
        text += "\nNot run / failed: " + "; ".join(notes) + "\n"
    if value == "mse" and evals:
        text += "\nEvaluations used where they differ from the budget (mean over seeds): " + "; ".join(evals) + "\n"
    return text


DEFAULTS = {"sv": "kernel", "sii": "permutation", "bii": "msr", "biv": "kernel"}  # when "auto" was not run


def default_method(kind: str, methods) -> str:
    for m in ("auto", DEFAULTS[kind]):
        if f"interplay {m}" in methods:
            return f"interplay {m}"
    return ""


def best_table(summary: list[dict]) -> list[dict]:
    """Per (game, kind, budget): interplay's default and best method vs shapiq's and shap's best."""
    out = []
    keys = list(dict.fromkeys((s["game"], s["kind"], s["budget"]) for s in summary))
    for game, kind, budget in keys:
        rows = [s for s in summary if (s["game"], s["kind"], s["budget"]) == (game, kind, budget) and "mse" in s]

        def best(prefix):
            cands = [s for s in rows if s["method"].startswith(prefix)]
            return min(cands, key=lambda s: s["mse"]) if cands else None

        ours, theirs, shap_best = best("interplay"), best("shapiq"), best("shap ")
        default = default_method(kind, {s["method"] for s in rows})
        d = next((s for s in rows if s["method"] == default), None)
        line = {"game": game, "index": kind.upper(), "budget": budget,
                "interplay default": f"{default.split()[-1]} {d['mse']:.3g}" if d else "",
                "interplay best": f"{ours['method'].split(' ', 1)[1]} {ours['mse']:.3g}" if ours else "",
                "shapiq best": f"{theirs['method'].split(' ', 1)[1]} {theirs['mse']:.3g}" if theirs else "n/a",
                "shap best": f"{shap_best['method'].split(' ', 1)[1]} {shap_best['mse']:.3g}" if shap_best else ""}
        line["shapiq best / interplay best"] = theirs["mse"] / ours["mse"] if ours and theirs and ours["mse"] > 0 \
            else float("nan")
        line["shapiq best / interplay default"] = theirs["mse"] / d["mse"] if d and theirs and d["mse"] > 0 \
            else float("nan")
        out.append(line)
    return out


# ------------------------------------------------------------------ speed at equal accuracy
def equal_accuracy(game_name: str, methods: dict, *, rows: int, target: float, per_feature, build, log=print):
    """For each method: the smallest budget (grid ``per_feature`` x n) whose AE (sum over features of |error|),
    averaged over ``rows`` explained rows (seed = row), is <= ``target``, and its mean wall time there."""
    games = [build(game_name, r) for r in range(rows)]
    n = games[0].n
    out = []
    for name, run in methods.items():
        row = {"method": name, "budget": "not reached", "ae": float("nan"), "ms": float("nan")}
        for budget in [f * n for f in per_feature]:
            results = [timed(run, g.value_fn, n, budget, r) for r, g in enumerate(games)]
            if any("estimate" not in res for res in results):
                first = next(res for res in results if "estimate" not in res)
                if "budget:" in first.get("error", ""):  # refuses this budget: try the next one
                    row["budget"] = "refused"
                    continue
                row["budget"] = "n/a" if "na" in first else first.get("error", "error")[:40]
                break
            ae = float(np.mean([np.abs(res["estimate"] - g.truth["sv"]).sum() for res, g in zip(results, games)]))
            ms = 1000 * float(np.mean([res["seconds"] for res in results]))
            row.update(budget="not reached", ae=ae, ms=ms, last=budget)
            if ae <= target:  # the time there: per row the median of EQUAL_REPEATS runs (the first included)
                row["budget"] = budget
                row["ms"] = 1000 * float(np.mean([np.median([res["seconds"]] + [
                    timed(run, g.value_fn, n, budget, r).get("seconds", np.nan) for _ in range(EQUAL_REPEATS - 1)])
                    for res, (r, g) in zip(results, enumerate(games))]))
                break
        out.append(row)
    if games[0].model_default is not None:  # the same rows explained from the model itself, as a user would
        games[0].model_default()  # untimed warm-up (numba compilation)
        results, first = [], []
        for k, g in enumerate(games):
            seconds = []
            for _ in range(EQUAL_REPEATS):
                start = time.perf_counter()
                values, chosen = g.model_default()
                seconds.append(time.perf_counter() - start)
            results.append((values, float(np.median(seconds))))
            if k:  # each row has its own explainer: its first call (row 0's was the warm-up) converts the trees
                first.append(seconds[0])
        ae = float(np.mean([np.abs(v - g.truth["sv"]).sum() for (v, _), g in zip(results, games)]))
        cold = f"; an explainer's first call, which converts the trees: {1000 * np.mean(first):.3g} ms" if first else ""
        out.append({"method": f"interplay Explainer(model) default (auto: {chosen}{cold})", "budget": "exact",
                    "ae": ae, "ms": 1000 * float(np.mean([t for _, t in results]))})
    log(f"  equal accuracy on {game_name} done ({time.strftime('%H:%M:%S')})")
    return out


def equal_accuracy_ratio(rows: list[dict], target: float = 0.01, model: bool = False) -> tuple[str, float]:
    """shap KernelExplainer time / interplay default ('auto' on the game, else the fastest interplay method
    reaching it; ``model``: the Explainer's default on the model itself)."""
    if model:
        shap_row = next((r for r in rows if r["method"] == "shap KernelExplainer" and isinstance(r["budget"], int)),
                        None)
        ours = next((r for r in rows if r["method"].startswith("interplay Explainer(model)")), None)
        if shap_row is None or ours is None or not ours["ae"] <= target:
            return (ours["method"] if ours else "none"), float("nan")
        return ours["method"], shap_row["ms"] / ours["ms"]
    reached = {r["method"]: r for r in rows if isinstance(r["budget"], int)}
    shap_row = reached.get("shap KernelExplainer")
    ours = reached.get("interplay auto")
    if ours is None:
        cands = [r for m, r in reached.items() if m.startswith("interplay")]
        ours = min(cands, key=lambda r: r["ms"]) if cands else None
    if shap_row is None or ours is None:
        return (ours["method"] if ours else "none"), float("nan")
    return ours["method"], shap_row["ms"] / ours["ms"]


# ------------------------------------------------------------------ main
def cache_file(cache_dir: Path, tag: str) -> Path:
    v = versions()
    commit = v["interplay"].split("(")[-1].rstrip(")")
    safe = re.sub(r"[^A-Za-z0-9.]+", "-", f"{tag}-{commit}-shapiq{v['shapiq']}-shap{v['shap']}")
    return cache_dir / f"sota-{safe}.jsonl"


def main(games=GAMES, *, per_feature=PER_FEATURE, seeds=5, methods=None, interaction_methods=None,
         bivariate_methods=None, kinds=KINDS, peers=True, shap_permutation=True, max_seconds=10.0,
         reference_factor=200, check_n=12, equal_game="forest30", equal_rows=3, equal_target=0.01,
         equal_per_feature=EQUAL_PER_FEATURE, cache_dir: str | None = None, fresh=False,
         out: str | None = None, command: str = "", note: str = "", log=print) -> dict:
    """Run the benchmark; returns records, summaries and checks, and writes the markdown report to ``out``."""
    start = time.perf_counter()
    started_at = versions()["interplay"]  # the code that runs (the report is written at the end, HEAD may move)
    seeds = tuple(range(seeds)) if isinstance(seeds, int) else tuple(seeds)
    cdir = Path(cache_dir) if cache_dir else None
    if cdir is not None:
        cdir.mkdir(parents=True, exist_ok=True)
    tag = f"r{reference_factor}"  # records are keyed by game, kind, method, budget and seed
    path = cache_file(cdir, tag) if cdir else None
    if fresh and cdir is not None:  # results of this commit and every cached reference truth
        for stale in [path, *cdir.glob("truth-*.npz")]:
            stale.unlink(missing_ok=True)
    cache = Cache(path)
    log(f"  shapiq {versions()['shapiq']}, shap {versions()['shap']}; cache: {path or 'none'} "
        f"({len(cache.data)} records already)")
    requested = {"sv": methods, "sii": interaction_methods, "bii": interaction_methods, "biv": bivariate_methods}
    chosen, missing = {}, {}
    for kind in KINDS:
        chosen[kind], missing[kind] = interplay_methods(kind, requested[kind])
    checks = same_game_checks(check_n, log) if check_n else []

    def build(name, row=0):
        return build_game(name, row, reference_per_player=reference_factor * max(per_feature), cache_dir=cdir,
                          log=log)

    records, games_info, timing = [], [], {}
    for name in games:
        t0 = time.perf_counter()
        game = build(name)
        games_info.append((game, efficiency_check(game)))
        for kind in kinds:
            if kind not in game.truth or (kind != "sv" and game.n > 40):
                continue
            methods_k = runners(kind, chosen[kind], peers=peers, shap_permutation=shap_permutation)
            records += run_game(game, kind, methods_k, per_feature, seeds, cache, max_seconds, log)
        timing[name] = time.perf_counter() - t0
    equal = []
    if equal_game:
        equal = equal_accuracy(equal_game, runners("sv", chosen["sv"], peers=peers, shap_permutation=shap_permutation),
                               rows=equal_rows, target=equal_target, per_feature=equal_per_feature, build=build,
                               log=log)
    total = time.perf_counter() - start
    summary = summarise(records)
    for _, info in games_info:  # a reference truth adds its se^2 to every measured MSE: how much, at most
        mses = [s["mse"] for s in summary if s["game"] == info["game"] and s["kind"] == "sv" and "mse" in s]
        if "reference se^2 (mean)" in info and mses:
            info["se^2 / smallest MSE"] = info["reference se^2 (mean)"] / min(mses)
    result = {"records": records, "summary": summary, "best": best_table(summary), "checks": checks,
              "games": [info for _, info in games_info], "equal": equal, "timing": timing, "seconds": total,
              "methods": chosen, "missing": missing, "started_at": started_at}
    if out:
        options = dict(games=list(games), per_feature=list(per_feature), seeds=len(seeds), max_seconds=max_seconds,
                       reference_factor=reference_factor, equal=(equal_game, equal_rows, equal_target))
        Path(out).write_text(report(result, games_info, options, command, note))
    log(f"  total {total:.0f}s")
    return result


def report(result: dict, games_info, options: dict, command: str, note: str = "") -> str:
    text = header("State of the art at equal budget: interplay vs shapiq vs shap", command)
    if result.get("started_at") and result["started_at"] not in text:
        text += f"- code run: interplay {result['started_at']} (HEAD above is when the report was written)\n"
    if note:
        text += f"- **note: {note}**\n"
    text += (f"- total run time: {result['seconds']:.0f} s (per game: "
             + ", ".join(f"{g} {s:.0f} s" for g, s in result["timing"].items()) + f"); options {options}\n"
             "- one BLAS/OpenMP thread; budget = coalition evaluations (factor x n, capped below 2^n); one "
             "explained row per game; MSE = mean over features (pairs, off-diagonal entries) of the squared "
             "error, then mean ± standard error over seeds; ms = wall time per explanation\n")
    for kind in KINDS:
        text += (f"- interplay {REGISTRY[kind]} methods run ({kind}): {result['methods'][kind]}"
                 + (f"; requested but not registered: {result['missing'][kind]}" if result["missing"][kind] else "")
                 + "\n")
    text += ("- shapiq approximators: SV " + ", ".join(SHAPIQ_SV) + "; SII " + ", ".join(SHAPIQ_ORDER2["sii"])
             + "; BII " + ", ".join(SHAPIQ_ORDER2["bii"]) + " (ProxySPEX with hpo=False; RegressionFBII left out: "
             "it estimates FBII, not BII); shap: KernelExplainer (nsamples = budget, l1_reg=False), "
             "PermutationExplainer (max_evals = budget)\n")
    if result["checks"]:
        text += ("\n## Same games? (full budget, max abs difference)\n\nshap explains the game through "
                 "`f(Z) = v(Z > 0.5)` with background = one row of zeros and x = ones.\n\n"
                 + table(result["checks"], ["check", "max abs diff", "evaluations"]))
    text += ("\n## Games and their truth\n\nEfficiency of the truth (sum of the values = v(N) - v(empty)); for "
             "reference estimates, the mean squared standard error of the reference: it adds to every measured "
             "MSE of the game (independent errors), at most the fraction 'se^2 / smallest MSE' of any Shapley "
             "MSE in the game's table.\n\n")
    text += "".join(f"- **{g.name}** ({g.n} players): {g.description}; truth: {g.truth_note}\n" for g, _ in games_info)
    text += "\n" + table(result["games"], ["game", "n", "v(N) - v(empty)", "|sum truth - (v(N) - v(empty))|",
                                           "mean truth^2", "reference se^2 (mean)", "se^2 / smallest MSE"])
    summary = result["summary"]
    text += ("\n## Summary: best of each library (MSE; ratio > 1 = interplay more accurate)\n\n"
             + table(result["best"], ["game", "index", "budget", "interplay default", "interplay best",
                                      "shapiq best", "shap best", "shapiq best / interplay best",
                                      "shapiq best / interplay default"]))
    text += "\n## MSE per game (rows = methods, columns = budget; mean ± se over seeds)\n"
    for g, _ in games_info:
        for kind in KINDS:
            if any(s["game"] == g.name and s["kind"] == kind for s in summary):
                text += f"\n### {g.name}: {KIND_TITLES[kind]}\n\n" + pivot(summary, g.name, kind)
    text += "\n## Wall time per explanation (ms, mean over seeds)\n"
    for g, _ in games_info:
        for kind in KINDS:
            if any(s["game"] == g.name and s["kind"] == kind for s in summary):
                text += f"\n### {g.name}: {KIND_TITLES[kind]}\n\n" + pivot(summary, g.name, kind, "ms")
    if result["equal"]:
        game, rows, target = options["equal"]
        who, ratio = equal_accuracy_ratio(result["equal"], target)
        model_who, model_ratio = equal_accuracy_ratio(result["equal"], target, model=True)
        text += (f"\n## Speed at equal accuracy ({game}, {rows} rows)\n\nSmallest budget of the grid (factors "
                 f"{', '.join(map(str, EQUAL_PER_FEATURE))} x n) reaching AE (sum over features of |error|, mean "
                 f"over rows) <= {target}, and the wall time per explanation there (per row the median of "
                 f"{EQUAL_REPEATS} runs, then the mean over rows). Every sampler explains the "
                 "same black-box game (the model behind it unknown to it); the last row explains the same rows from "
                 "the model itself, as a user of the model gets by default (`ip.Explainer(model, background)"
                 f".shapley(x)`). shap KernelExplainer time / {who} time on the game: **{ratio:.3g}**; / "
                 f"{model_who} time: **{model_ratio:.3g}**\n\n"
                 + table([{**r, "last budget run": r.get("last", "")} for r in result["equal"]],
                         ["method", "budget", "ae", "ms", "last budget run"]))
    return text


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny setting (seconds), prints only")
    parser.add_argument("--games", default=",".join(GAMES), help=f"comma list (default {','.join(GAMES)})")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--budgets", default=",".join(map(str, PER_FEATURE)), help="budget factors x n")
    parser.add_argument("--methods", default="", help="interplay Shapley methods (default: every registered one)")
    parser.add_argument("--interaction-methods", default="", help="interplay SII/BII methods")
    parser.add_argument("--bivariate-methods", default="", help="interplay Bivariate Shapley methods")
    parser.add_argument("--kinds", default=",".join(KINDS), help="subset of sv,sii,bii,biv")
    parser.add_argument("--max-seconds", type=float, default=10.0, help="skip larger budgets past this mean time")
    parser.add_argument("--reference-factor", type=int, default=200)
    parser.add_argument("--equal-game", default="forest30", help="game of the equal-accuracy section ('' = none)")
    parser.add_argument("--equal-rows", type=int, default=3)
    parser.add_argument("--equal-target", type=float, default=0.01)
    parser.add_argument("--cache-dir", default="/tmp/interplay-sota-cache")
    parser.add_argument("--fresh", action="store_true", help="drop cached results and reference truths first")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "sota.md"))
    parser.add_argument("--note", default="", help="a line for the report's header (e.g. 'partial run')")
    args = parser.parse_args()

    def split(s):
        return [x for x in s.split(",") if x] or None

    command = ("PYTHONPATH=src " + ("/tmp/shapiq-latest/bin/python" if "shapiq-latest" in sys.executable else
                                    "python") + " benchmarks/sota.py " + shlex.join(sys.argv[1:])).strip()
    if args.quick:
        quick = main(("moebius10", "mlp12"), per_feature=(5, 10), seeds=2, reference_factor=20, equal_game="moebius8",
             equal_rows=2, equal_target=0.5, equal_per_feature=(5, 10, 20), max_seconds=5, shap_permutation=False, check_n=8,
             methods=split(args.methods), interaction_methods=split(args.interaction_methods),
             bivariate_methods=split(args.bivariate_methods), cache_dir=None)
        print(table(quick["best"], list(quick["best"][0])))
    else:
        main(split(args.games), per_feature=tuple(int(b) for b in split(args.budgets)), seeds=args.seeds,
             methods=split(args.methods), interaction_methods=split(args.interaction_methods),
             bivariate_methods=split(args.bivariate_methods), kinds=tuple(split(args.kinds)),
             max_seconds=args.max_seconds, reference_factor=args.reference_factor,
             equal_game=args.equal_game or None, equal_rows=args.equal_rows, equal_target=args.equal_target,
             cache_dir=args.cache_dir, fresh=args.fresh, out=args.out, command=command, note=args.note)
