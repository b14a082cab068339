"""Features whose value in x equals every reference row's are null players: the Explainer gives them exact zeros
and explains the others as a smaller game (interplay.fixed_players); exact on every index it reduces."""

from dataclasses import replace

import numpy as np
import pytest

import interplay as ip

D = 7
NULL = [1, 4]


def setup(removal="marginal", seed=0):
    rng = np.random.default_rng(seed)
    W, V = rng.normal(size=(D, 6)), rng.normal(size=6)

    def model(X):
        return np.tanh(np.asarray(X, dtype=float) @ W) @ V + 0.3 * X[:, 0] * X[:, 2] * X[:, 3]

    background = rng.normal(size=(12, D))
    x = rng.normal(size=(1, D))
    background[:, NULL] = x[0, NULL]  # the same value in every background row: the model cannot see them removed
    if removal == "baseline":
        baseline = background[0]  # x's own values at the null players
        return ip.Explainer(model, removal="baseline", baseline=baseline, feature_names=[f"f{i}" for i in range(D)]), x
    return ip.Explainer(model, background, removal=removal), x


def test_exact_values_equal_the_whole_game_and_null_players_are_zero():
    ex, x = setup()
    whole = ex.game(x)
    full = ip.shapley(whole, method="exact")
    assert np.abs(full.values[NULL]).max() < 1e-12  # they are null players of the whole game
    reduced = ex.shapley(x, method="exact")
    np.testing.assert_allclose(reduced.values[0], full.values, atol=1e-12)
    assert np.all(reduced.values[0, NULL] == 0.0)
    assert ex.banzhaf(x, method="exact").values[0, NULL].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(ex.banzhaf(x, method="exact").values[0], ip.banzhaf(whole, method="exact").values,
                               atol=1e-12)


@pytest.mark.parametrize("index", ["sii", "bii", "moebius"])
def test_exact_interactions_equal_the_whole_game(index):
    ex, x = setup()
    full = ip.interactions(ex.game(x), index=index, order=2, method="exact")
    reduced = ex.interactions(x, index=index, order=2, method="exact")
    assert set(reduced.values) == set(full.values)
    for key, value in full.values.items():
        assert reduced.values[key] == pytest.approx(value, abs=1e-12)
        if set(key) & set(NULL):
            assert reduced.values[key] == 0.0
    assert reduced.info["null_players"] == ["x1", "x4"] or reduced.info["null_players"] == [
        ex.feature_names[i] for i in NULL]


def test_exact_bivariate_equals_the_whole_game():
    """Entries between other players are the smaller game's, column d is zero, row d is the closed form of
    fixed_players (checked here against the whole game)."""
    ex, x = setup()
    full = ip.bivariate(ex.game(x), method="exact")
    reduced = ex.bivariate(x, method="exact")
    np.testing.assert_allclose(reduced.adjacency, full.adjacency, atol=1e-12)
    np.testing.assert_allclose(reduced.univariate.values, full.univariate.values, atol=1e-12)
    assert np.all(reduced.adjacency[:, NULL] == 0.0)


@pytest.mark.parametrize("method", ["auto", "kernel", "leverage", "permutation"])
def test_samplers_give_null_players_exact_zeros_and_spend_the_budget_on_the_others(method):
    ex, x = setup()
    result = ex.shapley(x, method=method, budget=60, random_state=0)
    assert result.values[0, NULL].tolist() == [0.0, 0.0]
    assert result.n_evaluations[0] <= 60
    plain = ip.shapley(ex.game(x), method=method, budget=60, random_state=0)
    assert np.abs(plain.values[NULL]).max() > 0 or method == "permutation"  # the whole game gives them noise


def test_bivariate_univariate_still_equals_shapley_with_the_same_seed():
    ex, x = setup()
    shapley = ex.shapley(x, method="auto", budget=80, random_state=3)
    bivariate = ex.bivariate(x, method="auto", budget=80, random_state=3)
    np.testing.assert_allclose(bivariate.univariate.values, shapley.values[0], atol=1e-12)


def test_baseline_removal_and_groups():
    ex, x = setup("baseline")
    assert ex.shapley(x, method="kernel", budget=40, random_state=0).values[0, NULL].tolist() == [0.0, 0.0]
    rng = np.random.default_rng(1)
    background = rng.normal(size=(10, 4))
    x = rng.normal(size=(1, 4))
    background[:, [0, 1]] = x[0, [0, 1]]  # group a: both columns fixed; group b: one of its columns varies
    background[:, 2] = x[0, 2]
    ex = ip.Explainer(lambda X: X @ np.arange(1.0, 5.0) + X[:, 0] * X[:, 3], background,
                      groups={"a": [0, 1], "b": [2, 3]})
    values = ex.shapley(x, method="exact").values[0]
    assert values[0] == 0.0 and values[1] != 0.0


def test_text_columns_compare_by_value():
    pd = pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"kind": ["a", "b"] * 20, "size": rng.normal(size=40), "age": rng.normal(size=40)})
    y = 2.0 * (frame["kind"] == "a") + frame["size"] - frame["age"]
    model = make_pipeline(ColumnTransformer([("c", OneHotEncoder(), ["kind"])], remainder="passthrough"),
                          LinearRegression()).fit(frame, y)
    ex = ip.Explainer(model, frame[frame["kind"] == "a"])  # "kind" is "a" in every background row and in x
    row = pd.DataFrame({"kind": ["a"], "size": [5.0], "age": [0.5]})
    result = ex.shapley(row, method="kernel", budget=10, random_state=0)
    assert result.values[0, 0] == 0.0 and result.values[0, 1] != 0.0
    assert result.info["null_players"] == [["kind"]]  # per explained row


def test_not_reduced_where_it_would_not_be_exact():
    ex, x = setup("conditional")
    assert "null_players" not in ex.shapley(x, method="kernel", budget=60, random_state=0).info
    ex, x = setup()
    assert "null_players" not in ex.interactions(x, index="stii", order=2, method="exact").info
    assert "null_players" in ex.interactions(x, index="sii", order=2, method="exact").info


def test_nan_equals_nan():
    rng = np.random.default_rng(2)
    background = rng.normal(size=(8, 4))
    x = rng.normal(size=(1, 4))
    background[:, 3], x[0, 3] = np.nan, np.nan
    ex = ip.Explainer(lambda X: np.nansum(X, axis=1) + X[:, 0] * X[:, 1], background)
    assert ex.shapley(x, method="kernel", budget=20, random_state=0).values[0, 3] == 0.0


def test_values_without_a_truth_value_leave_every_feature_in_the_game():
    pd = pytest.importorskip("pandas")
    from interplay.fixed_players import null_players

    x = np.array(["a", pd.NA], dtype=object)
    reference = np.array([["a", pd.NA], ["a", pd.NA]], dtype=object)
    assert null_players(x, reference, None, 2).tolist() == [False, False]
    assert null_players(np.array(["a", "b"], dtype=object), reference[:, :1].repeat(2, axis=1), None,
                        2).tolist() == [True, False]


def test_general_bivariate_with_a_whole_game_univariate_method_is_not_reduced():
    nx = pytest.importorskip("networkx")
    ex, x = setup()
    graph = nx.path_graph(D)
    result = ex.bivariate(x, method="general", univariate="l-shapley", graph=graph, budget=200, random_state=0)
    assert "null_players" not in result.info
    whole = ip.bivariate(ex.game(x), method="general", univariate="l-shapley", graph=graph, budget=200,
                         random_state=0)
    np.testing.assert_allclose(result.adjacency, whole.adjacency, atol=1e-12)


def test_auto_rows_with_and_without_null_players_keep_standard_errors_and_reasons():
    """Rows whose null players leave a game small enough are enumerated, the others sampled: the Explanation
    keeps the sampled rows' standard errors (zeros for the exact ones) and every choice's reason."""
    rng = np.random.default_rng(0)
    W, V = rng.normal(size=(14, 6)), rng.normal(size=6)
    data = rng.poisson(0.4, size=(200, 14)).astype(float)  # sparse counts: the median is 0 in most columns
    ex = ip.Explainer(lambda X: np.tanh(X @ W) @ V, data, removal="baseline", baseline="median")
    result = ex.shapley(data[:4], budget=500, random_state=0)
    methods = [ex.shapley(data[i], budget=500, random_state=0).method for i in range(4)]
    assert set(methods) == {"exact", "odd_gp"}
    assert result.method == "auto" and set(result.info["auto"]["reasons"]) == {"exact", "odd_gp"}
    assert result.info["methods"] == methods  # which rows were enumerated
    assert [result[i].method for i in range(4)] == methods and result[1:].info["methods"] == methods[1:]
    from interplay.report import build_report

    counts = ", ".join(f"{m}: {methods.count(m)} row{'s' if methods.count(m) > 1 else ''}"
                       for m in sorted(set(methods), key=lambda m: -methods.count(m)))
    saved = replace(result, info={**result.info, "method": "auto"})  # as the command line saves it
    assert f"auto ({counts})" in build_report([saved])  # the report's header says how many rows chose each
    assert result.std_errors is not None
    for i, method in enumerate(methods):
        if method == "exact":
            assert np.all(result.std_errors[i] == 0.0)
        else:
            assert np.all(np.isfinite(result.std_errors[i])) and result.std_errors[i].max() > 0


def test_sliced_explanations_keep_their_rows_null_players():
    ex, x = setup()
    rows = np.concatenate([x, x + 1.0, x])  # the middle row has no null player
    result = ex.shapley(rows, method="exact")
    names = [ex.feature_names[i] for i in NULL]
    assert result.info["null_players"] == [names, [], names]
    assert result[0].info["null_players"] == names
    assert result[1:].info["null_players"] == [[], names]
    assert result[:, [0, NULL[0]]].info["null_players"] == [[names[0]], [], [names[0]]]


def test_values_equal_but_distinguishable_are_not_null():
    rng = np.random.default_rng(5)
    background = rng.normal(size=(6, 3))
    background[:, 0] = 0.0
    x = rng.normal(size=(1, 3))
    x[0, 0] = -0.0  # equal to 0.0, but arctan2 tells them apart
    ex = ip.Explainer(lambda X: np.arctan2(X[:, 0], -1.0) + X[:, 1] * X[:, 2], background)
    values = ex.shapley(x, method="exact").values[0]
    assert values[0] == pytest.approx(-2 * np.pi)  # arctan2(-0.0, -1) = -pi, arctan2(0.0, -1) = pi
    assert values.sum() == pytest.approx(-2 * np.pi + x[0, 1] * x[0, 2] - np.mean(background[:, 1] * background[:, 2]))
    from interplay.fixed_players import null_players

    reference = np.array([[1, "a"], [1, "a"]], dtype=object)
    assert null_players(np.array([1.0, "a"], dtype=object), reference, None, 2).tolist() == [False, True]
    assert null_players(np.array([True, "a"], dtype=object), reference, None, 2).tolist() == [False, True]
    assert null_players(np.array([1, "a"], dtype=object), reference, None, 2).tolist() == [True, True]
    nan = np.array([[float("nan"), "a"]], dtype=object)
    assert null_players(np.array([float("nan"), "b"], dtype=object), nan, None, 2).tolist() == [True, False]


def test_image_regions_showing_their_baseline_are_null_players():
    """An image region whose pixels are the baseline's (black patches under baseline="zero") is a null player:
    exact zeros, the other regions explained exactly as in the whole game."""
    pytest.importorskip("scipy")
    from interplay.modalities.image import ImageExplainer

    rng = np.random.default_rng(6)
    image = rng.random((4, 6))
    image[:2, :2] = 0.0  # region 0 of the 2x2 patches: black
    image[2:, 4:] = 0.0  # another black patch
    w = rng.normal(size=24)

    def model(images):
        flat = np.asarray(images, dtype=float).reshape(len(images), -1)
        return np.tanh(flat @ w) + flat[:, 2] * flat[:, 10]

    explainer = ImageExplainer(model, segments="patches", patch_size=2, baseline="zero", classifier=False)
    game = explainer.game(image)
    null = game.null_players()
    assert null.sum() == 2
    whole = ip.shapley(game, method="exact")
    reduced = explainer.shapley(image, method="exact")
    np.testing.assert_allclose(reduced.values, whole.values, atol=1e-12)
    assert np.all(reduced.values[null] == 0.0) and len(reduced.info["null_players"]) == 2
    sampled = explainer.shapley(image, method="kernel", budget=20, random_state=0)
    assert np.all(sampled.values[null] == 0.0)
    bivariate = explainer.bivariate(image, method="exact")
    np.testing.assert_allclose(bivariate.adjacency, ip.bivariate(game, method="exact").adjacency, atol=1e-12)


def _weights_model(X):  # module level: a batch run fingerprints its model
    return np.asarray(X, dtype=float) @ np.arange(1.0, D + 1) + 0.5 * X[:, 0] * X[:, 2]


@pytest.mark.parametrize("removal, recorded", [("marginal", True), ("conditional", False)])
def test_runs_begun_before_the_null_player_rule_are_not_resumed_with_its_rows(tmp_path, removal, recorded):
    import json

    from interplay.runs import run

    rng = np.random.default_rng(3)
    X = rng.normal(size=(6, D))
    background = rng.normal(size=(10, D))
    background[:, NULL] = X[0, NULL]  # row 0 has null players
    explainer = ip.Explainer(_weights_model, background, removal=removal)
    out = tmp_path / "run"
    run(explainer, X, out=out, method="kernel", budget=60, n_jobs=1, chunk_size=3, progress=False, random_state=0)
    path = out / "run-manifest.json"
    manifest = json.loads(path.read_text())
    assert ("null_players" in manifest["params"]) == recorded  # conditional removal reduces nothing
    manifest["params"].pop("null_players", None)  # as a run begun by an earlier version recorded it
    manifest["chunks"].pop("1")
    manifest["complete"] = False
    path.write_text(json.dumps(manifest))
    if recorded:
        with pytest.raises(ValueError, match="null_players: the run was begun by an earlier interplay"):
            run(explainer, X, out=out, method="kernel", budget=60, n_jobs=1, chunk_size=3, progress=False)
    else:
        run(explainer, X, out=out, method="kernel", budget=60, n_jobs=1, chunk_size=3, progress=False)
        assert ip.runs.open_run(out).complete


def test_a_finished_run_begun_before_the_rule_is_read_back_unless_a_part_must_be_recomputed(tmp_path):
    import json

    from interplay.runs import run

    rng = np.random.default_rng(4)
    X = rng.normal(size=(6, D))
    background = rng.normal(size=(10, D))
    background[:, NULL] = X[0, NULL]
    explainer = ip.Explainer(_weights_model, background)
    out = tmp_path / "run"
    first = run(explainer, X, out=out, method="kernel", budget=60, n_jobs=1, chunk_size=3, progress=False,
                random_state=0)
    path = out / "run-manifest.json"
    manifest = json.loads(path.read_text())
    manifest["params"].pop("null_players")  # a finished run of an earlier version
    path.write_text(json.dumps(manifest))
    again = run(explainer, X, out=out, method="kernel", budget=60, n_jobs=1, chunk_size=3, progress=False)
    np.testing.assert_array_equal(again.explanation().values, first.explanation().values)  # read back, not refused
    part = out / manifest["chunks"]["1"]["file"]
    part.write_bytes(part.read_bytes()[:10])  # corrupt: it would be recomputed under the new rule
    with pytest.raises(ValueError, match="null_players: the run was begun by an earlier interplay"):
        run(explainer, X, out=out, method="kernel", budget=60, n_jobs=1, chunk_size=3, progress=False)


@pytest.mark.parametrize("chunk_size", [1, 2, 6])
def test_auto_runs_keep_standard_errors_whatever_the_chunks(tmp_path, chunk_size):
    from interplay.runs import run

    rng = np.random.default_rng(5)
    X = rng.normal(size=(6, D))
    background = rng.normal(size=(10, D))
    background[:, :5] = X[0, :5]  # row 0: two features left, enumerated; the others sampled
    explainer = ip.Explainer(_weights_model, background)
    direct = explainer.shapley(X, budget=60, random_state=0)
    result = run(explainer, X, "auto", out=tmp_path / "run", budget=60, n_jobs=1, chunk_size=chunk_size,
                 progress=False, random_state=0).explanation()
    assert direct.std_errors is not None and result.std_errors is not None
    exact = result.n_evaluations < 60
    assert exact.any() and not exact.all()
    assert np.all(result.std_errors[exact] == 0) and np.all(np.isfinite(result.std_errors))
    np.testing.assert_array_equal(result.std_errors, direct.std_errors)
    # each row's choice is kept, as the Explainer gives it (and in the table's "method" column)
    assert result.method == direct.method == "auto"
    assert result.info["methods"] == direct.info["methods"] == ["exact" if e else direct.info["methods"][1]
                                                                for e in exact]
    table = run(explainer, X, "auto", out=tmp_path / "run", budget=60, n_jobs=1, chunk_size=chunk_size,
                progress=False, random_state=0).to_pandas()
    assert list(table["method"]) == result.info["methods"]


def test_auto_runs_of_one_choice_name_it(tmp_path):
    """Every row sampled by the same method: the run's Explanation names it, as the Explainer does."""
    from interplay.runs import run

    rng = np.random.default_rng(6)
    X, background = rng.normal(size=(4, D)), rng.normal(size=(10, D))
    explainer = ip.Explainer(_weights_model, background)
    direct = explainer.shapley(X, budget=60, random_state=0)
    result = run(explainer, X, "auto", out=tmp_path / "run", budget=60, n_jobs=1, chunk_size=2, progress=False,
                 random_state=0).explanation()
    assert result.method == direct.method != "auto" and "methods" not in result.info
