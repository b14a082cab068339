"""Which models interplay's tree algorithms read, decided from their class alone (no numba import).

:mod:`interplay.trees` (numba-compiled) reads scikit-learn's tree ensembles named here, any XGBoost or LightGBM
model, and its own ``TreeEnsemble``; ``method="auto"`` asks it about a model only when :func:`may_be_trees`
says the model could be one, so explaining any other model never imports numba (about 0.3 s).
"""

from __future__ import annotations

from typing import Any

SKLEARN_FORESTS = ("DecisionTreeRegressor", "DecisionTreeClassifier", "ExtraTreeRegressor", "ExtraTreeClassifier",
                   "RandomForestRegressor", "RandomForestClassifier", "ExtraTreesRegressor", "ExtraTreesClassifier")
SKLEARN_BOOSTING = ("GradientBoostingRegressor", "GradientBoostingClassifier")
SKLEARN_HIST_BOOSTING = ("HistGradientBoostingRegressor", "HistGradientBoostingClassifier")
BOOSTER_LIBRARIES = ("xgboost", "lightgbm")


def class_names(model: Any) -> set[str]:
    """The names of ``model``'s class and its bases."""
    return {c.__name__ for c in type(model).__mro__}


def library(model: Any) -> str:
    """The top-level package ``model``'s class comes from (``"sklearn"``, ``"xgboost"``...)."""
    return type(model).__module__.split(".")[0]


def may_be_trees(source: Any) -> bool:
    """Whether the tree readers could take ``source`` (or a Pipeline's last step): a class they know; whether
    they do (a fitted model, a supported objective) only they can tell."""
    steps = getattr(source, "steps", None)
    if steps is not None and type(source).__name__ == "Pipeline" and len(steps):
        source = steps[-1][1]
    if "TreeEnsemble" in class_names(source) or library(source) in BOOSTER_LIBRARIES:
        return True
    return library(source) == "sklearn" and bool(
        class_names(source) & set(SKLEARN_FORESTS + SKLEARN_BOOSTING + SKLEARN_HIST_BOOSTING))
