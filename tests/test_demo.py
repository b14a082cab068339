"""The demo tour (tabular, text, image, report) runs end to end and its numbers are consistent."""

import re

import numpy as np
import pytest
from click.testing import CliRunner

from interplay import demo as demo_module
from interplay._bits import all_coalitions
from interplay.cli import main
from interplay.demo import run_demo
from interplay.results import Attribution


def test_demo_results_are_consistent():
    lines = []
    out = run_demo(lines.append)
    shapley, biv, game = out["shapley"], out["bivariate"], out["game"]
    assert abs(shapley.values.sum() + shapley.baseline - game.grand_value()) < 1e-9
    np.testing.assert_allclose(biv.univariate.values, shapley.values, atol=1e-9)
    assert game.n_evaluations == 2**10
    assert any("bmi" in line for line in lines)


def test_cli_demo_rejects_rows_out_of_range(tmp_path):
    for row in ("500", "-1"):
        result = CliRunner().invoke(main, ["demo", "--row", row, "--no-report"])
        assert result.exit_code == 2 and "--row" in result.output, result.output


# ------------------------------------------------------------------------------------------------ the tour
def compound(texts):
    """VADER's compound score, straight from vaderSentiment (the reference for the text game)."""
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    return np.array([analyzer.polarity_scores(t)["compound"] for t in texts])


def test_cli_tour_prints_each_step_and_writes_the_report(tmp_path):
    out = tmp_path / "tour"
    result = CliRunner().invoke(main, ["demo", "--row", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = result.output
    marks = ["== tabular ==  step 1 of 3", "row 1 of the test set", "Exact Shapley values", "Bivariate Shapley matrix",
             "== text ==  step 2 of 3", "C-Shapley k=1", 'Sentence 2: "it is not a bad movie"',
             "no effect on the score (set aside): it, is, a, movie",
             "== image ==  step 3 of 3", "Exact Shapley values of P(", "== report ==", "Report: "]
    positions = [text.find(mark) for mark in marks]
    assert all(p >= 0 for p in positions), [m for m, p in zip(marks, positions) if p < 0]
    assert positions == sorted(positions), "the tour prints tabular -> text -> image -> report, in order"
    assert "skipped" not in text
    report = out / "report.html"
    assert report.is_file() and str(report) in text
    everything = report.read_text(encoding="utf-8")  # one page for all three examples
    assert everything.startswith("<!DOCTYPE html>") and 'id="interplay-data"' in everything
    # the text rows carry their tokens (token highlighting), the image row its pixels and patch map
    assert '"tokens":["it","is","not","a","bad","movie"]' in everything
    assert '"tokens":["The","movie","is","the","worst;","surprisingly","awful"]' in everything
    assert re.search(r'"image":\{"height":8,"width":8,"rgb":"[A-Za-z0-9+/=]+","segments"', everything)
    assert '"label":"diabetes: test row 1"' in everything


@pytest.fixture(scope="module")
def text_out():
    lines = []
    out = demo_module.text_step(lines.append)
    return out, "\n".join(lines)


def test_text_step_numbers_are_consistent(text_out):
    out, printed = text_out
    assert [e["sentence"] for e in out["sentences"]] == list(demo_module.SENTENCES)
    rng = np.random.default_rng(0)
    for entry in out["sentences"]:
        game, tokens, phi = entry["game"], entry["tokens"], entry["shapley"]
        n = len(tokens)
        assert tokens == entry["sentence"].split() and game.n_evaluations == 2**n
        # game values are VADER's compound score on the kept words (a removed word is dropped)
        coalitions = np.vstack([np.zeros(n, bool), np.ones(n, bool), rng.random((6, n)) < 0.5])
        kept = [" ".join(t for t, keep in zip(tokens, row) if keep) for row in coalitions]
        np.testing.assert_array_equal(game(coalitions), compound(kept))
        # efficiency: sum + baseline = VADER(sentence), baseline = VADER("")
        assert phi.baseline == compound([""])[0]
        assert phi.values.sum() + phi.baseline == pytest.approx(compound([entry["sentence"]])[0], abs=1e-12)
        # the Bivariate matrix's univariate values are these Shapley values; C-Shapley used no extra coalition
        np.testing.assert_allclose(entry["bivariate"].univariate.values, phi.values, atol=1e-12)
        assert entry["c_shapley"].method == "c-shapley" and entry["c_shapley"].info["k"] == 1
        assert entry["c_shapley"].n_evaluations < 2**n
        # every printed Shapley value is the computed one
        for token, a, b in zip(tokens, phi.values, entry["c_shapley"].values):
            assert f"  {token:<14}{demo_module._num(a):>14}{demo_module._num(b):>15}" in printed
    worst, negated = out["sentences"]
    # "not" flips "bad": positive exactly, but C-Shapley with k=1 cannot see "bad" two words away
    phi, local = negated["shapley"], negated["c_shapley"]
    assert phi["2:not"] > 0.4 and phi["4:bad"] < 0 and local["2:not"] == 0 and local["4:bad"] < -0.3
    # words VADER ignores are null players: no effect, set aside (by the letter of the paper's Def. 4.1 they would
    # be one interchangeable group and the only sinks); the sentiment words are the sources of H
    assert negated["redundancy"].no_effect == ("0:it", "1:is", "3:a", "5:movie")
    assert negated["redundancy"].groups() == [] and negated["redundancy"].sinks() == []
    assert negated["redundancy"].sources() == ["2:not", "4:bad"]
    assert worst["redundancy"].no_effect == ("0:The", "1:movie", "2:is", "3:the")
    assert worst["shapley"].ranking()[0] == "4:worst;"
    # report results carry the tokens and the sentence's own label
    labels = [r.info["row"] for r in out["report"]]
    assert labels[0] == 'text 1: "The movie is the worst; surprisingly awful"' and len(labels) == 4
    assert all(list(r.info["tokens"]) == e["tokens"]
               for r, e in zip(out["report"], [s for s in out["sentences"] for _ in (0, 1)]))


@pytest.fixture(scope="module")
def image_out():
    lines = []
    out = demo_module.image_step(lines.append)
    return out, "\n".join(lines)


def test_image_step_numbers_are_consistent(image_out):
    out, printed = image_out
    game, phi, image, label, predict = out["game"], out["shapley"], out["image"], out["label"], out["predict"]
    assert image.shape == (8, 8) and game.n_players == 16 and game.n_evaluations == 2**16
    assert label == int(np.argmax(predict(image[None])[0]))
    # efficiency: sum + P(label | blank image) = P(label | image)
    assert phi.baseline == pytest.approx(predict(np.zeros((1, 8, 8)))[0, label], abs=1e-12)
    assert phi.values.sum() + phi.baseline == pytest.approx(predict(image[None])[0, label], abs=1e-9)
    # game values: the classifier on the image with the absent 2x2 patches set to 0 (built by hand)
    coalitions = all_coalitions(16)[[0, 1, 0b1010_0000_0101_0011, 2**16 - 1]]
    masked = np.zeros((len(coalitions), 8, 8))
    for k, row in enumerate(coalitions):
        for p in np.flatnonzero(row):
            r, c = divmod(int(p), 4)
            masked[k, 2 * r:2 * r + 2, 2 * c:2 * c + 2] = image[2 * r:2 * r + 2, 2 * c:2 * c + 2]
    np.testing.assert_allclose(game(coalitions), predict(masked)[:, label], atol=1e-12)
    np.testing.assert_allclose(out["bivariate"].univariate.values, phi.values, atol=1e-12)
    # the printed grid is the Shapley values, row by row
    for r in range(4):
        assert "".join(f"{demo_module._num(v):>8}" for v in phi.values[4 * r:4 * r + 4]) in printed
    # the report result carries the pixels and the patch map (region i = patch (i // 4, i % 4))
    (result,) = out["report"]
    assert result.feature_names == tuple(f"r{r}c{c}" for r in range(4) for c in range(4))
    np.testing.assert_array_equal(result.info["segments"], np.arange(16).reshape(4, 4).repeat(2, 0).repeat(2, 1))
    assert result.info["image"].min() >= 0 and result.info["image"].max() <= 1


def _attribution(names, label):
    return Attribution(np.arange(len(names), dtype=float), 0.5, tuple(names), 2**len(names), "exact",
                       info={"row": label})


def test_tour_report_is_one_page_with_escaped_labels(tmp_path):
    evil = "<script>alert(1)</script>"
    mixed = [("tab", [_attribution(["x", "y"], "table row")]),
             ("text", [_attribution(["a", "b", "c"], evil), _attribution(["d"], "other words")])]
    path = demo_module.write_tour_report(mixed, tmp_path / "tour")
    assert path == tmp_path / "tour" / "report.html"
    page = path.read_text()
    assert '"label":"table row"' in page and '"label":"other words"' in page
    assert evil not in page  # user strings reach the page only as escaped JSON data


def test_tour_skips_a_step_with_a_missing_dependency_and_rejects_unknown_steps(monkeypatch):
    def needs_missing(echo, *, random_state=0):
        raise ImportError("No module named 'not_installed'")

    monkeypatch.setitem(demo_module.TOUR_STEPS, "missing", needs_missing)
    monkeypatch.setitem(demo_module.TOUR_TITLES, "missing", "a step whose dependency is missing")
    lines = []
    out = demo_module.run_tour(lines.append, out_dir=None, steps=["missing", "text"])
    assert "missing" not in out and "text" in out and "report_path" not in out
    assert "(skipped the missing example: No module named 'not_installed')" in lines
    assert lines[0] == "interplay tour: missing -> text"
    with pytest.raises(ValueError, match="steps: expected some of"):
        demo_module.run_tour(lines.append, out_dir=None, steps=["nope"])
