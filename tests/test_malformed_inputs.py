"""Property test (issue "Reliability", stretch): random malformed inputs (shapes, dtypes, NaN, inf, complex,
column names) to ``ip.shapley``, ``ip.Explainer(...).shapley`` and ``ip.run`` give either a correct result or a
ValueError/TypeError whose message starts with the name of the offending parameter."""

import tempfile

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import interplay as ip  # noqa: E402

pd = pytest.importorskip("pandas")

W = np.array([1.0, -2.0, 0.5])
NAMES = ["a", "b", "c"]
BACKGROUND = np.random.default_rng(0).normal(size=(4, 3))
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))


def model(X):
    return X @ W


def exact_values(rows):
    return (rows - BACKGROUND.mean(axis=0)) * W  # a linear model's marginal Shapley values


def _names_parameter(exc, parameters):
    head = str(exc).split(":", 1)[0]
    return isinstance(exc, (ValueError, TypeError)) and head in parameters


# finite values are bounded so that the model's own arithmetic cannot overflow (that error names the model)
floats = st.one_of(st.floats(-1e100, 1e100), st.sampled_from([np.nan, np.inf, -np.inf]))
scalars = st.one_of(floats, st.integers(-5, 5), st.booleans(),
                    st.complex_numbers(max_magnitude=10), st.text(max_size=3), st.none())
dtypes = st.sampled_from([np.float64, np.float32, np.int64, np.bool_, np.complex128, np.object_, "U2"])


@st.composite
def arrays(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    dtype = draw(dtypes)
    if dtype in (np.object_, "U2"):
        return np.array(draw(st.lists(scalars, min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))),
                        dtype=object).reshape(shape).astype(dtype)
    elements = {np.float64: floats, np.float32: st.floats(-1e6, 1e6, width=32),
                np.complex128: st.complex_numbers(max_magnitude=1e100)}.get(dtype)
    return draw(hnp.arrays(dtype, shape, elements=elements))


ragged = st.lists(st.lists(st.floats(-3, 3), min_size=0, max_size=4), min_size=1, max_size=3)
names = st.lists(st.sampled_from(["a", "b", "c", "d", "x0", "0"]), min_size=3, max_size=3)


@st.composite
def frames(draw):
    dtype = draw(st.sampled_from([np.float64, np.int64, np.complex128, np.bool_]))
    elements = {np.float64: floats, np.complex128: st.complex_numbers(max_magnitude=1e100)}.get(dtype)
    values = draw(hnp.arrays(dtype, (draw(st.integers(0, 3)), 3), elements=elements))
    frame = pd.DataFrame(values, columns=draw(names))
    if draw(st.booleans()) and len(frame):
        frame = frame.astype(object)
        frame.iloc[0, draw(st.integers(0, 2))] = draw(scalars)
    return frame


inputs = st.one_of(arrays(), ragged, frames(), scalars)


def _check_result(result, X):
    rows = (X.to_numpy(dtype=float) if hasattr(X, "columns") else np.asarray(X, dtype=float))
    rows = np.atleast_2d(rows)
    if hasattr(X, "columns") and list(X.columns) != NAMES and sorted(map(str, X.columns)) == NAMES:
        rows = X[NAMES].to_numpy(dtype=float)
    assert np.isfinite(result.values).all()
    expected = exact_values(rows)
    scale = max(1.0, float(np.abs(rows).max(initial=0.0)))
    np.testing.assert_allclose(result.values, expected, atol=1e-9 * scale, rtol=1e-9)


@SETTINGS
@given(X=inputs)
def test_explainer_shapley(X):
    explainer = ip.Explainer(model, pd.DataFrame(BACKGROUND, columns=NAMES))
    try:
        result = explainer.shapley(X)
    except Exception as exc:  # noqa: BLE001 - the property is about which exceptions
        assert _names_parameter(exc, {"X"}), repr(exc)
        return
    _check_result(result, X)


@SETTINGS
@given(background=inputs)
def test_explainer_background(background):
    try:
        explainer = ip.Explainer(model, background)
    except Exception as exc:  # noqa: BLE001
        assert _names_parameter(exc, {"background"}), repr(exc)
        return
    try:
        explainer.shapley(np.zeros((1, explainer.n_columns)))
    except Exception as exc:  # noqa: BLE001 - a background the model cannot take is named at the model call
        assert isinstance(exc, (ValueError, TypeError, RuntimeError)) and "model" in str(exc), repr(exc)


@SETTINGS
@given(budget=st.one_of(st.integers(-3, 40), st.floats(-1, 5), st.none(), st.text(max_size=2)),
       random_state=st.one_of(st.integers(-(2**65), 2**65), st.none(), st.floats(-1, 1), st.text(max_size=2)),
       method=st.sampled_from(["exact", "permutation", "kernel", "nope", 3]))
def test_shapley_parameters(budget, random_state, method):
    game = ip.Explainer(model, BACKGROUND).game(np.ones(3))
    try:
        result = ip.shapley(game, method=method, budget=budget, random_state=random_state)
    except Exception as exc:  # noqa: BLE001
        assert _names_parameter(exc, {"budget", "random_state", "method"}), repr(exc)
        return
    assert result.values.shape == (3,) and np.isfinite(result.values).all()
    if budget is not None and method != "exact":
        assert result.n_evaluations <= budget


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(X=inputs, chunk_size=st.one_of(st.integers(-1, 3), st.just(2.5)))
def test_run(X, chunk_size):
    explainer = ip.Explainer(model, pd.DataFrame(BACKGROUND, columns=NAMES))
    with tempfile.TemporaryDirectory() as out:
        try:
            result = ip.run(explainer, X, out=out, chunk_size=chunk_size, n_jobs=1, progress=False).explanation()
        except Exception as exc:  # noqa: BLE001
            assert _names_parameter(exc, {"X", "chunk_size"}), repr(exc)
            return
    _check_result(result, X)


@pytest.mark.parametrize("cell", [0j, np.inf, "x"])
def test_explainer_names_X_for_a_bad_object_column(cell):
    """An object column of a DataFrame (found by the property test above): the error names ``X``, not ``x``."""
    explainer = ip.Explainer(model, pd.DataFrame(BACKGROUND, columns=NAMES))
    X = pd.DataFrame({"a": pd.Series([cell, 1.0], dtype=object), "b": [0.0, 1.0], "c": [0.0, 2.0]})
    with pytest.raises((TypeError, ValueError), match=r"^X: "):
        explainer.shapley(X)
