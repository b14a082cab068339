"""Reading a run back: the whole Explanation, a pyarrow/pandas table, or streamed aggregates.

Parts are ordinary Parquet files, so any Parquet reader works too, e.g. DuckDB::

    SELECT avg(abs("value.age")) AS age FROM read_parquet('DIR/parts/*.parquet');

(Only parts listed in ``DIR/run-manifest.json``, or while the run is written in its journal ``run-chunks.jsonl``,
are finished; a folder being written may also hold parts of chunks still being recorded, so prefer
:meth:`Run.table` or read the manifest's list of files.)
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from .._optional import require
from .._validation import check_choice, one_target
from ..fixed_players import NULL_PLAYERS_NOTE
from ..results import Attribution, BivariateExplanation, Explanation, group_data
from ._store import Store
from ._table import BUDGET, INDEX, METHOD, NULL_PLAYERS, TARGET, adjacency, concat, data_matrix, matrix, value_columns


class Run:
    """A run folder (finished or not). Aggregates stream over the parts, one at a time (bounded memory)."""

    def __init__(self, out: Any) -> None:
        self.store = Store(out, create=False)
        self.manifest = self.store.read_manifest()
        self.path = self.store.root
        self.params: dict = self.manifest["params"]
        self.feature_names: tuple[str, ...] = tuple(self.params["feature_names"])
        self.kind: str = self.params["kind"]
        self.method: str = self.params["method"]

    @property
    def complete(self) -> bool:
        return bool(self.manifest.get("complete"))

    @property
    def n_rows(self) -> int:
        """Rows finished so far (all rows when the run is complete)."""
        return sum(e["rows"][1] - e["rows"][0] for e in self.manifest["chunks"].values())

    @property
    def budget(self) -> int | None:
        """The budget the run's rows used: the one given to :func:`run`, else the resolved default when every
        row used the same (as :meth:`Explainer.shapley`'s ``info["budget"]``); None for a method without one
        (exact enumeration, tree values), when rows used different ones (see :attr:`budgets`), or for a run
        begun by a version that did not record them. (``params["budget"]`` is the argument as given: None
        for the default, which the run's fingerprint compares.)"""
        if self.params.get("budget") is not None:
            return int(self.params["budget"])
        used = self.budgets
        return used[0] if len(used) == 1 else None

    @property
    def budgets(self) -> list[int]:
        """The distinct budgets the finished rows used (e.g. a smaller game's default where null players left
        a row fewer features), from the manifest."""
        return sorted({int(b) for e in self.manifest["chunks"].values() for b in e.get("budgets", ())})

    @property
    def n_evaluations(self) -> int:
        return sum(e["n_evaluations"] for e in self.manifest["chunks"].values())

    def _entries(self) -> list[dict]:
        # in row order (a run resumed with another chunk_size has chunks whose keys are not in row order)
        return sorted(self.manifest["chunks"].values(), key=lambda entry: entry["rows"][0])

    def iter_tables(self, columns: Sequence[str] | None = None) -> Iterator:
        """The finished parts as pyarrow Tables, in row order (one part in memory at a time)."""
        for entry in self._entries():
            yield self.store.read_part(entry, columns=None if columns is None else list(columns))

    def table(self, columns: Sequence[str] | None = None):
        """All finished rows as one pyarrow Table, sorted by ``row`` (see :mod:`interplay.runs._table`)."""
        tables = list(self.iter_tables(columns))
        if not tables:
            raise ValueError(f"out: the run in {self.path!r} has no finished chunk yet")
        return concat(tables)

    def to_pandas(self, columns: Sequence[str] | None = None):
        """All finished rows as a pandas DataFrame, indexed like the input rows when they were a DataFrame (its
        index, kept in the ``index`` column), else by ``row`` (the position in the input)."""
        table = self.table(columns)
        labels = self._labels(table.column(INDEX).to_pylist()) if INDEX in table.column_names else None
        frame = table.to_pandas()
        if labels is None:
            return frame.set_index("row")
        import pandas as pd

        return frame.drop(columns=[INDEX]).set_index(pd.Index(labels, name=self.manifest.get("index_name")))

    @staticmethod
    def _labels(values: list) -> list | None:
        """Per-row labels read back (row labels or targets), or None when a part lacks them (a part written by an
        older version: null)."""
        if any(v is None for v in values):
            return None
        return [v.item() if isinstance(v, np.generic) else v for v in values]

    def _require_complete(self) -> None:
        if not self.complete:
            n = self.manifest.get("n_rows")
            raise ValueError(f"out: the run in {self.path!r} is not finished ({self.n_rows} of "
                             f"{n if n is not None else '?'} rows); resume it with ip.run(..., out=...) "
                             "or read the finished rows with open_run(out).table()")

    def explanation(self) -> Explanation:
        """The whole run as an :class:`Explanation` (all rows in memory), as :meth:`Explainer.shapley` gives it:
        ``info["targets"]`` (each row's class) and ``info["target"]``, ``info["index"]`` (the input DataFrame's row
        labels: ``.to_pandas()`` is indexed like X). For ``kind="bivariate"``, ``values`` are the univariate
        Shapley values and ``info["adjacency"]`` the ``(m, d, d)`` graphs. Under ``method="auto"`` the method is
        the rows' choice when they share one, else ``"auto"`` with each row's in ``info["methods"]`` (``None`` for
        rows computed by a version that did not record it)."""
        self._require_complete()
        table = self.table()
        names = self.feature_names
        data_names = self.params.get("column_names", names)  # input columns (differ with groups=)
        stored = self.params["store_data"]
        has_se = value_columns(names, "se")[0] in table.column_names
        info = {k: v for k, v in self.params.items()
                if k not in ("feature_names", "column_names", "groups", "null_players")}
        if "null_players" in self.params:  # the run's rule (a resume checks it); the rows' own are read below
            info["null_player_rule"] = self.params["null_players"]
        info["out"] = self.path
        if BUDGET in table.column_names and info.get("budget") is None:  # the default, resolved per row
            used = table.column(BUDGET).to_pylist()
            distinct = {b for b in used if b is not None}
            if len(distinct) == 1:  # as Explainer.shapley records it (rows without one, e.g. enumerated, aside)
                info["budget"] = int(distinct.pop())
            elif distinct:
                info["budgets"] = used  # per row (None: a row without a budget, e.g. enumerated)
        if _options(self.params).get("tree_path_dependent") is True:  # as Explainer.shapley records it
            info["removal"] = "path-dependent (tree cover)"
        # as Explainer.shapley: the output each row explains (its class), the one they share (or "predicted")
        targets = self._labels(table.column(TARGET).to_pylist()) if TARGET in table.column_names else None
        if targets is not None:
            info["targets"] = targets
            # the loss: of each row's label (listed in targets), as Explainer.shapley records it
            info["target"] = "label" if self.params.get("output") == "loss" else one_target(targets)
        index = self._labels(table.column(INDEX).to_pylist()) if INDEX in table.column_names else None
        if index is not None:  # the input rows' labels: .to_pandas() is indexed like X
            info["index"] = index
            if self.manifest.get("index_name") is not None:
                info["index_name"] = self.manifest["index_name"]
        if NULL_PLAYERS in table.column_names:  # per row, as Explainer.shapley: the features that are exact zeros
            info["null_players"] = [list(v or []) for v in table.column(NULL_PLAYERS).to_pylist()]
            info["null_players_note"] = NULL_PLAYERS_NOTE
        if self.kind == "bivariate":
            info["adjacency"] = adjacency(table, names)
        method = self.method
        if METHOD in table.column_names:  # method="auto": what each row chose
            methods = table.column(METHOD).to_pylist()
            chosen = set(methods)
            if len(chosen) == 1 and None not in chosen:
                method = methods[0]
                info["method"] = method  # the rows' choice (the run's parameter stays "auto")
            else:
                info["methods"] = methods
        data = data_matrix(table, value_columns(data_names, "data")) if stored else None
        if data is not None and list(data_names) != list(names):  # groups=: one column per feature, as in
            groups = self.params.get("groups") or [  # Explainer.shapley (a run from before: by name)
                [list(data_names).index(n)] if n in data_names else [] for n in names]
            data = group_data(data, groups)
            info["groups"] = {name: [data_names[j] for j in cols]
                              for name, cols in zip(names, groups) if len(cols) > 1}
        return Explanation(
            values=matrix(table, value_columns(names, "value")),
            base_values=table.column("base_value").to_numpy(),
            data=data if data is not None else np.full((table.num_rows, len(names)), np.nan),
            feature_names=names, method=method, n_evaluations=table.column("n_evaluations").to_numpy(),
            std_errors=matrix(table, value_columns(names, "se")) if has_se else None, info=info,
        )

    def _select(self, rows: Any) -> np.ndarray | None:
        """``rows`` (None, boolean mask over the run's rows, or row indices) as a sorted index array."""
        if rows is None:
            return None
        rows = np.asarray(rows)
        n = self.manifest.get("n_rows") or self.n_rows
        if rows.dtype == bool:
            if rows.shape != (n,):
                raise ValueError(f"rows: a boolean mask needs {n} entries (one per row of the run), got {rows.shape}")
            return np.flatnonzero(rows)
        if not np.issubdtype(rows.dtype, np.integer):
            raise TypeError(f"rows: expected None, a boolean mask or integer row indices, got dtype {rows.dtype}")
        outside = rows[(rows < 0) | (rows >= n)]
        if len(outside):  # they were dropped silently (a DataFrame's labels, e.g., selected other rows)
            raise ValueError(f"rows: row positions run from 0 to {n - 1}, got {sorted(set(outside.tolist()))[:5]}; "
                             "rows are positions in the run (not a DataFrame's index labels: pass a boolean mask, "
                             "e.g. (X['age'] < 30).to_numpy())")
        return np.unique(rows)

    def _unit_info(self, rows: Any = None) -> dict:
        """What an aggregate's values are in, as the rows' Explanation records it: ``output``, ``removal`` and
        ``target`` (the plots name the class from them; without them a bar of a run's class 'mid' read "mean |value|"
        alone). The target is the class label the selected rows share (their ``target`` column: a label even where
        the Explainer was given an output index), "predicted" when they explain different classes."""
        params = self.params
        info = {k: params[k] for k in ("output", "removal") if params.get(k) is not None}
        if params.get("output") == "loss":
            return {**info, "target": "label"}
        index = self._select(rows)
        targets: list = []
        for entry in self._entries():
            try:
                table = self.store.read_part(entry, columns=["row", TARGET])
            except (KeyError, ValueError):  # a part without targets (a regressor's, an older version's)
                targets = []
                break
            labels = table.column(TARGET).to_pylist()
            if index is not None:
                keep = np.isin(table.column("row").to_numpy(), index, assume_unique=True)
                labels = [v for v, k in zip(labels, keep) if k]
            targets.extend(v.item() if isinstance(v, np.generic) else v for v in labels)
        if targets and None not in targets:
            info["target"] = one_target(targets)
        elif params.get("target") is not None:
            info["target"] = params["target"]
        return info

    def _sums(self, rows: Any, columns: list[str], absolute: Any) -> tuple[np.ndarray, int]:
        """Column sums over the selected rows (``absolute``: of ``|value|``, for all columns or per column)."""
        self._require_complete()
        index = self._select(rows)
        total, count = np.zeros(len(columns)), 0
        for table in self.iter_tables(["row", *columns]):
            block = matrix(table, columns)
            if index is not None:
                row = table.column("row").to_numpy()
                block = block[np.isin(row, index, assume_unique=True)]
            total += np.where(absolute, np.abs(block), block).sum(axis=0)
            count += len(block)
        if count == 0:
            raise ValueError("rows: selects no row of the run")
        return total, count

    def global_importance(self, rows: Any = None) -> Attribution:
        """Mean ``|value|`` per feature over all rows, or over a cohort (``rows``: mask or indices), as a named
        :class:`Attribution` (``gi["age"]``, ``gi.ranking()``, ``gi.to_pandas()``, ``np.asarray(gi)``; its
        ``baseline`` is the mean base value), as :meth:`Explanation.global_importance`."""
        cols = value_columns(self.feature_names, "value")
        total, count = self._sums(rows, ["n_evaluations", "base_value", *cols], absolute=np.arange(len(cols) + 2) > 1)
        return Attribution(total[2:] / count, total[1] / count, self.feature_names, int(total[0]), self.method,
                           info={**self._unit_info(rows), "rows": count, "aggregate": "mean |value|"})

    def mean_attribution(self, rows: Any = None) -> Attribution:
        """Mean signed values and mean base value over all rows or a cohort."""
        cols = value_columns(self.feature_names, "value")
        total, count = self._sums(rows, ["n_evaluations", "base_value", *cols], absolute=False)
        return Attribution(total[2:] / count, total[1] / count, self.feature_names, int(total[0]),
                           self.method, info={**self._unit_info(rows), "rows": count, "mean_over_rows": True,
                                              "aggregate": "mean value"})

    def cohort_graph(self, rows: Any = None, *, aggregate: str = "abs") -> BivariateExplanation:
        """The cohort's mean explanation matrix over its rows (all rows without ``rows``; ``kind="bivariate"`` runs
        only), as a :class:`BivariateExplanation`. ``aggregate="abs"`` (default, as :meth:`graph` and
        :func:`interplay.graph.mean_graph`): mean ``|W|`` and mean ``|phi|``, so an edge or a feature that is
        strong with one sign in some rows and the other sign in others keeps its size; ``"signed"``: the signed
        means (the rows' mean game), in which such an edge cancels and can read as a redundancy. ``info["aggregate"]``
        records which; its ``.graph()`` is ``kind="cohort"`` (magnitudes) or ``"mean"`` (signed), read at one gamma
        of the mean matrix (:meth:`graph` reads each row at its own gamma and keeps the shares of rows)."""
        if self.kind != "bivariate":
            raise ValueError(f"cohort_graph: needs a run with kind='bivariate', this run has kind={self.kind!r}")
        from ..graph.cohort import AGGREGATES
        from ._table import adjacency_columns, pair_index

        check_choice(aggregate, "aggregate", AGGREGATES)
        absolute = aggregate == "abs"
        cols = adjacency_columns(self.feature_names)
        total, count = self._sums(rows, cols, absolute=absolute)
        d = len(self.feature_names)
        mean = np.zeros((d, d))
        i, j = pair_index(d)
        mean[i, j] = total / count
        # the cohort's evaluations: its rows' (not the whole run's)
        univariate = self.global_importance(rows) if absolute else self.mean_attribution(rows)
        return BivariateExplanation(mean, univariate, self.feature_names, univariate.n_evaluations,
                                    self.method, info={**self._unit_info(rows), "rows": count, "mean_over_rows": True,
                                                       "aggregate": aggregate})

    def graph(self, rows: Any = None, *, aggregate: str = "abs", gamma: float | None = None):
        """The explanation graph of the whole data set, or of a cohort (``rows``: mask or indices), magnitudes kept
        (``kind="bivariate"`` runs only): mean ``|W|``, mean ``|phi|`` and the share of rows in which each edge is
        a redundancy (:func:`interplay.graph.mean_graph`; ``aggregate="signed"`` for the signed means). Streams
        over the parts, one at a time. A sampled run stores no standard errors of the matrices, so each row is
        read at its default gamma without them (``mean_graph`` of the Explainer's own results, which carry them,
        can set a higher threshold for a noisy row)."""
        if self.kind != "bivariate":
            raise ValueError(f"graph: needs a run with kind='bivariate', this run has kind={self.kind!r}")
        from ..graph.cohort import CohortAccumulator

        self._require_complete()
        index = self._select(rows)
        names = self.feature_names
        values = value_columns(names, "value")
        acc = CohortAccumulator(len(names), aggregate=aggregate, gamma=gamma)
        for table in self.iter_tables(None):
            keep = None if index is None else np.isin(table.column("row").to_numpy(), index, assume_unique=True)
            weights, phi = adjacency(table, names), matrix(table, values)
            for k in range(len(weights)) if keep is None else np.flatnonzero(keep):
                acc.add(weights[k], phi[k])
        if acc.count == 0:
            raise ValueError("rows: selects no row of the run")
        unit = self._unit_info(rows)  # the target by label, and the class the selected rows share
        return acc.graph(names, info={k: unit[k] for k in ("output", "target") if unit.get(k) is not None})

    def __repr__(self) -> str:
        state = "complete" if self.complete else "unfinished"
        return (f"Run({self.path!r}, kind={self.kind!r}, method={self.method!r}, rows={self.n_rows}, {state}, "
                f"parts={len(self.manifest['chunks'])})")


def open_run(out: Any) -> Run:
    """A handle on the run in folder ``out`` (finished or not): tables, aggregates, manifest."""
    require("pyarrow", "a batch run's results are Parquet files, which need pyarrow", "runs")
    return Run(out)


def load_run(out: Any) -> Explanation:
    """The finished run in folder ``out`` as one :class:`Explanation` (all rows in memory)."""
    return open_run(out).explanation()


def _options(params: dict) -> dict:
    """The run's estimator options (recorded as JSON), or {} when they cannot be read."""
    import json

    try:
        options = json.loads(params.get("options") or "{}")
    except ValueError:
        return {}
    return options if isinstance(options, dict) else {}
