"""The demo tour: examples explained end to end, ending with one HTML report.

``run_demo`` is the tabular step (a model trained on a data set bundled with scikit-learn, explained exactly
for one row). ``run_tour`` runs every registered step and writes a report of their results.

Extension point: other modalities (text, images) add a step with ``@tour_step("text")`` on a function
``step(echo, *, random_state) -> dict`` whose ``"report"`` entry is a list of result objects (their
``info["row"]`` names the section in the report, e.g. ``"text: review 3"``); a step may raise ImportError
when its optional dependencies are missing, and the tour skips it with a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np


def run_demo(echo: Callable[[str], None] = print, *, row: int = 0, random_state: int = 0) -> dict:
    """Train a gradient-boosted regressor on scikit-learn's diabetes data (10 features) and print, for one
    test row, the exact Shapley values, the strongest Banzhaf interaction pairs and the Bivariate Shapley
    matrix. Cost: 2**10 coalitions x 50 background rows = 51,200 model rows, evaluated once and shared.
    Returns the results (for tests and notebooks)."""
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.model_selection import train_test_split

    import interplay as ip

    data = load_diabetes(as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(data.data, data.target, test_size=0.2,
                                                        random_state=random_state)
    model = GradientBoostingRegressor(random_state=random_state).fit(X_train, y_train)
    background = X_train.sample(50, random_state=random_state)
    explainer = ip.Explainer(model, background, removal="marginal")
    if not 0 <= row < len(X_test):
        raise ValueError(f"row: expected 0 <= row < {len(X_test)} (rows in the test set), got {row}")
    x = X_test.iloc[[row]]
    game = explainer.game(x)

    shapley = ip.shapley(game)
    bii = ip.interactions(game, index="bii", order=2)
    biv = ip.bivariate(game)

    names = shapley.feature_names
    echo("interplay demo: diabetes progression, gradient boosting, marginal removal over 50 background rows")
    echo(f"row {row} of the test set; prediction {float(model.predict(x)[0]):.2f}, "
         f"average prediction (baseline) {shapley.baseline:.2f}")
    echo("")
    echo("Exact Shapley values (sum + baseline = prediction):")
    for name in shapley.ranking():
        echo(f"  {name:<6} {shapley[name]:+9.3f}")
    echo(f"  {'sum':<6} {shapley.values.sum():+9.3f}")
    echo("")
    echo("Strongest Banzhaf interaction pairs (BII):")
    for (a, b), value in bii.top(5):
        echo(f"  {a} x {b}: {value:+.3f}")
    echo("")
    echo("Bivariate Shapley matrix: row i, column j = importance of j when i is present")
    width = max(len(n) for n in names) + 1
    echo(" " * width + "".join(f"{n:>8}" for n in names))
    for i, name in enumerate(names):
        echo(f"{name:<{width}}" + "".join(f"{biv.adjacency[i, j]:8.2f}" for j in range(len(names))))
    echo("")
    echo(f"{game.n_evaluations} coalitions evaluated ({explainer.model.n_rows:,} model rows in "
         f"{explainer.model.n_calls} calls) for all three results.")
    return {"shapley": shapley, "bii": bii, "bivariate": biv, "game": game, "model": model,
            "x": x.to_numpy(dtype=float)[0]}


TOUR_STEPS: dict[str, Callable[..., dict]] = {}


def tour_step(name: str) -> Callable[[Callable[..., dict]], Callable[..., dict]]:
    """Register ``fn(echo, *, random_state) -> dict`` as a step of :func:`run_tour` (run in registration order)."""

    def decorate(fn: Callable[..., dict]) -> Callable[..., dict]:
        TOUR_STEPS[name] = fn
        return fn

    return decorate


@tour_step("tabular")
def tabular_step(echo: Callable[[str], None], *, random_state: int = 0, row: int = 0) -> dict:
    """The diabetes example of :func:`run_demo`, with the results labelled for the report."""
    from dataclasses import replace

    out = run_demo(echo, row=row, random_state=random_state)
    label = f"diabetes: test row {row}"
    info = {"row": label, "method": "exact", "removal": "marginal", "output": "prediction", "background": 50,
            "seed": random_state, "model_file": "GradientBoostingRegressor (trained by the demo)",
            "data_file": "scikit-learn diabetes data", "x": [float(v) for v in out["x"]],
            "prediction": float(out["game"].grand_value())}
    out["report"] = [replace(out["bii"], info={**info, "index": "bii"}),
                     replace(out["bivariate"], info=info, univariate=replace(out["shapley"], info=info))]
    return out


def run_tour(echo: Callable[[str], None] = print, *, row: int = 0, random_state: int = 0,
             out_dir: str | Path | None = "interplay-demo") -> dict:
    """Run every tour step (tabular first; text and images where their helpers are installed), then write
    ``out_dir/report.html`` with all their results (no file when ``out_dir`` is None). Returns the steps'
    outputs by name, plus ``"report_path"``."""
    outputs: dict = {}
    results: list = []
    for name, step in TOUR_STEPS.items():
        echo(f"== {name} ==")
        try:
            outputs[name] = step(echo, random_state=random_state, **({"row": row} if name == "tabular" else {}))
        except ImportError as exc:
            echo(f"(skipped the {name} example: {exc})")
            continue
        results.extend(outputs[name].get("report", []))
        echo("")
    if out_dir is not None and results:
        from .report import save_report

        path = Path(out_dir)
        path.mkdir(parents=True, exist_ok=True)
        outputs["report_path"] = save_report(results, path / "report.html", title="interplay tour")
        echo(f"Report: {outputs['report_path']}  (one self-contained file: open it in any browser, offline)")
    return outputs


if __name__ == "__main__":  # pragma: no cover
    np.set_printoptions(precision=3, suppress=True)
    run_tour()
