"""Text games: agree with the model evaluated directly on the masked strings (VADER sentiment, offline)."""

import networkx as nx
import numpy as np
import pytest

import interplay as ip
from interplay._bits import all_coalitions
from interplay.modalities import TextExplainer, text_game, tokenize

vader = pytest.importorskip("vaderSentiment.vaderSentiment")
ANALYZER = vader.SentimentIntensityAnalyzer()


def compound(texts):
    return np.array([ANALYZER.polarity_scores(t)["compound"] for t in texts])


@pytest.mark.parametrize("sentence", ["The movie is the worst; surprisingly awful", "it is not a bad movie"])
@pytest.mark.parametrize("mask", [None, "[MASK]"])
def test_text_game_matches_model_on_masked_strings(sentence, mask):
    game = text_game(compound, sentence, mask=mask)
    tokens = sentence.split()
    assert game.tokens == tuple(tokens) and game.n_players == len(tokens)
    coalitions = all_coalitions(len(tokens))
    by_hand = [" ".join(t if keep else mask for t, keep in zip(tokens, S) if keep or mask is not None)
               for S in coalitions]
    np.testing.assert_allclose(game(coalitions), compound(by_hand), atol=0)
    assert game.texts(coalitions[5:6]) == by_hand[5:6]
    phi = ip.shapley(game)
    assert phi.values.sum() == pytest.approx(compound([sentence])[0] - compound([by_hand[0]])[0])


def test_vader_explanations_make_sense():
    phi = TextExplainer(compound).shapley("it is not a bad movie")
    assert phi["2:not"] > 0 > phi["4:bad"]  # "not" flips the negative "bad"
    worst = TextExplainer(compound, tokenizer=r"\w+|[^\w\s]").shapley("The movie is the worst; surprisingly awful")
    assert worst.ranking()[0] == "4:worst"
    assert worst["4:worst"] < 0 and worst["7:awful"] < 0


def test_sequence_graph_and_tokens():
    game = text_game(compound, tokens=["not", "good", "at", "all"])
    graph = game.graph
    assert game.graph_name == "sequence"
    assert nx.utils.graphs_equal(graph, nx.path_graph(4))
    assert tokenize("a, b", r"\w+|[^\w\s]") == ["a", ",", "b"]
    assert tokenize("x y", lambda s: s.split(" ")) == ["x", "y"]
    with pytest.raises(ValueError, match="no tokens"):
        tokenize("   ")
    with pytest.raises(ValueError, match="text: pass a string"):
        text_game(compound)


def test_sklearn_text_classifier():
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    texts = ["good movie", "great film", "bad movie", "awful film", "good plot", "bad plot", "great acting",
             "awful acting"]
    labels = ["pos", "pos", "neg", "neg", "pos", "neg", "pos", "neg"]
    pipe = make_pipeline(CountVectorizer(), LogisticRegression()).fit(texts, labels)
    explainer = TextExplainer(pipe, target="pos", output="log-odds")
    phi = explainer.shapley("a great movie")
    p = pipe.predict_proba(["a great movie"])[0, list(pipe.classes_).index("pos")]
    p0 = pipe.predict_proba([""])[0, list(pipe.classes_).index("pos")]
    assert phi.values.sum() == pytest.approx(np.log(p / (1 - p)) - np.log(p0 / (1 - p0)))
    assert phi.ranking()[0] == "1:great"


def test_bad_text_model_is_named():
    def broken(texts):
        return np.full(len(texts), np.nan)

    with pytest.raises(ValueError, match="model call broken returned NaN"):
        text_game(broken, "a b")


def test_graph_methods_receive_the_token_graph(monkeypatch):
    from interplay.estimators import _registry

    seen = []

    def fake(game, *, budget, rng, graph=None, k=1):
        seen.append(graph)
        return ip.shapley(game)

    monkeypatch.setitem(_registry._REGISTRY["shapley"], "l-shapley", fake)
    TextExplainer(compound).shapley("not bad at all", method="l-shapley")
    assert nx.utils.graphs_equal(seen[0], nx.path_graph(4))
    TextExplainer(compound).shapley("not bad", method="l-shapley", graph="sequence")
    assert seen[1] == "sequence"


def test_real_l_shapley_on_the_token_path():
    if "l-shapley" not in ip.available_methods("shapley"):
        pytest.skip("method='l-shapley' is not on this branch")
    sentence = "it is not a bad movie"
    whole = TextExplainer(compound).shapley(sentence, method="l-shapley", k=6)  # N_k(i) = all tokens: exact
    np.testing.assert_allclose(whole.values, TextExplainer(compound).shapley(sentence).values, atol=1e-12)
