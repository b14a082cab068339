"""Shared by the text and image games: which model output is the utility, and running estimators on a game."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import api
from .._validation import check_choice
from ..models import ModelFunction, as_model
from ..removal import OutputTransform

OUTPUTS = ("auto", "prediction", "probability", "log-odds")
GRAPH_METHODS = ("l-shapley", "c-shapley")  # estimators that take the players' graph as ``graph=``


def output_transform(model: ModelFunction, full_output: np.ndarray, target: Any, output: str) -> OutputTransform:
    """The utility of a modality game: column ``target`` (class label or index; default: the predicted class
    of a classifier, the only output of a regressor) of the model's output, as ``output``."""
    output = check_choice(output, "output", OUTPUTS)
    if output == "auto":
        output = "probability" if model.kind == "classifier" else "prediction"
    if output in ("probability", "log-odds") and model.kind != "classifier":
        raise ValueError(f"output={output!r} needs a classifier (predict_proba or classifier=True); "
                         f"{model.name} is not one")
    n_outputs = full_output.shape[1]
    if target is None:
        if model.kind == "classifier":
            return OutputTransform(output, int(np.argmax(full_output[0])))
        if n_outputs > 1:
            raise ValueError(f"target: the model returns {n_outputs} outputs; choose one with target=")
        return OutputTransform(output, 0)
    classes = model.classes
    if classes is not None and target in classes:
        return OutputTransform(output, classes.index(target))
    if isinstance(target, (int, np.integer)) and 0 <= int(target) < n_outputs:
        return OutputTransform(output, int(target))
    raise ValueError(f"target: expected a class label or output index in "
                     f"{list(classes) if classes is not None else list(range(n_outputs))}, got {target!r}")


def explained_output(model: ModelFunction, transform: OutputTransform) -> dict:
    """What a modality game's values are in, for its results' ``info`` (as the tabular Explainer records them):
    ``{"output": unit, "target": class label or output index}`` (the class label when the model has them)."""
    column = int(transform.column)
    label = model.classes[column] if model.classes is not None and column < len(model.classes) else column
    return {"output": transform.output, "target": label.item() if isinstance(label, np.generic) else label}


class ModalityExplainer:
    """Base of :class:`TextExplainer` and :class:`ImageExplainer`: ``game(input)`` plus the estimators."""

    def __init__(self, model: Any, *, target: Any = None, output: str = "auto", classifier: bool | None = None):
        self.model = as_model(model, classifier=classifier)
        self.target = target
        self.output = check_choice(output, "output", OUTPUTS)

    def game(self, item: Any):  # pragma: no cover - implemented by subclasses
        raise NotImplementedError

    def annotations(self, game) -> dict:
        """What a result of ``game`` carries in its ``info`` so that plots and reports can draw it (the tokens,
        the image and its regions); implemented by subclasses. Every result also records the unit and the output
        explained (``info["output"]``, ``info["target"]``: by default a classifier's predicted class)."""
        return {}

    def _carry(self, game, result):
        from dataclasses import replace

        extra = {**getattr(game, "explained", {}), **self.annotations(game)}  # unit and target, as tabular results
        if hasattr(result, "univariate"):  # a BivariateExplanation: its Shapley values carry them too
            result = replace(result, univariate=replace(result.univariate,
                                                        info={**result.univariate.info, **extra}))
        return replace(result, info={**result.info, **extra})

    def shapley(self, item: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                **options):
        """Shapley values of the players of ``item`` (``graph=game.graph`` is passed to graph-based methods
        unless given)."""
        game = self.game(item)
        if method in GRAPH_METHODS and "graph" not in options:
            options = {**options, "graph": game.graph}
        return self._carry(game, api.shapley(game, method=method, budget=budget, random_state=random_state,
                                             **options))

    def banzhaf(self, item: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                **options):
        game = self.game(item)
        return self._carry(game, api.banzhaf(game, method=method, budget=budget, random_state=random_state,
                                             **options))

    def interactions(self, item: Any, index: str = "sii", order: int = 2, method: str = "auto",
                     budget: int | None = None, random_state: Any = None, **options):
        game = self.game(item)
        return self._carry(game, api.interactions(game, index=index, order=order, method=method, budget=budget,
                                                  random_state=random_state, **options))

    def bivariate(self, item: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                  **options):
        game = self.game(item)
        return self._carry(game, api.bivariate(game, method=method, budget=budget, random_state=random_state,
                                               **options))
