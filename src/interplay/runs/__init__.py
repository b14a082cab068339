"""Batch runs: explain millions of rows in chunks, locally (loky) or on Ray, resumable, results in Parquet.

``run(explainer, X, out=DIR)`` writes ``DIR/run-manifest.json`` and one Parquet part per chunk; ``load_run(DIR)``
reads the whole run back as an :class:`~interplay.Explanation`; ``open_run(DIR)`` gives streamed aggregates
(global importance, cohort explanation graphs) and table views; ``resume_run(explainer, X, DIR)`` finishes an
interrupted run with the parameters recorded in its manifest.
"""

from ._results import Run, load_run, open_run
from ._run import resume_run, run

__all__ = ["Run", "load_run", "open_run", "resume_run", "run"]
