"""Review of Interactions results: the pairwise views of an order-3 result say what they leave out."""

import warnings

import numpy as np
import pytest

import interplay as ip

NAMES = ["age", "income", "score", "height", "weight", "tenure"]


def _triple_game():
    """A triple (age, income, score) of weight 5, a pair (height, weight) of weight 1, tenure alone 0.5."""
    def v(Z):
        Z = np.asarray(Z, bool).astype(float)
        return 5 * Z[:, 0] * Z[:, 1] * Z[:, 2] + Z[:, 3] * Z[:, 4] + 0.5 * Z[:, 5]

    return ip.Game(v, 6, feature_names=NAMES)


@pytest.fixture(scope="module")
def stii3():
    return ip.interactions(_triple_game(), index="stii", order=3, method="exact")


def test_larger_subsets_counts_what_a_matrix_leaves_out(stii3):
    assert stii3.larger_subsets() == (20, pytest.approx(5.0))
    assert stii3.larger_subsets_note() == "20 subsets of 3 features (largest |value| 5) left out"
    pairs = ip.interactions(_triple_game(), index="stii", order=2, method="exact")
    assert pairs.larger_subsets() == (0, 0.0) and pairs.larger_subsets_note() == ""


def test_heatmap_of_an_order3_result_says_the_triples_are_left_out(stii3):
    """The Shapley-Taylor triple (5, the largest value) was drawn as nothing, and the picture said nothing."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = ip.plot.heatmap(stii3)
    label = ax.get_xlabel().replace("\n", " ")
    plt.close("all")
    assert "20 subsets of 3 features (largest |value| 5) left out" in label
    ax = ip.plot.heatmap(ip.interactions(_triple_game(), index="stii", order=2, method="exact"))
    assert ax.get_xlabel() == ""  # nothing left out: no note
    plt.close("all")


def test_wide_matrix_of_an_order3_result_warns(stii3):
    with pytest.warns(UserWarning, match=r"to_pandas\(tidy=False\).*order-3 stii.*20 subsets of 3 features"):
        frame = stii3.to_pandas(tidy=False)
    assert frame.shape == (6, 6)
    pairs = ip.interactions(_triple_game(), index="stii", order=2, method="exact")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pairs.to_pandas(tidy=False)


def test_repr_and_graph_name_the_triples(stii3):
    assert "+ 20 subsets of 3 features, largest |value| 5" in repr(stii3)
    graph = stii3.graph()
    assert graph.info["left_out"] == "20 subsets of 3 features (largest |value| 5) left out"
    assert "The graph holds pairs only: 20 subsets of 3 features" in graph.describe()
    order4 = ip.interactions(_triple_game(), index="moebius", order=4, method="exact")
    assert order4.larger_subsets_note().startswith("35 subsets of 3 to 4 features")


def _table_game(n, seed=0):
    table = np.random.default_rng(seed).normal(size=2**n)
    return ip.Game(lambda Z: table[(np.asarray(Z, bool) * (1 << np.arange(n))).sum(axis=1)], n)


def test_a_minimum_budget_above_enumeration_names_exact():
    """Shapley-Taylor pairs by permutation need 81 evaluations on 6 players, more than the 64 of enumeration;
    the error asked for 81 without saying that 64 give the exact values."""
    with pytest.raises(ValueError, match=r"needs at least 81 evaluations for 6 players, got 63; exact enumeration "
                                         r"\(method='exact'\) needs only 2\*\*6 = 64"):
        ip.interactions(_table_game(6), index="stii", order=2, method="permutation", budget=63)
    with pytest.raises(ValueError, match=r"needs at least \d+ evaluations for 8 players, got 20$"):
        ip.interactions(_table_game(8), index="stii", order=2, method="permutation", budget=20)


def test_to_shapiq_of_an_enumerated_sampler_result_is_not_estimated():
    """A sampler whose budget covers every coalition returns the exact values (info['enumerated']); to_shapiq
    marked them estimated=True."""
    pytest.importorskip("shapiq")
    result = ip.interactions(_table_game(5), index="sii", order=2, method="permutation", budget=32)
    assert result.info["enumerated"] and result.method == "permutation"
    assert result.to_shapiq().estimated is False
    sampled = ip.interactions(_table_game(5), index="sii", order=2, method="permutation", budget=31,
                              random_state=0)
    assert sampled.to_shapiq().estimated is True


def test_baseline_is_a_python_float_before_and_after_saving(tmp_path):
    result = ip.interactions(_table_game(4), index="sii", order=2, method="exact")
    assert type(result.baseline) is float and type(result.n_evaluations) is int
    result.save(tmp_path / "r.json")
    assert type(ip.Interactions.load(tmp_path / "r.json").baseline) is float


def test_bar_writes_round_off_beside_the_largest_value_as_zero():
    """ip.plot.bar of a sampled order-3 result wrote '+1.12e-13' on bars next to a bar of 5."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    values = ip.Attribution(np.array([5.0, 1.12e-13, -0.5]), 0.0, ("a", "b", "c"), 8, "exact")
    ax = ip.plot.bar(values)
    labels = [t.get_text().strip() for t in ax.texts]
    assert not any("e-13" in label for label in labels) and any(label in ("0", "+0") for label in labels)
    plt.close("all")
