"""Tree ensembles: exact interventional TreeSHAP, closed-form interaction indices, path-dependent TreeSHAP.

- :func:`as_ensemble` reads scikit-learn, XGBoost and LightGBM tree models into one
  :class:`TreeEnsemble` (flat node arrays; see :mod:`interplay.trees.parsers` for the output explained).
- :func:`interventional_shapley` / :func:`interventional_indices`: exact values of the marginal
  (interventional) game with background data, and exact Banzhaf, pairwise SII/BII and Bivariate Shapley
  matrices from per-leaf closed forms (derivation in :mod:`interplay.trees.interventional`).
- :func:`path_dependent_shapley`: Lundberg et al.'s path-dependent TreeSHAP; :func:`path_dependent_interactions`
  its pairwise interaction indices (shap's interaction values, :func:`shap_interaction_values`).
- Through the Explainer: ``method="tree"`` (see :mod:`interplay.trees.explain`).
"""

from .._optional import TREES_MISSING, installed

if not installed("numba"):  # the kernels are numba-compiled: say what to install, not "No module named numba"
    raise ImportError(TREES_MISSING)

from .ensemble import TreeEnsemble  # noqa: E402
from .interventional import TreeIndices, interventional_indices, interventional_shapley  # noqa: E402
from .parsers import as_ensemble  # noqa: E402
from .path_dependent import (  # noqa: E402
    path_dependent_interactions,
    path_dependent_shapley,
    shap_interaction_values,
)

__all__ = ["TreeEnsemble", "TreeIndices", "as_ensemble", "interventional_indices", "interventional_shapley",
           "path_dependent_interactions", "path_dependent_shapley", "shap_interaction_values"]
