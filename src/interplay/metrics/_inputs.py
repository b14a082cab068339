"""Shared input handling of the metrics: attributions/scores as arrays, games as lists, rankings as orders."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..games import Game, as_game
from ..results import Attribution, Explanation


def as_scores(scores: Any, name: str = "scores", *, n: int | None = None) -> np.ndarray:
    """Return per-feature scores as a float array (``(n,)``, or ``(rows, n)`` for many rows).

    Accepts an :class:`~interplay.Attribution`, an :class:`~interplay.Explanation` or anything array-like.
    """
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
    return arr


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
    """Scores as a ``(n_rows, n)`` array matching ``games`` (a 1-D vector is allowed for one game)."""
    n = games[0].n_players
    if any(g.n_players != n for g in games):
        raise ValueError("games: all games must have the same number of players")
    arr = as_scores(scores, name, n=n)
    if arr.ndim == 1:
        arr = arr[None, :]
    if len(arr) != len(games):
        raise ValueError(f"{name}: expected one row of scores per game ({len(games)}), got {len(arr)}")
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
