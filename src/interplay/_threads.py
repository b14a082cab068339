"""BLAS threads: one for interplay's own linear algebra, the user's setting for the model.

The estimators' own work is many small dense operations (the GP estimators' eigendecompositions of at most 250
pairs, Cholesky factors, products with a few hundred rows). A multi-threaded BLAS (OpenBLAS's default: one thread
per core) spends more time handing those out than computing them. On the benchmark's 2-core machine
(``benchmarks/results/blas_threads.md``), ``Explainer.shapley`` of a 30-feature network (``auto``, budget 600) took
0.09 s with one BLAS thread for interplay's work against 0.46 s with two, and with both cores busy 0.18 s against
2.6 s. So while an estimator runs on a problem up to :data:`ONE_THREAD_BUDGET` coalitions (and
:data:`ONE_THREAD_GRAM`), BLAS is limited to one thread, and every model call gets the caller's thread count back
(a large model's matrix products do gain from threads); larger problems keep the caller's threads throughout. A
caller that already set one thread (a batch run, ``OMP_NUM_THREADS=1``) sees no change. Needs threadpoolctl
(installed with scikit-learn); without it nothing is limited. The limit is process-wide, as BLAS's setting is: two
Python threads explaining at once share it.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

_LIBRARIES: list = []  # [the BLAS libraries' threadpoolctl controllers] or [None]: built once per process
_STATE = threading.local()  # saved: the caller's thread counts while the library's own work runs


def _blas_libraries() -> list:
    if not _LIBRARIES:
        try:
            import scipy.linalg  # noqa: F401  (scipy's own BLAS is loaded with it: find it too)
            from threadpoolctl import ThreadpoolController
        except ImportError:  # pragma: no cover - scikit-learn and the test extras install it
            _LIBRARIES.append(None)
        else:
            _LIBRARIES.append(ThreadpoolController().select(user_api="blas").lib_controllers)
    return _LIBRARIES[0] or []


def _set(libraries: list, counts: list[int]) -> None:
    for library, count in zip(libraries, counts):
        library.set_num_threads(count)


# Up to these sizes one BLAS thread was faster on the benchmark's machine (idle, 2 cores): 2.6-5x for the GP
# estimators at 30 players and budget 600, 1.1-1.7x at 100 players and 4,000-8,000, 1.0-1.9x for KernelSHAP and
# Leverage SHAP at 100-1,000 players and 4,000-8,000. Beyond them, the large factorisations gain from threads: with
# one, OddGP at 100 players and budget 16,000 took 1.6x, at 30 players and 12,000 1.3x, and KernelSHAP at 1,000
# players and 20,000 1.2x as long (benchmarks/results/blas_threads.md).
ONE_THREAD_BUDGET = 10_000  # coalitions
ONE_THREAD_GRAM = 10**10  # coalitions x players^2: the regressions' Gram matrix


def one_thread_suits(n_players: int, budget: int) -> bool:
    """Whether one BLAS thread suits an estimator's own work on ``n_players`` at ``budget`` coalitions."""
    return budget <= ONE_THREAD_BUDGET and budget * n_players**2 <= ONE_THREAD_GRAM


@contextmanager
def one_thread() -> Iterator[list[int]]:
    """BLAS on one thread for the enclosed block, each library's count restored after (nothing is changed when
    every count is 1 already); yields the caller's counts. Batch runs hold it around a whole chunk, model calls
    included (their numbers then do not depend on the backend or ``n_jobs``)."""
    libraries = _blas_libraries()
    saved = [library.get_num_threads() for library in libraries]
    if all(count == 1 for count in saved):
        yield saved
        return
    _set(libraries, [1] * len(libraries))
    try:
        yield saved
    finally:
        _set(libraries, saved)


@contextmanager
def own_work(limit: bool = True) -> Iterator[None]:
    """BLAS limited to one thread for the enclosed work when ``limit`` (nested uses are free), the caller's counts
    restored after; model calls inside it get them back for their duration (:func:`model_call`)."""
    if not limit or getattr(_STATE, "saved", None) is not None:
        yield
        return
    with one_thread() as saved:
        if all(count == 1 for count in saved):  # nothing to give back to model calls
            yield
            return
        _STATE.saved = saved
        try:
            yield
        finally:
            _STATE.saved = None


@contextmanager
def model_call() -> Iterator[None]:
    """Inside :func:`own_work`: the caller's BLAS thread counts for the enclosed model call, one thread again
    after. Elsewhere (or nested in another model call) it changes nothing."""
    saved = getattr(_STATE, "saved", None)
    if saved is None:
        yield
        return
    libraries = _blas_libraries()
    _STATE.saved = None  # a nested model call (a value function calling a model) leaves the counts alone
    _set(libraries, saved)
    try:
        yield
    finally:
        _set(libraries, [1] * len(libraries))
        _STATE.saved = saved
