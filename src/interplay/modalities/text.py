"""Text as a game over tokens: a model that scores strings, a sentence, and which tokens are present.

``v(S)`` = the model's utility on the text rebuilt from the tokens in ``S``; a removed token is dropped
(default) or replaced by ``mask`` (e.g. ``"[MASK]"``). Tokens come from a tokenizer (``"whitespace"``, a
regular expression, or a callable) or are given. The players are the tokens in order; ``game.graph`` is the
path graph over them (the sequence graph of L-/C-Shapley, papers' README), and ``graph="sequence"`` names it.
Cost: one model call per batch of coalitions, one string per coalition.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np

from .._validation import check_int
from ..games import Game
from ..removal._columns import chunked
from ._common import ModalityExplainer, explained_output, output_transform


def tokenize(text: str, tokenizer: str | Callable[[str], Sequence[str]] = "whitespace") -> list[str]:
    """Split ``text``: ``"whitespace"`` (``str.split``), a regular expression (its matches), or a callable."""
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")
    if callable(tokenizer):
        tokens = [str(t) for t in tokenizer(text)]
    elif tokenizer == "whitespace":
        tokens = text.split()
    elif isinstance(tokenizer, str):
        tokens = re.findall(tokenizer, text)
    else:
        raise TypeError(f"tokenizer: expected 'whitespace', a regular expression or a callable, got {tokenizer!r}")
    if not tokens:
        raise ValueError(f"text: no tokens found in {text!r}")
    return tokens


class TextGame(Game):
    """A :class:`~interplay.games.Game` whose players are ``tokens``; ``graph`` is their path graph."""

    graph_name = "sequence"

    def __init__(self, value_fn, tokens: Sequence[str], *, mask: str | None, separator: str,
                 batch_size: int | None = None) -> None:
        self.tokens = tuple(tokens)
        self.mask = mask
        self.separator = separator
        names = [f"{i}:{t}" for i, t in enumerate(self.tokens)]
        super().__init__(value_fn, len(self.tokens), names, batch_size=batch_size)

    @property
    def graph(self):
        """The token sequence as a networkx path graph (node ``i`` = token ``i``)."""
        import networkx as nx

        return nx.path_graph(self.n_players)

    def texts(self, coalitions: Any) -> list[str]:
        """The strings the model sees for ``coalitions`` (``(k, n)`` booleans)."""
        coalitions = np.atleast_2d(np.asarray(coalitions, dtype=bool))
        return masked_texts(self.tokens, coalitions, self.mask, self.separator)


def masked_texts(tokens: Sequence[str], coalitions: np.ndarray, mask: str | None, separator: str) -> list[str]:
    """One string per coalition: present tokens kept, absent ones dropped or replaced by ``mask``."""
    tokens = np.array(tokens, dtype=object)
    if mask is None:
        return [separator.join(tokens[row]) for row in coalitions]
    return [separator.join(row) for row in np.where(coalitions, tokens, mask)]


def text_game(model: Any, text: str | None = None, *, tokens: Sequence[str] | None = None,
              tokenizer: str | Callable = "whitespace", mask: str | None = None, separator: str = " ",
              target: Any = None, output: str = "auto", classifier: bool | None = None,
              max_rows: int = 4096) -> TextGame:
    """The game of ``text`` (or of the given ``tokens``) for a model that scores a list of strings.

    ``model``: a callable ``list[str] -> (N,)`` or ``(N, K)`` scores, or an object with ``predict_proba`` /
    ``predict`` on strings (e.g. a scikit-learn text Pipeline). ``target``/``output`` choose the utility as in
    :class:`~interplay.Explainer`. ``max_rows`` bounds the strings per model call.
    """
    from ..models import as_model

    model = as_model(model, classifier=classifier)
    if tokens is None:
        if text is None:
            raise ValueError("text: pass a string, or tokens= a list of tokens")
        tokens = tokenize(text, tokenizer)
    else:
        tokens = [str(t) for t in tokens]
        if not tokens:
            raise ValueError("tokens: expected at least one token")
    max_rows = check_int(max_rows, "max_rows", minimum=1)
    full = model([separator.join(tokens)])
    transform = output_transform(model, full, target, output)

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        return chunked(lambda chunk: transform(model(masked_texts(tokens, chunk, mask, separator))),
                       coalitions, max_rows)

    value_fn.__name__ = f"text game of {model.name}"
    game = TextGame(value_fn, tokens, mask=mask, separator=separator)
    game.explained = explained_output(model, transform)  # results record their unit and target
    return game


class TextExplainer(ModalityExplainer):
    """Explain a text model: ``TextExplainer(model, mask=None).shapley("it is not a bad movie")``.

    Options as in :func:`text_game` (``tokenizer``, ``mask``, ``separator``, ``target``, ``output``).
    """

    def __init__(self, model: Any, *, tokenizer: str | Callable = "whitespace", mask: str | None = None,
                 separator: str = " ", target: Any = None, output: str = "auto", classifier: bool | None = None,
                 max_rows: int = 4096) -> None:
        super().__init__(model, target=target, output=output, classifier=classifier)
        self.tokenizer, self.mask, self.separator, self.max_rows = tokenizer, mask, separator, max_rows

    def annotations(self, game: TextGame) -> dict:
        """Results carry their tokens (``info["tokens"]``): ``ip.plot.text(result)`` and the report draw them."""
        return {"tokens": list(game.tokens)}

    def game(self, text: str | Sequence[str]) -> TextGame:
        """The game of ``text`` (a string, or a list of tokens)."""
        kwargs = dict(mask=self.mask, separator=self.separator, target=self.target, output=self.output,
                      max_rows=self.max_rows)
        if isinstance(text, str):
            return text_game(self.model, text, tokenizer=self.tokenizer, **kwargs)
        if text is None or not hasattr(text, "__iter__"):
            raise TypeError(f"text: expected a string or a list of tokens, got {type(text).__name__}")
        return text_game(self.model, tokens=list(text), **kwargs)
