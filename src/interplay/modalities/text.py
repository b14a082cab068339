"""Text as a game over tokens: a model that scores strings, a sentence, and which tokens are present.

``v(S)`` = the model's utility on the text rebuilt from the tokens in ``S``; a removed token is dropped
(default) or replaced by ``mask`` (e.g. ``"[MASK]"``). Tokens come from a tokenizer (``"whitespace"``, a
regular expression, or a callable) or are given. The players are the tokens in order; ``game.graph`` is the
path graph over them (the sequence graph of L-/C-Shapley, papers' README), and ``graph="sequence"`` names it.
Cost: one model call per batch of coalitions, one string per coalition.

Texts are rebuilt from the input itself, so the full coalition is exactly the input (``v(N) = f(text)``):
each token keeps its place, and the text between tokens (spaces, line breaks, nothing before a comma) stays
as it was. A masked token's span is replaced by ``mask``, all separators kept. A dropped token's span goes, and
with it the separators on both of its sides but one: between the kept tokens on either side of a run of
dropped tokens goes the longest of the separators that were between them (the first when they tie), so two
words never run together (dropping "bad" from ``"Not bad, really!"`` gives ``"Not , really!"``, dropping ","
gives ``"Not bad really!"``; where dropped punctuation was the only thing between two words, a space goes
there: dropping "," from ``"good,bad!"`` gives ``"good bad!"``, while subwords of one word stay joined). Text
before the first and after the last token is always kept; dropping the first (last) tokens drops the
separators after (before) them. Tokens given as a list (``tokens=``), or from a callable tokenizer whose
tokens are not found in the text in order, are joined with ``separator`` (a warning says so when that is not
the input text). A callable tokenizer's tokens are
found in order, each where it first occurs unless that is inside a word whose start no token covers (a
tokenizer that leaves words out; :func:`_find_spans`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import Any, Callable, Sequence

import numpy as np

from .._validation import check_int
from ..games import Game
from ._common import (
    ModalityExplainer,
    check_probabilities,
    explained_output,
    model_calls,
    output_transform,
)


def _check_text(text: Any) -> str:
    if isinstance(text, (bytes, bytearray)):
        raise TypeError(f"text: expected a string, got {type(text).__name__}; decode it first, e.g. "
                        "text.decode('utf-8')")
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, got {type(text).__name__}")
    return text


def _pattern(tokenizer: str) -> re.Pattern:
    """The compiled regular expression of a regex tokenizer: one without capturing groups (``re.findall``
    would give tuples of groups, not tokens)."""
    try:
        pattern = re.compile(tokenizer)
    except re.error as exc:
        raise ValueError(f"tokenizer: {tokenizer!r} is not a valid regular expression ({exc})") from None
    if pattern.groups:
        raise ValueError(f"tokenizer: the regular expression {tokenizer!r} has {pattern.groups} capturing "
                         "group(s); each match is one token, so write the groups as non-capturing (?:...), e.g. "
                         r"r'\w+|[^\w\s]' for r'(\w+)|([^\w\s])'")
    return pattern


def _find_spans(text: str, tokens: Sequence[str]) -> list[tuple[int, int]] | None:
    """Where ``tokens`` lie in ``text``, searched in order; ``None`` when one is not found after the previous.

    A token found right after the previous one, or not glued to skipped letters, is taken where it is first
    found; one found inside a word whose start no token covers (a tokenizer that leaves words out: "thing" in
    "nothing thing" after dropping "nothing") is taken at its next occurrence that starts a word instead, when
    there is one (subword tokens, which follow one another, are still found inside their word)."""
    spans, position = [], 0
    for token in tokens:
        start = text.find(token, position)
        if start < 0:
            return None
        if start > position and _wordy(text[start - 1]) and _wordy(token[0]):  # glued to skipped letters
            at = start
            while at >= 0 and _wordy(text[at - 1]):
                at = text.find(token, at + 1)
            start = at if at >= 0 else start
        spans.append((start, start + len(token)))
        position = start + len(token)
    return spans


def _wordy(character: str) -> bool:
    """Whether ``character`` belongs to a word (``\\w``: letters, digits, underscore)."""
    return bool(re.match(r"\w", character))


def token_spans(text: str, tokenizer: str | Callable[[str], Sequence[str]] = "whitespace"
                ) -> tuple[list[str], list[tuple[int, int]] | None]:
    r"""The tokens of ``text`` and their ``(start, end)`` spans in it (``None`` for a callable tokenizer whose
    tokens are not found in the text in order). Empty tokens (a pattern such as ``r"\w*"`` matches the empty
    string between words) are dropped: they are no part of the text."""
    text = _check_text(text)
    if callable(tokenizer):
        tokens = _called_tokens(tokenizer, text)
        spans = _find_spans(text, tokens)
    elif tokenizer == "whitespace":
        matches = list(re.finditer(r"\S+", text))
        tokens, spans = [m.group() for m in matches], [m.span() for m in matches]
    elif isinstance(tokenizer, str):
        matches = [m for m in _pattern(tokenizer).finditer(text) if m.end() > m.start()]
        tokens, spans = [m.group() for m in matches], [m.span() for m in matches]
    else:
        raise TypeError(f"tokenizer: expected 'whitespace', a regular expression or a callable, got {tokenizer!r}")
    if not tokens:
        raise ValueError(f"text: no tokens found in {text!r}")
    return tokens, spans


def _called_tokens(tokenizer: Callable[[str], Sequence[str]], text: str) -> list[str]:
    """The non-empty tokens a callable tokenizer returns for ``text``: a list (or other iterable) of strings. A
    string returned (``lambda s: s.lower()`` for ``lambda s: s.lower().split()``) was split into characters,
    spaces included, ``None`` failed with "'NoneType' object is not iterable", and a mapping (a Hugging Face
    tokenizer called itself returns a ``BatchEncoding``) gave its keys as tokens; all refused, as is a tokenizer
    that returns no token for a text that has some (its message named the text, not the tokenizer)."""
    name = getattr(tokenizer, "__name__", type(tokenizer).__name__)
    returned = tokenizer(text)
    if isinstance(returned, (str, bytes, bytearray)) or returned is None or not hasattr(returned, "__iter__"):
        what = f"a string {returned[:40]!r}" if isinstance(returned, str) else type(returned).__name__
        raise TypeError(f"tokenizer: {name} must return a list of token strings, got {what}"
                        + ("; split it, e.g. lambda s: s.split()" if isinstance(returned, str) else ""))
    if isinstance(returned, Mapping):
        raise TypeError(f"tokenizer: {name} must return a list of token strings, got a mapping "
                        f"{type(returned).__name__} (keys {list(returned)[:3]}); for a Hugging Face tokenizer pass "
                        "its .tokenize method")
    tokens = [t for t in (str(t) for t in returned) if t]
    if not tokens and text.strip():
        raise ValueError(f"tokenizer: {name} returned no tokens for {text[:60]!r}")
    return tokens


def tokenize(text: str, tokenizer: str | Callable[[str], Sequence[str]] = "whitespace") -> list[str]:
    """Split ``text``: ``"whitespace"`` (``str.split``), a regular expression (its matches; capturing groups are
    refused, empty matches dropped), or a callable (empty tokens dropped)."""
    return token_spans(text, tokenizer)[0]


def _gaps(text: str, spans: Sequence[tuple[int, int]]) -> tuple[str, ...]:
    """The text before the first token, between consecutive tokens, and after the last (``n + 1`` strings)."""
    ends = [0] + [end for _, end in spans]
    starts = [start for start, _ in spans] + [len(text)]
    return tuple(text[a:b] for a, b in zip(ends, starts))


class TextGame(Game):
    """A :class:`~interplay.games.Game` whose players are ``tokens``; ``graph`` is their path graph.

    ``gaps``: the ``n + 1`` separators of the input text (before, between and after the tokens) that rebuild
    it, or ``None`` when the tokens are joined with ``separator`` (module docstring)."""

    graph_name = "sequence"

    def __init__(self, value_fn, tokens: Sequence[str], *, mask: str | None, separator: str,
                 gaps: Sequence[str] | None = None, batch_size: int | None = None) -> None:
        self.tokens = tuple(tokens)
        self.mask = mask
        self.separator = separator
        self.gaps = None if gaps is None else tuple(gaps)
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
        return masked_texts(self.tokens, coalitions, self.mask, self.separator, self.gaps)


def _rebuilt(tokens: Sequence[str], gaps: Sequence[str], keep: np.ndarray, mask: str | None) -> str:
    """One coalition's text from the input's tokens and separators (module docstring)."""
    n = len(tokens)
    if mask is not None:
        parts = [gaps[0]]
        for i in range(n):
            parts.append(tokens[i] if keep[i] else mask)
            parts.append(gaps[i + 1])
        return "".join(parts)
    parts, previous = [gaps[0]], None
    for i in np.flatnonzero(keep).tolist():
        if previous is None:
            separator = ""  # the text before the first token is kept; the separators after dropped tokens go
        else:
            separator = max(gaps[previous + 1:i + 1], key=len)  # the longest separator of the dropped run
        run = tokens[(0 if previous is None else previous + 1):i]  # the dropped tokens before this one
        apart = any(not (_wordy(t[0]) and _wordy(t[-1])) for t in run)  # punctuation kept the words apart
        if apart and not separator and parts[-1] and _wordy(parts[-1][-1]) and _wordy(tokens[i][0]):
            separator = " "  # words that only dropped punctuation kept apart ("good,bad!") never run together
        parts.append(separator)
        parts.append(tokens[i])
        previous = i
    parts.append(gaps[n])
    return "".join(parts)


def masked_texts(tokens: Sequence[str], coalitions: np.ndarray, mask: str | None, separator: str,
                 gaps: Sequence[str] | None = None) -> list[str]:
    """One string per coalition: present tokens kept, absent ones dropped or replaced by ``mask``; rebuilt
    with the input's separators ``gaps`` (module docstring), or joined with ``separator`` without them."""
    if gaps is not None:
        return [_rebuilt(tokens, gaps, row, mask) for row in coalitions]
    tokens = np.array(tokens, dtype=object)
    if mask is None:
        return [separator.join(tokens[row]) for row in coalitions]
    return [separator.join(row) for row in np.where(coalitions, tokens, mask)]


def text_game(model: Any, text: str | None = None, *, tokens: Sequence[str] | None = None,
              tokenizer: str | Callable = "whitespace", mask: str | None = None, separator: str = " ",
              target: Any = None, output: str = "auto", classifier: bool | None = None,
              max_rows: int = 512) -> TextGame:
    """The game of ``text`` (or of the given ``tokens``) for a model that scores a list of strings.

    ``model``: a callable ``list[str] -> (N,)`` or ``(N, K)`` scores, or an object with ``predict_proba`` /
    ``predict`` on strings (e.g. a scikit-learn text Pipeline). ``target``/``output`` choose the utility as in
    :class:`~interplay.Explainer`: by default a binary classifier's positive class (its second class, for every
    text alike), but a classifier of more than two classes explains its predicted class for ``text``;
    ``target="predicted"`` explains the predicted class of a binary one too. A model declared
    ``classifier=True`` must return class probabilities on the text and on the text without its tokens (else a
    ValueError, as in the Explainer). ``separator`` joins given ``tokens`` (a text is rebuilt with its own
    separators: module docstring). ``max_rows`` bounds the strings per model call (512: a long text's thousands
    of strings go in several calls, with progress shown once they take a few seconds).
    """
    from ..models import as_model

    model = as_model(model, classifier=classifier)
    gaps = None
    if tokens is None:
        if text is None:
            raise ValueError("text: pass a string, or tokens= a list of tokens")
        tokens, spans = token_spans(text, tokenizer)
        if spans is not None:
            gaps = _gaps(text, spans)
        elif separator.join(tokens) != text:
            warnings.warn(f"tokenizer: its tokens are not found in the text in order (subword pieces?); the "
                          f"model sees them joined with separator={separator!r}, so v(N) is the model on "
                          f"{separator.join(tokens)[:60]!r}, not on the text", UserWarning, stacklevel=3)
    else:
        if any(isinstance(t, (bytes, bytearray)) for t in tokens):
            raise TypeError("tokens: expected strings, got bytes; decode them first, e.g. t.decode('utf-8')")
        tokens = [str(t) for t in tokens]
        if not tokens:
            raise ValueError("tokens: expected at least one token")
    max_rows = check_int(max_rows, "max_rows", minimum=1)
    ends = np.zeros((2, len(tokens)), dtype=bool)
    ends[0] = True  # the text as given, and the text with every token removed: one call for both
    texts = masked_texts(tokens, ends, mask, separator, gaps)  # one call for both (max_rows=1: two)
    full = np.concatenate([model(texts[k:k + max_rows]) for k in range(0, 2, max_rows)])
    check_probabilities(model, full, "the text and on the text without its tokens")
    transform = output_transform(model, full, target, output)

    def value_fn(coalitions: np.ndarray) -> np.ndarray:
        return model_calls(lambda chunk: transform(model(masked_texts(tokens, chunk, mask, separator, gaps))),
                           coalitions, max_rows, "text")

    value_fn.__name__ = f"text game of {model.name}"
    game = TextGame(value_fn, tokens, mask=mask, separator=separator, gaps=gaps)
    game.explained = explained_output(model, transform)  # results record their unit and target
    return game


class TextExplainer(ModalityExplainer):
    """Explain a text model: ``TextExplainer(model, mask=None).shapley("it is not a bad movie")``.

    Options as in :func:`text_game` (``tokenizer``, ``mask``, ``separator``, ``target``, ``output``). Default
    target: a binary classifier's positive class for every text (signs and colours mean the same across texts);
    a classifier of more than two classes, each text's predicted class (``target="predicted"``: each text's
    predicted class for a binary one too). The model sees the text itself, rebuilt with its own separators
    (module docstring), so the values add up to ``f(text) - f(text without its tokens)``.
    """

    def __init__(self, model: Any, *, tokenizer: str | Callable = "whitespace", mask: str | None = None,
                 separator: str = " ", target: Any = None, output: str = "auto", classifier: bool | None = None,
                 max_rows: int = 512) -> None:
        super().__init__(model, target=target, output=output, classifier=classifier)
        self.tokenizer, self.mask, self.separator, self.max_rows = tokenizer, mask, separator, max_rows

    def annotations(self, game: TextGame) -> dict:
        """Results carry their tokens (``info["tokens"]``) and the text around them (``info["gaps"]``, the ``n + 1``
        strings before, between and after them): ``ip.plot.text(result)`` and the report draw them; and
        how absent tokens were removed (``info["removal"]``: ``"tokens dropped"`` or ``"tokens replaced by
        '[MASK]'"``), which the values depend on."""
        removal = "tokens dropped" if game.mask is None else f"tokens replaced by {game.mask!r}"
        n = len(game.tokens)
        # the text around the tokens, which rebuilds it (to_shap's tokens carry it, as shap's own do)
        gaps = list(game.gaps) if game.gaps is not None else ["", *[game.separator] * (n - 1), ""]
        return {"tokens": list(game.tokens), "gaps": gaps, "removal": removal}

    def game(self, text: str | Sequence[str]) -> TextGame:
        """The game of ``text`` (a string, or a list of tokens)."""
        kwargs = dict(mask=self.mask, separator=self.separator, target=self.target, output=self.output,
                      max_rows=self.max_rows)
        if isinstance(text, str):
            return text_game(self.model, text, tokenizer=self.tokenizer, **kwargs)
        if isinstance(text, (bytes, bytearray)):
            _check_text(text)  # a TypeError naming text: decode it first
        if text is None or not hasattr(text, "__iter__"):
            raise TypeError(f"text: expected a string or a list of tokens, got {type(text).__name__}")
        return text_game(self.model, tokens=list(text), **kwargs)
