"""What the trees see: the Explainer's rows (raw DataFrame columns included) as the tree model's own inputs.

Three cases, found once per Explainer (:func:`tree_inputs`):

- numeric columns fed straight to the trees: the rows are the trees' inputs;
- pandas categorical columns of a model that splits on them (XGBoost ``enable_categorical``, LightGBM
  ``categorical_feature``): each category becomes the model's own code (the categories it was trained with,
  as stored by the model; unknown and missing values become NaN, which the trees send where the library does);
- a scikit-learn Pipeline whose last step is a tree model, whose earlier steps transform every input column on
  its own (``ColumnTransformer`` of one-hot/ordinal encoders, scalers, imputers, passthrough): the trees split
  on transformed columns, each owned by one raw column. The raw columns are explained exactly: for a batch of
  rows and background rows, each raw column's distinct values get codes ``0..m-1``, and every node splitting
  on a column owned by raw column ``j`` becomes a categorical node on ``j`` whose left set is the codes whose
  transformed value goes left (evaluated with the trees' own rule on the transformed distinct values). The
  coded ensemble computes the same function as the Pipeline on every hybrid row ``(x_S, b_-S)``, so
  interventional and path-dependent TreeSHAP of the coded ensemble are those of the Pipeline on raw columns.
  Cost: one ``transform`` of ``max_j m_j`` rows and ``nodes * max_j m_j`` comparisons per batch.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from ..models.adapters import category_codes
from ..models.categories import training_categories
from . import _kernels as K
from .ensemble import TreeEnsemble
from .parsers import as_ensemble, xgb_missing_value

_ONE_TO_ONE = {"StandardScaler", "MinMaxScaler", "MaxAbsScaler", "RobustScaler", "OrdinalEncoder", "SimpleImputer",
               "PowerTransformer", "QuantileTransformer", "TargetEncoder", "KBinsDiscretizer"}


@dataclass
class TreeInputs:
    """The trees (``ensemble``, over the tree model's own columns) and how rows reach them: ``encode`` (raw
    rows -> the trees' numeric columns, or None: the rows are numeric already) and ``owner`` (for Pipelines:
    the raw column each of the trees' columns is computed from)."""

    ensemble: TreeEnsemble
    n_columns: int
    encode: Callable[[np.ndarray], np.ndarray] | None = None
    owner: np.ndarray | None = None

    def prepared(self, rows: np.ndarray, background: np.ndarray) -> tuple[TreeEnsemble, np.ndarray, np.ndarray]:
        """``(ensemble, X, B)``: an ensemble over the Explainer's columns and the rows and background rows as
        its numeric inputs."""
        if self.owner is None:
            if self.encode is None:
                return self.ensemble, np.asarray(rows, dtype=float), np.asarray(background, dtype=float)
            return self.ensemble, self.encode(rows), self.encode(background)
        return _coded(self.ensemble, self.owner, self.encode, rows, background, self.n_columns)


def _as_missing(sentinel: float, encode: Callable[[np.ndarray], np.ndarray] | None):
    """Rows -> the trees' inputs with ``sentinel`` (XGBoost's ``missing=``) as NaN, after ``encode`` if any."""
    def encoded(rows: np.ndarray) -> np.ndarray:
        values = np.array(rows if encode is None else encode(rows), dtype=float)
        values[values == sentinel] = np.nan
        return values
    return encoded


def tree_inputs(explainer) -> TreeInputs:
    """Read the Explainer's model into :class:`TreeInputs` (cached on the Explainer)."""
    cached = explainer.__dict__.get("_tree_inputs")
    if cached is not None:
        return cached
    model = explainer.model
    source = explainer._model_source()
    n_columns = explainer.n_columns
    steps = getattr(source, "steps", None)
    if steps is not None and type(source).__name__ == "Pipeline":
        *pre, (_, last) = steps
        if xgb_missing_value(last) is not None:
            raise ValueError(f"model: the Pipeline's {type(last).__name__} reads missing={last.missing!r} as missing "
                             "after the Pipeline's steps; the tree methods do not follow that: use a sampling method")
        ensemble = as_ensemble(last)
        transform = _pipeline_transform(source, model)
        owner = _owners(pre, n_columns)
        if len(owner) != ensemble.n_features:
            raise ValueError(f"model: the Pipeline's steps give {len(owner)} columns, its trees use "
                             f"{ensemble.n_features}")
        inputs = TreeInputs(ensemble, n_columns, transform, owner)
    else:
        ensemble = as_ensemble(source)
        if n_columns is not None and ensemble.n_features != n_columns:
            raise ValueError(f"model: the trees use {ensemble.n_features} features, the data has {n_columns}")
        encode = _category_codes(source, model) if explainer.raw else None
        sentinel = xgb_missing_value(source)
        if sentinel is not None:  # XGBoost(missing=-999): that value takes the trees' missing-value branches
            encode = _as_missing(sentinel, encode)
        inputs = TreeInputs(ensemble, ensemble.n_features, encode)
    explainer.__dict__["_tree_inputs"] = inputs
    return inputs


# ------------------------------------------------------------------------------------------ categorical codes
def _category_codes(source: Any, model) -> Callable[[np.ndarray], np.ndarray]:
    """Raw rows -> numeric rows with each categorical value replaced by the model's own category code."""
    import pandas as pd

    columns = model.columns
    known = training_categories(source, model) if columns is not None else {}

    def encode(rows: np.ndarray) -> np.ndarray:
        frame = model._as_input(rows)
        out = np.empty(frame.shape, dtype=float)
        for j, name in enumerate(frame.columns):
            col = frame[name]
            if isinstance(col.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(col.dtype):
                categories = known.get(str(name))
                if categories is None:
                    if not isinstance(col.dtype, pd.CategoricalDtype):
                        raise ValueError(f"background: column {name!r} is not numeric and the model does not "
                                         "split on it as a category; method='tree' needs the trees' own encoding")
                    categories = list(col.cat.categories)
                # (pd.Categorical of values outside the categories is deprecated: it will raise)
                codes = category_codes(np.asarray(col, dtype=object), pd.Index(categories))
                out[:, j] = np.where(codes < 0, np.nan, codes)
            else:
                out[:, j] = col.to_numpy(dtype=float, na_value=np.nan)
        return out

    return encode


# ------------------------------------------------------------------------------------------ Pipelines
def _pipeline_transform(pipeline, model) -> Callable[[np.ndarray], np.ndarray]:
    """Raw rows -> the matrix the Pipeline's last step receives. A sparse matrix is made dense as the tree
    library reads it: XGBoost takes the entries a sparse matrix does not store as missing values, the others
    as zeros."""
    pre = pipeline[:-1]
    absent_is_missing = type(pipeline.steps[-1][1]).__module__.startswith("xgboost")

    def transform(rows: np.ndarray) -> np.ndarray:
        out = pre.transform(model._as_input(rows))
        if hasattr(out, "tocoo"):
            coo = out.tocoo()
            dense = np.full(coo.shape, np.nan if absent_is_missing else 0.0)
            dense[coo.row, coo.col] = coo.data
            return dense
        return np.asarray(out, dtype=float)

    return transform


def _owners(steps: list, n_in: int) -> np.ndarray:
    """For each column the transformer steps output, the input column it is computed from (ValueError when a
    step mixes columns)."""
    owner = np.arange(n_in)
    for name, step in steps:
        owner = owner[_step_owners(name, step, len(owner))]
    return owner


def _step_owners(name: str, step: Any, n_in: int) -> np.ndarray:
    if (step is None or (isinstance(step, str) and step == "passthrough")
            or (type(step).__name__ == "FunctionTransformer" and step.func is None)):  # identity
        return np.arange(n_in)
    kind = type(step).__name__
    if kind == "Pipeline":
        return _owners(step.steps, n_in)
    if kind == "ColumnTransformer":
        return _column_transformer_owners(step, n_in)
    if kind == "OneHotEncoder":
        counts = getattr(step, "_n_features_outs", None)
        if counts is None:
            counts = [len(c) for c in step.categories_]
        return np.repeat(np.arange(n_in), counts)
    if kind in _ONE_TO_ONE and not getattr(step, "add_indicator", False):
        n_out = len(step.get_feature_names_out()) if hasattr(step, "get_feature_names_out") else n_in
        if n_out == n_in and not (kind == "KBinsDiscretizer" and step.encode != "ordinal"):
            return np.arange(n_in)
    raise ValueError(f"model: method='tree' explains a Pipeline's trees on its raw columns when every step "
                     f"transforms each column on its own (one-hot, ordinal, scaling, imputing); step {name!r} "
                     f"({kind}) is not known to do so: use a sampling method (method='auto' picks one)")


def _column_transformer_owners(ct: Any, n_in: int) -> np.ndarray:
    inputs = getattr(ct, "_transformer_to_input_indices", None)
    if inputs is None:
        raise ValueError("model: this scikit-learn version's ColumnTransformer does not record its columns")
    n_out = max((s.stop for s in ct.output_indices_.values()), default=0)
    owner = np.full(n_out, -1, dtype=np.int64)
    for name, trans, _ in ct.transformers_:
        span = ct.output_indices_.get(name)
        if span is None or span.stop == span.start:
            continue
        idx = np.asarray(inputs[name], dtype=np.int64)
        owner[span] = idx[_step_owners(name, trans, len(idx))]
    if np.any(owner < 0):
        raise ValueError("model: could not map every column of the ColumnTransformer to an input column")
    return owner


def _factorize(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, distinct values)``; missing values are one distinct value of their own."""
    import pandas as pd

    codes, uniques = pd.factorize(pd.Series(column, dtype=object), use_na_sentinel=False)
    return codes.astype(float), np.asarray(uniques, dtype=object)


def _coded(ensemble: TreeEnsemble, owner: np.ndarray, transform, rows: np.ndarray, background: np.ndarray,
           n_columns: int) -> tuple[TreeEnsemble, np.ndarray, np.ndarray]:
    """The coded ensemble of the module docstring, and the rows and background rows as codes."""
    both = np.concatenate([np.asarray(rows, dtype=object), np.asarray(background, dtype=object)])
    codes = np.empty(both.shape, dtype=float)
    distinct = []
    for j in range(n_columns):
        codes[:, j], uniques = _factorize(both[:, j])
        distinct.append(uniques)
    m = max(len(u) for u in distinct)
    table = np.empty((m, n_columns), dtype=object)
    for j, uniques in enumerate(distinct):
        table[:, j] = uniques[np.minimum(np.arange(m), len(uniques) - 1)]  # padded with a real value
    values = ensemble.prepare(transform(table))
    K.announce_compilation(K._directions)
    goes_left = K._directions(values, 0, ensemble.n_nodes, *ensemble.arrays()[:2], ensemble.default_left,
                              ensemble.decision, ensemble.missing, ensemble.cat_bits)  # (m, nodes)
    internal = ensemble.feature >= 0
    width = max(1, (m + 31) // 32)
    padded = np.zeros((ensemble.n_nodes, width * 32), dtype=bool)
    padded[:, :m] = goes_left.T & internal[:, None]
    bits = np.packbits(padded, axis=1, bitorder="little").view("<u4").astype(np.uint32)
    coded = replace(ensemble, feature=np.where(internal, owner[np.maximum(ensemble.feature, 0)], -1),
                    threshold=np.zeros(ensemble.n_nodes), default_left=np.zeros(ensemble.n_nodes, bool),
                    decision=np.where(internal, 2, 0).astype(np.int8),
                    missing=np.zeros(ensemble.n_nodes, np.int8), cat_bits=bits, float32_inputs=False,
                    n_features=n_columns)
    return coded, codes[:len(rows)], codes[len(rows):]
