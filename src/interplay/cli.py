"""The ``interplay`` command line: ``explain`` a model file on a data file, ``report`` saved results, ``demo``.

Model files are read with skops by default (safe: no code runs while loading); pickle and joblib files only
with ``--trust-model``, because loading a pickle runs whatever code it holds.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import click
import numpy as np

DATA_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib")
INDICES = ("sii", "bii", "stii", "moebius", "excess", "none")
MANIFEST = "manifest.json"  # which result files one `interplay explain` run wrote (read by `interplay report`)
EXACT_AUTO_LIMIT = 14  # "auto" uses exact enumeration up to 2**14 coalitions per row


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="interplay")
def main() -> None:
    """interplay: Shapley-family explanations of black-box models, and how features act together.

    \b
    Start with the tour:        interplay demo
    Explain your own model:     interplay explain model.skops data.csv --rows 0-4 --out results/
    Rebuild a report:           interplay report results/ --out report.html
    """


# ---------------------------------------------------------------------------------------------------- helpers
@contextmanager
def _progress(total: int, description: str) -> Iterator[Any]:
    """A rich progress bar on a terminal (stderr); nothing when output is redirected or rich is missing."""
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    except ImportError:  # pragma: no cover - rich is optional
        yield lambda: None
        return
    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda: None
        return
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as progress:
        task = progress.add_task(description, total=total)
        yield lambda: progress.advance(task)


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
        wanted = [str(c) for c in wanted]
        absent = [c for c in wanted if c not in frame.columns]
        if absent:
            raise click.ClickException(f"{path}: the model needs column(s) {absent}, which the file lacks")
        frame = frame[wanted]
    n_in = getattr(model, "n_features_in_", None)
    if n_in is not None and frame.shape[1] != n_in:
        raise click.ClickException(
            f"{path}: {frame.shape[1]} columns but the model takes {n_in} features; drop the extra columns "
            "(e.g. the label) with --drop COLUMN")
    if len(frame) == 0:
        raise click.ClickException(f"{path}: the file has no rows")
    non_numeric = [str(c) for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if non_numeric:
        raise click.ClickException(f"{path}: non-numeric column(s) {non_numeric}; encode them as numbers "
                                   "(the model must take numeric input) or --drop them")
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


def choose_method(kind: str, method: str, n_features: int, budget: int | None, *, optional: bool = False) -> str | None:
    """The estimator for ``kind``: ``method`` when registered for it; for ``auto``, exact enumeration when
    ``2**n`` fits (at most ``2**14``, and within ``budget``), else a registered sampling method. ``optional``:
    None instead of an error when nothing fits."""
    from .estimators import available_methods

    methods = available_methods(kind)
    if method != "auto":
        if method in methods:
            return method
        if kind == "interactions" and "exact" in methods and n_features <= EXACT_AUTO_LIMIT:
            return "exact"  # the other kinds' sampler has no interaction counterpart here
        if optional:
            return None
        raise click.BadParameter(f"{method!r} is not available for {kind}; choose one of {methods} or 'auto'",
                                 param_hint="--method")
    exact_fits = n_features <= EXACT_AUTO_LIMIT and (budget is None or budget >= 2**n_features)
    if "exact" in methods and exact_fits:
        return "exact"
    for candidate in ("kernel", "permutation", "antithetic", "shear", "msr"):
        if candidate in methods:
            return candidate
    if optional:
        return None
    raise click.ClickException(
        f"{n_features} features are too many for exact {kind} (2**{n_features} coalitions) and no sampling "
        f"method is installed for it (available: {methods})")


def _explained_output(explainer: Any, x: Any) -> str:
    """In words, which output the row's game explains, e.g. "probability of class 'yes'"."""
    if explainer.model.kind != "classifier":
        return explainer.output
    label = explainer.explained_outputs(x)[0]
    return f"{explainer.output} of class {label!r}" if isinstance(label, str) else f"{explainer.output} of class {label}"


# ---------------------------------------------------------------------------------------------------- explain
@main.command(short_help="Explain rows of a CSV/Parquet file with a model file; write results and a report.")
@click.argument("model_file", metavar="MODEL", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("data_file", metavar="DATA", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the results (JSON/npz) and report.html; created if missing.")
@click.option("--rows", default="0", show_default=True,
              help="Rows of DATA to explain: 0-based positions like 0,3,10-12, or 'all'.")
@click.option("--method", default="auto", show_default=True,
              help="Estimator: 'auto' (exact up to 14 features, else a sampling method), 'exact', or any "
                   "installed method name (see interplay.available_methods).")
@click.option("--budget", type=click.IntRange(min=1), default=None,
              help="Most coalition evaluations per row for sampling methods.")
@click.option("--index", type=click.Choice(INDICES), default="sii", show_default=True,
              help="Interaction index of the heatmap ('none': no interactions).")
@click.option("--removal", type=click.Choice(["marginal", "conditional", "baseline"]), default="marginal",
              show_default=True, help="How absent features are removed.")
@click.option("--background", "n_background", type=click.IntRange(min=1), default=100, show_default=True,
              help="Background rows drawn at random from DATA to average over.")
@click.option("--output", type=click.Choice(["auto", "prediction", "probability", "log-odds"]), default="auto",
              show_default=True, help="Model output explained (auto: probability for classifiers).")
@click.option("--target", default=None,
              help="Class label (or output column) to explain; default: the predicted class of each row.")
@click.option("--drop", multiple=True, metavar="COLUMN", help="Column of DATA that is not a feature (repeatable).")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed (background draw, sampling).")
@click.option("--trust-model", is_flag=True,
              help="Allow pickle/joblib model files (loading them runs code) and untrusted skops types.")
@click.option("--title", default=None, help="Title of the report (default: from the file names).")
def explain(model_file: Path, data_file: Path, out_dir: Path, rows: str, method: str, budget: int | None,
            index: str, removal: str, n_background: int, output: str, target: str | None, drop: tuple[str, ...],
            seed: int, trust_model: bool, title: str | None) -> None:
    """Explain rows of DATA (CSV or Parquet) with the model in MODEL, and write results and a report.

    For every chosen row: Shapley values, the pairwise interaction index (--index) and the Bivariate Shapley
    matrix (the directed explanation graph), all from one cached game. Writes OUT/shapley.json (all rows),
    OUT/row-<r>-<index>.json, OUT/row-<r>-bivariate.json, OUT/manifest.json (the list of those files)
    and OUT/report.html.

    \b
    Example:
      interplay explain model.skops data.csv --rows 0-9 --drop label --out results/
    """
    from dataclasses import replace

    import interplay as ip
    from .io import _version, save
    from .report import save_report
    from .results import BivariateExplanation, Explanation

    for path, what in ((model_file, "model"), (data_file, "data")):
        if not path.is_file():
            raise click.ClickException(f"{what} file not found: {path}")
    model = load_model(model_file, trust=trust_model)
    frame = load_data(data_file, model, drop)
    chosen = parse_rows(rows, len(frame))
    rng = np.random.default_rng(seed)
    take = rng.choice(len(frame), size=min(n_background, len(frame)), replace=False)
    background = frame.iloc[np.sort(take)]
    target_value: Any = target
    classes = getattr(model, "classes_", None)
    if target is not None and classes is not None:
        matches = [c for c in classes if str(c) == target]
        target_value = matches[0] if matches else target
    elif target is not None and target.isdigit():
        target_value = int(target)
    try:
        explainer = ip.Explainer(model, background, removal=removal, output=output, target=target_value)
    except (TypeError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    d = frame.shape[1]
    methods = {kind: choose_method(kind, method, d, budget) for kind in ("shapley", "bivariate")}
    if index != "none":
        methods["interactions"] = choose_method("interactions", method, d, budget, optional=True)
        if methods["interactions"] is None:
            click.echo(f"Note: no interaction estimator fits {d} features; the report has no heatmap "
                       "(--index none hides this note).", err=True)
    if methods.get("interactions") is None:
        methods.pop("interactions", None)
    common = {"model_file": model_file.name, "data_file": data_file.name, "budget": budget, "seed": seed,
              "removal": removal, "output": explainer.output, "target": target, "background": len(background),
              "interplay_version": _version()}
    out_dir.mkdir(parents=True, exist_ok=True)
    seeds = np.random.SeedSequence(seed).spawn(len(chosen))
    results, attributions, predictions, written = [], [], [], []
    click.echo(f"Explaining {len(chosen)} row(s) of {data_file.name} ({d} features) with "
               f"{', '.join(f'{k}={v}' for k, v in methods.items())}", err=True)
    try:
        with _progress(len(chosen), "explaining rows") as advance:
            for row, row_seed in zip(chosen, seeds):
                x = frame.iloc[[row]]
                game = explainer.game(x)
                info = {**common, "row": row, "x": [float(v) for v in x.to_numpy(dtype=float)[0]],
                        "prediction": float(game.grand_value()), "explained_output": _explained_output(explainer, x)}
                s1, s2, s3 = (np.random.default_rng(s) for s in row_seed.spawn(3))
                shap = ip.shapley(game, method=methods["shapley"], budget=budget, random_state=s1)
                biv = ip.bivariate(game, method=methods["bivariate"], budget=budget, random_state=s3)
                biv = replace(biv, info={**biv.info, **info, "method": methods["bivariate"]},
                              univariate=replace(biv.univariate, info={**info, "kind": "shapley"}))
                save(biv, out_dir / f"row-{row}-bivariate.json")
                written += [f"row-{row}-bivariate.json"]
                results.append(biv)
                if "interactions" in methods:
                    inter = ip.interactions(game, index=index, order=2, method=methods["interactions"],
                                            budget=budget, random_state=s2)
                    inter = replace(inter, info={**inter.info, **info, "method": methods["interactions"],
                                                 "index": index})
                    save(inter, out_dir / f"row-{row}-{index}.json")
                    written += [f"row-{row}-{index}.json"]
                    results.append(inter)
                attributions.append(shap)
                predictions.append(info["prediction"])
                advance()
    except (TypeError, ValueError, RuntimeError) as exc:
        raise click.ClickException(str(exc)) from None
    explanation = Explanation(
        values=np.array([a.values for a in attributions]), base_values=np.array([a.baseline for a in attributions]),
        data=frame.iloc[chosen].to_numpy(dtype=float), feature_names=attributions[0].feature_names,
        method=methods["shapley"], n_evaluations=np.array([a.n_evaluations for a in attributions]),
        std_errors=(np.array([a.std_errors for a in attributions])
                    if all(a.std_errors is not None for a in attributions) else None),
        info={**common, "method": methods["shapley"], "kind": "shapley", "rows": chosen, "predictions": predictions,
              "explained_outputs": [r.info["explained_output"] for r in results
                                    if isinstance(r, BivariateExplanation)]})
    big = explanation.values.size > 20000
    save(explanation, out_dir / ("shapley.npz" if big else "shapley.json"))
    report_path = save_report([explanation, *results], out_dir / "report.html",
                              title=title or f"interplay: {model_file.name} on {data_file.name}")
    written.insert(0, "shapley.npz" if big else "shapley.json")
    (out_dir / MANIFEST).write_text(json.dumps({"interplay_manifest": 1, "results": written,
                                                "report": "report.html", "command": sys.argv[1:]}, indent=1))
    click.echo(f"Wrote {len(written)} result files, {MANIFEST} and {report_path}")


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
                           if p.suffix.lower() in SUFFIXES and p.is_file() and p.name != MANIFEST)
            if not found:
                raise click.ClickException(f"{path}: no result files (.json/.npz) in this folder")
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
    `interplay explain`.
    """
    from .io import load
    from .report import save_report

    loaded = []
    for path in _result_files(results):
        try:
            loaded.append(load(path))
        except (ValueError, TypeError, FileNotFoundError) as exc:
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
    """A tour: explain a model trained on scikit-learn's diabetes data (and more examples where installed),
    then write an HTML report."""
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
