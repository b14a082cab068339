"""The one-time numba compilation of the tree kernels is announced (once, on stderr) when the cache is cold, and
nothing is said on warm runs."""

import os
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("sklearn")

import interplay as ip  # noqa: E402
from interplay.trees import _kernels as K  # noqa: E402


@pytest.fixture
def explainer():
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    model = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, X.sum(axis=1))
    return ip.Explainer(model, X[:8]), X[:3]


NOTICE = "compiling the tree kernels"


def test_a_cold_cache_is_announced_once(explainer, capsys, monkeypatch):
    explain, X = explainer
    monkeypatch.setattr(K, "_announced", set(), raising=False)
    monkeypatch.setattr(K, "_cache_cold", lambda kernel: True, raising=False)  # as in a fresh environment
    monkeypatch.delenv("INTERPLAY_PROGRESS", raising=False)
    explain.shapley(X, method="tree", progress=False)
    explain.shapley(X, method="tree", progress=False)
    assert capsys.readouterr().err.count(NOTICE) == 1


def test_warm_runs_and_progress_off_say_nothing(explainer, capsys, monkeypatch):
    explain, X = explainer
    monkeypatch.setattr(K, "_announced", set(), raising=False)
    monkeypatch.setattr(K, "_cache_cold", lambda kernel: False, raising=False)
    explain.shapley(X, method="tree", progress=False)
    assert NOTICE not in capsys.readouterr().err
    monkeypatch.setattr(K, "_cache_cold", lambda kernel: True, raising=False)
    monkeypatch.setenv("INTERPLAY_PROGRESS", "0")
    explain.shapley(X, method="tree", progress=False)
    assert NOTICE not in capsys.readouterr().err


def test_the_cold_cache_is_detected_from_numbas_index_file(explainer, tmp_path):
    explain, X = explainer
    explain.shapley(X, method="tree", progress=False)
    assert not K._cache_cold(K.interventional)  # compiled in this process: nothing to compile
    cached = K.interventional._cache._cache_file
    assert K._cache_cold(SimpleNamespace(signatures=[], _cache=SimpleNamespace(_cache_file=cached))) \
        is (not cached._load_index())  # not compiled here: cold unless numba's index lists a version
    index = tmp_path / "kernel.nbi"
    fresh = SimpleNamespace(signatures=[], _cache=SimpleNamespace(_cache_file=SimpleNamespace(
        _index_path=str(index), _load_index=lambda: {} if not index.exists() else {"sig": "file"})))
    assert K._cache_cold(fresh)  # no index on disk: the first call compiles
    index.write_bytes(b"")
    assert not K._cache_cold(fresh) and os.path.exists(index)
    assert not K._cache_cold(SimpleNamespace(signatures=[]))  # numba's cache not inspectable: say nothing


def test_a_kernel_first_used_later_is_announced_when_it_compiles(explainer, capsys, monkeypatch):
    """The notice was once per process: path-dependent TreeSHAP (or its pairs, or the coded categorical
    kernels) first used after the interventional kernels had been announced compiled silently (1-2 s here,
    more on a slow machine). Each kernel is announced when it is about to compile, once."""
    explain, X = explainer
    monkeypatch.setattr(K, "_announced", set(), raising=False)
    monkeypatch.delenv("INTERPLAY_PROGRESS", raising=False)
    cold = {K.max_depth, K.interventional, K.predict_rows, K.path_dependent}  # as in a fresh environment
    monkeypatch.setattr(K, "_cache_cold", lambda kernel: kernel in cold, raising=False)
    explain.shapley(X, method="tree", progress=False)
    assert capsys.readouterr().err.count(NOTICE) == 1  # the tree check's prediction and the kernels: one notice
    explain.shapley(X, method="tree", tree_path_dependent=True, progress=False)
    assert capsys.readouterr().err.count(NOTICE) == 1  # path_dependent: not compiled yet
    explain.shapley(X, method="tree", tree_path_dependent=True, progress=False)
    explain.shapley(X, method="tree", progress=False)
    assert NOTICE not in capsys.readouterr().err


def test_the_kernels_see_one_type_signature_each():
    """A compiled kernel never compiles again for new input types (float32, integer, Fortran-ordered or
    read-only rows and background): the rows and the ensembles' arrays are cast to fixed dtypes first, so the
    notice, keyed on the kernel, misses no compilation."""
    from sklearn.ensemble import RandomForestRegressor

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    model = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, X.sum(axis=1))
    ip.Explainer(model, X[:8]).shapley(X[:3], method="tree", progress=False)
    before = {k: len(k.signatures) for k in (K.max_depth, K.interventional, K.predict_rows)}
    readonly = X.copy()
    readonly.setflags(write=False)
    for rows in (X.astype(np.float32), np.round(X).astype(np.int64), np.asfortranarray(X), readonly):
        ip.Explainer(model, rows[:8]).shapley(rows[:3], method="tree", progress=False)
    assert {k: len(k.signatures) for k in before} == before
