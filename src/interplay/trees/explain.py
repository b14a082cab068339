"""``method="tree"`` for :class:`interplay.Explainer`: exact values of tree ensembles without coalition sampling.

``Explainer(tree_model, background, removal="marginal").shapley(X, method="tree")`` computes the exact
interventional Shapley values of the Explainer's marginal game (equal to ``method="exact"`` on it, for any
number of features); ``banzhaf``, ``interactions(x, index="sii"|"bii", order=2)`` and ``bivariate`` likewise.
``removal="baseline"`` is the same computation with the reference vector as the only background row.
``tree_path_dependent=True`` (``shapley`` and ``interactions(index="sii")``) gives Lundberg et al.'s
path-dependent TreeSHAP and SHAP interaction values instead, which use the trees' covers and ignore the
background. Raw inputs (pandas categoricals, Pipelines with encoders) reach the trees as in
:mod:`interplay.trees.inputs`.

One unit for every method: the trees sum to forests' ``predict``/``predict_proba`` (the Explainer's
``output="prediction"``/``"probability"``) and to boosters' raw margin (``output="log-odds"`` for a binary
booster, whose margin *is* the log-odds of class 1 -- class 0 gets minus it --, ``output="margin"`` for any
booster, ``"prediction"`` for a regressor with the identity link). When the trees do not sum to the
Explainer's output, ``method="tree"`` refuses with the output it can give, and ``method="auto"`` picks a
sampler. ``info["output"]`` and ``info["target"]`` record the unit and target, as for every method.
``n_evaluations`` is 0: no coalition is evaluated.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Any

import numpy as np

from .._validation import check_bool, check_numeric_matrix, one_target
from ..results import Attribution, BivariateExplanation, Explanation, Interactions
from .ensemble import TreeEnsemble
from .inputs import TreeInputs, tree_inputs
from .interventional import interventional_indices, interventional_shapley
from .path_dependent import path_dependent_interactions, path_dependent_shapley

CHUNK = 512  # rows per coded ensemble (Pipelines): bounds the codes per column, hence the node bitsets


def _check_supported(explainer, y: Any) -> None:
    if explainer.output == "loss" or y is not None:
        raise ValueError("output: method='tree' explains the model's output, not a loss; use output='auto'")
    if getattr(explainer, "groups", None) is not None:
        raise ValueError("groups: method='tree' explains single input columns; drop groups= (or sum the tree "
                         "values of a group's columns yourself, which is not the group's Shapley value)")


def _is_multi(target: Any) -> bool:
    return isinstance(target, (list, tuple, np.ndarray)) or (isinstance(target, str) and target == "all")


def _unit_problem(explainer, ensemble: TreeEnsemble) -> str | None:
    """Why the trees' sum is not the Explainer's output (None when it is), in the user's terms."""
    model, output = explainer.model, explainer.output
    if ensemble.output == "margin":
        if model.kind == "classifier":
            if output == "margin" or (output == "log-odds" and ensemble.n_outputs == 1):
                return None
            can = "output='log-odds'" if ensemble.n_outputs == 1 else "output='margin'"
            score = "raw score (log-odds)" if ensemble.n_outputs == 1 else "raw per-class scores (margins)"
            return (f"{ensemble.source}'s trees add up to its {score}, not the {output} this "
                    f"Explainer explains; pass {can} (the default) for exact tree values, or use a sampling method")
        if output in ("prediction", "margin"):  # the prediction: checked below (a link function is not)
            return None
        return f"{ensemble.source}'s trees add up to its prediction"
    if output != ensemble.output:
        return (f"{ensemble.source}'s trees average to its {ensemble.output}, not the {output} this Explainer "
                f"explains; pass output={ensemble.output!r} (the default) or use a sampling method")
    return None


FLOAT32_SUMS = ("xgboost.",)  # sources whose library adds its trees' leaf values in single precision


def output_gap(explainer, inputs: TreeInputs) -> str | None:
    """Why the trees do not reproduce the explained model output on (up to 32) background rows; None when
    they do.

    They do when every row agrees within ``1e-6 + 1e-5 |output|`` plus, for a library that adds its trees
    in single precision (XGBoost), the worst-case rounding of that sum: ``(trees + 1) 2**-24`` times the sum of
    the magnitudes of the base and the leaf values the row reaches (Higham, *Accuracy and Stability of
    Numerical Algorithms*, 2002, Eq. 4.4). Without it a 200-tree XGBoost model (about 1e-5 apart on rows whose
    margin is near 0) was left to a sampler."""
    import warnings
    from dataclasses import replace

    background = _background(explainer)[:32]
    try:
        with warnings.catch_warnings():  # e.g. scikit-learn's "X does not have valid feature names"
            warnings.simplefilter("ignore")
            mine = np.asarray(explainer._scores(background), dtype=float).reshape(len(background), -1)
    except Exception as exc:  # noqa: BLE001  (a model that cannot run on the background: no tree shortcut)
        return f"the model could not be called on the background rows ({type(exc).__name__}: {exc})"
    ensemble, B, _ = inputs.prepared(background, background[:1])
    theirs = ensemble.predict(B)
    if theirs.shape[1] == 1 and mine.shape[1] == 2 and explainer.model.kind == "classifier":
        mine = mine[:, 1:]  # a binary booster's raw score [-m, m]
    if mine.shape != theirs.shape:
        return f"the trees give {theirs.shape[1]} outputs per row, the model {mine.shape[1]}"
    allowed = 1e-6 + 1e-5 * np.abs(theirs)
    if ensemble.source.startswith(FLOAT32_SUMS):
        magnitudes = replace(ensemble, value=np.abs(ensemble.value), base=np.abs(ensemble.base)).predict(B)
        allowed = allowed + (ensemble.n_trees + 1) * 2.0**-24 * magnitudes
    gap = np.abs(mine - theirs)
    if np.all(gap <= allowed):  # NaN gaps fail
        return None
    worst = int(np.nanargmax(np.where(np.isnan(gap), np.inf, gap - allowed)))
    return (f"the trees read from {ensemble.source} give {theirs.flat[worst]:.9g} where the model gives "
            f"{mine.flat[worst]:.9g} on a background row (allowed difference {allowed.flat[worst]:.3g})")


def _checked_inputs(explainer, y: Any, *, verify: bool = False) -> TreeInputs:
    """The tree inputs of an Explainer whose output the trees give exactly (else a ValueError saying why).

    The trees are checked against the model on the background rows (:func:`output_gap`) once per Explainer
    setting (removal, output, target), and again with ``verify``: a forced ``method="tree"`` on an XGBoost
    model with ``missing=-999`` summed to -2.42 where the model gave 1.08 before that check was made for it."""
    _check_supported(explainer, y)
    inputs = tree_inputs(explainer)
    verified = explainer.__dict__.setdefault("_tree_verified", set())
    setting = (explainer.removal, explainer.output, str(explainer.target))
    verify = verify or setting not in verified
    problem = _unit_problem(explainer, inputs.ensemble)
    link = (inputs.ensemble.output == "margin" and explainer.model.kind != "classifier"
            and explainer.output != "margin")
    gap = None
    if problem is None and (verify or link or inputs.owner is not None):
        gap = output_gap(explainer, inputs)
    if gap is not None and link:  # e.g. a Poisson booster: prediction = exp(margin)
        problem = (f"{inputs.ensemble.source}'s trees add up to its raw score, which is not its prediction "
                   f"(a link function?): {gap}; pass output='margin' for exact tree values of the raw score (what "
                   "shap's TreeExplainer explains), or use a sampling method for the prediction")
    elif gap is not None and inputs.owner is not None:
        problem = (f"the trees of {inputs.ensemble.source} read through the Pipeline's steps do not reproduce the "
                   f"Pipeline's output: {gap}; use a sampling method")
    elif gap is not None:
        problem = f"the trees do not reproduce the model's output: {gap}; use a sampling method"
    if problem is not None:
        raise ValueError(f"output: {problem}")
    verified.add(setting)
    return inputs


def _target_sets(explainer, ensemble: TreeEnsemble, rows: np.ndarray) -> tuple[bool, list]:
    """``(multi, [(key, columns, signs, labels)])``: for each explained target, the ensemble output column and
    sign of every row, following the Explainer's ``target`` (a label or index; a list of them or ``"all"``:
    one result per target; ``"predicted"``: each row's predicted class). ``rows`` are the trees' inputs."""
    model = explainer.model
    classes = list(model.classes) if model.classes is not None else None
    binary_margin = ensemble.output == "margin" and model.kind == "classifier" and ensemble.n_outputs == 1
    n_labels = len(classes) if classes is not None else (2 if binary_margin else ensemble.n_outputs)
    n = len(rows)

    def fixed(label):  # keyed and labelled by the class explained (target=2 of classes [5, 6, 7]: 7), as samplers
        column = explainer._class_column(label, n_labels, "target")
        label = explainer._label_of(column)
        return (label, np.full(n, column, dtype=np.int64), [label] * n)

    target = explainer.target
    if explainer._predicted(target) and model.kind == "classifier":
        # the ensemble ranks classes as the model does (probabilities, or margins), NaN included
        outputs = ensemble.predict(rows)
        if outputs.shape[1] == 1:  # binary booster: class 1 iff its margin is positive
            outputs = np.hstack([np.zeros_like(outputs), outputs])
        columns = np.argmax(outputs, axis=1).astype(np.int64)
        labels = [classes[c] if classes is not None else int(c) for c in columns]
        sets = [(None, columns, labels)]
    elif target is None:
        if model.kind == "classifier" and n_labels <= 2:
            sets = [fixed(n_labels - 1)]
        elif ensemble.n_outputs > 1:
            raise ValueError(f"target: the model returns {ensemble.n_outputs} outputs; choose one with target=")
        else:
            sets = [(None, np.zeros(n, dtype=np.int64), [0] * n)]
    elif isinstance(target, str) and target == "all":
        sets = [fixed(label) for label in (classes if classes is not None else range(n_labels))]
    elif _is_multi(target):
        if len(target) == 0:
            raise ValueError("target: expected at least one output")
        sets = [fixed(label) for label in target]
    else:
        sets = [fixed(target)]
    out = []
    for key, columns, labels in sets:
        signs = np.ones(n)
        if binary_margin:  # one margin column: log-odds of class 1, minus it for class 0
            signs = np.where(columns == 1, 1.0, -1.0)
            columns = np.zeros(n, dtype=np.int64)
        out.append((key, columns, signs, labels))
    return _is_multi(target), out


def _background(explainer) -> np.ndarray:
    if explainer.removal == "marginal":
        return explainer.background
    if explainer.removal == "baseline":
        return np.asarray(explainer.reference, dtype=object if explainer.raw else float)[None, :]
    raise ValueError("removal: method='tree' computes marginal (interventional) or baseline removal exactly; "
                     "for removal='conditional' use a sampling method, or tree_path_dependent=True")


def _rows(explainer, X, name: str) -> np.ndarray:
    if (explainer.__dict__.get("_rows_checked") and isinstance(X, np.ndarray) and X.ndim == 2
            and X.shape[1] == explainer.n_columns):
        return X  # already read by the Explainer (Explainer._checked_rows): not parsed twice
    if explainer.raw:  # raw columns (categoricals): as on the sampling path
        return explainer._rows(X, name)
    X = explainer._align_frame(X, name)  # matched by name, as on the sampling path
    rows, _ = check_numeric_matrix(X, name, n_columns=explainer.n_columns, allow_nan=True)  # trees take NaN
    return rows


def _label(value):
    return value.item() if isinstance(value, np.generic) else value


def _names(explainer, n: int) -> tuple:
    return explainer.feature_names or tuple(f"x{i}" for i in range(n))


PROBE_ROWS = 64  # rows of the first batch, timed to size the others
PROBE_ABOVE = 256  # jobs of more rows are batched (fewer: one batch, no extra background set-up)
BATCH_SECONDS = 10.0  # CPU seconds a later batch should take (each batch repeats the background's set-up)
QUICK_SECONDS = 15.0  # below this much estimated work the rest goes in one batch


def _batches(inputs: TreeInputs, rows: np.ndarray, background: np.ndarray):
    """``(slice, ensemble, X, B)`` per batch of rows: one batch (a coded Pipeline ensemble: ``CHUNK`` rows a
    batch), or with more than :data:`PROBE_ABOVE` rows a first batch of :data:`PROBE_ROWS` whose CPU
    time sizes the others to about :data:`BATCH_SECONDS` each (a tail under half a batch joins the last one), so
    progress can be shown (its lines come every 30 s) and Ctrl-C stops between batches, while the background's
    set-up, repeated by each batch (0.14 s for 1,000 background rows and 300 trees, against 6 ms a row), costs a
    few percent (the rest in one batch when it is quick). Values do not depend on the batches (rows are
    independent)."""
    cap = len(rows) if inputs.owner is None else CHUNK
    step = min(PROBE_ROWS, cap) if len(rows) > PROBE_ABOVE else cap
    start = 0
    while start < len(rows):
        stop = min(start + max(step, 1), len(rows))
        if len(rows) - stop < max(step, 1) // 2 and start > 0:  # a small tail: in this batch, not a set-up of its own
            stop = min(len(rows), start + cap)
        part = slice(start, stop)
        began = time.process_time()
        ensemble, X, B = inputs.prepared(rows[part], background)
        yield part, ensemble, X, B  # the caller computes the batch before asking for the next
        if start == 0 and stop < len(rows):
            per_row = (time.process_time() - began) / stop
            left = len(rows) - stop
            step = left if per_row * left < QUICK_SECONDS else max(PROBE_ROWS, int(BATCH_SECONDS / max(per_row, 1e-9)))
            step = min(step, cap)
        start = stop


def _info(explainer, inputs: TreeInputs, kind: str, tree: str, labels: list) -> dict:
    targets = [_label(t) for t in labels]
    # path-dependent TreeSHAP removes features by the trees' own training cover, not by the explainer's removal
    removal = "path-dependent (tree cover)" if tree == "path-dependent" else explainer.removal
    reference = {} if tree == "path-dependent" else explainer._reference_info()
    return {"removal": removal, "output": explainer.output, "kind": kind, "model": inputs.ensemble.source,
            "tree": tree, "target": one_target(targets), "targets": targets, **reference}


def explain_rows(explainer, kind: str, X: Any, y: Any = None, *, budget: int | None = None,
                 tree_path_dependent: bool = False, std_errors: bool = True, progress: bool | None = None,
                 **options):
    """``Explainer.shapley``/``banzhaf`` with ``method="tree"`` (no sampling, ``budget`` unused); ``progress`` as
    for the sampling path (:mod:`interplay._progress`: shown once the rows take a few seconds). The rows go in
    batches of a few seconds (:func:`_batches`); Ctrl-C stops after the current one and raises
    :class:`~interplay.ExplanationInterrupted` with the finished rows (all of them when it came in the last).

    Returns an :class:`Explanation` (a dict of them, keyed by target, for a list of targets or ``"all"``)."""
    if options:
        from ..api import _parallel_hint

        raise TypeError(f"method='tree' takes no options {sorted(options)} (only tree_path_dependent= and "
                        f"std_errors=, which it ignores: its values are exact){_parallel_hint(sorted(options))}")
    if kind not in ("shapley", "banzhaf"):
        raise ValueError(f"method='tree' supports shapley, banzhaf, interactions and bivariate, not {kind!r}")
    tree_path_dependent = check_bool(tree_path_dependent, "tree_path_dependent")  # 'no' would mean True
    check_bool(std_errors, "std_errors")
    if tree_path_dependent and kind != "shapley":
        raise ValueError(f"tree_path_dependent=True: path-dependent TreeSHAP gives Shapley values (shapley) and SHAP "
                         f"interaction values (interactions, index='sii'), not {kind}; drop it to explain the "
                         "interventional game")
    inputs = _checked_inputs(explainer, y)
    rows = _rows(explainer, X, "X")
    total = len(rows)
    background = rows[:1] if tree_path_dependent else _background(explainer)
    from .._progress import progress as shown

    per_target: dict = {}
    done, stopped = 0, False
    with shown(len(rows), f"explaining ({kind}, tree)", enabled=progress) as bar, _deferred_interrupt() as hit:
        for part, ensemble, Xp, B in _batches(inputs, rows, background):
            multi, sets = _target_sets(explainer, ensemble, Xp)
            for key, columns, signs, labels in sets:
                if tree_path_dependent:
                    values, base = path_dependent_shapley(ensemble, Xp, column=columns, sign=signs)
                else:
                    values, base = interventional_shapley(ensemble, Xp, B, column=columns, sign=signs,
                                                          banzhaf=kind == "banzhaf")
                got = per_target.setdefault(key, ([], [], []))
                got[0].append(values)
                got[1].append(base)
                got[2].extend(labels)
            bar.update(len(Xp))
            done += len(Xp)
            if hit():  # Ctrl-C during the batch (the last one too): the finished batches travel with the exception
                stopped = True
                break
    rows = rows[:done]
    tree = "path-dependent" if tree_path_dependent else "interventional"
    extra = {}
    if rows.dtype == object:  # raw rows, as the sampling path keeps them
        extra["raw_data"] = [[_label(v) for v in row] for row in rows]
    results = {key: Explanation(values=np.vstack(v), base_values=np.concatenate(b), data=rows,
                                feature_names=_names(explainer, rows.shape[1]), method="tree",
                                n_evaluations=np.zeros(len(rows), dtype=np.int64),
                                info={**_info(explainer, inputs, kind, tree, labels), **extra})
               for key, (v, b, labels) in per_target.items()}
    results = results if multi else next(iter(results.values()))
    if stopped:
        from ..explainer import ExplanationInterrupted

        raise ExplanationInterrupted(f"interrupted after {done} of {total} rows (the exact tree path stops between "
                                     "its batches of a few seconds): the finished rows are in this exception's "
                                     ".partial", results)
    return results


@contextmanager
def _deferred_interrupt():
    """Ctrl-C (SIGINT) recorded, not raised, while the compiled tree kernels run (a KeyboardInterrupt raised inside
    them came out as a SystemError, or the process crashed): yields ``hit()``, whether one came; the caller stops
    after the batch. A second Ctrl-C raises at once. The previous handler is restored after. Outside the main
    thread (where no handler can be set) or with a handler not Python's own, nothing changes."""
    import signal
    import threading

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield lambda: False
        return
    came: list = []

    def record(signum, frame):
        came.append(signum)
        if len(came) > 1:  # a second Ctrl-C: at once (where the kernels run, as before: a SystemError or worse)
            raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, record)
    try:
        yield lambda: bool(came)
    finally:
        signal.signal(signal.SIGINT, previous)


def _per_target(explainer, x, y, make, *, path_dependent: bool = False):
    inputs = _checked_inputs(explainer, y)
    row = _rows(explainer, x, "x")
    if len(row) != 1:
        from ..explainer import ONE_ROW_HINT

        raise ValueError(f"x: expected one row, got {len(row)}{ONE_ROW_HINT}")
    background = row if path_dependent else _background(explainer)
    ensemble, X, B = inputs.prepared(row, background)
    multi, sets = _target_sets(explainer, ensemble, X)
    names = _names(explainer, row.shape[1])
    results = {}
    for key, columns, signs, labels in sets:
        info = _info(explainer, inputs, "interactions", "path-dependent" if path_dependent else "interventional",
                     labels)
        info.pop("targets")
        if path_dependent:
            phi, sii, base = path_dependent_interactions(ensemble, X, column=columns, sign=signs)
            results[key] = make(phi[0], sii[0], float(base[0]), names, info)
        else:
            indices = interventional_indices(ensemble, X, B, column=int(columns[0]), sign=float(signs[0]))
            results[key] = make(indices, names, info)
    return results if multi else next(iter(results.values()))


def explain_interactions(explainer, x: Any, index: str, order: int, y: Any = None, *, budget: int | None = None,
                         tree_path_dependent: bool = False, std_errors: bool = True, **options):
    """``Explainer.interactions(x, index="sii"|"bii", order=1|2, method="tree")``: exact, closed forms.

    With ``index="sii"``, ``result.info["shap_interaction_values"]`` is the ``(d, d)`` matrix (a nested list, as
    ``info`` stores it: ``np.asarray`` makes it the array) in shap's format
    (``SII / 2`` off the diagonal, the rest of each Shapley value on it; rows sum to the Shapley values):
    of the interventional game by default (which shap does not compute), and with
    ``tree_path_dependent=True`` of the path-dependent game, equal to
    ``shap.TreeExplainer(model).shap_interaction_values(x)`` for the explained output."""
    if options:
        raise TypeError(f"method='tree' takes no options {sorted(options)}")
    tree_path_dependent = check_bool(tree_path_dependent, "tree_path_dependent")
    check_bool(std_errors, "std_errors")
    if index not in ("sii", "bii") or order not in (1, 2):
        raise ValueError(f"index/order: method='tree' computes index='sii' or 'bii' with order 1 or 2, "
                         f"got index={index!r}, order={order!r}")
    if tree_path_dependent and index != "sii":
        raise ValueError(f"index: tree_path_dependent=True computes SHAP interaction values (index='sii'), "
                         f"got index={index!r}")

    def result(single, pairs, base, names, info):
        values = {(i,): float(v) for i, v in enumerate(single)}
        if order == 2:
            iu, ju = np.triu_indices(len(single), 1)
            values.update(zip(zip(iu.tolist(), ju.tolist()), pairs[iu, ju].tolist()))
        return Interactions(values, index, order, base, names, 0, "tree", info=info)

    from .path_dependent import shap_interaction_values

    if tree_path_dependent:
        def make_path(phi, sii, base, names, info):
            info = {**info, "shap_interaction_values": shap_interaction_values(phi, sii).tolist()}
            return result(phi, sii, base, names, info)

        return _per_target(explainer, x, y, make_path, path_dependent=True)

    def make(indices, names, info):
        single = indices.shapley if index == "sii" else indices.banzhaf
        pairs = indices.sii if index == "sii" else indices.bii
        if index == "sii":
            info = {**info, "shap_interaction_values": shap_interaction_values(single, pairs).tolist()}
        return result(single, pairs, indices.base, names, info)

    return _per_target(explainer, x, y, make)


def explain_bivariate(explainer, x: Any, y: Any = None, *, budget: int | None = None, std_errors: bool = True,
                      **options):
    """``Explainer.bivariate(x, method="tree")``: the exact Bivariate Shapley matrix from closed forms."""
    check_bool(std_errors, "std_errors")
    if check_bool(options.get("tree_path_dependent", False), "tree_path_dependent"):
        raise ValueError("tree_path_dependent=True: path-dependent TreeSHAP gives Shapley values (shapley) and SHAP "
                         "interaction values (interactions, index='sii'), not the Bivariate Shapley matrix; drop it "
                         "to explain the interventional game")
    options.pop("tree_path_dependent", None)
    if options:
        raise TypeError(f"method='tree' takes no options {sorted(options)}")

    def make(indices, names, info):
        info = {**info, "kind": "bivariate"}
        univariate = Attribution(indices.shapley, indices.base, names, 0, "tree", info={**info, "kind": "shapley"})
        return BivariateExplanation(indices.adjacency, univariate, names, 0, "tree", info=info)

    return _per_target(explainer, x, y, make)


def tree_choice(explainer, y: Any = None) -> str | None:
    """Why ``method="auto"`` can use the exact tree algorithms for this Explainer, or ``None`` when it cannot.

    Only when the model is a tree ensemble interplay reads (also inside a Pipeline, and on pandas
    categoricals), the removal is marginal or baseline, no loss or groups are explained, and the trees' summed
    output *is* the Explainer's output (checked on the background rows), so the tree values have the unit of
    every other method: a booster explained as a probability is left to the samplers rather than silently
    explained in log-odds.
    """
    if explainer.removal not in ("marginal", "baseline") or getattr(explainer, "model", None) is None:
        return None
    return tree_check(explainer, y)[0]


def tree_rejection(explainer, y: Any = None) -> str | None:
    """Why ``method="auto"`` did not use the tree algorithms although the model is a tree ensemble (or a
    Pipeline ending in one) interplay reads; None when it did, or when the model is not one."""
    if getattr(explainer, "model", None) is None:
        return None
    if explainer.removal not in ("marginal", "baseline"):
        readable = explainer.__dict__.get("_tree_readable")
        if readable is None:  # once per Explainer: a model the reader refuses is not cached by tree_inputs
            try:
                tree_inputs(explainer)
                readable = True
            except (TypeError, ValueError, ImportError):  # not a tree model interplay reads
                readable = False
            explainer.__dict__["_tree_readable"] = readable
        if not readable:
            return None
        return (f"removal={explainer.removal!r}: the tree algorithms need marginal or baseline removal (background "
                "rows that do not depend on x); use removal='marginal' for exact tree values")
    return tree_check(explainer, y)[1]


def tree_check(explainer, y: Any) -> tuple[str | None, str | None]:
    """``(reason to use the trees, reason not to)`` for this Explainer setting (at most one of them; neither
    for a model that is not a tree ensemble), cached on the Explainer: the check calls the model."""
    key = (explainer.removal, explainer.output, str(explainer.target), y is None)
    cached = explainer.__dict__.setdefault("_tree_choices", {})
    if key not in cached:
        cached[key] = _tree_reason(explainer, y)
    return cached[key]


def _tree_reason(explainer, y: Any) -> tuple[str | None, str | None]:
    try:
        tree_inputs(explainer)
    except TypeError:  # not a tree model interplay reads
        return None, None
    except (ValueError, ImportError) as exc:  # a tree model that could not be read
        return None, f"its trees could not be read ({exc})"
    try:
        inputs = _checked_inputs(explainer, y, verify=True)
    except (TypeError, ValueError, ImportError) as exc:
        return None, str(exc)
    return (f"the model is a tree ensemble ({inputs.ensemble.source}) whose output is the explained "
            f"{explainer.output}: exact interventional tree algorithm, no sampling"), None
