"""Result objects: immutable, numpy arrays inside, feature names attached, evaluations recorded."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np


def _frozen(array) -> np.ndarray:
    out = np.array(array, dtype=float, copy=True)
    out.setflags(write=False)
    return out


def _format_table(names, values, *, limit: int = 10) -> str:
    order = np.argsort(-np.abs(values), kind="stable")[:limit]
    width = max([len(str(names[i])) for i in order] + [4])
    return "\n".join(f"  {str(names[i]):<{width}}  {values[i]: .6g}" for i in order)


@dataclass(frozen=True, eq=False)
class Attribution:
    """One value per feature for one game (Shapley, Banzhaf, ...).

    ``values[i]`` is feature ``i``'s attribution; ``baseline`` is ``v(empty set)``; ``std_errors`` (when the
    method estimates them) has one standard error per value; ``info`` records method options (budget, seed...).
    """

    values: np.ndarray
    baseline: float
    feature_names: tuple[str, ...]
    n_evaluations: int
    method: str
    std_errors: np.ndarray | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", _frozen(self.values))
        if self.std_errors is not None:
            object.__setattr__(self, "std_errors", _frozen(self.std_errors))
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        object.__setattr__(self, "baseline", float(self.baseline))
        object.__setattr__(self, "n_evaluations", int(self.n_evaluations))
        object.__setattr__(self, "info", dict(self.info))

    @property
    def n_features(self) -> int:
        return len(self.values)

    def __getitem__(self, feature) -> float:
        return float(self.values[_feature_index(feature, self.feature_names)])

    def ranking(self) -> list[str]:
        """Feature names from the largest to the smallest absolute value."""
        return [self.feature_names[i] for i in np.argsort(-np.abs(self.values), kind="stable")]

    def __repr__(self) -> str:
        return (
            f"Attribution(method={self.method!r}, n_features={self.n_features}, baseline={self.baseline:.6g}, "
            f"sum={self.values.sum():.6g}, n_evaluations={self.n_evaluations})\n"
            + _format_table(self.feature_names, self.values)
        )


def _feature_index(feature, names: tuple[str, ...]) -> int:
    if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
        if not -len(names) <= feature < len(names):
            raise IndexError(f"feature index {feature} out of range for {len(names)} features")
        return int(feature) % len(names)
    if isinstance(feature, str):
        try:
            return names.index(feature)
        except ValueError:
            raise KeyError(f"unknown feature {feature!r}; known: {list(names)}") from None
    raise TypeError(f"feature: expected an int index or a feature name, got {type(feature).__name__}")


@dataclass(frozen=True, eq=False)
class Interactions:
    """Values of an interaction index on every subset of size ``1..order`` that the index defines.

    ``result[(i, j)]`` (indices or names, any order) is the value of that subset; ``values`` maps sorted
    index tuples to values; ``matrix`` is the symmetric ``(n, n)`` pairwise matrix with the order-1 values
    on its diagonal.
    """

    values: Mapping[tuple[int, ...], float]
    index: str
    order: int
    baseline: float
    feature_names: tuple[str, ...]
    n_evaluations: int
    method: str
    std_errors: Mapping[tuple[int, ...], float] | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        values = {tuple(sorted(k)): float(v) for k, v in self.values.items()}
        object.__setattr__(self, "values", MappingProxyType(values))
        if self.std_errors is not None:
            errors = {tuple(sorted(k)): float(v) for k, v in self.std_errors.items()}
            object.__setattr__(self, "std_errors", MappingProxyType(errors))
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        object.__setattr__(self, "info", dict(self.info))

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def _key(self, subset) -> tuple[int, ...]:
        if isinstance(subset, (int, np.integer, str)):
            subset = (subset,)
        return tuple(sorted(_feature_index(f, self.feature_names) for f in subset))

    def __getitem__(self, subset) -> float:
        key = self._key(subset)
        if key not in self.values:
            raise KeyError(f"{self.index} of order {self.order} has no value for subset {key}")
        return self.values[key]

    @property
    def matrix(self) -> np.ndarray:
        """Symmetric ``(n, n)`` matrix: pairs off the diagonal, order-1 values on it (0 where undefined)."""
        n = self.n_features
        out = np.zeros((n, n))
        for key, value in self.values.items():
            if len(key) == 1:
                out[key[0], key[0]] = value
            elif len(key) == 2:
                out[key[0], key[1]] = out[key[1], key[0]] = value
        out.setflags(write=False)
        return out

    def top(self, k: int = 10, size: int = 2) -> list[tuple[tuple[str, ...], float]]:
        """The ``k`` subsets of the given size with the largest absolute values, with feature names."""
        items = [(key, v) for key, v in self.values.items() if len(key) == size]
        items.sort(key=lambda kv: -abs(kv[1]))
        return [(tuple(self.feature_names[i] for i in key), v) for key, v in items[:k]]

    def graph(self):
        """Symmetric explanation graph of the pairwise values (``matrix`` off the diagonal; order-1 values as
        ``univariate``): an :class:`interplay.graph.ExplanationGraph`, for the same analysis as Bivariate
        Shapley (the Bivariate Shapley paper's Section 5 comparisons with SII, Shapley-Taylor, excess)."""
        from .graph.explanation import from_interactions

        return from_interactions(self)

    def __repr__(self) -> str:
        lines = [f"  {' x '.join(names)}: {v: .6g}" for names, v in self.top(10, min(2, self.order))]
        return (
            f"Interactions(index={self.index!r}, order={self.order}, n_features={self.n_features}, "
            f"method={self.method!r}, n_evaluations={self.n_evaluations})\n" + "\n".join(lines)
        )


@dataclass(frozen=True, eq=False)
class BivariateExplanation:
    """Bivariate Shapley: the directed explanation graph's weights (Bivariate Shapley paper, Eq. 6).

    ``adjacency[i, j]`` is the importance of feature ``j`` when feature ``i`` is present: the weight of the
    edge ``i -> j`` (``= E2[j, i]`` of Eq. 6, orientation as corrected in the papers' README). The diagonal is
    zero (no self-loops). ``univariate`` is the Shapley :class:`Attribution` from the same evaluations.
    """

    adjacency: np.ndarray
    univariate: Attribution
    feature_names: tuple[str, ...]
    n_evaluations: int
    method: str
    std_errors: np.ndarray | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        adjacency = np.array(self.adjacency, dtype=float, copy=True)
        np.fill_diagonal(adjacency, 0.0)
        object.__setattr__(self, "adjacency", _frozen(adjacency))
        if self.std_errors is not None:
            object.__setattr__(self, "std_errors", _frozen(self.std_errors))
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        object.__setattr__(self, "info", dict(self.info))

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def e2(self) -> np.ndarray:
        """The matrix ``E2`` of Eq. 6 itself: ``E2[i, j]`` = importance of ``i`` when ``j`` is present."""
        return self.adjacency.T

    def graph(self):
        """The directed explanation graph G (edge ``i -> j`` weighted by ``adjacency[i, j]``, no self-loops): an
        :class:`interplay.graph.ExplanationGraph` with ``.redundancy(gamma)``, ``.pagerank()``, ``.gamma_sweep()``."""
        from .graph.explanation import from_bivariate

        return from_bivariate(self)

    def __repr__(self) -> str:
        return (
            f"BivariateExplanation(method={self.method!r}, n_features={self.n_features}, "
            f"n_evaluations={self.n_evaluations})\n" + np.array2string(self.adjacency, precision=4)
        )


@dataclass(frozen=True, eq=False)
class Explanation:
    """Attributions of many rows: ``values`` is ``(m, d)``, ``base_values`` is ``(m,)`` (``v(empty)`` per row).

    ``data`` holds the explained rows; ``n_evaluations`` is per row.
    """

    values: np.ndarray
    base_values: np.ndarray
    data: np.ndarray
    feature_names: tuple[str, ...]
    method: str
    n_evaluations: np.ndarray
    std_errors: np.ndarray | None = None
    info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", _frozen(self.values))
        object.__setattr__(self, "base_values", _frozen(self.base_values))
        object.__setattr__(self, "data", _frozen(self.data))
        n_eval = np.array(self.n_evaluations, dtype=np.int64, copy=True)
        n_eval.setflags(write=False)
        object.__setattr__(self, "n_evaluations", n_eval)
        if self.std_errors is not None:
            object.__setattr__(self, "std_errors", _frozen(self.std_errors))
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        object.__setattr__(self, "info", dict(self.info))

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, row: int) -> Attribution:
        return Attribution(
            values=self.values[row], baseline=self.base_values[row], feature_names=self.feature_names,
            n_evaluations=int(self.n_evaluations[row]), method=self.method,
            std_errors=None if self.std_errors is None else self.std_errors[row], info=self.info,
        )

    def global_importance(self) -> np.ndarray:
        """Mean absolute value per feature over the rows."""
        return np.abs(self.values).mean(axis=0)

    def __repr__(self) -> str:
        return (
            f"Explanation(method={self.method!r}, rows={len(self)}, n_features={len(self.feature_names)})\n"
            "mean |value|:\n" + _format_table(self.feature_names, self.global_importance())
        )


# ---------------------------------------------------------------------------------------------------- on disk
# Saving, loading and converting (implemented in interplay.io), attached to every result class.
def _save(self, path):
    """Write this result to ``path`` (``.json`` or ``.npz``); see :func:`interplay.io.save`."""
    from .io import save

    return save(self, path)


def _load(cls, path):
    """Read a result of this class written by ``save`` (no pickle); see :func:`interplay.io.load`."""
    from .io import load

    result = load(path)
    if not isinstance(result, cls):
        raise TypeError(f"{str(path)!r} holds a {type(result).__name__}, not a {cls.__name__}")
    return result


def _to_shap(self):
    """This result as a ``shap.Explanation`` (needs shap); see :func:`interplay.io.to_shap`."""
    from .io import to_shap

    return to_shap(self)


def _to_shapiq(self):
    """This result as a ``shapiq.InteractionValues`` (needs shapiq); see :func:`interplay.io.to_shapiq`."""
    from .io import to_shapiq

    return to_shapiq(self)


for _cls in (Attribution, Interactions, BivariateExplanation, Explanation):
    _cls.save = _save
    _cls.load = classmethod(_load)
for _cls in (Attribution, BivariateExplanation, Explanation):
    _cls.to_shap = _to_shap
for _cls in (Attribution, Interactions, BivariateExplanation):
    _cls.to_shapiq = _to_shapiq
del _cls
