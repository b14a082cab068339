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
