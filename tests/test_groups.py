"""Feature groups and raw categorical columns: efficiency over groups, valid values under every removal,
a one-hot pipeline explained on raw columns equals the game built by hand."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interplay as ip
from interplay._bits import all_coalitions


def smooth(X):
    X = np.asarray(X, dtype=float)
    return np.tanh(X[:, 0] * X[:, 1]) + X[:, 2] ** 2 - X[:, 3] * X[:, 4] + 0.5 * X[:, 0]


@pytest.mark.parametrize("removal", ["marginal", "baseline", "conditional"])
def test_efficiency_over_groups_and_expanded_game(removal):
    rng = np.random.default_rng(0)
    bg, x = rng.normal(size=(15, 5)), rng.normal(size=5)
    groups = {"ab": [0, 1], "de": ["x3", "x4"]}
    grouped = ip.Explainer(smooth, bg, removal=removal, groups=groups)
    assert grouped.feature_names == ("ab", "de", "x2")
    game = grouped.game(x)
    phi = ip.shapley(game)
    assert phi.feature_names == ("ab", "de", "x2")
    assert phi.values.sum() == pytest.approx(game.grand_value() - game.empty_value(), abs=1e-12)
    assert game.grand_value() == pytest.approx(smooth(x[None])[0], abs=1e-12)
    # the grouped game is the column game restricted to coalitions that keep groups whole
    columns = ip.Explainer(smooth, bg, removal=removal).game(x)
    coalitions = all_coalitions(3)
    owner = np.array([0, 0, 2, 1, 1])
    np.testing.assert_allclose(game(coalitions), columns(coalitions[:, owner]), atol=1e-12)


def test_group_errors():
    bg = np.zeros((3, 5))
    with pytest.raises(ValueError, match="unknown column 'zz'"):
        ip.Explainer(smooth, bg, groups={"a": ["zz"]})
    with pytest.raises(ValueError, match="in two groups"):
        ip.Explainer(smooth, bg, groups=[[0, 1], [1, 2]])
    with pytest.raises(ValueError, match="out of range"):
        ip.Explainer(smooth, bg, groups=[[0, 9]])
    with pytest.raises(TypeError, match="groups: expected"):
        ip.Explainer(smooth, bg, groups=3)
    assert ip.Explainer(smooth, bg, groups=[[0, 1], [3, 4]]).feature_names == ("g0", "g1", "x2")


def _one_hot_data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    color = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    onehot = np.eye(3)[color]
    other = rng.normal(size=(n, 2))
    return np.c_[onehot, other]


@pytest.mark.parametrize("removal", ["marginal", "baseline", "conditional"])
def test_one_hot_block_keeps_valid_values(removal):
    X = _one_hot_data()
    seen = []

    def model(rows):
        seen.append(rows[:, :3].copy())
        return rows[:, :3] @ np.array([1.0, 2.0, 4.0]) + rows[:, 3] * rows[:, 0]

    explainer = ip.Explainer(model, X[:20], removal=removal, groups={"color": [0, 1, 2]})
    x = X[-1] if X[-1, 2] == 1 else np.r_[0, 0, 1, X[-1, 3:]]
    phi = ip.shapley(explainer.game(x))
    blocks = np.concatenate(seen)
    assert np.all(blocks.sum(axis=1) == 1) and np.isin(blocks, (0, 1)).all()  # every row one-hot
    assert phi.feature_names == ("color", "x3", "x4")
    if removal == "baseline":
        np.testing.assert_array_equal(explainer.reference[:3], [1, 0, 0])  # joint mode, not the column means


def test_categorical_columns_valid_under_every_removal():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"num": rng.normal(size=40), "cat": rng.choice(["lo", "mid", "hi"], size=40)})
    seen = []

    def model(df):
        seen.extend(df["cat"].tolist())
        return df["num"].to_numpy() * df["cat"].map({"lo": 1.0, "mid": 2.0, "hi": 3.0}).to_numpy()

    fn = ip.models.ModelFunction(model, "regressor", "frame model", columns=("num", "cat"))
    for removal in ("marginal", "baseline", "conditional"):
        explainer = ip.Explainer(fn, frame, removal=removal)
        assert explainer.raw
        x = frame.iloc[[0]]
        phi = ip.shapley(explainer.game(x))
        assert phi.values.sum() + phi.baseline == pytest.approx(model(frame.iloc[[0]])[0])
    assert set(seen) <= {"lo", "mid", "hi"}
    mode = frame["cat"].mode()[0]
    assert ip.Explainer(fn, frame, removal="baseline").reference[1] == mode


def test_one_hot_pipeline_on_raw_columns_equals_hand_built_game(tmp_path):
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    rng = np.random.default_rng(2)
    n = 150
    frame = pd.DataFrame({"age": rng.integers(18, 70, n), "color": rng.choice(["red", "green", "blue"], n),
                          "size": rng.normal(size=n), "city": pd.Categorical(rng.choice(["a", "b"], n))})
    y = ((frame["color"] == "red") ^ (frame["size"] > 0)).astype(int)
    pre = ColumnTransformer([("cat", OneHotEncoder(), ["color", "city"]), ("num", StandardScaler(), ["age", "size"])])
    pipe = make_pipeline(pre, LogisticRegression()).fit(frame, y)
    background, row = frame.iloc[:8], frame.iloc[[20]]
    explainer = ip.Explainer(pipe, background, target=1)
    assert explainer.feature_names == ("age", "color", "size", "city")
    phi = ip.shapley(explainer.game(row))

    columns = list(frame.columns)

    def by_hand(coalitions):  # one coalition at a time, one DataFrame per background row
        values = []
        for S in coalitions:
            hybrids = []
            for b in range(len(background)):
                hybrid = background.iloc[[b]].copy()
                for j, c in enumerate(columns):
                    if S[j]:
                        hybrid[c] = row[c].to_numpy()
                hybrids.append(hybrid)
            values.append(pipe.predict_proba(pd.concat(hybrids))[:, 1].mean())
        return np.array(values)

    expected = ip.shapley(ip.Game(by_hand, 4, columns))
    np.testing.assert_allclose(phi.values, expected.values, atol=1e-12)
    assert phi.baseline == pytest.approx(expected.baseline, abs=1e-12)
    # many rows, raw data kept in the explanation
    explanation = explainer.shapley(frame.iloc[20:22])
    assert explanation.info["raw_data"][0][1] == frame["color"].iloc[20]
    np.testing.assert_allclose(explanation.values[0], phi.values, atol=1e-12)
    for suffix in ("json", "npz"):  # raw categorical rows survive saving
        path = tmp_path / f"e.{suffix}"
        explanation.save(path)
        assert ip.Explanation.load(path).info["raw_data"] == explanation.info["raw_data"]


def test_cross_contribution_reduces_group_blocks_by_maximum():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1)).double()
    model = ip.models.TorchModel(net, dtype=torch.float64)
    bg = np.random.default_rng(0).normal(size=(8, 4))
    x = np.array([0.5, -1.0, 0.25, 2.0])
    full = ip.Explainer(model, bg).cross_contribution(x)
    grouped = ip.Explainer(model, bg, groups={"ab": [0, 1], "d": [3]}).cross_contribution(x)
    assert grouped.shape == (3, 3)  # features: ab, d, x2
    blocks = [[0, 1], [3], [2]]
    expected = np.array([[full[np.ix_(a, b)].max() for b in blocks] for a in blocks])
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_allclose(grouped, expected)
    assert grouped[0, 1] == max(full[0, 3], full[1, 3]) and grouped[0, 1] > 0


def test_raw_object_array_for_a_dataframe_model():
    pytest.importorskip("pandas")
    fn = ip.models.ModelFunction(lambda df: df["n"].to_numpy() * (df["c"] == "y").to_numpy(), "regressor", "m",
                                 columns=("n", "c"))
    bg = np.array([[1.0, "x"], [2.0, "y"], [3.0, "y"]], dtype=object)
    explainer = ip.Explainer(fn, bg, removal="baseline", baseline="mode")
    assert explainer.raw and explainer.feature_names == ("n", "c")
    phi = ip.shapley(explainer.game([[5.0, "y"]]))
    assert phi.values.sum() + phi.baseline == pytest.approx(5.0)
    with pytest.raises(TypeError, match="background: expected numeric values"):
        ip.Explainer(lambda X: X[:, 0], bg)


def test_zero_baseline_keeps_categorical_columns_valid():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"n": [1.0, 2.0, 3.0], "c": ["x", "y", "y"]})
    fn = ip.models.ModelFunction(lambda df: df["n"].to_numpy() * (df["c"] == "y").to_numpy(), "regressor", "m",
                                 columns=("n", "c"))
    reference = ip.Explainer(fn, frame, removal="baseline", baseline="zero").reference
    assert reference[0] == 0.0 and reference[1] == "y"


def test_integer_and_boolean_raw_columns_keep_valid_references():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"age": [20, 31, 40, 50], "flag": [True, False, True, True], "c": ["x", "y", "y", "x"]})
    seen = []

    def model(df):
        seen.append(df.copy())
        return df["age"].to_numpy(dtype=float) + df["flag"].to_numpy(dtype=float) + (df["c"] == "y").to_numpy()

    fn = ip.models.ModelFunction(model, "regressor", "m", columns=("age", "flag", "c"))
    explainer = ip.Explainer(fn, frame, removal="baseline")
    np.testing.assert_array_equal(explainer.reference, np.array([35.25, True, "x"], dtype=object))
    phi = ip.shapley(explainer.game(frame.iloc[[1]]))
    assert phi.baseline == pytest.approx(35.25 + 1.0)  # the mean age is not truncated to an integer
    assert phi.values.sum() + phi.baseline == pytest.approx(31 + 0 + 1)
    assert all(df["flag"].dtype == bool and df["c"].isin(["x", "y"]).all() for df in seen)



@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=6, max_size=6), st.integers(0, 2**31 - 1))
def test_random_partitions_keep_efficiency_and_expand(labels, seed):
    rng = np.random.default_rng(seed)
    bg, x = rng.normal(size=(4, 6)), rng.normal(size=6)
    f = lambda X: np.sin(X[:, 0] * X[:, 5]) + X[:, 1] * X[:, 2] * X[:, 3] - X[:, 4]  # noqa: E731
    groups = {f"G{g}": [j for j in range(6) if labels[j] == g] for g in sorted(set(labels))}
    explainer = ip.Explainer(f, bg, groups=groups)
    game = explainer.game(x)
    phi = ip.shapley(game)
    assert phi.values.sum() == pytest.approx(f(x[None])[0] - f(bg).mean(), abs=1e-12)
    owner = np.array([list(groups).index(f"G{labels[j]}") for j in range(6)])
    coalitions = all_coalitions(len(groups))
    columns = ip.Explainer(f, bg).game(x)
    np.testing.assert_allclose(game(coalitions), columns(coalitions[:, owner]), atol=1e-12)


def test_background_columns_must_match_the_model():
    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import LinearRegression

    frame = pd.DataFrame({"a": [0.0, 1.0, 2.0], "b": [1.0, 0.0, 1.0]})
    model = LinearRegression().fit(frame, [0.0, 1.0, 3.0])
    swapped = ip.Explainer(model, frame[["b", "a"]])  # same columns, other order: reordered
    assert swapped.feature_names == ("a", "b")
    phi = ip.shapley(swapped.game(frame.iloc[[2]][["b", "a"]]))
    assert phi.values.sum() + phi.baseline == pytest.approx(model.predict(frame.iloc[[2]])[0])
    with pytest.raises(ValueError, match="differ from the columns the model was fitted on"):
        ip.Explainer(model, frame.assign(c=1.0))


def test_given_baseline_with_a_category_the_background_never_holds_is_warned():
    # an encoder that ignores unknown categories turns such a reference into all-zero indicators, a row the
    # model never saw: the explanation then measures the distance to that row, silently
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"n": [1.0, 2.0, 3.0], "c": ["x", "y", "y"]})
    fn = ip.models.ModelFunction(lambda df: df["n"].to_numpy() * (df["c"] == "y").to_numpy(), "regressor", "m",
                                 columns=("n", "c"))
    with pytest.warns(UserWarning, match=r"baseline: .*'c': \[1\]"):
        ip.Explainer(fn, frame, removal="baseline", baseline=[2.0, 1])  # a code, not the category's name
    with pytest.warns(UserWarning, match=r"baseline: .*'c': \['z'\]"):
        ip.Explainer(fn, frame, removal="baseline", baseline={"n": 2.0, "c": "z"})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a value of the background (and any number in a numeric column): silent
        ip.Explainer(fn, frame, removal="baseline", baseline={"n": 7.5, "c": "x"})


def test_joint_mode_of_a_group_with_no_repeated_row_is_warned():
    # a group holding a categorical column takes its joint mode under every baseline; with a continuous column in
    # it, every joint row was distinct and the first background row's values were taken silently
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"n": [1.5, 2.25, 3.0, 4.75], "c": ["x", "y", "y", "x"], "m": [1.0, 2.0, 3.0, 4.0]})
    fn = ip.models.ModelFunction(lambda df: df["n"].to_numpy() * (df["c"] == "y").to_numpy() + df["m"].to_numpy(),
                                 "regressor", "m", columns=("n", "c", "m"))
    for baseline in ("mean", "median", "mode"):
        with pytest.warns(UserWarning, match=r"baseline=.*group \['n', 'c'\] has no repeated joint value"):
            ip.Explainer(fn, frame, removal="baseline", baseline=baseline, groups={"nc": ["n", "c"]})
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a repeated joint value: its mode is no accident
        ip.Explainer(fn, frame.assign(n=[1.0, 2.0, 2.0, 1.0]), removal="baseline", groups={"nc": ["n", "c"]})


@pytest.mark.parametrize("method", ["exact", "auto"])
def test_interactions_and_bivariate_of_groups_keep_their_columns_through_a_save(tmp_path, method):
    """An Explanation of a grouped explainer records each group's columns (info["groups"]); its interactions and
    Bivariate matrix did not, so once saved nobody could tell which columns made "ab"."""
    rng = np.random.default_rng(0)
    bg, x = rng.normal(size=(15, 5)), rng.normal(size=5)
    ex = ip.Explainer(smooth, bg, groups={"ab": [0, 1], "de": ["x3", "x4"]})
    expected = {"ab": ["x0", "x1"], "de": ["x3", "x4"]}
    assert ex.shapley(x, method=method).info["groups"] == expected
    for result in (ex.interactions(x, method=method), ex.bivariate(x, method=method)):
        assert result.info["groups"] == expected
        path = ip.save(result, tmp_path / f"{type(result).__name__}.json")
        assert ip.load(path).info["groups"] == expected
    assert "groups" not in ip.Explainer(smooth, bg).interactions(x, method="exact").info
