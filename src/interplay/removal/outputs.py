"""Model output -> utility: prediction, class probability, log-odds, or minus a loss (Bivariate Shapley paper
Sec. 3, "model behaviour"; Covert et al.'s removal-based framework)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

OUTPUTS = ("auto", "prediction", "probability", "log-odds", "loss")
_EPS = 1e-12


@dataclass(frozen=True)
class OutputTransform:
    """Maps the model's ``(N, K)`` outputs to one utility per row.

    - ``prediction``: column ``target`` of the raw output (regression);
    - ``probability``: probability of class column ``target``;
    - ``log-odds``: ``log(p / (1 - p))`` of that probability;
    - ``loss``: minus the loss against ``label``: log-loss ``log p[label]`` for classifiers, ``-(y[column] - label)^2``
      for regressors (``regression=True``) (utility = -loss).
    """

    output: str
    column: int
    label: float | int | None = None
    regression: bool = False

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        if self.output == "prediction":
            return outputs[:, self.column]
        if self.output == "probability":
            return outputs[:, self.column]
        if self.output == "log-odds":
            p = np.clip(outputs[:, self.column], _EPS, 1 - _EPS)
            return np.log(p) - np.log1p(-p)
        if self.output == "loss":
            if self.regression:
                return -((outputs[:, self.column] - float(self.label)) ** 2)
            return np.log(np.clip(outputs[:, self.column], _EPS, 1.0))
        raise ValueError(f"output: expected one of {list(OUTPUTS)}, got {self.output!r}")
