"""Evaluation metrics of explanations (the papers' metrics as functions).

Against ground truth (SHEAR Sec. 5.2): :func:`absolute_error`, :func:`ranking_accuracy`.
Against the game (SHEAR Sec. 5.3): :func:`faithfulness`, :func:`monotonicity`.
Masking (Bivariate Shapley Sec. 5, App. A.2.1; L-/C-Shapley): :func:`posthoc_accuracy` and its ranking, group and
sink/source variants, :func:`prediction_game`, :func:`insertion_auc`, :func:`deletion_auc` (and their curves),
:func:`log_odds_ratio`. Speed (SHEAR Sec. 5.4): :func:`throughput`.

Every masked input is a coalition of a game (a row's features left present), evaluated in one batch per row.
"""

from .curves import deletion_auc, deletion_curve, insertion_auc, insertion_curve
from .ground_truth import absolute_error, ranking_accuracy
from .log_odds import log_odds_ratio
from .perturbation import faithfulness, monotonicity
from .posthoc import (
    PosthocCurve,
    posthoc_accuracy,
    posthoc_accuracy_by_ranking,
    posthoc_accuracy_groups,
    posthoc_accuracy_sinks_sources,
    prediction_game,
)
from .throughput import Throughput, throughput

__all__ = [
    "PosthocCurve",
    "Throughput",
    "absolute_error",
    "deletion_auc",
    "deletion_curve",
    "faithfulness",
    "insertion_auc",
    "insertion_curve",
    "log_odds_ratio",
    "monotonicity",
    "posthoc_accuracy",
    "posthoc_accuracy_by_ranking",
    "posthoc_accuracy_groups",
    "posthoc_accuracy_sinks_sources",
    "prediction_game",
    "ranking_accuracy",
    "throughput",
]
