"""Read fitted tree models into a :class:`~interplay.trees.ensemble.TreeEnsemble`.

What the ensemble's output is (and hence what the tree methods explain), per family:

=====================================================  ================================================
model                                                  ``TreeEnsemble.output`` (one column per class)
=====================================================  ================================================
DecisionTree/RandomForest/ExtraTrees ``Regressor``     ``"prediction"`` (mean of the trees)
DecisionTree/RandomForest/ExtraTrees ``Classifier``    ``"probability"`` (``predict_proba``: mean of the
                                                       trees' leaf class fractions)
GradientBoosting, HistGradientBoosting (both kinds)    ``"margin"``: the raw score before the link
                                                       (``decision_function``; binary: one column, the
                                                       log-odds of class 1)
XGBoost, LightGBM (sklearn wrappers and ``Booster``)   ``"margin"`` (``output_margin=True`` /
                                                       ``raw_score=True``; binary: log-odds of class 1)
=====================================================  ================================================

Not read (an error says so): XGBoost vector leaves and ``dart``; LightGBM linear trees. Categorical splits
are read on category codes (pandas categorical columns are turned into the model's own codes by
:mod:`interplay.trees.inputs`): LightGBM sends NaN, negative and unseen categories right; HistGradientBoosting
sends them where missing values go; XGBoost sends the listed categories right, the others left and missing
values to its default direction.

For regressors with the identity link (squared error) the margin is the prediction. The constant part
(``init``/``base_score``/``boost_from_average``) is read by comparing the library's own margin with the sum
of the trees on one row, so every objective's link is handled the same way.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from ..models.categories import text_categories
from ..models.tree_kinds import (SKLEARN_BOOSTING, SKLEARN_FORESTS, SKLEARN_HIST_BOOSTING, class_names,
                                  library)
from .ensemble import TreeEnsemble


class _Builder:
    """Collects trees node by node into flat arrays."""

    def __init__(self, n_outputs: int):
        self.n_outputs = n_outputs
        self.parts: dict[str, list] = {k: [] for k in ("feature", "threshold", "left", "right", "default_left",
                                                        "value", "cover", "decision", "missing", "cat_bits")}
        self.roots: list[int] = []
        self.tree_output: list[int] = []
        self.n_nodes = 0

    def add(self, *, feature, threshold, left, right, default_left, value, cover, output=-1, decision=None,
            missing=None, cat_bits=None, sizes=None):
        """One tree, or with ``sizes`` (node counts) several trees given one after another, each numbering its
        children from 0; ``output``: the output column of the tree(s) (one per tree with ``sizes``)."""
        n = len(feature)
        sizes = np.array([n], np.int64) if sizes is None else np.asarray(sizes, np.int64)
        starts = self.n_nodes + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        offset = starts[0] if len(sizes) == 1 else np.repeat(starts, sizes)
        outputs = np.broadcast_to(np.asarray(output, np.int64), (len(sizes),))
        feature = np.asarray(feature, np.int64)
        leaf = feature < 0
        shift = lambda c: np.where(leaf, -1, np.asarray(c, np.int64) + offset)  # noqa: E731
        value = np.asarray(value, float)
        if value.ndim == 1:
            full = np.zeros((n, self.n_outputs))
            column = np.maximum(outputs, 0)
            full[np.arange(n), column[0] if len(sizes) == 1 else np.repeat(column, sizes)] = value
            value = full
        p = self.parts
        p["feature"].append(np.where(leaf, -1, feature))
        p["threshold"].append(np.where(leaf, 0.0, np.asarray(threshold, float)))
        p["left"].append(shift(left))
        p["right"].append(shift(right))
        p["default_left"].append(np.asarray(default_left, bool))
        p["value"].append(np.where(leaf[:, None], value, 0.0))
        p["cover"].append(np.asarray(cover, float))
        p["decision"].append(np.zeros(n, np.int8) if decision is None else np.asarray(decision, np.int8))
        p["missing"].append(np.zeros(n, np.int8) if missing is None else np.asarray(missing, np.int8))
        p["cat_bits"].append(np.zeros((n, 1), np.uint32) if cat_bits is None else np.asarray(cat_bits, np.uint32))
        self.roots.extend(starts.tolist())
        self.tree_output.extend(outputs.tolist())
        self.n_nodes += n

    def build(self, n_features: int, *, base=0.0, **kwargs) -> TreeEnsemble:
        p = self.parts
        width = max(b.shape[1] for b in p["cat_bits"])
        bits = np.concatenate([b if b.shape[1] == width else np.pad(b, ((0, 0), (0, width - b.shape[1])))
                               for b in p["cat_bits"]])
        return TreeEnsemble(
            feature=np.concatenate(p["feature"]), threshold=np.concatenate(p["threshold"]),
            left=np.concatenate(p["left"]), right=np.concatenate(p["right"]),
            default_left=np.concatenate(p["default_left"]), value=np.concatenate(p["value"]),
            cover=np.concatenate(p["cover"]), roots=np.array(self.roots), base=base, n_features=n_features,
            decision=np.concatenate(p["decision"]), missing=np.concatenate(p["missing"]), cat_bits=bits,
            tree_output=np.array(self.tree_output), **kwargs)


def _with_offset(builder: _Builder, n_features: int, margin_fn, *, categories: dict | None = None,
                 first_round: tuple | None = None, **kwargs) -> TreeEnsemble:
    """Build, then set ``base`` = the library's margin minus the sum of the trees (one row of zeros; with
    ``first_round``, see :func:`_single_precision_base`), and check on a few other rows that the arrays
    reproduce the library's margin (catches unsupported model features, e.g. LightGBM linear trees).
    ``categories``: ``{feature: count}`` of categorical features, which get valid category codes in the check
    rows."""
    ensemble = builder.build(n_features, **kwargs)
    rng = np.random.default_rng(0)
    rows = np.vstack([np.zeros((1, n_features)), rng.normal(size=(63, n_features)) * 2])
    for k, count in (categories or {}).items():
        rows[1:, k] = rng.integers(0, max(count, 1), size=len(rows) - 1)
    if first_round is None:
        rows = rows[:9]
        margin = np.asarray(margin_fn(rows), dtype=float).reshape(len(rows), -1)
        base = margin[0] - ensemble.predict(rows[:1])[0]
    else:
        margin = np.asarray(margin_fn(rows), dtype=float).reshape(len(rows), -1)
        base = _single_precision_base(ensemble, rows, *first_round)
    ensemble = builder.build(n_features, base=base, **kwargs)
    error = np.abs(ensemble.predict(rows) - margin).max()
    if not error <= 1e-4 * (1.0 + np.abs(margin).max()):
        raise ValueError(f"model: the tree arrays read from {ensemble.source} do not reproduce its raw output "
                         f"(max difference {error:.3g}); this model uses a feature the tree methods do not read")
    return ensemble


def _single_precision_base(ensemble: TreeEnsemble, rows: np.ndarray, first_margin_fn, first_trees: int):
    """The constant of a library that adds its trees in single precision (XGBoost), per output.

    Its margin minus the exact sum of all trees is off by the rounding of every addition (up to ``trees
    * 2**-24`` times the leaf magnitudes: 1.5e-4 for 200 trees with leaves in the hundreds), an error every
    explanation's base value would carry. With the first round's ``first_trees`` trees only
    (``first_margin_fn``) one addition is rounded: on the row whose first-round margin is smallest, the error
    is at most half a single-precision step of it; the result is rounded to single precision, as the
    library's own constant is."""
    from dataclasses import replace

    first = replace(ensemble, roots=ensemble.roots[:first_trees], tree_output=ensemble.tree_output[:first_trees],
                    base=np.zeros(ensemble.n_outputs))
    margin = np.asarray(first_margin_fn(rows), dtype=float).reshape(len(rows), -1)
    estimates = margin - first.predict(rows)
    best = np.argmin(np.abs(margin), axis=0)  # per output
    return estimates[best, np.arange(estimates.shape[1])].astype(np.float32).astype(np.float64)


# ---------------------------------------------------------------------------------------------- scikit-learn
def _sklearn_tree(builder: _Builder, tree, *, classifier: bool, scale: float, output: int = -1) -> None:
    t = tree.tree_
    value = t.value[:, :, 0] if not classifier else t.value[:, 0, :]
    if classifier:
        value = value / np.maximum(value.sum(axis=1, keepdims=True), 1e-300)
    elif output >= 0:
        value = value[:, 0]
    missing_left = getattr(t, "missing_go_to_left", None)
    default_left = np.zeros(t.node_count, bool) if missing_left is None else np.asarray(missing_left, bool)
    builder.add(feature=t.feature, threshold=t.threshold, left=t.children_left, right=t.children_right,
                default_left=default_left, value=value * scale, cover=t.weighted_n_node_samples, output=output)


def from_sklearn_forest(model) -> TreeEnsemble:
    names = class_names(model)
    classifier = hasattr(model, "predict_proba")
    trees = list(getattr(model, "estimators_", [model]))
    n_features = int(model.n_features_in_)
    if classifier and getattr(model, "n_outputs_", 1) > 1:
        raise ValueError("model: multi-output classifiers are not supported by the tree methods")
    n_out = len(model.classes_) if classifier else int(getattr(model, "n_outputs_", 1))
    builder = _Builder(n_out)
    for tree in trees:
        _sklearn_tree(builder, tree, classifier=classifier, scale=1.0 / len(trees))
    kind = next(n for n in SKLEARN_FORESTS if n in names)
    return builder.build(n_features, float32_inputs=True, output="probability" if classifier else "prediction",
                         source=f"sklearn.{kind}")


def _sklearn_raw(model):
    """The model's raw score on a plain array (its check rows), without scikit-learn's warning that a model
    fitted on a DataFrame gets an array (the rows are in its column order)."""
    if "HistGradientBoosting" in type(model).__name__ and hasattr(model, "_raw_predict"):
        raw = model._raw_predict
    elif hasattr(model, "decision_function"):
        raw = model.decision_function
    else:
        raw = model.predict

    def score(X):
        import warnings

        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="X does not have valid feature names")
            return raw(X)
    return score


def from_sklearn_gb(model) -> TreeEnsemble:
    stages = model.estimators_  # (n_iter, K) DecisionTreeRegressor
    n_out = stages.shape[1]
    builder = _Builder(n_out)
    lr = float(model.learning_rate)
    for row in stages:
        for k, tree in enumerate(row):
            _sklearn_tree(builder, tree, classifier=False, scale=lr, output=k if n_out > 1 else -1)
    return _with_offset(builder, int(model.n_features_in_), _sklearn_raw(model), float32_inputs=True,
                        output="margin", source=f"sklearn.{type(model).__name__}")


def _hgb_columns(model):
    """Map HistGradientBoosting's internal columns (categorical first when it encodes them) to the user's,
    and the encoded category codes back to the raw category values."""
    pre = getattr(model, "_preprocessor", None)
    d = int(model.n_features_in_)
    if pre is None:
        return np.arange(d), {}
    masks = {name: np.asarray(cols) for name, _, cols in pre.transformers_ if name != "remainder"}
    cat_cols = np.flatnonzero(masks["encoder"])
    order = np.concatenate([cat_cols, np.flatnonzero(masks["numerical"])])
    cats = pre.named_transformers_["encoder"].categories_
    # text categories (a DataFrame's): the splits stay on codes, which the raw rows are encoded to
    return order, {k: np.asarray(c, float) for k, c in enumerate(cats) if not text_categories(c)}


def _hgb_raw_bitset(code_bits, raw_values, missing_left) -> np.ndarray:
    """Bitset over raw category values: known ones as encoded, unknown ones follow the missing direction."""
    raw_values = raw_values[~np.isnan(raw_values)]  # a NaN category (last) is the missing direction
    codes = np.flatnonzero([(code_bits[c >> 5] >> (c & 31)) & 1 for c in range(len(raw_values))])
    bad = raw_values[(raw_values != np.round(raw_values)) | (raw_values < 0) | (raw_values >= 2**16)]
    if len(bad):
        raise ValueError("model: the tree methods read a HistGradientBoosting categorical feature of numbers when "
                         f"they are integers in [0, 65536); it was fitted on {sorted(set(bad.tolist()))[:5]}: use a "
                         "sampling method (method='auto' picks one), or refit on codes 0, 1, 2, ...")
    width = int(raw_values.max()) // 32 + 1 if len(raw_values) else 1
    bits = np.full(width, 0xFFFFFFFF if missing_left else 0, np.uint32)
    for value in raw_values.astype(int):
        bits[value >> 5] &= ~np.uint32(1 << (value & 31))
    for value in raw_values[codes].astype(int):
        bits[value >> 5] |= np.uint32(1 << (value & 31))
    return bits


def from_sklearn_hgb(model) -> TreeEnsemble:
    predictors = model._predictors  # [iteration][k] TreePredictor
    n_out = len(predictors[0])
    builder = _Builder(n_out)
    order, categories = _hgb_columns(model)
    for row in predictors:
        for k, pred in enumerate(row):
            nodes = pred.nodes
            leaf = nodes["is_leaf"].astype(bool)
            cat = nodes["is_categorical"].astype(bool)
            raw_bits = np.asarray(pred.raw_left_cat_bitsets)
            rows = []
            for i in range(len(nodes)):
                if cat[i] and not leaf[i]:
                    code_bits = raw_bits[nodes["bitset_idx"][i]]
                    raw = categories.get(int(nodes["feature_idx"][i]))
                    if raw is None:  # categories already 0..255 codes
                        rows.append(np.asarray(code_bits, np.uint32))
                    else:
                        rows.append(_hgb_raw_bitset(code_bits, raw, bool(nodes["missing_go_to_left"][i])))
                else:
                    rows.append(np.zeros(1, np.uint32))
            width = max(len(r) for r in rows)
            bits = np.array([np.pad(r, (0, width - len(r))) for r in rows], np.uint32)
            builder.add(feature=np.where(leaf, -1, order[nodes["feature_idx"]]), threshold=nodes["num_threshold"],
                        left=nodes["left"].astype(np.int64), right=nodes["right"].astype(np.int64),
                        default_left=nodes["missing_go_to_left"].astype(bool), value=nodes["value"],
                        cover=nodes["count"].astype(float), output=k if n_out > 1 else -1,
                        decision=np.where(cat, 3, 0), cat_bits=bits)
    margin, codes = _hgb_margin(model, order)
    return _with_offset(builder, int(model.n_features_in_), margin, float32_inputs=False,
                        output="margin", source=f"sklearn.{type(model).__name__}", categories=codes)


def _hgb_margin(model, order: np.ndarray):
    """``(raw score of rows, {column: category count})``: with text categories (a DataFrame's), the rows hold
    their codes, turned back into the categories (a DataFrame) before the model's call."""
    pre = getattr(model, "_preprocessor", None)
    names = getattr(model, "feature_names_in_", None)
    if pre is None or names is None:
        return _sklearn_raw(model), None
    lists = pre.named_transformers_["encoder"].categories_
    # a column fitted with missing values lists NaN last: not a category (the trees send it the missing way,
    # and a check row holding its code would reach the trees as that code but the model as a missing value)
    text = {int(order[k]): np.asarray([v for v in c if not (isinstance(v, float) and np.isnan(v))], dtype=object)
            for k, c in enumerate(lists) if text_categories(c)}
    if not text:
        return _sklearn_raw(model), None
    raw = _sklearn_raw(model)

    def margin(X):
        import pandas as pd

        frame = pd.DataFrame(np.asarray(X, dtype=float), columns=list(names))
        for j, categories in text.items():
            codes = frame.iloc[:, j].to_numpy()
            valid = (codes >= 0) & (codes < len(categories)) & (codes == np.round(codes))
            frame[names[j]] = pd.Series(np.where(valid, categories[np.where(valid, codes, 0).astype(int)], None),
                                        dtype=object)
        return raw(frame)
    return margin, {j: len(c) for j, c in text.items()}


# ---------------------------------------------------------------------------------------------- XGBoost
def from_xgboost(model) -> TreeEnsemble:
    import xgboost as xgb

    booster = model.get_booster() if hasattr(model, "get_booster") else model
    raw = json.loads(bytes(booster.save_raw("json")))
    learner = raw["learner"]
    gbm = learner["gradient_booster"]
    if gbm.get("name", "gbtree") not in ("gbtree", "dart"):
        raise ValueError(f"model: XGBoost booster {gbm.get('name')!r} has no trees (gblinear?)")
    if gbm.get("name") == "dart":
        raise ValueError("model: XGBoost 'dart' boosters weight their trees at prediction; not supported")
    trees_json = gbm["model"]["trees"]
    info = gbm["model"]["tree_info"]
    indptr = gbm["model"].get("iteration_indptr")
    rounds = _xgb_predicted_rounds(model)
    if rounds is not None and indptr is not None and rounds < len(indptr) - 1:
        # an early-stopped scikit-learn model predicts with its best rounds only (xgboost's iteration_range)
        trees_json, info = trees_json[:int(indptr[rounds])], info[:int(indptr[rounds])]
    n_features = int(learner["learner_model_param"]["num_feature"])
    n_class = int(learner["learner_model_param"].get("num_class", "0"))
    n_target = int(learner["learner_model_param"].get("num_target", "1"))
    n_out = max(n_class, n_target, 1)
    builder = _Builder(n_out)
    n_categories = _xgb_categories(booster, trees_json, n_features)
    if not n_categories and all(int(t.get("tree_param", {}).get("size_leaf_vector", "1")) <= 1 for t in trees_json):
        _xgb_numeric_trees(builder, trees_json, info, n_out)  # the common case, all at once
    else:
        for tree, group in zip(trees_json, info):
            _xgb_tree(builder, tree, int(group) if n_out > 1 else -1, n_categories)

    names, types = booster.feature_names, booster.feature_types  # a DataFrame-fitted booster checks them

    every = (0, rounds or 0)  # (0, 0): every round

    def margin(X, rounds=every):
        return booster.predict(xgb.DMatrix(X, missing=np.nan, feature_names=names, feature_types=types,
                                           enable_categorical=bool(n_categories)), output_margin=True,
                               iteration_range=rounds)

    first_trees = int(indptr[1]) if indptr is not None and len(indptr) > 1 else 0
    first_round = (lambda X: margin(X, (0, 1)), first_trees) if first_trees else None
    return _with_offset(builder, n_features, margin, float32_inputs=True, output="margin",
                        source=f"xgboost.{type(model).__name__}", categories=n_categories, first_round=first_round)


def _xgb_predicted_rounds(model) -> int | None:
    """The boosting rounds a scikit-learn XGBoost model predicts with: ``best_iteration + 1`` after early
    stopping (its ``predict`` then uses that ``iteration_range``; the booster keeps every round), else None."""
    if not hasattr(model, "get_booster"):
        return None  # a native Booster predicts with every round unless told otherwise
    try:
        best = model.best_iteration  # an AttributeError without early stopping
    except AttributeError:
        return None
    return None if best is None else int(best) + 1


def xgb_missing_value(model) -> float | None:
    """The value a scikit-learn XGBoost model reads as missing when it is not NaN (its ``missing=`` parameter,
    e.g. -999 or 0), else None. A native Booster takes it from the DMatrix, so None."""
    if not hasattr(model, "get_booster"):
        return None
    value = getattr(model, "missing", np.nan)
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if np.isnan(value) else value


def _xgb_tree(builder: _Builder, tree: dict, output: int, n_categories: dict[int, int]) -> None:
    """One XGBoost tree (numeric and categorical splits) from its parsed JSON."""
    if int(tree.get("tree_param", {}).get("size_leaf_vector", "1")) > 1:
        raise ValueError("model: XGBoost vector-leaf trees (multi_strategy='multi_output_tree') are not supported")
    left = np.asarray(tree["left_children"], np.int64)
    cond = np.asarray(tree["split_conditions"], np.float64).astype(np.float32).astype(np.float64)
    leaf = left < 0
    feature = np.where(leaf, -1, np.asarray(tree["split_indices"], np.int64))
    decision = np.ones(len(left), np.int8)
    bits = None
    categorical = np.asarray(tree.get("split_type", np.zeros(len(left))), np.int64) != 0
    missing = None
    if categorical.any():  # the listed categories go right; every other category goes left (unseen ones too)
        width = max(1, (max(n_categories.values(), default=1) + 31) // 32)
        bits = np.zeros((len(left), width), np.uint32)
        cats, segments, sizes = (tree.get(k, []) for k in ("categories", "categories_segments", "categories_sizes"))
        for node, start, size in zip(tree.get("categories_nodes", []), segments, sizes):
            go_right = set(int(c) for c in cats[start:start + size])
            for c in range(width * 32):  # a code past the model's categories is not listed either: left
                if c not in go_right:
                    bits[node, c >> 5] |= np.uint32(1 << (c & 31))
        decision = np.where(categorical, 2, decision).astype(np.int8)
        missing = np.where(categorical, 3, 0).astype(np.int8)  # negative and wider codes: left (the kernels)
    builder.add(feature=feature, threshold=np.where(leaf | categorical, 0.0, cond), left=left,
                right=np.asarray(tree["right_children"], np.int64),
                default_left=np.asarray(tree["default_left"], bool),
                value=np.where(leaf, cond, 0.0), cover=np.asarray(tree["sum_hessian"], float),
                output=output, decision=decision, missing=missing, cat_bits=bits)


def _xgb_numeric_trees(builder: _Builder, trees_json: list, info: list, n_out: int) -> None:
    """Every tree of a model without categorical splits or vector leaves in one :meth:`_Builder.add`: each field
    read from the parsed JSON into one array (per-tree arrays cost about 4 ms per 100 trees)."""
    from itertools import chain

    if not trees_json:
        return
    sizes = np.fromiter((len(t["left_children"]) for t in trees_json), dtype=np.int64, count=len(trees_json))
    total = int(sizes.sum())

    def field(key: str, dtype) -> np.ndarray:
        return np.fromiter(chain.from_iterable(t[key] for t in trees_json), dtype=dtype, count=total)

    left = field("left_children", np.int64)
    cond = field("split_conditions", np.float64).astype(np.float32).astype(np.float64)
    leaf = left < 0
    builder.add(feature=np.where(leaf, -1, field("split_indices", np.int64)), threshold=np.where(leaf, 0.0, cond),
                left=left, right=field("right_children", np.int64), default_left=field("default_left", bool),
                value=np.where(leaf, cond, 0.0), cover=field("sum_hessian", np.float64),
                decision=np.ones(total, np.int8), output=np.asarray(info, np.int64) if n_out > 1 else -1, sizes=sizes)


def _xgb_categories(booster, trees_json, n_features: int) -> dict[int, int]:
    """``{feature: number of categories}`` of XGBoost's categorical features (the categories the model stores,
    else the largest category code its splits use, plus one)."""
    types = booster.feature_types or []
    counts: dict[int, int] = {}
    if "c" in types:  # only a model with categorical features stores categories (reading them needs pyarrow)
        try:
            stored = booster.get_categories(export_to_arrow=True).to_arrow()
            counts = {k: len(values) for k, (_, values) in enumerate(stored) if values is not None}
        except (AttributeError, TypeError, ValueError, ImportError):  # older XGBoost, or no pyarrow: the splits
            pass
    for tree in trees_json:
        split = tree.get("split_indices", [])
        cats, segments, sizes = (tree.get(k, []) for k in ("categories", "categories_segments", "categories_sizes"))
        for node, start, size in zip(tree.get("categories_nodes", []), segments, sizes):
            f = int(split[node])
            top = max((int(c) for c in cats[start:start + size]), default=-1) + 1
            counts[f] = max(counts.get(f, 0), top)
    for k, t in enumerate(types):
        if t == "c":
            counts.setdefault(k, 1)
    return counts


# ---------------------------------------------------------------------------------------------- LightGBM
_LGB_MISSING = {"None": 1, "Zero": 2, "NaN": 0}


def from_lightgbm(model) -> TreeEnsemble:
    booster = model.booster_ if hasattr(model, "booster_") else model
    dump = booster.dump_model()
    n_features = int(dump["max_feature_idx"]) + 1
    per_iter = int(dump.get("num_tree_per_iteration", 1))
    builder = _Builder(per_iter)
    categories: dict[int, int] = {}  # categorical feature -> 1 + its largest category split on (check rows)
    for tree in dump["tree_info"]:
        stack = [tree["tree_structure"]]
        index = {}
        order = []
        while stack:  # pre-order numbering
            node = stack.pop()
            index[id(node)] = len(order)
            order.append(node)
            if "split_index" in node:
                stack.append(node["right_child"])
                stack.append(node["left_child"])
        n = len(order)
        cols = {k: np.zeros(n) for k in ("threshold", "value", "cover")}
        feature = np.full(n, -1, np.int64)
        left = np.full(n, -1, np.int64)
        right = np.full(n, -1, np.int64)
        default_left = np.zeros(n, bool)
        decision = np.zeros(n, np.int8)
        missing = np.zeros(n, np.int8)
        cats: dict[int, list[int]] = {}
        for i, node in enumerate(order):
            if "split_index" not in node:
                if node.get("leaf_coeff"):
                    raise ValueError("model: LightGBM linear trees (linear_tree=True) are not supported")
                cols["value"][i] = node["leaf_value"]
                cols["cover"][i] = node.get("leaf_count", node.get("leaf_weight", 0.0))
                continue
            feature[i] = node["split_feature"]
            left[i] = index[id(node["left_child"])]
            right[i] = index[id(node["right_child"])]
            cols["cover"][i] = node.get("internal_count", node.get("internal_weight", 0.0))
            missing[i] = _LGB_MISSING.get(node.get("missing_type", "None"), 1)
            if node["decision_type"] == "==":
                decision[i] = 2
                cats[i] = [int(c) for c in str(node["threshold"]).split("||")]
                categories[int(node["split_feature"])] = max(categories.get(int(node["split_feature"]), 0),
                                                             max(cats[i]) + 1)
                default_left[i] = False  # LightGBM sends NaN, negative and unseen categories right
                missing[i] = 0
            else:
                cols["threshold"][i] = float(node["threshold"])
                default_left[i] = bool(node.get("default_left", False))
        width = max([max(c) // 32 + 1 for c in cats.values()] + [1])
        bits = np.zeros((n, width), np.uint32)
        for i, cs in cats.items():
            for c in cs:
                bits[i, c >> 5] |= np.uint32(1 << (c & 31))
        k = int(tree.get("tree_index", 0)) % per_iter
        builder.add(feature=feature, threshold=cols["threshold"], left=left, right=right,
                    default_left=default_left, value=cols["value"], cover=cols["cover"],
                    output=k if per_iter > 1 else -1, decision=decision, missing=missing, cat_bits=bits)

    def margin(X):
        return booster.predict(X, raw_score=True)

    return _with_offset(builder, n_features, margin, float32_inputs=False, output="margin",
                        source=f"lightgbm.{type(model).__name__}", categories=categories)


# ---------------------------------------------------------------------------------------------- dispatch
def as_ensemble(model: Any) -> TreeEnsemble:
    """Read ``model`` (scikit-learn, XGBoost or LightGBM tree model, or a TreeEnsemble) into arrays."""
    if isinstance(model, TreeEnsemble):
        return model
    names = class_names(model)
    module = library(model)
    if module == "sklearn" and names & set(SKLEARN_FORESTS):
        return from_sklearn_forest(model)
    if module == "sklearn" and names & set(SKLEARN_BOOSTING):
        return from_sklearn_gb(model)
    if module == "sklearn" and names & set(SKLEARN_HIST_BOOSTING):
        return from_sklearn_hgb(model)
    if module == "xgboost":
        return from_xgboost(model)
    if module == "lightgbm":
        return from_lightgbm(model)
    raise TypeError(
        "model: the tree methods read scikit-learn DecisionTree/RandomForest/ExtraTrees/GradientBoosting/"
        f"HistGradientBoosting, XGBoost and LightGBM models (or a TreeEnsemble); got {type(model).__name__}")
