"""A run's parameters as recorded in its manifest, and the check that refuses to mix different runs.

The model is identified by the SHA-256 of its pickled bytes (cloudpickle), with the state that changes when the
model is only used zeroed (see :func:`model_fingerprint`), or by a ``model_tag`` the user gives (use one when the same
model pickles to different bytes in different processes). The background/reference data and the removal settings
are hashed too; the explained rows are checked chunk by chunk (``data_sha256``).
"""

from __future__ import annotations

import hashlib
import io
import json
import sys
from typing import Any

import numpy as np


def cloudpickle():
    """cloudpickle (pickles lambdas and functions of ``__main__`` by value); joblib's vendored copy if absent."""
    try:
        import cloudpickle as module
    except ImportError:  # pragma: no cover - joblib always ships one
        from joblib.externals import cloudpickle as module
    return module


def dumps_explainer(explainer: Any) -> bytes:
    """The explainer (model, background, settings) as cloudpickle bytes; a clear error when it cannot be pickled."""
    try:
        return cloudpickle().dumps(explainer)
    except Exception as exc:  # pickling raises many types (TypeError, PicklingError, AttributeError...)
        raise TypeError(
            f"model: cannot be pickled ({type(exc).__name__}: {exc}). Batch runs send the model to worker "
            "processes and fingerprint it to resume safely: use a model defined at module level (not a closure "
            "over an open file, lock, connection or generator), or wrap it in a picklable class"
        ) from None


def _plain_json(value: Any) -> bool:
    """Whether ``value`` survives a JSON round trip unchanged (so a resume can read the options back)."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return True
    if isinstance(value, list):
        return all(_plain_json(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v) for k, v in value.items())
    return False


def _sha(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part)
    return digest.hexdigest()


def _array_bytes(a: np.ndarray | None) -> bytes:
    if a is None:
        return b"none"
    if a.dtype == object:  # raw rows (categorical values): their text; a 1-D reference row (baseline removal)
        text = [[str(v) for v in row] for row in a] if a.ndim == 2 else [str(v) for v in a.ravel()]
        return repr(a.shape).encode() + repr(text).encode()
    a = np.ascontiguousarray(a, dtype=float)
    return repr(a.shape).encode() + a.tobytes()


def _fingerprint_only(*args: Any) -> None:  # pragma: no cover - the fingerprint's bytes are never unpickled
    raise TypeError("this pickle only fingerprints a model; it cannot be loaded")


# A ModelFunction's usage counters (a TorchModel's function is its own bound method, so they were pickled)
_USAGE_COUNTERS = ("n_calls", "n_rows")


def _neighbors_tree_reduce(tree: Any) -> tuple | None:
    """A scikit-learn KDTree/BallTree's reduce tuple with its query statistics zeroed; None for other objects.

    The tree counts its work in its pickled state: ``n_trims``, ``n_leaves``, ``n_splits`` (``get_tree_stats()``)
    and ``n_calls`` (distance evaluations, ``get_n_calls()``) grow with every query, so a nearest-neighbour model
    (KNeighbors*, RadiusNeighbors*, LocalOutlierFactor, KernelDensity...) pickles to other bytes after each predict.
    Zeroed (not dropped), a tree that has answered no query pickles to the bytes it always did.
    """
    cls = type(tree)
    if not (cls.__module__.startswith("sklearn.neighbors.") and hasattr(cls, "get_tree_stats")
            and hasattr(cls, "get_n_calls") and hasattr(cls, "__getstate__")):
        return None
    reduce = tree.__reduce__()  # (newObj, (cls,), __getstate__()): data, idx, node data, node bounds, leaf_size,
    state = tuple(reduce[2])    # n_levels, n_nodes, n_trims, n_leaves, n_splits, n_calls, metric, weights
    counters = (*(int(v) for v in tree.get_tree_stats()), int(tree.get_n_calls()))
    if len(reduce) == 3 and len(state) >= 11 and tuple(state[7:11]) == counters:
        return reduce[0], reduce[1], state[:7] + (0, 0, 0, 0) + state[11:]
    # another layout (another scikit-learn version): every plain integer dropped (sizes follow from the arrays)
    return (_fingerprint_only, (cls.__module__, cls.__qualname__),
            tuple(v for v in state if not isinstance(v, int) or isinstance(v, bool)))


def _stable_pickler() -> type:
    """cloudpickle's Pickler, with the state that changes when a model is only used zeroed (fingerprints only).

    Every other object pickles to the same bytes as with ``cloudpickle.dumps``, and a model that has not been
    used yet to the bytes it always did, so runs begun by earlier versions are still recognised.
    """
    from ..models.adapters import ModelFunction

    module = cloudpickle()

    class StablePickler(module.Pickler):
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, ModelFunction):
                reduce = obj.__reduce_ex__(module.DEFAULT_PROTOCOL)
                if isinstance(reduce, tuple) and len(reduce) >= 3 and isinstance(reduce[2], dict):
                    state = {k: (0 if k in _USAGE_COUNTERS else v) for k, v in reduce[2].items()}
                    return (*reduce[:2], state, *reduce[3:])
            tree = _neighbors_tree_reduce(obj)
            if tree is not None:
                return tree
            tensor = _tensor_reduce(obj)
            if tensor is not None:
                return tensor
            return super().reducer_override(obj)

    return StablePickler


def _content_tensor(kind: str, dtype: str, shape: tuple, data: bytes) -> None:
    """Stands for a torch tensor in a fingerprint (never called: fingerprints are hashed, not loaded)."""
    raise RuntimeError("a model fingerprint is not meant to be loaded")


def _tensor_reduce(obj: Any):
    """A torch tensor (or parameter) by its content, kind, dtype and shape: torch pickles a storage with its
    memory address, so the same model loaded in two processes gave two fingerprints. None for other objects."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(obj, torch.Tensor):
        return None
    try:
        flat = obj.detach().cpu().contiguous().reshape(-1)
        data = flat.view(torch.uint8).numpy().tobytes()
    except Exception:  # noqa: BLE001 - an exotic tensor (sparse, quantised): pickled as torch does
        return None
    return _content_tensor, (type(obj).__name__, str(obj.dtype), tuple(obj.shape), data)


def stable_dumps(obj: Any) -> bytes:
    """``obj`` pickled as ``cloudpickle.dumps`` does, with usage counters zeroed (:func:`model_fingerprint`)."""
    module = cloudpickle()
    with io.BytesIO() as file:
        _stable_pickler()(file, protocol=module.DEFAULT_PROTOCOL).dump(obj)
        return file.getvalue()


def model_fingerprint(explainer: Any, model_tag: str | None) -> str:
    """``"tag:<model_tag>"``, or the SHA-256 of the pickled model function with the state that changes when the
    model is only used zeroed, so the same call repeated (or :func:`resume_run`) after predictions recognises it:

    * the usage counters ``n_calls``/``n_rows`` of any :class:`~interplay.models.adapters.ModelFunction` in it
      (a torch module's wrapper is its own function, so its counters were pickled);
    * a scikit-learn KDTree/BallTree's query statistics (nearest-neighbour models; :func:`_neighbors_tree_reduce`).

    The fitted arrays, parameters and everything else still count, so a model fitted on other data differs.
    State a model changes on use in other ways (e.g. a callable that counts its calls in a global) still changes
    the fingerprint: name such a model with ``model_tag=``.
    """
    if model_tag is not None:
        if not isinstance(model_tag, str) or not model_tag:
            raise TypeError(f"model_tag: expected a non-empty string, got {model_tag!r}")
        return f"tag:{model_tag}"
    model = explainer.model
    return "sha256:" + _sha(stable_dumps((model.fn, model.kind, model.classes, model.columns)))


def data_fingerprint(rows: np.ndarray, labels: list | None) -> str:
    """SHA-256 of one chunk's rows (float64 bytes) and labels (float64 bytes if numeric, else their text)."""
    if labels is None:
        label_bytes = b"none"
    else:
        array = np.asarray(labels)
        label_bytes = (_array_bytes(array) if array.dtype.kind in "biuf"
                       else repr([str(v) for v in labels]).encode())
    return _sha(_array_bytes(rows), label_bytes)


def target_value(target: Any) -> Any:
    """The Explainer's ``target`` as recorded in the manifest: the value itself when JSON keeps it (a class label
    or output index, ``"predicted"``; numpy scalars as Python values), else its text."""
    if isinstance(target, np.generic):
        target = target.item()
    return target if target is None or isinstance(target, (str, bool, int, float)) else repr(target)


def same_target(recorded: Any, target: Any) -> bool:
    """Whether a manifest's recorded ``target`` is ``target``: the value (this version), or its ``repr`` (runs
    begun by earlier versions, which recorded ``repr(explainer.target)``, so that they can still be resumed)."""
    return recorded == target_value(target) or (isinstance(recorded, str) and recorded == repr(target))


def run_parameters(explainer: Any, *, kind: str, method: str, budget: int | None, entropy: int,
                   options: dict, feature_names: list[str], chunk_size: int, store_data: bool, labels: str,
                   model_tag: str | None) -> dict:
    """Everything that determines the numbers of a run (JSON-able). Two runs may share a folder iff equal.
    ``null_players`` is recorded where rows are explained with their null players as exact zeros (the rule of
    :mod:`interplay.fixed_players`): runs begun by versions before that rule (no such key)
    explained them within the whole game, and are not resumed with rows of the new rule."""
    from ..fixed_players import WHOLE_GAME_METHODS

    reduced = (explainer.removal != "conditional" and method not in WHOLE_GAME_METHODS
               and options.get("univariate") not in WHOLE_GAME_METHODS)
    return {
        **({"null_players": NULL_PLAYER_RULE} if reduced else {}),
        # a regressor's raw score (output="margin"): as every result of the explainer says (a new key: only there)
        # (not the model kind an output="loss" explainer records: loss runs begun before it stay resumable)
        **{k: v for k, v in explainer._reference_info().items() if k == "model_kind" and explainer.output == "margin"},
        "kind": kind,
        "method": method,
        "budget": budget,
        "seed_entropy": str(entropy),
        "options": json.dumps(options, sort_keys=True, default=repr),
        "options_plain_json": _plain_json(options),
        "removal": explainer.removal,
        "output": explainer.output,
        "target": target_value(explainer.target),
        "n_neighbors": explainer.n_neighbors,
        "background": "sha256:" + _sha(_array_bytes(explainer.background), _array_bytes(explainer.reference)),
        "model": model_fingerprint(explainer, model_tag),
        "feature_names": list(feature_names),
        "chunk_size": chunk_size,
        "store_data": store_data,
        "labels": labels,
    }


NULL_PLAYER_RULE = "exact zeros, the rest a smaller game"  # run_parameters' null_players


def _difference(key: str, recorded: Any, current: Any) -> str:
    """One line of a refusal, in words for the parameters recorded as fingerprints (no SHA-256 shown)."""
    if key == "null_players" and recorded is None:
        return ("null_players: the run was begun by an earlier interplay, which explained null players (features "
                "equal to every reference row) within the whole game; this version gives them exact zeros and "
                "explains the other features as a smaller game, so its rows would differ from the run's")
    hashed = {
        "background": "another background (or baseline reference) than this call's explainer",
        "data": "other rows in X than this call (their values or labels differ)",
        "model": "another model than this call's explainer (the pickled model differs; if it is the same model, "
                 "e.g. one whose pickle changes when it is used, name it with the same model_tag= in both ip.run "
                 "calls: a run begun without model_tag= must then start again in another out= folder)",
    }
    tags = [v for v in (recorded, current) if isinstance(v, str) and v.startswith("tag:")]
    if key == "model" and len(tags) == 2:
        return f"model: run has model_tag {recorded[4:]!r}, this call has {current[4:]!r}"
    if key in hashed and recorded is not None and current is not None:
        return f"{key}: run has {hashed[key]}"
    if key == "seed_entropy":
        return (f"seed_entropy: run has seed entropy {recorded}, this call's random_state gives {current} "
                "(random_state=None reuses the run's seed)")
    return f"{key}: run has {recorded!r}, this call has {current!r}"


def refuse_mixing(recorded: dict, current: dict, where: str) -> None:
    """Raise a ValueError naming every parameter in which ``current`` differs from the ``recorded`` run."""
    keys = sorted(set(recorded) | set(current))
    if recorded.get("chunk_size") != current.get("chunk_size"):
        # the data fingerprint is taken chunk by chunk: with another chunk_size it cannot be compared, so it
        # says nothing about the data (only chunk_size is reported)
        keys = [k for k in keys if k != "data"]
    diffs = [_difference(k, recorded.get(k), current.get(k)) for k in keys if recorded.get(k) != current.get(k)]
    if diffs:
        raise ValueError(
            f"out: {where} holds a run with different parameters; refusing to mix results of different runs.\n  "
            + "\n  ".join(diffs)
            + "\nUse another out= folder, or the recorded parameters to resume (random_state=None reuses the "
              "recorded seed)."
        )
