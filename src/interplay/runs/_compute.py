"""The work of one chunk: explain each of its rows with the row's own seed (the only code workers run).

Row ``i`` (global index) is explained exactly as :meth:`interplay.Explainer.shapley` explains it:
``api.<kind>(explainer.game(x_i, y_i), method, budget, random_state=row_seed(entropy, i), **options)``, with the
row's null players (:mod:`interplay.fixed_players`) as exact zeros and the rest a smaller game, and the
Explainer's per-row options (``method="shear"`` on a PyTorch model: the row's autograd cross-contribution).
Cost per row: that of the method on one game (``2**d`` coalitions for ``method="exact"``).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from .._optional import installed
from ._seeding import row_seed
from ._sources import Chunk

KINDS = ("shapley", "banzhaf", "bivariate")


@dataclass(frozen=True)
class Task:
    """What every row of a run computes (the same for all chunks)."""

    kind: str
    method: str
    budget: int | None
    entropy: int
    options: dict = field(default_factory=dict)
    call_rows: int | None = None  # model rows per call (ip.run's call_rows=, recorded in its manifest)


def resolve_method(explainer: Any, kind: str, method: str) -> str:
    """``"tree"`` for ``method="tree"``, and for ``method="auto"`` when the Explainer's model is a tree ensemble
    whose trees give the explained output (:func:`interplay.trees.explain.tree_choice`); else ``method``.
    A run explains one output: an Explainer of several (a multi-class model's default) is refused here."""
    if getattr(explainer, "_multi_target", False):
        raise ValueError(f"target: a batch run explains one output, this Explainer explains {explainer.target!r} "
                         "(a multi-class model's default is every class); build it with target= one class, "
                         "or target='predicted' for each row's predicted class")
    if method == "tree":
        return method
    if method == "auto" and kind in KINDS and installed("numba"):
        from ..trees.explain import tree_choice

        if tree_choice(explainer) is not None:
            return "tree"
    return method


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread while rows are computed, in this process and in every worker alike
    (:func:`interplay._threads.one_thread`, the model calls included).

    A multi-threaded BLAS may sum in another order (the last bits of a matrix product differ), and worker
    processes get fewer threads than the driver (``cpu_count // n_jobs``): without this limit the values of a
    run depended on ``n_jobs`` and the backend in their last bits. Only BLAS is limited (a model's own OpenMP
    threads, e.g. LightGBM's predictions, which do not change the numbers, are left alone). Needs threadpoolctl
    (installed with scikit-learn); without it the thread counts are left as they are."""
    from .._threads import one_thread

    with one_thread():
        yield


@contextmanager
def fixed_call_size(explainer: Any, rows: int | None = None) -> Iterator[None]:
    """The explainer's model calls hold ``rows`` rows (the run's ``call_rows``; None: the model's own
    ``call_rows`` where it has one, a torch module on a GPU, else the sizer's start size, 1,024 rows or 1 MiB)
    while a chunk is computed, whatever the timings (the
    :class:`interplay.removal._columns.CallSizer` does not learn): a BLAS model's last bits depend on the rows a
    call holds, so with learned sizes two runs of an MLP differed in 26 of 100 rows (5.6e-17), and a resume from
    its run. Restored after."""
    from ..removal._columns import CallSizer

    if not hasattr(explainer, "max_rows"):  # not an interplay.Explainer: nothing learned
        yield
        return
    saved = explainer.__dict__.get("_call_sizer")
    if rows is None:  # the model's own size (a torch module on a GPU), fixed too: the same device, the same calls
        rows = getattr(getattr(explainer, "model", None), "call_rows", None)
    explainer._call_sizer = CallSizer(explainer.max_rows, learn=False, rows=rows)
    try:
        yield
    finally:
        if saved is None:
            explainer.__dict__.pop("_call_sizer", None)
        else:
            explainer._call_sizer = saved


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _tree_results(explainer: Any, task: Task, chunk: Chunk) -> tuple[list, list]:
    """Exact tree results (no sampling, no seed) of the chunk's rows, one per row, and the output each explains."""
    if task.kind == "bivariate":
        results = [explainer.bivariate(x[None, :], method="tree", **task.options) for x in chunk.rows]
        return results, [_plain(r.info.get("target")) for r in results]
    return _rows_of(getattr(explainer, task.kind)(chunk.rows, method="tree", **task.options))


def _rows_of(expl) -> tuple[list, list]:
    from ..results import Attribution

    if isinstance(expl, dict):
        raise ValueError("target: a batch run explains one output; pass target= one class (or output)")
    targets = list(expl.info.get("targets") or [expl.info.get("target")] * len(expl))
    return ([Attribution(v, float(b), expl.feature_names, int(n), expl.method, info=expl.info)
             for v, b, n in zip(expl.values, expl.base_values, expl.n_evaluations)], [_plain(t) for t in targets])


def _sampled_results(explainer: Any, task: Task, chunk: Chunk) -> tuple[list, list]:
    """The chunk's rows by the task's sampler, each with its own seed, and the output each row's game explains
    (its predicted class for ``target="predicted"``), as :meth:`interplay.Explainer.shapley` does."""
    labels = chunk.labels if chunk.labels is not None else [None] * len(chunk.rows)
    results, targets = [], []
    for k, (x, y) in enumerate(zip(chunk.rows, labels)):
        try:
            row = explainer._check_row(x)
            ((target, game),) = explainer._games(row, y).items()
            # as Explainer.shapley: null players (interplay.fixed_players) are exact zeros, the rest a smaller
            # game, and the same per-row options (SHEAR's autograd cross-contribution of a PyTorch model)
            options = explainer._row_options(task.kind, task.method, row, y, None, task.options)
            results.append(explainer._explain_game(task.kind, game, row, method=task.method,
                                                   budget=task.budget,
                                                   random_state=row_seed(task.entropy, chunk.start + k), **options))
        except (ValueError, TypeError) as exc:  # a row's own error names "x": here it is a row of X
            if not str(exc).startswith("x: "):
                raise _on_rows(exc, f"row {chunk.start + k}") from exc
            raise type(exc)(f"X: row {chunk.start + k}: {str(exc)[3:]}") from None
        except Exception as exc:  # the model failed on this row's games: which row (it named no row)
            raise _on_rows(exc, f"row {chunk.start + k}") from exc
        targets.append(_plain(target))
    return results, targets


def _on_rows(exc: Exception, rows: str) -> Exception:
    """``exc`` with the rows of X it happened on first in its message ("X: row 37: model call ... failed"), of the
    same type where its constructor takes one message (else a RuntimeError naming the type)."""
    message = f"X: {rows}: {exc}"
    try:
        raised = type(exc)(message)
    except Exception:  # noqa: BLE001  (an exception type that takes other arguments)
        return RuntimeError(f"X: {rows}: {type(exc).__name__}: {exc}")
    return raised if str(raised) == message else RuntimeError(f"X: {rows}: {type(exc).__name__}: {exc}")


def explain_chunk(explainer: Any, task: Task, chunk: Chunk) -> dict:
    """Arrays for the rows of ``chunk``: ``row``, ``base_value``, ``n_evaluations``, ``values`` ``(m, d)``,
    ``std_errors`` ``(m, d)`` or ``None``, ``adjacency`` ``(m, d, d)`` for ``kind="bivariate"``, ``target``
    (the output each row explains) and, under ``method="auto"``, ``method`` (what each row's choice was). BLAS
    runs on one thread (:func:`one_blas_thread`), whatever the backend."""
    with one_blas_thread(), fixed_call_size(explainer, task.call_rows):
        if task.method == "tree":
            try:
                results, targets = _tree_results(explainer, task, chunk)
            except Exception as exc:  # the chunk's rows are explained together: which rows
                if str(exc).startswith("X: "):
                    raise
                raise _on_rows(exc, f"rows {chunk.start}..{chunk.start + len(chunk.rows) - 1}") from exc
        else:
            results, targets = _sampled_results(explainer, task, chunk)
    attributions = [r.univariate for r in results] if task.kind == "bivariate" else results
    return {
        "start": chunk.start,
        "row": np.arange(chunk.start, chunk.start + len(chunk.rows), dtype=np.int64),
        "base_value": np.array([a.baseline for a in attributions], dtype=float),
        "n_evaluations": np.array([r.n_evaluations for r in results], dtype=np.int64),
        "values": np.array([a.values for a in attributions], dtype=float),
        "std_errors": _std_errors(task, results, attributions),
        "adjacency": np.array([r.adjacency for r in results], dtype=float) if task.kind == "bivariate" else None,
        "target": targets,
        "method": [r.method for r in results] if task.method == "auto" else None,
        # per row: the features explained as exact zeros (interplay.fixed_players), as Explainer.shapley's info
        "null_players": [list(a.info.get("null_players", [])) for a in attributions],
        # per row: the budget it used (the resolved default when the run gave none), None where the method has
        # none (exact enumeration, tree values), as Explainer.shapley's info records it
        "budget": [_budget(r) for r in results],
    }


def _budget(result: Any) -> int | None:
    budget = result.info.get("budget")
    return int(budget) if isinstance(budget, (int, np.integer)) and not isinstance(budget, bool) else None


def _std_errors(task: Task, results: list, attributions: list) -> np.ndarray | None:
    """The chunk's standard errors ``(m, d)``, or None when its rows have none. Under ``method="auto"`` rows may
    be enumerated (their null players leave few features: no standard errors, exactly 0) beside sampled ones,
    as in :meth:`interplay.Explainer.shapley`: exact rows get 0 and the rest NaN where they have none, and a
    chunk of exact rows only gets zeros too, so the numbers do not depend on how rows fall into chunks."""
    has = [a.std_errors is not None for a in attributions]
    if all(has):
        return np.array([a.std_errors for a in attributions], dtype=float)
    exact = [r.method == "exact" for r in results]
    wanted = task.method == "auto" and task.options.get("std_errors", True) is not False
    if not any(has) and not (wanted and all(exact)):
        return None
    from ..results import rows_std_errors

    return rows_std_errors(attributions, exact)
