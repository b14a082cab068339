"""Results on disk: ``save(result, path)`` and ``load(path)``, exact round-trips, no pickle.

Formats (chosen by the file's suffix):

- ``.json``: one readable JSON document. Floats are written with Python's shortest round-trip ``repr``
  (exact for every finite float64); arrays that hold NaN or infinities are stored as base64 of their
  little-endian bytes, so they round-trip bit for bit too.
- ``.npz``: the same JSON document as a text entry, with every array stored as a binary ``.npy`` entry of the
  zip file: use it for big results (an :class:`~interplay.Explanation` of many rows).

Both are loaded without unpickling anything (``numpy.load(..., allow_pickle=False)``), so opening a result
file someone sent you runs no code. Every file records the result type, the format version and the version of
interplay that wrote it; what was computed (method, budget, seed, removal, model output, data and model files)
travels in the result's ``info`` mapping, which the command line fills in.

``info`` may hold None, bools, ints, floats, strings, lists, tuples, dicts and numpy arrays/scalars (numpy
scalars come back as Python numbers of equal value); anything else is stored as its ``repr`` with a warning.
"""

from __future__ import annotations

import base64
import io
import json
import warnings
import zipfile
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import numpy as np

from ._files import atomic_write
from ._validation import check_bool
from .results import Attribution, BivariateExplanation, Explanation, Interactions

FORMAT = "interplay-result"
FORMAT_VERSION = 1
RESULT_TYPES = {cls.__name__: cls for cls in (Attribution, Interactions, BivariateExplanation, Explanation)}
SUFFIXES = (".json", ".npz")

__all__ = ["FORMAT_VERSION", "load", "read_header", "save", "to_dict", "from_dict"]


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("interplay")
    except Exception:  # not installed (running from a source tree)
        from . import __version__

        return __version__


# ---------------------------------------------------------------------------------------------------- encoding
class _Encoder:
    """Turns result fields into JSON-ready values; arrays go inline (JSON) or to ``self.arrays`` (npz)."""

    def __init__(self, inline_arrays: bool) -> None:
        self.inline = inline_arrays
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, arr: np.ndarray) -> dict:
        arr = np.asarray(arr)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"cannot store an array of dtype {arr.dtype} (bool, int, float and string arrays only)")
        if not self.inline:
            key = f"a{len(self.arrays)}"
            self.arrays[key] = arr
            return {"__ndarray__": "npz", "key": key}
        dtype = arr.dtype.newbyteorder("<")
        out = {"__ndarray__": dtype.str, "shape": list(arr.shape)}
        if arr.dtype.kind != "f" or np.isfinite(arr).all():
            out["data"] = arr.ravel().tolist()  # repr of each float: exact
        else:
            out["base64"] = base64.b64encode(np.ascontiguousarray(arr, dtype=dtype).tobytes()).decode("ascii")
        return out

    def value(self, obj: Any, where: str) -> Any:
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, np.bool_):
            return int(obj)
        if isinstance(obj, (float, np.floating)):
            obj = float(obj)
            return obj if np.isfinite(obj) else {"__float__": repr(obj)}
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, np.ndarray) and obj.dtype.kind in "OU":  # raw categorical values, strings
            # (loaded back as an object array)
            return {"__objects__": [self.value(v, where) for v in obj.ravel()], "shape": list(obj.shape)}
        if isinstance(obj, np.ndarray):
            try:
                return self.array(obj)
            except TypeError as exc:
                raise TypeError(f"{where}: {exc}") from None
        if isinstance(obj, tuple):
            return {"__tuple__": [self.value(v, f"{where}[{i}]") for i, v in enumerate(obj)]}
        if isinstance(obj, list):
            return [self.value(v, f"{where}[{i}]") for i, v in enumerate(obj)]
        if isinstance(obj, dict):
            if all(isinstance(k, str) and not k.startswith("__") for k in obj):
                return {k: self.value(v, f"{where}[{k!r}]") for k, v in obj.items()}
            return {"__dict__": [[self.value(k, where), self.value(v, f"{where}[{k!r}]")] for k, v in obj.items()]}
        warnings.warn(f"{where}: {type(obj).__name__} is not a storable type; saving its repr as a string",
                      stacklevel=4)
        return repr(obj)


class _Decoder:
    def __init__(self, arrays: Any = None) -> None:
        self.arrays = arrays

    def value(self, obj: Any) -> Any:
        if isinstance(obj, list):
            return [self.value(v) for v in obj]
        if not isinstance(obj, dict):
            return obj
        if "__ndarray__" in obj:
            if obj["__ndarray__"] == "npz":
                if self.arrays is None:
                    raise ValueError("the file refers to an npz array entry but is not an npz file")
                return np.array(self.arrays[obj["key"]])
            dtype = np.dtype(obj["__ndarray__"])
            if "base64" in obj:
                flat = np.frombuffer(base64.b64decode(obj["base64"]), dtype=dtype)
            else:
                flat = np.array(obj["data"], dtype=dtype)
            return flat.reshape(obj["shape"]).astype(dtype.newbyteorder("="))
        if "__objects__" in obj:
            flat = [self.value(v) for v in obj["__objects__"]]
            out = np.empty(len(flat), dtype=object)
            out[:] = flat
            return out.reshape(obj["shape"])
        if "__float__" in obj:
            return float(obj["__float__"])
        if "__tuple__" in obj:
            return tuple(self.value(v) for v in obj["__tuple__"])
        if "__dict__" in obj:
            return {_hashable(self.value(k)): self.value(v) for k, v in obj["__dict__"]}
        return {k: self.value(v) for k, v in obj.items()}


def _hashable(key: Any) -> Any:
    return tuple(_hashable(k) for k in key) if isinstance(key, (list, tuple)) else key


def _subsets(mapping, enc: _Encoder) -> dict:
    keys = list(mapping)
    return {"__subsets__": [[int(i) for i in k] for k in keys], "values": enc.array(np.array([mapping[k] for k in keys],
                                                                                dtype=float))}


def _fields(result: Any, enc: _Encoder) -> dict:
    out = {}
    for f in fields(result):
        value = getattr(result, f.name)
        if isinstance(result, Interactions) and f.name in ("values", "std_errors") and value is not None:
            out[f.name] = _subsets(value, enc)
        elif isinstance(value, Attribution):
            out[f.name] = {"__result__": "Attribution", "fields": _fields(value, enc)}
        elif f.name == "info":
            out[f.name] = enc.value(dict(value), "info")
        elif f.name == "feature_names":
            out[f.name] = [str(v) for v in value]
        else:
            out[f.name] = enc.value(value, f.name)
    return out


def _build(type_name: str, data: dict, dec: _Decoder) -> Any:
    cls = RESULT_TYPES.get(type_name)
    if cls is None:
        raise ValueError(f"unknown result type {type_name!r}; expected one of {sorted(RESULT_TYPES)}")
    kwargs = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is not MISSING or f.default_factory is not MISSING:  # optional: keep the default
                continue
            raise ValueError(f"{type_name} file is missing the field {f.name!r}")
        raw = data[f.name]
        if isinstance(raw, dict) and "__subsets__" in raw:
            values = dec.value(raw["values"])
            kwargs[f.name] = {tuple(k): float(v) for k, v in zip(raw["__subsets__"], values)}
        elif isinstance(raw, dict) and "__result__" in raw:
            kwargs[f.name] = _build(raw["__result__"], raw["fields"], dec)
        else:
            kwargs[f.name] = dec.value(raw)
    return cls(**kwargs)


def to_dict(result: Any) -> dict:
    """The JSON-ready document of ``result`` (arrays inline). ``from_dict(to_dict(r))`` equals ``r`` exactly."""
    return _document(result, _Encoder(inline_arrays=True))


def _document(result: Any, enc: _Encoder) -> dict:
    type_name = type(result).__name__
    if type_name not in RESULT_TYPES or not isinstance(result, RESULT_TYPES[type_name]):
        hint = ""
        if isinstance(result, dict) and result and all(isinstance(r, tuple(RESULT_TYPES.values()))
                                                       for r in result.values()):  # target="all": one per class
            keys = [k.item() if isinstance(k, np.generic) else k for k in result]
            hint = (f" of {len(keys)} results, one per class or output (keys: {keys}); save each to its own file "
                    "(each keeps its class in info['target']), e.g. for cls, r in per_class.items(): "
                    "r.save(f'shapley-{cls}.json')")
        raise TypeError(f"result: expected one of {sorted(RESULT_TYPES)}, got {type(result).__name__}{hint}")
    return {"format": FORMAT, "format_version": FORMAT_VERSION, "type": type_name,
            "interplay_version": _version(), "fields": _fields(result, enc)}


def from_dict(document: dict, arrays: Any = None) -> Any:
    """Rebuild a result from :func:`to_dict`'s document (``arrays``: the npz entries, for npz files)."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"not an interplay result (expected format {FORMAT!r})")
    version = document.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError(f"format_version: expected a whole number from 1 to {FORMAT_VERSION}, got {version!r}")
    if version > FORMAT_VERSION:
        raise ValueError(f"result format version {version!r} is newer than this interplay understands "
                         f"({FORMAT_VERSION}); upgrade interplay")
    return _build(document.get("type"), document.get("fields", {}), _Decoder(arrays))


# ---------------------------------------------------------------------------------------------------- files
def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"path: expected a file name ending in {' or '.join(SUFFIXES)}, got {str(path)!r}")
    return suffix


def save(result: Any, path: str | Path) -> Path:
    """Write ``result`` to ``path`` (``.json``: readable; ``.npz``: binary arrays, for big results).

    Returns the path. ``load(path)`` gives back an equal result: same arrays bit for bit, same names, same
    ``info``. The file is written atomically (a temporary file in the same folder, then renamed): it is never
    left half-written, and a full disk raises :class:`interplay._files.WriteError` (an ``OSError``) naming it.
    A leading ``~`` is the home folder.
    """
    path = Path(path).expanduser()
    suffix = _suffix(path)
    if suffix == ".json":
        text = json.dumps(to_dict(result), indent=1, allow_nan=False)
        atomic_write(path, text + "\n")
        return path
    enc = _Encoder(inline_arrays=False)
    document = _document(result, enc)
    arrays = {f"array_{k}": v for k, v in enc.arrays.items()}
    buffer = io.BytesIO()
    np.savez_compressed(buffer, __document__=np.array(json.dumps(document, allow_nan=False)), **arrays)
    atomic_write(path, buffer.getvalue())
    return path


def _read(path: str | Path) -> tuple[dict, Any]:
    path = Path(path).expanduser()
    if path.is_dir():
        raise IsADirectoryError(f"path: {str(path)!r} is a folder; pass a result file (.json or .npz), or read a "
                                "command-line or batch-run folder with interplay.load_run")
    if not path.is_file():
        raise FileNotFoundError(f"path: no such result file: {str(path)!r}")
    suffix = _suffix(path)
    try:
        if suffix == ".json":
            return json.loads(path.read_text(encoding="utf-8")), None
        if not zipfile.is_zipfile(path):  # np.load would read it as a pickle and ask for allow_pickle=True
            raise ValueError("not a zip archive (an .npz result file is one)")
        with np.load(path, allow_pickle=False) as npz:
            if "__document__" not in npz.files:
                raise ValueError("no __document__ entry")
            document = json.loads(str(npz["__document__"]))
            arrays = {k[len("array_"):]: npz[k] for k in npz.files if k.startswith("array_")}
        return document, arrays
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise ValueError(f"{str(path)!r} is not a readable interplay result file ({type(exc).__name__}: {exc})"
                         ) from None


def read_header(path: str | Path) -> dict:
    """The file's metadata without building the result: type, format version, interplay version, and the
    result's method and info."""
    document, arrays = _read(path)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"{str(path)!r} is not an interplay result file")
    header = {k: document.get(k) for k in ("type", "format_version", "interplay_version")}
    flds = document.get("fields", {})
    header["method"] = flds.get("method")
    header["info"] = _Decoder(arrays).value(flds.get("info", {}))
    return header


def load(path: str | Path) -> Any:
    """Read a result written by :func:`save` (no pickle: loading runs no code from the file)."""
    document, arrays = _read(path)
    try:
        return from_dict(document, arrays)
    except (KeyError, TypeError) as exc:
        raise ValueError(f"{str(path)!r} is a damaged interplay result file ({type(exc).__name__}: {exc})") from None
    except ValueError as exc:
        raise ValueError(f"{str(path)!r}: {exc}") from None


# ---------------------------------------------------------------------------------------------------- converters
_SHAPIQ_INDEX = {"sii": "SII", "bii": "BII", "stii": "STII", "moebius": "Moebius", "ksii": "k-SII", "fsii": "FSII",
                 "fbii": "FBII"}


def to_shap(result: Any, pixels: bool | None = None):
    """A ``shap.Explanation`` with the same values (Attribution, Explanation, or a BivariateExplanation's
    univariate Shapley values), so shap's plots work on interplay results. Needs ``shap``.

    An image result (of :class:`~interplay.modalities.ImageExplainer` or ``ip.shapley(image_game(...))``: it
    carries ``info["image"]`` and ``info["segments"]``) becomes, with ``pixels=None`` (the default) or ``True``,
    the pixel-level Explanation that ``shap.plots.image`` draws, as shap's own image explanations: ``values`` of
    shape ``(1, H, W, C)`` where each pixel (and channel) carries its region's value divided by the region's pixel
    count (and by ``C``), so the pixels of a region sum to its value and the whole image to ``f(x) - base``;
    ``data`` the image ``(1, H, W, C)``; ``base_values`` ``(1,)``; ``error_std`` spread as the values. An
    ``(H, W)`` image gets one channel, ``(1, H, W, 1)``, the layout of shap's grayscale examples (shap.plots.image
    reads ``(1, H, W)`` as one pixel row with ``W`` channels). ``pixels=False``: one value per region, as any other
    result (features named by region and centre); ``pixels=True`` on a result without an image: a ValueError.

    ``data`` is passed only when it holds one value per feature, in the features' order (shap pairs them by
    position); otherwise (e.g. the input columns of a run with ``groups=``) it is None. A text result's data are
    its tokens, each with the text that follows it, as shap's own text explanations hold them. A multi-class
    Explainer's ``{class: Explanation}`` becomes one Explanation of shape ``(rows, features, classes)`` with the
    classes as ``output_names``; rows that explain different classes (``target="predicted"``) give a warning, as
    shap's plots would pool them. A feature of several columns, or a missing value, is NaN, which shap's plots
    draw as missing."""
    try:
        import shap
    except ImportError:
        raise ImportError("to_shap() needs the shap package: pip install shap") from None
    pixels = check_bool(pixels, "pixels", allow_none=True)
    if isinstance(result, dict):  # a multi-class Explainer's {class: Explanation}: shap's (rows, features, classes)
        if pixels:
            raise ValueError(_NO_IMAGE.format("a dict of Explanations by class"))
        return _stacked_shap(shap, result)
    info = {}
    if isinstance(result, BivariateExplanation):  # (a text result's tokens are in the Bivariate result's info)
        info, result = dict(result.info), result.univariate
    if isinstance(result, Attribution):
        info.update(result.info)
        has_image = info.get("image") is not None and info.get("segments") is not None
        if pixels or (pixels is None and has_image):
            if not has_image:
                raise ValueError(_NO_IMAGE.format("an Attribution without info['image'] and info['segments']"))
            return _pixel_shap(shap, result, info["image"], info["segments"])
        data = result.data if result.data is not None else info.get("x", _shap_tokens(info))
        if data is not None and np.shape(data) != (result.n_features,):  # e.g. input columns, not features
            data = None
        return shap.Explanation(values=np.array(result.values), base_values=result.baseline,
                                data=_shap_data(data), feature_names=list(result.feature_names),
                                error_std=result.std_errors)
    if isinstance(result, Explanation):
        if pixels:
            raise ValueError(_NO_IMAGE.format(f"an Explanation of {len(result.values)} rows"))
        from .plot._common import info_of, target_classes

        mixed, classes = target_classes(info_of(result))
        if mixed:  # shap's plots would pool the rows' classes as one output
            warnings.warn(f"to_shap: the rows explain different classes ({', '.join(repr(c) for c in classes or [])}"
                          "; target='predicted'), which a shap.Explanation cannot say: shap's plots will pool them. "
                          "Select one class's rows first, e.g. expl[np.asarray(expl.info['targets']) == cls]",
                          UserWarning, stacklevel=3)
        # data only when it has one column per feature (shap's plots pair them by position)
        data = result.data if result._data_aligned else None
        return shap.Explanation(values=np.array(result.values), base_values=np.array(result.base_values),
                                data=_shap_data(data), feature_names=list(result.feature_names),
                                error_std=None if result.std_errors is None else np.array(result.std_errors))
    raise TypeError(f"to_shap: expected an Attribution, Explanation, BivariateExplanation or a dict of "
                    f"Explanations by class, got {type(result).__name__}")


def from_shap(explanation: Any):
    """A ``shap.Explanation`` as interplay's result, for interplay's plots, metrics and tables: one row (values of
    shape ``(features,)``) an :class:`~interplay.results.Attribution`, many rows ``(rows, features)`` an
    :class:`~interplay.results.Explanation`, and ``(rows, features, outputs)`` (a multi-class model) a dict
    ``{output name: Explanation}`` as a multi-class Explainer returns. ``method`` is ``"shap"``; the number of
    model evaluations is unknown (0); ``data`` and ``error_std`` come along when present; features without
    names are ``x0, x1, ...``. Does not import shap (reads the object's attributes)."""
    values = getattr(explanation, "values", None)
    if values is None or not hasattr(explanation, "base_values"):
        raise TypeError(f"explanation: expected a shap.Explanation, got {type(explanation).__name__}")
    values = np.asarray(values, dtype=float)
    base = np.asarray(explanation.base_values, dtype=float)
    if values.ndim not in (1, 2, 3) or values.shape[-1 if values.ndim < 3 else 1] == 0:
        raise ValueError(f"explanation: expected values of shape (features,), (rows, features) or (rows, features, "
                         f"outputs), got {values.shape}")
    d = values.shape[0] if values.ndim == 1 else values.shape[1]
    names = getattr(explanation, "feature_names", None)
    names = [str(n) for n in names] if names is not None and len(names) == d else [f"x{j}" for j in range(d)]
    data = getattr(explanation, "data", None)
    errors = getattr(explanation, "error_std", None)
    info = {"source": "shap.Explanation"}
    if values.ndim == 1:
        data = None if data is None or np.shape(data) != (d,) else np.asarray(data)
        return Attribution(values, float(np.ravel(base)[0]) if base.size else 0.0, names, 0, "shap",
                           None if errors is None else np.asarray(errors, dtype=float), info, data)
    rows = len(values)
    data = None if data is None or np.shape(data) != (rows, d) else np.asarray(data)

    def one(vals, bases, errs, extra):
        return Explanation(vals, np.broadcast_to(bases, (rows,)).copy(), data, names, "shap",
                           np.zeros(rows, dtype=np.int64), errs, {**info, **extra})

    if values.ndim == 2:
        return one(values, base.reshape(-1) if base.size == rows else base.reshape(-1)[:1],
                   None if errors is None else np.asarray(errors, dtype=float), {})
    outputs = values.shape[2]
    labels = getattr(explanation, "output_names", None)
    labels = list(labels) if labels is not None and len(labels) == outputs else list(range(outputs))
    base = (base.reshape(rows, outputs) if base.size == rows * outputs else
            np.broadcast_to(base.reshape(-1), (rows, outputs)))
    return {label: one(values[:, :, k], base[:, k], None, {"target": label}) for k, label in enumerate(labels)}


_NO_IMAGE = ("pixels: expected an image result (one image: an ImageExplainer's, or ip.shapley(image_game(...))'s "
             "Attribution, which carries info['image'] and info['segments']), got {}; pass pixels=None or False")


def _pixel_shap(shap, result: Attribution, image: Any, segments: Any):
    """An image Attribution (one value per region) as shap's pixel-level image Explanation: each pixel and channel
    its region's value divided by the region's pixel count and the channels, values and data ``(1, H, W, C)``."""
    image, segments = np.asarray(image), np.asarray(segments)
    if image.ndim not in (2, 3) or segments.shape != image.shape[:2]:
        raise ValueError(f"result: expected info['image'] of shape (H, W) or (H, W, C) and info['segments'] of its "
                         f"(H, W), got image {image.shape} and segments {segments.shape}")
    n = result.n_features
    ids = np.unique(segments)
    if not np.issubdtype(segments.dtype, np.integer) or not np.array_equal(ids, np.arange(n)):
        raise ValueError(f"result: expected info['segments'] to label the pixels with the region ids 0..{n - 1} "
                         f"(one region per value, each with a pixel), got {segments.dtype} labels "
                         f"{ids.min() if ids.size else None}..{ids.max() if ids.size else None} in {ids.size} "
                         "regions; pass pixels=False for the region values")
    channels = image.shape[2] if image.ndim == 3 else 1
    share = np.bincount(segments.ravel(), minlength=n) * channels  # pixels (times channels) per region

    def spread(per_region):  # (1, H, W, C): each pixel and channel its region's share
        per_pixel = (np.asarray(per_region, dtype=float) / share)[segments]
        return np.repeat(per_pixel[None, ..., None], channels, axis=3)

    data = image if image.ndim == 3 else image[..., None]
    return shap.Explanation(values=spread(result.values), base_values=np.array([result.baseline], dtype=float),
                            data=np.array(data)[None],
                            error_std=None if result.std_errors is None else spread(result.std_errors))


def _stacked_shap(shap, results: dict):
    """``{class: Explanation}`` (the same rows and features) as one ``shap.Explanation`` of shape ``(rows,
    features, classes)`` with ``output_names`` the classes, as shap's own multi-class explanations."""
    parts = list(results.values())
    if not parts or not all(isinstance(p, Explanation) for p in parts):
        raise TypeError("to_shap: a dict must map each class to an Explanation (a multi-class Explainer's "
                        "shapley(X) or banzhaf(X))")
    first = parts[0]
    if any(p.values.shape != first.values.shape or p.feature_names != first.feature_names for p in parts):
        raise ValueError("to_shap: the Explanations of a dict must explain the same rows and features")
    errors = None
    if all(p.std_errors is not None for p in parts):
        errors = np.stack([p.std_errors for p in parts], axis=-1)
    data = first.data if first._data_aligned else None
    return shap.Explanation(values=np.stack([p.values for p in parts], axis=-1),
                            base_values=np.stack([p.base_values for p in parts], axis=-1),
                            data=_shap_data(data), feature_names=list(first.feature_names),
                            output_names=[str(c) for c in results], error_std=errors)


def _shap_tokens(info: dict) -> list[str] | None:
    """A text result's tokens as shap's text explanations hold them: each with the text after it (its spaces;
    the first also with the text before it), so that shap.plots.text, which joins them, shows the text (the bare
    tokens ran together: "notabadmovie"). Results without ``info["gaps"]`` (saved before it) join with spaces."""
    tokens = info.get("tokens")
    if tokens is None:
        return None
    tokens = [str(t) for t in tokens]
    gaps = info.get("gaps")
    if gaps is None or len(gaps) != len(tokens) + 1:
        gaps = ["", *[" "] * (len(tokens) - 1), ""]
    return [(gaps[0] if i == 0 else "") + t + gaps[i + 1] for i, t in enumerate(tokens)]


def _shap_data(data: Any) -> np.ndarray | None:
    """Feature values for shap: a copy, with None (a missing value, or a feature of several columns, which has
    no single value) as NaN, which shap's plots draw as missing."""
    if data is None:
        return None
    data = np.array(data)
    if data.dtype == object:
        data[np.array([v is None for v in data.ravel()], dtype=bool).reshape(data.shape)] = np.nan
    return data


def to_shapiq(result: Any):
    """A ``shapiq.InteractionValues`` with the same values: Interactions (SII, BII, STII, Moebius) or an
    Attribution (as order-1 ``SV``, or ``BV`` when ``info["kind"] == "banzhaf"``). Needs ``shapiq``.

    ``baseline_value`` is interplay's baseline ``v(empty)``, and ``()`` holds what shapiq's ``ExactComputer``
    puts there: ``v(empty)`` for SV, STII, k-SII, FSII and Moebius; the index's own value of the empty set for
    SII, BII and BV (``info["empty_set"]`` of an exact result: for BII and BV the mean of ``v`` over all
    coalitions; a sampled result has none and keeps ``v(empty)`` there, as shapiq's approximators do); for FBII
    the fitted intercept, ``info["intercept"]``, which is then also ``baseline_value``, as in ``ExactComputer``.
    """
    try:
        import shapiq
    except ImportError:
        raise ImportError("to_shapiq() needs the shapiq package: pip install shapiq") from None
    if isinstance(result, BivariateExplanation):
        result = result.univariate
    n = result.n_features
    # the tree path is exact too (no sampling), and so is a sampler's result when its budget covered every
    # coalition (info["enumerated"]: the exact values under the sampler's name)
    estimated = result.method not in ("exact", "tree") and not result.info.get("enumerated", False)
    budget = result.info.get("budget")
    budget = int(budget) if isinstance(budget, (int, np.integer)) else None
    if isinstance(result, Attribution):
        index = "BV" if result.info.get("kind") == "banzhaf" else "SV"
        empty = float(result.info.get("empty_set", result.baseline)) if index == "BV" else result.baseline
        values = {(): empty, **{(i,): float(v) for i, v in enumerate(result.values)}}
        return shapiq.InteractionValues(values, index=index, max_order=1, min_order=0, n_players=n,
                                        estimated=estimated, estimation_budget=budget,
                                        baseline_value=result.baseline)
    if isinstance(result, Interactions):
        if result.index not in _SHAPIQ_INDEX:
            raise ValueError(f"to_shapiq: shapiq has no index matching {result.index!r}; "
                             f"supported: {sorted(_SHAPIQ_INDEX)}")
        empty = result.baseline
        if result.index in ("sii", "bii"):
            empty = float(result.info.get("empty_set", result.baseline))
        elif result.index == "fbii":
            empty = float(result.info.get("intercept", result.baseline))
        values = {(): empty, **{tuple(k): float(v) for k, v in result.values.items()}}
        return shapiq.InteractionValues(values, index=_SHAPIQ_INDEX[result.index], max_order=result.order,
                                        min_order=0, n_players=n, estimated=estimated, estimation_budget=budget,
                                        baseline_value=empty if result.index == "fbii" else result.baseline)
    raise TypeError(f"to_shapiq: expected Interactions or an Attribution, got {type(result).__name__}")
