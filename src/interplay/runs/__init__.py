"""Batch runs: explain millions of rows in chunks, locally (loky) or on Ray, resumable, results in Parquet.

``run(explainer, X, out=DIR)`` writes ``DIR/manifest.json`` and one Parquet part per chunk; ``load_run(DIR)``
reads the whole run back as an :class:`~interplay.Explanation`; ``open_run(DIR)`` gives streamed aggregates
(global importance, cohort explanation graphs) and table views.
"""

from ._results import Run, load_run, open_run
from ._run import run

__all__ = ["Run", "load_run", "open_run", "run"]
