"""interplay: Shapley-family explanations of black-box models, and how features act together."""

from . import synthetic
from .api import banzhaf, bivariate, interactions, shapley
from .estimators import available_methods
from .explainer import Explainer
from .games import Game
from .results import Attribution, BivariateExplanation, Explanation, Interactions

__version__ = "0.1.0"

__all__ = [
    "Attribution",
    "BivariateExplanation",
    "Explainer",
    "Explanation",
    "Game",
    "Interactions",
    "available_methods",
    "banzhaf",
    "bivariate",
    "interactions",
    "shapley",
    "synthetic",
]
