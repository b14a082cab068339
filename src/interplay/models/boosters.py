"""Native gradient-boosted tree models: ``xgboost.Booster`` and ``lightgbm.Booster``.

(The scikit-learn wrappers ``XGBClassifier``/``LGBMRegressor``... have ``predict``/``predict_proba`` and go
through the generic adapter.) A booster whose objective is a binary logistic loss is a classifier with outputs
``[1 - p, p]``; a multi-class soft-probability objective gives the ``(N, K)`` probabilities; any other
objective is a regressor whose output is ``booster.predict``. A classifier's raw margin (``output_margin=True`` /
``raw_score=True``) is its ``margin`` function: the Explainer's ``output="log-odds"``/``"margin"`` use it.
Cost: one ``predict`` call per batch of rows.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from .adapters import ModelFunction


def _two_columns(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p, dtype=float).reshape(len(p), -1)
    return np.hstack([1.0 - p, p]) if p.shape[1] == 1 else p


class _XGBPredict:
    """``booster.predict`` on rows as a DMatrix with the booster's feature names (picklable)."""

    def __init__(self, booster: Any, **kwargs: Any) -> None:
        self.booster, self.kwargs = booster, kwargs

    def __call__(self, rows: Any) -> np.ndarray:
        import xgboost as xgb

        names = self.booster.feature_names
        return self.booster.predict(xgb.DMatrix(np.asarray(rows, dtype=float), feature_names=names), **self.kwargs)


class _LGBPredict:
    def __init__(self, booster: Any, **kwargs: Any) -> None:
        self.booster, self.kwargs = booster, kwargs

    def __call__(self, rows: Any) -> np.ndarray:
        return self.booster.predict(np.asarray(rows, dtype=float), **self.kwargs)


class _Probabilities:
    def __init__(self, predict: Any) -> None:
        self.predict = predict

    def __call__(self, rows: Any) -> np.ndarray:
        return _two_columns(self.predict(rows))


def _xgboost(booster: Any) -> ModelFunction:
    objective = json.loads(booster.save_config())["learner"]["objective"]["name"]
    name = f"xgboost.Booster[{objective}].predict"
    if objective in ("binary:logistic", "multi:softprob"):
        return ModelFunction(_Probabilities(_XGBPredict(booster)), "classifier", name, columns=None,
                             margin=_XGBPredict(booster, output_margin=True))
    return ModelFunction(_XGBPredict(booster), "regressor", name, margin=_XGBPredict(booster, output_margin=True))


def _lightgbm(booster: Any) -> ModelFunction:
    objective = str(booster.dump_model(num_iteration=1).get("objective", "")).split(" ")[0]

    name = f"lightgbm.Booster[{objective}].predict"
    if objective in ("binary", "multiclass", "multiclassova", "cross_entropy"):
        return ModelFunction(_Probabilities(_LGBPredict(booster)), "classifier", name,
                             margin=_LGBPredict(booster, raw_score=True))
    return ModelFunction(_LGBPredict(booster), "regressor", name, margin=_LGBPredict(booster, raw_score=True))


def booster_model(booster: Any) -> ModelFunction:
    """Wrap a native XGBoost or LightGBM booster as a :class:`ModelFunction` (see the module docstring)."""
    model = _xgboost(booster) if type(booster).__module__.startswith("xgboost") else _lightgbm(booster)
    model.source = booster
    return model
