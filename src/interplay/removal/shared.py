"""Several outputs of one model explained at once: one set of model calls shared by all of them.

A vector-valued value function ``(k, n) bool -> (k, T)`` (one utility per explained output) is cached by
coalition; :meth:`SharedValues.output` gives the value function of output ``t`` for a
:class:`~interplay.games.Game`. A coalition asked for by any output's game is evaluated once: the games of the
other outputs read it from the cache (their own ``n_evaluations`` still count it, as the budget is per game).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..games import _packed_keys


class SharedValues:
    """Cache of a ``(k, n) -> (k, T)`` value function, keyed by coalition (sorted packed keys, no Python loops)."""

    def __init__(self, value_fn: Callable[[np.ndarray], np.ndarray], n_players: int, n_outputs: int) -> None:
        self._value_fn = value_fn
        self._keys = _packed_keys(np.zeros((0, n_players), dtype=bool))
        self._values = np.zeros((0, n_outputs))
        self.n_evaluations = 0  # distinct coalitions sent to the model-level value function

    def __call__(self, coalitions: np.ndarray) -> np.ndarray:
        coalitions = np.ascontiguousarray(coalitions, dtype=bool)
        keys = _packed_keys(coalitions)
        unique_keys, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        pos = np.searchsorted(self._keys, unique_keys)
        found = pos < len(self._keys)
        found[found] = self._keys[pos[found]] == unique_keys[found]
        values = np.empty((len(unique_keys), self._values.shape[1]))
        values[found] = self._values[pos[found]]
        missing = ~found
        if missing.any():
            new = np.asarray(self._value_fn(coalitions[first[missing]]), dtype=float)
            new = new.reshape(int(missing.sum()), self._values.shape[1])
            values[missing] = new
            self.n_evaluations += int(missing.sum())
            self._keys = np.insert(self._keys, pos[missing], unique_keys[missing])
            self._values = np.insert(self._values, pos[missing], new, axis=0)
        return values[inverse.ravel()]

    def output(self, t: int) -> Callable[[np.ndarray], np.ndarray]:
        """Value function of output ``t`` (reads the shared cache)."""

        def value_fn(coalitions: np.ndarray) -> np.ndarray:
            return self(coalitions)[:, t]

        return value_fn
