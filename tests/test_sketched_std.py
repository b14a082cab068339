"""The sign sketch of the sandwich's sums (``_sampling.sketched_squares``): unbiased over the signs, exact with one
unit per block, close to the exact standard errors where ``kernel_solve`` uses it, and calibrated intervals."""

import dataclasses

import numpy as np
import pytest

import interplay as ip
from interplay.estimators import _leverage
from interplay.estimators import _sampling as sampling


def _exact_squares(inverse, vectors):
    return np.square(sampling._projected_units(inverse, vectors)).sum(axis=1)


def _problem(units, d, seed):
    rng = np.random.default_rng(seed)
    x = (rng.random((units, d)) < 0.5).astype(float)
    inverse = np.linalg.inv(x.T @ x + np.eye(d))
    scale = rng.standard_normal(units) * rng.exponential(size=units)  # a few units dominate
    centres = rng.standard_normal((3, d))
    centre_scale = rng.random(units)
    centre_of = rng.integers(0, 3, units)
    vectors = scale[:, None] * x - centre_scale[:, None] * centres[centre_of]
    return inverse, x, scale, centres, centre_scale, centre_of, vectors


@pytest.mark.parametrize("units, groups", [(50, 7), (64, 16), (203, 20)])
def test_sketch_is_unbiased_over_the_signs(units, groups):
    inverse, x, scale, centres, centre_scale, centre_of, vectors = _problem(units, 6, units)
    exact = _exact_squares(inverse, vectors)
    rng = np.random.default_rng(0)
    draws = np.array([
        sampling.sketched_squares(inverse, x, scale, rng.choice([-1.0, 1.0], units), centres, centre_scale,
                                  centre_of, groups=groups)
        for _ in range(3000)])
    mean, se = draws.mean(axis=0), draws.std(axis=0, ddof=1) / np.sqrt(len(draws))
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)
    assert np.all(draws.std(axis=0) > 1e-3 * exact)  # the sketch is not exact here: the test can fail


@pytest.mark.parametrize("units, groups", [(30, 30), (30, 64)])
def test_sketch_with_one_unit_per_block_is_exact(units, groups):
    inverse, x, scale, centres, centre_scale, centre_of, vectors = _problem(units, 5, 1)
    signs = np.random.default_rng(2).choice([-1.0, 1.0], units)
    got = sampling.sketched_squares(inverse, x, scale, signs, centres, centre_scale, centre_of, groups=groups)
    np.testing.assert_allclose(got, _exact_squares(inverse, vectors), rtol=1e-12)


def _samples(n, budget):
    kernel = sampling.kernel_sample(n, budget, np.random.default_rng(0), paired=True)
    leverage = _leverage.leverage_sample(n, budget, np.random.default_rng(0))
    return {"kernel": kernel, "leverage": leverage}


def _solve(sample, n, targets=1):
    W = np.random.default_rng(n).normal(size=(n, 16))
    y = np.tanh(sample.coalitions @ W).sum(axis=1)
    y = np.column_stack([y * (t + 1) + np.sin(sample.coalitions[:, t]) for t in range(targets)])
    return sampling.kernel_solve(sample, y, np.arange(1.0, targets + 1))


def _with_single_unit_strata(sample):
    """The leverage sample with two of its units moved into strata of their own (leverage samples with standard
    errors hardly ever have one; both paths read the same strata)."""
    strata = sample.strata.copy()
    extra = len(sample.stratum_sizes)
    strata[[0, 7]] = [extra, extra + 1]
    return dataclasses.replace(sample, strata=strata,
                               stratum_sizes=np.concatenate([sample.stratum_sizes, [5.0, 1.0]]))


@pytest.mark.parametrize("kind, budget", [("kernel", 4000), ("leverage", 4000), ("kernel", 300), ("single", 1000)])
def test_sketch_with_a_block_per_unit_equals_the_exact_standard_errors(kind, budget, monkeypatch):
    """Every centring (the mean over draws with enumerated sizes, the strata's means) and scale of the sketched
    path, checked against the exact path: with a block per unit the sketch is exact. Small budgets: repeated
    draws (kernel) and strata of one unit (leverage), with the sketch forced."""
    n = 60
    sample = _samples(n, budget)["leverage" if kind == "single" else kind]
    if kind == "single":
        sample = _with_single_unit_strata(sample)
    units = len(sample.counts)
    if budget == 4000:
        assert sampling.use_sketch(units, n)
    if kind == "kernel" and budget == 4000:
        assert sample.n_enumerated > 0  # the mean part is not zero: its centring is tested
    if kind == "kernel" and budget == 300:
        assert sample.counts.max() > 1  # repeated units: the counts' scaling is tested
    if kind == "single":
        k = np.bincount(sample.strata)
        assert np.any(k == 1) and np.any(k > 1)  # single-unit strata (not centred) beside centred ones
    monkeypatch.setattr(sampling, "SKETCH_MIN_UNITS", 10**9)
    exact = _solve(sample, n, targets=2)
    monkeypatch.setattr(sampling, "SKETCH_MIN_UNITS", 1)
    monkeypatch.setattr(sampling, "SKETCH_MIN_WORK", 0)
    monkeypatch.setattr(sampling, "SKETCH_GROUPS", units)
    sketched = _solve(sample, n, targets=2)
    np.testing.assert_array_equal(sketched.phi, exact.phi)
    np.testing.assert_allclose(sketched.std_errors, exact.std_errors, rtol=1e-9)


@pytest.mark.parametrize("kind", ["kernel", "leverage"])
def test_sketched_standard_errors_are_close_to_the_exact_ones(kind, monkeypatch):
    n = 60
    sample = _samples(n, 4000)[kind]
    sketched = _solve(sample, n)
    again = _solve(sample, n)
    np.testing.assert_array_equal(sketched.std_errors, again.std_errors)  # fixed signs: deterministic
    monkeypatch.setattr(sampling, "SKETCH_MIN_UNITS", 10**9)
    exact = _solve(sample, n)
    ratio = sketched.std_errors[:, 0] / exact.std_errors[:, 0]
    assert abs(ratio.mean() - 1) < 0.03, ratio.mean()
    assert 0.1 > ratio.std() > 1e-3, ratio.std()  # about 1/sqrt(2 * 100) = 0.07; not exact
    assert np.all((ratio > 0.7) & (ratio < 1.4)), ratio


def test_bivariate_sketches_only_the_shapley_values(monkeypatch):
    n = 60
    sample = _samples(n, 4000)["kernel"]
    many = _solve(sample, n, targets=sampling.SKETCH_MAX_TARGETS + 2)
    first = _solve(sample, n, targets=1)
    np.testing.assert_allclose(many.std_errors[:, 0], first.std_errors[:, 0], rtol=1e-12)
    monkeypatch.setattr(sampling, "SKETCH_MIN_UNITS", 10**9)
    exact = _solve(sample, n, targets=sampling.SKETCH_MAX_TARGETS + 2)
    np.testing.assert_allclose(many.std_errors[:, 1:], exact.std_errors[:, 1:], rtol=1e-10)
    assert not np.allclose(many.std_errors[:, 0], exact.std_errors[:, 0], rtol=1e-6)


def _moebius(n, terms, seed):
    rng = np.random.default_rng(seed)
    sets = [rng.choice(n, size=rng.integers(1, 4), replace=False) for _ in range(terms)]
    weights = rng.normal(size=terms)

    def value(S):
        S = np.asarray(S, dtype=bool)
        return sum(w * S[:, T].all(axis=1) for w, T in zip(weights, sets))

    return value


@pytest.mark.parametrize("method, budget", [("kernel", 300), ("leverage", 300)])
def test_sketched_intervals_cover_the_truth(method, budget, monkeypatch):
    """With the sketch forced on a small game (16 blocks for about 140 units), 95% intervals still cover."""
    monkeypatch.setattr(sampling, "SKETCH_MIN_UNITS", 1)
    monkeypatch.setattr(sampling, "SKETCH_MIN_WORK", 0)
    monkeypatch.setattr(sampling, "SKETCH_GROUPS", 16)
    n = 10
    fn = _moebius(n, 40, seed=5)
    exact = ip.shapley(ip.Game(fn, n), method="exact").values
    inside = []
    for seed in range(120):
        r = ip.shapley(ip.Game(fn, n), method=method, budget=budget, random_state=seed)
        inside.append(np.abs(r.values - exact) <= 1.96 * r.std_errors)
    coverage = np.mean(inside)
    assert 0.88 <= coverage <= 0.99, coverage


def test_proxy_chooses_by_exact_standard_errors(monkeypatch):
    """ProxySHAP keeps its surrogate only if the residual regression's errors are smaller: that choice (and so the
    values) must not move with the sketch's noise. With a crude sketch forced (2 blocks), the values and the
    choice are those without the sketch."""
    pytest.importorskip("sklearn")
    n = 10
    fn = _moebius(n, 40, seed=7)
    monkeypatch.setattr(sampling, "SKETCH_MIN_UNITS", 10**9)
    plain = [ip.shapley(ip.Game(fn, n), method="proxy", budget=300, random_state=s) for s in range(6)]
    monkeypatch.setattr(sampling, "SKETCH_MIN_UNITS", 1)
    monkeypatch.setattr(sampling, "SKETCH_MIN_WORK", 0)
    monkeypatch.setattr(sampling, "SKETCH_GROUPS", 2)
    sketched = [ip.shapley(ip.Game(fn, n), method="proxy", budget=300, random_state=s) for s in range(6)]
    for a, b in zip(plain, sketched):
        assert a.info["surrogate_used"] == b.info["surrogate_used"]
        np.testing.assert_array_equal(a.values, b.values)
        np.testing.assert_array_equal(a.std_errors, b.std_errors)


def test_info_says_when_the_standard_errors_were_sketched():
    n = 60
    W = np.random.default_rng(n).normal(size=(n, 16))

    def value(S):
        return np.tanh(np.asarray(S, dtype=float) @ W).sum(axis=1)

    for method in ("kernel", "leverage"):
        big = ip.shapley(ip.Game(value, n), method=method, budget=4000, random_state=0)
        assert big.info["std_errors_sketched"] == sampling.SKETCH_GROUPS
        small = ip.shapley(ip.Game(value, n), method=method, budget=400, random_state=0)
        assert small.std_errors is not None and "std_errors_sketched" not in small.info
        off = ip.shapley(ip.Game(value, n), method=method, budget=4000, random_state=0, std_errors=False)
        assert off.std_errors is None and "std_errors_sketched" not in off.info
        matrix = ip.bivariate(ip.Game(value, n), method=method, budget=4000, random_state=0)
        assert matrix.univariate.info["std_errors_sketched"] == sampling.SKETCH_GROUPS
