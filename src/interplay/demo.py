"""The demo: a model trained on a data set bundled with scikit-learn, explained exactly for one row."""

from __future__ import annotations

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
    return {"shapley": shapley, "bii": bii, "bivariate": biv, "game": game, "model": model}


if __name__ == "__main__":  # pragma: no cover
    np.set_printoptions(precision=3, suppress=True)
    run_demo()
