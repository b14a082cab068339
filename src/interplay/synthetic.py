"""Games with known answers, for tests, benchmarks and learning the indices.

A sum of unanimity games ``v(S) = sum_k c_k [T_k subset of S]`` has Moebius dividends ``m(T_k) = c_k`` and zero
elsewhere, so every index of this package has a closed form:
``index(S) = sum_{k: T_k superset S} c_k f(|T_k|, |S|)`` (``f`` as in :mod:`interplay.estimators.exact`).
That makes it the ground truth for estimators on games far too large to enumerate.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Sequence

import numpy as np

from ._bits import popcounts
from ._validation import check_int, check_random_state
from .games import Game


@dataclass(frozen=True)
class UnanimitySum:
    """``v(S) = sum_k coefficients[k] * [sets[k] subset of S]`` over ``n_players`` players."""

    n_players: int
    sets: tuple[tuple[int, ...], ...]
    coefficients: tuple[float, ...]

    @classmethod
    def random(cls, n_players: int, n_terms: int = 10, max_size: int = 3, random_state=None) -> "UnanimitySum":
        """Random unanimity sum: ``n_terms`` sets of 1..``max_size`` players, coefficients N(0, 1)."""
        rng = check_random_state(random_state)
        n_players = check_int(n_players, "n_players", minimum=1)
        sets = []
        for _ in range(check_int(n_terms, "n_terms", minimum=1)):
            size = int(rng.integers(1, min(max_size, n_players) + 1))
            sets.append(tuple(sorted(rng.choice(n_players, size=size, replace=False).tolist())))
        return cls(n_players, tuple(sets), tuple(rng.normal(size=len(sets)).tolist()))

    def value(self, coalitions: np.ndarray) -> np.ndarray:
        coalitions = np.asarray(coalitions, dtype=bool)
        members = np.zeros((len(self.sets), self.n_players))
        for k, s in enumerate(self.sets):
            members[k, list(s)] = 1.0
        hits = coalitions.astype(float) @ members.T
        covered = hits == members.sum(axis=1)
        return covered.astype(float) @ np.asarray(self.coefficients)

    def game(self, **options) -> Game:
        return Game(self.value, self.n_players, **options)

    def _superset_total(self, subset: Sequence[int], weight) -> float:
        s = set(subset)
        return float(sum(c * weight(len(t)) for t, c in zip(self.sets, self.coefficients) if s <= set(t)))

    def shapley(self) -> np.ndarray:
        return np.array([self._superset_total((i,), lambda t: 1.0 / t) for i in range(self.n_players)])

    def banzhaf(self) -> np.ndarray:
        return np.array([self._superset_total((i,), lambda t: 2.0 ** (1 - t)) for i in range(self.n_players)])

    def interaction(self, subset: Sequence[int], index: str = "sii", order: int = 2) -> float:
        """Closed-form value of ``index`` (``sii``, ``bii``, ``stii``, ``moebius``, ``excess``) on ``subset``."""
        s = len(subset)
        if index == "sii":
            return self._superset_total(subset, lambda t: 1.0 / (t - s + 1))
        if index == "bii":
            return self._superset_total(subset, lambda t: 2.0 ** (s - t))
        if index == "moebius" or (index == "stii" and s < order):
            return self._superset_total(subset, lambda t: float(t == s))
        if index == "stii":
            return self._superset_total(subset, lambda t: 1.0 / comb(t, order))
        if index == "excess":
            if s == 1:
                return self._superset_total(subset, lambda t: 1.0 / t)
            return self._superset_total(subset, lambda t: 1.0 / (t - 1) - 2.0 / t)
        raise ValueError(f"index: expected one of ['bii', 'excess', 'moebius', 'sii', 'stii'], got {index!r}")

    def interactions(self, index: str = "sii", order: int = 2) -> dict[tuple[int, ...], float]:
        return {sub: self.interaction(sub, index, order)
                for s in range(1, order + 1) for sub in combinations(range(self.n_players), s)}

    def bivariate(self) -> np.ndarray:
        """Closed-form Bivariate Shapley adjacency: ``adjacency[i, j]`` = importance of ``j`` given ``i``.

        A unanimity game on ``T`` with ``j in T`` gives ``v(S+j) - v(S) = 1`` iff ``T - {j}`` is inside ``S``;
        the Shapley weight of those coalitions that also contain ``i`` is the probability that, in a uniformly
        random order, ``j`` comes after every player of ``T - {j} + {i}``: ``1/|T|`` when ``i in T`` and
        ``1/(|T|+1)`` otherwise.
        """
        n = self.n_players
        adjacency = np.zeros((n, n))
        for t, c in zip(self.sets, self.coefficients):
            size = len(t)
            for j in t:
                inside = np.full(n, c / (size + 1))
                inside[list(t)] = c / size
                adjacency[:, j] += inside
        np.fill_diagonal(adjacency, 0.0)
        return adjacency


def table_game(values: np.ndarray, feature_names=None) -> Game:
    """A game given by the table of all ``2**n`` values (index = bits of the coalition)."""
    values = np.asarray(values, dtype=float)
    n = int(np.log2(len(values)))
    if len(values) != 2**n:
        raise ValueError(f"values: expected 2**n entries, got {len(values)}")
    powers = np.int64(1) << np.arange(n, dtype=np.int64)

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        return values[coalitions.astype(np.int64) @ powers]

    return Game(value_fn, n, feature_names)


def random_game(n_players: int, random_state=None) -> Game:
    """A game whose ``2**n`` values are independent N(0, 1) draws (no structure at all)."""
    rng = check_random_state(random_state)
    return table_game(rng.normal(size=2**n_players))


def majority_game(n_players: int, quota: int) -> Game:
    """``v(S) = 1`` iff ``|S| >= quota`` (BII paper's majority game)."""
    return Game(lambda s: (s.sum(axis=1) >= quota).astype(float), n_players)


def monotone_random_game(n_players: int, random_state=None) -> Game:
    """A monotone game: a unanimity sum with non-negative coefficients."""
    rng = check_random_state(random_state)
    base = UnanimitySum.random(n_players, n_terms=2 * n_players, max_size=3, random_state=rng)
    return UnanimitySum(n_players, base.sets, tuple(abs(c) for c in base.coefficients)).game()


__all__ = ["UnanimitySum", "majority_game", "monotone_random_game", "random_game", "table_game", "popcounts"]


SENTENCE = ("The", "movie", "is", "the", "worst", "surprisingly", "awful")


def sentence_game(*, strong: float = 1.0, cancel: float = 0.6) -> Game:
    """The Bivariate Shapley paper's illustrative example as a game (Section 4, Fig. 1 and Fig. 5).

    Players are the words of "The movie is the worst; surprisingly awful" (``SENTENCE``, without the ";"); the
    value is a negative-sentiment score of the words present:

        v(S) = strong * [worst in S or awful in S] - cancel * [surprisingly in S, worst and awful not in S]

    - "worst" and "awful" are interchangeable: either one gives the full score, so each is unimportant given
      the other (``W(worst, awful) = W(awful, worst) = 0``): a mutual redundancy group.
    - "surprisingly" alone pushes the other way (negative Shapley value), but a strong word cancels its
      influence: it is directionally redundant given "worst" (``W(worst, surprisingly) = 0``) while "worst"
      keeps its importance given "surprisingly" (``W(surprisingly, worst) = (strong + cancel) / 6``).
    - "The", "movie", "is", "the" are fillers (null players): redundant given every word, including each other.

    Closed forms: Shapley values ``strong / 2 + cancel / 6`` for "worst" and "awful", ``-cancel / 3`` for
    "surprisingly", 0 for the fillers. ``H_0`` has the groups {worst, awful} (its only source) and the four
    fillers (its only sink), with "surprisingly" in between.
    """
    strong, cancel = float(strong), float(cancel)
    worst, surprisingly, awful = SENTENCE.index("worst"), SENTENCE.index("surprisingly"), SENTENCE.index("awful")

    def value(coalitions: np.ndarray) -> np.ndarray:
        strong_word = coalitions[:, worst] | coalitions[:, awful]
        return strong * strong_word - cancel * (coalitions[:, surprisingly] & ~strong_word)

    return Game(value, len(SENTENCE), SENTENCE)


__all__ += ["SENTENCE", "sentence_game"]
