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
    monkeypatch.setattr(K, "_announced", False, raising=False)
    monkeypatch.setattr(K, "_cache_cold", lambda kernel: True, raising=False)  # as in a fresh environment
    monkeypatch.delenv("INTERPLAY_PROGRESS", raising=False)
    explain.shapley(X, method="tree", progress=False)
    explain.shapley(X, method="tree", progress=False)
    assert capsys.readouterr().err.count(NOTICE) == 1


def test_warm_runs_and_progress_off_say_nothing(explainer, capsys, monkeypatch):
    explain, X = explainer
    monkeypatch.setattr(K, "_announced", False, raising=False)
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
