"""Result objects: immutable, numpy arrays inside, feature names attached, evaluations recorded."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np


def _frozen(array, name: str | None = None, shape: tuple | None = None) -> np.ndarray:
    """A read-only float copy; with ``shape``, checked to have it (``name`` in the error)."""
    out = np.array(array, dtype=float, copy=True)
    if shape is not None and out.shape != shape:
        raise ValueError(f"{name}: expected shape {shape} (one per feature{', per row' if len(shape) > 1 else ''}), "
                         f"got {out.shape}")
    out.setflags(write=False)
    return out


def _data_array(data) -> np.ndarray | None:
    """Feature values as given: a float array when every value is a number, else an object array (strings of
    raw categorical columns kept as they are). Read-only."""
    if data is None:
        return None
    arr = np.asarray(data)
    if arr.dtype.kind in "biuf":
        out = arr.astype(float, copy=True)
    elif arr.dtype == object and all(v is None or (isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
                                     for v in arr.ravel()):
        out = np.array([np.nan if v is None else float(v) for v in arr.ravel()], dtype=float).reshape(arr.shape)
    else:
        out = np.empty(arr.size, dtype=object)
        out[:] = [v.item() if isinstance(v, np.generic) else v for v in arr.ravel()]
        out = out.reshape(arr.shape)
    out.setflags(write=False)
    return out


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas() needs pandas: pip install pandas") from None
    return pandas


def _format_table(names, values, *, limit: int = 10) -> str:
    """The ``limit`` largest ``|values|`` with their names, one a line, and how many more are left out."""
    order = np.argsort(-np.abs(values), kind="stable")[:limit]
    width = max([len(str(names[i])) for i in order] + [4])
    lines = [f"  {str(names[i]):<{width}}  {values[i]: .6g}" for i in order]
    if len(values) > len(order):
        lines.append(f"  ... {len(values) - len(order)} more (top {len(order)} by |value| shown)")
    return "\n".join(lines)


def _format_matrix(names, matrix, *, limit: int = 10) -> str:
    """The square ``matrix`` with its rows and columns named (names cut to 10 characters, round-off below 1e-12 of
    the largest entry shown as 0), the ``limit`` first features only (how many more are left out said)."""
    shown = min(limit, len(names))
    short = [str(name) if len(str(name)) <= 10 else str(name)[:9] + "~" for name in names[:shown]]
    width = max([len(name) for name in short] + [6])
    tiny = 1e-12 * float(np.nanmax(np.abs(matrix), initial=0.0))  # round-off shown as 0, as numpy prints it
    cells = [[f"{0.0 if abs(matrix[i, j]) <= tiny else matrix[i, j]:.4g}" for j in range(shown)]
             for i in range(shown)]
    column = max([len(name) for name in short] + [len(c) for row in cells for c in row])
    lines = ["  " + " " * width + "  " + "  ".join(f"{name:>{column}}" for name in short)]
    lines += [f"  {short[i]:<{width}}  " + "  ".join(f"{c:>{column}}" for c in row) for i, row in enumerate(cells)]
    if len(names) > shown:
        lines.append(f"  ... {len(names) - shown} more features (to_pandas() or .adjacency for all)")
    return "\n".join(lines)


def group_data(rows, groups) -> np.ndarray:
    """Feature values of ``rows`` (``(m, n_columns)``, the input columns) with one column per feature of
    ``groups`` (per feature, its column indices): a one-column feature takes that column's values; a feature of
    several columns (or of none known) has no single value: NaN (None in an object array of raw values)."""
    rows = np.asarray(rows)
    out = np.empty((len(rows), len(groups)), dtype=object if rows.dtype == object else float)
    for g, cols in enumerate(groups):
        if len(cols) == 1:
            out[:, g] = rows[:, cols[0]]
        else:
            out[:, g] = None if out.dtype == object else np.nan
    return out


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
    data: np.ndarray | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        d = len(self.feature_names)
        object.__setattr__(self, "values", _frozen(self.values, "values", (d,)))
        if self.std_errors is not None:
            object.__setattr__(self, "std_errors", _frozen(self.std_errors, "std_errors", (d,)))
        object.__setattr__(self, "baseline", float(self.baseline))
        object.__setattr__(self, "n_evaluations", int(self.n_evaluations))
        object.__setattr__(self, "info", dict(self.info))
        object.__setattr__(self, "data", _data_array(self.data))

    @property
    def n_features(self) -> int:
        return len(self.values)

    def __len__(self) -> int:
        return len(self.values)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """``np.asarray(attribution)`` is its ``values``."""
        return np.array(self.values, dtype=dtype)

    def __getitem__(self, feature) -> float:
        return float(self.values[_feature_index(feature, self.feature_names)])

    def to_pandas(self):
        """The values as a pandas Series indexed by feature name, named after the method (an aggregate over rows,
        e.g. ``Explanation.global_importance()``, after what it holds: ``"mean |value|"``)."""
        return _pandas().Series(np.array(self.values), index=list(self.feature_names),
                                name=self.info.get("aggregate", self.method))

    def ranking(self) -> list[str]:
        """Feature names from the largest to the smallest absolute value."""
        return [self.feature_names[i] for i in np.argsort(-np.abs(self.values), kind="stable")]

    def __repr__(self) -> str:
        if "aggregate" in self.info:  # e.g. Explanation.global_importance()
            return (f"Attribution({self.info['aggregate']} over {self.info.get('rows', '?')} rows, "
                    f"method={self.method!r}, n_features={self.n_features})\n"
                    + _format_table(self.feature_names, self.values))
        return (
            f"Attribution(method={self.method!r}, n_features={self.n_features}, baseline={self.baseline:.6g}, "
            f"sum={self.values.sum():.6g}, n_evaluations={self.n_evaluations})\n"
            + _format_table(self.feature_names, self.values)
        )


def rows_std_errors(attributions: list, exact: list[bool]) -> np.ndarray:
    """``(m, d)`` standard errors of rows of which some have none (``method="auto"``: rows whose null players
    leave few features are enumerated beside sampled ones): exactly 0 for an exact row, NaN for another."""
    return np.array([a.std_errors if a.std_errors is not None else np.zeros(len(a.values)) if e
                     else np.full(len(a.values), np.nan) for a, e in zip(attributions, exact)], dtype=float)


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
        # plain Python numbers, as Attribution keeps them (baseline was numpy's float64, changed by a save/load)
        object.__setattr__(self, "baseline", float(self.baseline))
        object.__setattr__(self, "n_evaluations", int(self.n_evaluations))

    def __getstate__(self) -> dict:
        """Picklable (``pickle``, ``copy.deepcopy``, ``multiprocessing``): the read-only views as plain dicts."""
        state = dict(self.__dict__)
        for name in ("values", "std_errors"):
            if state.get(name) is not None:
                state[name] = dict(state[name])
        return state

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            if name in ("values", "std_errors") and value is not None:
                value = MappingProxyType(dict(value))
            object.__setattr__(self, name, value)

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

    def larger_subsets(self) -> tuple[int, float]:
        """How many subsets of 3 or more features this result holds, and their largest ``|value|`` (``(0, 0.0)``
        up to order 2): what ``matrix``, ``to_pandas(tidy=False)``, ``graph()`` and ``ip.plot.heatmap`` leave
        out."""
        larger = [abs(v) for key, v in self.values.items() if len(key) > 2]
        return len(larger), float(max(larger, default=0.0))

    def larger_subsets_note(self) -> str:
        """``""`` up to order 2; above, a phrase naming the subsets a pairwise view leaves out, e.g. ``"20 subsets
        of 3 features (largest |value| 5) left out"``."""
        count, top = self.larger_subsets()
        if not count:
            return ""
        sizes = "3 features" if self.order == 3 else f"3 to {self.order} features"
        return f"{count} subsets of {sizes} (largest |value| {top:.3g}) left out"

    @property
    def matrix(self) -> np.ndarray:
        """Symmetric ``(n, n)`` matrix: pairs off the diagonal, order-1 values on it (0 where undefined). Above
        order 2 it holds no subset of 3 or more features (:meth:`larger_subsets` says how many and how large;
        ``to_pandas()``, tidy, keeps them)."""
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
        from ._validation import check_int

        size = check_int(size, "size")  # ("2" failed comparing str with int)
        if not 1 <= size <= self.order:
            raise ValueError(f"size: this result holds subsets of 1 to {self.order} features, got size={size}")
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
            raise ValueError(f"k: expected a number of subsets (an integer >= 0), got {k!r}")
        items = [(key, v) for key, v in self.values.items() if len(key) == size]
        items.sort(key=lambda kv: -abs(kv[1]))
        return [(tuple(self.feature_names[i] for i in key), v) for key, v in items[:k]]

    def to_pandas(self, tidy: bool | None = None):
        """The pairwise ``matrix`` as a DataFrame with feature names on both axes (above order 2 a warning says
        how many larger subsets it leaves out); ``tidy=True`` (the default above order 2, where a matrix would
        drop the larger subsets): one row per subset (columns ``features``, ``order``, ``value`` and
        ``std_error`` when estimated), every order kept."""
        from ._validation import check_bool

        tidy = check_bool(tidy, "tidy", allow_none=True)
        pd = _pandas()
        names = list(self.feature_names)
        if tidy is None:
            tidy = self.order > 2
        if not tidy:
            note = self.larger_subsets_note()
            if note:
                import warnings

                warnings.warn(f"to_pandas(tidy=False): the pairwise matrix of this order-{self.order} "
                              f"{self.index} result has {note}; to_pandas() (tidy) keeps every subset",
                              UserWarning, stacklevel=2)
            return pd.DataFrame(np.array(self.matrix), index=pd.Index(names, name="feature"),
                                columns=pd.Index(names, name="feature"))
        keys = list(self.values)
        table = {"features": [" x ".join(names[i] for i in k) for k in keys], "order": [len(k) for k in keys],
                 "value": [self.values[k] for k in keys]}
        if self.std_errors is not None:
            table["std_error"] = [self.std_errors.get(k, np.nan) for k in keys]
        return pd.DataFrame(table)

    def graph(self):
        """Symmetric explanation graph of the pairwise values (``matrix`` off the diagonal; order-1 values as
        ``univariate``): an :class:`interplay.graph.ExplanationGraph` whose ``interaction_index`` is this index.
        ``describe()`` names the strongest interactions; the redundancy analysis (``redundancy()``, ``sinks()``,
        ``sources()``, ``no_effect()``) is refused, since a pair value near 0 means the two effects add up, not
        that one feature replaces the other (that needs :meth:`BivariateExplanation.graph`). The Bivariate Shapley
        paper's Section 5 structural comparison: ``RedundancyGraph.from_weights(graph.weights, gamma)``."""
        from .graph.explanation import from_interactions

        return from_interactions(self)

    def __repr__(self) -> str:
        size = min(2, self.order)
        lines = [f"  {' x '.join(names)}: {v: .6g}" for names, v in self.top(10, size)]
        total = sum(1 for key in self.values if len(key) == size)
        if total > len(lines):
            lines.append(f"  ... {total - len(lines)} more {'pairs' if size == 2 else 'features'} "
                         f"(top {len(lines)} by |value| shown)")
        count, top = self.larger_subsets()
        if count:
            sizes = "3 features" if self.order == 3 else f"3 to {self.order} features"
            lines.append(f"  + {count} subsets of {sizes}, largest |value| {top:.6g} (top(k, size=3), "
                         "to_pandas())")
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
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        d = len(self.feature_names)
        adjacency = _frozen(self.adjacency, "adjacency", (d, d)).copy()
        np.fill_diagonal(adjacency, 0.0)
        object.__setattr__(self, "adjacency", _frozen(adjacency))
        if self.std_errors is not None:
            object.__setattr__(self, "std_errors", _frozen(self.std_errors, "std_errors", (d, d)))
        object.__setattr__(self, "info", dict(self.info))

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def e2(self) -> np.ndarray:
        """The matrix ``E2`` of Eq. 6 itself: ``E2[i, j]`` = importance of ``i`` when ``j`` is present."""
        return self.adjacency.T

    def to_pandas(self):
        """``adjacency`` as a DataFrame: row ``i`` (the feature present), column ``j`` (the feature whose
        importance it is), feature names on both axes."""
        pd = _pandas()
        names = list(self.feature_names)
        return pd.DataFrame(np.array(self.adjacency), index=pd.Index(names, name="present"),
                            columns=pd.Index(names, name="importance of"))

    def graph(self):
        """The directed explanation graph G (edge ``i -> j`` weighted by ``adjacency[i, j]``, no self-loops): an
        :class:`interplay.graph.ExplanationGraph` with ``.redundancy(gamma)`` (features with no effect set aside:
        ``.no_effect()``), ``.describe()``, ``.pagerank()``, ``.gamma_sweep()``."""
        from .graph.explanation import from_bivariate

        return from_bivariate(self)

    def __repr__(self) -> str:
        return (
            f"BivariateExplanation(method={self.method!r}, n_features={self.n_features}, "
            f"n_evaluations={self.n_evaluations}); row i, column j: the importance of j when i is present\n"
            + _format_matrix(self.feature_names, np.asarray(self.adjacency))
        )


# info entries with one item per row: sliced with the rows
_PER_ROW_INFO = ("index", "targets", "raw_data", "rows", "predictions", "explained_outputs", "adjacency",
                 "null_players", "methods", "estimators")


def _row_selection(key, m: int):
    """``key`` (int, slice, boolean mask, integer indices) as an int or an index array over ``m`` rows."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        if not -m <= key < m:
            raise IndexError(f"row index {key} out of range for {m} rows")
        return int(key) % m
    if isinstance(key, slice):
        return np.arange(m)[key]
    arr = np.asarray(key)
    if arr.dtype == bool:
        if arr.shape != (m,):
            raise IndexError(f"rows: a boolean mask needs {m} entries (one per row), got shape {arr.shape}")
        return np.flatnonzero(arr)
    if arr.ndim == 1 and (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        if arr.size and not ((arr >= -m) & (arr < m)).all():
            raise IndexError(f"rows: indices {arr.tolist()} out of range for {m} rows")
        return arr.astype(np.int64) % max(m, 1)
    raise TypeError(f"rows: expected an int, a slice, a boolean mask or integer indices, got {key!r}")


def _feature_selection(key, names: tuple[str, ...]):
    """``key`` (name, int, slice, boolean mask, list of names/indices) as an int or an index array."""
    if isinstance(key, (str, int, np.integer)) and not isinstance(key, (bool, np.bool_)):
        return _feature_index(key, names)
    if isinstance(key, slice):
        return np.arange(len(names))[key]
    items = list(key) if isinstance(key, (list, tuple, np.ndarray)) else None
    if items is None:
        raise TypeError(f"features: expected a name, an int, a slice, a boolean mask or a list, got {key!r}")
    if items and all(isinstance(v, (bool, np.bool_)) for v in items):
        if len(items) != len(names):
            raise IndexError(f"features: a boolean mask needs {len(names)} entries, got {len(items)}")
        return np.flatnonzero(items)
    return np.array([_feature_index(v, names) for v in items], dtype=np.int64)


def _scalar(value):
    return value.item() if isinstance(value, np.generic) else value


@dataclass(frozen=True, eq=False)
class Explanation:
    """Attributions of many rows, a table like shap's ``Explanation``: ``values`` is ``(m, d)``, ``base_values``
    ``(m,)`` (``v(empty)`` per row), ``data`` the explained rows' feature values as given (floats, or an object
    array keeping strings of raw categorical columns), one column per feature in the features' order (with
    ``groups=``: a one-column group's values, NaN for a group of several columns, listed in ``info["groups"]``);
    ``n_evaluations`` is per row.

    Select like a table: ``expl[3]`` (one row: an :class:`Attribution` with its ``data``), ``expl[:5]``,
    ``expl[mask]``, ``expl[:, "age"]``, ``expl[:, 2]``, ``expl[[0, 3], ["age", "sex"]]``. A selection of rows or
    features stays an Explanation (2-D, like ``df[["age"]]``); ``expl[i, "age"]`` is a float. ``to_pandas()``
    gives the values as a DataFrame indexed like the input rows (``info["index"]``, when they had an index).
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
        object.__setattr__(self, "feature_names", tuple(self.feature_names))
        values = _frozen(self.values)
        rows = len(values) if values.ndim else 0
        if values.shape != (rows, len(self.feature_names)):
            raise ValueError(f"values: expected shape {(rows, len(self.feature_names))} (one per feature, per row), "
                             f"got {values.shape}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "base_values", _frozen(self.base_values, "base_values", (rows,)))
        object.__setattr__(self, "data", _data_array(self.data))
        n_eval = np.array(self.n_evaluations, dtype=np.int64, copy=True)
        n_eval.setflags(write=False)
        object.__setattr__(self, "n_evaluations", n_eval)
        if self.std_errors is not None:
            object.__setattr__(self, "std_errors", _frozen(self.std_errors, "std_errors", self.values.shape))
        object.__setattr__(self, "info", dict(self.info))

    def __len__(self) -> int:
        return len(self.values)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def _data_aligned(self) -> bool:
        """Whether ``data`` has one column per feature (results of ``Explainer`` always; a run with ``groups=``
        loaded by ``load_run`` keeps its input columns)."""
        return self.data is not None and self.data.ndim == 2 and self.data.shape[1] == self.n_features

    def __getitem__(self, key):
        if isinstance(key, tuple) and len(key) != 2:
            raise IndexError(f"expected expl[rows] or expl[rows, features], got {len(key)} indices")
        rows, features = key if isinstance(key, tuple) else (key, slice(None))
        r = _row_selection(rows, len(self))
        f = _feature_selection(features, self.feature_names)
        if np.ndim(r) == 0 and np.ndim(f) == 0:
            return float(self.values[r, f])
        cols = np.atleast_1d(f)
        data_cols = cols if self._data_aligned else slice(None)
        std = None if self.std_errors is None else self.std_errors[r][..., cols]
        names = tuple(self.feature_names[j] for j in cols)
        if np.ndim(r) == 0:
            methods = self.info.get("methods")  # method="auto" whose rows chose differently: the row's own
            method = self.method if not isinstance(methods, list) or len(methods) != len(self) else methods[r]
            return Attribution(values=self.values[r, cols], baseline=self.base_values[r], feature_names=names,
                               n_evaluations=int(self.n_evaluations[r]), method=method or self.method,
                               std_errors=std,
                               info=self._row_info(r, cols),
                               data=None if self.data is None else self.data[r, data_cols])
        return replace(self, values=self.values[np.ix_(r, cols)], base_values=self.base_values[r],
                       data=None if self.data is None else self.data[r][:, data_cols], feature_names=names,
                       n_evaluations=self.n_evaluations[r],
                       std_errors=std, info=self._sliced_info(r, cols))

    def _sliced_info(self, rows, cols) -> dict:
        info = dict(self.info)
        if "index" not in info and "rows" not in info:  # rows of an array: their positions, so that a slice
            info["index"] = list(range(len(self)))      # keeps which rows it holds (expl[2:4][0] is row 2)
        for key in _PER_ROW_INFO:
            value = info.get(key)
            if isinstance(value, (list, tuple, np.ndarray)) and len(value) == len(self):
                if isinstance(value, np.ndarray):
                    value = value[rows]
                    if key == "adjacency" and value.ndim == 3:
                        value = value[:, cols][:, :, cols]
                    info[key] = value
                else:
                    info[key] = [value[i] for i in np.atleast_1d(rows)]
        if isinstance(info.get("null_players"), list) and len(info["null_players"]) == len(np.atleast_1d(rows)):
            kept = {self.feature_names[j] for j in np.atleast_1d(cols)}
            info["null_players"] = [[name for name in names if name in kept] for names in info["null_players"]]
        return info

    def _row_info(self, row: int, cols) -> dict:
        """A row's info: per-row entries become that row's entry (``index`` -> ``row``, ``targets`` -> ``target``)."""
        info = {k: v for k, v in self.info.items() if k not in _PER_ROW_INFO}
        for key, single in (("index", "row"), ("targets", "target"), ("raw_data", "raw_data"),
                            ("predictions", "prediction"), ("explained_outputs", "explained_output")):
            value = self.info.get(key)
            if isinstance(value, (list, tuple, np.ndarray)) and len(value) == len(self) and value[row] is not None:
                info[single] = _scalar(value[row])
        own = self.info.get("estimators")
        if isinstance(own, list) and len(own) == len(self) and isinstance(own[row], dict):
            info.update({k: v for k, v in own[row].items() if k not in info})  # what the row's estimator said
        null = self.info.get("null_players")
        if isinstance(null, list) and len(null) == len(self):  # the row's null players among its columns
            kept = {self.feature_names[j] for j in np.atleast_1d(cols)}
            info["null_players"] = [name for name in null[row] if name in kept]
        if "row" not in info:
            info["row"] = row
        return info

    def global_importance(self) -> Attribution:
        """Mean ``|value|`` per feature over the rows, as a named :class:`Attribution` (``gi["age"]``,
        ``gi.ranking()``, ``gi.to_pandas()``, ``np.asarray(gi)``; ``baseline`` is the mean base value)."""
        return self._aggregate(lambda: np.abs(self.values).mean(axis=0), "mean |value|")

    def mean_attribution(self) -> Attribution:
        """Mean signed value per feature and mean base value over the rows (a named :class:`Attribution`)."""
        return self._aggregate(lambda: self.values.mean(axis=0), "mean value")

    def _aggregate(self, compute, what: str) -> Attribution:
        if len(self) == 0:  # before any mean: no numpy warning ahead of the error
            raise ValueError("explanation: has no row to aggregate")
        values = compute()
        info = {k: v for k, v in self.info.items() if k not in _PER_ROW_INFO}
        return Attribution(values, float(self.base_values.mean()), self.feature_names,
                           int(self.n_evaluations.sum()), self.method, info={**info, "aggregate": what,
                                                                             "rows": len(self)})

    def _index(self):
        pd = _pandas()
        index = self.info.get("index")
        if isinstance(index, (list, tuple, np.ndarray)) and len(index) == len(self):
            return pd.Index(list(index), name=self.info.get("index_name"))
        return pd.RangeIndex(len(self), name="row")

    def to_pandas(self, tidy: bool = False, data: bool = False):
        """The values as a DataFrame (rows indexed like the input rows, one column per feature).

        ``data=True``: the explained rows' feature values instead. ``tidy=True``: one row per (row, feature),
        columns ``row``, ``feature``, ``value``, ``data`` (when it has one column per feature), ``base_value``,
        ``std_error`` (when estimated) and ``target`` (when the rows explain different classes,
        ``target="predicted"``: each row's class, from ``info["targets"]``).
        """
        from ._validation import check_bool

        tidy, data = check_bool(tidy, "tidy"), check_bool(data, "data")
        pd = _pandas()
        index = self._index()
        if data:
            if self.data is None:
                raise ValueError("explanation: holds no feature values (.data)")
            names = list(self.feature_names) if self._data_aligned else [f"column{k}" for k in
                                                                          range(self.data.shape[1])]
            frame = pd.DataFrame(np.array(self.data), index=index, columns=names)
            # raw categorical values make .data an object array: its numeric columns become numbers again
            return frame.infer_objects() if self.data.dtype == object else frame
        if not tidy:
            return pd.DataFrame(np.array(self.values), index=index, columns=list(self.feature_names))
        m, d = self.values.shape
        table = {"row": np.repeat(np.asarray(index), d), "feature": np.tile(np.array(self.feature_names,
                                                                                     dtype=object), m),
                 "value": self.values.ravel()}
        if self._data_aligned:
            table["data"] = np.array(self.data, dtype=object).ravel() if self.data.dtype == object \
                else self.data.ravel()
        table["base_value"] = np.repeat(self.base_values, d)
        if self.std_errors is not None:
            table["std_error"] = self.std_errors.ravel()
        targets = self.info.get("targets")
        if isinstance(targets, (list, tuple, np.ndarray)) and len(targets) == m and len(
                {t.item() if isinstance(t, np.generic) else t for t in targets}) > 1:  # the class of each row
            table["target"] = np.repeat(np.array(list(targets), dtype=object), d)
        return pd.DataFrame(table)

    def __repr__(self) -> str:
        return (
            f"Explanation(method={self.method!r}, rows={len(self)}, n_features={len(self.feature_names)})\n"
            "mean |value|:\n" + (_format_table(self.feature_names, np.abs(self.values).mean(axis=0))
                                 if len(self) else "  (no rows)")
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


def _to_shap(self, pixels: bool | None = None):
    """This result as a ``shap.Explanation`` (needs shap); see :func:`interplay.io.to_shap` (``pixels``: an image
    result at pixel level, for ``shap.plots.image``, or per region)."""
    from .io import to_shap

    return to_shap(self, pixels=pixels)


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


def _rows_to_shapiq(self) -> list:
    """One ``shapiq.InteractionValues`` per row (``expl[i].to_shapiq()``), a list as shapiq's ``explain_X``
    returns (needs shapiq)."""
    return [self[i].to_shapiq() for i in range(len(self))]


Explanation.to_shapiq = _rows_to_shapiq
