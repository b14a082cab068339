"""interplay: Shapley-family explanations of black-box models, and how features act together."""

from . import graph, metrics, modalities, plot, runs, synthetic
from .api import banzhaf, bivariate, interactions, shapley
from .estimators import available_methods
from .explainer import Explainer, ExplanationInterrupted
from .games import Game
from .graph import ExplanationGraph, RedundancyGraph, mean_graph
from .io import from_shap, load, save
from .report import build_report, save_report
from .runs import load_run, open_run, resume_run, run
from .results import Attribution, BivariateExplanation, Explanation, Interactions

__version__ = "0.1.0"

__all__ = [
    "Attribution",
    "BivariateExplanation",
    "Explainer",
    "ExplanationInterrupted",
    "Explanation",
    "ExplanationGraph",
    "Game",
    "Interactions",
    "RedundancyGraph",
    "available_methods",
    "banzhaf",
    "build_report",
    "bivariate",
    "from_shap",
    "graph",
    "interactions",
    "load",
    "load_run",
    "mean_graph",
    "metrics",
    "modalities",
    "open_run",
    "plot",
    "resume_run",
    "run",
    "runs",
    "save",
    "save_report",
    "shapley",
    "synthetic",
]
