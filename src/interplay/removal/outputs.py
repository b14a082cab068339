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
            p = outputs[:, self.column]
            _warn_if_clipped(p, "log-odds", both=True)
            p = np.clip(p, _EPS, 1 - _EPS)
            return np.log(p) - np.log1p(-p)
        if self.output == "loss":
            if self.regression:
                return -((outputs[:, self.column] - float(self.label)) ** 2)
            p = outputs[:, self.column]
            _warn_if_clipped(p, "loss", both=False)
            return np.log(np.clip(p, _EPS, 1.0))
        raise ValueError(f"output: expected one of {list(OUTPUTS)}, got {self.output!r}")


def _warn_if_clipped(p: np.ndarray, output: str, *, both: bool) -> None:
    """Warn (once per message) when probabilities reach 0 (or 1, for the log-odds): they are clipped to
    ``[_EPS, 1 - _EPS]``, so a value involving them is set by the clip, not by the model (log-odds +-27.6)."""
    low = bool(np.any(p < _EPS))
    high = both and bool(np.any(p > 1 - _EPS))
    if not (low or high):
        return
    import warnings

    edge = "0 or 1" if low and high else ("0" if low else "1")
    if output == "log-odds":
        bound = np.log((1 - _EPS) / _EPS)
        what = f"the log-odds are clipped to +-{bound:.1f} (probabilities to [{_EPS:g}, 1 - {_EPS:g}])"
    else:
        what = f"log p is clipped at log({_EPS:g}) = {np.log(_EPS):.1f}"
    warnings.warn(f"output={output!r}: the model gives probabilities of exactly {edge} on some hybrid rows; {what}, "
                  "so the values involving those rows are set by the clip, not by the model (explain "
                  "output='probability' instead, or a model whose probabilities stay inside (0, 1))",
                  UserWarning, stacklevel=2)
