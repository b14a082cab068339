"""Post-hoc accuracy after masking features (Bivariate Shapley paper, Sec. 5 (a)-(c): Fig. 2, Table 2, Fig. 3).

Post-hoc accuracy is the fraction of explained rows whose prediction is unchanged once some features are masked
(removed). Masking goes through each row's game: a masked row is the coalition of the features left present,
and the game's value says whether the prediction survives. Two kinds of game work:

- the probability of the class predicted on the full row (``Explainer(..., output="probability",
  target="predicted")``; without ``target="predicted"`` a binary classifier's games explain its positive class,
  whatever each row's prediction, and a row predicted negative counts as not kept even with nothing masked):
  for a binary classifier the prediction is kept iff ``v(S) >= 1/2`` (the default ``threshold``); use
  ``threshold=0`` for a log-odds game;
- :func:`prediction_game`: ``v(S) = 1`` iff the class with the highest (removal-averaged) probability is still
  the class predicted on the full row, for any number of classes (``threshold=1/2`` again).

Each row's coalitions go to its game in one call. Feature sets (groups, sinks, sources) are plain lists of
feature indices or names, one list per row, so any graph analysis can supply them (e.g.
``RedundancyGraph.groups()``, ``.sinks()``, ``.sources()`` of :mod:`interplay.graph`).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._validation import check_int, check_random_state
from ..games import Game
from ._inputs import as_games, as_index_lists, descending_order, per_row, per_row_scores


@dataclass(frozen=True)
class PosthocCurve:
    """Post-hoc accuracy at several masking levels: ``accuracy[l]`` with ``fraction_masked[l]`` of the features
    masked on average over rows at level ``l``."""

    fraction_masked: np.ndarray
    accuracy: np.ndarray


def posthoc_accuracy(games: Any, present: Any, *, threshold: float = 0.5) -> np.ndarray:
    """Post-hoc accuracy for explicit masks: ``mean_r 1[v_r(S_{r,l}) >= threshold]`` for every level ``l``.

    ``present``: boolean array ``(n_rows, n_levels, n)`` (or ``(n_levels, n)`` for one game), ``True`` = the
    feature is kept. Returns ``(n_levels,)`` accuracies. Cost: ``n_levels`` evaluations per row, one call each.
    """
    games = as_games(games)
    if isinstance(present, (list, tuple)):  # one (n_levels, n_r) mask per row: rows may differ in size
        masks = [np.asarray(m, dtype=bool) for m in present]
    else:
        masks = np.asarray(present, dtype=bool)
        if masks.ndim == 2 and len(games) == 1:
            masks = masks[None]
        if masks.ndim != 3:
            raise ValueError(f"present: expected a boolean array of shape ({len(games)}, n_levels, n), "
                             f"got {masks.shape}")
        masks = list(masks)
    if len(masks) != len(games):
        raise ValueError(f"present: expected one mask per game ({len(games)}), got {len(masks)}")
    for r, (game, mask) in enumerate(zip(games, masks)):
        if mask.ndim != 2 or mask.shape[1] != game.n_players or mask.shape[0] != masks[0].shape[0]:
            raise ValueError(f"present: row {r} expected shape ({masks[0].shape[0]}, {game.n_players}), "
                             f"got {mask.shape}")
    kept = np.array([game(mask) >= threshold for game, mask in zip(games, masks)])
    return kept.mean(axis=0)


def _masked_fraction(masks: list[np.ndarray]) -> np.ndarray:
    """Mean over rows of the fraction of each row's features masked, per level."""
    return np.mean([(~m).mean(axis=1) for m in masks], axis=0)


def posthoc_accuracy_by_ranking(games: Any, scores: Any, fractions: Sequence[float] = (0.1, 0.3, 0.5, 0.7, 0.9),
                                *, mask: str = "lowest", threshold: float = 0.5,
                                absolute: bool = False) -> PosthocCurve:
    """Post-hoc accuracy after masking ``round(f * M)`` features by score, for each fraction ``f``
    (Bivariate Shapley paper Fig. 3: mask the least influential features; ``mask="highest"`` masks the most
    influential instead). ``scores``: one row per game (ties: lower index ranks higher), matched to the games'
    features by name when both carry names. The scores are ranked as given, signed, as the paper ranks its
    scores (Sec. 5 (c): "high-scoring features representing high importance"): with the predicted class's
    Shapley values, a feature that lowers its probability is masked first; ``absolute=True`` ranks ``|scores|``
    instead (masks the features of least effect either way first).
    Cost: ``len(fractions)`` evaluations per row.
    """
    games = as_games(games)
    s = per_row_scores(scores, games)
    n = s.shape[1]
    if mask not in ("lowest", "highest"):
        raise ValueError(f"mask: expected 'lowest' or 'highest', got {mask!r}")
    if not isinstance(absolute, (bool, np.bool_)):
        raise TypeError(f"absolute: expected True or False, got {absolute!r}")
    if absolute:
        s = np.abs(s)
    try:
        f = np.asarray(fractions, dtype=float).ravel()
    except (TypeError, ValueError):
        f = np.array([np.nan])
    if f.size == 0 or not ((f >= 0) & (f <= 1)).all():  # NaN fails both
        raise ValueError(f"fractions: expected a list of values in [0, 1], got {fractions!r}")
    counts = np.rint(f * n).astype(np.int64)
    rank = np.empty_like(s, dtype=np.int64)
    np.put_along_axis(rank, descending_order(s), np.arange(n)[None, :], axis=1)  # 0 = highest score
    if mask == "lowest":
        present = rank[:, None, :] < (n - counts)[None, :, None]
    else:
        present = rank[:, None, :] >= counts[None, :, None]
    return PosthocCurve(counts / n, posthoc_accuracy(games, present, threshold=threshold))


def posthoc_accuracy_groups(games: Any, groups: Any, *, n_levels: int = 5, threshold: float = 0.5,
                            random_state: Any = None) -> PosthocCurve:
    """Post-hoc accuracy when masking random members of mutually redundant groups (Bivariate Shapley Fig. 2).

    ``groups``: per row, a list of feature-index lists (e.g. the strongly connected components of the
    redundancy graph H with two or more nodes). At level ``l = 0..n_levels-1`` each group of size ``g`` has
    ``round(l / (n_levels - 1) * (g - 1))`` of its members masked, chosen by one random order per group (so the
    masked sets grow with ``l``); the last level keeps a single member per group (the paper's quotient graph).
    Cost: ``n_levels`` evaluations per row.
    """
    games = as_games(games)
    n_levels = check_int(n_levels, "n_levels", minimum=2)
    rng = check_random_state(random_state)
    rows = per_row(groups, len(games), "groups")
    level = np.arange(n_levels) / (n_levels - 1)
    present = [np.ones((n_levels, game.n_players), dtype=bool) for game in games]
    for r, row_groups in enumerate(rows):  # loop over rows and groups, not coalitions
        seen: set[int] = set()
        for g in as_index_lists(row_groups, games[r].n_players, "groups", games[r].feature_names):
            if seen.intersection(g.tolist()):
                raise ValueError(f"groups: row {r} has overlapping groups; expected disjoint feature sets")
            seen.update(g.tolist())
            if len(g) < 2:
                continue
            members = rng.permutation(g)
            n_masked = np.rint(level * (len(g) - 1)).astype(np.int64)
            position = np.arange(len(g))
            present[r][:, members] = position[None, :] >= n_masked[:, None]
    return PosthocCurve(_masked_fraction(present), posthoc_accuracy(games, present, threshold=threshold))


def posthoc_accuracy_sinks_sources(games: Any, sinks: Any, sources: Any, *, threshold: float = 0.5) -> dict:
    """Post-hoc accuracy after masking the H-sinks, and after masking the H-sources (Bivariate Shapley Table 2).

    ``sinks``/``sources``: per row, a list of feature indices (the nodes of the sink/source components of the
    condensed redundancy graph, expanded). Returns ``{"sink_masked", "source_masked"}`` accuracies and
    ``{"sink_fraction", "source_fraction"}``, the mean fraction of features masked in each case. Directionally
    redundant features are sinks: masking them should barely change the predictions, masking the sources should.
    Cost: 2 evaluations per row.
    """
    games = as_games(games)
    sink_rows = per_row(sinks, len(games), "sinks")
    source_rows = per_row(sources, len(games), "sources")
    present = [np.ones((2, game.n_players), dtype=bool) for game in games]
    for r, (a, b) in enumerate(zip(sink_rows, source_rows)):
        n = games[r].n_players
        present[r][0, as_index_lists([a], n, "sinks", games[r].feature_names)[0]] = False
        present[r][1, as_index_lists([b], n, "sources", games[r].feature_names)[0]] = False
    acc = posthoc_accuracy(games, present, threshold=threshold)
    frac = _masked_fraction(present)
    return {"sink_masked": float(acc[0]), "source_masked": float(acc[1]),
            "sink_fraction": float(frac[0]), "source_fraction": float(frac[1])}


def prediction_game(explainer: Any, x: Any) -> Game:
    """Game of row ``x`` whose value is 1 when the masked row keeps the predicted class, else 0.

    ``v(S) = 1[argmax_c F_c(x, S) = argmax_c f_c(x)]`` where ``F_c(x, S)`` is the explainer's removal (baseline,
    marginal or conditional) applied to the probability of class ``c``. Needs a classifier. The games are in
    probabilities whatever the explainer's ``output=`` (log-odds, margin, loss...): only its model, data, removal
    and feature groups are used, and ``explainer`` itself is left unchanged. Cost per coalition: one coalition of
    the explainer's game (a binary classifier: ``F_pred >= 1/2``; ``K`` classes: all ``K`` probabilities from
    the same model calls).
    """
    if getattr(getattr(explainer, "model", None), "kind", None) != "classifier":
        raise TypeError("explainer: prediction_game needs an interplay.Explainer of a classifier "
                        "(a model with predict_proba)")
    row = explainer._row(x)[None, :]  # as the Explainer reads rows: raw categorical values kept
    probabilities = explainer.model(row)[0]
    predicted = int(np.argmax(probabilities))
    labels = explainer.model.classes or tuple(range(len(probabilities)))
    classes = [predicted] if len(probabilities) == 2 else list(range(len(probabilities)))
    e = _probability_explainer(explainer, [labels[c] for c in classes])
    per_class = list(e.games(row).values())  # one game per class, in the order of `classes`, sharing model calls
    base = per_class[0]

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        if len(per_class) == 1:
            return (per_class[0](coalitions) >= 0.5).astype(float)
        probs = np.stack([g(coalitions) for g in per_class], axis=1)
        return (np.argmax(probs, axis=1) == predicted).astype(float)

    value_fn.__name__ = "prediction kept"
    return Game(value_fn, base.n_players, base.feature_names)


def _probability_explainer(explainer: Any, targets: list) -> Any:
    """A copy of ``explainer`` whose games are the probabilities of ``targets`` (one target: that class; several:
    one game each). The unit is resolved again (``Explainer._set_unit``): the copy must not keep the original's
    cached unit and scored model (a booster's raw margin for log-odds/margin, the loss)."""
    e = copy.copy(explainer)
    e.output = "probability"
    e.target = targets[0] if len(targets) == 1 else list(targets)
    for cached in ("_unit", "_scores"):
        e.__dict__.pop(cached, None)
    e._set_unit()
    if e._unit != "probability" or e._scores is not e.model:  # the contract this relies on
        raise RuntimeError("prediction_game: could not build a probability explainer from the given explainer")
    return e
