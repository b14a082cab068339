"""Turn a user's model into one checked function ``rows (N, d) -> outputs (N, K) float``.

Supported: plain callables on a 2-D array; objects with ``predict_proba`` (classifiers: the outputs are class
probabilities) or ``predict`` (regressors), which covers scikit-learn estimators and Pipelines and the
scikit-learn wrappers of XGBoost and LightGBM; native ``xgboost.Booster`` and ``lightgbm.Booster``
(:mod:`interplay.models.boosters`); PyTorch ``nn.Module`` (:mod:`interplay.models.torch`). Models fitted on
DataFrames (scikit-learn's ``feature_names_in_``) receive DataFrames with the same columns and dtypes, so a
Pipeline with a ColumnTransformer/OneHotEncoder is explained on the raw columns the user knows.

Optional dependencies (pandas, torch, xgboost, lightgbm) are imported only when a model of that kind is given.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .._threads import model_call
from ..removal._columns import CodedRows


ENSEMBLE_CALL_ROWS = 16384  # rows per call to start with for a scikit-learn forest (ModelFunction.call_rows)


def loops_over_estimators(model: Any) -> bool:
    """Whether ``model`` (or a Pipeline's last step) is a scikit-learn ensemble whose prediction loops over its
    estimators in Python (random forests, extra trees, bagging, isolation forests): each call then has a fixed
    cost of the number of estimators times a Python step (a 500-tree forest on 30 features: about 15 ms idle,
    most of the time of a 1,000-row call), so it starts with calls of :data:`ENSEMBLE_CALL_ROWS` rows instead of
    the cache-sized 1,024, and a one-row explanation of budget 420 (4,200 rows over 10 background rows) is one
    call, not three while the call size is learned."""
    module = type(_final_step(model)).__module__
    return module.startswith(("sklearn.ensemble._forest", "sklearn.ensemble._bagging", "sklearn.ensemble._iforest"))


@dataclass
class ModelFunction:
    """A model as ``rows -> (N, K)`` outputs.

    ``kind`` is ``"classifier"`` (outputs are class probabilities) or ``"regressor"``; ``classes`` are the
    class labels of a classifier; ``columns`` (and ``dtypes``) make the rows a DataFrame before the call;
    ``source`` is the user's original model object; ``n_inputs`` is the number of input columns the model takes,
when it says (scikit-learn's ``n_features_in_``, a torch network's first ``Linear`` layer), so a background
of another width is refused when the explainer is built; ``n_calls``/``n_rows`` count usage. Every call is checked:
    an exception raised by the model, an output of the wrong shape, or NaN/inf give an error naming the model
    call (``name``).
    """

    fn: Callable[[Any], Any]
    kind: str
    name: str
    classes: tuple | None = None
    columns: tuple[str, ...] | None = None
    dtypes: tuple | None = None
    source: Any = field(default=None, repr=False)
    n_calls: int = field(default=0)
    n_rows: int = field(default=0)
    margin: Callable[[Any], Any] | None = field(default=None, repr=False)
    n_inputs: int | None = None
    # a callable declared a classifier whose one output is P(class 1): returned as [1 - p, p] (see __call__)
    binary_columns: bool = field(default=False, repr=False)

    @property
    def call_rows(self) -> int | None:
        """Rows per call this model wants to start with (None: the explainer's cache-sized calls; a PyTorch
        module on a GPU wants large ones, and so does a scikit-learn forest, :func:`loops_over_estimators`)."""
        return ENSEMBLE_CALL_ROWS if loops_over_estimators(self.source) else None

    def margin_model(self) -> "ModelFunction | None":
        """The model's raw score (the margin before the link: log-odds of class 1 for a binary booster,
        per-class scores for a multi-class one) as a model with one column per class (binary: ``[-m, m]``,
        so column ``k`` is the log-odds of class ``k``); ``None`` when the model has no raw score."""
        if self.margin is None:
            return None
        return ModelFunction(_Columns(self.margin, binary=self.kind == "classifier"), self.kind,
                             f"{self.name.rsplit('.', 1)[0]} raw score",
                             classes=self.classes, columns=self.columns, dtypes=self.dtypes, source=self.source,
                             n_inputs=self.n_inputs)

    def _as_input(self, rows: Any) -> Any:
        if isinstance(rows, CodedRows):  # hybrid rows of a raw table (interplay.removal): typed columns by take
            if self.columns is not None and self.dtypes is not None:
                import pandas as pd

                try:
                    return pd.DataFrame(dict(zip(self.columns, rows.columns(self.dtypes, _column))))
                except (TypeError, ValueError):  # a palette value its dtype refuses: the object rows' own path
                    pass
            rows = np.asarray(rows)
        if self.columns is None:
            return rows
        import pandas as pd

        if self.dtypes is not None and isinstance(rows, np.ndarray) and rows.ndim == 2:
            # raw rows (object array): each column back to its own dtype, built column-wise
            return pd.DataFrame({c: _column(rows[:, j], dt, c)
                                 for j, (c, dt) in enumerate(zip(self.columns, self.dtypes))})
        frame = pd.DataFrame(rows, columns=list(self.columns))
        if frame.dtypes.eq(object).any():
            frame = frame.infer_objects()
        return frame

    def __call__(self, rows: Any) -> np.ndarray:
        n = len(rows)
        try:
            with model_call():  # the caller's BLAS threads (interplay's own work runs on one)
                raw = self.fn(self._as_input(rows))
        except Exception as exc:  # the model's own error, with where it happened
            hint = ""
            if _is_instance(self.source, "torch", "nn.Module"):
                if isinstance(exc, TypeError):
                    hint = "; a torch module must return one tensor, of shape (N,) or (N, n_outputs)"
                if getattr(self.source, "training", False):  # e.g. batch norm refuses one row in training mode
                    hint += "; the module is in training mode: call module.eval() before explaining it"
            elif (self.columns is None and callable(self.source)  # a plain function (a native booster: no source)
                    and not hasattr(self.source, "predict")
                    and isinstance(exc, (IndexError, KeyError, TypeError, AttributeError))):
                hint = ("; a plain function gets a numpy array (columns in the background's order), not a "
                        "DataFrame: wrap it, e.g. lambda X: f(pd.DataFrame(X, columns=background.columns))")
            raise RuntimeError(f"model call {self.name} failed on {n} row{'' if n == 1 else 's'}: "
                               f"{type(exc).__name__}: {exc}{hint}"
                               ) from exc
        try:
            out = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            sample = list(dict.fromkeys(np.ravel(np.asarray(raw, dtype=object))[:1000].tolist()))[:3]
            hint = ""
            if getattr(self.source, "decision_function", None) is not None or self.kind == "classifier":
                hint = ("; a classifier's predicted labels cannot be explained as numbers: explain its "
                        "predict_proba, or for a model without one its decision_function (pass "
                        "model.decision_function as the model)")
            raise TypeError(f"model call {self.name} returned non-numeric output of type {type(raw).__name__} "
                            f"(e.g. {sample}){hint}") from None
        if out.ndim == 1:
            out = out[:, None]
        if out.ndim != 2 or out.shape[0] != n:
            raise ValueError(
                f"model call {self.name} returned shape {np.shape(raw)} for {n} rows; "
                f"expected ({n},) or ({n}, n_outputs)"
            )
        if not np.isfinite(out).all():
            raise ValueError(f"model call {self.name} returned NaN or inf for some of {n} rows")
        if self.binary_columns and out.shape[1] == 1:
            # one probability p (a sigmoid): the columns [1 - p, p] of classes 0 and 1, as predict_proba gives
            # them, so the positive class is label 1 (the default target) and target=0 is 1 - p
            out = np.hstack([1.0 - out, out])
        self.n_calls += 1
        self.n_rows += n
        return out

    @property
    def supports_hessian(self) -> bool:
        """Whether the model gives exact second derivatives (PyTorch modules)."""
        return False


class _Columns:
    """``fn``'s raw scores as ``(N, K)`` columns; a classifier's one binary margin ``m`` becomes ``[-m, m]``
    (``binary``; a regressor's raw score stays one column) (picklable)."""

    def __init__(self, fn: Callable[[Any], Any], binary: bool = True) -> None:
        self.fn, self.binary = fn, binary

    def __call__(self, rows: Any) -> np.ndarray:
        out = np.asarray(self.fn(rows), dtype=float)
        out = out.reshape(len(out), -1)
        return np.hstack([-out, out]) if self.binary and out.shape[1] == 1 else out


class _Margin:
    """``model.<method>(rows, **kwargs)``: a booster's raw score (picklable, unlike a lambda)."""

    def __init__(self, model: Any, method: str, **kwargs: Any) -> None:
        self.model, self.method, self.kwargs = model, method, kwargs

    def __call__(self, rows: Any) -> Any:
        return getattr(self.model, self.method)(rows, **self.kwargs)


_SKLEARN_BOOSTERS = ("GradientBoostingClassifier", "HistGradientBoostingClassifier")


def _final_step(model: Any) -> Any:
    steps = getattr(model, "steps", None)
    return steps[-1][1] if steps and _is_instance(model, "sklearn.pipeline", "Pipeline") else model


def margin_function(model: Any) -> Callable[[Any], Any] | None:
    """The raw-score function of a boosted classifier (XGBoost, LightGBM, scikit-learn gradient boosting,
    or a Pipeline ending in one), or of an XGBoost or LightGBM regressor (its score before the link: the log of
    a Poisson, gamma or Tweedie model's prediction): what shap's TreeExplainer explains by default; ``None``
    otherwise."""
    last = _final_step(model)
    module = type(last).__module__.split(".")[0]
    if not hasattr(last, "predict_proba"):
        if module == "xgboost" and hasattr(last, "predict"):
            return _Margin(model, "predict", output_margin=True)
        if module == "lightgbm" and hasattr(last, "predict"):
            return _Margin(model, "predict", raw_score=True)
        return None
    if module == "xgboost":
        return _Margin(model, "predict", output_margin=True)
    if module == "lightgbm":
        return _Margin(model, "predict", raw_score=True)
    if module == "sklearn" and type(last).__name__ in _SKLEARN_BOOSTERS and hasattr(model, "decision_function"):
        return _Margin(model, "decision_function")
    return None


def probabilities_of(model: Any) -> "ModelFunction | None":
    """``model.predict_proba`` passed as the model (shap's idiom ``shap.Explainer(model.predict_proba, X)``): the
    classifier itself, its outputs its class probabilities named by class (it was a function of two outputs, read as
    a regressor's: ``output="log-odds"`` was refused, "predict_proba is not a classifier"), without a booster's raw
    score (``"auto"`` explains what the function returns, the probability); ``None`` for anything else."""
    owner = getattr(model, "__self__", None)
    if (owner is None or isinstance(owner, type) or getattr(model, "__name__", None) != "predict_proba"
            or getattr(owner, "predict_proba", None) != model or getattr(owner, "classes_", None) is None):
        return None
    wrapped = as_model(owner)
    if wrapped.kind != "classifier":
        return None
    wrapped.margin = None
    return wrapped


def linear_log_odds(model: ModelFunction, rows: Any) -> "ModelFunction | None":
    """The exact log-odds of a binary scikit-learn linear classifier (``LogisticRegression``, ``SGDClassifier``
    with the log loss, or a Pipeline ending in one) as a model of two columns ``[-m, m]``, ``m`` its
    ``decision_function``: what shap's ``LinearExplainer`` explains. Its ``predict_proba`` is ``expit(m)``, which
    rounds to exactly 0 or 1 beyond ``|m|`` of about 37, so log-odds read from it are clipped (at +-27.6).
    ``None`` for any other model, or when ``predict_proba`` on ``rows`` (a few background rows, one uncounted
    call) is not the sigmoid of the decision function (``SGDClassifier(loss="modified_huber")``)."""
    source = model.source
    last = _final_step(source)
    if (model.kind != "classifier" or model.margin is not None or model.classes is None or len(model.classes) != 2
            or not type(last).__module__.startswith("sklearn.linear_model")
            or not hasattr(source, "decision_function") or rows is None or not len(rows)):
        return None
    scores = ModelFunction(_Margin(source, "decision_function"), model.kind, model.name, classes=model.classes,
                           columns=model.columns, dtypes=model.dtypes, source=source, n_inputs=model.n_inputs,
                           margin=_Margin(source, "decision_function"))
    try:
        probe = model._as_input(rows[:32])
        m = np.asarray(source.decision_function(probe), dtype=float).ravel()
        p = np.asarray(source.predict_proba(probe), dtype=float)[:, 1]
    except Exception:  # noqa: BLE001 - the model's own error comes, named, at its first regular call
        return None
    if m.shape != p.shape or not np.allclose(p, 0.5 * (1.0 + np.tanh(0.5 * m)), rtol=1e-9, atol=1e-12):
        return None
    exact = scores.margin_model()
    exact.name = f"{type(last).__name__}.decision_function (log-odds)"
    return exact


def _is_instance(obj: Any, module: str, qualname: str) -> bool:
    """``isinstance(obj, module.qualname)`` without importing ``module`` (False when it is not imported)."""
    mod = sys.modules.get(module)
    if mod is None:
        return False
    cls = mod
    for part in qualname.split("."):
        cls = getattr(cls, part, None)
        if cls is None:
            return False
    return isinstance(obj, cls)


def _frame_columns(model: Any) -> tuple[str, ...] | None:
    columns = getattr(model, "feature_names_in_", None)
    return tuple(str(c) for c in columns) if columns is not None else None


def _refuse_multi_output_classifier(model: Any) -> None:
    """A classifier of several outputs (``classes_`` a list of arrays, one per output; ``predict_proba`` a list of
    arrays: MultiOutputClassifier, a forest fitted on a 2-D y) is refused, naming how to explain one output (it
    failed with numpy's "truth value of an array with more than one element is ambiguous")."""
    classes = getattr(model, "classes_", None)
    if not isinstance(classes, (list, tuple)) or not any(np.ndim(c) >= 1 for c in classes):
        return
    one = ("model.estimators_[k]" if type(model).__name__ == "MultiOutputClassifier" else
           "interplay.models.as_model(lambda X: model.predict_proba(X)[k], classifier=True) as the model")
    raise TypeError(f"model: {type(model).__name__} is a classifier of {len(classes)} outputs (classes_ holds one "
                    f"array of classes per output); explain one output at a time, e.g. {one}")


def _refuse_multiclass_labels(model: Any) -> None:
    """A fitted classifier of three classes or more without ``predict_proba`` (RidgeClassifier, LinearSVC,
    SVC(probability=False)) is refused: its ``predict`` gives class labels, and with integer labels 0, 1, 2 they
    were explained as numbers (the mean label over the background rows, class 2 "twice" class 1), silently;
    string labels already failed at the first call. Two classes stay a ``predict`` game (the share of hybrid rows
    predicted as the larger label)."""
    classes = getattr(model, "classes_", None)
    try:
        n_classes = len(classes) if classes is not None and np.ndim(classes) == 1 else 0
    except TypeError:
        return
    if n_classes <= 2:
        return
    shown = [c.item() if isinstance(c, np.generic) else c for c in list(classes)[:6]]
    scores = ("explain its per-class scores, model.decision_function, as the model (target= a column), or "
              if getattr(model, "decision_function", None) is not None else "")
    raise TypeError(f"model: {type(model).__name__} is a classifier of {n_classes} classes {shown} without "
                    "predict_proba; its predict gives class labels, which cannot be explained as numbers: "
                    f"{scores}a classifier with predict_proba (e.g. SVC(probability=True), or "
                    "CalibratedClassifierCV around it)")


def as_model(model: Any, *, classifier: bool | None = None) -> ModelFunction:
    """Wrap ``model`` as a :class:`ModelFunction`.

    ``model``: a :class:`ModelFunction`; a PyTorch ``nn.Module``; a native ``xgboost.Booster`` or
    ``lightgbm.Booster``; an object with ``predict_proba`` (classifier) or ``predict`` (regressor); or a
    callable on a 2-D array. ``classifier=True`` declares that a callable (or torch module) returns class
    probabilities (enables ``output="probability"``/``"log-odds"``).
    """
    if isinstance(model, ModelFunction):
        return model
    if _is_instance(model, "torch", "nn.Module"):
        from .torch import TorchModel

        return TorchModel(model, classifier=bool(classifier))
    if _is_instance(model, "xgboost", "Booster") or _is_instance(model, "lightgbm", "Booster"):
        from .boosters import booster_model

        return booster_model(model)
    columns = _frame_columns(model)
    n_inputs = getattr(model, "n_features_in_", None)
    n_inputs = int(n_inputs) if isinstance(n_inputs, (int, np.integer)) else None
    if hasattr(model, "predict_proba") and classifier is not False:
        _refuse_multi_output_classifier(model)
        return ModelFunction(model.predict_proba, "classifier", f"{type(model).__name__}.predict_proba",
                             classes=tuple(getattr(model, "classes_", ())) or None, columns=columns, source=model,
                             margin=margin_function(model), n_inputs=n_inputs)
    if hasattr(model, "predict"):
        _refuse_multiclass_labels(model)
        return ModelFunction(model.predict, "regressor", f"{type(model).__name__}.predict", columns=columns,
                             source=model, n_inputs=n_inputs, margin=margin_function(model))
    if callable(model):
        return ModelFunction(model, "classifier" if classifier else "regressor",
                             getattr(model, "__name__", type(model).__name__), source=model,
                             binary_columns=bool(classifier))
    raise TypeError(
        "model: expected a callable on a 2-D array or an object with predict/predict_proba, "
        f"got {type(model).__name__}"
    )


def _column(values: np.ndarray, dtype: Any, name: Any = None) -> Any:
    """One raw column in its dtype; a categorical column's values outside its categories become missing values
    (as pandas has made them so far; it will refuse them in a future version). A value the dtype cannot hold (a
    word in a numeric column) is an error naming the column and the value."""
    import pandas as pd

    if isinstance(dtype, pd.CategoricalDtype):
        return pd.Categorical.from_codes(category_codes(values, dtype.categories), dtype=dtype)
    try:
        return pd.array(values, dtype=dtype)
    except (TypeError, ValueError) as exc:
        bad = next((v for v in values if not _fits(v, dtype)), None)
        raise ValueError(f"column {name!r}: the model was fitted on {dtype} values there, got {bad!r}; pass "
                         f"numbers (NaN for a missing value)") from exc


def _fits(value: Any, dtype: Any) -> bool:
    import pandas as pd

    try:
        pd.array([value], dtype=dtype)
    except (TypeError, ValueError):
        return False
    return True


def category_codes(values: np.ndarray, categories: Any) -> np.ndarray:
    """Each value's position in ``categories`` (-1: outside them, or missing), as pandas matches a column of
    that value's type alone, without missing values: ``categories.get_indexer`` infers one type from all the
    values it is given (with integer categories, ``True`` matched 1 beside integers or a NaN and nothing alone;
    a date string matched its timestamp alone and nothing beside timestamps), so the present values of each
    type (by identity) are matched in a call of their own and a value's code does not depend on the others
    converted with it. One call when pandas infers one kind for the present values (the usual case)."""
    import pandas as pd

    values = np.asarray(values, dtype=object)
    present = np.asarray(pd.notna(values), dtype=bool)
    codes = np.full(len(values), -1, dtype=np.intp)
    if not present.any():
        return codes
    shown = values[present]
    if not pd.api.types.infer_dtype(shown, skipna=False).startswith("mixed"):  # one kind (a compiled scan)
        codes[present] = categories.get_indexer(pd.Series(shown, dtype=object))
        return codes
    kinds, _ = pd.factorize(np.fromiter((id(type(v)) for v in shown), dtype=np.int64, count=len(shown)))
    matched = np.empty(len(shown), dtype=np.intp)
    for kind in range(kinds.max() + 1):
        at = kinds == kind
        matched[at] = categories.get_indexer(pd.Series(shown[at], dtype=object))
    codes[present] = matched
    return codes


def check_probabilities(model: ModelFunction, outputs: np.ndarray, rows: str) -> None:
    """Refuse a model declared a classifier (``classifier=True`` on a callable or a torch module) whose
    ``outputs`` on ``rows`` (said in the error) are not class probabilities: outside [0, 1], or rows of several
    columns not summing to 1 (a network returning logits: its "probabilities" and "log-odds" would mean
    nothing). Models with class labels (scikit-learn's ``predict_proba``) are trusted. Used by the Explainer
    (on the background) and by the text and image explainers (on the input and its fully removed version)."""
    if model.kind != "classifier" or model.classes is not None:
        return
    out = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)
    bad_rows = np.any((out < -1e-6) | (out > 1 + 1e-6), axis=1)
    outside = bool(bad_rows.any())
    if not outside and out.shape[1] > 1:
        bad_rows = np.abs(out.sum(axis=1) - 1.0) > 1e-4
    if outside or (out.shape[1] > 1 and bool(bad_rows.any())):
        example = out[int(np.argmax(bad_rows))]  # the first offending row
        if out.shape[1] == 2 and (model.binary_columns or type(model).__name__ == "TorchModel") and np.array_equal(
                out[:, 0], 1.0 - out[:, 1]):
            example = example[1:]  # one output p made the columns [1 - p, p]: show the model's own output
        raise ValueError(f"model: declared a classifier, but its outputs on {rows} are not class probabilities "
                         f"({'outside [0, 1]' if outside else 'rows do not sum to 1'}, e.g. "
                         f"{np.round(example, 4).tolist()}); end the network with a softmax (or a sigmoid for "
                         "one output), or explain its raw outputs as a regressor (classifier=False)")
