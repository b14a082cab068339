"""Multi-class models end to end (a review's findings): what a run's aggregates, plots and saved results say
about the class they explain."""

import warnings

import numpy as np
import pandas as pd
import pytest

import interplay as ip

pytest.importorskip("pyarrow")


@pytest.fixture(scope="module")
def wine():
    from sklearn.datasets import load_wine
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y = load_wine(return_X_y=True, as_frame=True)
    X = X.iloc[:, :4]
    labels = pd.Series(np.array(["zeta", "alpha", "mid"])[y], index=X.index)  # classes_ sorted: alpha, mid, zeta
    model = HistGradientBoostingClassifier(max_iter=10, random_state=0).fit(X, labels)
    return model, X


def test_run_aggregates_name_the_class_they_explain(wine, tmp_path):
    """A run's global_importance/mean_attribution/cohort_graph carried no output or target: the bar plot of a run
    of class 'mid' read "mean |value| over 12 rows", while load_run(...).global_importance() said "(margin of
    class 'mid')". A target given as an output index is named by its label, as the rows' Explanation does."""
    model, X = wine
    rows, background = X.iloc[::15], X.iloc[::9]
    for target, label in (("mid", "mid"), (0, "alpha")):
        out = tmp_path / f"run-{target}"
        ip.run(ip.Explainer(model, background, target=target), rows, method="exact", out=out, random_state=0)
        run = ip.open_run(out)
        expected = ip.load_run(out).global_importance().info
        for aggregate in (run.global_importance(), run.mean_attribution()):
            assert aggregate.info["target"] == expected["target"] == label
            assert aggregate.info["output"] == expected["output"] == "margin"
    # target="predicted": the class the selected rows share, else "predicted" (the plots then warn)
    out = tmp_path / "run-predicted"
    ip.run(ip.Explainer(model, background, target="predicted"), rows, method="exact", out=out, random_state=0)
    run, whole = ip.open_run(out), ip.load_run(out)
    targets = np.asarray(whole.info["targets"], dtype=object)
    assert len(set(targets)) > 1
    assert run.global_importance().info["target"] == "predicted"
    mask = targets == targets[0]
    cohort = run.global_importance(mask)
    assert cohort.info["target"] == targets[0]
    np.testing.assert_allclose(cohort.values, whole[mask].global_importance().values, rtol=0, atol=1e-12)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one class: no warning about pooled classes
        ax = ip.plot.bar(cohort)
    fig = ax.figure if hasattr(ax, "figure") else plt.gcf()
    labels = " ".join(a.get_xlabel() for a in fig.axes)
    assert f"margin of class {targets[0]!r}" in labels
    plt.close("all")


def test_run_graph_names_the_class_by_label(wine, tmp_path):
    """A bivariate run of target=0 (an output index) titled its graph "margin of class 0", a class the model does
    not have (its classes are 'alpha', 'mid', 'zeta'); a cohort of one predicted class was still "predicted"."""
    model, X = wine
    rows, background = X.iloc[::20], X.iloc[::9]
    out = tmp_path / "biv-0"
    ip.run(ip.Explainer(model, background, target=0), rows, kind="bivariate", method="exact", out=out)
    run = ip.open_run(out)
    assert run.graph().info["target"] == "alpha"
    assert run.cohort_graph().info["target"] == "alpha"
    out = tmp_path / "biv-predicted"
    ip.run(ip.Explainer(model, background, target="predicted"), rows, kind="bivariate", method="exact", out=out)
    run = ip.open_run(out)
    targets = np.asarray(ip.load_run(out).info["targets"], dtype=object)
    assert len(set(targets)) > 1 and run.graph().info["target"] == "predicted"
    assert run.graph(targets == targets[-1]).info["target"] == targets[-1]


def _report_rows(html):
    import json
    import re

    return json.loads(re.search(r'id="interplay-data">(.*?)</script>', html, re.S).group(1))["rows"]


def test_report_never_shows_results_of_two_units_as_one_row(wine):
    """A row's probability attributions and its margin interactions and graph (same row, same class) were shown
    as one entry labelled "probability of class 'mid'", the graph's and heatmap's margins read as probabilities,
    no word said. Now the results in the other unit are left out, with a warning naming them."""
    model, X = wine
    background, x = X.iloc[::9], X.iloc[[0, 60]]
    probability = ip.Explainer(model, background, target="mid", output="probability")
    margin = ip.Explainer(model, background, target="mid")
    with pytest.warns(UserWarning, match=r"row 0 \(class 'mid'\) has results in different units \('probability' "
                                         r"first, then 'margin'\).*leaves out the bivariate"):
        html = ip.build_report([probability.shapley(x), margin.bivariate(x.iloc[[0]])])
    (first, *_), = [[r for r in _report_rows(html) if r["label"].startswith("row 0")]]
    assert first["explained_output"] == "probability of class 'mid'" and "graph" not in first
    # an Explanation in another unit: its rows are left out, one warning for them all
    with pytest.warns(UserWarning, match=r"2 row\(s\) have results in different units.*row 0 \(class 'mid'\), "
                                         r"row 60"):
        html = ip.build_report([margin.bivariate(x.iloc[[0]]), margin.bivariate(x.iloc[[1]]),
                                probability.shapley(x)])
    for row in _report_rows(html):
        assert row["explained_output"] == "margin of class 'mid'"
    with warnings.catch_warnings():  # the same unit: joined as before, nothing said
        warnings.simplefilter("error")
        html = ip.build_report([margin.shapley(x), margin.bivariate(x.iloc[[0]]), margin.interactions(x.iloc[[0]])])
    row0 = [r for r in _report_rows(html) if r["label"].startswith("row 0")][0]
    assert "graph" in row0 and "interactions" in row0


def test_cli_help_says_what_auto_gives_a_multi_class_booster(wine, tmp_path):
    """`interplay explain --help` said "auto: log-odds for boosted classifiers"; a multi-class booster gets its
    raw per-class score (margin), which is what the results then say."""
    pytest.importorskip("click")
    from click.testing import CliRunner

    from interplay.cli import main

    text = " ".join(CliRunner().invoke(main, ["explain", "--help"]).output.split())
    assert "margin) for multi-class boosted" in text
    model, X = wine
    assert ip.Explainer(model, X.iloc[::9]).output == "margin"


def test_tidy_table_of_mixed_classes_says_each_rows_class(wine):
    """``to_pandas(tidy=True)`` of a target='predicted' Explanation had no class column: the long table pooled the
    values of different classes with nothing to group them by (a batch run's parts have one)."""
    model, X = wine
    x = X.iloc[[0, 60, 140]]
    expl = ip.Explainer(model, X.iloc[::9], target="predicted").shapley(x)
    targets = list(expl.info["targets"])
    assert len(set(targets)) == 3
    tidy = expl.to_pandas(tidy=True)
    assert list(tidy.columns) == ["row", "feature", "value", "data", "base_value", "target"]
    for label, target in zip(x.index, targets):
        assert set(tidy.loc[tidy["row"] == label, "target"]) == {target}
    one = ip.Explainer(model, X.iloc[::9], target="mid").shapley(x).to_pandas(tidy=True)
    assert "target" not in one.columns  # one class: as before (info["target"] names it)


def test_scatter_refuses_interactions_of_another_class(wine):
    """``ip.plot.scatter(expl_of_mid, f, interactions=ii)`` with the dict of every class failed with "float()
    argument must be a string or a real number, not 'dict'"; with another class's Interactions it coloured the
    dots by the feature that interacts most in that other class, silently."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model, X = wine
    explainer = ip.Explainer(model, X.iloc[::9])
    per_class = explainer.shapley(X.iloc[::10], method="exact")
    pairs = explainer.interactions(X.iloc[[0]], method="exact")
    with pytest.raises(TypeError, match=r"interactions: got a dict of 3 results.*interactions=result\['mid'\]"):
        ip.plot.scatter(per_class["mid"], "alcohol", interactions=pairs)
    with pytest.raises(ValueError, match="interactions: explain class 'zeta', the explanation class 'mid'"):
        ip.plot.scatter(per_class["mid"], "alcohol", interactions=pairs["zeta"])
    ip.plot.scatter(per_class["mid"], "alcohol", interactions=pairs["mid"])  # the same class: drawn
    ip.plot.scatter(per_class["mid"], "alcohol", interactions=pairs["zeta"].matrix)  # a bare matrix says nothing
    plt.close("all")


def test_targets_given_as_pandas_or_a_0d_array(wine):
    """``target=pd.Series([...])`` failed with pandas' "The truth value of a Series is ambiguous" (the parameter
    unnamed), ``target=np.array('mid')`` with "iteration over a 0-d array", and ``target=pd.Index(['mid'])`` gave one
    Explanation where a list gives a dict. A Series or Index is now a list of labels, a 0-d array its label."""
    model, X = wine
    x, background = X.iloc[[0, 60]], X.iloc[::9]
    reference = ip.Explainer(model, background, target="all").shapley(x, method="exact")
    several = ip.Explainer(model, background, target=pd.Series(["mid", "zeta"])).shapley(x, method="exact")
    assert list(several) == ["mid", "zeta"]
    for label, result in several.items():
        assert result.info["target"] == label
        np.testing.assert_allclose(result.values, reference[label].values, rtol=0, atol=1e-12)
    assert list(ip.Explainer(model, background, target=pd.Index(["mid"])).shapley(x, method="exact")) == ["mid"]
    one = ip.Explainer(model, background, target=np.array("mid")).shapley(x, method="exact")
    assert one.info["target"] == "mid"
    np.testing.assert_allclose(one.values, reference["mid"].values, rtol=0, atol=1e-12)


def test_a_target_list_naming_one_class_twice_is_refused(wine):
    """Classes [1, 2, 3] (the wine data as UCI labels them) and ``target=[0, 1, 2]`` (meant as output indices, as
    shap's last axis): 0 is read as the index of class 1 and 1 as the label 1, so the dict held classes 1 and 2,
    class 3 silently missing. Now refused (0 is no class label of a model whose labels are also positions); the same
    label twice stays one entry."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    _, X = wine
    from sklearn.datasets import load_wine

    y = load_wine().target + 1
    model = HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match=r"target: expected one of the model's class labels \[1, 2, 3\], got 0"):
        ip.Explainer(model, X.iloc[::9], target=[0, 1, 2])
    explainer = ip.Explainer(model, X.iloc[::9], target=[1, 2, 3])
    assert list(explainer.shapley(X.iloc[[0]], method="exact")) == [1, 2, 3]
    assert list(ip.Explainer(model, X.iloc[::9], target=[3, 3]).shapley(X.iloc[[0]], method="exact")) == [3]


def test_report_of_a_per_class_dict_says_how_to_pass_it(wine, tmp_path):
    """``ip.save_report(per_class, ...)`` with the dict of ``target="all"`` failed with "no such result file:
    'alpha'" (its keys read as paths), and ``[per_class]`` with "expected interplay result objects or files, got
    dict". Both now say how to pass it; its values give one entry per row and class."""
    model, X = wine
    per_class = ip.Explainer(model, X.iloc[::9]).shapley(X.iloc[[0, 1]], method="exact")
    for given in (per_class, [per_class]):
        with pytest.raises(TypeError, match=r"results: got a dict of 3 results.*keys: \['alpha', 'mid', 'zeta'\].*"
                                            r"list\(per_class.values\(\)\)"):
            ip.save_report(given, tmp_path / "r.html")
    labels = [r["label"] for r in _report_rows(ip.build_report(list(per_class.values())))]
    assert "row 0 (class mid)" in labels and len(labels) == 6


def test_mean_graph_of_per_class_dicts_says_how_to_pick_a_class(wine):
    """The README's cohort recipe, ``ip.mean_graph([explainer.bivariate(x) for x in rows])``, on a multi-class
    model (its default target is every class, so each item is a dict) failed with "expected BivariateExplanation,
    Interactions or ExplanationGraph items, got dict", and one such dict with "... got str"."""
    model, X = wine
    explainer = ip.Explainer(model, X.iloc[::9])
    per_row = [explainer.bivariate(X.iloc[[i]], method="exact") for i in (0, 1)]
    with pytest.raises(TypeError, match=r"explanations\[0\]: got a dict of 3 results.*\[b\['alpha'\] for b in"):
        ip.mean_graph(per_row)
    with pytest.raises(TypeError, match=r"explanations: got a dict of 3 results"):
        ip.mean_graph(per_row[0])
    graph = ip.mean_graph([b["mid"] for b in per_row])
    assert graph.info["target"] == "mid"


def test_saving_a_per_class_dict_says_to_save_each_class(wine, tmp_path):
    """``ip.save(per_class, path)`` said only "expected one of [...], got dict"; it now says how, and each class's
    file keeps its class."""
    model, X = wine
    per_class = ip.Explainer(model, X.iloc[::9]).shapley(X.iloc[[0, 1]], method="exact")
    with pytest.raises(TypeError, match=r"got dict of 3 results, one per class.*save each to its own file"):
        ip.save(per_class, tmp_path / "all.json")
    for cls, result in per_class.items():
        back = ip.load(result.save(tmp_path / f"shapley-{cls}.npz"))
        assert back.info["target"] == cls and back.info["targets"] == [cls, cls]
        np.testing.assert_array_equal(back.values, result.values)


def test_loss_labels_in_another_row_order_are_refused(wine, tmp_path):
    """output='loss' pairs labels with rows by position: ``y.iloc[[60, 0]]`` beside ``X.iloc[[0, 60]]`` explained
    row 0's loss of class 'alpha' (row 60's label) and row 60's of 'zeta', silently, in the Explainer and in a
    batch run. A pandas y holding X's rows in another order is now refused, naming the fix."""
    model, X = wine
    from sklearn.datasets import load_wine

    labels = pd.Series(np.array(["zeta", "alpha", "mid"])[load_wine().target], index=X.index)
    explainer = ip.Explainer(model, X.iloc[::9], output="loss")
    x = X.iloc[[0, 60]]
    assert explainer.shapley(x, y=labels.iloc[[0, 60]], method="exact").info["targets"] == ["zeta", "alpha"]
    assert explainer.shapley(x, y=["zeta", "alpha"], method="exact").info["targets"] == ["zeta", "alpha"]
    match = r"y: its index holds the rows of X in another order \(\[60, 0\] against \[0, 60\]\).*y.loc\[X.index\]"
    with pytest.raises(ValueError, match=match):
        explainer.shapley(x, y=labels.iloc[[60, 0]], method="exact")
    with pytest.raises(ValueError, match=match):
        ip.run(explainer, x, y=labels.iloc[[60, 0]], out=tmp_path / "run", method="exact")
    reset = labels.iloc[[0, 60]].reset_index(drop=True)  # other labels altogether: by position, as before
    assert explainer.shapley(x, y=reset, method="exact").info["targets"] == ["zeta", "alpha"]


def test_multi_class_model_without_predict_proba_is_refused(wine):
    """A RidgeClassifier (or LinearSVC, SVC(probability=False)) of three integer-labelled classes was explained as
    a regressor on its predicted labels: values summing to the class number (the mean label over the background
    as base value, class 2 'twice' class 1), no word said; with string labels it failed at the first call. Now
    refused at construction, pointing to decision_function; its scores explain as before."""
    from sklearn.linear_model import RidgeClassifier

    _, X = wine
    from sklearn.datasets import load_wine

    y = load_wine().target
    model = RidgeClassifier().fit(X, y)
    with pytest.raises(TypeError, match=r"model: RidgeClassifier is a classifier of 3 classes \[0, 1, 2\] without "
                                        r"predict_proba.*model.decision_function"):
        ip.Explainer(model, X.iloc[::9])
    scores = ip.Explainer(model.decision_function, X.iloc[::9].to_numpy(), target=2).shapley(
        X.iloc[[0]].to_numpy(), method="exact")
    np.testing.assert_allclose(scores.values.sum() + scores.base_values[0], model.decision_function(X.iloc[[0]])[0, 2])
    binary = RidgeClassifier().fit(X, y == 1)  # two classes: still the share of rows predicted True
    assert ip.Explainer(binary, X.iloc[::9]).output == "prediction"


def test_multi_output_classifier_is_refused_naming_how_to_explain_one_output(wine):
    """A forest fitted on a 2-D y (or a MultiOutputClassifier) failed with numpy's "The truth value of an array
    with more than one element is ambiguous"; now refused, naming how to explain one output, which works."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.multioutput import MultiOutputClassifier
    from sklearn.tree import DecisionTreeClassifier

    from interplay.models import as_model

    _, X = wine
    from sklearn.datasets import load_wine

    Y = np.column_stack([load_wine().target, (X["alcohol"] > 13).astype(int)])
    forest = RandomForestClassifier(5, max_depth=3, random_state=0).fit(X.to_numpy(), Y)
    with pytest.raises(TypeError, match=r"model: RandomForestClassifier is a classifier of 2 outputs.*as_model\("):
        ip.Explainer(forest, X.to_numpy()[::9])
    wrapped = MultiOutputClassifier(DecisionTreeClassifier(max_depth=2)).fit(X.to_numpy(), Y)
    with pytest.raises(TypeError, match=r"model: MultiOutputClassifier .* e.g. model.estimators_\[k\]"):
        ip.Explainer(wrapped, X.to_numpy()[::9])
    first = as_model(lambda rows: forest.predict_proba(rows)[0], classifier=True)
    result = ip.Explainer(first, X.to_numpy()[::9], target=2).shapley(X.to_numpy()[:1], method="exact")
    np.testing.assert_allclose(result.values.sum() + result.base_values[0], forest.predict_proba(X.to_numpy()[:1])[0][0, 2])


def test_interaction_graph_names_its_class(wine):
    """``Interactions.graph()`` dropped the result's output and target (``BivariateExplanation.graph()`` keeps
    them): ``ip.plot.graph`` of class 'zeta''s SII pairs was titled "sii interaction graph: the strongest pairs",
    no class, no unit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    model, X = wine
    pairs = ip.Explainer(model, X.iloc[::9]).interactions(X.iloc[[0]], method="exact")["zeta"]
    graph = pairs.graph()
    assert graph.info["target"] == "zeta" and graph.info["output"] == "margin"
    ax = ip.plot.graph(graph)
    fig = ax.figure if hasattr(ax, "figure") else plt.gcf()
    assert any("margin of class 'zeta'" in a.get_title("left") for a in fig.axes)
    plt.close("all")


def test_a_game_from_the_explainer_gives_results_that_name_its_unit_and_class():
    """ip.shapley(explainer.games(x)["mid"]) recorded no unit and no class (its plots named none); the
    Explainer's games now carry them (game.explained), as the text and image games already did."""
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    X, y = load_iris(return_X_y=True)
    labels = np.array(["zeta", "alpha", "mid"])[y]
    model = LogisticRegression(max_iter=500).fit(X, labels)
    ex = ip.Explainer(model, X[:20], output="log-odds")
    games = ex.games(X[60])
    assert set(games) == {"alpha", "mid", "zeta"}
    result = ip.shapley(games["mid"], method="exact")
    assert result.info["output"] == "log-odds" and result.info["target"] == "mid"
    assert result.info["removal"] == "marginal"
    np.testing.assert_array_equal(result.values, ex.shapley(X[60], method="exact")["mid"].values[0])
    single = ip.Explainer(model, X[:20], target="alpha").game(X[60])
    assert ip.interactions(single, method="exact").info["target"] == "alpha"


def test_an_integer_target_of_labels_that_are_also_positions_is_a_label_only():
    """Classes [1, 2, 3] and [0, 2, 5]: an integer target that was no label was read as an output position, so
    target=0 and target=1 of [1, 2, 3] both explained class 1, target=[0, 2] classes 1 and 2 (shap's outputs 0
    and 2 are classes 1 and 3), and target=1 and 2 of [0, 2, 5] both class 2. Now an integer is a label only
    there (refused otherwise, naming the class at that position), on the Explainer and the text/image games;
    labels that are no positions ([5, 6, 7]) still take positions."""
    from sklearn.linear_model import LogisticRegression

    from interplay.modalities._common import output_transform
    from interplay.models import as_model

    rng = np.random.default_rng(0)
    X = rng.normal(size=(90, 3))
    for classes in ([1, 2, 3], [0, 2, 5]):
        model = LogisticRegression().fit(X, np.repeat(classes, 30))
        proba = model.predict_proba(X[:1])[0]
        for target in classes:  # a label: the class of that label, recorded by its label
            result = ip.Explainer(model, X[:10], target=target, removal="baseline").shapley(X[:1], method="exact")
            assert result.info["target"] == target
            assert result.base_values[0] + result.values.sum() == pytest.approx(proba[classes.index(target)])
        wrong = next(t for t in range(3) if t not in classes)  # a position only: refused, naming its class
        message = (rf"target: expected one of the model's class labels \[{', '.join(map(str, classes))}\], got "
                   rf"{wrong}; .*output position {wrong} is class {classes[wrong]}, pass target={classes[wrong]}")
        for target in (wrong, [wrong, classes[-1]]):
            with pytest.raises(ValueError, match=message):
                ip.Explainer(model, X[:10], target=target)
        with pytest.raises(ValueError, match=message):
            output_transform(as_model(model), model.predict_proba(X[:1]), wrong, "probability")
        assert output_transform(as_model(model), model.predict_proba(X[:1]), 2, "probability").column == (
            classes.index(2))
    model = LogisticRegression().fit(X, np.repeat([5, 6, 7], 30))  # no label is a position: 2 is position 2
    assert ip.Explainer(model, X[:10], target=2).shapley(X[:1], method="exact").info["target"] == 7
