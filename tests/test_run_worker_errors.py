"""A model that raises on one row of a batch run: the error names the row, finished chunks are kept, the run
resumes once the cause is fixed, and with worker processes (n_jobs=2) the process still exits (loky's workers
were left running when queued chunks were cancelled: Python hung at exit joining them)."""

import os

import numpy as np
import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("joblib")

import interplay as ip  # noqa: E402

from test_runs_models import NAMES, FailsOnValue  # noqa: E402


def _data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(60, 5)), rng.normal(size=(6, 5))


def test_a_model_error_names_the_row_keeps_finished_chunks_and_resumes_after_the_fix(tmp_path):
    X, background = _data()
    marker = tmp_path / "fixed"
    explainer = ip.Explainer(FailsOnValue(X[37, 0], str(marker)), background, feature_names=NAMES)
    args = dict(budget=24, chunk_size=10, n_jobs=1, random_state=3, progress=False)
    with pytest.raises(RuntimeError, match=r"X: row 37: model call .*failed.* 30 of the 60 rows are finished and kept"):
        ip.run(explainer, X, "permutation", out=tmp_path / "run", **args)
    marker.touch()  # the cause fixed: the same model (the same fingerprint) now answers
    resumed = ip.run(explainer, X, "permutation", out=tmp_path / "run", **args).to_pandas()
    clean = ip.run(explainer, X, "permutation", out=tmp_path / "clean", **args).to_pandas()
    assert list(resumed.index) == list(range(60))
    assert resumed.equals(clean)
