"""Readability of the plots: value labels inside the axes, feature values printed as people write them, a heatmap
of bounded size, a clear error on a dict of per-class results; and ``python -m interplay``."""

import subprocess
import sys

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import interplay as ip  # noqa: E402
from interplay import plot  # noqa: E402
from interplay.plot._common import format_value  # noqa: E402

NAMES = ["age", "fnlwgt", "hours"]


def _rows():
    """Adult-like rows: integer ages, large integer weights (fnlwgt 83311 in the first row), a float column."""
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.integers(20, 70, 30), rng.integers(20000, 400000, 30), rng.normal(40, 5, 30)])
    x[0] = [50, 83311, 13.25]
    return x.astype(float)


def _linear(x):
    """A callable regression model on the three columns."""
    return 0.1 * x[:, 0] - 1e-5 * x[:, 1] + 0.2 * x[:, 2]


@pytest.fixture(scope="module")
def explanation():
    x = _rows()
    return ip.Explainer(_linear, x[10:], feature_names=NAMES).shapley(x[:5])


def _tick_texts(ax):
    return [t.get_text() for t in ax.get_yticklabels()]


# ---------------------------------------------------------------------------------------------- value labels
def _check_labels_inside(ax):
    """Every value label lies within the axes' x extent and overlaps no y tick label."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box = ax.get_window_extent(renderer)
    ticks = [t.get_window_extent(renderer) for t in ax.get_yticklabels() if t.get_text()]
    assert ax.texts
    for text in ax.texts:
        extent = text.get_window_extent(renderer)
        assert box.x0 - 0.5 <= extent.x0 and extent.x1 <= box.x1 + 0.5, (text.get_text(), extent, box)
        assert not any(extent.overlaps(t) for t in ticks), text.get_text()


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_waterfall_value_labels_stay_inside_the_axes(sign):
    # the steps end where a bar starts (a sticky edge that stopped ax.margins): the last label ran out of the axes
    values = sign * np.array([-3.0, 2.0, -1.5, 0.5])
    result = ip.Attribution(values, 0.0, ["fnlwgt", "age", "hours", "sex"], 16, "exact",
                            data=np.array([83311.0, 50.0, 13.25, "Male"], dtype=object))
    _check_labels_inside(plot.waterfall(result))


def test_value_labels_inside_on_a_model_row(explanation):
    for i in range(len(explanation)):
        _check_labels_inside(plot.waterfall(explanation[i]))
        _check_labels_inside(plot.bar(explanation[i]))
        plt.close("all")


def test_bar_value_labels_stay_inside_the_axes():
    result = ip.Attribution(np.array([0.9, 0.5, 0.2]), 0.0, ["a", "b", "c"], 8, "exact")
    _check_labels_inside(plot.bar(result))
    _check_labels_inside(plot.bar(-result.values, feature_names=["a", "b", "c"]))


# ---------------------------------------------------------------------------------------------- feature values
def test_integer_feature_values_are_printed_as_integers(explanation):
    for draw in (plot.bar, plot.waterfall):
        labels = _tick_texts(draw(explanation[0]))
        assert "fnlwgt = 83311" in labels and "age = 50" in labels and "hours = 13.25" in labels, labels
        assert not any("e+" in label or "e-" in label for label in labels), labels


@pytest.mark.parametrize("value, text", [
    (83311.0, "83311"), (np.float32(83311), "83311"), (np.int64(7), "7"), (-2.0, "-2"), (1234567.0, "1234567"),
    (0.123456, "0.1235"), (12.3456, "12.35"), (1234.5678, "1234.6"), (13.25, "13.25"), (0.0001234, "0.0001234"),
    ("Bachelors", "Bachelors"), (np.nan, "missing"), (None, "missing"), (True, "True"),
])
def test_format_value(value, text):
    assert format_value(value) == text


def test_value_labels_of_large_attributions_in_plain_notation():
    ax = plot.waterfall(np.array([-5000.0, -3000.0, 250.5]), feature_names=["a", "b", "c"])
    texts = [t.get_text().strip() for t in ax.texts]
    assert texts == ["+250.5", "-3000", "-5000"] and "e+" not in ax.get_xlabel(), (texts, ax.get_xlabel())


# ---------------------------------------------------------------------------------------------- heatmap size
def _wide_matrix(n=108, strong=(3, 40, 77)):
    rng = np.random.default_rng(1)
    m = rng.normal(scale=0.01, size=(n, n))
    m = (m + m.T) / 2
    for i in strong:
        m[i, :] += 1.0
        m[:, i] += 1.0
    return m, [f"onehot_{i}" for i in range(n)]


def test_heatmap_max_features_and_bounded_size():
    m, names = _wide_matrix()
    ax = plot.heatmap(m, feature_names=names)  # default: as bar and beeswarm, 12 features
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 12 and {"onehot_3", "onehot_40", "onehot_77"} <= set(labels)
    assert "12 of 108" in ax.get_xlabel()
    assert ax.figure.get_size_inches()[1] < 10
    plt.close("all")
    ax = plot.heatmap(m, feature_names=names, max_features=3)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["onehot_3", "onehot_40", "onehot_77"]
    plt.close("all")
    ax = plot.heatmap(m, feature_names=names, max_features=None)
    assert len(ax.get_yticklabels()) == 108
    assert max(ax.figure.get_size_inches()) <= 15


def test_heatmap_of_few_features_is_unchanged():
    ax = plot.heatmap(np.eye(3), feature_names=list("abc"))
    assert [t.get_text() for t in ax.get_xticklabels()] == list("abc") and ax.get_xlabel() == ""


# ---------------------------------------------------------------------------------------------- dict of classes
@pytest.fixture(scope="module")
def per_class():
    def softmax(x):
        z = np.column_stack([x[:, 0] / 50, x[:, 1] / 2e5, x[:, 2] / 40])
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    x = _rows()
    return ip.Explainer(softmax, x[10:], feature_names=NAMES, target="all").shapley(x[:4])


@pytest.mark.parametrize("name, parameter", [
    ("bar", "result"), ("waterfall", "result"), ("beeswarm", "explanation"), ("scatter", "explanation"),
    ("heatmap", "result"), ("graph", "result"), ("gamma_sweep", "result"), ("text", "result"), ("image", "result"),
])
def test_a_dict_of_classes_is_a_clear_error(per_class, name, parameter):
    assert isinstance(per_class, dict) and sorted(per_class) == [0, 1, 2]
    args = (per_class, "age") if name == "scatter" else (per_class,)
    with pytest.raises(TypeError) as caught:
        getattr(plot, name)(*args)
    message = str(caught.value)
    assert message.startswith(f"{parameter}:"), message
    assert "pick one class" in message and "[0, 1, 2]" in message and f"ip.plot.{name}({parameter}[0])" in message
    plot.bar(per_class[0])  # one class draws


# ---------------------------------------------------------------------------------------------- python -m
def test_python_dash_m_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "interplay", "--help"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Usage:" in done.stdout and "explain" in done.stdout and "report" in done.stdout
