"""Errors of an estimate against the exact (ground-truth) attribution (SHEAR paper, Sec. 5.2).

Both metrics need no game evaluation; the ground truth usually comes from ``interplay.shapley(game)``
(``2**n`` evaluations).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_bool
from ._inputs import align_names, as_scores, descending_order, feature_names_of

_TIE_RTOL = 1e-12  # values within this fraction of a row's largest |value| are tied (rounding, not ranking)


def _pair(estimate: Any, truth: Any) -> tuple[np.ndarray, np.ndarray]:
    """``estimate`` and ``truth`` as arrays of one shape, the estimate in the truth's feature order when both
    carry feature names (Attribution/Explanation, DataFrame columns, Series index)."""
    est = as_scores(estimate, "estimate")
    ref = as_scores(truth, "truth", n=est.shape[-1])
    if est.shape != ref.shape:
        raise ValueError(f"truth: expected shape {est.shape} like estimate, got {ref.shape}")
    est = align_names(est, feature_names_of(estimate), feature_names_of(truth), "estimate", "truth")
    return est, ref


def _tie_classes(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Tie class of each feature of one row (``order``: its descending order): consecutive values of the sorted
    row at most ``_TIE_RTOL * max|values|`` apart share a class; classes are numbered from the top."""
    ranked = values[order]
    tolerance = _TIE_RTOL * float(np.max(np.abs(values)))
    starts = np.ones(len(values), dtype=bool)
    starts[1:] = (ranked[:-1] - ranked[1:]) > tolerance
    classes = np.empty(len(values), dtype=np.int64)
    classes[order] = np.cumsum(starts) - 1
    return classes


def _ranking_hits(est: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Hit (probability) at each position of one row: the share of the estimate's tie class at position ``m``
    whose members lie in the truth's tie class at ``m``."""
    n = len(est)
    est_order, ref_order = descending_order(est), descending_order(ref)
    est_class, ref_class = _tie_classes(est, est_order), _tie_classes(ref, ref_order)
    pairs, counts = np.unique(est_class * n + ref_class, return_counts=True)  # features per (e, t) class pair
    sizes = np.bincount(est_class, minlength=n)
    at_est, at_ref = est_class[est_order], ref_class[ref_order]  # the classes at each position
    wanted = at_est * n + at_ref
    found = np.minimum(np.searchsorted(pairs, wanted), len(pairs) - 1)
    shared = np.where(pairs[found] == wanted, counts[found], 0)
    return shared / sizes[at_est]


def absolute_error(estimate: Any, truth: Any) -> float | np.ndarray:
    """Absolute estimation error ``AE = sum_i |phi_i - phi_hat_i|`` (SHEAR paper, Sec. 5.2).

    ``estimate`` and ``truth``: Attributions, Explanations or arrays of shape ``(n,)`` or ``(rows, n)``;
    features are matched by name when both carry names (Attributions, DataFrames, Series), by position otherwise
    (different names raise a ValueError). Returns a float for one row, an array with one AE per row otherwise.
    """
    est, ref = _pair(estimate, truth)
    err = np.abs(est - ref).sum(axis=-1)
    return float(err) if err.ndim == 0 else err


def ranking_accuracy(estimate: Any, truth: Any, *, absolute: bool = False) -> float | np.ndarray:
    """Accuracy of the feature importance ranking (SHEAR paper, Sec. 5.2; Wojtas & Chen 2020):

        ACC = sum_{m=1}^{M} 1[r_hat_m = r_m] / m  /  sum_{m=1}^{M} 1/m,

    where ``r_m`` (``r_hat_m``) is the feature at position ``m`` of the descending ranking of the true
    (estimated) values; ``0 <= ACC <= 1`` and the top positions weigh most. The paper ranks the signed values;
    ``absolute=True`` ranks ``|phi|`` instead.

    Ties: values of a row within ``1e-12 * max|values|`` of each other (exact ties, up to rounding) form a tie
    class. A tie in the truth leaves the order of its features open, so position ``m`` is a hit when ``r_hat_m``
    lies in the tie class of ``r_m`` (the features a tree model does not use, all exactly 0, may come in any
    order). A tie in the estimate ranks nothing, so it counts as a random order of its features: the hit at
    ``m`` is the share of the estimate's tie class at ``m`` that lies in the truth's tie class at ``m`` (an
    all-zero estimate scores ``1/M`` on a truth without ties, not 1). Without ties this is the paper's ACC.
    Features are matched by name when both sides carry names (as in :func:`absolute_error`).
    """
    absolute = check_bool(absolute, "absolute")
    est, ref = _pair(estimate, truth)
    if absolute:
        est, ref = np.abs(est), np.abs(ref)
    weights = 1.0 / np.arange(1, est.shape[-1] + 1)
    hits = np.array([_ranking_hits(e, r) for e, r in zip(np.atleast_2d(est), np.atleast_2d(ref))])
    hits = hits.reshape(est.shape)
    acc = (hits * weights).sum(axis=-1) / weights.sum()
    return float(acc) if acc.ndim == 0 else acc
