"""Throughput: explanations per second (SHEAR paper, Sec. 5.4): ``N_test / t_total``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable


@dataclass(frozen=True)
class Throughput:
    """``n_explained`` rows explained in ``seconds`` of wall time; ``per_second = n_explained / seconds``."""

    n_explained: int
    seconds: float

    @property
    def per_second(self) -> float:
        return self.n_explained / self.seconds if self.seconds > 0 else float("inf")

    @property
    def seconds_per_explanation(self) -> float:
        return self.seconds / self.n_explained if self.n_explained else float("nan")


def throughput(explain: Callable[[Any], Any], rows: Iterable[Any], *,
               timer: Callable[[], float] = time.perf_counter) -> Throughput:
    """Time ``explain(row)`` over all ``rows`` (SHEAR Sec. 5.4: ``N_test / t_total``).

    ``explain`` is any callable producing one explanation, e.g. ``lambda x: ip.shapley(explainer.game(x),
    method="kernel", budget=512)``; the total includes everything it does (game building, model calls,
    estimation). ``rows``: any iterable of rows (a 2-D array gives its rows); a pandas DataFrame gives its rows
    as Series (``rows.iloc[i]``, named by column), not its column labels. ``timer`` is injectable for tests.
    """
    if not callable(explain):
        raise TypeError(f"explain: expected a callable row -> explanation, got {type(explain).__name__}")
    if hasattr(rows, "iloc") and hasattr(rows, "columns"):  # a DataFrame iterates its column labels: use rows
        frame = rows
        rows = [frame.iloc[i] for i in range(len(frame))]  # sliced before the clock starts
    count = 0
    start = timer()
    for row in rows:
        explain(row)
        count += 1
    seconds = timer() - start
    if count == 0:
        raise ValueError("rows: expected at least one row to explain")
    return Throughput(count, float(seconds))
