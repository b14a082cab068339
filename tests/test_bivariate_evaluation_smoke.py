"""benchmarks/bivariate_evaluation.py on a tiny setting (seconds), so CI catches breakage. The full run is a
command: ``PYTHONPATH=src python benchmarks/bivariate_evaluation.py --out benchmarks/results/bivariate_evaluation.md``."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def _load():
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("benchmark_bivariate_evaluation",
                                                  BENCHMARKS / "bivariate_evaluation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_bivariate_evaluation_tiny(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("vaderSentiment")
    bench = _load()
    tasks = ["breast_cancer", "digits", "text"]
    if bench.ADULT_CSV.exists() and importlib.util.find_spec("xgboost") is not None:
        tasks.insert(0, "adult")
    out = tmp_path / "bivariate_evaluation.md"
    result = bench.main(tasks, adult_rows=2, mlp_rows=2, digits_rows=2, text_rows=3, n_background=8,
                        mlp_background=4, n_trees=10, digits_exact=False, out=str(out), log=lambda *a: None)
    assert {r["task"] for r in result["sinks"]} == set(tasks)
    assert {r["features"] for r in result["timing"] if r["task"] == "text"} == {"8-13"}  # rows of different sizes
    for rec in result["sinks"]:
        assert 0.5 <= rec["density"] <= 1.0  # gamma chosen for at least 50 % density of H
        for key in ("sink masked", "source masked", "% sinks", "% sources"):
            assert 0 <= rec[key] <= 100, rec
    rankings = {r["ranking"] for r in result["curves"]}
    assert {"|Shapley|", "Shapley (signed)", "BivShap importance (default)", "BivShap softplus (Alg. 5)",
            "SII PageRank", "random"} <= rankings
    assert {r["task"] for r in result["verdict"]} == set(tasks)
    for rec in result["curves"]:
        assert 0 <= rec["iAUC"] <= 1 and 0 <= rec["dAUC"] <= 1, rec
        assert all(0 <= rec[k] <= 100 for k in rec if k.startswith(("low", "top"))), rec
    for rec in result["timing"]:
        assert rec["BivShap s/row"] > 0 and np.isfinite(rec["SII s/row"])
    text = out.read_text()
    assert "at least as good" in text and "## H-sinks vs H-sources" in text and "## Seconds per row (Table 8)" in text
