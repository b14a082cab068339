"""Picklable test models for tests/test_runs.py, in a light module (numpy only) that worker processes import fast."""

import os
import time

import numpy as np

from interplay.estimators import _registry
from interplay.results import Attribution

W = np.array([1.0, -2.0, 0.5, 3.0, -1.0])
NAMES = ["age", "income", "debt", "score", "tenure"]


def nonlinear(X):
    """Cheap model with interactions, so exact values are not trivially additive."""
    return X @ W + X[:, 0] * X[:, 1] - np.tanh(X[:, 2] * X[:, 3])


def slow_nonlinear(X):
    time.sleep(float(os.environ.get("INTERPLAY_TEST_SLEEP", "0")))
    return nonlinear(X)


def other_model(X):
    return X @ W


class DieOnce:
    """Kills the process that calls it first (a preempted worker), then behaves like ``nonlinear``."""

    def __init__(self, marker):
        self.marker = marker

    def __call__(self, X):
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return nonlinear(X)
        os.close(fd)
        os._exit(1)


def _noisy(game, *, budget, rng, **options):
    """Exact Shapley plus N(0, 1) noise from ``rng``: a randomised method, to test per-row seeding."""
    exact = _registry.get_estimator("shapley", "exact")(game, budget=None, rng=rng)
    noise = rng.normal(size=game.n_players)
    return Attribution(exact.values + noise, exact.baseline, exact.feature_names, exact.n_evaluations,
                       "test-noisy", std_errors=np.abs(noise))


def _register_noisy():
    _registry._REGISTRY["shapley"]["test-noisy"] = _noisy


class NoisyModel:
    """``nonlinear``; unpickling it in a worker registers the test-only method ``test-noisy`` there."""

    def __call__(self, X):
        return nonlinear(X)

    def __reduce__(self):
        return (_make_noisy_model, ())


def _make_noisy_model():
    _register_noisy()
    return NoisyModel()


class AlwaysDies:
    """Kills every process that calls it (a model no worker survives)."""

    def __call__(self, X):
        os._exit(1)


class FailsOnValue:
    """``nonlinear``, raising a ValueError on any model row whose first column is ``value`` (one explained row's
    games: a model that fails on a row of the data) while the file ``marker`` is absent (creating it "fixes" it)."""

    def __init__(self, value, marker):
        self.value, self.marker = float(value), marker

    def __call__(self, X):
        if np.any(X[:, 0] == self.value) and not os.path.exists(self.marker):
            raise ValueError("model failed on a bad row")
        return nonlinear(X)
