"""Errors of an estimate against the exact (ground-truth) attribution (SHEAR paper, Sec. 5.2).

Both metrics need no game evaluation; the ground truth usually comes from ``interplay.shapley(game)``
(``2**n`` evaluations).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._inputs import as_scores, descending_order


def absolute_error(estimate: Any, truth: Any) -> float | np.ndarray:
    """Absolute estimation error ``AE = sum_i |phi_i - phi_hat_i|`` (SHEAR paper, Sec. 5.2).

    ``estimate`` and ``truth``: Attributions, Explanations or arrays of shape ``(n,)`` or ``(rows, n)``.
    Returns a float for one row, an array with one AE per row otherwise.
    """
    est = as_scores(estimate, "estimate")
    ref = as_scores(truth, "truth", n=est.shape[-1])
    if est.shape != ref.shape:
        raise ValueError(f"truth: expected shape {est.shape} like estimate, got {ref.shape}")
    err = np.abs(est - ref).sum(axis=-1)
    return float(err) if err.ndim == 0 else err


def ranking_accuracy(estimate: Any, truth: Any, *, absolute: bool = False) -> float | np.ndarray:
    """Accuracy of the feature importance ranking (SHEAR paper, Sec. 5.2; Wojtas & Chen 2020):

        ACC = sum_{m=1}^{M} 1[r_hat_m = r_m] / m  /  sum_{m=1}^{M} 1/m,

    where ``r_m`` (``r_hat_m``) is the feature at position ``m`` of the descending ranking of the true
    (estimated) values; ``0 <= ACC <= 1`` and the top positions weigh most. The paper ranks the signed values;
    ``absolute=True`` ranks ``|phi|`` instead. Ties are broken by feature index.
    """
    est = as_scores(estimate, "estimate")
    ref = as_scores(truth, "truth", n=est.shape[-1])
    if est.shape != ref.shape:
        raise ValueError(f"truth: expected shape {est.shape} like estimate, got {ref.shape}")
    if absolute:
        est, ref = np.abs(est), np.abs(ref)
    weights = 1.0 / np.arange(1, est.shape[-1] + 1)
    hits = descending_order(est) == descending_order(ref)
    acc = (hits * weights).sum(axis=-1) / weights.sum()
    return float(acc) if acc.ndim == 0 else acc
