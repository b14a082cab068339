"""Every Python block of the README runs: self-contained ones as written, fragments with the names they use
(``game``, ``pipe``, ``X_test``, ...) bound to small stand-ins. The API listing (signatures) and the block that
connects to a Ray cluster are the only blocks not run; a new block must be added here or the test fails."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import interplay as ip

pytest.importorskip("sklearn")
pd = pytest.importorskip("pandas")

README = Path(__file__).resolve().parents[1] / "README.md"
ADULT = Path("/work/shared/data/adult.csv")


def blocks() -> dict[str, str]:
    """Python blocks keyed by ``heading #k`` (k-th block under that ``##`` heading)."""
    out, heading, counts = {}, "", {}
    for match in re.finditer(r"^## ([^\n]+)$|^```python\n(.*?)^```", README.read_text(encoding="utf-8"),
                             flags=re.M | re.S):
        if match.group(1):
            heading = match.group(1).strip()
            continue
        counts[heading] = counts.get(heading, 0) + 1
        out[f"{heading} #{counts[heading]}"] = match.group(2)
    return out


NOT_RUN = {
    "The API #1": "a listing of signatures, not a program",
    "Batch runs: millions of rows, resumable, locally or on Ray #2": "connects to a Ray cluster at ray://head",
}


def _run(code: str, scope: dict) -> dict:
    scope = {"ip": ip, "np": np, **scope}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, str(README), "exec"), scope)  # noqa: S102
    return scope


@pytest.fixture(scope="module")
def small_game():
    from interplay.synthetic import random_game

    return random_game(8, random_state=0)


@pytest.fixture(scope="module")
def adult():
    if not ADULT.is_file():  # pragma: no cover - the data set ships with the project's shared folder
        pytest.skip("Adult data set not found")
    raw = pd.read_csv(ADULT, skipinitialspace=True).sample(600, random_state=0).reset_index(drop=True)
    y = raw.pop("class")
    return raw, y


def test_every_block_is_covered():
    covered = set(NOT_RUN) | {name for name in RUNNERS}
    assert set(blocks()) <= covered, sorted(set(blocks()) - covered)


def run_quickstart(code, request):
    scope = _run(code, {})
    assert scope["game"].n_players == 10


def run_sampling(code, request):
    game = request.getfixturevalue("small_game")
    eta = np.abs(np.random.default_rng(0).normal(size=(game.n_players,) * 2))
    scope = _run(code, {"game": game, "eta": eta})
    assert scope["phi"].method == "c-shapley" and scope["beta"].method == "msr"


def run_bivariate_calls(code, request):
    scope = _run(code, {"game": request.getfixturevalue("small_game"), "i": 0, "j": 1})
    assert scope["biv"].adjacency.shape == (8, 8)


def run_graph(code, request):
    import matplotlib

    matplotlib.use("Agg")
    scope = _run(code, {})
    assert scope["H"].groups() is not None


def run_trees(code, request):
    xgb = pytest.importorskip("xgboost")
    raw, y = request.getfixturevalue("adult")
    X = raw.select_dtypes("number")
    model = xgb.XGBClassifier(n_estimators=10, max_depth=3, n_jobs=1).fit(X, y == ">50K")
    scope = _run(code, {"xgb_model": model, "X_train": X.iloc[:300], "X_test": X.iloc[300:303]})
    assert scope["values"].method == "tree"


def run_models(code, request):
    pytest.importorskip("vaderSentiment")
    pytest.importorskip("skimage")
    torch = pytest.importorskip("torch")
    xgb = pytest.importorskip("xgboost")
    import matplotlib

    matplotlib.use("Agg")
    from sklearn.compose import make_column_transformer
    from sklearn.datasets import load_digits
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    raw, y = request.getfixturevalue("adult")
    text = [c for c in raw.columns if not pd.api.types.is_numeric_dtype(raw[c])]
    pipe = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), text),
                                                 remainder="passthrough"),
                         RandomForestClassifier(10, max_depth=4, random_state=0, n_jobs=1)).fit(raw, y)
    X = raw.select_dtypes("number").to_numpy(float)[:, :5]
    xgb_model = xgb.XGBClassifier(n_estimators=5, max_depth=2, n_jobs=1).fit(X, y == ">50K")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    digits = load_digits()
    clf = LogisticRegression(max_iter=200).fit(digits.data[:300], digits.target[:300])
    scope = _run(code, {"pipe": pipe, "X_train": raw.iloc[:400], "X_test": raw.iloc[400:], "xgb_model": xgb_model,
                        "X_bg": X[:20], "X": X, "net": net, "clf": clf, "digits": digits})
    assert set(scope["per_class"]) == {"<=50K", ">50K"}
    assert scope["explanation"].values.shape == (5, raw.shape[1])


def run_tables(code, request):
    import matplotlib

    matplotlib.use("Agg")
    scope = _run(code, {})
    assert scope["gi"].n_features == 10


def run_saved(code, request):
    tmp = request.getfixturevalue("tmp_path")
    monkeypatch = request.getfixturevalue("monkeypatch")
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp)
    game = request.getfixturevalue("small_game")
    (tmp / "results").mkdir()
    explainer = ip.Explainer(lambda Z: Z @ np.arange(1.0, 4.0), np.zeros((1, 3)))
    explainer.shapley(np.ones((2, 3))).save("results/shapley.json")
    ip.bivariate(game).save("results/row-0-bivariate.json")
    pytest.importorskip("shap")
    scope = _run(code, {})
    assert scope["expl"].values.shape == (2, 3)


def run_report(code, request):
    tmp = request.getfixturevalue("tmp_path")
    request.getfixturevalue("monkeypatch").chdir(tmp)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(20, 4)), columns=list("abcd"), index=[f"r{i}" for i in range(20)])
    explainer = ip.Explainer(lambda Z: np.tanh(np.asarray(Z, float) @ np.arange(1.0, 5.0)), X.iloc[:5])
    scope = _run(code, {"explainer": explainer, "X": X})
    assert (tmp / "report.html").stat().st_size > 0 and scope["html"].startswith("<!DOCTYPE html>")


def run_batch(code, request):
    pytest.importorskip("pyarrow")
    tmp = request.getfixturevalue("tmp_path")
    request.getfixturevalue("monkeypatch").chdir(tmp)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(60, 4)), columns=list("abcd"))
    frame.to_parquet("scores.parquet")
    code = code.replace("chunk_size=2000, n_jobs=-1", "chunk_size=20, n_jobs=1")  # small for the test machine
    scope = _run(code, {"model": lambda X: np.asarray(X) @ np.arange(1.0, 5.0), "background": frame.iloc[:5]})
    assert len(scope["explanation"].values) == 60


RUNNERS = {
    "Quickstart #1": run_quickstart,
    "Sampling estimators, and how `method=\"auto\"` chooses #1": run_sampling,
    "Directional explanations: Bivariate Shapley and its graph #1": run_bivariate_calls,
    "Directional explanations: Bivariate Shapley and its graph #2": run_graph,
    "Tree ensembles: exact values, no sampling #1": run_trees,
    "Models, feature groups, text and images #1": run_models,
    "Results like tables, and plots that take them #1": run_tables,
    "Command line, reports and saved results #1": run_report,
    "Command line, reports and saved results #2": run_saved,
    "Batch runs: millions of rows, resumable, locally or on Ray #1": run_batch,
}


@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_readme_block_runs(name, request):
    code = blocks().get(name)
    assert code is not None, f"README block {name!r} is gone: update tests/test_readme.py"
    RUNNERS[name](code, request)
