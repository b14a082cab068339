"""The benchmark runners on a tiny setting (seconds), so CI catches breakage. Full runs are commands:
``PYTHONPATH=src python benchmarks/accuracy.py``, ``benchmarks/speed.py`` and ``benchmarks/sota.py`` (see
benchmarks/README.md)."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load(name):
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(f"benchmark_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_accuracy_benchmark_tiny(tmp_path):
    pytest.importorskip("sklearn")
    accuracy = _load("accuracy")
    out = tmp_path / "accuracy.md"
    result = accuracy.main(("diabetes",), n_rows=1, n_background=4, per_feature=(8,), interaction_rows=1,
                           shap_jit=False, out=str(out), log=lambda *a: None)
    # the games are the same for every library: full-budget values agree with interplay's exact ones
    for key, diff in result["checks"][0].items():
        if key != "task":
            assert diff < 1e-8, (key, diff)
    ok = [r for r in result["shapley"] if "error" not in r]
    assert ok, result["shapley"]
    for rec in ok:
        assert np.isfinite(rec["ae"]) and 0 <= rec["acc"] <= 1
        assert rec["evals"] <= rec["budget"] + 2, rec  # shap's Kernel adds the full row's evaluation
    text = out.read_text()
    assert "## Same games?" in text and "| method |" in text


def test_speed_benchmark_tiny(tmp_path):
    pytest.importorskip("sklearn")
    speed = _load("speed")
    out = tmp_path / "speed.md"
    result = speed.main((10,), budgets=(64,), forest_budgets=(64,), n_rows=1, forest_rows=1, n_trees=5,
                        out=str(out), log=lambda *a: None)
    for check in result["checks"]:  # TreeSHAP (boosting) and TreeSHAP (forest, float32 inside) agree
        assert check["max |interplay exact - truth|"] < 1e-5, check
    assert {s["model"] for s in result["summary"]} == {"boosting", "forest"}
    for s in result["summary"]:
        if s["method"] == "interplay exact":
            assert s["ae"] < 1e-5  # TreeSHAP (the forest's truth) works in float32
        assert s["model_ms"] <= s["ms"] + 1e-9 or np.isnan(s["ms"])
    assert "## Equal accuracy" in out.read_text()


def test_sota_benchmark_tiny(tmp_path):
    """Runs with whatever shapiq is installed: approximators it lacks are recorded as n/a, not as errors."""
    pytest.importorskip("sklearn")
    sota = _load("sota")
    out = tmp_path / "sota.md"
    result = sota.main(("moebius8",), per_feature=(5, 10), seeds=2, methods=("kernel", "not-a-method"),
                       interaction_methods=("msr",), bivariate_methods=("kernel",), shap_permutation=False,
                       check_n=6, equal_game="moebius8", equal_rows=2, equal_target=10.0, equal_per_feature=(5,),
                       cache_dir=str(tmp_path / "cache"), out=str(out), log=lambda *a: None)
    for check in result["checks"]:  # the same game for every library: full-budget values agree
        assert check["max abs diff"] < 1e-10, check
    assert result["missing"]["sv"] == ["not-a-method"]
    summary = {(s["kind"], s["method"], s["budget"]): s for s in result["summary"]}
    for kind in ("sv", "bii", "biv"):
        row = summary[(kind, "interplay kernel" if kind != "bii" else "interplay msr", 40)]
        assert np.isfinite(row["mse"]) and row["runs"] == 2, row
    assert ("sii", "interplay msr", 40) not in summary  # msr does not estimate SII: left out, not an error
    assert np.isfinite(summary[("sv", "shap KernelExplainer", 40)]["mse"])
    for s in result["summary"]:  # missing approximators are n/a; nothing else fails on this game
        if "mse" not in s:
            assert s["note"].startswith("n/a") or "hpo" in s["note"] or "budget:" in s["note"], s
    assert result["equal"] and isinstance(result["equal"][0]["budget"], int)
    text = out.read_text()
    assert "## Summary" in text and "### moebius8: Shapley values" in text and "## Speed at equal accuracy" in text
    # the cache lets an interrupted run continue: a second run reads every record back
    again = sota.main(("moebius8",), per_feature=(5, 10), seeds=2, methods=("kernel",), interaction_methods=("msr",),
                      bivariate_methods=("kernel",), shap_permutation=False, check_n=0, equal_game=None,
                      cache_dir=str(tmp_path / "cache"), log=lambda *a: None)
    first = {(r["kind"], r["method"], r["budget"], r["seed"]): r.get("mse") for r in result["records"]}
    for r in again["records"]:
        assert r.get("mse") == first[(r["kind"], r["method"], r["budget"], r["seed"])]


def test_std_errors_benchmark_tiny():
    std_errors = _load("std_errors")
    r = std_errors.measure(8, 60, "odd", seeds=1)
    assert r["on"] > 0 and r["off"] > 0 and r["model"] > 0 and np.isfinite(r["share"])


def test_null_players_benchmark_tiny():
    pytest.importorskip("sklearn")
    pytest.importorskip("scipy")
    bench = _load("null_players")
    records = bench.digits(1, 1, [5])
    assert len(records) == 1 and records[0]["null"] > 0
    assert np.isfinite(records[0]["mse_new"]) and np.isfinite(records[0]["mse_old"])


def test_blas_threads_benchmark_tiny():
    pytest.importorskip("threadpoolctl")
    blas_threads = _load("blas_threads")
    from interplay import _threads

    limit = _threads.ONE_THREAD_BUDGET
    row = blas_threads.run_case(12, "shapley", "auto", 100, repeats=1)
    assert _threads.ONE_THREAD_BUDGET == limit  # the 'never' setting is undone
    assert row["one thread"] and row["method"] == "auto (odd_gp)"
    assert all(row[name] > 0 for name in ("default", "never", "always"))
    text = blas_threads.report({0: [row]}, type("Args", (), {"repeats": 1})(), "cmd")
    assert "## 0 busy-looping processes beside it" in text and "| 12 | shapley, auto (odd_gp) | 100 |" in text
