"""Ctrl-C during Explainer.shapley(X) over many rows keeps the finished rows (they were lost)."""

import numpy as np
import pytest

import interplay as ip


def test_interrupt_keeps_the_finished_rows():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(6, 4)), columns=list("abcd"), index=[10, 11, 12, 13, 14, 15])
    calls, stop_at = [], [None]

    def model(rows):
        calls.append(len(rows))
        if len(calls) == stop_at[0]:  # Ctrl-C part-way through the rows
            raise KeyboardInterrupt
        return rows @ np.array([1.0, 2.0, 0.5, -1.0])

    explainer = ip.Explainer(model, X.iloc[:3])
    calls.clear()
    stop_at[0] = 4
    with pytest.raises(ip.ExplanationInterrupted) as stop:
        explainer.shapley(X, method="exact", random_state=0, progress=False)
    partial = stop.value.partial
    assert isinstance(stop.value, KeyboardInterrupt) and 0 < len(partial) < len(X)
    assert list(partial.to_pandas().index) == list(X.index[:len(partial)]) and partial.info["seed"] == 0
    stop_at[0] = None
    whole = explainer.shapley(X, method="exact", random_state=0, progress=False)
    np.testing.assert_array_equal(partial.values, whole.values[:len(partial)])


@pytest.mark.parametrize("target", [None, "all"])
def test_interrupt_in_the_first_row_is_a_plain_keyboard_interrupt(target):
    """A row counted as finished before its values were stored: Ctrl-C in row 0 raised KeyError(None), and with
    several targets a .partial of {} said one row was done."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    fitted = LogisticRegression().fit(X, rng.integers(0, 3, 30))
    calls, stop = [], [None]

    class Model:  # a classifier whose calls can be interrupted
        classes_ = fitted.classes_

        def predict_proba(self, rows):
            calls.append(1)
            if stop[0] is not None and len(calls) >= stop[0]:
                raise KeyboardInterrupt
            return fitted.predict_proba(rows)

    explainer = ip.Explainer(Model(), X[:5], target=target if target else 0)
    calls.clear()
    stop[0] = 2
    with pytest.raises(KeyboardInterrupt) as caught:
        explainer.shapley(X[:3], method="exact", progress=False)
    assert type(caught.value) is KeyboardInterrupt


def test_the_interruption_pickles_with_its_rows():
    import pickle

    stop = ip.ExplanationInterrupted("interrupted after 1 of 2 rows", {"a": 1})
    again = pickle.loads(pickle.dumps(stop))
    assert str(again) == str(stop) and again.partial == {"a": 1}
