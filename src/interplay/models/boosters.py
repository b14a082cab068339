"""Native gradient-boosted tree models: ``xgboost.Booster`` and ``lightgbm.Booster``.

(The scikit-learn wrappers ``XGBClassifier``/``LGBMRegressor``... have ``predict``/``predict_proba`` and go
through the generic adapter.) A booster whose objective is a binary logistic loss is a classifier with outputs
``[1 - p, p]``; a multi-class soft-probability objective gives the ``(N, K)`` probabilities; any other
objective is a regressor whose output is ``booster.predict`` (raw margins are not used).
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


def _xgboost(booster: Any) -> ModelFunction:
    import xgboost as xgb

    objective = json.loads(booster.save_config())["learner"]["objective"]["name"]
    names = booster.feature_names

    def predict(rows: np.ndarray) -> np.ndarray:
        return booster.predict(xgb.DMatrix(np.asarray(rows, dtype=float), feature_names=names))

    name = f"xgboost.Booster[{objective}].predict"
    if objective in ("binary:logistic", "multi:softprob"):
        return ModelFunction(lambda rows: _two_columns(predict(rows)), "classifier", name,
                             columns=None)
    return ModelFunction(predict, "regressor", name)


def _lightgbm(booster: Any) -> ModelFunction:
    objective = str(booster.dump_model(num_iteration=1).get("objective", "")).split(" ")[0]

    def predict(rows: np.ndarray) -> np.ndarray:
        return booster.predict(np.asarray(rows, dtype=float))

    name = f"lightgbm.Booster[{objective}].predict"
    if objective in ("binary", "multiclass", "multiclassova", "cross_entropy"):
        return ModelFunction(lambda rows: _two_columns(predict(rows)), "classifier", name)
    return ModelFunction(predict, "regressor", name)


def booster_model(booster: Any) -> ModelFunction:
    """Wrap a native XGBoost or LightGBM booster as a :class:`ModelFunction` (see the module docstring)."""
    model = _xgboost(booster) if type(booster).__module__.startswith("xgboost") else _lightgbm(booster)
    model.source = booster
    return model
