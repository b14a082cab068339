"""Removal and output review: games checked against their definitions on small cases computed by hand."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

import interplay as ip

pytest.importorskip("sklearn")


def _coalitions(d: int) -> np.ndarray:
    return np.array(list(itertools.product([False, True], repeat=d)))


def _large_margin_logistic():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X @ [3.0, -2.0, 1.0] > 0).astype(int)
    model = LogisticRegression(C=1e4, max_iter=5000).fit(X, y)  # nearly separable: log-odds far beyond +-37
    return model, X


def test_binary_logistic_log_odds_are_its_decision_function_not_clipped_probabilities():
    """output='log-odds' of a LogisticRegression was read from predict_proba, which is exactly 0 or 1 beyond
    |log-odds| ~ 37: v(N) was clipped at -27.6 (warned) where the model's log-odds were -34.4 (shap's
    LinearExplainer gives the exact ones). Marginal v(S) is the mean decision function over the hybrid rows."""
    model, X = _large_margin_logistic()
    bg, x = X[:6], X[100] * 8  # a row far out: its probability rounds to exactly 0 or 1
    margin = model.decision_function
    assert abs(margin(x[None])[0]) > 40
    S = _coalitions(3)
    want = np.array([margin(np.where(s, x, bg)).mean() for s in S])
    for removal in ("marginal", "baseline"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no clipping warning
            explainer = ip.Explainer(model, bg, removal=removal, output="log-odds")
            values = explainer.game(x)(S)
        if removal == "baseline":
            want_b = margin(np.where(S, x, bg.mean(0)))
            np.testing.assert_allclose(values, want_b, rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-12)
    class0 = ip.Explainer(model, bg, output="log-odds", target=0).game(x)(S)
    np.testing.assert_allclose(class0, -want, rtol=1e-12, atol=1e-12)
    result = ip.Explainer(model, bg, output="log-odds").shapley(x[None])
    assert result.values.sum() + result.base_values[0] == pytest.approx(margin(x[None])[0], rel=1e-10)


def test_log_odds_of_a_classifier_whose_proba_is_no_sigmoid_stay_those_of_its_probabilities():
    """SGDClassifier(loss='modified_huber') has a decision function whose sigmoid is not its probability: its
    log-odds stay log(p / (1 - p)) of predict_proba; so do a multi-class logistic regression's (one class against
    the rest)."""
    from sklearn.linear_model import LogisticRegression, SGDClassifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = (X @ [1.0, -1.0, 0.5] + 0.3 * rng.normal(size=300) > 0).astype(int)
    huber = SGDClassifier(loss="modified_huber", random_state=0).fit(X, y)
    bg, x = X[:5], X[50]
    S = _coalitions(3)

    def logit(p):
        p = np.clip(p, 1e-12, 1 - 1e-12)
        return np.log(p) - np.log1p(-p)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # modified_huber gives probabilities of exactly 0 or 1: clipped, warned
        values = ip.Explainer(huber, bg, output="log-odds").game(x)(S)
    want = [logit(huber.predict_proba(np.where(s, x, bg))[:, 1]).mean() for s in S]
    np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-12)
    y3 = np.digitize(X[:, 0], [-0.5, 0.5])
    multi = LogisticRegression(max_iter=1000).fit(X, y3)
    values = ip.Explainer(multi, bg, output="log-odds", target=2).game(x)(S)
    want = [logit(multi.predict_proba(np.where(s, x, bg))[:, 2]).mean() for s in S]
    np.testing.assert_allclose(values, want, rtol=1e-12, atol=1e-12)


def test_binary_logistic_log_odds_match_shaps_linear_explainer():
    """What the README says: shap.Explainer(LogisticRegression) is a LinearExplainer of the log-odds, and
    output='log-odds' gives its numbers (before, the clipped probabilities of far rows gave others)."""
    shap = pytest.importorskip("shap")
    model, X = _large_margin_logistic()
    bg, rows = X[:20], X[100:104] * 8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = shap.Explainer(model, bg)
        sv = theirs(rows)
    assert type(theirs).__name__ == "LinearExplainer"
    ours = ip.Explainer(model, bg, output="log-odds").shapley(rows)
    np.testing.assert_allclose(ours.values, sv.values, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.base_values, sv.base_values, rtol=1e-9, atol=1e-9)
    assert ip.Explainer(model, bg).output == "probability"  # auto: the probability (the README says so)


def test_a_loss_result_says_which_loss_in_its_info_and_plot_labels():
    """output='loss' results said only "minus the loss": a classifier's is minus the log-loss (v = log p[y],
    averaged over the background), a regressor's minus the squared error; the info and the axis labels now say
    which. Checked by hand on 3 features and 4 background rows."""
    from sklearn.linear_model import LinearRegression, LogisticRegression

    from interplay.plot._common import explained

    rng = np.random.default_rng(2)
    X = rng.normal(size=(80, 3))
    labels = (X[:, 0] + X[:, 1] > 0).astype(int)
    bg, x, S = X[:4], X[40], _coalitions(3)
    clf = LogisticRegression().fit(X, labels)
    explainer = ip.Explainer(clf, bg, output="loss")
    np.testing.assert_allclose(explainer.game(x, y=0)(S),
                               [np.log(clf.predict_proba(np.where(s, x, bg))[:, 0]).mean() for s in S], rtol=1e-12)
    result = explainer.shapley(X[40:42], y=labels[40:42])
    assert result.info["model_kind"] == "classifier" and explained(result.info) == "minus the log-loss"
    game = explainer.games(x, y=1)[1]
    assert explained(ip.shapley(game).info) == "minus the log-loss"
    reg = LinearRegression().fit(X, X @ [1.0, 2.0, -1.0])
    explainer = ip.Explainer(reg, bg, output="loss")
    np.testing.assert_allclose(explainer.game(x, y=0.5)(S),
                               [(-(reg.predict(np.where(s, x, bg)) - 0.5) ** 2).mean() for s in S], rtol=1e-12)
    result = explainer.shapley(X[40:42], y=[0.5, 1.0])
    assert result.info["model_kind"] == "regressor" and explained(result.info) == "minus the squared error"
    assert explained({"output": "loss"}) == "minus the loss"  # a result that does not say (saved before)


def test_a_shap_summary_or_masker_as_background_is_refused_saying_what_it_is():
    """shap.kmeans(X, k) (a weighted summary) or a shap masker as background gave "background: expected numeric
    values, got dtype object"; the error now names the shap object and what to pass."""
    shap = pytest.importorskip("shap")
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    model = LinearRegression().fit(X, X @ [1.0, 2.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        summary = shap.kmeans(X, 4)
    with pytest.raises(TypeError, match=r"^background: expected rows .*got a shap DenseData.*\.weights"):
        ip.Explainer(model, summary)
    with pytest.raises(TypeError, match=r"^background: expected rows .*got a shap Independent"):
        ip.Explainer(model, shap.maskers.Independent(X, max_samples=10))


def test_predict_proba_passed_as_the_model_is_the_classifiers_probability():
    """shap's idiom Explainer(model.predict_proba, X): the bound method was a function of two outputs read as a
    regressor's (no default target; output='log-odds' refused as "predict_proba is not a classifier"). It is now
    the classifier's probability of its positive class, by class label; a booster's too (what the function
    returns, not its margin)."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 3))
    labels = np.where(X[:, 0] - X[:, 2] > 0, "yes", "no")
    model = LogisticRegression().fit(X, labels)
    bg, x, S = X[:5], X[60], _coalitions(3)
    explainer = ip.Explainer(model.predict_proba, bg)
    assert (explainer.output, explainer.target) == ("probability", "yes")
    np.testing.assert_allclose(explainer.game(x)(S),
                               [model.predict_proba(np.where(s, x, bg))[:, 1].mean() for s in S], rtol=1e-12)
    log_odds = ip.Explainer(model.predict_proba, bg, output="log-odds", target="no").game(x)(S)
    np.testing.assert_allclose(log_odds, [-model.decision_function(np.where(s, x, bg)).mean() for s in S],
                               rtol=1e-10)
    forest = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, np.digitize(X[:, 1], [0, 1]))
    games = ip.Explainer(forest.predict_proba, bg).games(x)
    assert list(games) == [0, 1, 2]
    np.testing.assert_allclose(games[2](S), [forest.predict_proba(np.where(s, x, bg))[:, 2].mean() for s in S],
                               rtol=1e-12)
    xgb = pytest.importorskip("xgboost")
    booster = xgb.XGBClassifier(n_estimators=5, max_depth=2).fit(X, (labels == "yes").astype(int))
    explainer = ip.Explainer(booster.predict_proba, bg)
    assert explainer.output == "probability"  # what the function returns (ip.Explainer(booster): log-odds)
    np.testing.assert_allclose(explainer.game(x)(S),
                               [booster.predict_proba(np.where(s, x, bg))[:, 1].mean() for s in S], rtol=1e-6)


def test_a_large_marginal_background_warns_of_its_cost():
    """shap's Explainer keeps 100 background rows; interplay keeps every row it is given, so a 5,000-row
    background made every coalition cost 5,000 model rows without a word."""
    import warnings

    rows = np.random.default_rng(0).standard_normal((1500, 3))
    with pytest.warns(UserWarning, match=r"background: 1,500 rows: marginal removal averages the model over every"):
        ip.Explainer(lambda Z: Z.sum(axis=1), rows)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ip.Explainer(lambda Z: Z.sum(axis=1), rows[:1000])  # up to LARGE_BACKGROUND: nothing to say
        ip.Explainer(lambda Z: Z.sum(axis=1), rows, removal="conditional")  # its neighbours only
