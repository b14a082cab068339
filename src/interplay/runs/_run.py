"""``run``: explain every row of a (possibly huge) dataset in chunks, locally or on Ray, resumably.

Flow: check everything once (model picklable, output writable, columns, parameters) -> record the parameters in
the manifest (or check them against the recorded run) -> check the finished chunks' rows against the input
(values, labels y, row labels: :func:`_check_kept`) -> stream the input cut as :func:`_layout` says (the finished
chunks as they are, the rows left in chunks of ``chunk_size``), skipping finished chunks -> compute the others on
the backend -> write each finished chunk
as a Parquet part and record it (one line appended to the run's journal, folded into the manifest when the run
stops). Killing the process at any point loses at most the chunks in flight; running the same call again
finishes the rest, giving exactly the rows and values of an uninterrupted run.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._optional import require
from .._progress import _resolve as progress_enabled
from .._progress import progress as progress_display
from .._validation import check_bool, check_choice, check_feature_names, check_int, check_random_state
from ..estimators import get_estimator
from ..explainer import Explainer
from ._backends import BACKENDS, WorkersDied, make_backend, resolve_n_jobs
from ._compute import KINDS, Task, resolve_method
from ._params import data_fingerprint, dumps_explainer, refuse_mixing, run_parameters, same_target
from ._results import Run
from ._seeding import draw_entropy
from ._sources import Chunk, open_source
from ._store import FORMAT, Store
from ._table import to_table

MAX_JOBS = 4096  # worker processes or actors a run may ask for


def run(explainer: Explainer, X: Any, method: str = "auto", *, out: Any, kind: str = "shapley",
        backend: str = "local", chunk_size: int = 1000, n_jobs: int | None = None, budget: int | None = None,
        random_state: Any = None, resume: bool = True, y: Any = None, store_data: bool = True,
        model_tag: str | None = None, ray_address: str | None = None, progress: bool | None = None,
        call_rows: int | None = None, **options) -> Run:
    """Explain every row of ``X`` with ``explainer``, chunk by chunk, writing results to the folder ``out``.

    Parameters
    ----------
    explainer:
        An :class:`interplay.Explainer` (model, background, removal, output).
    X:
        Rows to explain: a 2-D array, a DataFrame, or the path of a CSV or Parquet file (read in batches).
    method, budget, options:
        The estimator and its options, as in :func:`interplay.shapley` (``kind="shapley"``),
        :func:`interplay.banzhaf` or :func:`interplay.bivariate`. ``"auto"`` (default) gives a tree model
        exact tree values (``"tree"``, as :meth:`Explainer.shapley` does), else each row's automatic choice.
    out:
        Output folder: ``run-manifest.json`` and ``parts/part-*.parquet`` (one per chunk).
    kind:
        ``"shapley"`` (default), ``"banzhaf"`` or ``"bivariate"`` (also stores each row's explanation graph).
    backend:
        ``"local"`` (joblib's loky worker processes; ``n_jobs=1`` computes in this process) or ``"ray"`` (actors on
        the cluster ``ray.init`` connected to, or on ``ray_address``; the library never starts Ray itself).
    chunk_size:
        Rows per chunk (= per Parquet part, and the unit of work lost on a crash). Results do not depend on it,
        so a resume may give another one: the finished chunks are kept as they are, the rows left cut to it.
    n_jobs:
        Worker processes / Ray actors (default: all CPUs of the machine / cluster; locally the chunks are computed
        in this process for the first 2 seconds, and the workers started only if more remain). Results do not
        depend on it,
        to the last bit: rows are computed with BLAS on one thread, in this process and in every worker alike.
    random_state:
        Seed. Row ``i`` gets ``SeedSequence(entropy, spawn_key=(i,))`` as in :meth:`Explainer.shapley`, so the
        numbers equal ``explainer.shapley(X, method, budget, random_state)`` for any chunking and backend.
    resume:
        If ``out`` holds a run: ``True`` finishes it (the parameters must be the same, else an error lists the
        differences; finished chunks are kept after their checksums and rows are verified, corrupt ones
        recomputed; X must be given as begun: a DataFrame with the same index, or without row labels; a line on
        stderr says how many rows are kept and left, unless ``progress=False``); ``False`` raises instead of
        touching it.
    y:
        Labels for ``output="loss"``: one per row, or the name of a label column of a DataFrame/file.
    store_data:
        Also store the explained inputs (``data.<feature>`` columns), so :func:`load_run` can return them.
        Each row's target (its class) and, for a DataFrame ``X``, its index label are always stored, so
        ``load_run(out)`` has ``info["target"]``/``info["targets"]`` and ``.to_pandas()`` is indexed like ``X``.
    model_tag:
        A name for the model's version, used instead of its pickled bytes to recognise it when resuming.
    progress:
        ``None`` (default): once the run has taken a few seconds, a progress bar on a terminal or in a notebook,
        a plain line every 30 s when stderr is a log; ``True``: at once; ``False``: never (see
        :mod:`interplay._progress`; ``INTERPLAY_PROGRESS=0`` turns the default off).
    call_rows:
        Model rows per call (default: 1,024, fewer for rows of over 128 columns, 16,384 for a scikit-learn
        forest, whose every call loops over its trees in Python; at least one coalition's rows, i.e. the
        background's size under marginal removal). Fixed for the run, where an
        Explainer learns it from timings: a BLAS model's last bits depend on the rows a call holds, so a fixed
        size makes two runs, and a run and its resume, agree bit for bit. Another model with a large cost per call
        (a Pipeline converting to pandas) runs faster with more (e.g. 16,384).
        Recorded when the run is created; a resume uses the recorded size.

    Interrupting the run (Ctrl-C) keeps every finished chunk; the ``KeyboardInterrupt`` says how to finish it
    (the same call again, or :func:`resume_run`).

    Returns a :class:`Run` (read results with ``.explanation()``, ``.table()``, ``.global_importance()``...).
    Cost: that of ``method`` on one game per row (e.g. ``2**d`` coalitions per row for ``"exact"``).
    """
    require("pyarrow", "batch runs store their results as Parquet, which needs pyarrow", "runs")
    if not isinstance(explainer, Explainer):
        raise TypeError(f"explainer: expected an interplay.Explainer, got {type(explainer).__name__}")
    if not isinstance(out, (str, os.PathLike)):  # (None failed in os.fspath)
        raise TypeError(f"out: expected the path of the run's folder (a str or Path), got {out!r}")
    kind = check_choice(kind, "kind", KINDS)
    method = resolve_method(explainer, kind, method)  # "auto": exact tree values for a tree model
    if method not in ("auto", "tree"):
        get_estimator(kind, method)  # unknown method -> error listing the known ones
        from ..api import check_option_names

        check_option_names(kind, method, options)  # a misspelled option: refused before the folder is made
    budget = check_int(budget, "budget", minimum=1, allow_none=True)
    chunk_size = check_int(chunk_size, "chunk_size", minimum=1)
    call_rows = check_int(call_rows, "call_rows", minimum=1, allow_none=True)
    backend = check_choice(backend, "backend", BACKENDS)
    n_jobs = check_int(n_jobs, "n_jobs", allow_none=True)
    if n_jobs == 0:
        raise ValueError("n_jobs: expected a positive number of workers, -1 for all CPUs, or None; got 0")
    if n_jobs is not None and n_jobs > MAX_JOBS:  # (loky failed on 3e9 with an OverflowError deep inside)
        raise ValueError(f"n_jobs: expected at most {MAX_JOBS} workers, got {n_jobs}")
    resume = check_bool(resume, "resume")
    store_data = check_bool(store_data, "store_data")
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress: expected True, False or None (shown after a few seconds), got {progress!r}")
    check_random_state(random_state)  # a bad seed is refused before anything is written (a Generator is not drawn from)

    payload = dumps_explainer(explainer)  # picklability checked before anything is written
    if backend == "ray" and ray_address is None:  # a Ray connection that fails leaves no half-created run
        from ._backends import _import_ray

        if not _import_ray().is_initialized():
            raise RuntimeError("backend='ray': Ray is not initialised. Connect first with ray.init() (a local "
                               "instance) or ray.init(address='auto' | 'ray://<head>:10001') (a cluster), or pass "
                               "ray_address='auto' | 'ray://<head>:10001' to ip.run")
    # X has the explainer's input columns; with groups= the values are per group (fewer, other names)
    columns = getattr(explainer, "column_names", None) or explainer.feature_names
    n_columns = getattr(explainer, "n_columns", None) or explainer.n_features
    source = open_source(X, feature_names=columns, n_features=n_columns, y=y, raw=getattr(explainer, "raw", False),
                         renamed_ok=getattr(explainer, "_renamed_ok", False))
    data_sha256, n_rows, n_features = _scan(source, chunk_size)  # one streaming pass: checks and fingerprint
    data_names = list(columns or check_feature_names(source.columns, n_features))
    names = list(explainer.feature_names or data_names)
    labels = y if isinstance(y, str) else ("given" if y is not None else "none")

    store = Store(out, create=True)
    store.lock()
    try:
        manifest = store.read_manifest()
        if manifest is not None and not resume:
            raise ValueError(f"out: {store.root!r} already holds a run and resume=False; choose another folder, "
                             "delete it, or pass resume=True to finish it")
        if manifest is not None and random_state is None:
            entropy = int(manifest["params"]["seed_entropy"])
        else:
            entropy = draw_entropy(random_state)
        params = run_parameters(explainer, kind=kind, method=method, budget=budget, entropy=entropy,
                                options=options, feature_names=names, chunk_size=chunk_size,
                                store_data=store_data, labels=labels, model_tag=model_tag)
        params["data"] = f"sha256:{data_sha256}"
        if data_names != names:
            params["column_names"] = data_names
        if getattr(explainer, "groups", None) is not None:  # load_run lines .data up with the features
            params["groups"] = [[int(j) for j in cols] for cols in explainer.groups]
        params["n_rows"] = n_rows
        before_rule = False
        if manifest is None:
            manifest = {"format": FORMAT, "params": params, "chunks": {}, "n_rows": n_rows,
                        "complete": False,
                        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                        "versions": _versions()}
            if source.index_name is not None:
                manifest["index_name"] = source.index_name  # X's index name, for load_run(...).to_pandas()
            if call_rows is not None:  # model rows per call, fixed for the run (its resumes make the same calls)
                manifest["call_rows"] = call_rows
        else:
            if call_rows is not None and call_rows != manifest.get("call_rows"):  # it was ignored without a word
                kept = manifest.get("call_rows") or ("the default: the model's own where it has one, else 1,024 "
                                                     "rows, fewer for rows of over 128 columns")  # fixed, not learned
                warnings.warn(f"call_rows: the run in {store.root!r} keeps its own model rows per call ({kept}), so "
                              f"that a resume makes the same calls (the same bits); {call_rows} is not used",
                              UserWarning, stacklevel=2)
            if same_target(manifest["params"].get("target"), explainer.target):
                manifest["params"]["target"] = params["target"]  # an earlier version's repr: the same target
            if "groups" in params and "groups" not in manifest["params"]:  # begun before groups were recorded:
                manifest["params"]["groups"] = params["groups"]  # the feature and column names still compare
            # a finished run begun before the null-player rule is read back as it is: no row is computed again
            before_rule = (manifest.get("complete") and "null_players" in params
                           and "null_players" not in manifest["params"])
            current = {k: v for k, v in params.items() if not (before_rule and k == "null_players")}
            recorded_size = manifest["params"].get("chunk_size")
            if recorded_size != chunk_size:  # the numbers do not depend on it: the finished chunks are kept as
                # they are, and the rows left cut into chunks of the new size (_layout); the whole data's
                # fingerprint is taken chunk by chunk, so the kept chunks' rows are compared one by one instead
                current.update(chunk_size=recorded_size, data=manifest["params"].get("data"))
            refuse_mixing(manifest["params"], current, repr(store.root))
            manifest["params"].update(chunk_size=chunk_size, data=params["data"])  # what a resume_run uses next
        store.remove_temporaries()
        bad = [k for k, entry in manifest["chunks"].items() if not store.part_ok(entry)]
        if bad and before_rule:  # recomputing a part would mix the two rules' rows
            refuse_mixing(manifest["params"], params, repr(store.root))
        for k in bad:
            warnings.warn(f"out: part {manifest['chunks'][k]['file']} is missing, truncated or corrupt "
                          "(checksum mismatch); recomputing it", RuntimeWarning, stacklevel=2)
            del manifest["chunks"][k]
        layout = _layout(manifest["chunks"], n_rows, chunk_size)
        _check_kept(source.chunks(chunk_size), layout, manifest, store, source.index_name)  # before any work
        store.remove_unlisted_parts(manifest)
        if not manifest["chunks"]:  # nothing kept: this X's index name is the run's
            manifest.pop("index_name", None)
            if source.index_name is not None:
                manifest["index_name"] = source.index_name
        kept = sum(e["rows"][1] - e["rows"][0] for e in manifest["chunks"].values())
        if kept and progress_enabled(progress) is not False:
            print(f"interplay: resuming the run in {store.root!r}: {kept} of the {n_rows} rows already done and "
                  f"kept, {n_rows - kept} left to explain", file=sys.stderr, flush=True)
        manifest["complete"] = False
        store.fold_journal(manifest)  # the chunks a stopped run journaled are in the manifest: the journal restarts
        try:
            _execute(explainer, payload, _recut(source.chunks(chunk_size), layout), manifest, store, backend=backend,
                     n_jobs=n_jobs, task=Task(kind, method, budget, entropy, dict(options),
                                              manifest.get("call_rows")), names=names,
                     data_names=data_names, store_data=store_data, n_rows=n_rows,
                     todo=sum(not segment[3] for segment in layout), ray_address=ray_address,
                     progress=progress)
        except KeyboardInterrupt:
            call = _call_text(method, store.root, kind=kind, budget=budget, chunk_size=chunk_size, y=y,
                              store_data=store_data, model_tag=model_tag, backend=backend, n_jobs=n_jobs,
                              ray_address=ray_address, options=options)
            labels_again = ", y=y" if labels == "given" else ""
            raise KeyboardInterrupt(
                f"ip.run interrupted. {_kept(manifest, store, advice=False)}. To finish without recomputing them, "
                f"run {call} (random_state may be left out: the run's seed is reused), or "
                f"ip.resume_run(explainer, X, {store.root!r}{labels_again})") from None
    finally:
        store.unlock()
    return Run(store.root)


def _execute(explainer, payload, segments, manifest, store, *, backend, n_jobs, task, names, data_names,
             store_data, n_rows, todo, ray_address, progress) -> None:
    """Compute the chunks of ``segments`` (``(segment, Chunk)`` pairs from :func:`_recut` over :func:`_layout`)
    that are not kept, writing and recording each; the kept ones were checked by :func:`_check_kept`."""
    done = manifest["chunks"]
    keys: dict[int, str] = {}  # a chunk's first row -> its key (and part file)
    done_rows = sum(e["rows"][1] - e["rows"][0] for e in done.values())
    bar = progress_display(n_rows, "explaining" if not done_rows else f"explaining (resumed, {done_rows} rows kept)",
                           unit="row", enabled=progress, initial=done_rows)

    def pending():
        for (start, stop, key, kept), chunk in segments:
            if not kept:
                keys[start] = key
                yield chunk
            elif done[key]["data_sha256"] != data_fingerprint(chunk.rows, chunk.labels) or (
                    "index_sha256" in done[key] and done[key]["index_sha256"] != _index_fingerprint(chunk.index)):
                raise RowsDiffer(f"X: rows {start}..{stop - 1} changed while the run in {store.root!r} was "
                                 "resumed (they were checked before it began); refusing to mix results of "
                                 "different data", "Resume it again with rows that do not change")

    if backend == "local" and n_jobs is not None:
        # no more worker processes than chunks left to compute (12 workers for 6 one-row chunks took 15 s, not 2)
        n_jobs = min(resolve_n_jobs(n_jobs), max(1, todo))
    engine = make_backend(backend, explainer=explainer, payload=payload, task=task, n_jobs=n_jobs,
                          ray_address=ray_address)
    finished = False
    try:
        for chunk, result in engine.map_unordered(pending()):
            key = keys[chunk.start]
            entry = store.write_part(int(key), to_table(result, names, chunk.rows if store_data else None,
                                                        data_names, index=chunk.index))
            entry.update(rows=[chunk.start, chunk.start + len(chunk.rows)],
                         data_sha256=data_fingerprint(chunk.rows, chunk.labels),
                         n_evaluations=int(result["n_evaluations"].sum()))
            budgets = sorted({b for b in result.get("budget") or () if b is not None})
            if budgets:  # the budgets its rows used (the resolved default without budget=): read without the parts
                entry["budgets"] = budgets
            if chunk.index is not None:  # the labels are stored, not part of the numbers' fingerprint
                entry["index_sha256"] = _index_fingerprint(chunk.index)
            done[key] = entry
            store.append_chunk(key, entry)  # one journal line: constant cost (not the whole manifest)
            bar.update(len(chunk.rows))
        finished = True
    except WorkersDied as exc:
        raise WorkersDied(f"{exc}. {_kept(manifest, store)}") from None
    except (OSError, RowsDiffer):  # a failed write (a full disk) or changed rows: their own errors say what to do
        raise
    except Exception as exc:  # the model failed on some chunk's rows: said with what is kept and how to finish
        message = f"{exc}. {_kept(manifest, store)} (after fixing the cause)"
        try:
            raised = type(exc)(message)
        except Exception:  # noqa: BLE001  (an exception type that takes other arguments: a RuntimeError)
            raised = RuntimeError(f"{type(exc).__name__}: {message}")
        raise raised from exc
    finally:
        engine.close()
        bar.close()
        if not finished:  # stopped (Ctrl-C, a model error): the journal folded into the manifest when it can be
            with contextlib.suppress(Exception):  # a full disk: the journal keeps the chunks; the error said is
                store.fold_journal(manifest)      # the cause's
    missing = n_rows - sum(e["rows"][1] - e["rows"][0] for e in done.values())
    if missing:  # (not reached: _check_kept refuses an X shorter than the run's kept chunks)
        raise RowsDiffer(f"X: {missing} rows of the run in {store.root!r} were not explained", "Resume it again")
    manifest["n_rows"] = n_rows
    manifest["complete"] = True
    store.fold_journal(manifest)


def resume_run(explainer: Explainer, X: Any, out: Any, *, y: Any = None, backend: str = "local",
               n_jobs: int | None = None, ray_address: str | None = None, progress: bool | None = None) -> Run:
    """Finish the run in ``out`` with the parameters recorded in its manifest (for ``interplay explain --resume``).

    Only the explainer and the rows must be given again (the same ones: both are checked against the
    fingerprints in the manifest); ``kind``, ``method``, ``budget``, options, ``chunk_size``, the seed, a label
    column and a model tag come from the manifest. Labels given as an array must be passed again as ``y``.
    The backend and the number of workers may differ from the first attempt: results do not depend on them.
    """
    params = Run(out).params
    options = json.loads(params["options"])
    if not params.get("options_plain_json", False):
        raise ValueError(f"out: the run in {out!r} was made with options {params['options']} that are not plain "
                         "JSON; call ip.run(...) again with the same options to resume it")
    if params["labels"] == "given" and y is None:
        raise ValueError("y: the run was made with labels given as an array; pass the same y= to resume it")
    if params["labels"] not in ("given", "none"):
        y = params["labels"]
    tag = params["model"][len("tag:"):] if params["model"].startswith("tag:") else None
    return run(explainer, X, params["method"], out=out, kind=params["kind"], backend=backend,
               chunk_size=params["chunk_size"], n_jobs=n_jobs, budget=params["budget"], random_state=None,
               resume=True, y=y, store_data=params["store_data"], model_tag=tag, ray_address=ray_address,
               progress=progress, **options)


def _kept(manifest: dict, store: Store, advice: bool = True) -> str:
    """What a stopped run keeps, and how to finish it."""
    done = sum(e["rows"][1] - e["rows"][0] for e in manifest["chunks"].values())
    total = manifest.get("n_rows", "?")
    text = f"{done} of the {total} rows are finished and kept in {store.root!r}"
    if advice:
        text += (f"; finish the run with the same call (resume=True), or ip.resume_run(explainer, X, "
                 f"{store.root!r}), or the same `interplay explain` command with --resume")
    return text


def _call_text(method: str, root: str, *, kind: str, budget, chunk_size: int, y, store_data: bool, model_tag,
               backend: str, n_jobs, ray_address, options: dict) -> str:
    """The ``ip.run(...)`` call that finishes the run in ``root`` (arguments left at their defaults omitted)."""
    from ._params import _plain_json

    args = [f"ip.run(explainer, X, {method!r}, out={root!r}"]
    given = {"kind": (kind, "shapley"), "budget": (budget, None), "chunk_size": (chunk_size, 1000),
             "store_data": (store_data, True), "model_tag": (model_tag, None), "backend": (backend, "local"),
             "n_jobs": (n_jobs, None), "ray_address": (ray_address, None)}
    args += [f"{k}={v!r}" for k, (v, default) in given.items() if v != default]
    if y is not None:
        args.append(f"y={y!r}" if isinstance(y, str) else "y=y")
    args += [f"{k}={v!r}" if _plain_json(v) else f"{k}=..." for k, v in sorted(options.items())]
    return ", ".join(args) + ")"


def _index_fingerprint(index: list | None) -> str:
    """SHA-256 of a chunk's row labels (their types and text), so a resume refuses rows labelled otherwise."""
    return hashlib.sha256(repr([(type(v).__name__, str(v)) for v in (index or [])]).encode()).hexdigest()


def _versions() -> dict:
    import pyarrow

    from .. import __version__

    return {"interplay": __version__, "numpy": np.__version__, "pyarrow": pyarrow.__version__,
            "python": sys.version.split()[0]}


def _scan(source, chunk_size: int) -> tuple[str, int, int]:
    """Read the input once (one chunk at a time): check every row, count them, fingerprint them all.

    Reading twice costs seconds for a million rows, little next to explaining them, and lets a resumed run
    refuse changed data before it computes anything (the per-chunk fingerprints are checked again later).
    """
    digest = hashlib.sha256()
    n_rows, n_features = 0, None
    for chunk in source.chunks(chunk_size):
        digest.update(data_fingerprint(chunk.rows, chunk.labels).encode())
        n_rows += len(chunk.rows)
        n_features = chunk.rows.shape[1]
    if n_rows == 0:
        raise ValueError("X: expected at least one row to explain, got none")
    return digest.hexdigest(), n_rows, n_features


class RowsDiffer(ValueError):
    """X differs from the rows of the run being resumed (values, labels or their presence): refused as it is.
    ``what`` says what differs, the message then what to do."""

    def __init__(self, what: str, advice: str) -> None:
        super().__init__(f"{what}. {advice}")
        self.what = what


def _layout(done: dict, n_rows: int, chunk_size: int) -> list[tuple[int, int, str, bool]]:
    """The run's chunks in row order, as ``(start, stop, key, kept)``: the finished chunks as they are (their rows,
    whatever chunk size made them), and the rows between them cut into new chunks of ``chunk_size`` from each
    gap's start. With the run's own chunk size the new chunks are those of an uninterrupted run (the same keys,
    files and bytes); with another one a new chunk that does not start on its grid, or whose grid key a kept
    chunk holds, gets a key of its own (``n_rows + start``, above every grid key), so no part is written over."""
    used = set(done)
    spans = sorted((e["rows"][0], e["rows"][1], k) for k, e in done.items())
    layout, position = [], 0
    for start, stop, key in [*spans, (n_rows, n_rows, None)]:
        while position < start:
            end = min(position + chunk_size, start)
            new = str(position // chunk_size) if position % chunk_size == 0 else str(n_rows + position)
            if new in used:
                new = str(n_rows + position)
            while new in used:  # (not reached: kept keys are grid keys or n_rows + their own start)
                new = str(int(new) + 1)
            used.add(new)
            layout.append((position, end, new, False))
            position = end
        if key is not None:
            layout.append((start, stop, key, True))
            position = max(position, stop)
    return layout


def chunks_left(done: dict, n_rows: int, chunk_size: int) -> int:
    """How many chunks a run with the finished chunks ``done`` (a manifest's ``chunks``) computes over ``n_rows``
    rows in chunks of ``chunk_size``: the rows the kept chunks leave, cut as :func:`_layout` cuts them (the kept
    chunks may be of another size, after a resume with another chunk size)."""
    return sum(not segment[3] for segment in _layout(done, n_rows, chunk_size))


def _recut(chunks, layout) -> Iterator[tuple[tuple, Chunk]]:
    """The rows of ``chunks`` (consecutive, from row 0) cut as ``layout`` says: one ``(segment, Chunk)`` per segment
    whose rows the input has (a chunk that is a segment passes as it is). Segments must be in row order."""
    pieces: list[Chunk] = []
    chunks = iter(chunks)
    for segment in layout:
        start, stop = segment[0], segment[1]
        while not pieces or pieces[-1].start + len(pieces[-1].rows) < stop:
            chunk = next(chunks, None)
            if chunk is None:
                break
            pieces.append(chunk)
        pieces = [c for c in pieces if c.start + len(c.rows) > start]
        if not pieces or pieces[0].start > start:
            return  # the input ends before this segment
        first = pieces[0]
        if first.start == start and first.start + len(first.rows) == stop:
            yield segment, first
            continue
        cut = [_slice(c, max(start, c.start) - c.start, min(stop, c.start + len(c.rows)) - c.start)
               for c in pieces if c.start < stop]
        if cut[-1].start + len(cut[-1].rows) < stop:
            return  # the input ends inside this segment
        yield segment, Chunk(start, np.concatenate([c.rows for c in cut]) if len(cut) > 1 else cut[0].rows,
                             None if first.labels is None else [v for c in cut for v in c.labels],
                             None if first.index is None else [v for c in cut for v in c.index])


def _slice(chunk: Chunk, a: int, b: int) -> Chunk:
    return Chunk(chunk.start + a, chunk.rows[a:b], None if chunk.labels is None else chunk.labels[a:b],
                 None if chunk.index is None else chunk.index[a:b])


def _check_kept(chunks, layout, manifest: dict, store: Store, index_name: str | None) -> None:
    """Refuse X, before any work, where its rows differ from those of the run's kept chunks: their values (or
    labels y), the presence of row labels (a DataFrame's index, stored with the results, against an array's
    none), the index's name, or the labels themselves. Each refusal says what differs and what to do."""
    kept = [segment for segment in layout if segment[3]]
    if not kept:
        return
    where = repr(store.root)
    afresh = f"start afresh in another out= folder (or delete {where}: ip.run has no overwrite option)"
    seen = 0
    for (start, stop, key, _), chunk in _recut(chunks, kept):
        seen += 1
        entry = manifest["chunks"][key]
        rows = f"rows {start}..{stop - 1}"
        if entry["data_sha256"] != data_fingerprint(chunk.rows, chunk.labels):
            raise RowsDiffer(f"X: {rows} differ from those of the run in {where} (their values"
                             f"{' or labels y' if chunk.labels is not None else ''}, compared with its finished "
                             f"part {entry['file']}); refusing to mix results of different data",
                             f"To resume, pass the rows the run was begun with, or {afresh}")
        if ("index_sha256" in entry) != (chunk.index is not None):
            if chunk.index is None:
                raise RowsDiffer(f"X: the run in {where} was begun with X a DataFrame, whose row labels (index) "
                                 "are stored with its results; this X has none (an array, or a file), so the rows "
                                 "computed now would have no labels beside labelled ones",
                                 f"To resume, pass X as the same DataFrame (the same index), or {afresh}")
            raise RowsDiffer(f"X: the run in {where} was begun with X without row labels (an array, or a file), "
                             "so its results are indexed by position; this X is a DataFrame, whose index would "
                             "be stored with the rows computed now only",
                             "To resume, pass the same rows without labels (X.to_numpy(): the results are indexed "
                             f"by position, as begun), or, to keep the index, {afresh}")
        if chunk.index is not None and index_name != manifest.get("index_name"):
            raise RowsDiffer(f"X: the index of the run in {where} is named {manifest.get('index_name')!r}, this "
                             f"X's {index_name!r} (the results are read back under one name)",
                             f"To resume, pass X with its index named as begun "
                             f"(X.rename_axis({manifest.get('index_name')!r})), or {afresh}")
        if chunk.index is not None and entry["index_sha256"] != _index_fingerprint(chunk.index):
            raise RowsDiffer(f"X: the row labels (index) of {rows} differ from those of the run in {where}"
                             f"{_first_difference(store, entry, chunk)}; refusing to mix results of differently "
                             "labelled rows",
                             f"To resume, pass X with the run's index (the same rows in the same order), or {afresh}")
    if seen < len(kept):
        missing = kept[seen]
        raise RowsDiffer(f"X: has fewer rows than the run in {where}, whose finished chunks hold rows up to "
                         f"{max(s[1] for s in kept) - 1} (rows {missing[0]}..{missing[1] - 1} are not in X); "
                         "refusing to mix results of different data",
                         f"To resume, pass the rows the run was begun with, or {afresh}")


def _first_difference(store: Store, entry: dict, chunk: Chunk) -> str:
    """``: the first at row 12 (a position in X), labelled 'q2' here, 'p2' in the run``, read from the kept
    part, or nothing if it cannot be read."""
    try:
        stored = store.read_part(entry, columns=["index"]).column("index").to_pylist()
    except Exception:  # noqa: BLE001 - a part that cannot be read: the refusal without the detail
        return ""
    for k, (new, old) in enumerate(zip(chunk.index, stored)):
        if _index_fingerprint([new]) != _index_fingerprint([old]):
            return f": the first at row {chunk.start + k} (a position in X), labelled {new!r} here, {old!r} in the run"
    return ""


__all__ = ["resume_run", "run"]
