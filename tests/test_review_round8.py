"""Defects found by the eighth round of reviews (removal, outputs, models, modalities), one test each."""

import warnings

import numpy as np
import pytest

import interplay as ip

sklearn = pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def one_two():
    """A logistic regression whose classes are 1 and 2 (not 0 and 1)."""
    from sklearn.linear_model import LogisticRegression

    X = np.random.default_rng(0).normal(size=(200, 2))
    return LogisticRegression().fit(X, np.where(X[:, 0] > 0, 2, 1)), X


def test_a_classifier_loss_reads_y_as_a_class_label_never_as_a_column(one_two):
    model, X = one_two
    explainer = ip.Explainer(model, X[:10], output="loss")
    with pytest.raises(ValueError, match=r"^y: expected one of the model's class labels \[1, 2\], got 0"):
        explainer.game(X[:1], y=0)  # labels 0/1 against classes 1/2: it read column 0 as class 1
    log_p = np.log(model.predict_proba(X[:1])[0])
    for label, column in ((1, 0), (2, 1)):
        assert explainer.game(X[:1], y=label)(np.ones((1, 2), dtype=bool))[0] == pytest.approx(log_p[column])
    assert explainer.shapley(X[:2], y=[1, 2], method="exact").info["targets"] == [1, 2]


def test_target_with_a_classifier_loss_warns_that_it_is_ignored(one_two):
    model, X = one_two
    with pytest.warns(UserWarning, match=r"target=2 is ignored with output='loss'"):
        ip.Explainer(model, X[:10], output="loss", target=2).shapley(X[:1], y=[1], method="exact")


@pytest.mark.parametrize("y, message", [([np.nan], r"^y: a regressor's loss needs a finite true value, got nan"),
                                        (["abc"], r"^y: a regressor's loss needs a number .*, got 'abc'")])
def test_a_regressor_loss_names_a_bad_label(y, message):
    from sklearn.linear_model import LinearRegression

    X = np.random.default_rng(0).normal(size=(100, 2))
    model = LinearRegression().fit(X, X @ [1.0, 2.0])
    with pytest.raises(ValueError, match=message):
        ip.Explainer(model, X[:5], output="loss").shapley(X[:1], y=y)


@pytest.mark.parametrize("output, label", [("log-odds", None), ("loss", 0)])
def test_probabilities_of_zero_or_one_warn_that_the_clip_sets_the_values(output, label):
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] > 0).astype(int)
    stump = DecisionTreeClassifier(max_depth=1).fit(X, y)  # probabilities exactly 0 and 1
    x = X[y == 1][:1]
    explainer = ip.Explainer(stump, X[:10], output=output)
    with pytest.warns(UserWarning, match=rf"output='{output}': the model gives probabilities of exactly"):
        explainer.shapley(x, method="exact", **({} if label is None else {"y": [label]}))
    from sklearn.linear_model import LogisticRegression

    smooth = LogisticRegression().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # probabilities inside (0, 1): no warning
        ip.Explainer(smooth, X[:10], output=output).shapley(x, method="exact", **({} if label is None
                                                                                  else {"y": [label]}))
