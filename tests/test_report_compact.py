"""The report's data block stays small on wide data without changing what the page draws: a 60-feature page of 20
rows (the CLI's --detail-rows) was 5.5 MB (weights and thresholds in 17 digits, every distinct threshold state
written out in full, each symmetric interaction matrix twice)."""

import json

import numpy as np
import pytest

from interplay.plot import _analysis
from interplay.report import (_distinct_states, _matrix_payload, _order_digits, _significant, build_report,
                              expand_graph, expand_matrix)

from test_report_reading import _thirty_features, page_data


def _dumps(obj) -> int:
    return len(json.dumps(obj, separators=(",", ":")))


@pytest.fixture(scope="module")
def thirty():
    return _thirty_features()


def test_graph_payload_is_compact_and_reads_back_exactly(thirty):
    sweep = _analysis.thresholds(thirty)
    G = page_data(build_report([thirty]))["rows"][0]["graph"]
    distinct, _, _ = _distinct_states(sweep["states"])
    # the form before: full-precision weights and thresholds, each distinct state in full, the node sizes again
    before = _dumps({"weights": np.asarray(thirty.graph().weights).tolist(), "gammas": sweep["gammas"],
                     "distinct_states": distinct, "size": np.abs(thirty.univariate.values).tolist()})
    now = _dumps({k: G[k] for k in ("weights", "gammas", "distinct_states", "levels") if k in G})
    assert now < 0.5 * before, (now, before)
    page = expand_graph(G)
    assert page["states"] == sweep["states"]  # every threshold's picture exactly as the analysis gave it
    assert page["size"] == np.abs(thirty.univariate.values).tolist()
    # the page compares |W| with the thresholds (an edge is drawn where |W| > gamma): rounding kept every answer
    w, g = np.abs(np.asarray(thirty.graph().weights)), np.asarray(sweep["gammas"])
    pw, pg = np.abs(np.asarray(G["weights"])), np.asarray(G["gammas"])
    off = ~np.eye(len(w), dtype=bool)
    assert np.array_equal(w[off][:, None] > g[None, :], pw[off][:, None] > pg[None, :])
    assert np.array_equal(np.argsort(-w[off], kind="stable"), np.argsort(-pw[off], kind="stable"))
    np.testing.assert_allclose(pw, w, rtol=1e-6)


def test_rounding_keeps_close_weights_apart():
    """Weights equal in their first 10 digits: the page gets the 11 that keep them (and the thresholds at them)
    apart and in order, not the 7 it writes by default."""
    values = np.array([0.12345678912, 0.12345678914, 0.5, 1e-9])
    digits = _order_digits(values)
    assert digits == 11
    assert len(set(_significant(values, digits))) == 4
    assert _order_digits(np.array([0.1, 0.2, 0.30000000000000004])) == 7
    assert _significant([1 / 3, -2e-12, np.nan], 7) == [0.3333333, -2e-12, 0.0]


def test_symmetric_interaction_matrix_is_stored_once(thirty):
    import interplay as ip
    from interplay.synthetic import UnanimitySum

    game = UnanimitySum.random(12, 20, 3, random_state=1).game()
    inter = ip.interactions(game, index="sii")
    payload = page_data(build_report([inter]))["rows"][0]["interactions"]
    assert "matrix" not in payload and len(payload["upper"][0]) == 12 and len(payload["upper"][-1]) == 1
    np.testing.assert_allclose(expand_matrix(payload), inter.matrix, rtol=1e-6, atol=1e-300)
    assert _dumps(payload) < 0.4 * _dumps(np.asarray(inter.matrix).tolist())
    # a matrix that is not symmetric is written whole
    lopsided = np.asarray(inter.matrix).copy()
    lopsided[0, 1] += 1.0
    assert np.allclose(_matrix_payload(lopsided)["matrix"], lopsided)


def test_page_draws_the_compact_states_at_every_slider_position(thirty, browser, tmp_path):
    """The page's script reads the compact states back: each node where the analysis puts it, at several
    thresholds (x in 1/10000, depths by index, changes applied in order)."""
    from interplay.report import save_report

    sweep = _analysis.thresholds(thirty)
    path = save_report([thirty], tmp_path / "wide.html")
    browser.events.clear()
    browser.open(path.as_uri())
    assert browser.evaluate("document.body.getAttribute('data-ready')") == "1"
    last = len(sweep["gammas"]) - 1
    for position in sorted({0, 1, last // 5, last // 3, last // 2, 2 * last // 3, last}):
        browser.evaluate(f"var s = document.getElementById('gamma'); s.value = '{position}';"
                         "s.dispatchEvent(new Event('input'));")
        state = sweep["states"][position]
        drawn = browser.evaluate("Array.from(document.querySelectorAll('#graph g.node')).map(function (g) {"
                                 " var c = g.querySelector('circle'); return [g.getAttribute('data-group'),"
                                 " Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]; })")
        for f, (group, cx, cy) in enumerate(drawn):
            if group == "-1":  # a lone node: at its own place (group members are listed in their box)
                assert cx == pytest.approx(70 + state["x"][f] * 720, abs=0.051), (position, f)
                assert cy == pytest.approx(80 + state["depth"][f] * 120, abs=0.051), (position, f)
        assert browser.evaluate("document.querySelectorAll('#graph path.edge.redundancy').length") == \
            len(state["edges"])
    assert browser.problems() == []
