"""Shared input handling of the metrics: attributions/scores as arrays, games as lists, rankings as orders.

Feature names: an Attribution/Explanation/Game (``feature_names``), a DataFrame (its columns) or a pandas Series
(its index) carries names; a numpy array does not. When both sides of a comparison carry names, they are matched
by name (:func:`align_names`); otherwise by position. Pandas labels that are the integers ``0..n-1`` (its default
labels, in any order, e.g. after ``sort_values()``) are feature positions: the values are put in that order.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..games import Game, as_game
from ..results import Attribution, Explanation


def as_scores(scores: Any, name: str = "scores", *, n: int | None = None) -> np.ndarray:
    """Return per-feature scores as a float array (``(n,)``, or ``(rows, n)`` for many rows).

    Accepts an :class:`~interplay.Attribution`, an :class:`~interplay.Explanation` or anything array-like.
    """
    positions = _integer_labels(scores)
    if isinstance(scores, (Attribution, Explanation)):
        scores = scores.values
    try:
        arr = np.array(scores, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected an Attribution or an array of numbers, got {type(scores).__name__}") from None
    if arr.ndim not in (1, 2) or arr.shape[-1] == 0:
        raise ValueError(f"{name}: expected a (n_features,) or (n_rows, n_features) array, got shape {arr.shape}")
    if n is not None and arr.shape[-1] != n:
        raise ValueError(f"{name}: expected {n} values per row (one per feature), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name}: contains NaN or inf")
    if positions is not None and len(positions) == arr.shape[-1]:  # e.g. pd.Series(phi).sort_values()
        arr = arr[..., np.argsort(positions)]
    return arr


def _pandas_labels(obj: Any) -> list | None:
    """The feature labels of a DataFrame (its columns) or a Series (its index), else None."""
    if hasattr(obj, "columns") and hasattr(obj, "dtypes") and hasattr(obj, "iloc"):  # DataFrame
        return list(obj.columns)
    if hasattr(obj, "index") and hasattr(obj, "dtype") and hasattr(obj, "iloc"):  # Series
        return list(obj.index)
    return None


def _integer_labels(obj: Any) -> list[int] | None:
    """Pandas labels that are the integers ``0..n-1`` in any order (pandas' default labels, e.g. reordered by
    ``sort_values()``): they are feature positions, not names; else None."""
    labels = _pandas_labels(obj)
    if labels is None or not all(isinstance(f, (int, np.integer)) and not isinstance(f, bool) for f in labels):
        return None
    positions = [int(f) for f in labels]
    return positions if sorted(positions) == list(range(len(positions))) else None


def feature_names_of(obj: Any) -> tuple[str, ...] | None:
    """The feature names ``obj`` carries (see the module docstring), else ``None``. Pandas' default labels
    ``0..n-1`` (in any order) are positions, not names."""
    if isinstance(obj, (Attribution, Explanation, Game)):
        names = obj.feature_names
    else:
        names = _pandas_labels(obj)
    if names is None:
        return None
    names = list(names)
    if _integer_labels(obj) is not None:  # positions (as_scores puts the values in position order)
        return None
    return tuple(str(f) for f in names)


def _default_names(names: tuple[str, ...]) -> bool:
    """interplay's placeholder names ``x0 .. x{n-1}`` (given when there were none)."""
    return names == tuple(f"x{i}" for i in range(len(names)))


def align_names(values: np.ndarray, names: tuple[str, ...] | None, reference: tuple[str, ...] | None,
                name: str, reference_name: str) -> np.ndarray:
    """``values`` (features along the last axis, named ``names``) in the feature order of ``reference``.

    Without names on either side, or with the same names in the same order, ``values`` is returned as is. The
    same names in another order are reordered. Different names raise a ValueError naming both parameters and
    the names that differ, unless one side has only interplay's placeholder names ``x0 .. x{n-1}`` (results of
    an unnamed model or game), which are compared by position.
    """
    if names is None or reference is None or tuple(names) == tuple(reference):
        return values
    names, reference = tuple(names), tuple(reference)
    unique = len(set(names)) == len(names) and len(set(reference)) == len(reference)
    if unique and len(names) == len(reference) and set(names) == set(reference):
        position = {f: i for i, f in enumerate(names)}
        return values[..., [position[f] for f in reference]]
    if _default_names(names) or _default_names(reference):
        return values
    if not unique:
        raise ValueError(f"{name}, {reference_name}: duplicate feature names; cannot match {name} {list(names)} "
                         f"to {reference_name} {list(reference)} by name")
    only = [f for f in names if f not in set(reference)]
    only_reference = [f for f in reference if f not in set(names)]
    raise ValueError(f"{name}: its feature names differ from those of {reference_name}: only in {name}: {only}, "
                     f"only in {reference_name}: {only_reference} (features are matched by name when both have "
                     "names; pass plain arrays to compare by position)")


def row_scores(scores: Any, game: Game, name: str = "scores") -> np.ndarray:
    """One row of ``scores`` for ``game`` as a ``(n,)`` array in the game's feature order: a 1-D vector, or a
    one-row Explanation / ``(1, n)`` array (that row); matched to the game's feature names when both have names."""
    n = game.n_players
    arr = as_scores(scores, name, n=n)
    if arr.ndim == 2:
        if arr.shape[0] != 1:
            raise ValueError(f"{name}: expected one row of {n} values (a 1-D vector, a one-row Explanation or a "
                             f"(1, {n}) array), got shape {arr.shape}; pass one row, e.g. explanation[r]")
        arr = arr[0]
    return align_names(arr, feature_names_of(scores), feature_names_of(game), name, "game")


def descending_order(scores: np.ndarray) -> np.ndarray:
    """Feature indices from the highest to the lowest score (ties: lower index first), along the last axis."""
    return np.argsort(-scores, axis=-1, kind="stable")


def as_games(games: Any) -> list[Game]:
    """A single :class:`~interplay.Game` or a sequence of them -> a list of games (one per explained row)."""
    if isinstance(games, Game):
        return [games]
    if isinstance(games, (list, tuple)) and games:
        return [as_game(g) for g in games]
    raise TypeError(f"games: expected an interplay.Game or a non-empty list of games (one per row), "
                    f"got {type(games).__name__}")


def per_row_scores(scores: Any, games: list[Game], name: str = "scores") -> np.ndarray:
    """Scores as a ``(n_rows, n)`` array matching ``games`` (a 1-D vector is allowed for one game), each row in
    its game's feature order when both carry names."""
    n = games[0].n_players
    if any(g.n_players != n for g in games):
        raise ValueError("games: all games must have the same number of players")
    arr = as_scores(scores, name, n=n)
    if arr.ndim == 1:
        arr = arr[None, :]
    if len(arr) != len(games):
        raise ValueError(f"{name}: expected one row of scores per game ({len(games)}), got {len(arr)}")
    names = feature_names_of(scores)
    if names is not None:  # each row in its game's feature order
        label = "games" if len(games) > 1 else "game"
        arr = np.stack([align_names(a, names, g.feature_names, name, label) for a, g in zip(arr, games)])
    return arr


def as_index_lists(sets: Any, n: int, name: str, feature_names: Sequence[str] | None = None) -> list[np.ndarray]:
    """Lists of features (indices, or names found in ``feature_names``) -> sorted int arrays in ``0..n-1``."""
    if isinstance(sets, np.ndarray) and sets.ndim == 1:
        sets = [sets]
    names = list(feature_names) if feature_names is not None else []
    out = []
    for s in sets:
        if isinstance(s, (str, bytes)) or not isinstance(s, (Sequence, np.ndarray, set, frozenset)):
            raise TypeError(f"{name}: expected lists of feature indices or names, got {s!r}")
        idx = []
        for f in s:
            if isinstance(f, str):
                if f not in names:
                    raise ValueError(f"{name}: unknown feature {f!r}; known: {names}")
                idx.append(names.index(f))
            elif isinstance(f, (int, np.integer)) and not isinstance(f, bool):
                idx.append(int(f))
            else:
                raise TypeError(f"{name}: expected feature indices or names, got {f!r}")
        arr = np.asarray(idx, dtype=np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= n):
            raise ValueError(f"{name}: feature indices must lie in 0..{n - 1}, got {arr.tolist()}")
        out.append(np.unique(arr))
    return out


def per_row(lists: Any, n_rows: int, name: str) -> list:
    """One entry per row: a list given for a single row is broadcast only when there is one row."""
    if not isinstance(lists, Sequence) or isinstance(lists, str):
        raise TypeError(f"{name}: expected a list (one entry per row), got {type(lists).__name__}")
    if len(lists) != n_rows:
        raise ValueError(f"{name}: expected one entry per row ({n_rows}), got {len(lists)}")
    return list(lists)
