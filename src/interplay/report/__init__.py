"""A self-contained HTML report of interplay results: one file, no network, opens offline in any browser.

``build_report(results)`` returns the HTML text, ``save_report(results, path)`` writes it. ``results`` is a list
of result objects (or result files written by :func:`interplay.io.save`): Attributions, Interactions,
BivariateExplanations of individual rows (grouped by ``info["row"]`` and the class they explain, ``info["target"]``:
the per-class files of a multi-class explanation give one entry per row and class, each labelled with its class)
and Explanations of many rows. The page shows, per row: prediction and baseline, the attribution chart (plus the
highlighted tokens when ``info["tokens"]`` holds one token per feature, or the image with its regions tinted when
``info["image"]`` and ``info["segments"]`` are given), the interaction heatmap (colours scaled by the pairs, the
single-feature values in a column of their own; a pair a sampler could not estimate, standard error inf, is
hatched and n/a, not 0), the directed explanation graph with its plain-language summary (hover, zoom, and a gamma
slider over the analysis computed here, in Python, for every distinct threshold: the page looks it up and runs no
graph algorithm) and tables of groups, sources, sinks and the ranking (every feature); for many rows, a summary
(the 20 features with the largest mean |attribution|, the others counted and one click away).

The stylesheet and the script are package files (``report.css``, ``report.js``) read once per page.

Safety: every user-supplied string (feature names, tokens, file names, titles) is either HTML-escaped or
put into the page as JSON inside a ``<script type="application/json">`` block with ``<``, ``>`` and ``&``
escaped, and the scripts write them with ``textContent`` only. A Content-Security-Policy allows only the
page's own script (by hash) and no network access at all.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import numbers
import warnings
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from ..plot import _analysis
from ..results import Attribution, BivariateExplanation, Explanation, Interactions


__all__ = ["build_report", "save_report"]


def _asset(name: str) -> str:
    """A package file of the report (its stylesheet or script), as text."""
    from importlib.resources import files

    return files(__package__).joinpath(name).read_text(encoding="utf-8")

MAX_DETAIL_ROWS = 200    # rows with their own section (row selector)
MAX_SUMMARY_ROWS = 2000  # rows drawn in the summary chart
_META_KEYS = ("model_file", "data_file", "method", "budget", "seed", "removal", "output", "target", "background",
              "index", "interplay_version")


def _json_for_html(obj: Any) -> str:
    """JSON that cannot end a ``<script>`` block or open a comment: ``<``, ``>``, ``&`` as unicode escapes."""
    text = json.dumps(obj, allow_nan=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _floats(values) -> list:
    """Numbers (attributions, weights) as nested lists of floats, 0.0 where not finite (JSON has no NaN)."""
    arr = np.asarray(values, dtype=float)
    return np.where(np.isfinite(arr), arr, 0.0).tolist()


def _cell(value: Any) -> Any:
    """One feature value for the page: a whole number exactly (as an int), any other number rounded to 6
    significant digits (the page writes 4 in labels, as the plots do, and 6 on hover), None when missing (NaN,
    None), and anything else (a category, a flag) as its text."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None:
        return None
    if isinstance(value, (bool, str)):
        return str(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value):
            return None
        if math.isinf(value):
            return str(value)
        if value.is_integer() and abs(value) < 2 ** 53:
            return int(value)
        rounded = float(f"{value:.6g}")
        return value if rounded.is_integer() else rounded  # 2.5e9 + 0.5 stays a fraction (shown as one)
    return str(value)


def _cells(values: Any) -> list:
    """Feature values (one row, or a table of rows) as nested lists of :func:`_cell` values: numbers stay
    numbers and category names stay text, so the page shows ``city = Paris`` and ``fnlwgt = 77516``."""
    arr = np.asarray(values, dtype=object)
    if arr.ndim <= 1:
        return [_cell(v) for v in arr.ravel()]
    return [_cells(row) for row in arr]


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays and the like: compared by their text
        return str(a) == str(b)


def _per_class_dict(results: Any) -> None:
    """A dict of results, one per class (``Explainer(..., target="all").shapley(X)``), given as ``results`` or
    one of its items, is refused, saying how to pass it: iterated, its class labels were read as file paths
    ("no such result file: 'alpha'"), or "expected interplay result objects or files, got dict"."""
    if isinstance(results, Mapping) and results and all(
            isinstance(r, (Attribution, Interactions, BivariateExplanation, Explanation)) for r in results.values()):
        keys = [k.item() if isinstance(k, np.generic) else k for k in results]
        raise TypeError(f"results: got a dict of {len(keys)} results, one per class or output (keys: {keys}); pass "
                        "its results, e.g. list(per_class.values()) (one entry per row and class)")


def _load_all(results: Iterable[Any]) -> list:
    from ..io import load
    from ..results import Attribution, BivariateExplanation, Explanation, Interactions
    from ..runs._results import Run

    if isinstance(results, (str, Path, Attribution, BivariateExplanation, Explanation, Interactions, Run)):
        results = [results]  # one result (an Explanation was read row by row, a Run or a matrix failed)
    _per_class_dict(results)
    out = []
    for item in results:
        if isinstance(item, Run):  # ip.open_run(out): its rows, as ip.load_run gives them
            item = item.explanation()
        _per_class_dict(item)
        if isinstance(item, (str, Path)):
            out.append(load(item))
        else:
            out.append(item)
    return out


def _row_key(result, default: Any) -> Any:
    row = result.info.get("row", default)
    return row if isinstance(row, (int, str)) else default


_CLASS_UNITS = ("probability", "log-odds", "margin")


def _target(value: Any) -> Any:
    """A result's target as a key: the class label or output it explains; ``None`` when it does not say which
    (no target, or ``"predicted"`` without the rows' own classes): such a result joins the row's only entry."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or (isinstance(value, str) and value == "predicted"):
        return None
    return value if isinstance(value, (int, float, str, bool)) else str(value)


def _targets_of(result) -> list:
    """The target of each row of an Explanation (``info["targets"]``, else its one ``info["target"]``)."""
    targets = result.info.get("targets")
    if isinstance(targets, (list, tuple, np.ndarray)) and len(targets) == len(result):
        return [_target(t) for t in targets]
    return [_target(result.info.get("target"))] * len(result)


def _find(rows: dict, row: Any, target: Any, features: tuple, *, rekey: bool = True) -> tuple:
    """The key of the entry of ``row`` explaining ``target``: the same row and target; a result that does not say
    its target (``None``) joins the row's only entry, as does a targeted result the row's only untargeted entry
    (which then takes that target, unless ``rekey=False``)."""
    if (row, target, features) in rows:
        return (row, target, features)
    same = [key for key in rows if key[0] == row and key[2] == features]
    if len(same) == 1 and (target is None or same[0][1] is None):
        if target is not None and rekey:  # the untargeted entry learns its target
            items = list(rows.items())  # in place, keeping the rows' order
            rows.clear()
            rows.update(((row, target, features) if key == same[0] else key, e) for key, e in items)
            return (row, target, features)
        return same[0]
    return (row, target, features)


def _free_row(rows: dict, features: tuple, slot: str, target: Any = None) -> int:
    """The row of a result that does not say which row it explains: the first row (0, 1, ...) over these
    features that has no result of this kind yet (two such results were both filed as row 0, the second
    replacing the first under the first's attributions)."""
    k = 0
    while slot in rows.get(_find(rows, k, target, features, rekey=False), {}):
        k += 1
    return k


def _collect(results: list) -> tuple[list[str], dict, Explanation | None, dict]:
    """``(feature names, {key: entry}, the summary Explanation, {meta key: distinct values})``. An entry holds
    one row's results for one target (a multi-class explanation saved per class gives one entry per row and
    class); its key is ``(row, features)``, or ``((row, target), features)`` where a row has entries for several
    targets. ``entry["target"]`` is the class or output it explains (None when unknown)."""
    names: list[str] | None = None
    rows: dict[Any, dict] = {}
    summary = None
    info: dict = {}
    for result in results:
        cohort = ("the explanation graph of many rows" if type(result).__name__ == "ExplanationGraph" else
                  "a mean over rows" if isinstance(result, (Attribution, BivariateExplanation))
                  and (result.info.get("mean_over_rows") or "aggregate" in result.info) else None)
        if cohort is not None:  # it was shown as row 0's own result (or refused as an unknown type)
            raise TypeError(f"results: got {cohort} ({type(result).__name__}); the report shows rows' results: pass "
                            "the rows' (e.g. ip.load_run(DIR), or the Explanation and each row's bivariate result), "
                            "and draw a cohort with ip.plot.graph(...) or ip.plot.bar(...)")
        if not isinstance(result, (Attribution, Interactions, BivariateExplanation, Explanation)):
            raise TypeError(f"results: expected interplay result objects or files, got {type(result).__name__}")
        result_names = [str(n) for n in result.feature_names]
        if names is None:
            names = result_names
        features = tuple(result_names)  # rows over other features (e.g. a text and a table) get their own entries
        for key in _META_KEYS:  # every distinct value, in order: rows of different tasks may differ
            value = result.info.get(key)
            if key == "index" and not isinstance(value, str):
                continue  # an Explanation's row labels (info["index"]) are not the interaction index
            if key == "method" and result.info.get("methods"):  # auto, rows chose differently: how many each
                value = f"{value} ({_row_counts(result.info['methods'])})"
            recorded = key in result.info
            if key == "method" and not recorded and getattr(result, "method", None) is not None:
                value, recorded = str(result.method), True  # the Python API's results keep it out of info (the
                # About table named no method, or only the Shapley values', for a graph and interactions by another)
            if recorded:
                seen = info.setdefault(key, [])
                if not any(_same(value, v) for v in seen):
                    seen.append(value)
                kind_seen = info.setdefault(("by kind", key), {}).setdefault(_kind_label(result), [])
                kinds = info.setdefault(("kinds",), [])
                if _kind_label(result) not in kinds:
                    kinds.append(_kind_label(result))
                if not any(_same(value, v) for v in kind_seen):
                    kind_seen.append(value)
        unit = result.info.get("output")
        if isinstance(result, Explanation):
            summary = result if summary is None or len(result) > len(summary) else summary
            labels = list(result.info.get("rows", result.info.get("index", range(len(result)))))
            targets = _targets_of(result)
            predictions = list(result.info.get("predictions", []))
            outputs = list(result.info.get("explained_outputs", []))
            left_out: list = []
            if len(result) > MAX_DETAIL_ROWS:  # said under Rows (the selector silently ended at row 200)
                info[("beyond detail",)] = max(info.get(("beyond detail",), 0), len(result))
            for k in range(min(len(result), MAX_DETAIL_ROWS)):
                label = labels[k] if k < len(labels) else k
                key = _find(rows, label, targets[k], features)
                if _other_unit(rows.get(key), unit, label, targets[k], _kind_label(result), warn=False):
                    left_out.append((label, targets[k], rows[key]["output"]))
                    continue
                entry = rows.setdefault(key, {"feature_names": result_names})
                entry.setdefault("attribution", result[k])
                entry.setdefault("data", result.data[k])
                if unit is not None:
                    entry.setdefault("output", unit)
                if "model_kind" in result.info:  # a regressor's raw score: a margin of no class
                    entry.setdefault("model_kind", result.info["model_kind"])
                if k < len(predictions) and predictions[k] is not None:
                    entry.setdefault("prediction", predictions[k])
                if k < len(outputs) and outputs[k] is not None:
                    entry.setdefault("explained_output", outputs[k])
            if left_out:  # one warning for the Explanation's rows left out
                shown = ", ".join(f"row {r}" + (f" (class {_target_text(t)})" if t is not None else "")
                                  for r, t, _ in left_out[:5]) + (", ..." if len(left_out) > 5 else "")
                warnings.warn(f"results: {len(left_out)} row(s) have results in different units ({left_out[0][2]!r} "
                              f"first, then {unit!r}): {shown}; the report shows the {left_out[0][2]!r} ones and "
                              f"leaves out these rows' {_kind_label(result)} in {unit!r}: build one report per output",
                              UserWarning, stacklevel=3)
            continue
        slot = ("attribution" if isinstance(result, Attribution) else
                "interactions" if isinstance(result, Interactions) else "bivariate")
        target = _target(result.info.get("target"))
        row = _row_key(result, None)
        row = _free_row(rows, features, slot, target) if row is None else row
        key = _find(rows, row, target, features)
        if _other_unit(rows.get(key), unit, row, target, _kind_label(result)):
            continue
        entry = rows.setdefault(key, {"feature_names": result_names})
        if isinstance(result, Attribution):
            entry["attribution"] = result
        elif isinstance(result, Interactions):
            if "interactions" in entry:  # the page shows one interaction matrix a row: say which was dropped
                warnings.warn(f"results: row {row} has several Interactions results; the report shows the last "
                              f"({result.index}) and drops the one before ({entry['interactions'].index}): build "
                              "one report per index to see both", UserWarning, stacklevel=3)
            entry["interactions"] = result
        else:
            entry["bivariate"] = result
            entry.setdefault("attribution", result.univariate)
        if "x" in result.info:
            entry.setdefault("data", result.info["x"])
        for key in ("explained_output", "tokens", "image", "segments"):
            if key in result.info:
                entry.setdefault(key, result.info[key])
        if unit is not None:
            entry.setdefault("output", unit)
        if "model_kind" in result.info:
            entry.setdefault("model_kind", result.info["model_kind"])
        if isinstance(result.info.get("prediction"), (int, float)):
            entry.setdefault("prediction", result.info["prediction"])
    if names is None:
        raise ValueError("results: nothing to report (no results given)")
    shared = {}
    for row, target, features in rows:
        shared[(row, features)] = shared.get((row, features), 0) + 1
    keyed = {}
    for (row, target, features), entry in rows.items():
        entry["target"] = target
        keyed[(row, features) if shared[(row, features)] == 1 else ((row, target), features)] = entry
    return names, keyed, summary, info


def _other_unit(entry: dict | None, unit: Any, row: Any, target: Any, kind: str, *, warn: bool = True) -> bool:
    """Whether a result in ``unit`` would join a row's entry in another unit (a probability's attributions with a
    margin's interactions and graph, all labelled "probability": shown together as one explanation, no word said):
    warned, and the result left out (the entry keeps the unit it was given first)."""
    shown = None if entry is None else entry.get("output")
    if shown is None or unit is None or shown == unit:
        return False
    if not warn:
        return True
    which = f"row {row}" + (f" (class {_target_text(target)})" if target is not None else "")
    warnings.warn(f"results: {which} has results in different units ({shown!r} first, then {unit!r}); the report "
                  f"shows the {shown!r} ones and leaves out the {kind} in {unit!r}: build one report per output",
                  UserWarning, stacklevel=4)
    return True


def _target_text(target: Any) -> str:
    return repr(target) if isinstance(target, str) else str(target)


_ONE_OUTPUT = "the model's output (one output)"


def _class_unit(entry: dict) -> bool:
    """Whether an entry's values are of a class (a classifier's probability, log-odds or margin)."""
    return entry.get("output") in _CLASS_UNITS and entry.get("model_kind") != "regressor"


def _one_output(rows: dict) -> set:
    """The keys of the entries that explain a model's only output: target 0 (what every result of a regressor or
    a one-output score records) in a unit of no class, where no entry in that unit explains another output. The
    About table said "target: 0" and the rows' labels "(output 0)", as if the model had several."""
    def first(target: Any) -> bool:  # output 0 (not False)
        return isinstance(target, int) and not isinstance(target, bool) and target == 0

    others = {e.get("output") for e in rows.values() if e.get("target") is not None and not first(e["target"])}
    return {key for key, e in rows.items()
            if first(e.get("target")) and not _class_unit(e) and e.get("output") not in others}


def _target_line(declared: list, rows: dict, one_output: Iterable = ()) -> str | None:
    """The About table's target line when rows explain different targets: each row's predicted class, or one
    entry per row and class (a multi-class explanation saved per class); :data:`_ONE_OUTPUT` for the entries of
    ``one_output`` (keys of ``rows``), beside the other rows' targets; None: the usual line."""
    classes = list(dict.fromkeys(e["target"] for key, e in rows.items()
                                 if e.get("target") is not None and key not in one_output))
    if any(isinstance(v, str) and v == "predicted" for v in declared):
        shown = "; ".join(map(str, classes))
        return "predicted: each row's predicted class" + (f" ({shown})" if shown else "")
    if one_output:
        return _ONE_OUTPUT if not classes else "varies by row: " + "; ".join([_ONE_OUTPUT, *map(str, classes)])
    if len(classes) > 1:
        return f"one entry per row and class: {'; '.join(map(str, classes))} (choose it under Rows)"
    return None


def _attribution_methods(rows: list) -> str | None:
    """The About table's attribution methods where the rows' charts differ (the demo's exact Shapley values
    beside two rows of C-Shapley read "attributions: c-shapley", as if every chart were): "mixed: exact for 4 rows,
    c-shapley for 2 rows (text 1 ..., text 2 ...)", most frequent first, naming the rows of the other methods
    where they are at most 3; None where every chart has one method. ``rows``: the rows' payloads."""
    by_method: dict = {}
    for row in rows:
        if "attribution_method" in row:
            by_method.setdefault(row["attribution_method"], []).append(str(row["label"]))
    if len(by_method) < 2:
        return None
    parts = []
    for k, (method, labels) in enumerate(sorted(by_method.items(), key=lambda item: -len(item[1]))):
        named = f" ({', '.join(labels)})" if k and len(labels) <= 3 else ""
        parts.append(f"{method} for {len(labels)} row{'s' if len(labels) != 1 else ''}{named}")
    return "mixed: " + ", ".join(parts)


def _image_payload(image: Any, segments: Any, n_regions: int) -> dict:
    """An image (H, W[, 3], floats in [0, 1] or 0..255) and its region map (H, W), as base64 for the canvas."""
    img = np.asarray(image)
    seg = np.asarray(segments)
    if img.ndim not in (2, 3) or (img.ndim == 3 and img.shape[2] not in (1, 3, 4)) or seg.shape != img.shape[:2]:
        raise ValueError(f"image: expected (H, W) or (H, W, 3) pixels and (H, W) segments, got {img.shape} "
                         f"and {seg.shape}")
    if seg.min() < 0 or seg.max() >= n_regions:
        raise ValueError(f"segments: region ids must lie in 0..{n_regions - 1} (one attribution per region)")
    from ..modalities.display import displayable

    img = displayable(img) * 255.0  # as ip.plot.image shows it (gray min..max, colour rescaled when needed)
    if img.ndim == 2:
        img = np.repeat(img[..., None], 3, axis=2)
    rgb = np.clip(np.round(img[..., :3]), 0, 255).astype(np.uint8)
    return {"height": int(seg.shape[0]), "width": int(seg.shape[1]),
            "rgb": base64.b64encode(rgb.tobytes()).decode("ascii"),
            "segments": base64.b64encode(seg.astype("<i4").tobytes()).decode("ascii")}


_BASELINES = {"marginal": "average output over the background", "conditional": "average output over the background",
              "baseline": "output at the reference row",
              "path-dependent (tree cover)": "the trees' average output over their training data"}  # by removal


def _row_payload(key: Any, entry: dict, names: list[str], several_targets: bool = False,
                 one_output: bool = False) -> dict:
    """The page's view of one entry; ``one_output``: it explains a model's only output (no "(output 0)")."""
    key = key[0]
    if isinstance(key, tuple):  # (row, target): the row has entries for several targets
        key = key[0]
    payload: dict[str, Any] = {"label": key if isinstance(key, str) else f"row {key}"}
    target = entry.get("target")
    class_unit = _class_unit(entry)
    if several_targets and target is not None and not one_output:  # which class (or output) it explains
        payload["label"] += f" ({'class' if class_unit else 'output'} {target})"
    if target is not None:
        payload["target"] = target if isinstance(target, (int, float, str)) else str(target)
    if entry.get("explained_output") is None and target is not None and class_unit:
        entry = {**entry, "explained_output": f"{entry['output']} of class {_target_text(target)}"}
    if entry["feature_names"] != names:
        payload["feature_names"] = entry["feature_names"]
    attribution = entry.get("attribution")
    if attribution is not None:
        values = np.asarray(attribution.values, dtype=float)
        payload["attribution"] = _floats(values)
        payload["baseline"] = float(attribution.baseline)
        removal = attribution.info.get("removal") or next(  # a graph's Shapley values: the graph's info says
            (r.info.get("removal") for r in (entry.get("bivariate"), entry.get("interactions")) if r is not None), None)
        payload["baseline_label"] = _BASELINES.get(removal, "output with every feature removed")
        prediction = entry.get("prediction", attribution.info.get("prediction"))
        payload["prediction"] = float(prediction) if isinstance(prediction, (int, float)) else \
            float(attribution.baseline + values.sum())
        payload["attribution_method"] = str(attribution.method)
        if attribution.std_errors is not None:
            # NaN (none computed) and inf (too few samples) become null, shown as n/a (0.0 read as exact)
            errors = np.asarray(attribution.std_errors, dtype=float)
            payload["std_errors"] = [float(e) if np.isfinite(e) else None for e in errors.ravel()]
    if entry.get("explained_output") is not None:
        payload["explained_output"] = str(entry["explained_output"])
    tokens = entry.get("tokens")
    if tokens is not None and attribution is not None and len(tokens) == len(attribution.values):
        payload["tokens"] = [str(t) for t in tokens]
    image, segments = entry.get("image"), entry.get("segments")
    if image is not None and segments is not None and attribution is not None:
        payload["image"] = _image_payload(image, segments, len(attribution.values))
    data = entry.get("data")
    if data is not None:
        payload["data"] = _cells(np.ravel(np.asarray(data, dtype=object)))
    interactions = entry.get("interactions")
    if interactions is not None:
        payload["interactions"] = {"index": str(interactions.index), "method": str(interactions.method),
                                   **_matrix_payload(interactions.matrix)}
        # subsets a sampler could not estimate (too few samples: value 0, standard error inf) are shown as n/a,
        # not as a 0 that reads "no interaction"; a NaN standard error (none computed) is not such a gap
        errors = interactions.std_errors or {}
        identified = interactions.info.get("full_rank") is True  # a regression without residual dof: errors inf
        missing = [list(k) for k, e in sorted(errors.items()) if len(k) <= 2 and e == math.inf and not identified]
        if missing:
            payload["interactions"]["unestimated"] = [k * 2 if len(k) == 1 else k for k in missing]
    bivariate = entry.get("bivariate")
    if bivariate is not None:
        payload["graph"] = _graph_payload(bivariate.graph(), str(bivariate.method))
    return payload


def _graph_payload(graph, method: str) -> dict:
    """The explanation graph and its analysis at every distinct threshold (see :func:`_analysis.thresholds`), in
    the page's compact form (:func:`_compact_states`; :func:`expand_graph` reads it back as the page does)."""
    ranking = graph.ranking()
    phi = graph.univariate
    sweep = _analysis.thresholds(graph)
    weights = np.asarray(_floats(graph.weights))
    gammas = np.asarray(sweep["gammas"], dtype=float)
    off = ~np.eye(len(weights), dtype=bool)
    digits = _order_digits(np.concatenate([np.abs(weights[off]), gammas]))
    distinct, state_at, densities = _distinct_states(sweep["states"])
    payload = {"weights": _significant(weights, digits), "phi": None if phi is None else _floats(phi),
               "ranking": _floats(ranking.scores),
               "ranking_method": str(ranking.info.get("method")), "gammas": _significant(gammas, digits),
               "state_at": state_at, "densities": densities,
               "default": sweep["default"], "gamma": sweep["default_gamma"],
               "summary": graph.describe(), "method": method}
    payload["levels"], payload["distinct_states"] = _compact_states(distinct)
    if phi is None:  # the node sizes: |phi| (the page takes it from phi), else the ranking scores
        payload["size"] = _floats(ranking.scores)
    return payload


DIGITS = 7  # significant digits of the numbers the page draws but does not order (it writes 4, colours by ~3)


def _significant(values: Any, digits: int = DIGITS) -> list:
    """Numbers rounded to ``digits`` significant digits, as nested lists (0.0 where not finite): the page writes
    4 and draws far coarser than 7, and a float's 17 digits took most of a 60-feature page's weights."""
    arr = np.asarray(_floats(values), dtype=float)
    flat = [float(f"{v:.{digits}g}") for v in arr.ravel().tolist()]
    return np.asarray(flat, dtype=float).reshape(arr.shape).tolist()


def _order_digits(values: np.ndarray, least: int = DIGITS) -> int:
    """The fewest significant digits (at least ``least``) at which rounding keeps every distinct value of
    ``values`` distinct: the page compares the graph's |weights| with the thresholds (an edge is drawn where
    |W| > gamma) and sorts the edges by |weight|, which rounding must not change (rounding is monotone, so
    keeping the values distinct keeps each comparison and the order)."""
    values = np.unique(np.asarray(values, dtype=float)[np.isfinite(values)])
    for digits in range(least, 17):
        if len(np.unique(_significant(values, digits))) == len(values):
            return digits
    return 17


def _distinct_states(states: list) -> tuple[list, list, list]:
    """The analysis at each threshold stored once per distinct picture: the distinct states (without
    ``density``, which changes at every threshold), the index of each threshold's state among them, and each
    threshold's density. The page puts them back together (``states[k]``); a graph of 30 features has up to
    ~400 thresholds but ~140 distinct states (a page of 20 such rows was 6 MB)."""
    distinct, index, state_at, densities = [], {}, [], []
    for state in states:
        rest = {k: v for k, v in state.items() if k != "density"}
        key = json.dumps(rest, sort_keys=True, separators=(",", ":"))
        if key not in index:
            index[key] = len(distinct)
            distinct.append(rest)
        state_at.append(index[key])
        densities.append(state["density"])
    return distinct, state_at, densities


def _compact_states(distinct: list) -> tuple[list, list]:
    """``(levels, states)``: the distinct states, each written as its change from the one before (a 60-feature
    page of 20 graphs was 5.5 MB, mostly these states written out in full): a key equal to the previous state's
    is left out; ``x`` (positions, 4 decimals) as whole numbers of 1/10000; ``depth`` as indices into ``levels``
    (the distinct depths of all states, exact: sums of 0.7); either of them, where few features move, as ``dx`` /
    ``ddepth``: ``[feature, value, feature, value, ...]``; ``edges`` as one flat list ``[a, b, a, b, ...]``."""
    out, previous = [], {}
    levels = sorted({d for state in distinct for d in state["depth"]})
    at = {d: k for k, d in enumerate(levels)}
    for state in distinct:
        xs = [int(round(v * 10000)) for v in state["x"]]
        if any(k / 10000 != v for k, v in zip(xs, state["x"])):  # positions not in 4 decimals: kept as they are
            raise ValueError("graph layout: expected positions rounded to 4 decimals")
        current = {key: value for key, value in state.items() if key not in ("x", "depth", "edges")}
        current.update(x=xs, depth=[at[d] for d in state["depth"]],
                       edges=[v for edge in state["edges"] for v in edge])
        written = {}
        for key, value in current.items():
            before = previous.get(key)
            if before == value:
                continue
            if key in ("x", "depth") and before is not None and len(before) == len(value):
                changes = [v for k, (a, b) in enumerate(zip(before, value)) if a != b for v in (k, b)]
                if len(changes) < len(value):
                    written["d" + key] = changes
                    continue
            written[key] = value
        out.append(written)
        previous = current
    return levels, out


def expand_graph(G: Mapping) -> dict:
    """The page's graph payload read back as the page's script reads it: ``weights``, ``size``, and ``states``
    (each threshold's analysis: as :func:`_analysis.thresholds` gives it, with every key)."""
    distinct, previous = [], {}
    for written in G["distinct_states"]:
        state = dict(previous)
        for key, value in written.items():
            if key in ("dx", "ddepth"):
                full = list(state[key[1:]])
                for k in range(0, len(value), 2):
                    full[value[k]] = value[k + 1]
                state[key[1:]] = full
            else:
                state[key] = value
        distinct.append(state)
        previous = state
    states = []
    for k, d in enumerate(G["state_at"]):
        s = distinct[d]
        edges = s["edges"]
        states.append({"groups": s["groups"], "sources": s["sources"], "sinks": s["sinks"],
                       "isolated": s["isolated"], "no_effect": s["no_effect"], "little_effect": s["little_effect"],
                       "density": G["densities"][k], "depth": [G["levels"][i] for i in s["depth"]],
                       "x": [v / 10000 for v in s["x"]],
                       "edges": [[edges[i], edges[i + 1]] for i in range(0, len(edges), 2)]})
    size = G.get("size") or [abs(v) for v in G["phi"]]
    return {**G, "size": size, "states": states}


def _matrix_payload(matrix: Any) -> dict:
    """An interaction matrix for the page: its upper triangle (``upper``, row i from column i on) where it is
    symmetric, as the pairwise indices are (half the numbers), else the whole ``matrix``; 7 significant digits."""
    values = np.asarray(_significant(matrix))
    if values.ndim == 2 and values.shape[0] == values.shape[1] and np.array_equal(values, values.T):
        return {"upper": [values[i, i:].tolist() for i in range(len(values))]}
    return {"matrix": values.tolist()}


def expand_matrix(payload: Mapping) -> list:
    """The interaction matrix of a page's ``interactions`` payload, as the page's script reads it."""
    if "matrix" in payload:
        return payload["matrix"]
    upper = payload["upper"]
    n = len(upper)
    return [[upper[min(i, j)][abs(j - i)] for j in range(n)] for i in range(n)]


def _row_counts(methods: list) -> str:
    """``"exact: 18 rows, odd_gp: 2 rows"`` for the rows' methods, most frequent first (``None``: rows of a run
    begun before each row's method was recorded)."""
    from collections import Counter

    counts = Counter("not recorded" if m is None else str(m) for m in methods)
    return ", ".join(f"{m}: {c} row{'s' if c != 1 else ''}" for m, c in counts.most_common())


def _kind_label(result) -> str:
    """What a result explains, for the header's lines: "shapley", "bivariate", "interactions (sii)"..."""
    if isinstance(result, BivariateExplanation):
        return "bivariate"
    if isinstance(result, Interactions):
        return f"interactions ({result.index})"
    return str(result.info.get("kind") or "attributions")


def _meta_line(values: list, by_kind: dict, kinds: set | None = None) -> Any:
    """One header line: the value; where results of different kinds (the Shapley values, the graph, the
    interactions) differ but each kind is uniform, each kind's value ("shapley: odd_gp; bivariate: gp"), also
    where only some kinds record it ("bivariate: 0" for the one seeded result, not "0" for all); else "varies by
    row" and the values (it named the kinds' differences row-to-row)."""
    partial = kinds is not None and by_kind and set(by_kind) != set(kinds)
    if len(values) == 1 and not (partial and all(len(v) == 1 for v in by_kind.values())):
        return values[0]
    if by_kind and all(len(v) == 1 for v in by_kind.values()):
        return "; ".join(f"{kind}: {_shown(v[0])}" for kind, v in by_kind.items())
    return "varies by row: " + "; ".join(map(_shown, values))


def _method_line(by_kind: dict, mixed: str, results: list) -> str:
    """The method line where the rows' attribution charts differ (``mixed``, :func:`_attribution_methods`): the
    graphs' and interactions' methods as :func:`_meta_line` gives them, the attribution results' replaced by
    ``mixed`` (it counts the graphs' Shapley values too, drawn as their rows' charts)."""
    attribution_kinds = {_kind_label(r) for r in results if isinstance(r, (Attribution, Explanation))}
    parts = []
    for kind, values in by_kind.items():
        part = f"attributions: {mixed}" if kind in attribution_kinds else f"{kind}: {', '.join(map(_shown, values))}"
        if part not in parts:
            parts.append(part)
    if not any(kind in attribution_kinds for kind in by_kind):
        parts.append(f"attributions: {mixed}")
    return "; ".join(parts)


def _shown(value: Any) -> str:
    """A header value as the page writes it: None (not given: the method's own default) as "(default)", as a whole
    line's None is (a run's budget beside a graph's read "shapley: None")."""
    return "(default)" if value is None else str(value)


def build_report(results: Iterable[Any], *, title: str = "interplay report",
                 meta: Mapping[str, Any] | None = None) -> str:
    """The report's HTML text. ``results``: result objects or paths of saved results; ``meta``: extra
    key/value lines for the header (e.g. the command that produced the results)."""
    from ..io import _version

    results = _load_all(results)
    names, rows, summary, info = _collect(results)
    kinds = {_kind_label(r) for r in results}
    lines = {k: _meta_line(info[k], info.get(("by kind", k), {}), None if k == "index" else kinds)  # (only
             for k in _META_KEYS if k in info}                                                       # Interactions)
    one_output = _one_output(rows)
    targets = _target_line(info.get("target", []), rows, one_output)
    if targets is not None:
        lines["target"] = targets
    several = len({e["target"] for key, e in rows.items() if e.get("target") is not None
                   and key not in one_output}) > 1
    row_payloads = [_row_payload(key, rows[key], names, several, key in one_output) for key in rows]
    mixed = _attribution_methods(row_payloads)
    counted = any((getattr(r, "info", None) or {}).get("methods") for r in results)  # auto: the line counts them
    if mixed is not None and "method" in lines and not counted:
        lines["method"] = _method_line(info.get(("by kind", "method"), {}), mixed, results)
    lines.setdefault("interplay_version", _version())
    if meta:
        lines.update(meta)
    payload = {
        "title": str(title),
        "feature_names": names,
        "rows": row_payloads,
        "meta": [[str(k), "(default)" if v is None else str(v)] for k, v in lines.items()],
    }
    if ("beyond detail",) in info:  # rows of an Explanation past MAX_DETAIL_ROWS: in the summary only
        payload["detail"] = {"shown": MAX_DETAIL_ROWS, "of": info[("beyond detail",)]}
    if summary is not None and len(summary) > 1:
        shown = slice(0, MAX_SUMMARY_ROWS)  # keeps the page light; the saved results hold every row
        labels = list(summary.info.get("rows", summary.info.get("index", range(len(summary)))))
        payload["summary"] = {"values": _floats(summary.values[shown]), "data": _cells(summary.data[shown]),
                              "feature_names": [str(n) for n in summary.feature_names],
                              "method": str(summary.method), "total_rows": len(summary),
                              # the features' order: mean |value| over every row, not only the rows drawn
                              "importance": np.abs(_floats(summary.values)).mean(axis=0).tolist(),
                              "labels": [str(v) if isinstance(v, str) else f"row {v}"
                                         for v in labels[:MAX_SUMMARY_ROWS]]}
        from ..plot._common import explained  # what the values are in, as the plots say it

        payload["summary"]["unit"] = explained(summary.info)
        summary_targets = set(_targets_of(summary)) - {None}
        if several and len(summary_targets) == 1:  # one class's values, in a report of several
            payload["summary"]["target"] = str(next(iter(summary_targets)))
    data_block = _json_for_html(payload)
    CSS, JS = _asset("report.css"), _asset("report.js")
    script_hash = base64.b64encode(hashlib.sha256(JS.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; script-src 'sha256-{script_hash}'; style-src 'unsafe-inline'; "
           "img-src data:; base-uri 'none'; form-action 'none'")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{html.escape(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(str(title))}</title>
<style>{CSS}</style>
</head>
<body>
<header><h1>{html.escape(str(title))}</h1><p class="sub">Shapley-family explanations by interplay</p></header>
<main id="app"><noscript>This report draws its charts with JavaScript; please enable it.</noscript></main>
<div id="tooltip" role="tooltip" hidden></div>
<script type="application/json" id="interplay-data">{data_block}</script>
<script>{JS}</script>
</body>
</html>
"""


def save_report(results: Iterable[Any], path: str | Path, *, title: str = "interplay report",
                meta: Mapping[str, Any] | None = None) -> Path:
    """Write :func:`build_report`'s page to ``path`` (UTF-8, atomically) and return the path."""
    from .._files import atomic_write

    path = Path(path)
    atomic_write(path, build_report(results, title=title, meta=meta))
    return path
