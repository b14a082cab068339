"""The ``interplay`` command line: ``explain`` a model file on a data file, ``report`` saved results, ``demo``.

``explain`` computes the values of all chosen rows as a resumable batch run (:func:`interplay.run`) in its
output folder (``run-manifest.json`` + ``parts/``, next to the CLI's own ``manifest.json``), so ``--resume``
finishes a long job that was interrupted.

Model files are read with skops by default (safe: no code runs while loading); pickle and joblib files only
with ``--trust-model``, because loading a pickle runs whatever code it holds.
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import click
import numpy as np

from ._validation import one_target
from .estimators._registry import NOT_EFFICIENT  # Shapley methods whose values need not sum up

DATA_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib")
INDICES = ("sii", "bii", "stii", "fsii", "fbii", "ksii", "moebius", "excess", "none")
MANIFEST = "manifest.json"  # which result files one `interplay explain` run wrote (read by `interplay report`)
EXACT_AUTO_LIMIT = 14  # "auto" uses exact enumeration up to 2**14 coalitions per row
CHUNK_SIZE = 256  # rows per chunk of the batch run (one Parquet part; the most a crash loses)
DETAIL_ROWS = 20  # rows that also get interactions and the explanation graph
RUN_DIR_NOTE = "run-manifest.json + parts/ (interplay.open_run(OUT))"


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="interplay")
def main() -> None:
    """interplay: Shapley-family explanations of black-box models, and how features act together.

    \b
    Start with the tour:        interplay demo
    Explain your own model:     interplay explain model.skops data.csv --rows 0-4 --out results/
    Finish an interrupted run:  interplay explain model.skops data.csv --rows all --out results/ --resume
    Rebuild a report:           interplay report results/ --out report.html
    """


# ---------------------------------------------------------------------------------------------------- helpers
@contextmanager
def _progress(total: int, description: str) -> Iterator[Any]:
    """Progress on stderr once the work takes a few seconds: a bar on a terminal, plain lines in a log
    (:mod:`interplay._progress`)."""
    from ._progress import progress

    with progress(total, description) as bar:
        yield lambda: bar.update(1)


def load_model(path: Path, *, trust: bool) -> Any:
    """Read a model file: ``.skops`` safely; ``.pkl``/``.pickle``/``.joblib`` only when ``trust``."""
    suffix = path.suffix.lower()
    if suffix == ".skops":
        try:
            import skops.io as sio
        except ImportError:
            raise click.ClickException("reading .skops model files needs skops: pip install skops") from None
        try:
            untrusted = sio.get_untrusted_types(file=path)
        except Exception as exc:
            raise click.ClickException(f"{path}: not a readable skops file ({type(exc).__name__}: {exc})") from None
        if untrusted and not trust:
            raise click.ClickException(
                f"{path}: the model uses types that skops does not trust by default: {', '.join(untrusted)}. "
                "Check that you trust them, then pass --trust-model.")
        try:
            return sio.load(path, trusted=untrusted or None)
        except Exception as exc:
            raise click.ClickException(f"{path}: could not load the skops file ({type(exc).__name__}: {exc})") from None
    if suffix in PICKLE_SUFFIXES:
        if not trust:
            raise click.ClickException(
                f"{path}: refusing to load a pickle/joblib file, because loading a pickle runs code stored in it. "
                "Pass --trust-model only if you trust where the file comes from, or save the model with skops "
                "(skops.io.dump(model, 'model.skops')) and use that file.")
        try:
            import joblib

            return joblib.load(path)
        except ImportError:
            import pickle

            with open(path, "rb") as fh:
                return pickle.load(fh)
        except Exception as exc:
            raise click.ClickException(f"{path}: could not load the model ({type(exc).__name__}: {exc})") from None
    raise click.ClickException(
        f"{path}: unknown model file type {suffix or '(no suffix)'!r}; expected .skops (safe), or "
        f"{'/'.join(PICKLE_SUFFIXES)} with --trust-model")


def load_data(path: Path, model: Any, drop: tuple[str, ...]):
    """Read a CSV or Parquet file as a DataFrame of the model's feature columns."""
    kind = DATA_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise click.ClickException(f"{path}: unknown data file type {path.suffix!r}; expected "
                                   f"{', '.join(DATA_SUFFIXES)}")
    try:
        import pandas as pd
    except ImportError:
        raise click.ClickException("reading data files needs pandas: pip install pandas") from None
    try:
        frame = pd.read_csv(path) if kind == "csv" else pd.read_parquet(path)
    except Exception as exc:
        raise click.ClickException(f"{path}: could not read the {kind} file ({type(exc).__name__}: {exc})") from None
    missing = [c for c in drop if c not in frame.columns]
    if missing:
        raise click.BadParameter(f"no column(s) {missing} in {path.name}; columns: {list(frame.columns)}",
                                 param_hint="--drop")
    frame = frame.drop(columns=list(drop))
    wanted = getattr(model, "feature_names_in_", None)
    if wanted is not None:
        from ._validation import renames_columns, sanitised_order

        wanted = [str(c) for c in wanted]
        absent = [c for c in wanted if c not in frame.columns]
        renamed = (sanitised_order(frame.columns, wanted, allow_extra=True)
                   if absent and renames_columns(model) else None)
        if absent and renamed is None:
            raise click.ClickException(f"{path}: the model needs column(s) {absent}, which the file lacks")
        taken = set(wanted) if renamed is None else set(renamed)  # by name, or by position where renamed
        left_out = [str(c) for k, c in enumerate(frame.columns) if (str(c) if renamed is None else k) not in taken]
        if left_out:  # a label column, most often: said, as a batch run says it
            click.echo(f"Warning: {path.name}: column{'s' if len(left_out) > 1 else ''} {left_out} "
                       f"{'are' if len(left_out) > 1 else 'is'} not among the model's features, left out "
                       "(--drop COLUMN leaves a column out without this warning)", err=True)
        # LightGBM's names ('sepal length (cm)' fitted as 'sepal_length_(cm)'): the file's columns, so named
        frame = frame[wanted] if renamed is None else frame.iloc[:, renamed].set_axis(wanted, axis=1)
    n_in = getattr(model, "n_features_in_", None)
    if n_in is not None and frame.shape[1] != n_in:
        raise click.ClickException(
            f"{path}: {frame.shape[1]} columns but the model takes {n_in} features; drop the extra columns "
            "(e.g. the label) with --drop COLUMN")
    if len(frame) == 0:
        raise click.ClickException(f"{path}: the file has no rows")
    from .models.categories import as_training_categories

    frame = as_training_categories(frame, model)  # a booster fitted on pandas categoricals gets them back
    non_numeric = [str(c) for c in frame.columns if not (pd.api.types.is_numeric_dtype(frame[c])
                                                         or isinstance(frame[c].dtype, pd.CategoricalDtype))]
    if non_numeric and not (wanted is not None and getattr(model, "steps", None) is not None):
        raise click.ClickException(f"{path}: non-numeric column(s) {non_numeric}; the model cannot encode them: "
                                   "encode them as numbers, put the encoder inside the model (a Pipeline fitted "
                                   "on a DataFrame), or --drop them")
    return frame


def parse_rows(text: str, n_rows: int) -> list[int]:
    """``"0,3,10-12"`` -> [0, 3, 10, 11, 12]; ``"all"`` -> every row. Rows are 0-based positions."""
    if text.strip().lower() == "all":
        return list(range(n_rows))
    rows: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                lo, hi = (int(p) for p in part.split("-", 1))
                if hi < lo:
                    raise ValueError
                rows.extend(range(lo, hi + 1))
            else:
                rows.append(int(part))
    except ValueError:
        raise click.BadParameter(f"expected row numbers like 0,3,10-12 or 'all', got {text!r}",
                                 param_hint="--rows") from None
    bad = [r for r in rows if not 0 <= r < n_rows]
    if bad:
        raise click.BadParameter(f"row(s) {bad[:5]} out of range: the data has {n_rows} rows (0-based)",
                                 param_hint="--rows")
    return list(dict.fromkeys(rows))


def choose_method(kind: str, method: str, n_features: int, budget: int | None, *, optional: bool = False,
                  index: str = "sii") -> str | None:
    """The estimator for ``kind``: ``method`` when registered for it; for ``auto``, the library's choice
    (:func:`interplay.api.auto_method`: exact enumeration when ``2**n`` fits the budget, else the most accurate
    sampler). ``optional``: None instead of an error when nothing fits."""
    from types import SimpleNamespace

    from .api import auto_method
    from .estimators import available_methods

    # L- and C-Shapley need the features' graph (a text's tokens, an image's regions), which no CLI option gives
    methods = [m for m in available_methods(kind) if m not in GRAPH_METHODS]
    if method in GRAPH_METHODS:
        raise click.BadParameter(f"{method!r} needs a graph of the features (graph=, or the text and image "
                                 "explainers of interplay.modalities), which the command line has no option for; "
                                 f"use the Python API, or one of {methods} or 'auto'", param_hint="--method")
    if method != "auto":
        if method in methods:
            return method
        if kind in ("interactions", "bivariate"):  # the Shapley sampler has no counterpart here: auto's choice
            try:
                return auto_method(kind, SimpleNamespace(n_players=n_features), budget, index)[0]
            except ValueError:
                pass
        if optional:
            return None
        raise click.BadParameter(f"{method!r} is not available for {kind}; choose one of {methods} or 'auto'",
                                 param_hint="--method")
    try:
        return auto_method(kind, SimpleNamespace(n_players=n_features), budget, index)[0]
    except ValueError as error:
        if optional:
            return None
        raise click.ClickException(f"{n_features} features: {error}") from None


def _check_steps(methods: dict, n_features: int, budget: int | None, index: str) -> None:
    """Run every step's method once on a zero game of ``n_features`` players (no model call), so a budget or
    option a method refuses stops the command before any work, not after the batch."""
    import warnings

    from . import api
    from .games import Game

    for kind, name in methods.items():
        zero = Game(lambda coalitions: np.zeros(len(coalitions)), n_features)
        extra = {"index": index, "order": 2} if kind == "interactions" else {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                getattr(api, kind)(zero, method=name, budget=budget, random_state=0, **extra)
        except (TypeError, ValueError) as exc:
            step = {"shapley": "the Shapley values", "bivariate": "the detail rows' explanation graph",
                    "interactions": f"the detail rows' {index} heatmap"}[kind]
            raise click.BadParameter(f"{step} (method {name!r}): {exc}",
                                     param_hint="--budget" if "budget" in str(exc) else "--method") from None


def _no_interactions_note(n_features: int, index: str, budget: int | None, *, tree: bool) -> str:
    """The note said when no estimator of ``index`` fits ``n_features`` features at ``budget`` (the report then
    has no heatmap): which index, why, and what gives one. ``tree``: the model's exact tree algorithms compute
    the other steps (and would compute ``--index sii|bii`` exactly)."""
    from .api import _MAX_ENUMERATED
    from .estimators._sampling import default_budget

    text = (f"Note: no interaction estimator fits {n_features} features for --index {index}, so the report has "
            "no heatmap")
    if index in ("ksii", "moebius"):
        name = {"ksii": "k-SII", "moebius": "Moebius"}[index]
        text += (f". {name} has no sampler and no tree algorithm, only exact enumeration of all 2**{n_features} "
                 "coalitions per row")
        if n_features > _MAX_ENUMERATED:
            text += f", which stops at {_MAX_ENUMERATED} features"
        else:
            resolved = default_budget(n_features) if budget is None else budget
            text += (f", more than the {'default ' if budget is None else ''}budget ({resolved}) allows "
                     f"(--budget {2 ** n_features} would enumerate them)")
        if tree:
            text += "; --index sii or bii gives one, exactly with the tree algorithms"
        elif choose_method("interactions", "auto", n_features, budget, optional=True, index="sii") is not None:
            text += "; --index sii or bii gives one, by sampling"
    return text + "; --index none hides this note."


def _tree_methods(explainer: Any, method: str, index: str, detail: bool, budget: int | None = None) -> dict | None:
    """Every step's method when the exact tree algorithms apply (``--method tree``, or ``auto`` on a tree
    model whose trees give the explained output), else None; ``--method tree`` where they cannot is refused
    with the reason. An index the trees do not give (not sii/bii) is estimated as without trees at ``budget``,
    or skipped with a note when nothing fits."""
    from ._optional import TREES_MISSING, installed

    if method == "auto" and not installed("numba"):
        from .models.tree_kinds import may_be_trees

        if may_be_trees(explainer._model_source()):
            click.echo("note: the exact tree algorithms are not used (numba is not installed: pip install "
                       "'interplay[trees]'); sampling instead", err=True)
        return None
    if method not in ("auto", "tree"):
        return None
    if not installed("numba"):
        raise click.BadParameter(TREES_MISSING, param_hint="--method")
    from .trees.explain import _checked_inputs, tree_choice, tree_rejection

    if method == "tree":
        try:
            _checked_inputs(explainer, None)
        except (TypeError, ValueError) as exc:
            raise click.BadParameter(f"the tree method cannot explain this model: {exc}", param_hint="--method")
    elif tree_choice(explainer) is None:
        why = tree_rejection(explainer)
        if why is not None:
            click.echo(f"note: the exact tree algorithms are not used ({why}); sampling instead", err=True)
        return None
    methods = {"shapley": "tree"}
    if detail:
        methods["bivariate"] = "tree"
        if index in ("sii", "bii"):
            methods["interactions"] = "tree"
        elif index != "none":
            methods["interactions"] = choose_method("interactions", "auto", explainer.n_features, budget,
                                                    optional=True, index=index)
            if methods["interactions"] is None:  # k-SII/Moebius above what enumeration allows
                methods.pop("interactions")
                click.echo(_no_interactions_note(explainer.n_features, index, budget, tree=True), err=True)
    return methods


def _row_targets(explainer: Any, rows: Any) -> list:
    """The class each row's values explain: the Explainer's target, or each row's predicted class; a regressor's
    one output is 0, as the library's Explainer records it."""
    if explainer.model.kind != "classifier" and explainer.target is None:
        return [0] * len(rows)
    if not explainer._predicted(explainer.target):
        label = explainer.target
        return [label.item() if isinstance(label, np.generic) else label] * len(rows)
    columns = np.argmax(explainer.model(rows.to_numpy(dtype=object) if explainer.raw else rows.to_numpy(float)),
                        axis=1)
    labels = [explainer.model.classes[c] if explainer.model.classes is not None else int(c) for c in columns]
    return [label.item() if isinstance(label, np.generic) else label for label in labels]


def _explained_output(explainer: Any, label: Any) -> str:
    """In words, which output a row's game explains (``label``: its target), e.g. "probability of class 'yes'"."""
    if explainer.model.kind != "classifier":
        return explainer.output
    shown = repr(label) if isinstance(label, str) else label
    return f"{explainer.output} of class {shown}"


def _check_target(explainer: Any, x: Any) -> None:
    """Refuse a --target the model does not have (e.g. 7 for a regressor) before anything is printed or written,
    as a usage error naming --target (exit code 2); the first explained row ``x`` shows which outputs exist."""
    try:
        explainer.explained_outputs(x)
    except ValueError as exc:
        if str(exc).startswith("target:"):
            raise click.BadParameter(str(exc).split(":", 1)[1].strip(), param_hint="--target") from None
    except Exception:  # noqa: BLE001 - any other problem of the model is reported where it has always been
        pass


GRAPH_METHODS = frozenset({"l-shapley", "c-shapley"})  # Shapley methods on a graph of the features


def _unestimated_pairs(result: Any) -> tuple[int, int]:
    """``(pairs without an estimate, pairs)`` of an Interactions result: a pair whose standard error is infinite
    had too few samples (the samplers report it as 0; the report shows it as n/a). A NaN standard error (none
    computed, e.g. the surrogate's pairs), or the infinite errors of a regression that identified every pair
    (``info["full_rank"]``) with no residual degrees of freedom left, are no such gap, as in the report."""
    errors = result.std_errors or {}
    pairs = [key for key in result.values if len(key) == 2]
    if result.info.get("full_rank") is True:  # a regression that identified every pair, with no residual
        return 0, len(pairs)                     # degrees of freedom left for errors (all inf)
    return sum(1 for key in pairs if errors.get(key, 0.0) == np.inf), len(pairs)


def _budget_for_every_pair(method: str, index: str, n_features: int, start: int, seeds: list) -> int | None:
    """The smallest budget (``start`` doubled, up to 64 times it, or ``2**n_features``, where the samplers
    enumerate) at which ``method`` estimates every pair of every detail row, with the rows' own seeds: the
    coalitions a sampler draws depend on its seed and budget only, so a zero game (no model call) shows them.
    None when none of these does (or the method refuses them)."""
    from . import api
    from .games import Game

    zero = Game(lambda coalitions: np.zeros(len(coalitions)), n_features)
    start = max(int(start), 1)
    candidates = [start * 2 ** k for k in range(1, 7) if start * 2 ** k < 2 ** n_features]
    candidates += [2 ** n_features] if 2 ** n_features <= start * 64 else []
    for candidate in candidates:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if all(_unestimated_pairs(api.interactions(zero, index=index, order=2, method=method,
                                                           budget=candidate, random_state=np.random.default_rng(s)))[0]
                       == 0 for s in seeds):
                    return candidate
        except (TypeError, ValueError):
            return None
    return None


def _pairs_warning(missing: dict, total: int, method: str, index: str, budget: int | None, start: int,
                   suggestion: int | None) -> str:
    """One line on the detail rows' interaction pairs that got no estimate (``missing``: row -> count)."""
    rows = list(missing)
    which = (f"row {rows[0]}" if len(rows) == 1 else
             f"rows {', '.join(map(str, rows[:8]))}{' ...' if len(rows) > 8 else ''}")
    most = max(missing.values())
    fix = (f"--budget {suggestion} estimates every pair" if suggestion is not None else
           f"a --budget well above {start * 64} is needed to estimate every pair")
    return (f"the {index} heatmap of {len(rows)} detail row{'s' if len(rows) > 1 else ''} ({which}) has "
            f"{'up to ' if len(rows) > 1 else ''}{most} of {total} pairs with too few samples for an estimate at "
            f"--budget {budget if budget is not None else '(default)'} (method {method!r}); the report shows them "
            f"as n/a. {fix[0].upper()}{fix[1:]}.")


# ---------------------------------------------------------------------------------------------------- explain
def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _recorded_run(out_dir: Path) -> dict | None:
    """The run manifest in ``out_dir`` (None when there is none), as a ClickException when unreadable."""
    from .runs._store import MANIFEST as RUN_MANIFEST, Store

    if not (out_dir / RUN_MANIFEST).is_file():
        return None
    try:
        return Store(out_dir, create=False).read_manifest()
    except ValueError as exc:
        raise click.ClickException(f"{exc}") from None


def _remove_run(out_dir: Path) -> None:
    """Delete the outputs of an earlier `interplay explain` in ``out_dir``, holding the run's lock meanwhile.

    In an order that leaves no mix after a crash half-way: first what a reader opens (report.html, then the index
    manifest.json), then the result files, then the batch run: its parts/ folder renamed away in one step (so
    no old part outlives the run manifest), the run manifest and the recorded options, then the renamed folder.
    """
    import os
    import re
    import shutil

    from .runs._store import JOURNAL, PARTS, Store
    from .runs._store import MANIFEST as RUN_MANIFEST

    try:
        store = Store(out_dir, create=True)
        store.lock()
    except (ValueError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from None
    try:
        try:
            listed = json.loads((out_dir / MANIFEST).read_text())["results"]
            listed = [name for name in listed
                      if isinstance(name, str) and re.fullmatch(r"[^/\\]+\.(json|npz)", name)]
        except (OSError, ValueError, KeyError, TypeError):
            listed = []
        ours = re.compile(r"shapley\.(json|npz)|row-\d+-(" + "|".join(INDICES) + r"|bivariate)\.json")
        results = [*listed, *(p.name for p in out_dir.iterdir() if ours.fullmatch(p.name))]
        for name in ("report.html", MANIFEST, *dict.fromkeys(results), RUN_OPTIONS):
            (out_dir / name).unlink(missing_ok=True)
        old_parts = out_dir / f".{PARTS}-overwritten-{os.getpid()}"
        if (out_dir / PARTS).is_dir():
            os.replace(out_dir / PARTS, old_parts)
        (out_dir / RUN_MANIFEST).unlink(missing_ok=True)
        (out_dir / JOURNAL).unlink(missing_ok=True)
        for folder in out_dir.glob(f".{PARTS}-overwritten-*"):
            shutil.rmtree(folder, ignore_errors=True)
    except OSError as exc:
        raise click.ClickException(f"--overwrite: could not delete the earlier outputs in {str(out_dir)!r} "
                                   f"({exc.strerror or exc}: {exc.filename}); delete them yourself or choose "
                                   "another --out") from None
    finally:
        store.unlock()


# the explain options that determine a run's numbers, recorded in OUT/.explain-options.json when the run starts, so
# that a refused resume names the options that differ as the user typed them
RUN_OPTIONS = ".explain-options.json"
RECORDED_OPTIONS = ("rows", "method", "budget", "removal", "n_background", "output", "target", "drop", "seed",
                    "chunk_size")


def _option_name(ctx: click.Context, name: str) -> str:
    param = next(p for p in ctx.command.params if p.name == name)
    return max(param.opts, key=len) if isinstance(param, click.Option) else param.human_readable_name


def _run_options(ctx: click.Context, chunk_size: int) -> dict:
    """The options of ``ctx`` that determine the run's numbers, as text the user would type."""
    values = {**ctx.params, "chunk_size": chunk_size}
    text = {name: (" ".join(values[name]) if isinstance(values[name], tuple) else
                   None if values[name] is None else str(values[name])) for name in RECORDED_OPTIONS}
    return {"options": text, "model_file": ctx.params["model_file"].name, "data_file": ctx.params["data_file"].name,
            "command": _command_words(ctx)}


def _record_options(out_dir: Path, ctx: click.Context, chunk_size: int) -> None:
    from ._files import atomic_write

    atomic_write(out_dir / RUN_OPTIONS, json.dumps(_run_options(ctx, chunk_size), indent=1))


def _given(ctx: click.Context, name: str) -> bool:
    """Whether the user gave option ``name`` (on the command line or in its environment variable). Decided by
    click's record of where the value came from, never by comparing it with the default: click 8.3+ keeps a
    flag's default as a sentinel, so ``False == param.default`` is false and every unset flag looked given."""
    from click.core import ParameterSource

    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def _command_words(ctx: click.Context) -> list[str]:
    """The `interplay explain` command of ``ctx`` as words, without --out, --resume and --overwrite: the
    options the user gave, and only those (a flag only when set: never a --trust-model the user left out)."""
    words = ["interplay", ctx.info_name or "explain"]
    words += [str(ctx.params[p.name]) for p in ctx.command.params if isinstance(p, click.Argument)]
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if (not isinstance(param, click.Option) or param.name in ("out_dir", "resume", "overwrite")
                or not _given(ctx, param.name) or value is None or value == ()):
            continue
        option = max(param.opts, key=len)
        if param.is_flag:
            if value is True:
                words.append(option)
        elif param.multiple:
            for item in value:
                words += [option, str(item)]
        else:
            words += [option, str(value)]
    return words


def _resume_command(words: list[str], out_dir: Path) -> str:
    """The command line that finishes the run in ``out_dir``: ``words`` with --out OUT --resume."""
    import shlex

    return shlex.join([*words, "--out", str(out_dir), "--resume"])


def _used_budget(result: Any, budget: int | None) -> int | None:
    """The budget a detail row's result used: ``--budget``, else the default its sampler resolved (recorded in
    its info, as the library's results do; None for a method without one, e.g. exact enumeration or trees)."""
    if budget is not None:
        return budget
    used = result.info.get("budget")
    return int(used) if isinstance(used, (int, np.integer)) and not isinstance(used, bool) else None


def _finished_rows(out_dir: Path) -> str:
    from .runs._store import MANIFEST as RUN_MANIFEST
    from .runs._store import Store

    try:
        if not (out_dir / RUN_MANIFEST).is_file():
            raise ValueError(RUN_MANIFEST)
        recorded = Store(out_dir, create=False).read_manifest()  # with the chunks of its journal
        done = sum(e["rows"][1] - e["rows"][0] for e in recorded["chunks"].values())
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return f"No finished rows were saved in {out_dir} yet."
    return f"The {done} finished rows are kept in {out_dir}."


def _resumable(command):
    """Ctrl-C in ``command`` ends with how to finish the job (the exact command with --resume), exit code 130."""
    import functools

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except KeyboardInterrupt:
            ctx = click.get_current_context()
            click.echo(f"\nInterrupted. {_finished_rows(ctx.params['out_dir'])} To finish without recomputing "
                       f"them, run:\n  {_resume_command(_command_words(ctx), ctx.params['out_dir'])}", err=True)
            ctx.exit(130)

    return wrapper


def _write_failure(exc: OSError, out_dir: Path) -> click.ClickException:
    """A failed write (disk full...) as a one-line error naming the file, and how to finish the job."""
    from ._files import WriteError, describe

    if not isinstance(exc, WriteError):  # another system error (e.g. reading): its own message, no traceback
        return click.ClickException(f"{type(exc).__name__}: {exc}")
    where = exc.filename or out_dir
    fix = "free some space" if exc.disk_full else "make the folder writable"
    return click.ClickException(
        f"could not write {str(where)!r}: {describe(exc)}. No result file was left half-written and the finished "
        f"rows are kept in {out_dir}: {fix}, then repeat the same command with --resume "
        "(interplay explain ... --resume) to finish without recomputing them.")


# library parameters named at the start of an error message -> the explain option that sets them
_PARAM_HINTS = {"ray_address": "--ray-address", "random_state": "--seed", "chunk_size": "--chunk-size",
                "n_jobs": "--n-jobs", "budget": "--budget", "backend": "--backend", "target": "--target"}


def _usage_error(exc: Exception) -> click.ClickException:
    """A library error about one parameter as that option's usage error (exit code 2), else a plain error."""
    name = str(exc).split(":", 1)[0]
    if name in _PARAM_HINTS:
        return click.BadParameter(str(exc), param_hint=_PARAM_HINTS[name])
    return click.ClickException(str(exc))


# run-manifest parameters -> the explain options that set them (for refusals)
_PARAM_OPTIONS = {"seed_entropy": "--seed", "background": "--background/--seed/DATA", "model": "MODEL",
                  "data": "DATA/--rows/--drop", "n_rows": "--rows", "method": "--method", "budget": "--budget",
                  "removal": "--removal", "output": "--output", "target": "--target", "chunk_size": "--chunk-size",
                  "feature_names": "DATA/--drop", "kind": "--method", "options": "--method"}


def _refusal(exc: ValueError, out_dir: Path, ctx: click.Context, chunk_size: int) -> click.ClickException:
    """The library's "refusing to mix" error in the user's terms: the options that differ, with the recorded
    values ("--background 30, was 20"), and the run's own command to finish it."""
    import re

    keys = re.findall(r"^\s+(\w+): run has", str(exc), flags=re.MULTILINE)
    if re.search(r"^\s+null_players: the run was begun by an earlier interplay", str(exc), flags=re.MULTILINE):
        return click.ClickException(
            f"{out_dir} holds an unfinished run begun by an earlier interplay, which explained null players "
            "(features equal to every reference row) within the whole game; this version gives them exact zeros, "
            "so it cannot add rows to that run. Its finished parts can still be read (interplay.load_run). To "
            "start afresh, add --overwrite (deletes that run) or use another --out.")
    try:
        recorded = json.loads((out_dir / RUN_OPTIONS).read_text())
        before = recorded["options"]
    except (OSError, ValueError, KeyError, TypeError):  # a run made by an older version: the library's words
        options = list(dict.fromkeys(_PARAM_OPTIONS.get(k, k) for k in keys))
        text = str(exc).split("\nUse another out=", 1)[0]
        return click.ClickException(
            f"{text}\nThe run in {out_dir} was made with other options"
            + (f" (differing: {', '.join(options)})" if options else "")
            + ". To finish it, repeat its command with --resume; to start afresh, add --overwrite or use another "
              "--out.")
    now = _run_options(ctx, chunk_size)["options"]
    lines = [f"{_option_name(ctx, name)} {now[name] if now[name] is not None else '(not given)'}, was "
             f"{before.get(name) if before.get(name) is not None else '(not given)'}"
             for name in RECORDED_OPTIONS if now.get(name) != before.get(name)
             and name != "chunk_size"]  # a resume takes another chunk size: never the cause
    model, data = ctx.params["model_file"], ctx.params["data_file"]
    if "model" in keys:
        lines.append(f"MODEL {model.name}: not the model file of the run ({recorded.get('model_file')}: the bytes "
                     "differ)")
    if "data" in keys and not any(now.get(k) != before.get(k) for k in ("rows", "drop")):
        lines.append(f"DATA {data.name}: the chosen rows differ from those of the run (made on "
                     f"{recorded.get('data_file')})")
    if not lines:  # something the recorded options do not show (e.g. another interplay version's output)
        lines = [f"{_PARAM_OPTIONS.get(k, k)} ({k} differs)" for k in keys]
    return click.ClickException(
        f"{out_dir} holds a run made with other options; refusing to mix results of different runs:\n  "
        + "\n  ".join(lines)
        + "\nTo finish that run, repeat its command:\n  "
        + (_resume_command(recorded["command"], out_dir) if isinstance(recorded.get("command"), list)
           else "(its first command, with --resume)")
        + "\nTo start afresh, add --overwrite (deletes that run) or use another --out.")


@main.command(short_help="Explain rows of a CSV/Parquet file with a model file; write results and a report.")
@click.argument("model_file", metavar="MODEL", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("data_file", metavar="DATA", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the results (JSON/npz, the run's Parquet parts) and report.html; created if missing.")
@click.option("--rows", default="0", show_default=True,
              help="Rows of DATA to explain: 0-based positions like 0,3,10-12, or 'all'.")
@click.option("--method", default="auto", show_default=True,
              help="Estimator: 'auto' (exact tree values for a tree model; else, for each row, exact when 2**k "
                   "fits the budget for its k features that are not null players, else the most accurate "
                   "sampler), 'tree', 'exact', or any installed method name (see interplay.available_methods).")
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help="Most coalition evaluations per row for sampling methods.")
@click.option("--index", type=click.Choice(INDICES), default="sii", show_default=True,
              help="Interaction index of the heatmap ('none': no interactions).")
@click.option("--removal", type=click.Choice(["marginal", "conditional", "baseline"]), default="marginal",
              show_default=True, help="How absent features are removed.")
@click.option("--background", "n_background", type=click.IntRange(min=1), default=100, show_default=True,
              help="Background rows drawn at random (with --seed) from DATA to average over (under "
                   "--removal conditional from the rows not explained, while there are any).")
@click.option("--output", type=click.Choice(["auto", "prediction", "probability", "log-odds", "margin"]),
              default="auto", show_default=True,
              help="Unit of the values, the same for every method (auto: log-odds for binary boosted "
                   "classifiers, as shap; the raw per-class score (margin) for multi-class boosted ones; probability "
                   "for other classifiers; the prediction for regressors).")
@click.option("--target", default=None,
              help="Class label (or output column) to explain; default: the positive class of a binary "
                   "classifier (a multi-class model needs one). 'predicted': each row's predicted class.")
@click.option("--drop", multiple=True, metavar="COLUMN", help="Column of DATA that is not a feature (repeatable).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True,
              help="Random seed (background draw, sampling): a non-negative integer.")
@click.option("--detail-rows", "n_detail", type=click.IntRange(min=0), default=DETAIL_ROWS, show_default=True,
              help="How many of the chosen rows (the first ones) also get the interaction index and the "
                   "explanation graph, shown in detail in the report.")
@click.option("--resume", is_flag=True,
              help="Continue the interrupted run in OUT: finished chunks are kept, missing or corrupt ones "
                   "computed. Repeat the first command's options; a run made with other options is refused.")
@click.option("--overwrite", is_flag=True, help="Delete the run already in OUT and start afresh.")
@click.option("--backend", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="Where rows are computed: 'local' worker processes, or a Ray cluster (--ray-address).")
@click.option("--ray-address", envvar="RAY_ADDRESS", default=None, show_envvar=True,
              help="Ray cluster to connect to with --backend ray: 'auto' (a cluster this machine belongs to) "
                   "or ray://HEAD:10001.")
@click.option("--n-jobs", type=click.IntRange(min=-4096, max=4096), default=None,
              help="Worker processes (local) or Ray actors; default: all CPUs, one per chunk at most. "
                   "Results do not depend on it.")
@click.option("--chunk-size", type=click.IntRange(min=1), default=None,
              help=f"Rows per chunk: the unit saved to disk, and the most work a crash loses. Results do not "
                   f"depend on it. Default: {CHUNK_SIZE}, or the run's own with --resume.")
@click.option("--call-rows", type=click.IntRange(min=1), default=None,
              help="Model rows per call (default 1024): fixed for the run, so a resume gives the same bits; a "
                   "model with a large cost per call (a Pipeline) runs faster with more, e.g. 16384.")
@click.option("--trust-model", is_flag=True,
              help="Allow pickle/joblib model files (loading them runs code) and untrusted skops types.")
@click.option("--title", default=None, help="Title of the report (default: from the file names).")
@_resumable
def explain(model_file: Path, data_file: Path, out_dir: Path, rows: str, method: str, budget: int | None,
            index: str, removal: str, n_background: int, output: str, target: str | None, drop: tuple[str, ...],
            seed: int, n_detail: int, resume: bool, overwrite: bool, backend: str, ray_address: str | None,
            n_jobs: int | None, chunk_size: int | None, call_rows: int | None, trust_model: bool,
            title: str | None) -> None:
    """Explain rows of DATA (CSV or Parquet) with the model in MODEL, and write results and a report.

    The Shapley values of all chosen rows are computed as a batch run (interplay.run) in chunks, on local
    worker processes or a Ray cluster, each finished chunk saved at once: OUT/run-manifest.json and
    OUT/parts/part-*.parquet (read them with interplay.open_run(OUT) / load_run(OUT), pandas or DuckDB; the
    run's row k is the k-th chosen row, whose DATA row number is in shapley.json's info["rows"]).
    The first --detail-rows rows also get the pairwise interaction index (--index) and the Bivariate Shapley
    matrix (the directed explanation graph). Writes OUT/shapley.json (.npz for many rows),
    OUT/row-<r>-<index>.json, OUT/row-<r>-bivariate.json, OUT/manifest.json (the list of those files) and
    OUT/report.html.

    A long run that was interrupted (crash, Ctrl-C, preempted machine) continues where it stopped with the
    same command plus --resume; the numbers equal those of an uninterrupted run. Without --resume, an OUT that
    already holds a run is refused (rather than silently recomputed or mixed); --overwrite starts afresh.

    \b
    Examples:
      interplay explain model.skops data.csv --rows 0-9 --drop label --out results/
      interplay explain model.skops big.parquet --rows all --out run/ --n-jobs 8
      interplay explain model.skops big.parquet --rows all --out run/ --n-jobs 8 --resume
      interplay explain model.skops big.parquet --rows all --out run/ --backend ray --ray-address auto
    """
    from dataclasses import replace

    import interplay as ip
    from ._files import atomic_write
    from ._validation import as_float
    from .io import _version, save
    from .report import save_report
    from .results import Explanation
    from .runs._backends import resolve_n_jobs

    if resume and overwrite:
        raise click.UsageError("--resume and --overwrite exclude each other: finish the run in OUT, or start afresh")
    if n_jobs == 0:
        raise click.BadParameter("expected a positive number of workers, or -1 for all CPUs", param_hint="--n-jobs")
    if backend == "ray" and not ray_address:
        raise click.BadParameter("--backend ray needs the cluster's address: --ray-address auto (a cluster this "
                                 "machine belongs to, e.g. after `ray start --head`) or ray://HEAD:10001",
                                 param_hint="--ray-address")
    for path, what in ((model_file, "model"), (data_file, "data")):
        if not path.is_file():
            raise click.ClickException(f"{what} file not found: {path}")
    model = load_model(model_file, trust=trust_model)
    frame = load_data(data_file, model, drop)
    chosen = parse_rows(rows, len(frame))
    # the background draw depends only on DATA, --drop, --background, --seed (and --rows under conditional
    # removal): the same on every resume
    rng = np.random.default_rng(seed)
    pool = np.arange(len(frame))
    if removal == "conditional":  # rows held out of the background: with few neighbours a background row is its
        rest = np.setdiff1d(pool, chosen)  # own nearest neighbour (the Explainer warns; the CLI could not help it)
        pool = rest if len(rest) else pool
    take = rng.choice(pool, size=min(n_background, len(pool)), replace=False)
    background = frame.iloc[np.sort(take)]
    if len(take) < n_background:  # said: the results record it, but a reader of the console would not know
        click.echo(f"Note: --background {n_background} asked for more rows than {data_file.name} offers; the "
                   f"background is its {len(take)} rows" + (" (the explained rows among them)"
                                                             if removal != "conditional" else ""), err=True)
    target_value: Any = target
    classes = getattr(model, "classes_", None)
    if target is not None and classes is not None:
        matches = [c for c in classes if str(c) == target]
        target_value = matches[0] if matches else target
        if not matches and target != "predicted":  # the library's message offers output indices, which the
            shown = [c.item() if isinstance(c, np.generic) else c for c in classes]  # command line does not take
            raise click.BadParameter(f"{target!r} is not a class of the model; expected one of {shown} (as typed "
                                     "in the data) or 'predicted'", param_hint="--target")
    elif target is not None and target.isdigit():
        target_value = int(target)
    try:
        explainer = ip.Explainer(model, background, removal=removal, output=output, target=target_value)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith("target:"):
            raise click.BadParameter(str(exc).split(":", 1)[1].strip(), param_hint="--target") from None
        if str(exc).startswith("output"):  # e.g. output='margin' for a model without a raw score: a usage error
            raise click.BadParameter(str(exc), param_hint="--output") from None
        raise click.ClickException(str(exc)) from None
    if explainer._multi_target:
        classes = [c.item() if isinstance(c, np.generic) else c for c in (explainer.model.classes or [])]
        raise click.BadParameter(f"the model has {len(classes) or 'several'} classes{f' {classes}' if classes else ''}"
                                 "; choose the one to explain (or 'predicted': each row's predicted class)",
                                 param_hint="--target")
    _check_target(explainer, frame.iloc[[chosen[0]]])  # before anything is printed or written
    d = frame.shape[1]
    detail = chosen[:n_detail]
    methods = _tree_methods(explainer, method, index, bool(detail), budget)
    # 'auto' without trees: each row chooses on the game of its features that are not null players (exact when
    # 2**k of them fit the budget), so every step passes 'auto' on; `methods` names what the full width gets
    # (checked below, said, and the method the unestimated-pairs warning suggests a budget for).
    per_row = method == "auto" and methods is None and removal != "conditional"  # (conditional: no null players)
    if methods is None:
        methods = {"shapley": choose_method("shapley", method, d, budget)}
        if detail:
            methods["bivariate"] = choose_method("bivariate", method, d, budget)
        if detail and index != "none":
            methods["interactions"] = choose_method("interactions", method, d, budget, optional=True, index=index)
            if methods["interactions"] is None:
                click.echo(_no_interactions_note(d, index, budget, tree=False), err=True)
        if methods.get("interactions") is None:
            methods.pop("interactions", None)
    _check_steps({k: m for k, m in methods.items() if m != "tree"}, d, budget, index)

    recorded = _recorded_run(out_dir)
    if overwrite or (recorded is not None and not recorded.get("chunks")):
        # --overwrite, or a run that finished nothing (e.g. stopped by an error): the old outputs go first
        _remove_run(out_dir)
        recorded = None
    if recorded is not None and not resume:
        done = sum(e["rows"][1] - e["rows"][0] for e in recorded["chunks"].values())
        state = "a finished run" if recorded.get("complete") else f"an unfinished run ({done} rows done)"
        raise click.ClickException(
            f"{out_dir} already holds {state}. Pass --resume (with the same options) to finish or reuse it "
            "without recomputing, --overwrite to start afresh, or choose another --out.")
    if chunk_size is None:
        chunk_size = int(recorded["params"]["chunk_size"]) if recorded is not None else CHUNK_SIZE
    if n_jobs is None and backend == "local":
        from .runs._run import chunks_left
        from .runs._store import Store

        # the rows the kept chunks leave, in chunks of this size (those kept may be of another, after a resume
        # with another --chunk-size: counting them as of this one gave 1 worker for 2 chunks left, or 7 for 5);
        # a missing or damaged part is not kept (the run recomputes it), so its rows count as left
        kept = {}
        if recorded is not None:
            store = Store(out_dir, create=False)
            kept = {k: e for k, e in recorded["chunks"].items() if store.part_ok(e)}
        todo = chunks_left(kept, len(chosen), chunk_size)
        n_jobs = min(resolve_n_jobs(None), max(1, todo))  # one chunk (or none) to compute: no worker processes

    common = {"model_file": model_file.name, "data_file": data_file.name, "budget": budget, "seed": seed,
              "removal": removal, "output": explainer.output, "background": len(background),
              **explainer._reference_info(),  # under --removal baseline: the background's mean, per column
              "target": explainer.target.item() if isinstance(explainer.target, np.generic) else explainer.target,
              "interplay_version": _version()}
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # read-only or vanished parent folder: one line, nothing written
        raise click.BadParameter(f"cannot create the output folder {str(out_dir)!r} ({exc.strerror or exc}); "
                                 "choose a writable folder", param_hint="--out") from None
    if recorded is None:
        try:
            _record_options(out_dir, click.get_current_context(), chunk_size)
        except OSError as exc:
            raise _write_failure(exc, out_dir) from None
    run_method = "auto" if per_row else methods["shapley"]
    if recorded is not None and recorded["params"].get("method") == methods["shapley"]:
        run_method = methods["shapley"]  # a run begun by an earlier interplay (the full width's name): as begun
    said = {k: (f"auto ({v} at {d} features{'' if v == 'exact' else ', exact on rows whose null players leave few'})"
                if per_row and (k != "shapley" or run_method == "auto") else v) for k, v in methods.items()}
    click.echo(f"Explaining {len(chosen)} row(s) of {data_file.name} ({d} features) with "
               f"{', '.join(f'{k}={v}' for k, v in said.items())}"
               + (f"; resuming the run in {out_dir}" if recorded is not None else ""), err=True)
    try:
        with warnings.catch_warnings():  # e.g. "part ... is corrupt; recomputing it": a plain line, no source
            warnings.showwarning = lambda message, *_, **__: click.echo(f"Warning: {message}", err=True)
            batch = ip.run(explainer, frame.iloc[chosen], run_method, out=out_dir, kind="shapley",
                           backend=backend, chunk_size=chunk_size, n_jobs=n_jobs, budget=budget, random_state=seed,
                           resume=True, model_tag=f"file-sha256:{_file_sha256(model_file)}",
                           ray_address=ray_address, call_rows=call_rows)
        values = batch.explanation()
    except ValueError as exc:
        from .runs._run import RowsDiffer

        if isinstance(exc, RowsDiffer):  # rows that differ from the kept chunks': in the user's terms
            raise click.ClickException(
                f"{exc.what}. To finish the run in {out_dir}, repeat its command with --resume and the same data; "
                "to start afresh, add --overwrite (deletes that run) or use another --out.") from None
        if "refusing to mix" in str(exc):
            raise _refusal(exc, out_dir, click.get_current_context(), chunk_size) from None
        raise _usage_error(exc) from None
    except OSError as exc:  # disk full while writing a part or the manifest
        raise _write_failure(exc, out_dir) from None
    except (TypeError, RuntimeError, ImportError) as exc:
        raise click.ClickException(str(exc)) from None

    # the first --detail-rows rows: interaction index and explanation graph, from one cached game per row, each
    # with its row's seed in the run (run row k is detail row k): the same samples as its Shapley values, so the
    # graph's node values are the attribution chart's (as explainer.bivariate(x) and shapley(x) share a seed)
    entropy = int(batch.manifest["params"]["seed_entropy"])
    seeds = [np.random.SeedSequence(entropy, spawn_key=(k,)) for k in range(len(detail))]
    results, predictions, outputs, written = [], [], [], []
    unestimated: dict = {}  # detail row -> interaction pairs with too few samples for an estimate
    pair_seeds, n_pairs, spent = [], 0, 0
    shown: set = set()

    def show(message: Any, *_: Any, **__: Any) -> None:  # a warning as one plain line, each text once
        if str(message) not in shown:
            shown.add(str(message))
            click.echo(f"Warning: {message}", err=True)

    classifier = explainer.model.kind == "classifier"
    try:
        with _progress(len(detail), "explaining in detail") as advance, warnings.catch_warnings():
            warnings.showwarning = show  # formatted like the batch's warnings, no source line
            for row, row_seed in zip(detail, seeds):
                x = frame.iloc[[row]]
                checked = explainer._check_row(x)
                ((label, game),) = explainer._games(checked).items()
                label = label.item() if isinstance(label, np.generic) else label
                info = {**common, "row": row, "x": [as_float(v) for v in x.to_numpy(dtype=object)[0]],
                        "prediction": float(game.grand_value()),
                        "explained_output": _explained_output(explainer, label),
                        # the class this row explains (each row's own with --target predicted); a
                        # regressor's one output: 0, as the library's Explainer records it
                        "target": label}
                s2, s3 = (np.random.SeedSequence(row_seed.entropy, spawn_key=row_seed.spawn_key) for _ in range(2))
                pair_seeds.append(np.random.SeedSequence(row_seed.entropy, spawn_key=row_seed.spawn_key))
                biv = (explainer.bivariate(x, method="tree") if methods["bivariate"] == "tree" else
                       explainer._explain_game("bivariate", game, checked,
                                               method="auto" if per_row else methods["bivariate"],
                                               budget=budget, random_state=s3))
                biv = replace(biv, info={**biv.info, **info, "method": biv.method,  # auto: the row's choice
                                         "budget": _used_budget(biv, budget)},
                              univariate=replace(biv.univariate, info={**info, "kind": "shapley",
                                                                       "budget": _used_budget(biv, budget)}))
                save(biv, out_dir / f"row-{row}-bivariate.json")
                written += [f"row-{row}-bivariate.json"]
                results.append(biv)
                if "interactions" in methods:
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        inter = (explainer.interactions(x, index=index, order=2, method="tree")
                                 if methods["interactions"] == "tree" else
                                 explainer._explain_game("interactions", game, checked, index=index, order=2,
                                                         method="auto" if per_row else methods["interactions"],
                                                         budget=budget, random_state=s2))
                    missing, n_pairs = _unestimated_pairs(inter)
                    if missing:  # said once for all rows, after them, with the budget that estimates every pair
                        unestimated[row] = missing
                        spent = max(spent, int(inter.n_evaluations))
                    for w in caught:
                        if not (missing and "too few samples" in str(w.message)):
                            show(w.message)
                    inter = replace(inter, info={**inter.info, **info, "method": inter.method,  # auto: the row's
                                                 "index": index, "budget": _used_budget(inter, budget)})
                    save(inter, out_dir / f"row-{row}-{index}.json")
                    written += [f"row-{row}-{index}.json"]
                    results.append(inter)
                predictions.append(info["prediction"])
                outputs.append(info["explained_output"])
                advance()
    except OSError as exc:
        raise _write_failure(exc, out_dir) from None
    except (TypeError, ValueError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from None
    if unestimated:
        start = budget or spent  # without --budget: the method's default, as spent
        suggestion = _budget_for_every_pair(methods["interactions"], index, d, start, pair_seeds)
        show(_pairs_warning(unestimated, n_pairs, methods["interactions"], index, budget, start, suggestion))
    # auto per row: the rows' choice when they share one (e.g. exact everywhere when the full width is enumerated:
    # a row's game is never larger), else 'auto' with each row's in info["methods"]; what the full width gets in
    # info["auto"]. A run begun before the rows' choices were recorded says 'auto'.
    shapley_method = values.method if run_method == "auto" else methods["shapley"]
    if shapley_method == "auto" and "methods" not in values.info and methods["shapley"] == "exact":
        shapley_method = "exact"  # a run begun before each row's choice was kept: the full width is enumerated
    # each row's class, as the batch recorded it (no second pass over the rows' predictions)
    targets = (values.info.get("targets") if classifier else None) or _row_targets(explainer, frame.iloc[chosen])
    # past the detail rows, a row's prediction by efficiency (values' sum plus base value), where the method is
    # efficient: not SHEAR, L- or C-Shapley, whose sums miss the prediction (None there, as before)
    efficient = np.asarray(values.values, dtype=float).sum(axis=1) + np.asarray(values.base_values, dtype=float)
    row_methods = values.info.get("methods") or [shapley_method] * len(chosen)
    by_efficiency = [None if m in NOT_EFFICIENT else float(v) for m, v in zip(row_methods, efficient)]
    explanation = Explanation(
        values=values.values, base_values=values.base_values, data=values.data, feature_names=values.feature_names,
        method=shapley_method, n_evaluations=values.n_evaluations, std_errors=values.std_errors,
        info={**common, "method": shapley_method, "kind": "shapley", "rows": chosen, "index": list(chosen),
              # without --budget: the default the rows used, as the run records it (per row if they differ)
              "budget": budget if budget is not None else values.info.get("budget"),
              **({"budgets": values.info["budgets"]} if budget is None and "budgets" in values.info else {}),
              **({"auto": {"chosen": shapley_method, "full_width": methods["shapley"],
                           "reason": ("the exact tree algorithms: the model's trees give the explained output"
                                      if methods["shapley"] == "tree" else said["shapley"])}}
                 if method == "auto" else {}),
              **({"methods": values.info["methods"]} if "methods" in values.info else {}),
              # one entry per row, so that slicing keeps each row's own: the detail rows' model output as
              # evaluated, the others' by efficiency where the method has it
              "predictions": predictions + by_efficiency[len(predictions):],
              "explained_outputs": outputs + [_explained_output(explainer, t) for t in targets[len(outputs):]],
              "detail_rows": detail,
              "targets": targets,
              # the --target asked for; without one, the one the rows share (a regressor's: 0, as the library)
              "target": ("label" if explainer.output == "loss" else common["target"] if common["target"] is not None
                         else one_target(targets)),
              "run": RUN_DIR_NOTE, "chunk_size": chunk_size})
    big = explanation.values.size > 20000
    try:  # every file is written atomically: a full disk leaves no half-written one
        save(explanation, out_dir / ("shapley.npz" if big else "shapley.json"))
        report_path = save_report([explanation, *results], out_dir / "report.html",
                                  title=title or f"interplay: {model_file.name} on {data_file.name}")
        written.insert(0, "shapley.npz" if big else "shapley.json")
        atomic_write(out_dir / MANIFEST, json.dumps({"interplay_manifest": 1, "results": written,
                                                     "report": "report.html", "run": "run-manifest.json",
                                                     "command": sys.argv[1:]}, indent=1))
    except OSError as exc:
        raise _write_failure(exc, out_dir) from None
    click.echo(f"Wrote {len(written)} result file{'' if len(written) == 1 else 's'}, {MANIFEST}, the run "
               f"(run-manifest.json, parts/) and {report_path}")


# ---------------------------------------------------------------------------------------------------- report
def _result_files(paths: tuple[Path, ...]) -> list[Path]:
    from .io import SUFFIXES

    files: list[Path] = []
    for path in paths:
        if path.is_dir() and (path / MANIFEST).is_file():  # a folder written by `interplay explain`
            try:
                listed = json.loads((path / MANIFEST).read_text())["results"]
            except (ValueError, KeyError, TypeError):
                raise click.ClickException(f"{path / MANIFEST}: not a readable manifest") from None
            files.extend(path / name for name in listed)
        elif path.is_dir():
            found = sorted(p for p in path.iterdir()
                           if p.suffix.lower() in SUFFIXES and p.is_file()
                           and p.name not in (MANIFEST, "run-manifest.json"))
            if not found and (path / "run-manifest.json").is_file():  # a folder of ip.run: read as load_run
                files.append(path)
                continue
            if not found:
                raise click.ClickException(f"{path}: no result files (.json/.npz) in this folder, nor a run of "
                                           "ip.run (run-manifest.json)")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise click.ClickException(f"no such file or folder: {path}")
    return files


@main.command(short_help="Build one self-contained HTML report from saved results.")
@click.argument("results", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", "out_file", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The HTML file to write.")
@click.option("--title", default="interplay report", show_default=True, help="Title of the report.")
def report(results: tuple[Path, ...], out_file: Path, title: str) -> None:
    """Build one self-contained HTML report (opens offline) from saved results.

    RESULTS are result files (.json/.npz written by interplay) or folders of them, e.g. the --out folder of
    `interplay explain`, or the folder of a batch run (`ip.run(..., out=DIR)`: its rows, as `ip.load_run`).
    """
    from .io import load
    from .report import save_report
    from .runs import load_run

    loaded = []
    for path in _result_files(results):
        try:
            loaded.append(load_run(path) if path.is_dir() else load(path))
        except (ValueError, TypeError, FileNotFoundError, RuntimeError) as exc:
            raise click.ClickException(str(exc)) from None
    try:
        save_report(loaded, out_file, title=title)
    except (ValueError, TypeError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"Wrote {out_file}")


# ---------------------------------------------------------------------------------------------------- demo
@main.command(short_help="A tour on data bundled with scikit-learn, ending with an HTML report.")
@click.option("--row", default=0, show_default=True, type=click.IntRange(min=0),
              help="Which test row to explain (0-based).")
@click.option("--seed", default=0, show_default=True, help="Random seed for the split and the model.")
@click.option("--out", "out_dir", default="interplay-demo", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Folder for the tour's report.")
@click.option("--no-report", is_flag=True, help="Only print; write no files.")
def demo(row: int, seed: int, out_dir: Path, no_report: bool) -> None:
    """A tour: a regression model on a table (diabetes), a sentiment model on sentences (VADER), a digit
    classifier on image patches; then an HTML report."""
    try:
        from .demo import run_tour
    except ImportError as exc:  # pragma: no cover
        raise click.ClickException(f"the demo needs scikit-learn and pandas: pip install 'interplay[sklearn]' ({exc})")
    try:
        run_tour(click.echo, row=row, random_state=seed, out_dir=None if no_report else out_dir)
    except ValueError as exc:
        if not str(exc).startswith("row:"):
            raise
        raise click.BadParameter(str(exc), param_hint="--row") from None
    except ImportError as exc:  # scikit-learn is an optional dependency
        raise click.ClickException(f"the demo needs scikit-learn and pandas: pip install 'interplay[sklearn]' ({exc})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
