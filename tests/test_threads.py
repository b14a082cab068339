"""One BLAS thread for interplay's own work, the caller's threads for the model (interplay._threads)."""

import numpy as np
import pytest

import interplay as ip
from interplay import _threads

threadpoolctl = pytest.importorskip("threadpoolctl")


def blas_threads() -> list[int]:
    return [library.get_num_threads() for library in _threads._blas_libraries()]


@pytest.fixture
def two_threads():
    if not _threads._blas_libraries():
        pytest.skip("no BLAS library found by threadpoolctl")
    with threadpoolctl.threadpool_limits(2, user_api="blas"):
        if set(blas_threads()) != {2}:
            pytest.skip("BLAS does not take two threads here")
        yield


def test_own_work_runs_on_one_thread_and_model_calls_on_the_callers(two_threads):
    with _threads.own_work():
        assert set(blas_threads()) == {1}
        with _threads.own_work():  # nested: no change
            assert set(blas_threads()) == {1}
        with _threads.model_call():
            assert set(blas_threads()) == {2}
            with _threads.model_call():  # a value function calling a model
                assert set(blas_threads()) == {2}
            assert set(blas_threads()) == {2}
        assert set(blas_threads()) == {1}
    assert set(blas_threads()) == {2}


def test_model_call_outside_own_work_and_own_work_off_change_nothing(two_threads):
    with _threads.model_call():
        assert set(blas_threads()) == {2}
    with _threads.own_work(limit=False):
        assert set(blas_threads()) == {2}
        with _threads.model_call():
            assert set(blas_threads()) == {2}


def test_counts_restored_after_an_error(two_threads):
    with pytest.raises(RuntimeError):
        with _threads.own_work():
            with _threads.model_call():
                raise RuntimeError("model failed")
    assert set(blas_threads()) == {2}
    assert _threads._STATE.saved is None


def test_a_caller_on_one_thread_is_left_alone():
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        with _threads.own_work():
            assert _threads._STATE.saved is None  # nothing saved: model calls keep the caller's one thread
            with _threads.model_call():
                assert set(blas_threads()) == {1}


def _recording_game(n: int, seen: list):
    rng = np.random.default_rng(0)
    w = rng.normal(size=n)

    def value_fn(S):
        seen.append(set(blas_threads()))
        return S.astype(float) @ w + 0.3 * S[:, 0] * S[:, 1]

    return ip.Game(value_fn, n)


@pytest.mark.parametrize("method", ["kernel", "auto"])
def test_estimators_give_the_model_the_callers_threads(two_threads, method):
    seen: list = []
    own: list = []
    game = _recording_game(12, seen)
    original = _threads._set

    def spy(libraries, counts):  # what interplay sets around the model calls
        own.append(tuple(counts))
        original(libraries, counts)

    _threads._set = spy
    try:
        result = ip.shapley(game, method=method, budget=200, random_state=0)
    finally:
        _threads._set = original
    assert seen and all(s == {2} for s in seen)
    assert own[0] == (1,) * len(own[0])  # the estimator's own work began on one thread
    assert own[-1] == (2,) * len(own[-1])  # and the caller's count is back after
    assert set(blas_threads()) == {2}
    np.testing.assert_allclose(result.values.sum(), game(np.ones((1, 12), bool))[0] - game(np.zeros((1, 12), bool))[0])


def test_large_problems_keep_the_callers_threads(two_threads):
    assert _threads.one_thread_suits(30, 600)
    assert not _threads.one_thread_suits(30, _threads.ONE_THREAD_BUDGET + 1)
    assert not _threads.one_thread_suits(1000, 20_000)
    assert not _threads.one_thread_suits(1100, 9_000)  # the Gram matrix: 9,000 x 1,100^2 > 1e10
    own: list = []
    original = _threads._set
    _threads._set = lambda libraries, counts: own.append(counts) or original(libraries, counts)
    try:
        ip.shapley(_recording_game(12, []), method="kernel", budget=_threads.ONE_THREAD_BUDGET + 2, random_state=0)
    finally:
        _threads._set = original
    assert own == []  # never limited


def test_batch_runs_keep_the_model_on_one_thread_too(two_threads):
    from interplay.runs._compute import one_blas_thread

    seen: list = []
    with one_blas_thread():
        assert set(blas_threads()) == {1}
        ip.shapley(_recording_game(10, seen), method="kernel", budget=100, random_state=0)
    assert seen and all(s == {1} for s in seen)  # the run's numbers must not depend on the caller's threads
    assert set(blas_threads()) == {2}
