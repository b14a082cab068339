"""The Explainer: a model and data become games (one per explained row), and results for many rows.

``Explainer(model, background, removal=..., output=...)`` fixes the removal-based explanation (Bivariate
Shapley paper Sec. 3: feature removal x model behaviour x summary); ``explainer.game(x)`` is the game of one
row, and ``shapley``/``banzhaf``/``interactions``/``bivariate`` run the estimators of :mod:`interplay.api`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from . import api
from ._validation import check_choice, check_feature_names, check_int, check_numeric_matrix, check_random_state
from .games import Game
from .models import as_model
from .removal import (
    OUTPUTS,
    REMOVALS,
    OutputTransform,
    baseline_value_function,
    conditional_value_function,
    marginal_value_function,
    reference_vector,
)
from .results import Attribution, BivariateExplanation, Explanation, Interactions


class Explainer:
    """Explain a model's predictions with Shapley-family values.

    Parameters
    ----------
    model:
        A callable on a 2-D array, or an object with ``predict_proba`` (classifier) or ``predict``.
    background:
        Rows standing for "the data": removed features are averaged over them (``marginal``,
        ``conditional``) or summarised into a reference (``baseline``). A DataFrame gives feature names.
    removal:
        ``"marginal"`` (interventional, default), ``"conditional"`` (observational, nearest neighbours) or
        ``"baseline"`` (a fixed reference vector).
    baseline:
        For ``removal="baseline"``: ``"mean"`` (default), ``"median"``, ``"mode"``, ``"zero"`` or a vector.
    output:
        ``"auto"`` (probability for classifiers, prediction otherwise), ``"prediction"``, ``"probability"``,
        ``"log-odds"`` or ``"loss"`` (utility = minus the loss against the label ``y`` given per row).
    target:
        Output column or class label to explain; default: the class predicted for each row (classifiers) or
        the only output (regressors).
    feature_names:
        Names of the features (default: the background's columns, else ``x0..``).
    n_neighbors:
        Neighbourhood size of conditional removal (default ``ceil(sqrt(len(background)))``).
    max_rows:
        Most rows sent to the model in one call (bounds memory); results do not depend on it.
    """

    def __init__(self, model: Any, background: Any = None, removal: str = "marginal", baseline: Any = None,
                 output: str = "auto", target: Any = None, feature_names: Sequence[str] | None = None, *,
                 n_neighbors: int | None = None, max_rows: int = 65536) -> None:
        self.model = as_model(model)
        self.removal = check_choice(removal, "removal", REMOVALS)
        self.output = check_choice(output, "output", OUTPUTS)
        if self.output == "auto":
            self.output = "probability" if self.model.kind == "classifier" else "prediction"
        if self.output in ("probability", "log-odds") and self.model.kind != "classifier":
            raise ValueError(f"output={self.output!r} needs a model with predict_proba; "
                             f"{self.model.name} is not a classifier (use output='prediction')")
        self.target = target
        self.max_rows = check_int(max_rows, "max_rows", minimum=1)
        self.n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1, allow_none=True)
        columns = None
        if background is not None:
            self.background, columns = check_numeric_matrix(background, "background")
        else:
            self.background = None
        n_features = None if self.background is None else self.background.shape[1]
        if self.removal in ("marginal", "conditional") and self.background is None:
            raise ValueError(f"background: removal={self.removal!r} averages over background rows; pass "
                             "background= (e.g. a few hundred training rows), or use removal='baseline'")
        self.reference = None
        if self.removal == "baseline":
            if baseline is None:
                baseline = "mean" if self.background is not None else None
            if baseline is None:
                raise ValueError("baseline: removal='baseline' needs a reference vector, 'zero', "
                                 "or background data to compute 'mean'/'median'/'mode'")
            if n_features is None:
                n_features = len(np.ravel(baseline)) if not isinstance(baseline, str) else None
            if n_features is None:
                raise ValueError("baseline='zero' without background: the number of features is unknown; "
                                 "pass feature_names= or background=")
            self.reference = reference_vector(baseline, self.background, n_features)
        elif baseline is not None:
            raise ValueError(f"baseline: only used with removal='baseline', got removal={self.removal!r}")
        if feature_names is None and columns is None:
            columns = self.model.columns
        names = feature_names if feature_names is not None else columns
        self.n_features = n_features if n_features is not None else (len(names) if names is not None else None)
        self.feature_names = check_feature_names(names, self.n_features) if self.n_features else None

    # ------------------------------------------------------------------ games
    def _row(self, x: Any) -> np.ndarray:
        row, _ = check_numeric_matrix(x, "x", n_columns=self.n_features)
        if len(row) != 1:
            raise ValueError(f"x: expected one row, got {len(row)}; use shapley(X) for many rows")
        return row[0]

    def _transform(self, x: np.ndarray, y: Any) -> OutputTransform:
        outputs = self.model(x[None, :])
        n_outputs = outputs.shape[1]
        if self.output == "loss":
            if y is None:
                raise ValueError("y: output='loss' needs the label of each explained row (y=)")
            if self.model.kind == "classifier":
                return OutputTransform("loss", self._class_column(y, n_outputs, "y"), y)
            return OutputTransform("loss", -1, float(y))
        if self.target is None:
            if self.model.kind == "classifier":
                return OutputTransform(self.output, int(np.argmax(outputs[0])))
            if n_outputs > 1:
                raise ValueError(f"target: the model returns {n_outputs} outputs; choose one with target=")
            return OutputTransform(self.output, 0)
        column = self._class_column(self.target, n_outputs, "target")
        return OutputTransform(self.output, column)

    def _class_column(self, label: Any, n_outputs: int, name: str) -> int:
        classes = self.model.classes
        if classes is not None and label in classes:
            return classes.index(label)
        if isinstance(label, (int, np.integer)) and 0 <= int(label) < n_outputs:
            return int(label)
        known = list(classes) if classes is not None else list(range(n_outputs))
        raise ValueError(f"{name}: expected a class label or output index in {known}, got {label!r}")

    def game(self, x: Any, y: Any = None) -> Game:
        """The game of row ``x``: ``v(S)`` = the utility of the model with only the features in ``S`` present.

        Cost of one coalition: 1 model row (baseline), ``len(background)`` rows (marginal), at most that
        (conditional).
        """
        x = self._row(x)
        if self.n_features is None:
            self.n_features = len(x)
            self.feature_names = check_feature_names(None, self.n_features)
        transform = self._transform(x, y)
        model = self.model

        def predict(rows: np.ndarray) -> np.ndarray:
            return transform(model(rows))

        if self.removal == "baseline":
            value_fn = baseline_value_function(predict, x, self.reference, max_rows=self.max_rows)
        elif self.removal == "marginal":
            value_fn = marginal_value_function(predict, x, self.background, max_rows=self.max_rows)
        else:
            value_fn = conditional_value_function(predict, x, self.background, n_neighbors=self.n_neighbors,
                                                  max_rows=self.max_rows)
        value_fn.__name__ = f"{self.removal} removal of {model.name}"
        return Game(value_fn, self.n_features, self.feature_names)

    # ------------------------------------------------------------------ explanations
    def _many(self, kind: str, X: Any, y: Any, method: str, budget: int | None, random_state: Any,
              options: dict) -> Explanation:
        if method == "tree":  # exact tree algorithms (interplay.trees), no coalition sampling
            from .trees.explain import explain_rows
            return explain_rows(self, kind, X, y, budget=budget, **options)
        rows, _ = check_numeric_matrix(X, "X", n_columns=self.n_features)
        labels = [None] * len(rows) if y is None else list(np.ravel(y))
        if len(labels) != len(rows):
            raise ValueError(f"y: expected {len(rows)} labels (one per row of X), got {len(labels)}")
        seeds = np.random.SeedSequence(check_random_state(random_state).integers(2**63)).spawn(len(rows))
        results = [getattr(api, kind)(self.game(row, label), method=method, budget=budget,
                                      random_state=seed, **options)
                   for row, label, seed in zip(rows, labels, seeds)]
        std = None
        if all(r.std_errors is not None for r in results):
            std = np.array([r.std_errors for r in results])
        return Explanation(
            values=np.array([r.values for r in results]), base_values=np.array([r.baseline for r in results]),
            data=rows, feature_names=self.feature_names, method=method,
            n_evaluations=np.array([r.n_evaluations for r in results]), std_errors=std,
            info={"removal": self.removal, "output": self.output, "budget": budget, "kind": kind},
        )

    def shapley(self, X: Any, method: str = "exact", budget: int | None = None, random_state: Any = None,
                y: Any = None, **options) -> Explanation:
        """Shapley values of every row of ``X`` (one game per row; each row gets its own seed)."""
        return self._many("shapley", X, y, method, budget, random_state, options)

    def banzhaf(self, X: Any, method: str = "exact", budget: int | None = None, random_state: Any = None,
                y: Any = None, **options) -> Explanation:
        """Banzhaf values of every row of ``X``."""
        return self._many("banzhaf", X, y, method, budget, random_state, options)

    def interactions(self, x: Any, index: str = "sii", order: int = 2, method: str = "exact",
                     budget: int | None = None, random_state: Any = None, y: Any = None,
                     **options) -> Interactions:
        """Interaction index of row ``x`` (see :func:`interplay.interactions`)."""
        if method == "tree":
            from .trees.explain import explain_interactions
            return explain_interactions(self, x, index, order, y, budget=budget, **options)
        return api.interactions(self.game(x, y), index=index, order=order, method=method, budget=budget,
                                random_state=random_state, **options)

    def bivariate(self, x: Any, method: str = "exact", budget: int | None = None, random_state: Any = None,
                  y: Any = None, **options) -> BivariateExplanation:
        """Bivariate Shapley matrix of row ``x`` (see :func:`interplay.bivariate`)."""
        if method == "tree":
            from .trees.explain import explain_bivariate
            return explain_bivariate(self, x, y, budget=budget, **options)
        return api.bivariate(self.game(x, y), method=method, budget=budget, random_state=random_state, **options)

    def __repr__(self) -> str:
        return (f"Explainer(model={self.model.name}, removal={self.removal!r}, output={self.output!r}, "
                f"n_features={self.n_features})")


__all__ = ["Attribution", "Explainer"]
