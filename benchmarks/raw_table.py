"""A raw table with categorical columns, the newcomer's case: Adult (14 columns, 8 of them text) and a scikit-learn
Pipeline (one-hot encoding, a small MLP) fitted on the DataFrame; marginal removal over 50 background rows.

Per explained row, wall time and the time inside the model's ``predict_proba`` for:
- interplay ``Explainer(pipe, background).shapley(rows)`` (``auto``), with the hybrid rows passed to the model as
  palette indices (``CodedRows``: each column one ``take`` from its values in the model's dtype), as shipped;
- the same with the object rows converted column by column (the path before, kept for other callers);
- shap's KernelExplainer with the same background and its default ``nsamples`` (``2 * 14 + 2048``, the budget
  interplay's ``auto`` uses too), the model called on a DataFrame of the object rows.
One BLAS thread (the MLP's products), the fastest of ``--repeats`` runs per setting; the error of each
against exact enumeration (all ``2**14`` coalitions).

    python benchmarks/raw_table.py --out benchmarks/results/raw_table.md
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import interplay as ip  # noqa: E402
from interplay.removal import _columns  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "adult.csv"


class Timed:
    """The pipeline, its ``predict_proba`` timed (wall) and its rows counted."""

    def __init__(self, pipe) -> None:
        self.pipe, self.seconds, self.rows = pipe, 0.0, 0
        self.classes_ = pipe.classes_
        self.feature_names_in_ = pipe.feature_names_in_
        self.n_features_in_ = pipe.n_features_in_

    def fit(self, *args, **kwargs):  # pragma: no cover - a fitted model: makes it look like an estimator
        return self

    def predict_proba(self, X):
        start = time.perf_counter()
        out = self.pipe.predict_proba(X)
        self.seconds += time.perf_counter() - start
        self.rows += len(X)
        return out


def setup(n_fit: int = 5000, seed: int = 0):
    import pandas as pd
    from sklearn.compose import ColumnTransformer
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    frame = pd.read_csv(DATA)
    y = frame["class"].astype(str).str.contains(">50K").astype(int)
    X = frame.drop(columns=["class"])
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    numbers = [c for c in X.columns if c not in text]
    encode = ColumnTransformer([("text", OneHotEncoder(handle_unknown="ignore"), text),
                                ("numbers", StandardScaler(), numbers)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the MLP's convergence warning (50 iterations)
        pipe = make_pipeline(encode, MLPClassifier((32,), max_iter=50, random_state=seed)).fit(X[:n_fit], y[:n_fit])
    return X, pipe, X.sample(50, random_state=seed)


def _object_rows_init(init):
    def plain(self, x, background, *, coded=False):
        init(self, x, background, coded=False)
    return plain


def run_interplay(pipe, background, rows, *, coded: bool) -> dict:
    model = Timed(pipe)
    saved = _columns.HybridRows.__init__
    if not coded:
        _columns.HybridRows.__init__ = _object_rows_init(saved)
    try:
        explainer = ip.Explainer(model, background)
        explainer.shapley(rows.iloc[:1], random_state=0)  # warm-up, and the call size learned
        model.seconds, model.rows = 0.0, 0
        start = time.perf_counter()
        result = explainer.shapley(rows, random_state=0)
        wall = time.perf_counter() - start
    finally:
        _columns.HybridRows.__init__ = saved
    return {"wall": wall / len(rows), "model": model.seconds / len(rows), "rows": model.rows / len(rows),
            "chosen": result.info["auto"]["chosen"], "values": np.asarray(result.values)}


def run_shap(pipe, background, rows) -> dict:
    import pandas as pd
    import shap

    model = Timed(pipe)
    columns = list(rows.columns)

    def f(A):
        return model.predict_proba(pd.DataFrame(A, columns=columns))[:, 1]

    explainer = shap.KernelExplainer(f, background.to_numpy(dtype=object))
    explainer.shap_values(rows.iloc[:1].to_numpy(dtype=object), silent=True)
    model.seconds, model.rows = 0.0, 0
    start = time.perf_counter()
    values = explainer.shap_values(rows.to_numpy(dtype=object), silent=True)
    wall = time.perf_counter() - start
    return {"wall": wall / len(rows), "model": model.seconds / len(rows), "rows": model.rows / len(rows),
            "values": np.asarray(values).reshape(len(rows), -1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=6, help="explained rows per run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-shap", action="store_true")
    parser.add_argument("--out", default="", help="markdown file to (over)write; default: print only")
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    X, pipe, background = setup()
    rows = X.iloc[100:100 + args.rows]
    settings = {"interplay auto, coded rows (shipped)": lambda: run_interplay(pipe, background, rows, coded=True),
                "interplay auto, object rows (before)": lambda: run_interplay(pipe, background, rows, coded=False)}
    if not args.no_shap:
        settings["shap KernelExplainer"] = lambda: run_shap(pipe, background, rows)
    best: dict = {}
    for _ in range(args.repeats):
        for name, call in settings.items():  # alternating
            result = call()
            if name not in best or result["wall"] < best[name]["wall"]:
                best[name] = result
    exact = np.asarray(ip.Explainer(pipe, background).shapley(rows, method="exact").values)  # 2**14 coalitions
    coded, plain = best["interplay auto, coded rows (shipped)"], best["interplay auto, object rows (before)"]
    same = np.array_equal(coded["values"], plain["values"])
    lines = ["# A raw table: Adult with a DataFrame Pipeline (`benchmarks/raw_table.py`)", "",
             f"Command: `python benchmarks/raw_table.py {' '.join(sys.argv[1:])}`; Python "
             f"{platform.python_version()}, numpy {np.__version__}, {os.cpu_count()} CPUs, one BLAS thread; "
             f"{args.rows} explained rows of `../shared/data/adult.csv` (rows 100-{99 + args.rows}), 50 background "
             f"rows, OneHotEncoder + StandardScaler + MLPClassifier(32) fitted on 5,000 rows; wall time per "
             f"explained row, the fastest of {args.repeats} alternating runs; AE: sum over features of "
             f"|value - exact| (interplay `method='exact'`, all 2**14 coalitions), mean over the rows. "
             f"interplay's `auto` chose "
             f"`{coded['chosen']}`; coded and object rows gave {'identical' if same else 'DIFFERENT'} values.", "",
             "| setting | s per row | model s per row | own s per row | model rows per row | AE |",
             "|---|---:|---:|---:|---:|---:|"]
    for name, r in best.items():
        lines.append(f"| {name} | {r['wall']:.3f} | {r['model']:.3f} | {r['wall'] - r['model']:.3f} | "
                     f"{r['rows']:,.0f} | {np.abs(r['values'] - exact).sum(axis=1).mean():.2g} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
