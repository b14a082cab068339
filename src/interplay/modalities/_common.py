"""Shared by the text and image games: which model output is the utility, and running estimators on a game."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..fixed_players import explain_reduced
from .._validation import check_choice, class_position
from ..models import ModelFunction, as_model
from ..models.adapters import check_probabilities  # noqa: F401 - text and image import it from here
from ..removal import OutputTransform

OUTPUTS = ("auto", "prediction", "probability", "log-odds")
GRAPH_METHODS = ("l-shapley", "c-shapley")  # estimators that take the players' graph as ``graph=``


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (messages print ``0`` and ``'neg'``, not ``np.int64(0)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _is_predicted(model: ModelFunction, target: Any) -> bool:
    """``target="predicted"`` (unless "predicted" is one of the model's class labels)."""
    return (isinstance(target, str) and target == "predicted"
            and not (model.classes is not None and "predicted" in model.classes))


def output_transform(model: ModelFunction, full_output: np.ndarray, target: Any, output: str) -> OutputTransform:
    """The utility of a modality game: column ``target`` of the model's output, as ``output``.

    ``target``: a class label or an output index, read as :class:`~interplay.Explainer` reads it (a label first;
    a label only where the labels are numbers that are also other classes' positions); ``"predicted"``: the
    class the model predicts for the explained input (``full_output[0]``); default (``None``): as in
    :class:`~interplay.Explainer`, a binary classifier's positive class (its second class, so that signs and
    colours mean the same across inputs), but a classifier of more than two classes its predicted class for the
    explained input (one game explains one output), and a regressor's only output."""
    output = check_choice(output, "output", OUTPUTS)
    if output == "auto":
        output = "probability" if model.kind == "classifier" else "prediction"
    if output in ("probability", "log-odds") and model.kind != "classifier":
        raise ValueError(f"output={output!r} needs a classifier (predict_proba or classifier=True); "
                         f"{model.name} is not one")
    n_outputs = full_output.shape[1]
    if _is_predicted(model, target):
        if model.kind != "classifier":
            raise ValueError(f"target: 'predicted' explains the predicted class of a classifier; {model.name} is "
                             "not one (declare classifier=True if it returns class probabilities)")
        return OutputTransform(output, int(np.argmax(full_output[0])))
    if target is None:
        if model.kind == "classifier":
            if n_outputs == 2:  # binary: the positive class, whatever this input's prediction
                return OutputTransform(output, 1)
            return OutputTransform(output, int(np.argmax(full_output[0])))
        if n_outputs > 1:
            raise ValueError(f"target: the model returns {n_outputs} outputs; choose one with target= (an output "
                             f"index 0..{n_outputs - 1}), or, if they are class probabilities, declare "
                             f"classifier=True (a classifier explains its "
                             f"{'predicted' if n_outputs > 2 else 'positive'} class by default)")
        return OutputTransform(output, 0)
    classes = model.classes
    target = _plain(target)
    if classes is not None and target in classes:
        return OutputTransform(output, list(classes).index(target))
    column = class_position(classes, target, n_outputs)
    if column is not None:
        return OutputTransform(output, column)
    choices = [_plain(c) for c in classes] if classes is not None else list(range(n_outputs))
    predicted = " or 'predicted'" if model.kind == "classifier" else ""
    raise ValueError(f"target: expected a class label or output index in {choices}{predicted}, got {target!r}")


def explained_output(model: ModelFunction, transform: OutputTransform) -> dict:
    """What a modality game's values are in, for its results' ``info`` (as the tabular Explainer records them):
    ``{"output": unit, "target": class label or output index}`` (the class label when the model has them)."""
    column = int(transform.column)
    label = model.classes[column] if model.classes is not None and column < len(model.classes) else column
    return {"output": transform.output, "target": label.item() if isinstance(label, np.generic) else label}


def _null(game) -> np.ndarray | None:
    """The game's null players (an image region whose pixels are its baseline's), or None when it has no rule."""
    null_players = getattr(game, "null_players", None)
    return null_players() if callable(null_players) else None


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
        explained (``info["output"]``, ``info["target"]``: by default a binary classifier's positive class, the
        predicted class of a classifier of more than two classes)."""
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
        return self._carry(game, explain_reduced("shapley", game, _null(game), method=method, budget=budget,
                                                 random_state=random_state, **options))

    def banzhaf(self, item: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                **options):
        game = self.game(item)
        return self._carry(game, explain_reduced("banzhaf", game, _null(game), method=method, budget=budget,
                                                 random_state=random_state, **options))

    def interactions(self, item: Any, index: str = "sii", order: int = 2, method: str = "auto",
                     budget: int | None = None, random_state: Any = None, **options):
        game = self.game(item)
        return self._carry(game, explain_reduced("interactions", game, _null(game), index=index, order=order,
                                                 method=method, budget=budget, random_state=random_state, **options))

    def bivariate(self, item: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                  **options):
        """The Bivariate Shapley matrix of the players of ``item`` (``graph=game.graph`` is passed to a graph-based
        ``univariate=`` method of ``method="general"`` unless given)."""
        game = self.game(item)
        if options.get("univariate") in GRAPH_METHODS and "graph" not in options:
            options = {**options, "graph": game.graph}
        return self._carry(game, explain_reduced("bivariate", game, _null(game), method=method, budget=budget,
                                                 random_state=random_state, **options))


def model_calls(values_of, coalitions: np.ndarray, size: int, unit: str) -> np.ndarray:
    """``values_of`` applied to consecutive chunks of at most ``size`` coalitions (one model call each, so memory
    stays bounded), the results concatenated; progress (``unit``s sent to the model) is shown once the calls have
    taken a few seconds (:mod:`interplay._progress`): one long text or image sends thousands of strings or images
    to a model that may take seconds per call (a transformer)."""
    from .._progress import progress
    from ..removal._columns import stack

    if len(coalitions) <= size:
        return np.asarray(values_of(coalitions))
    parts = []
    with progress(len(coalitions), "calling the model", unit=unit) as bar:
        for start in range(0, len(coalitions), size):
            chunk = coalitions[start:start + size]
            parts.append(np.asarray(values_of(chunk)))
            bar.update(len(chunk))
    return stack(parts)

