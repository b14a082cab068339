"""Turn a user's model into one checked function ``rows (N, d) float -> outputs (N, K) float``.

Supported here: plain callables on a 2-D array, and objects with ``predict_proba`` (classifiers: the outputs
are class probabilities) or ``predict`` (regressors). Models fitted on DataFrames (scikit-learn's
``feature_names_in_``) receive DataFrames with the same columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np


@dataclass
class ModelFunction:
    """A model as ``rows -> (N, K)`` outputs. ``kind`` is ``"classifier"`` (outputs are probabilities) or
    ``"regressor"``; ``classes`` are the class labels of a classifier; ``n_calls``/``n_rows`` count usage."""

    fn: Callable[[np.ndarray], Any]
    kind: str
    name: str
    classes: tuple | None = None
    columns: tuple[str, ...] | None = None
    n_calls: int = field(default=0)
    n_rows: int = field(default=0)

    def __call__(self, rows: np.ndarray) -> np.ndarray:
        data = rows
        if self.columns is not None:
            import pandas as pd

            data = pd.DataFrame(rows, columns=list(self.columns))
        try:
            raw = self.fn(data)
        except Exception as exc:  # the model's own error, with where it happened
            raise RuntimeError(f"model call {self.name} failed on {len(rows)} rows: {type(exc).__name__}: {exc}") from exc
        try:
            out = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"model call {self.name} returned non-numeric output of type {type(raw).__name__}") from None
        if out.ndim == 1:
            out = out[:, None]
        if out.ndim != 2 or out.shape[0] != len(rows):
            raise ValueError(
                f"model call {self.name} returned shape {np.shape(raw)} for {len(rows)} rows; "
                f"expected ({len(rows)},) or ({len(rows)}, n_outputs)"
            )
        if not np.isfinite(out).all():
            raise ValueError(f"model call {self.name} returned NaN or inf for some of {len(rows)} rows")
        self.n_calls += 1
        self.n_rows += len(rows)
        return out


def as_model(model: Any) -> ModelFunction:
    """Wrap ``model`` (callable, or object with ``predict_proba``/``predict``) as a :class:`ModelFunction`."""
    if isinstance(model, ModelFunction):
        return model
    columns = getattr(model, "feature_names_in_", None)
    columns = tuple(str(c) for c in columns) if columns is not None else None
    if hasattr(model, "predict_proba"):
        return ModelFunction(model.predict_proba, "classifier", f"{type(model).__name__}.predict_proba",
                             classes=tuple(getattr(model, "classes_", ())) or None, columns=columns)
    if hasattr(model, "predict"):
        return ModelFunction(model.predict, "regressor", f"{type(model).__name__}.predict", columns=columns)
    if callable(model):
        return ModelFunction(model, "regressor", getattr(model, "__name__", type(model).__name__))
    raise TypeError(
        "model: expected a callable on a 2-D array or an object with predict/predict_proba, "
        f"got {type(model).__name__}"
    )
