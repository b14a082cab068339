"""The demo tour: tabular, text and image examples explained end to end, ending with an HTML report.

``run_tour`` runs the registered steps in order and writes ``report.html`` with their results:

- ``tabular`` (:func:`run_demo`): gradient boosting on scikit-learn's diabetes data, one row explained
  exactly (Shapley values, Banzhaf interactions, the Bivariate Shapley matrix);
- ``text`` (:func:`text_step`): the VADER sentiment model (``vaderSentiment``) on the papers' sentences, exact
  Shapley values over the words next to C-Shapley (k=1, L-/C-Shapley paper), the Bivariate Shapley matrix and
  its redundancy graph H (Bivariate Shapley paper, Section 4.1);
- ``image`` (:func:`image_step`): a logistic regression on scikit-learn's digits, one digit explained exactly
  over 2x2-pixel patches (16 regions).

Extension point: a step is ``@tour_step(name, title)`` on ``step(echo, *, random_state) -> dict`` whose
``"report"`` entry is a list of result objects (``info["row"]`` names the section in the report; ``info["tokens"]``
or ``info["image"]`` + ``info["segments"]`` draw the tokens or the image); a step may raise ImportError when its
optional dependencies are missing, and the tour skips it with a note.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np


def run_demo(echo: Callable[[str], None] = print, *, row: int = 0, random_state: int = 0) -> dict:
    """Train a gradient-boosted regressor on scikit-learn's diabetes data (10 features) and print, for one
    test row, the exact Shapley values, the strongest Banzhaf interaction pairs and the Bivariate Shapley
    matrix. Cost: 2**10 coalitions x 50 background rows = 51,200 model rows, evaluated once and shared.
    Returns the results (for tests and notebooks)."""
    from sklearn.datasets import load_diabetes
    from sklearn.ensemble import GradientBoostingRegressor
    from sklearn.model_selection import train_test_split

    import interplay as ip

    data = load_diabetes(as_frame=True)
    X_train, X_test, y_train, y_test = train_test_split(data.data, data.target, test_size=0.2,
                                                        random_state=random_state)
    model = GradientBoostingRegressor(random_state=random_state).fit(X_train, y_train)
    background = X_train.sample(50, random_state=random_state)
    explainer = ip.Explainer(model, background, removal="marginal")
    if not 0 <= row < len(X_test):
        raise ValueError(f"row: expected 0 <= row < {len(X_test)} (rows in the test set), got {row}")
    x = X_test.iloc[[row]]
    game = explainer.game(x)

    shapley = ip.shapley(game, method="exact")
    bii = ip.interactions(game, index="bii", order=2, method="exact")
    biv = ip.bivariate(game, method="exact")

    names = shapley.feature_names
    echo("interplay demo: diabetes progression, gradient boosting, marginal removal over 50 background rows")
    echo(f"row {row} of the test set; prediction {float(model.predict(x)[0]):.2f}, "
         f"average prediction (baseline) {shapley.baseline:.2f}")
    echo("")
    echo("Exact Shapley values (sum + baseline = prediction):")
    for name in shapley.ranking():
        echo(f"  {name:<6} {shapley[name]:+9.3f}")
    echo(f"  {'sum':<6} {shapley.values.sum():+9.3f}")
    echo("")
    echo("Strongest Banzhaf interaction pairs (BII):")
    for (a, b), value in bii.top(5):
        echo(f"  {a} x {b}: {value:+.3f}")
    echo("")
    echo("Bivariate Shapley matrix: row i, column j = importance of j when i is present")
    width = max(len(n) for n in names) + 1
    echo(" " * width + "".join(f"{n:>8}" for n in names))
    for i, name in enumerate(names):
        echo(f"{name:<{width}}" + "".join(f"{biv.adjacency[i, j]:8.2f}" for j in range(len(names))))
    echo("")
    echo(f"{game.n_evaluations} coalitions evaluated ({explainer.model.n_rows:,} model rows in "
         f"{explainer.model.n_calls} calls) for all three results.")
    return {"shapley": shapley, "bii": bii, "bivariate": biv, "game": game, "model": model,
            "x": x.to_numpy(dtype=float)[0]}


TOUR_STEPS: dict[str, Callable[..., dict]] = {}
TOUR_TITLES: dict[str, str] = {}


def tour_step(name: str, title: str | None = None) -> Callable[[Callable[..., dict]], Callable[..., dict]]:
    """Register ``fn(echo, *, random_state) -> dict`` as a step of :func:`run_tour` (run in registration order);
    ``title`` is the step's one-line heading in the tour."""

    def decorate(fn: Callable[..., dict]) -> Callable[..., dict]:
        TOUR_STEPS[name] = fn
        TOUR_TITLES[name] = title or name
        return fn

    return decorate


def _num(value: float, spec: str = "+.3f") -> str:
    """A number for the console, without ``-0.000``."""
    return format(round(float(value), 6) + 0.0, spec)


def _matrix_lines(labels: Sequence[str], matrix: np.ndarray, *, width: int = 8) -> list[str]:
    """A square matrix with row and column labels (cut to ``width - 1`` characters); the diagonal as ``-``."""
    short = [str(label)[:width - 1] for label in labels]
    left = max(len(label) for label in short) + 3
    lines = [" " * left + "".join(f"{label:>{width}}" for label in short)]
    for i, label in enumerate(short):
        cells = ("-" if i == j else _num(matrix[i, j], ".3f") for j in range(len(short)))
        lines.append(f"  {label:<{left - 2}}" + "".join(f"{cell:>{width}}" for cell in cells))
    return lines


@tour_step("tabular", "a regression model on a table (scikit-learn's diabetes data, 10 features)")
def tabular_step(echo: Callable[[str], None], *, random_state: int = 0, row: int = 0) -> dict:
    """The diabetes example of :func:`run_demo`, with the results labelled for the report."""
    out = run_demo(echo, row=row, random_state=random_state)
    label = f"diabetes: test row {row}"
    info = {"row": label, "method": "exact", "removal": "marginal", "output": "prediction", "background": 50,
            "seed": random_state, "model_file": "GradientBoostingRegressor (trained by the demo)",
            "data_file": "scikit-learn diabetes data", "x": [float(v) for v in out["x"]],
            "prediction": float(out["game"].grand_value())}
    out["report"] = [replace(out["bii"], info={**info, "index": "bii"}),
                     replace(out["bivariate"], info=info, univariate=replace(out["shapley"], info=info))]
    return out


# ---------------------------------------------------------------------------------------------------- text
SENTENCES = ("The movie is the worst; surprisingly awful", "it is not a bad movie")  # the papers' examples


def vader_model() -> Callable[[Sequence[str]], np.ndarray]:
    """VADER's compound sentiment score in [-1, 1] (``vaderSentiment``; rule-based, its lexicon ships with it)
    as a model ``list[str] -> (N,)``. Raises ImportError when vaderSentiment is not installed."""
    try:
        from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer
    except ImportError as exc:
        raise ImportError(f"it needs vaderSentiment: pip install 'interplay[text]' ({exc})") from exc

    analyzer = SentimentIntensityAnalyzer()

    def vader_compound(texts: Sequence[str]) -> np.ndarray:
        return np.array([analyzer.polarity_scores(text)["compound"] for text in texts], dtype=float)

    return vader_compound


@tour_step("text", "a sentiment model on sentences (VADER), the words as players")
def text_step(echo: Callable[[str], None], *, random_state: int = 0,
              sentences: Sequence[str] = SENTENCES) -> dict:
    """Per sentence: exact Shapley values of the words (``2**n`` coalitions, ``n`` words), C-Shapley with
    ``k=1`` on the word sequence (L-/C-Shapley paper; no extra evaluations: its coalitions are among the
    ``2**n``), the exact Bivariate Shapley matrix and its redundancy graph H (Bivariate Shapley paper,
    Section 4.1). A removed word is dropped from the sentence. Returns ``{"sentences": [...], "report": [...]}``;
    each sentence's entry holds its ``game``, ``tokens``, ``shapley``, ``c_shapley``, ``bivariate`` and
    ``redundancy``. ``random_state`` is unused (everything is exact)."""
    import interplay as ip

    from .modalities import TextExplainer

    model = vader_model()
    explainer = TextExplainer(model, classifier=False)
    echo("VADER sentiment (vaderSentiment; rule-based, offline): compound score from -1 (negative) to +1 "
         "(positive).")
    echo("The players are the words; a removed word is dropped from the sentence.")
    entries, report = [], []
    for number, sentence in enumerate(sentences, 1):
        game = explainer.game(sentence)
        tokens = list(game.tokens)
        n = len(tokens)
        exact = ip.shapley(game, method="exact")
        local = ip.shapley(game, method="c-shapley", graph=game.graph, k=1)
        biv = ip.bivariate(game, method="exact")
        redundancy = biv.graph().redundancy()
        word = dict(zip(game.feature_names, tokens))

        def words(names: Sequence[str]) -> str:
            return ", ".join(word[name] for name in names) if names else "none"

        echo("")
        echo(f'Sentence {number}: "{sentence}"')
        echo(f"  VADER score {_num(game.grand_value())}; with no words {_num(exact.baseline)} (the baseline)")
        echo(f"  {'word':<14}{'exact Shapley':>14}{'C-Shapley k=1':>15}")
        for token, a, b in zip(tokens, exact.values, local.values):
            echo(f"  {token:<14}{_num(a):>14}{_num(b):>15}")
        echo(f"  {'sum':<14}{_num(exact.values.sum()):>14}{_num(local.values.sum()):>15}"
             "   (exact: sum = score - baseline)")
        gap = int(np.argmax(np.abs(exact.values - local.values)))
        echo(f"  C-Shapley sees each word only with its neighbours ({local.n_evaluations} coalitions; exact: "
             f"{2 ** n}),")
        echo(f"  so it does not add up to the score; it differs most on \"{tokens[gap]}\" "
             f"({_num(exact.values[gap])} exact, {_num(local.values[gap])} with k=1).")
        echo("  Bivariate Shapley: row = word present, column = that word's importance then (0: redundant)")
        for line in _matrix_lines(tokens, biv.adjacency):
            echo("  " + line)
        echo(f"  Redundancy graph H (edge i -> j when |W(i, j)| <= gamma = {redundancy.gamma:.3g}):")
        groups = redundancy.groups()
        echo("    mutually redundant (interchangeable) words: "
             + ("; ".join("{" + words(g) + "}" for g in groups) if groups else "none"))
        echo(f"    sources (no other word makes them redundant): {words(redundancy.sources())}")
        echo(f"    sinks (made redundant by another word, make none redundant): {words(redundancy.sinks())}")
        echo(f"    no effect on the score (set aside): {words(redundancy.no_effect or [])}")
        echo(f"  {game.n_evaluations} coalitions evaluated for all of it ({n} words).")

        label = f'text {number}: "{sentence}"'
        info = {"row": label, "tokens": tokens, "method": "exact", "removal": "dropped words",
                "output": "VADER compound score", "model_file": "VADER (vaderSentiment)",
                "data_file": "the papers' example sentences", "seed": random_state,
                "prediction": float(game.grand_value())}
        report += [replace(biv, info=info, univariate=replace(exact, info=info)),
                   replace(local, info={**local.info, **info, "row": f"{label} (C-Shapley, k=1)",
                                        "method": "c-shapley"})]
        entries.append({"sentence": sentence, "tokens": tokens, "game": game, "shapley": exact,
                        "c_shapley": local, "bivariate": biv, "redundancy": redundancy})
    return {"sentences": entries, "report": report, "model": model}


# ---------------------------------------------------------------------------------------------------- image
_SHADES = " .:-=+*#%@"


def _digit_lines(image: np.ndarray) -> list[str]:
    """An image in [0, 1] as characters, two per pixel."""
    levels = np.clip(np.round(image * (len(_SHADES) - 1)), 0, len(_SHADES) - 1).astype(int)
    return ["".join(2 * _SHADES[v] for v in row) for row in levels]


@tour_step("image", "an image classifier on scikit-learn's digits, pixel patches as players")
def image_step(echo: Callable[[str], None], *, random_state: int = 0, index: int = 0, patch_size: int = 2) -> dict:
    """Train a logistic regression on scikit-learn's 8x8 digits (75 % of them, about a second) and explain the
    predicted class's probability for test image ``index`` over square patches (``patch_size=2``: 16 patches,
    exact Shapley and Bivariate Shapley from all ``2**16`` masked images; a removed patch is set to 0, the
    digits' background). Returns the results, the game, the image and the model."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from threadpoolctl import threadpool_limits

    import interplay as ip

    from .modalities import ImageExplainer

    digits = load_digits()
    images = digits.images / 16.0  # pixels in [0, 1]
    X_train, X_test, y_train, y_test = train_test_split(images, digits.target, test_size=0.25,
                                                        random_state=random_state)
    if not 0 <= index < len(X_test):
        raise ValueError(f"index: expected 0 <= index < {len(X_test)} (test images), got {index}")
    clf = LogisticRegression(max_iter=500)
    with threadpool_limits(limits=1, user_api="blas"):  # a tiny problem: one BLAS thread is fastest
        clf.fit(X_train.reshape(len(X_train), -1), y_train)
    accuracy = clf.score(X_test.reshape(len(X_test), -1), y_test)

    def digits_classifier(batch: np.ndarray) -> np.ndarray:
        batch = np.asarray(batch, dtype=float)
        return clf.predict_proba(batch.reshape(len(batch), -1))

    explainer = ImageExplainer(digits_classifier, segments="patches", patch_size=patch_size, baseline="zero",
                               classifier=True)
    image = X_test[index]
    game = explainer.game(image)
    shapley = ip.shapley(game, method="exact")
    biv = ip.bivariate(game, method="exact")
    proba = digits_classifier(image[None])[0]
    label = int(np.argmax(proba))
    rows = -(-image.shape[0] // patch_size)
    cols = -(-image.shape[1] // patch_size)
    names = [f"r{r}c{c}" for r in range(rows) for c in range(cols)]  # patch row and column
    grid = shapley.values.reshape(rows, cols)

    echo(f"Logistic regression on 8x8 digits (test accuracy {accuracy:.1%}). Test image {index}: "
         f"true label {y_test[index]}, predicted {label} with probability {proba[label]:.3f}.")
    echo(f"The players are {game.n_players} patches of {patch_size}x{patch_size} pixels; a removed patch is set "
         "to 0 (background).")
    echo(f"Exact Shapley values of P({label}) per patch ({game.n_evaluations:,} masked images), beside the digit:")
    digit = _digit_lines(image)
    for line_number, line in enumerate(digit):
        r, offset = divmod(line_number, patch_size)
        values = "".join(f"{_num(v, '+.3f'):>8}" for v in grid[r]) if offset == 0 else ""
        echo(f"  |{line}|  {values}")
    echo(f"  sum {_num(shapley.values.sum())} = P({label}) {game.grand_value():.3f} - P({label}) on a blank "
         f"image {shapley.baseline:.3f}")
    top = np.argsort(-np.abs(shapley.values))[:3]
    echo("  strongest patches (row, column): "
         + ", ".join(f"({i // cols}, {i % cols}) {_num(shapley.values[i])}" for i in top))
    redundancy = biv.graph().redundancy()
    groups = redundancy.groups()
    position = {f: f"({i // cols}, {i % cols})" for i, f in enumerate(game.feature_names)}
    echo(f"  Redundancy graph H (gamma = {redundancy.gamma:.3g}): {sum(len(g) for g in groups)} of "
         f"{game.n_players} patches mutually redundant;")
    echo("    sources (no other patch makes them redundant): "
         + ", ".join(position[f] for f in redundancy.sources()))

    info = {"row": f"digits: test image {index} (label {y_test[index]})", "image": image,
            "segments": game.segments, "method": "exact", "removal": "patches set to 0",
            "output": f"probability of class {label}", "target": label,
            "model_file": "LogisticRegression (trained by the demo)", "data_file": "scikit-learn digits",
            "seed": random_state, "prediction": float(game.grand_value())}
    univariate = replace(shapley, feature_names=tuple(names), info=info)
    report = [replace(biv, feature_names=tuple(names), univariate=univariate, info=info)]
    return {"report": report, "game": game, "shapley": shapley, "bivariate": biv, "redundancy": redundancy,
            "image": image, "label": label, "model": clf, "predict": digits_classifier, "patch_names": names}


# ---------------------------------------------------------------------------------------------------- tour
def run_tour(echo: Callable[[str], None] = print, *, row: int = 0, random_state: int = 0,
             out_dir: str | Path | None = "interplay-demo", steps: Sequence[str] | None = None) -> dict:
    """Run the tour's steps (all registered ones by default: tabular, text, image; a step whose optional
    dependency is missing is skipped with a note), then write ``out_dir/report.html`` with all their results
    (no file when ``out_dir`` is None). Returns the steps' outputs by name, plus ``"report_path"``."""
    names = list(TOUR_STEPS) if steps is None else list(steps)
    unknown = [name for name in names if name not in TOUR_STEPS]
    if unknown or not names:
        raise ValueError(f"steps: expected some of {list(TOUR_STEPS)}, got {list(steps or [])}")
    echo(f"interplay tour: {' -> '.join(names)}" + (" -> report" if out_dir is not None else ""))
    echo("")
    outputs: dict = {}
    sections: list[tuple[str, list]] = []
    for number, name in enumerate(names, 1):
        echo(f"== {name} ==  step {number} of {len(names)}: {TOUR_TITLES[name]}")
        start = time.perf_counter()
        try:
            outputs[name] = TOUR_STEPS[name](echo, random_state=random_state,
                                             **({"row": row} if name == "tabular" else {}))
        except ImportError as exc:
            echo(f"(skipped the {name} example: {exc})")
            echo("")
            continue
        sections.append((name, list(outputs[name].get("report", []))))
        echo(f"({name} took {time.perf_counter() - start:.1f} s)")
        echo("")
    if out_dir is not None and any(results for _, results in sections):
        outputs["report_path"] = write_tour_report(sections, out_dir)
        echo("== report ==")
        echo(f"Report: {outputs['report_path']}  (one self-contained file: open it in any browser, offline)")
    return outputs


def write_tour_report(sections: Sequence[tuple[str, Sequence]], out_dir: str | Path) -> Path:
    """Write every step's results into one page, ``out_dir/report.html`` (rows over different features each
    keep their own names), and return its path. ``sections``: ``(step name, results)`` pairs."""
    from .report import save_report

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    return save_report([r for _, results in sections for r in results], out_dir / "report.html",
                       title="interplay tour")


if __name__ == "__main__":  # pragma: no cover
    np.set_printoptions(precision=3, suppress=True)
    run_tour()
