"""The Explainer: a model and data become games (one per explained row), and results for many rows.

``Explainer(model, background, removal=..., output=...)`` fixes the removal-based explanation (Bivariate
Shapley paper Sec. 3: feature removal x model behaviour x summary); ``explainer.game(x)`` is the game of one
row, and ``shapley``/``banzhaf``/``interactions``/``bivariate`` run the estimators of :mod:`interplay.api`.

Data paths: numeric inputs are float matrices (the fast path). A DataFrame with non-numeric (categorical)
columns, for a model fitted on a DataFrame (e.g. a Pipeline with a ColumnTransformer/OneHotEncoder), is kept
as an object table: hybrid rows take whole values column-wise, and the model receives a DataFrame with the
original dtypes, so the explanation is on the raw columns the user knows.

``groups=`` makes features out of groups of columns (a one-hot block, a user-defined group): a coalition of
features is expanded to its columns, so values (and efficiency) are per group. ``target=[...]`` or ``"all"``
explains several outputs with one set of model calls shared by all (:class:`~interplay.removal.SharedValues`).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Sequence

import numpy as np

from ._optional import installed
from ._progress import tracked
from ._validation import (
    align_columns,
    class_position,
    host_data,
    renames_columns,
    check_choice,
    check_feature_names,
    check_groups,
    check_int,
    check_label_order,
    check_numeric_matrix,
    check_random_state,
    check_table,
    missing_columns,
    missing_mask,
    non_numeric_columns,
    one_target,
)
from .fixed_players import explain_reduced, null_players
from .games import Game
from .models import as_model
from .models.adapters import category_codes, check_probabilities, linear_log_odds, probabilities_of
from .models.tree_kinds import BOOSTER_LIBRARIES, library, may_be_trees
from .removal import (
    OUTPUTS,
    REMOVALS,
    OutputTransform,
    SharedValues,
    baseline_value_function,
    conditional_value_function,
    marginal_value_function,
    reference_vector,
)
from .removal._columns import CallSizer
from .removal.baseline import warn_unseen_categories
from .removal.conditional import refuse_missing
from .results import Attribution, BivariateExplanation, Explanation, Interactions, group_data, rows_std_errors


# why a call refused several rows, and what takes them
ONE_ROW_HINT = ("; game(), interactions() and bivariate() explain one row at a time (loop over the rows), "
                "shapley(X) and banzhaf(X) take many, and ip.run(explainer, X, kind='bivariate', out=folder) "
                "computes Bivariate rows in a resumable batch")


LARGE_BACKGROUND = 1000  # background rows from which marginal removal warns of what they cost


class Explainer:
    """Explain a model's predictions with Shapley-family values.

    Parameters
    ----------
    model:
        A callable on a 2-D array; an object with ``predict_proba`` (classifier) or ``predict`` (scikit-learn
        estimators and Pipelines, XGBoost/LightGBM wrappers); a native XGBoost/LightGBM ``Booster``; a PyTorch
        ``nn.Module`` (see :func:`interplay.models.as_model`).
    background:
        Rows standing for "the data": removed features are averaged over them (``marginal``,
        ``conditional``) or summarised into a reference (``baseline``). A DataFrame gives feature names; its
        non-numeric columns are kept raw when the model was fitted on a DataFrame.
    removal:
        ``"marginal"`` (interventional, default), ``"conditional"`` (observational, nearest neighbours) or
        ``"baseline"`` (a fixed reference vector).
    baseline:
        For ``removal="baseline"``: ``"mean"`` (default), ``"median"``, ``"mode"``, ``"zero"`` or a vector.
        Categorical columns and one-hot groups always take their (joint) mode.
    output:
        The unit of every value, the same for every method: ``"auto"`` (what shap explains by default:
        the log-odds for a binary boosted classifier -- XGBoost, LightGBM, scikit-learn gradient boosting,
        or a Pipeline ending in one --, the raw per-class score for a multi-class one, the probability for
        other classifiers, the prediction otherwise), ``"prediction"`` (for a classifier: its probability, as
        ``"probability"``; ``predict``'s labels are not explained), ``"probability"``, ``"log-odds"``,
        ``"margin"`` (a booster's raw score) or ``"loss"`` (utility = minus the loss against the label
        ``y`` given per row: a classifier's log-loss, ``log p[y]``; a regressor's squared error, ``-(f - y)^2``;
        averaged over the background rows as every unit is, see the README). A booster's log-odds and margin
        are read from its raw score (exact), and so are a binary scikit-learn linear classifier's log-odds (its
        ``decision_function``, as shap's LinearExplainer, which shap picks for these models: ``"auto"`` explains
        their probability instead).
    target:
        The output explained. Default: the positive class (the last of two) of a binary classifier, every
        class (``"all"``) of a multi-class one, the only output of a regressor. A class label or output
        index: a class label first (classes [5, 6, 7]: ``6`` is class 6, ``2`` position 2, class 7); where the
        labels are numbers that are also other classes' positions (classes [1, 2, 3] or [0, 2, 5]) an integer
        is a class label only (``2`` is class 2, ``0`` of [1, 2, 3] is refused). Results name the class by its
        label (``info["target"]``). A list of them, or ``"all"``, explains several outputs at once: the
        methods then return a dict ``{output: result}`` and the model is called once for all of them.
        ``"predicted"``: each row's predicted class (one Explanation then mixes classes; ``info["targets"]``
        says which).
    feature_names:
        Names of the input columns in the results (default: the background's columns, else the model's, else
        ``x0..``). A DataFrame is still matched by its own column names (the background's or the model's).
    groups:
        Features made of several columns: a dict ``name -> columns`` or a list of lists of columns (names or
        indices). Ungrouped columns stay single features, after the groups. Values are reported per group.
    n_neighbors:
        Neighbourhood size of conditional removal (default ``ceil(sqrt(len(background)))``).
    max_rows:
        Most rows sent to the model in one call (bounds memory), but never fewer than one coalition's rows: a
        coalition's hybrid rows over the whole background go in one call (``len(background)`` rows under marginal
        removal). Results do not depend on it, but for the last bits of a model whose outputs depend on the rows
        a call holds (a BLAS model: an MLP, a linear model).
    """

    def __init__(self, model: Any, background: Any = None, removal: str = "marginal", baseline: Any = None,
                 output: str = "auto", target: Any = None, feature_names: Sequence[str] | None = None, *,
                 groups: Any = None, n_neighbors: int | None = None, max_rows: int = 65536) -> None:
        self.model = probabilities_of(model) or as_model(model)
        self._renamed_ok = renames_columns(self.model.source)  # LightGBM: 'a b' fitted as 'a_b'
        self.removal = check_choice(removal, "removal", REMOVALS)
        self.output = check_choice(output, "output", OUTPUTS + ("margin",))
        if self.output in ("probability", "log-odds") and self.model.kind != "classifier":
            from .models.torch import TorchModel  # (imports no torch)

            if isinstance(self.model, TorchModel) and self.output != "margin":  # a module is never told one
                raise ValueError(f"output={self.output!r} needs a classifier; the PyTorch module {self.model.name} "
                                 "is not declared one: if it returns class probabilities, pass TorchModel(module, "
                                 "classifier=True) (from interplay.models import TorchModel), else use "
                                 "output='prediction'")
            raise ValueError(f"output={self.output!r} needs a model with predict_proba (a classifier); "
                             f"{self.model.name} is not a classifier (use output='prediction')")
        if self.output == "margin" and self.model.margin is None:
            instead = "output='log-odds'" if self.model.kind == "classifier" else "output='prediction'"
            raise ValueError(f"output='margin' needs a booster's raw score (an XGBoost or LightGBM model, or "
                             f"scikit-learn gradient boosting for classifiers); {self.model.name} has none (use "
                             f"{instead})")
        if isinstance(target, np.ndarray) and target.ndim == 0:  # np.array("mid"): one label
            target = target.item()
        elif type(target).__module__.split(".")[0] == "pandas" and getattr(target, "ndim", None) == 1:
            target = list(target)  # a Series or Index of labels: several targets, as a list (a Series failed with
            # "The truth value of a Series is ambiguous", an Index of one label explained it as one target)
        self.target = target
        if self._multi_target and self.output == "loss":
            raise ValueError("target: output='loss' explains the loss of the row's label; it takes one target")
        self.max_rows = check_int(max_rows, "max_rows", minimum=1)
        self.n_neighbors = check_int(n_neighbors, "n_neighbors", minimum=1, allow_none=True)
        if self.n_neighbors is not None and self.removal != "conditional":  # it was ignored without a word
            raise ValueError(f"n_neighbors: only used with removal='conditional', got removal={self.removal!r}")
        self.raw = False  # True: object table with categorical columns (model receives DataFrames)
        columns = None
        self.background = None
        baseline = host_data(baseline)  # a tensor (requiring grad, or on a GPU): detached, on the CPU, as background
        if background is not None:
            _refuse_shap_background(background)
            background = host_data(background)
            if library(self._model_source()) in BOOSTER_LIBRARIES and hasattr(background, "columns"):
                # a CSV's strings for a LightGBM or XGBoost model fitted on pandas categoricals: the booster's own
                # categories (no compiled extra needed)
                from .models.categories import as_training_categories
                background = as_training_categories(background, model, "background")
            elif library(self._model_source()) in BOOSTER_LIBRARIES:
                from .models.categories import categorical_columns
                coded = categorical_columns(model)
                if coded:  # the booster's own error ('enable_categorical') did not say what to pass instead
                    raise TypeError(
                        f"background: the model splits on categorical columns {coded} (fitted on a DataFrame of "
                        f"category dtype); pass the background, and the rows to explain, as a DataFrame with the "
                        f"model's columns (an array carries no categories), got {type(background).__name__}")
            background = align_columns(background, self.model.columns, "background",
                                       what="the columns the model was fitted on", renamed_ok=self._renamed_ok)
            bad = non_numeric_columns(background)
            if bad and self.model.columns is None:
                native = "c" in (getattr(self.model.source, "feature_types", None) or ())
                raise TypeError(
                    f"background: non-numeric columns {bad}; " + (
                        "interplay passes a native xgboost.Booster numbers only: explain its scikit-learn "
                        "wrapper (XGBClassifier/XGBRegressor fitted with enable_categorical=True), whose categories "
                        "are read exactly, or pass the category codes it was trained on" if native else
                        "encode them first (e.g. one-hot), wrap the encoding inside the model (a Pipeline fitted "
                        "on a DataFrame), or pass numeric data"))
            try:
                self.background, columns, dtypes = check_table(background, "background", allow_missing=True)
            except TypeError:  # an array of mixed values, for a model that takes DataFrames: keep it raw
                if self.model.columns is None:
                    raise
                self.background, columns, dtypes = check_table(background, "background", raw=True,
                                                               allow_missing=True)
            if columns is not None and self.model.columns is not None and columns != self.model.columns:
                raise ValueError(f"background: columns {list(columns)} differ from the columns the model was "
                                 f"fitted on {list(self.model.columns)}")
            if self.background.dtype == object:
                self.raw = True
                if dtypes is not None and self.model.columns == columns:
                    self.model.dtypes = _widened(dtypes)
        n_columns = None if self.background is None else self.background.shape[1]
        if self.n_neighbors is not None and self.background is not None and self.n_neighbors > len(self.background):
            raise ValueError(f"n_neighbors: expected at most the {len(self.background)} background rows, got "
                             f"{self.n_neighbors} (it was cut to {len(self.background)} without a word: every row, "
                             "which is marginal removal); pass a larger background or a smaller n_neighbors")
        if self.removal in ("marginal", "conditional") and self.background is None:
            raise ValueError(f"background: removal={self.removal!r} averages over background rows; pass "
                             "background= (e.g. a few hundred training rows), or use removal='baseline'. (For a "
                             "tree model, shap's TreeExplainer(model) without data is path-dependent TreeSHAP: "
                             "shapley(X, tree_path_dependent=True), which reads the trees' own cover and ignores "
                             "the background rows, but still takes any one of them here)")
        if self.removal == "marginal" and self.background is not None and len(self.background) > LARGE_BACKGROUND:
            import warnings

            rows = len(self.background)
            warnings.warn(f"background: {rows:,} rows: marginal removal averages the model over every one, so each "
                          f"coalition costs {rows:,} model rows (a tree model's exact algorithm: {rows:,} background "
                          "passes per explained row); a few hundred rows usually suffice (shap's Explainer keeps "
                          "100), e.g. background.sample(500, random_state=0) of a DataFrame", UserWarning,
                          stacklevel=2)
        if columns is None:
            columns = self.model.columns
        # the data's own column names match DataFrames by name; feature_names only renames the results
        self._input_columns = None if columns is None else tuple(str(c) for c in columns)
        names = feature_names if feature_names is not None else columns
        width_from = "background"  # the parameter that set the number of columns
        if n_columns is None and self.removal == "baseline" and baseline is not None and not isinstance(baseline, str):
            n_columns, width_from = len(np.ravel(baseline)), "baseline"
        if n_columns is None and names is not None:
            n_columns, width_from = len(names), "feature_names"
        self._check_width(n_columns, width_from)
        self.n_columns = n_columns
        self.column_names = check_feature_names(names, n_columns) if n_columns else None
        self._groups_spec = groups
        self._set_groups()
        self._baseline_spec = baseline
        self.reference = None
        if self.removal == "baseline":
            if baseline is None:
                baseline = "mean" if self.background is not None else None
            if baseline is None:
                raise ValueError("baseline: removal='baseline' needs a reference vector, 'zero', "
                                 "or background data to compute 'mean'/'median'/'mode'")
            if n_columns is None:
                raise ValueError("baseline='zero' without background: the number of features is unknown; "
                                 "pass feature_names= or background=")
            self.reference = reference_vector(baseline, self.background, n_columns, groups=self.groups,
                                              column_names=self.column_names)
            if self.raw:  # a reference category the model does not know reaches it as a missing value
                self._warn_unknown_categories(np.asarray(self.reference, dtype=object)[None, :], "baseline")
                if not isinstance(baseline, str):  # a given category no background row holds (pandas
                    import pandas as pd  # categories: the warning above, on the model's own categories)

                    dtypes = self.model.dtypes if self.model.dtypes is not None else ()
                    dtypes = dtypes if len(dtypes) == n_columns else ()
                    warn_unseen_categories(self.reference, self.background, self.column_names,
                                           skip=[j for j, t in enumerate(dtypes) if isinstance(t, pd.CategoricalDtype)])
        elif baseline is not None:
            raise ValueError(f"baseline: only used with removal='baseline', got removal={self.removal!r}")
        self._check_removed_values([self.model])
        self._set_unit()
        if self._scores is not self.model:  # the raw score the games read (a booster's log-odds or margin)
            self._check_removed_values([self._scores])

    def _check_width(self, n_columns: int | None, name: str) -> None:
        """A background (or baseline) whose width differs from the number of inputs the model declares
        (``ModelFunction.n_inputs``) is refused now, naming both (it failed only at the first explanation)."""
        expected = self.model.n_inputs
        if n_columns is None or expected is None or n_columns == expected:
            return
        raise ValueError(f"{name}: gives {n_columns} columns, but the model ({self.model.name}) takes {expected} "
                         "inputs; pass rows with the columns the model was trained on")

    def _set_unit(self) -> None:
        """Resolve ``output="auto"`` and the default ``target`` (see the class docstring), and the model whose
        outputs the transforms read (a booster's raw score for its log-odds and margin)."""
        n_classes = self._n_classes() if self.model.kind == "classifier" else None
        if self.output == "auto":
            if self.model.kind != "classifier":
                self.output = "prediction"
            elif self.model.margin is not None and n_classes is not None:
                self.output = "log-odds" if n_classes <= 2 else "margin"
            else:
                self.output = "probability"
        elif self.output == "prediction" and self.model.kind == "classifier":
            self.output = "probability"  # what is explained (predict_proba's column, not predict's labels), so named
        if self.target is None and n_classes is not None and self.output != "loss":
            labels = list(self.model.classes) if self.model.classes is not None else list(range(n_classes))
            self.target = labels[-1] if n_classes <= 2 else "all"
        if n_classes is not None and self.model.classes is not None:  # a label the model lacks: refused now
            named: dict[int, Any] = {}
            for label in _labels(self.target):
                column = self._class_column(label, n_classes, "target")
                if column in named and not _same_label(named[column], label, self.model.classes):
                    # [0, 1, 2] of classes [1, 2, 3]: 0 an index and 1 a label of class 1; class 3 was silently
                    # missing from the dict
                    raise ValueError(f"target: {_plain(named[column])!r} and {_plain(label)!r} both name class "
                                     f"{_plain(self._label_of(column))!r} (an entry that is not a class label is "
                                     f"read as an output index); the model's classes are "
                                     f"{[_plain(c) for c in self.model.classes]}: pass class labels")
                named.setdefault(column, label)
        self._scores = self.model
        self._unit = self.output
        if self.model.margin is not None and (self.output == "margin"
                                              or (self.output == "log-odds" and n_classes == 2)):
            self._scores = self.model.margin_model()
            self._unit = "prediction"
        elif self.output == "log-odds" and n_classes == 2 and (exact := linear_log_odds(
                self.model, self.background if self.background is not None else (
                    None if self.reference is None else np.asarray(self.reference)[None, :]))) is not None:
            # a binary linear classifier: its decision function, exactly (predict_proba rounds to 0 or 1 beyond
            # |log-odds| ~ 37, and log-odds read from it were clipped at +-27.6), as shap's LinearExplainer
            self._scores = exact
            self._unit = "prediction"
        elif self.model.kind == "classifier" and self.model.classes is None:
            self._check_probabilities()

    def _check_probabilities(self) -> None:
        """A model declared a classifier (e.g. ``TorchModel(module, classifier=True)``) whose outputs on the
        background are not probabilities (outside [0, 1], or rows of several columns not summing to 1) is
        refused: its "probabilities" and "log-odds" would mean nothing (a network returning logits). One
        uncounted call on at most 32 rows."""
        rows = self.background if self.background is not None else (
            None if self.reference is None else np.asarray(self.reference)[None, :])
        if rows is None:
            return
        try:
            out = np.asarray(self.model.fn(self.model._as_input(rows[:32])), dtype=float)
        except Exception:  # noqa: BLE001 - the model's own error comes, named, at its first regular call
            return
        check_probabilities(self.model, out, "the background")

    def _n_classes(self) -> int | None:
        """Number of classes of a classifier: its ``classes_``, else one model call on one data row."""
        if self.model.classes is not None:
            return len(self.model.classes)
        probe = self.background[:1] if self.background is not None else (
            None if self.reference is None else np.asarray(self.reference)[None, :])
        if probe is None:
            return None
        return int(self.model(probe).shape[1])

    # ------------------------------------------------------------------ missing values
    def _check_removed_values(self, models: list) -> None:
        """Missing values among the values that replace removed features (the background rows, or the baseline
        reference) are accepted when ``models`` take them (:meth:`_check_missing`); conditional removal
        refuses them."""
        rows, name = self.background, "background"
        if self.removal == "baseline":
            rows, name = np.asarray(self.reference)[None, :], "baseline"
        if rows is None:
            return
        if self.removal == "conditional":
            refuse_missing(rows, name, self.column_names)
        self._check_missing(rows, name, models)

    def _check_missing(self, rows: np.ndarray, name: str, models: list | None = None) -> None:
        """Missing values in ``rows`` (parameter ``name``) are accepted when the model takes them, decided by its
        behaviour: its outputs on the rows that hold them are finite (a call of those rows, in chunks of
        ``max_rows``; not counted in ``n_calls``). Else a ValueError naming ``name``, the columns and why."""
        holes = missing_mask(rows).any(axis=1)
        if not holes.any():
            return
        with_missing = rows[holes]
        for model in models or self._output_models():
            for start in range(0, len(with_missing), self.max_rows):
                problem = _missing_problem(model, with_missing[start:start + self.max_rows])
                if problem is not None and (~holes).any():  # a row without missing values: fails as well?
                    other = _missing_problem(model, rows[~holes][:1])
                    if other is not None:  # not the missing values (e.g. a column of another type than fitted)
                        raise ValueError(f"{name}: {other.replace('on those rows', 'on rows with no missing value')}"
                                         "; pass rows with the columns and types the model was fitted on")
                if problem is not None:
                    raise ValueError(f"{name}: missing values in columns {missing_columns(rows, self.column_names)} "
                                     f"and {problem}; impute them first (or use a model that handles missing "
                                     "values)")

    def _output_models(self) -> list:
        """The model, and the raw score the games read when it is another function (a booster's margin)."""
        scores = self.__dict__.get("_scores", self.model)
        return [self.model] if scores is self.model else [self.model, scores]

    @contextmanager
    def _checked_rows(self):
        """Rows parsed and checked once (unknown categories, missing values) are not checked again inside."""
        before = self.__dict__.get("_rows_checked", 0)  # a depth: an inner block must not end the outer one
        self.__dict__["_rows_checked"] = before + 1
        try:
            yield
        finally:
            self.__dict__["_rows_checked"] = before

    # ------------------------------------------------------------------ set-up helpers
    def _align_frame(self, data: Any, name: str = "x") -> Any:
        """``data`` with its columns matched by name to the explainer's input columns (see
        :func:`interplay._validation.column_order`)."""
        renamed_ok = self.__dict__.get("_renamed_ok", False)  # an Explainer pickled by an earlier version has none
        return align_columns(data, self._input_columns or self.column_names, name, renamed_ok=renamed_ok)

    def _set_groups(self) -> None:
        self.groups = None
        self._column_feature = None
        if self.n_columns is None:
            self.feature_names = None
            self.n_features = None
            if self._groups_spec is not None:
                raise ValueError("groups: the number of input columns is unknown; pass background= or feature_names=")
            return
        if self._groups_spec is None:
            self.feature_names = self.column_names
            self.n_features = self.n_columns
            return
        self.feature_names, self.groups = check_groups(self._groups_spec, self.column_names)
        self.n_features = len(self.groups)
        owner = np.empty(self.n_columns, dtype=np.intp)
        for g, cols in enumerate(self.groups):
            owner[cols] = g
        self._column_feature = owner

    @property
    def _multi_target(self) -> bool:
        return isinstance(self.target, (list, tuple, np.ndarray)) or (isinstance(self.target, str)
                                                                        and self.target == "all")

    # ------------------------------------------------------------------ games
    def _rows(self, X: Any, name: str) -> np.ndarray:
        """``X`` as rows of the explainer's columns (float, or object when raw); missing values are kept when
        the model takes them (:meth:`_check_missing`)."""
        X = self._align_frame(host_data(X), name)
        rows, _, _ = check_table(X, name, n_columns=self.n_columns, raw=self.raw, allow_missing=True)
        if not self.raw and rows.dtype == object:  # a frame's object columns: numbers now, errors named `name`
            rows, _ = check_numeric_matrix(rows, name, n_columns=self.n_columns, allow_nan=True)
        if not self.__dict__.get("_rows_checked"):  # (each row of X again: checked with X)
            if self.raw:
                self._warn_unknown_categories(rows, name)
            self._check_missing(rows, name)
        return rows

    def _warn_unknown_categories(self, rows: np.ndarray, name: str) -> None:
        """Warn when a categorical column holds values outside its categories (the background's dtype): the
        model receives them as missing values, so the explanation is of the model's output for a missing
        value, which need not be its output for the value itself (XGBoost sends an unseen category down
        another branch than a missing one)."""
        import warnings

        import pandas as pd

        dtypes, columns = self.model.dtypes, self.model.columns
        if dtypes is None or columns is None or len(dtypes) != rows.shape[1]:
            return
        found = {}
        for j, dtype in enumerate(dtypes):
            if isinstance(dtype, pd.CategoricalDtype):
                values = pd.Series(rows[:, j], dtype=object)
                outside = values.notna().to_numpy() & (category_codes(rows[:, j], dtype.categories) < 0)
                if outside.any():
                    found[columns[j]] = sorted({str(v) for v in values[outside]})[:5]
        if found:
            listed = "; ".join(f"{column!r}: {values}" for column, values in found.items())
            warnings.warn(f"{name}: values outside their column's categories ({listed}) reach the model as missing "
                          "values, so they are explained as missing; the model's output for the values themselves "
                          "may differ", UserWarning, stacklevel=4)

    def _row(self, x: Any) -> np.ndarray:
        rows = self._rows(x, "x")
        if len(rows) != 1:
            raise ValueError(f"x: expected one row, got {len(rows)}{ONE_ROW_HINT}")
        return rows[0]

    def _transforms(self, x: np.ndarray, y: Any, target: Any = None) -> dict[Any, OutputTransform]:
        """The explained output(s) of row ``x``: ``{label: OutputTransform}``."""
        known = self.__dict__.get("_n_outputs")  # the model's output width, read once (a call per row cost a
        if known is not None and known[0] is self._scores:  # 500-tree forest about 15 ms, a tenth of a row)
            n_outputs = known[1]
        else:
            n_outputs = self._scores(x[None, :]).shape[1]
            self._n_outputs = (self._scores, n_outputs)
        target = self.target if target is None else target
        unit = self._unit
        if y is not None and self.output != "loss":
            import warnings

            warnings.warn(f"y: labels are only used with output='loss' (the loss of each row's label); with "
                          f"output={self.output!r} they are ignored", UserWarning, stacklevel=4)
        if self.output == "loss":
            if y is None:
                raise ValueError("y: output='loss' needs the label of each explained row (y=)")
            if self.model.kind == "classifier":
                if target is not None:
                    import warnings

                    warnings.warn(f"target={_plain(target)!r} is ignored with output='loss': a classifier's loss is "
                                  "of each row's own label (y=)", UserWarning, stacklevel=4)
                column = self._label_column(y, n_outputs)
                return {self._label_of(column): OutputTransform("loss", column, y)}
            try:
                label = float(y)
            except (TypeError, ValueError):
                raise ValueError(f"y: a regressor's loss needs a number (the row's true value), got "
                                 f"{_plain(y)!r}") from None
            if not np.isfinite(label):
                raise ValueError(f"y: a regressor's loss needs a finite true value, got {label}")
            if target is not None:
                column = self._class_column(target, n_outputs, "target")
            elif n_outputs > 1:
                raise ValueError(f"target: the model returns {n_outputs} outputs; choose the one the loss "
                                 "is computed on with target=")
            else:
                column = 0
            return {y: OutputTransform("loss", column, label, regression=True)}
        if isinstance(target, str) and target == "all":
            return {self._label_of(k): OutputTransform(unit, k) for k in range(n_outputs)}
        if isinstance(target, (list, tuple, np.ndarray)):
            labels = list(target)
            if not labels:
                raise ValueError("target: expected at least one output")
            columns = [self._class_column(label, n_outputs, "target") for label in labels]
            return {self._label_of(column): OutputTransform(unit, column) for column in columns}
        if self._predicted(target):
            if self.model.kind != "classifier":
                raise ValueError("target: 'predicted' explains each row's predicted class; the model is not a "
                                 "classifier")
            column = int(np.argmax(self.model(x[None, :])[0]))
            return {self._label_of(column): OutputTransform(unit, column)}
        if target is None:
            if self.model.kind == "classifier" and n_outputs <= 2:  # positive class (no data to probe before)
                return {n_outputs - 1: OutputTransform(unit, n_outputs - 1)}
            if n_outputs > 1:
                raise ValueError(f"target: the model returns {n_outputs} outputs; choose one with target= "
                                 "(a list or 'all' explains several at once; 'predicted' each row's class)")
            return {0: OutputTransform(unit, 0)}
        column = self._class_column(target, n_outputs, "target")
        return {self._label_of(column): OutputTransform(unit, column)}

    def _label_of(self, column: int) -> Any:
        """The class label of output ``column`` (the column itself for a model without class labels): results
        name the class explained, not the index that chose it (``target=2`` of classes [5, 6, 7] is class 7)."""
        label = self.model.classes[column] if self.model.classes is not None else column
        return label.item() if isinstance(label, np.generic) else label

    def _predicted(self, target: Any) -> bool:
        """``target="predicted"`` (unless "predicted" is one of the model's class labels)."""
        return (isinstance(target, str) and target == "predicted"
                and not (self.model.classes is not None and "predicted" in self.model.classes))

    def explained_outputs(self, x: Any, y: Any = None) -> list:
        """The output label(s) the games of row ``x`` explain (e.g. its predicted class for ``target="predicted"``)."""
        return list(self._transforms(self._check_row(x), y))

    def _label_column(self, y: Any, n_outputs: int) -> int:
        """The output column of label ``y`` for a classifier's loss: a class label, never an output index when the
        model has class labels (data labelled 0/1 against classes [1, 2] would read column 0 as class 1)."""
        classes = self.model.classes
        if classes is None:
            return self._class_column(y, n_outputs, "y")
        if y in classes:
            return classes.index(y)
        raise ValueError(f"y: expected one of the model's class labels {[_plain(c) for c in classes]}, got "
                         f"{_plain(y)!r}")

    def _class_column(self, label: Any, n_outputs: int, name: str) -> int:
        """The output column ``label`` names: a class label first, else an output index (refused where the
        model's labels are numbers that are also other classes' positions: :func:`class_position`)."""
        classes = self.model.classes
        if classes is not None and label in classes:
            return classes.index(label)
        column = class_position(classes, label, n_outputs, name)
        if column is not None:
            return column
        known = [_plain(c) for c in classes] if classes is not None else list(range(n_outputs))
        raise ValueError(f"{name}: expected a class label or output index in {known}, got {_plain(label)!r}")

    def _check_row(self, x: Any) -> np.ndarray:
        x = self._row(x)
        if self.n_columns is None:
            self._check_width(len(x), "x")
            self.n_columns = len(x)
            self.column_names = check_feature_names(None, self.n_columns)
            self._set_groups()
        return x

    def _value_function(self, x: np.ndarray, transforms: list[OutputTransform]):
        """``(k, n_features) bool -> (k,)`` (one transform) or ``(k, T)`` values of row ``x``."""
        model = self._scores
        if len(transforms) == 1:
            transform = transforms[0]

            def predict(rows: np.ndarray) -> np.ndarray:
                return transform(model(rows))
        else:
            def predict(rows: np.ndarray) -> np.ndarray:
                outputs = model(rows)
                return np.stack([t(outputs) for t in transforms], axis=1)

        sizer = self.__dict__.get("_call_sizer")  # model rows per call, learned once for all rows
        if sizer is None or sizer.max_rows != self.max_rows:
            sizer = self._call_sizer = CallSizer(self.max_rows, start_rows=self.model.call_rows)
        if self.removal == "baseline":
            value_fn = baseline_value_function(predict, x, self.reference, max_rows=self.max_rows, sizer=sizer)
        elif self.removal == "marginal":
            value_fn = marginal_value_function(predict, x, self.background, max_rows=self.max_rows, sizer=sizer,
                                               coded=True)  # the model adapter reads coded raw rows
        else:
            refuse_missing(x[None, :], "x", self.column_names)
            value_fn = conditional_value_function(predict, x, self.background, n_neighbors=self.n_neighbors,
                                                  max_rows=self.max_rows, sizer=sizer)
        if self._column_feature is not None:
            owner = self._column_feature
            column_fn = value_fn

            def value_fn(coalitions: np.ndarray) -> np.ndarray:  # features -> their columns
                return column_fn(coalitions[:, owner])

        value_fn.__name__ = f"{self.removal} removal of {model.name}"
        return value_fn

    def games(self, x: Any, y: Any = None) -> dict[Any, Game]:
        """One game per explained output of row ``x`` (``{output label: Game}``), sharing one set of model
        calls: a coalition evaluated for one output is read from a shared cache by the others. Each game says
        what its values are in (``game.explained``), which ``ip.shapley(game)`` and the others record."""
        return {label: self._with_unit(game, label) for label, game in self._games(self._check_row(x), y).items()}

    def _games(self, x: np.ndarray, y: Any = None) -> dict[Any, Game]:
        """:meth:`games` of a row already checked by :meth:`_check_row`."""
        transforms = self._transforms(x, y)
        value_fn = self._value_function(x, list(transforms.values()))
        if len(transforms) == 1:
            (label,) = transforms
            return {label: Game(value_fn, self.n_features, self.feature_names)}
        shared = SharedValues(value_fn, self.n_features, len(transforms))
        games = {}
        for t, label in enumerate(transforms):
            output_fn = shared.output(t)
            output_fn.__name__ = f"{value_fn.__name__}, output {label!r}"
            games[label] = Game(output_fn, self.n_features, self.feature_names)
        return games

    def _with_unit(self, game: Game, label: Any) -> Game:
        """``game`` with what its values are in (``game.explained``: unit, class, removal), which
        ``ip.shapley(game)`` and the other functions record in their results' ``info`` as the Explainer's own
        methods do (their plots then name the class; they named none). Only the public :meth:`games`: the
        Explainer's own per-row work records these itself (and labelling every row of a run cost 5-8%)."""
        target = "label" if self.output == "loss" else (label.item() if isinstance(label, np.generic) else label)
        game.explained = {"output": self.output, "target": target, "removal": self.removal,
                          **self._reference_info()}
        return game

    def game(self, x: Any, y: Any = None) -> Game:
        """The game of row ``x``: ``v(S)`` = the utility of the model with only the features in ``S`` present.

        Always the whole game: the Explainer's own methods give the row's null players (features whose value in
        ``x`` is every reference row's) exact zeros and explain the smaller game of the others
        (:mod:`interplay.fixed_players`), so a sampler run on this game spends evaluations on them and may differ.
        Cost of one coalition: 1 model row (baseline), ``len(background)`` rows (marginal), at most that
        (conditional).
        """
        if self._multi_target:
            raise ValueError("target: several outputs are explained; use games(x) (one game per output)")
        return next(iter(self.games(x, y).values()))

    # ------------------------------------------------------------------ second derivatives (SHEAR)
    def cross_contribution(self, x: Any, y: Any = None, *, target: Any = None, scaled: bool = True) -> np.ndarray:
        """SHEAR's cross-contribution (SHEAR paper, Definition 1, Eq. 11) of row ``x``, from exact second
        derivatives (autograd); needs a PyTorch model.

        ``eta[i, j] = |x_i - r_i| * |H_ij + H_ji| * |x_j - r_j|`` with ``H`` the Hessian of the explained output
        (after the ``output`` transform) at ``x`` and ``r`` the reference (``removal="baseline"``) or the
        background mean; ``scaled=False`` leaves out the ``|x - r|`` factors (``|H_ij + H_ji|``). With groups,
        each group block is reduced by its maximum, giving an ``(n_features, n_features)`` matrix. The
        diagonal is zero (a feature is not its own cooperator). Cost: one forward and ``d`` backward passes.
        """
        if not self.model.supports_hessian:
            raise TypeError(f"cross_contribution needs exact second derivatives (a PyTorch nn.Module); "
                            f"{self.model.name} does not provide them")
        if self.raw:
            raise TypeError("cross_contribution: the inputs have non-numeric columns; derivatives need numbers")
        x = self._check_row(x)
        transforms = self._transforms(x, y, target)
        if len(transforms) != 1:
            raise ValueError("target: cross_contribution explains one output; pass target= one output")
        transform = next(iter(transforms.values()))
        hess = self.model.hessian(x.astype(float), _torch_utility(transform))
        if not np.isfinite(hess).all():  # NaN eta made SHEAR refuse "cross_contribution", never passed
            raise ValueError(f"cross_contribution: the model's second derivatives (autograd Hessian of the "
                             f"output={self.output!r} explained) are NaN or inf at this row, so SHEAR's exact "
                             "cross-contribution (Eq. 11) is undefined (the module is not twice differentiable "
                             "there, or overflows); pass cross_contribution=None to use the game's second-order "
                             "differences, or use another method")
        eta = np.abs(hess + hess.T)
        if not np.any(eta - np.diag(np.diag(eta))):
            import warnings

            warnings.warn("cross_contribution: the model's second derivatives between features are all 0 at this "
                          "row (a piecewise-linear network, e.g. ReLU, has a zero Hessian almost everywhere, and so "
                          "has a log-odds clipped at a probability of exactly 0 or 1), so SHEAR's cooperators would "
                          "be chosen by ties; pass cross_contribution= the game's second differences "
                          "(ip.shapley(game, method='shear') computes them) or use another method",
                          UserWarning, stacklevel=2)
        if scaled:
            if self.reference is not None:
                reference = np.asarray(self.reference, dtype=float)
            else:  # the mean of the present values; an all-missing column has none (NaN, no numpy warning)
                present = ~np.isnan(self.background)
                counts = present.sum(axis=0)
                sums = np.where(present, self.background, 0.0).sum(axis=0)
                reference = np.divide(sums, counts, out=np.full(len(counts), np.nan), where=counts > 0)
            distance = np.abs(x.astype(float) - reference)
            unknown = np.flatnonzero(np.isnan(distance))
            if unknown.size:  # no distance to scale by: that factor is left out (1), not NaN for the whole row
                import warnings

                names = [self.column_names[j] for j in unknown] if self.column_names else unknown.tolist()
                warnings.warn(f"cross_contribution: columns {names} are missing in x or in every background row, "
                              "so |x - r| is unknown there; their factor is left out (as with scaled=False)",
                              UserWarning, stacklevel=2)
                distance[unknown] = 1.0
            eta = distance[:, None] * eta * distance[None, :]
        if self.groups is not None:
            order = np.concatenate(self.groups)
            starts = np.cumsum([0] + [len(g) for g in self.groups[:-1]])
            permuted = eta[np.ix_(order, order)]
            eta = np.maximum.reduceat(np.maximum.reduceat(permuted, starts, axis=0), starts, axis=1)
        np.fill_diagonal(eta, 0.0)
        return eta

    # ------------------------------------------------------------------ explanations
    def _row_options(self, kind: str, method: str, row: np.ndarray, label: Any, target: Any,
                     options: dict) -> dict:
        """Per-row options: SHEAR gets exact cross-contributions from a PyTorch model (only method='shear'), as a
        matrix whose ``source`` names them in ``info["cross_contribution"]`` (:class:`_AutogradMatrix`)."""
        if (kind == "shapley" and method == "shear" and "cross_contribution" not in options
                and self.model.supports_hessian and not self.raw):
            eta = self.cross_contribution(row, label, target=target)
            return {**options, "cross_contribution": eta.view(_AutogradMatrix)}
        return options

    def _reference_info(self) -> dict:
        """What every result of this explainer records besides its unit and target: ``{"reference": [...]}``
        under baseline removal (the row whose output is the base value: ``baseline=`` as given, or the
        background's mean/median/mode per column), and ``{"model_kind": "regressor"}`` for a regressor's raw
        score (``output="margin"``: a margin, but of no class), and the model's kind under ``output="loss"``
        (which loss: a classifier's log-loss, a regressor's squared error)."""
        out = {"model_kind": "regressor"} if self.output == "margin" and self.model.kind != "classifier" else {}
        if self.output == "loss":  # which loss: a classifier's log-loss, a regressor's squared error
            out = {"model_kind": "classifier" if self.model.kind == "classifier" else "regressor"}
        if self.reference is None:
            return out
        return {**out, "reference": [v.item() if isinstance(v, np.generic) else v for v in np.ravel(self.reference)]}

    def _auto_tree(self, method: str, y: Any, options: dict) -> str | None:
        """With ``method="auto"``: the reason to use ``method="tree"`` (exact, same unit), else None. Options
        for samplers (other than ``std_errors``, which the exact tree path has no use for) keep a sampler."""
        if method != "auto" or (set(options) - TREE_OPTIONS) or not self._may_be_trees():
            return None
        from .trees.explain import tree_choice
        return tree_choice(self, y)

    def _may_be_trees(self) -> bool:
        """Whether the tree algorithms could read the model (its class; numba installed): only then is
        :mod:`interplay.trees` imported, with numba (about 0.3 s)."""
        return getattr(self, "model", None) is not None and installed("numba") and may_be_trees(self._model_source())

    def _model_source(self) -> Any:
        """The object the user's model came from (what the tree readers read)."""
        model = self.model
        return model.source if model.source is not None else getattr(model.fn, "__self__", model.fn)

    def _tree_declined(self, method: str, y: Any, options: dict, result):
        """``result`` (or a dict of them) of a sampler chosen by ``method="auto"`` for a tree model whose trees
        could not be used, with why in ``info["auto"]["tree"]`` (e.g. a Pipeline the trees do not reproduce)."""
        if method != "auto" or getattr(self, "model", None) is None or not may_be_trees(self._model_source()):
            return result
        sampler_options = sorted(set(options) - TREE_OPTIONS)
        if not installed("numba"):  # a tree model sampled for want of the trees extra: said, not silent
            why = "numba is not installed (pip install 'interplay[trees]' for the exact tree algorithms)"
        elif sampler_options:  # the tree path would have served, but these options are for a sampler
            from .trees.explain import tree_choice
            why = (f"options {sampler_options} are for samplers (method='tree' takes none of them)"
                   if tree_choice(self, y) else None)
        else:
            from .trees.explain import tree_rejection
            why = tree_rejection(self, y)
        if why is None:
            return result

        def noted(r):
            return _with_info(r, auto={**r.info.get("auto", {}), "tree": f"not used: {why}"})
        return {k: noted(r) for k, r in result.items()} if isinstance(result, dict) else noted(result)

    @staticmethod
    def _noted(result, reason: str):
        """``result`` (or a dict of them) with ``info["auto"]`` recording the tree choice."""
        note = {"chosen": "tree", "reason": reason}
        if isinstance(result, dict):
            return {k: _with_info(r, auto=note) for k, r in result.items()}
        return _with_info(result, auto=note)

    def _many(self, kind: str, X: Any, y: Any, method: str, budget: int | None, random_state: Any,
              options: dict) -> Explanation | dict[Any, Explanation]:
        show = options.pop("progress", None)  # progress of the per-row loop (interplay._progress: after a few s)
        check_label_order(X, y)
        reason = self._auto_tree(method, y, options)
        if method == "tree" or reason:  # exact tree algorithms (interplay.trees), no coalition sampling
            from .trees.explain import explain_rows
            rows = self._rows(X, "X")  # checked as on the sampling path (missing values: against the model)
            with self._checked_rows():
                try:
                    result = explain_rows(self, kind, rows, y, budget=budget, progress=show, **options)
                except ExplanationInterrupted as stop:  # Ctrl-C: the finished batches' rows, as the sampling path
                    partial = self._noted(stop.partial, reason) if reason else stop.partial
                    done = len(next(iter(partial.values())) if isinstance(partial, dict) else partial)
                    raise ExplanationInterrupted(str(stop), _row_index(
                        partial, X.iloc[:done] if hasattr(X, "iloc") else None, random_state)) from None
            return self._noted(result, reason) if reason else result
        rows = self._rows(X, "X")
        if self.removal == "conditional":
            refuse_missing(rows, "X", self.column_names)
        labels = [None] * len(rows) if y is None else list(np.ravel(y))
        if len(labels) != len(rows):
            raise ValueError(f"y: expected {len(rows)} labels (one per row of X), got {len(labels)}")
        seeds = _row_seeds(random_state, len(rows))
        per_output: dict[Any, list] = {}
        explained: list = []  # the output each row's game explains (e.g. its predicted class)
        with self._checked_rows():
            try:
                self._each_row(kind, rows, labels, seeds, method, budget, options, show, per_output, explained)
            except KeyboardInterrupt:  # Ctrl-C: the finished rows travel with the exception
                done = len(explained)
                if done == 0:
                    raise
                partial = self._explanations({k: r[:done] for k, r in per_output.items()}, rows[:done], kind,
                                             method, budget, explained)
                raise ExplanationInterrupted(
                    f"interrupted after {done} of {len(rows)} rows: the finished rows are in this exception's "
                    ".partial (except KeyboardInterrupt as stop: stop.partial); ip.run explains many rows in "
                    "chunks that a resume keeps", _row_index(partial, X.iloc[:done] if hasattr(X, "iloc") else None,
                                                             random_state)) from None
        return self._tree_declined(method, y, options,
                                   self._explanations(per_output, rows, kind, method, budget, explained))

    def _explanations(self, per_output: dict, rows: np.ndarray, kind: str, method: str, budget: int | None,
                      explained: list):
        """The Explanation of the rows (a dict by output for several targets)."""
        explanations = {output: self._explanation(results, rows, kind, method, budget,
                                                  [output] * len(rows) if self._multi_target else explained)
                        for output, results in per_output.items()}
        return explanations if self._multi_target else explanations[None]

    def _each_row(self, kind: str, rows: np.ndarray, labels: list, seeds: list, method: str, budget: int | None,
                  options: dict, show: Any, per_output: dict, explained: list) -> None:
        """The per-row results of :meth:`_many` into ``per_output`` (by output) and the output each row's game
        explains into ``explained``, row by row (what is finished stays there if the loop is interrupted)."""
        for row, label, seed in tracked(zip(rows, labels, seeds), len(rows), f"explaining ({kind})", enabled=show):
            games = self._games(self._check_row(row), label)  # (the Explainer records unit and class itself)
            finished = {}  # stored once every output of the row is done (an interrupt leaves no half row)
            for output, game in games.items():
                # the same seed for every output of a row: sampled coalitions coincide, the model runs once
                row_options = self._row_options(kind, method, row, label,
                                                output if self._multi_target else None, options)
                result = self._explain_game(kind, game, row, method=method, budget=budget,
                                            random_state=np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key),
                                            **row_options)
                finished[output if self._multi_target else None] = result
            for output, result in finished.items():
                per_output.setdefault(output, []).append(result)
            explained.append(next(iter(games)))

    def _explanation(self, results: list, rows: np.ndarray, kind: str, method: str,
                     budget: int | None, targets: list) -> Explanation:
        std = None
        if all(r.std_errors is not None for r in results):
            std = np.array([r.std_errors for r in results])
        targets = [t.item() if isinstance(t, np.generic) else t for t in targets]
        if budget is None:  # the rows' resolved budget (the default), when they agree: as single-row results say
            resolved = {r.info.get("budget") for r in results if isinstance(r.info.get("budget"), (int, np.integer))}
            budget = int(resolved.pop()) if len(resolved) == 1 else None
        info = {"removal": self.removal, "output": self.output, "budget": budget, "kind": kind,
                # the loss: of each row's label (listed in targets; one_target read mixed labels as "predicted")
                "target": "label" if self.output == "loss" else one_target(targets), "targets": targets,
                **self._reference_info()}
        if method == "auto":  # the rows' choices: the same unless null players left rows with fewer features
            chosen = sorted({r.method for r in results})
            method = chosen[0] if len(chosen) == 1 else "auto"
            info["auto"] = (results[0].info.get("auto") if len(chosen) == 1 else
                            {"chosen": chosen, "reasons": {r.method: (r.info.get("auto") or {}).get("reason")
                                                           for r in results}})
            if len(chosen) > 1:  # which rows were enumerated, which sampled
                info["methods"] = [r.method for r in results]
            if std is None and any(r.std_errors is not None for r in results):  # exact rows among sampled ones
                std = rows_std_errors(results, [r.method == "exact" for r in results])
        # per row: what the estimator recorded (e.g. OddGP's decay and noise, SHEAR's cooperators, a sample's
        # size); expl[i].info has the row's (it was dropped)
        own = [{k: v for k, v in r.info.items() if k not in _EXPLAINER_INFO} for r in results]
        if any(own):
            info["estimators"] = own
        null = [r.info.get("null_players", []) for r in results]
        if any(null):  # per row: the features explained as exact zeros (interplay.fixed_players)
            info["null_players"] = null
            info["null_players_note"] = next(r.info["null_players_note"] for r in results if "null_players_note"
                                             in r.info)
        if rows.dtype == object:  # raw categorical rows: kept as given in .data (and, as before, in info)
            info["raw_data"] = [[v.item() if isinstance(v, np.generic) else v for v in row] for row in rows]
        data = rows
        if self.groups is not None:  # .data has one column per feature, in the features' order (groups first)
            data = group_data(rows, self.groups)
            info["groups"] = self._groups_info()
        return Explanation(
            values=np.array([r.values for r in results]), base_values=np.array([r.baseline for r in results]),
            data=data, feature_names=self.feature_names, method=method,
            n_evaluations=np.array([r.n_evaluations for r in results]), std_errors=std, info=info,
        )

    def shapley(self, X: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                y: Any = None, **options) -> Explanation | dict[Any, Explanation]:
        """Shapley values of every row of ``X`` (one game per row; each row gets its own seed).

        With ``method="shear"`` and a PyTorch model, each row's exact cross-contributions
        (:meth:`cross_contribution`) are passed to the estimator as ``cross_contribution=``.
        ``progress=None`` (default) shows the rows' progress once they take a few seconds (``True``: at once,
        ``False``: never; see :mod:`interplay._progress`); the same holds for :meth:`banzhaf`.
        """
        return _row_index(self._many("shapley", X, y, method, budget, random_state, options), X, random_state)

    def __call__(self, X: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                 y: Any = None, **options) -> Explanation | dict[Any, Explanation]:
        """``explainer(X)`` is :meth:`shapley` (``X``'s Shapley values as an :class:`Explanation`), as shap's
        ``explainer(X)`` gives its Explanation."""
        return self.shapley(X, method=method, budget=budget, random_state=random_state, y=y, **options)

    def banzhaf(self, X: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                y: Any = None, **options) -> Explanation | dict[Any, Explanation]:
        """Banzhaf values of every row of ``X``."""
        return _row_index(self._many("banzhaf", X, y, method, budget, random_state, options), X, random_state)

    def _null_players(self, row: np.ndarray) -> np.ndarray | None:
        """The features of ``row`` the model cannot see removed (:mod:`interplay.fixed_players`), or None
        (conditional removal, or no reference)."""
        reference = self.background if self.removal == "marginal" else self.reference
        if self.removal == "conditional" or reference is None:
            return None
        return null_players(row, reference, self._column_feature, self.n_features)

    def _explain_game(self, kind: str, game: Game, row: np.ndarray, **kwargs):
        """``api.<kind>(game, **kwargs)``; when some features of ``row`` are null players (and the method and
        index allow it, :mod:`interplay.fixed_players`), the game of the other features, its result widened
        with exact zeros."""
        return explain_reduced(kind, game, self._null_players(row), **kwargs)

    def _one(self, kind: str, x: Any, y: Any, random_state: Any, **kwargs):
        row = self._check_row(x)
        games = self._games(row, y)
        # the seed shapley(x) gives its row: the same samples for shapley(x) and bivariate(x) (and a batch run),
        # one seed shared by every output
        (seed,) = _row_seeds(random_state, 1)
        results = {output: _with_info(self._explain_game(kind, game, row, random_state=np.random.SeedSequence(
                       seed.entropy, spawn_key=seed.spawn_key), **kwargs), output=self.output,
                       target=output.item() if isinstance(output, np.generic) else output, **_seed(random_state),
                       removal=self.removal, **self._reference_info())
                   for output, game in games.items()}  # every result states its unit and target
        return results if self._multi_target else next(iter(results.values()))

    def interactions(self, x: Any, index: str = "sii", order: int = 2, method: str = "auto",
                     budget: int | None = None, random_state: Any = None, y: Any = None,
                     **options) -> Interactions | dict[Any, Interactions]:
        """Interaction index of row ``x`` (see :func:`interplay.interactions`); a pandas row's label is kept in
        ``info["row"]``."""
        label = _row_label(x)
        order = check_int(order, "order", minimum=1)  # (2.0 took the tree path, which keeps it a float)
        reason = self._auto_tree(method, y, options) if index in ("sii", "bii") and order in (1, 2) else None
        if method == "tree" or reason:
            from .trees.explain import explain_interactions
            x = self._rows(x, "x")  # checked as on the sampling path (missing values: against the model)
            with self._checked_rows():
                result = explain_interactions(self, x, index, order, y, budget=budget, **options)
            return self._grouped(_labelled(self._noted(result, reason) if reason else result, label))
        result = self._one("interactions", x, y, random_state, index=index, order=order, method=method,
                           budget=budget, **options)
        if index in ("sii", "bii") and order in (1, 2):
            result = self._tree_declined(method, y, options, result)
        return self._grouped(_labelled(result, label))

    def bivariate(self, x: Any, method: str = "auto", budget: int | None = None, random_state: Any = None,
                  y: Any = None, **options) -> BivariateExplanation | dict[Any, BivariateExplanation]:
        """Bivariate Shapley matrix of row ``x`` (see :func:`interplay.bivariate`); a pandas row's label is kept
        in ``info["row"]``."""
        label = _row_label(x)
        reason = self._auto_tree(method, y, options)
        if method == "tree" or reason:
            from .trees.explain import explain_bivariate
            x = self._rows(x, "x")  # checked as on the sampling path (missing values: against the model)
            with self._checked_rows():
                result = explain_bivariate(self, x, y, budget=budget, **options)
            return self._row_data(self._grouped(_labelled(self._noted(result, reason) if reason else result,
                                                          label)), x)
        result = self._one("bivariate", x, y, random_state, method=method, budget=budget, **options)
        return self._row_data(self._grouped(_labelled(self._tree_declined(method, y, options, result), label)), x)

    def _row_data(self, result, x: Any):
        """``result`` (or a dict of them) whose univariate Attribution has row ``x``'s feature values as ``data``,
        as ``shapley(x)[0]`` has (its waterfall and ``to_shap()`` showed no values)."""
        results = result if isinstance(result, dict) else {None: result}
        if all(r.univariate.data is not None for r in results.values()):
            return result
        rows = self._rows(x, "x")
        data = (group_data(rows, self.groups) if self.groups is not None else rows)[0]
        results = {k: r if r.univariate.data is not None else replace(r, univariate=replace(r.univariate, data=data))
                   for k, r in results.items()}
        return results if isinstance(result, dict) else results[None]

    def _grouped(self, result):
        """``result`` (or a dict of them) with ``info["groups"]``: each group's columns, as an Explanation's
        (an interaction or Bivariate result of a grouped explainer lost which columns made each group, once saved)."""
        if self.groups is None:
            return result
        if isinstance(result, dict):
            return {k: self._grouped(r) for k, r in result.items()}
        if "groups" in result.info:
            return result
        return _with_info(result, groups=self._groups_info())

    def _groups_info(self) -> dict:
        """``{group name: [its columns]}`` for the groups of more than one column."""
        return {name: [self.column_names[j] for j in cols]
                for name, cols in zip(self.feature_names, self.groups) if len(cols) > 1}

    def __repr__(self) -> str:
        return (f"Explainer(model={self.model.name}, removal={self.removal!r}, output={self.output!r}, "
                f"target={_plain(self.target)!r}, n_features={self.n_features})")


# a result's info entries the Explainer records itself (or per row under their own keys), not copied into
# info["estimators"]
_EXPLAINER_INFO = frozenset({"auto", "null_players", "null_players_note", "kind", "target", "removal", "output",
                             "reference", "seed", "model_kind"})


def _refuse_shap_background(background: Any) -> None:
    """A shap object as background (``shap.kmeans``'s weighted summary, a masker) was refused as "expected numeric
    values, got dtype object"; say what it is and what to pass instead."""
    kind = type(background)
    if kind.__module__.split(".")[0] != "shap":
        return
    weighted = getattr(background, "weights", None) is not None and getattr(background, "data", None) is not None
    raise TypeError(f"background: expected rows (an array or DataFrame), got a shap {kind.__name__}; interplay "
                    "averages over background rows with equal weights, so pass rows, e.g. X.sample(100, "
                    "random_state=0)" + (" (shap.kmeans's centres are .data, but each stands for its weight in "
                                         ".weights, which interplay would not use)" if weighted else ""))


def _text_columns(frame: Any) -> bool:
    """Whether ``frame`` is a DataFrame with a column that is neither numeric nor categorical (text)."""
    dtypes = getattr(frame, "dtypes", None)
    if dtypes is None or not hasattr(frame, "columns") or np.ndim(dtypes) != 1:
        return False
    import pandas as pd

    return any(not pd.api.types.is_numeric_dtype(dt) and not isinstance(dt, pd.CategoricalDtype) for dt in dtypes)


def _missing_problem(model: Any, rows: np.ndarray) -> str | None:
    """Why ``model`` does not take ``rows`` (rows holding missing values), or None when its outputs are finite.

    The model's own function is called (not counted in ``n_calls``) so that NaN outputs and errors are told
    apart from the checks of a regular call."""
    try:
        out = np.asarray(model.fn(model._as_input(rows)), dtype=float)
    except Exception as exc:  # noqa: BLE001 - whatever the model raises on missing values is the answer
        text = str(exc).strip().splitlines()
        return f"the model failed on those rows ({type(exc).__name__}: {text[0][:200] if text else ''})"
    if not np.isfinite(out).all():
        return "the model returned NaN or inf on those rows"
    return None


def _labels(target: Any) -> list:
    """The class labels a ``target`` names (none for ``None``, ``"all"`` and ``"predicted"``)."""
    if target is None or (isinstance(target, str) and target in ("all", "predicted")):
        return []
    return list(target) if isinstance(target, (list, tuple, np.ndarray)) else [target]


def _same_label(a: Any, b: Any, classes: Sequence) -> bool:
    """Whether two entries of a ``target`` list naming one class both name it as a label (``"mid"`` twice), not
    one as a label and one as an output index."""
    try:
        return a in classes and b in classes
    except (TypeError, ValueError):
        return False


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python value it holds (``1``, not ``np.int64(1)``, in a repr)."""
    return value.item() if isinstance(value, np.generic) else value


def _row_seeds(random_state: Any, n_rows: int) -> list[np.random.SeedSequence]:
    """One seed per explained row: ``SeedSequence(entropy).spawn(n_rows)`` with ``entropy`` drawn once from
    ``random_state`` (what :func:`interplay.runs.run` gives row ``i``)."""
    return np.random.SeedSequence(check_random_state(random_state).integers(2**63)).spawn(n_rows)


class _AutogradMatrix(np.ndarray):
    """SHEAR's cross-contribution computed by :meth:`Explainer.cross_contribution`: an ordinary matrix whose
    ``source`` SHEAR records in ``info["cross_contribution"]`` (a plain matrix reads "user matrix")."""

    source = "autograd Hessian (SHEAR Eq. 11)"


def _widened(dtypes: tuple) -> tuple:
    """Integer columns as float64, so that a mean/median reference (e.g. 45.5) is not truncated."""
    from pandas.api.types import is_bool_dtype, is_integer_dtype

    return tuple(np.dtype(float) if is_integer_dtype(dt) and not is_bool_dtype(dt) else dt for dt in dtypes)


def _torch_utility(transform: OutputTransform):
    """The output transform written with torch operations (differentiable), for :meth:`Explainer.cross_contribution`.

    Computed in float64, as the NumPy transforms are: in a float32 module's dtype the log-odds clip
    ``1 - 1e-12`` is 1.0, so a saturated sigmoid (p = 1) gave ``log1p(-1) = -inf`` and a NaN Hessian."""
    import torch

    def utility(out):
        column = out[:, transform.column].to(torch.float64)
        if transform.output in ("prediction", "probability"):
            return column
        if transform.output == "log-odds":
            p = column.clamp(1e-12, 1 - 1e-12)
            return torch.log(p) - torch.log1p(-p)
        if transform.regression:
            return -(column - float(transform.label)) ** 2
        return torch.log(column.clamp(1e-12, 1.0))

    return utility


__all__ = ["Attribution", "Explainer", "ExplanationInterrupted"]


class ExplanationInterrupted(KeyboardInterrupt):
    """Ctrl-C during :meth:`Explainer.shapley` / :meth:`Explainer.banzhaf` over many rows: ``partial`` holds the
    Explanation (or dict of them) of the rows finished before it."""

    def __init__(self, message: str, partial: Any) -> None:
        super().__init__(message)
        self.partial = partial

    def __reduce__(self):  # picklable (sent between processes): the message and the finished rows
        return type(self), (str(self), self.partial)


TREE_OPTIONS = {"tree_path_dependent", "std_errors"}  # options method="tree" takes (std_errors: ignored, exact)


def _with_info(result, **extra):
    """A copy of an immutable result with ``extra`` added to its ``info``."""
    from dataclasses import replace
    return replace(result, info={**result.info, **extra})


def _row_label(x: Any) -> Any:
    """The pandas label of a one-row input (a one-row DataFrame's index, a Series row's name), as an int or
    a string; None for arrays and unnamed rows."""
    if hasattr(x, "columns"):
        index = getattr(x, "index", None)
        label = index[0] if index is not None and len(index) == 1 else None
    elif hasattr(x, "index") and hasattr(x, "name"):  # a Series: one row, named by its label in the frame
        label = x.name
    else:
        return None
    label = label.item() if isinstance(label, np.generic) else label
    return None if label is None else (label if isinstance(label, (int, str)) else str(label))


def _labelled(result, label: Any):
    """``result`` (or a dict of them) with ``info["row"] = label`` (unless None or already set), so that a report
    pairs it with the same row of other results."""
    if label is None:
        return result
    if isinstance(result, dict):
        return {k: _labelled(r, label) for k, r in result.items()}
    return result if "row" in result.info else _with_info(result, row=label)


def _seed(random_state: Any) -> dict:
    """``{"seed": random_state}`` for an int seed (what reproduces the result), else nothing."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
        return {"seed": int(random_state)}
    return {}


def _row_index(result, X: Any, random_state: Any = None):
    """``result`` (or a dict of them) with the input rows' pandas index in ``info["index"]`` (for
    ``Explanation.to_pandas()``), when ``X`` had one, and an int ``random_state`` in ``info["seed"]``."""
    extra = _seed(random_state)
    index = getattr(X, "index", None)
    if index is not None and hasattr(X, "columns"):
        labels = [v.item() if isinstance(v, np.generic) else v for v in index]
        if not all(isinstance(v, (int, str)) for v in labels):
            labels = [str(v) for v in labels]
        extra.update({"index": labels} if index.name is None else {"index": labels, "index_name": str(index.name)})
    if not extra:
        return result
    if isinstance(result, dict):
        return {k: _with_info(r, **extra) for k, r in result.items()}
    return _with_info(result, **extra)
