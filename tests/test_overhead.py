"""Issue 16 (near-zero overhead): what the speed-ups must not change.

- results never depend on how many rows go to the model per call (the learned call size, ``max_rows``);
- the call-size rule grows calls only while they pay, and settles;
- ``shapley(x)`` and ``bivariate(x)`` of one row with the same seed use the same samples.
"""

from __future__ import annotations

import numpy as np
import pytest

import interplay as ip
from interplay.removal import baseline_value_function, conditional_value_function, marginal_value_function
from interplay.removal._columns import CallSizer

D = 9


def _model(X):
    # row-wise arithmetic only (no BLAS), so a row's value cannot depend on the rows it is sent with
    return np.sin(X).sum(axis=1) + X[:, 0] * X[:, -1]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=(12, D)), rng.normal(size=(5, D))


@pytest.mark.parametrize("removal", ["baseline", "marginal", "conditional"])
def test_values_do_not_depend_on_rows_per_call(data, removal):
    background, X = data
    reference = [ip.Explainer(_model, background, removal=removal).shapley(X, method="kernel", budget=200,
                                                                             random_state=1).values]
    for max_rows in (1, 7, 100):
        ex = ip.Explainer(_model, background, removal=removal, max_rows=max_rows)
        reference.append(ex.shapley(X, method="kernel", budget=200, random_state=1).values)
    for values in reference[1:]:
        np.testing.assert_array_equal(values, reference[0])


@pytest.mark.parametrize("make", ["baseline", "marginal", "conditional"])
def test_value_functions_equal_for_any_learned_call_size(data, make):
    background, X = data
    x = X[0]
    coalitions = np.random.default_rng(2).random((300, D)) < 0.5
    calls = []

    def predict(rows):
        calls.append(len(rows))
        return _model(rows)

    def build(sizer):
        if make == "baseline":
            return baseline_value_function(predict, x, background.mean(axis=0), sizer=sizer)
        if make == "marginal":
            return marginal_value_function(predict, x, background, sizer=sizer)
        return conditional_value_function(predict, x, background, sizer=sizer)

    expected = build(None)(coalitions)
    for rows in (1, 13, 50, 4000):
        sizer = CallSizer()
        sizer.rows, sizer.settled = rows, True
        calls.clear()
        np.testing.assert_array_equal(build(sizer)(coalitions), expected)
        # a coalition's background rows go in one call; a short last call joins the one before (< 1.5x)
        assert max(calls) <= max(rows + rows // 2, len(background))


def test_a_short_last_call_joins_the_one_before():
    """A model with a fixed cost per call (a scikit-learn forest: most of a 110-row call) is not called again
    for a short rest: 420 coalitions of 10 background rows at 4,096 rows a call are one call, not 4,090 + 110;
    a rest of half a call or more is its own call; a caller's fixed size (learn=False, batch runs) is kept."""
    rng = np.random.default_rng(0)
    x, background = rng.normal(size=5), rng.normal(size=(10, 5))
    calls = []

    def predict(rows):
        calls.append(len(rows))
        return rows.sum(axis=1)

    def calls_for(k, sizer):
        calls.clear()
        coalitions = rng.random((k, 5)) < 0.5
        values = marginal_value_function(predict, x, background, sizer=sizer)(coalitions)
        np.testing.assert_allclose(values, marginal_value_function(lambda r: r.sum(axis=1), x, background)(
            coalitions))
        return list(calls)

    learned = CallSizer()
    learned.rows, learned.settled = 4096, True
    assert calls_for(420, learned) == [4200]
    assert calls_for(409 + 205, learned) == [4090, 2050]  # half a call: its own
    assert calls_for(409 + 204, learned) == [6130]
    fixed = CallSizer(rows=4096, learn=False)
    assert calls_for(420, fixed) == [4090, 110]
    capped = CallSizer(max_rows=4096)
    capped.rows, capped.settled = 4096, True
    assert calls_for(420, capped) == [4090, 110]  # max_rows is a hard limit


def test_call_sizer_grows_while_calls_pay_then_settles():
    def seconds(rows, fixed, per_row):
        return fixed + per_row * rows

    # a model with a large fixed cost per call (a forest looping over trees): grows until it stops paying
    sizer = CallSizer(max_rows=100_000)
    sizes = []
    for _ in range(12):
        sizes.append(sizer.rows)
        if not sizer.settled:
            sizer._observe(sizer.rows, seconds(sizer.rows, fixed=0.05, per_row=1e-6))
    assert sizes[:4] == [1024, 1024, 1024, 4096]  # a warm-up, not timed, then two timed calls for the reference
    assert sizer.settled and sizer.rows > 4096
    # a cheap model whose time per row worsens on large calls (cache misses): back to the start size
    sizer = CallSizer()
    sizer._observe(1024, 1.0)  # warm-up
    sizer._observe(1024, 1e-3)
    assert sizer.rows == 1024 and not sizer.settled  # one timed call is no reference yet
    sizer._observe(1024, 1e-3)
    assert sizer.rows == 4096 and not sizer.settled
    sizer._observe(4096, 8e-3)  # 2x the time per row
    assert sizer.rows == 1024 and sizer.settled
    # one timed call slowed by noise (another job, a cold cache) does not make the reference: still back
    sizer = CallSizer()
    sizer._observe(1024, 1.0)
    sizer._observe(1024, 2.5e-3)  # slowed 2.5x
    sizer._observe(1024, 1e-3)
    sizer._observe(4096, 8e-3)  # 2x the time per row of the true reference, 0.8x the slowed one's
    assert sizer.rows == 1024 and sizer.settled
    # about even: the larger calls are kept
    sizer = CallSizer()
    sizer._observe(1024, 1.0)
    sizer._observe(1024, 1e-3)
    sizer._observe(1024, 1.1e-3)
    sizer._observe(4096, 4096 * 0.9e-3 / 1024)  # 10% better: within the noise
    assert sizer.rows == 4096 and sizer.settled
    # never above max_rows
    sizer = CallSizer(max_rows=300)
    assert sizer.rows == 300 and sizer.settled


@pytest.mark.parametrize("width, start", [(10, 1024), (100, 1024), (300, 436), (1000, 256), (5000, 256)])
def test_call_sizer_starts_with_fewer_rows_when_they_are_wide(width, start):
    """The first calls hold at most START_CELLS cells (1 MiB of float64), at least 256 rows; the size then
    learned from the model is kept whatever the width of later calls."""
    calls = []

    def values_of(chunk):
        calls.append(len(chunk))
        return np.zeros(len(chunk))

    sizer = CallSizer()
    out = sizer.map(values_of, np.zeros((3000, 1)), width=width)
    assert len(out) == 3000 and sizer.start == start and calls[0] == start
    sizer.rows, sizer.settled = 4 * start, True  # learned: later calls keep it
    calls.clear()
    sizer.map(values_of, np.zeros((9000, 1)), width=1)
    assert calls[0] == 4 * start


@pytest.mark.parametrize("method", ["kernel", "permutation", "auto"])
def test_shapley_and_bivariate_of_a_row_share_their_samples(data, method):
    background, X = data
    w = np.linspace(-1.0, 1.0, D)
    ex = ip.Explainer(lambda rows: np.tanh(rows @ w) * rows[:, 1], background)  # far from additive
    uni = ex.shapley(X[:1], method=method, budget=150, random_state=5).values[0]
    graph = ex.bivariate(X[:1], method=method, budget=150, random_state=5)
    np.testing.assert_allclose(graph.univariate.values, uni, rtol=0, atol=1e-12)
    other = ex.bivariate(X[:1], method=method, budget=150, random_state=6)
    assert np.abs(other.univariate.values - uni).max() > 1e-6  # another seed: other samples


def test_a_batch_run_gives_the_rows_of_bivariate_too(data, tmp_path):
    from interplay.runs import load_run, run

    background, X = data
    w = np.linspace(-1.0, 1.0, D)
    ex = ip.Explainer(lambda rows: np.tanh(rows @ w) * rows[:, 1], background)
    run(ex, X[:3], "kernel", out=tmp_path, kind="bivariate", budget=150, random_state=4, chunk_size=2, n_jobs=1)
    stored = load_run(tmp_path)
    rows = ex.shapley(X[:3], method="kernel", budget=150, random_state=4).values
    np.testing.assert_allclose(stored.values, rows, rtol=0, atol=1e-12)
    first = ex.bivariate(X[:1], method="kernel", budget=150, random_state=4)  # row 0 of the same seed
    np.testing.assert_allclose(stored.info["adjacency"][0], first.adjacency, rtol=0, atol=1e-12)


def test_overhead_benchmark_tiny():
    """benchmarks/overhead.py on tiny sizes: it runs, replays the same model calls, and its checks hold."""
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "overhead.py"
    spec = importlib.util.spec_from_file_location("benchmark_overhead", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    r = module.overhead("mlp", 6, repeats=1, budget=40)
    assert r["rows"] == 40 * module.N_BACKGROUND and r["total"] > 0 and r["alone"] > 0
    b = module.bivariate_ratio("mlp", 6, repeats=1, budget=40)
    assert b["same"]
    parts = module.breakdown("mlp", 6, repeats=1, budget=40)
    assert parts["model"] > 0 and parts["total"] >= parts["model"] + parts["sample"] + parts["solve"]
    batch = module.batch_rate(rows=30, repeats=1)
    assert batch["error"] < 1e-12


@pytest.fixture(params=["numpy", "compiled"])
def select(request):
    """Hybrid rows built by numpy's two passes, then by the compiled kernel (numba; numpy when it is missing)."""
    from interplay.removal import _compiled

    previous = _compiled.use_select(request.param)
    yield request.param
    _compiled.use_select(previous)


@pytest.mark.parametrize("read_only", [False, True])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, object])
def test_hybrid_rows_equal_where_bit_for_bit(dtype, read_only, select):
    from interplay.removal._columns import HybridRows

    rng = np.random.default_rng(3)
    x, background = rng.normal(size=7).astype(dtype), rng.normal(size=(4, 7)).astype(dtype)
    if dtype is not object:  # NaN, inf and a negative zero survive the bitwise select unchanged
        x[0], background[1, 2], background[2, 3], x[5] = np.nan, -0.0, np.inf, -0.0
    mask = rng.random((9, 7)) < 0.5
    if read_only:  # e.g. a memory-mapped background
        for a in (x, background, mask):
            a.flags.writeable = False
    hybrid = HybridRows(x, background)
    rows = hybrid(mask)
    expected = np.where(mask[:, None, :], x, background)
    assert rows.dtype == expected.dtype and rows.shape == (9, 4, 7)
    if dtype is object:
        assert (rows == expected).all()
    else:
        np.testing.assert_array_equal(rows.view(np.uint8), expected.view(np.uint8))
        assert hybrid(mask[:0]).shape == (0, 4, 7)


def test_compiled_select_is_used_when_asked_and_numba_is_there(select):
    from interplay._optional import installed
    from interplay.removal._compiled import select_kernel

    kernel = select_kernel(10)
    assert (kernel is not None) == (select == "compiled" and installed("numba"))


def test_default_select_waits_for_enough_cells(monkeypatch):
    """By default numpy builds the rows until the process has built enough cells to pay for loading the kernel."""
    from interplay.removal import _compiled

    monkeypatch.setattr(_compiled, "_state", {"numpy_cells": 0, "kernel": None, "failed": False, "mode": None})
    assert _compiled.select_kernel(_compiled.COMPILE_AFTER_CELLS - 1) is None
    assert _compiled._state["numpy_cells"] == _compiled.COMPILE_AFTER_CELLS - 1
    pytest.importorskip("numba")
    assert _compiled.select_kernel(1) is None  # this call's cells are still numpy's
    assert _compiled.select_kernel(1) is not None


@pytest.mark.parametrize("n, rows, paired", [(40, 200, True), (60, 400, True), (30, 300, True), (25, 120, False)])
def test_kernel_solve_matches_the_textbook_formulas(n, rows, paired):
    """The fast solve (syrk Gram, potri inverse, mean term skipped without enumerated sizes) against the
    constrained weighted least squares and the sandwich variance written out directly, for 3 targets."""
    from interplay.estimators._sampling import kernel_sample, kernel_solve

    rng = np.random.default_rng(n)
    sample = kernel_sample(n, rows, rng, paired=paired)
    z = sample.coalitions.astype(float)
    targets = np.column_stack([np.tanh(z @ rng.normal(size=n)), z[:, 0] * z[:, 1], rng.normal(size=len(z))])
    totals = np.array([0.7, 1.0, -0.3])
    solution = kernel_solve(sample, targets, totals)
    x = z[:, :-1] - z[:, -1:]
    y = targets - z[:, -1:] * totals
    wx = x * sample.weights[:, None]
    beta = np.linalg.solve(x.T @ wx, wx.T @ y)
    np.testing.assert_allclose(solution.phi, np.vstack([beta, totals - beta.sum(axis=0)]), rtol=1e-9, atol=1e-12)
    # sandwich: units (a coalition, or a pair) i.i.d.; s_u = (X'WX)^-1 sum_{rows of u} x r
    first, units = sample.n_enumerated, len(sample.counts)
    residuals = y - x @ beta
    projected = np.linalg.inv(x.T @ wx) @ x.T
    per_row = projected[:, :, None] * residuals[None, :, :]  # (n-1, rows, targets)
    s_u = np.zeros((n - 1, units, 3))
    np.add.at(s_u, (slice(None), sample.unit_of_row), per_row[:, first:])
    s_u = np.concatenate([s_u, -s_u.sum(axis=0, keepdims=True)])
    c, draws = sample.counts[None, :, None], sample.n_draws
    var = ((c * s_u**2).sum(axis=1) - (c * s_u).sum(axis=1) ** 2 / draws) * draws / (draws - 1)
    dof = np.sqrt(units / (units - (n - 1)))
    expected = dof * np.sqrt(var) * sample.sampled_mass / (sample.width * draws)
    np.testing.assert_allclose(solution.std_errors, expected, rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("n", range(1, 9))
def test_masks_of_size_are_every_coalition_in_lexicographic_order(n):
    """The shared enumeration (complements above n/2) against itertools, for every size."""
    from itertools import combinations

    from interplay._bits import masks_of_size, members_of_size

    for size in range(n + 1):
        expected = list(combinations(range(n), size))
        assert members_of_size(n, size).tolist() == [list(c) for c in expected]
        masks = masks_of_size(n, size)
        assert masks.dtype == bool and masks.shape == (len(expected), n)
        assert [tuple(np.flatnonzero(row)) for row in masks] == expected


@pytest.mark.parametrize("sizes_seed", [0, 1])
def test_random_subsets_in_blocks_equal_one_draw(sizes_seed, monkeypatch):
    """Keys drawn block by block: the same subsets as one draw of every key at once (32-bit integer keys)."""
    from interplay.estimators import _sampling

    n = 37
    sizes = np.random.default_rng(sizes_seed).integers(1, n, 500)
    keys = np.random.default_rng(7).integers(0, 2**32, size=(len(sizes), n), dtype=np.uint32)
    expected = keys <= np.take_along_axis(np.sort(keys, axis=1), (sizes - 1)[:, None], axis=1)
    for cells in (1, 100, 2**16):
        monkeypatch.setattr(_sampling, "SUBSET_BLOCK_CELLS", cells)
        subsets = _sampling._random_subsets(sizes, n, np.random.default_rng(7))
        np.testing.assert_array_equal(subsets, expected)
        np.testing.assert_array_equal(subsets.sum(axis=1), sizes)


def _few_keys(levels: int):
    """Keys taking only ``levels`` values, so ties at the threshold are frequent."""

    def keys(rng, rows, n):
        return rng.integers(0, levels, size=(rows, n)).astype(np.uint32)

    return keys


def test_random_subsets_keys_are_the_generators_uint32_draws():
    """The keys are the bit generator's raw words cut in halves: ``rng.integers``' 32-bit values for an even
    count (so samples drawn before the faster keys are unchanged there), and the generator moves on alike."""
    from interplay.estimators._sampling import _uint32_keys

    for rows, n in ((3, 4), (5, 7), (1, 2), (4, 37)):
        a, b = np.random.default_rng(11), np.random.default_rng(11)
        np.testing.assert_array_equal(_uint32_keys(a, rows, n),
                                      b.integers(0, 2**32, size=(rows, n), dtype=np.uint32))
        assert a.random() == b.random()
    odd = _uint32_keys(np.random.default_rng(11), 3, 5)  # an odd count: the last word's high half is unused
    assert odd.shape == (3, 5) and odd.dtype == np.uint32


@pytest.mark.parametrize("bit_generator", ["MT19937", "Philox", "SFC64", "PCG64DXSM"])
def test_kernel_shapley_with_any_numpy_bit_generator(bit_generator):
    """MT19937's raw words have 32 random bits (the others' 64): its keys come from rng.integers, so KernelSHAP
    neither hangs on ties nor repeats one subset; each generator's subsets are uniform over the players."""
    import interplay as ip
    from interplay.estimators._sampling import _random_subsets

    rng = np.random.Generator(getattr(np.random, bit_generator)(0))
    subsets = _random_subsets(np.full(3000, 3), 6, rng)
    assert np.all(subsets.sum(axis=1) == 3)
    assert len({tuple(r) for r in subsets}) == 20  # every one of the C(6, 3) subsets comes up
    np.testing.assert_allclose(subsets.mean(axis=0), 0.5, atol=0.05)
    weights = np.arange(1.0, 13.0)
    result = ip.shapley(ip.Game(lambda Z: Z @ weights, 12), method="kernel", budget=300,
                        random_state=np.random.Generator(getattr(np.random, bit_generator)(1)))
    np.testing.assert_allclose(result.values, weights, atol=1e-9)  # additive game: exact from any sample


def test_random_subsets_redraw_tied_rows_and_stay_uniform(monkeypatch):
    """With keys of 3 values most rows tie at their threshold: every row still has exactly its size, and each
    of the C(4, 2) = 6 subsets of 2 of 4 players comes out about equally often (chi-square, 5 degrees of
    freedom: 20.5 is its 0.999 quantile)."""
    from interplay.estimators import _sampling

    monkeypatch.setattr(_sampling, "_uint32_keys", _few_keys(3))
    sizes = np.full(6000, 2)
    subsets = _sampling._random_subsets(sizes, 4, np.random.default_rng(0))
    np.testing.assert_array_equal(subsets.sum(axis=1), sizes)
    codes = subsets.astype(np.int64) @ (1 << np.arange(4))
    counts = np.bincount(codes, minlength=16)[[3, 5, 6, 9, 10, 12]]
    assert counts.sum() == len(sizes)
    chi2 = ((counts - len(sizes) / 6) ** 2 / (len(sizes) / 6)).sum()
    assert chi2 < 20.5, counts
    monkeypatch.setattr(_sampling, "_uint32_keys", _few_keys(2))  # two levels: ties almost always
    mixed = _sampling._random_subsets(np.array([1, 3, 2, 2, 1]), 4, np.random.default_rng(1))
    np.testing.assert_array_equal(mixed.sum(axis=1), [1, 3, 2, 2, 1])


def test_stratified_variance_matches_the_per_stratum_formula():
    """Running sums per stratum (units in any order, empty and single-unit strata) against Cochran's
    ``sum_h (1 - k_h/N_h) k_h S_h^2`` written out stratum by stratum."""
    from interplay.estimators._sampling import stratified_variance

    rng = np.random.default_rng(3)
    strata = rng.permutation(np.repeat([0, 2, 3, 5], [4, 1, 7, 3]))  # strata 1 and 4 empty, 2 single
    sizes = np.array([10.0, 5.0, 1.0, 20.0, 3.0, 3.0])
    projected, residuals = rng.normal(size=(6, len(strata))), rng.normal(size=(len(strata), 2))
    expected = np.zeros((6, 2))
    for t in range(2):
        g = projected * residuals[:, t]
        for h in range(len(sizes)):
            block = g[:, strata == h]
            k = block.shape[1]
            if k == 1:
                expected[:, t] += (1 - k / sizes[h]) * block[:, 0] ** 2
            elif k > 1:
                expected[:, t] += (1 - k / sizes[h]) * k * block.var(axis=1, ddof=1)
    np.testing.assert_allclose(stratified_variance(strata, sizes, projected, residuals), expected, rtol=1e-12)


def test_a_failing_compiled_select_falls_back_to_numpy(monkeypatch):
    from interplay.removal import _compiled
    from interplay.removal._columns import HybridRows

    def broken(*args):
        raise RuntimeError("numba could not compile this signature")

    monkeypatch.setattr(_compiled, "_state", {"numpy_cells": 0, "kernel": broken, "failed": False, "mode": None})
    rng = np.random.default_rng(0)
    x, background, mask = rng.normal(size=5), rng.normal(size=(3, 5)), rng.random((4, 5)) < 0.5
    np.testing.assert_array_equal(HybridRows(x, background)(mask), np.where(mask[:, None, :], x, background))
    assert _compiled._state["failed"] and _compiled.select_kernel(10) is None


def test_explaining_a_model_that_is_not_trees_never_imports_numba():
    """A cold process: the Explainer and method="auto" on a linear model leave interplay.trees (numba) alone;
    a forest's auto takes the exact tree path."""
    import subprocess
    import sys

    pytest.importorskip("numba")
    pytest.importorskip("sklearn")
    code = """
import sys
import numpy as np
import interplay as ip
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
rng = np.random.default_rng(0)
X = rng.normal(size=(80, 5))
y = X[:, 0] + X[:, 1] * X[:, 2]
ex = ip.Explainer(LinearRegression().fit(X, y), X[:20])
ex.shapley(X[0], random_state=0)
ex.interactions(X[0], random_state=0)
print("numba" in sys.modules, "interplay.trees" in sys.modules)
forest = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
print(ip.Explainer(forest, X[:20]).shapley(X[0]).method)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "tree"]


def test_a_pipeline_on_text_columns_does_not_import_numba():
    """Only a booster's categories need interplay.trees when the background has text columns."""
    import subprocess
    import sys

    pytest.importorskip("numba")
    pytest.importorskip("sklearn")
    code = """
import sys
import numpy as np
import pandas as pd
import interplay as ip
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
rng = np.random.default_rng(0)
X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.choice(["x", "y", "z"], 60)})
y = (X["a"] > 0).astype(int)
model = make_pipeline(make_column_transformer((OneHotEncoder(), ["b"]), remainder="passthrough"),
                      LogisticRegression()).fit(X, y)
ex = ip.Explainer(model, X.iloc[:20])
ex.shapley(X.iloc[[0]], random_state=0)
print("numba" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False"]


def test_may_be_trees_knows_every_class_the_readers_take():
    sklearn = pytest.importorskip("sklearn.ensemble")
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    from interplay.models.tree_kinds import may_be_trees

    for model in (sklearn.RandomForestClassifier(), sklearn.ExtraTreesRegressor(), DecisionTreeClassifier(),
                  sklearn.GradientBoostingRegressor(), sklearn.HistGradientBoostingClassifier(),
                  make_pipeline(StandardScaler(), sklearn.RandomForestRegressor())):
        assert may_be_trees(model), model
    for model in (LinearRegression(), make_pipeline(StandardScaler(), LinearRegression()), np.sum, "x"):
        assert not may_be_trees(model), model


@pytest.mark.parametrize("paired", [True, False])
def test_a_solve_that_may_write_over_its_targets_gives_the_same_numbers(paired):
    """kernel_solve(overwrite_targets=True) (Bivariate Shapley's n + 1 targets, whose fresh copies page-faulted:
    1.31 -> 1.16 of the univariate time at 100 features) gives the same solution and errors bit for bit; without
    it the caller's targets are left alone."""
    from interplay.estimators._sampling import bivariate_targets, kernel_sample, kernel_solve

    n = 12
    sample = kernel_sample(n, 600, np.random.default_rng(3), paired=paired)
    rng = np.random.default_rng(4)
    W = rng.normal(size=(n, 4))
    value = lambda Z: np.tanh(np.asarray(Z, float) @ W).sum(axis=1)  # noqa: E731
    ends = np.array([np.zeros(n, bool), np.ones(n, bool)])
    values = value(np.concatenate([ends, sample.coalitions]))
    targets, totals = bivariate_targets(sample.coalitions, values)
    kept = targets.copy()
    plain = kernel_solve(sample, targets, totals)
    np.testing.assert_array_equal(targets, kept)  # not written over
    over = kernel_solve(sample, targets, totals, overwrite_targets=True)
    np.testing.assert_array_equal(over.phi, plain.phi)
    np.testing.assert_array_equal(over.std_errors, plain.std_errors)


@pytest.mark.parametrize("n", [3, 64, 65, 100, 128, 129, 300])
def test_unique_keys_is_numpys_unique(n):
    """games.unique_keys: the same three arrays as np.unique(return_index, return_inverse) for the packed keys of
    coalitions with repeats (byte strings of 9-16 bytes by two big-endian words, the rest by numpy)."""
    from interplay.games import _packed_keys, unique_keys

    rng = np.random.default_rng(n)
    base = rng.random((40, n)) < 0.5
    base[:3] = False  # keys alike in their first 64 players, different after
    base[1, -1] = base[2, -2] = True
    coalitions = base[rng.integers(0, len(base), 300)]
    keys = _packed_keys(coalitions)
    got, expected = unique_keys(keys), np.unique(keys, return_index=True, return_inverse=True)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b.ravel() if b.ndim > 1 and a.ndim == 1 else b)
    assert len(got[0]) == len(np.unique(coalitions, axis=0))


@pytest.mark.parametrize("n", [65, 100, 128, 129, 300])
@pytest.mark.parametrize("shared_head", [False, True])
def test_unique_keys_of_distinct_coalitions(n, shared_head):
    """games.unique_keys on distinct coalitions (what a sampler hands the game): numpy's three arrays whether the
    first 64 players tell every key apart (the sort by one word) or two keys share them (the fallback)."""
    from interplay.games import _packed_keys, unique_keys

    rng = np.random.default_rng(n)
    coalitions = rng.random((500, n)) < 0.5
    if shared_head:  # two distinct keys alike in their first 64 players
        coalitions[7, :64] = coalitions[300, :64]
        coalitions[7, 64:] = ~coalitions[300, 64:]
    keys = _packed_keys(coalitions)
    got, expected = unique_keys(keys), np.unique(keys, return_index=True, return_inverse=True)
    for a, b in zip(got, expected):
        np.testing.assert_array_equal(a, b.ravel() if b.ndim > 1 and a.ndim == 1 else b)
    assert len(got[0]) == len(coalitions)


def test_a_forest_is_called_with_large_calls_from_the_start():
    """A scikit-learn forest loops over its trees in Python on every call (a fixed cost of most of a 1,000-row
    call): it starts with 16,384-row calls (a Pipeline ending in one too), other models with the cache-sized."""
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from interplay.models.adapters import ENSEMBLE_CALL_ROWS

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 12))
    y = X[:, 0] + X[:, 1] * X[:, 2]
    forest = RandomForestRegressor(n_estimators=5, random_state=0).fit(X, y)
    assert ip.Explainer(forest, X[:10]).model.call_rows == ENSEMBLE_CALL_ROWS
    assert ip.Explainer(make_pipeline(StandardScaler(), forest).fit(X, y), X[:10]).model.call_rows == \
        ENSEMBLE_CALL_ROWS
    for other in (GradientBoostingRegressor(n_estimators=5).fit(X, y), LinearRegression().fit(X, y)):
        assert ip.Explainer(other, X[:10]).model.call_rows is None
    calls = []
    ex = ip.Explainer(forest, X[:10], removal="marginal")
    fn = ex.model.fn
    ex.model.fn = lambda rows: (calls.append(len(rows)), fn(rows))[1]
    ex.shapley(X[20], method="kernel", budget=420, random_state=0)
    assert calls[-1] == 4200 and len(calls) <= 2  # (the output width is read on the first row)


def test_the_output_width_is_read_once_not_per_row():
    """The explainer reads the model's output width (a one-row call) once, not once per explained row: a
    500-tree forest's call costs about 15 ms whatever its rows. A new score function (output=) reads it again."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    calls = []

    def model(rows):
        calls.append(len(rows))
        return rows @ np.array([1.0, -2.0, 0.5])

    ex = ip.Explainer(model, X[:5], removal="marginal")
    calls.clear()
    ex.shapley(X[10:13], method="exact")
    assert calls.count(1) == 1 and sum(calls) == 1 + 3 * 2**3 * 5
    calls.clear()
    ex.shapley(X[13], method="exact")
    assert 1 not in calls


@pytest.mark.parametrize("n, rows, paired", [(2, 2, True), (5, 20, False), (9, 130, True), (40, 64, True),
                                             (65, 700, True), (100, 2046, True), (31, 500, False)])
def test_gram_counted_on_bits_is_the_single_precision_product(n, rows, paired, monkeypatch):
    """The compiled Gram counts (once numba is in use) give KernelSHAP's solve the same numbers bit for bit."""
    pytest.importorskip("numba")
    from interplay.estimators._sampling import kernel_sample, kernel_solve, weighted_gram
    from interplay.removal import _compiled

    previous = _compiled.use_select("compiled")
    try:
        assert _compiled.select_kernel(1) is not None and _compiled.gram_kernel() is not None
        sample = kernel_sample(n, rows, np.random.default_rng(n + rows), paired=paired)
        z = sample.coalitions
        head = sample.n_enumerated + len(sample.counts)
        design = (z[:head, :-1].astype(float) - z[:head, -1:])
        weights = sample.weights[:head] * (2.0 if paired else 1.0)
        targets = np.column_stack([np.tanh(z @ np.linspace(-1, 1, n)), z[:, 0] * z[:, -1]])
        counted = weighted_gram(design, weights, signs_only=True, membership=z[:head])
        solved = kernel_solve(sample, targets, np.array([0.3, 1.0]))
        monkeypatch.setattr(_compiled, "_GRAM", {"kernel": None, "failed": True})
        assert _compiled.gram_kernel() is None
        product = weighted_gram(design, weights, signs_only=True, membership=z[:head])
        upper = np.triu_indices(n - 1)
        np.testing.assert_array_equal(counted[upper], product[upper])
        again = kernel_solve(sample, targets, np.array([0.3, 1.0]))
        np.testing.assert_array_equal(solved.phi, again.phi)
        np.testing.assert_array_equal(solved.std_errors, again.std_errors)
    finally:
        _compiled.use_select(previous)


def test_the_gram_counts_wait_for_the_select_kernel(monkeypatch):
    """A short session (the select kernel not loaded) never loads numba for the Gram matrix."""
    from interplay.removal import _compiled

    monkeypatch.setattr(_compiled, "_state", {"numpy_cells": 0, "kernel": None, "failed": False, "mode": None})
    monkeypatch.setattr(_compiled, "_GRAM", {"kernel": None, "failed": False})
    assert _compiled.gram_kernel() is None and _compiled._GRAM == {"kernel": None, "failed": False}
