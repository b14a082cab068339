"""What a resumed run accepts, refuses and says: rows given labelled (a DataFrame) or not (an array) as begun,
index refusals that say what differs and what to do, another chunk_size taken (the same numbers, every row once),
and the resume line's counts of kept and remaining rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pq = pytest.importorskip("pyarrow.parquet")

import interplay as ip
from interplay.runs import load_run, open_run, resume_run, run


@pytest.fixture()
def setup():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(30, 3)), columns=list("abc"),
                     index=pd.Index([f"c{k}" for k in range(30)], name="customer"))
    explainer = ip.Explainer(Ridge().fit(X, X.sum(axis=1) + X.a * X.b), X.iloc[:8])
    return explainer, X


KW = {"method": "permutation", "budget": 24, "random_state": 4, "n_jobs": 1, "progress": False}


def _interrupt(out, *keys, written=False):
    """The run in ``out`` as a crash leaves it: the chunks ``keys`` never finished (``written``: their parts were
    written, the driver killed before it recorded them)."""
    path = out / "run-manifest.json"
    manifest = json.loads(path.read_text())
    for key in keys:
        part = out / manifest["chunks"].pop(key)["file"]
        if not written:
            part.unlink()
    manifest["complete"] = False
    path.write_text(json.dumps(manifest))
    return path.read_text()


@pytest.mark.parametrize("first, second", [("array", "frame"), ("frame", "array")])
def test_a_resume_gives_the_rows_labelled_or_not_as_begun(setup, tmp_path, first, second):
    explainer, X = setup
    given = {"array": X.to_numpy(), "frame": X}
    out = tmp_path / "r"
    run(explainer, given[first], out=out, chunk_size=10, **KW)
    before = _interrupt(out, "2")
    # accepted before: the labels were then stored on the recomputed chunk only (index null in the others, or
    # the other way round), and load_run(...).to_pandas() was indexed by position
    with pytest.raises(ValueError, match="begun with X") as caught:
        run(explainer, given[second], out=out, chunk_size=10, **KW)
    message = str(caught.value)
    assert ("X.to_numpy()" in message) == (first == "array") and "another out= folder" in message
    assert (out / "run-manifest.json").read_text() == before and not (out / "parts" / "part-000002.parquet").exists()
    finished = run(explainer, given[first], out=out, chunk_size=10, **KW).to_pandas()  # as begun: accepted
    assert list(finished.index) == (list(X.index) if first == "frame" else list(range(30)))


def test_index_refusals_say_what_differs_and_what_to_do(setup, tmp_path):
    explainer, X = setup
    out = tmp_path / "r"
    run(explainer, X, out=out, chunk_size=10, **KW)
    before = _interrupt(out, "2")
    relabelled = X.rename(index={"c13": "zz"})
    with pytest.raises(ValueError, match="row labels") as caught:
        run(explainer, relabelled, out=out, chunk_size=10, **KW)
    message = str(caught.value)
    assert "rows 10..19" in message and "first at row 13" in message and "'zz' here, 'c13' in the run" in message
    assert "the run's index" in message and "another out= folder" in message
    assert "fix the cause" not in message and "rows are finished and kept" not in message  # was the model advice
    with pytest.raises(ValueError, match="named 'customer', this X's 'id'") as caught:
        run(explainer, X.rename_axis("id"), out=out, chunk_size=10, **KW)
    assert "X.rename_axis('customer')" in str(caught.value)
    assert (out / "run-manifest.json").read_text() == before  # nothing computed, nothing changed


@pytest.mark.parametrize("first, second", [(10, 4), (4, 10), (7, 30)])
def test_a_resume_takes_another_chunk_size_with_the_same_numbers(setup, tmp_path, first, second):
    explainer, X = setup
    reference = {size: run(explainer, X, out=tmp_path / f"ref{size}", chunk_size=size, **KW).to_pandas()
                 for size in (first, second)}
    pd.testing.assert_frame_equal(reference[first], reference[second])
    out = tmp_path / "r"
    run(explainer, X, out=out, chunk_size=first, **KW)
    keys = sorted(json.loads((out / "run-manifest.json").read_text())["chunks"], key=int)
    _interrupt(out, keys[1], keys[-1], written=True)
    kept = {k: (out / "parts" / f"part-{int(k):06d}.parquet").read_bytes() for k in keys[::2] if k != keys[-1]}
    resumed = run(explainer, X, out=out, chunk_size=second, **KW)  # was refused ("chunk_size: run has ...")
    pd.testing.assert_frame_equal(resumed.to_pandas(), reference[first])  # every row once, the same bits
    assert resumed.complete and resumed.params["chunk_size"] == second
    assert {k: (out / "parts" / f"part-{int(k):06d}.parquet").read_bytes() for k in kept} == kept  # not rewritten
    assert len(list((out / "parts").glob("*.parquet"))) == len(resumed.manifest["chunks"])  # no stray part
    rows = pq.read_table(out / "parts").column("row").to_pylist()  # as DuckDB reads parts/*.parquet
    assert sorted(rows) == list(range(30))
    pd.testing.assert_frame_equal(load_run(out).to_pandas(), load_run(tmp_path / f"ref{first}").to_pandas())
    # and once more with the first size, from a run holding chunks of both
    _interrupt(out, *sorted(resumed.manifest["chunks"], key=int)[1:3])
    again = resume_run(explainer, X, out) if second != 4 else run(explainer, X, out=out, chunk_size=first, **KW)
    pd.testing.assert_frame_equal(again.to_pandas(), reference[first])


def test_a_resume_says_how_many_rows_are_kept_and_left(setup, tmp_path, capsys):
    explainer, X = setup
    out = tmp_path / "r"
    run(explainer, X, out=out, chunk_size=10, **KW)
    _interrupt(out, "1", "2")
    capsys.readouterr()
    run(explainer, X, out=out, chunk_size=10, **{**KW, "progress": True})
    err = capsys.readouterr().err
    assert f"resuming the run in {str(out)!r}: 10 of the 30 rows already done and kept, 20 left to explain" in err
    assert "explaining (resumed, 10 rows kept)" in err
    _interrupt(out, "2")
    run(explainer, X, out=out, chunk_size=10, **KW)  # progress=False: nothing said
    assert capsys.readouterr().err == ""
    assert open_run(out).complete


def test_a_failed_model_call_counts_its_rows_in_words(setup, tmp_path):
    from interplay.models.adapters import as_model

    def down(A):
        raise ValueError("model server went away")

    with pytest.raises(RuntimeError, match=r"^model call down failed on 1 row: ValueError"):  # was "1 rows"
        as_model(down)(np.zeros((1, 2)))
    with pytest.raises(RuntimeError, match=r"^model call down failed on 3 rows: ValueError"):
        as_model(down)(np.zeros((3, 2)))


def _format(out):
    return json.loads((out / "run-manifest.json").read_text())["format"]


def test_a_run_of_mixed_chunk_sizes_is_marked_for_older_readers(setup, tmp_path, monkeypatch):
    """Readers before 'interplay-run/2' put the parts in key order and resume on one chunk size: the keys of a run
    resumed with another chunk size are not in row order (here 0, 2, 40, 44, 48 for rows 0, 20, 10, 14, 18), so
    they read its rows out of order. Such a run says 'interplay-run/2', which they refuse as an unknown format;
    a run of one chunk size stays 'interplay-run/1', readable by them as before."""
    from interplay.runs import _store

    explainer, X = setup
    reference = run(explainer, X, out=tmp_path / "ref", chunk_size=10, **KW)
    assert _format(tmp_path / "ref") == "interplay-run/1"
    out = tmp_path / "r"
    run(explainer, X, out=out, chunk_size=10, **KW)
    _interrupt(out, "1")
    run(explainer, X, out=out, chunk_size=10, **KW)  # the same size again: still the first format
    assert _format(out) == "interplay-run/1"
    _interrupt(out, "1")
    resumed = run(explainer, X, out=out, chunk_size=4, **KW)
    chunks = json.loads((out / "run-manifest.json").read_text())["chunks"]
    starts = [chunks[k]["rows"][0] for k in sorted(chunks, key=int)]
    assert starts != sorted(starts)  # keys out of row order, as an older reader would order the parts
    assert _format(out) == "interplay-run/2"  # was 'interplay-run/1'
    # the current reader takes it, rows in row order
    assert resumed.table().column("row").to_pylist() == list(range(30))
    loaded, expected = load_run(out), load_run(tmp_path / "ref")
    np.testing.assert_array_equal(loaded.values, expected.values)
    assert loaded.info["index"] == list(X.index)
    pd.testing.assert_frame_equal(loaded.to_pandas(), expected.to_pandas())
    pd.testing.assert_frame_equal(open_run(out).to_pandas(), reference.to_pandas())
    # an older reader's check (format == 'interplay-run/1') refuses it with its error
    with monkeypatch.context() as patch, pytest.raises(ValueError, match="is not an interplay run manifest"):
        patch.setattr(_store, "FORMATS", ("interplay-run/1",))
        open_run(out)
    # and a resume that recomputes every chunk at one size makes it readable by them again
    _interrupt(out, *chunks)
    run(explainer, X, out=out, chunk_size=4, **KW)
    assert _format(out) == "interplay-run/1"
    np.testing.assert_array_equal(load_run(out).values, expected.values)


def test_a_manifest_of_a_newer_format_is_refused_with_advice(setup, tmp_path):
    explainer, X = setup
    out = tmp_path / "r"
    run(explainer, X, out=out, chunk_size=10, **KW)
    path = out / "run-manifest.json"
    manifest = json.loads(path.read_text())
    path.write_text(json.dumps({**manifest, "format": "interplay-run/3"}))
    with pytest.raises(ValueError, match="from a newer interplay: upgrade interplay"):
        open_run(out)
    path.write_text(json.dumps({**manifest, "format": "something"}))
    with pytest.raises(ValueError, match="is not an interplay run manifest") as caught:
        open_run(out)
    assert "upgrade" not in str(caught.value)
