"""Estimators, registered by (kind, method). Importing a module registers its methods."""

from . import exact  # noqa: F401  (registers the exact methods)
from . import bivariate_sampling, kernel, multivariate, permutation  # noqa: F401  (sampling estimators, E^k)
from . import banzhaf_sampling, interaction_sampling, shear, structured  # noqa: F401  (structured/sampled estimators)
from . import interaction_regression  # noqa: F401  (FSII / FBII / BII by least squares)
from . import leverage, odd, odd_gp, proxy  # noqa: F401  (Leverage SHAP, OddSHAP, OddGP, regression-adjusted)
from . import spectral  # noqa: F401  (sparse Fourier regression on a surrogate's support: SII, BII)
from . import bivariate_gp, pair_gp  # noqa: F401  (Gaussian-process fits of the odd and even parts: pairs, matrix)
from ._registry import available_methods, get_estimator, register

__all__ = ["available_methods", "get_estimator", "register"]
