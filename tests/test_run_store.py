"""A run folder is verified when read (issue "Reliability", items 2 and 3): checksums on every read path,
manifest paths confined to the run folder, no duplicated rows."""

import json
import os

import numpy as np
import pytest

import interplay as ip
from interplay.runs import load_run, open_run, run

NAMES = ["a", "b", "c", "d"]


def model(X):
    return X[:, 0] * X[:, 1] + np.sin(X[:, 2]) - X[:, 3]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    return rng.normal(size=(6, 4)), rng.normal(size=(12, 4))


@pytest.fixture
def finished(data, tmp_path):
    background, X = data
    explainer = ip.Explainer(model, background, feature_names=NAMES)
    out = tmp_path / "run"
    run(explainer, X, out=out, chunk_size=5, n_jobs=1, progress=False)
    return explainer, X, out


def _read_all(out):
    """Every public read path of a run."""
    yield lambda: load_run(out)
    yield lambda: open_run(out).table()
    yield lambda: open_run(out).to_pandas()
    yield lambda: list(open_run(out).iter_tables())
    yield lambda: open_run(out).global_importance()
    yield lambda: open_run(out).mean_attribution(rows=[0, 1])


def test_every_single_bit_flip_is_refused_on_every_read_path(finished):
    explainer, X, out = finished
    part = out / "parts" / "part-000001.parquet"
    original = part.read_bytes()
    positions = np.linspace(0, len(original) * 8 - 1, 61).astype(int)
    for bit in positions:
        damaged = bytearray(original)
        damaged[bit // 8] ^= 1 << (bit % 8)
        part.write_bytes(bytes(damaged))
        for read in _read_all(out):
            with pytest.raises(ValueError, match=r"part .*part-000001\.parquet.* damaged.*resume") as caught:
                read()
            assert isinstance(caught.value, ip.runs._store.DamagedPartError)
    part.write_bytes(original[:-10])  # truncated
    with pytest.raises(ValueError, match="damaged"):
        load_run(out)
    part.unlink()  # missing
    with pytest.raises(ValueError, match=r"part-000001\.parquet.* cannot be read.*resume"):
        load_run(out)
    with pytest.warns(RuntimeWarning, match="recomputing"):
        run(explainer, X, out=out, chunk_size=5, n_jobs=1, progress=False)  # resume recomputes it
    np.testing.assert_array_equal(load_run(out).values, explainer.shapley(X).values)


def _edit_manifest(out, edit):
    path = out / "run-manifest.json"
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("where", ["parent", "absolute", "symlink"])
def test_manifest_paths_must_stay_inside_the_run_folder(finished, tmp_path, where):
    explainer, X, out = finished
    outside = tmp_path / "outside"
    outside.mkdir()
    stolen = outside / "x.parquet"
    stolen.write_bytes((out / "parts" / "part-000000.parquet").read_bytes())
    if where == "parent":
        name = os.path.join("..", "outside", "x.parquet")
    elif where == "absolute":
        name = str(stolen)
    else:
        os.symlink(stolen, out / "parts" / "link.parquet")
        name = os.path.join("parts", "link.parquet")

    def point_outside(manifest):
        manifest["chunks"]["0"]["file"] = name

    _edit_manifest(out, point_outside)
    for read in (lambda: load_run(out), lambda: open_run(out),
                 lambda: run(explainer, X, out=out, chunk_size=5, n_jobs=1, progress=False)):
        with pytest.raises(ValueError, match="outside the run folder"):
            read()


def test_duplicated_rows_are_refused(finished):
    explainer, X, out = finished

    def duplicate(manifest):
        manifest["chunks"]["3"] = dict(manifest["chunks"]["1"])

    _edit_manifest(out, duplicate)
    with pytest.raises(ValueError, match="listed for chunk|overlap"):
        load_run(out)

    def overlap(manifest):
        del manifest["chunks"]["3"]
        manifest["chunks"]["1"]["rows"] = [3, 10]

    _edit_manifest(out, overlap)
    with pytest.raises(ValueError, match=r"overlap; refusing a manifest with duplicated rows"):
        open_run(out)


def test_a_part_holding_other_rows_is_refused(finished):
    explainer, X, out = finished

    def swap(manifest):  # part 0 listed for chunk 1's rows, with a valid checksum
        chunks = manifest["chunks"]
        chunks["0"], chunks["1"] = ({**chunks["1"], "rows": chunks["0"]["rows"]},
                                    {**chunks["0"], "rows": chunks["1"]["rows"]})

    _edit_manifest(out, swap)
    with pytest.raises(ValueError, match="holds rows other than"):
        load_run(out)


def test_malformed_manifest_entries_are_refused(finished):
    explainer, X, out = finished
    _edit_manifest(out, lambda m: m["chunks"]["0"].update(rows=[5, 2]))
    with pytest.raises(ValueError, match="malformed entry"):
        load_run(out)


def test_refusals_name_parameters_in_words_and_chunk_size_does_not_blame_the_data(finished, data):
    _, X, out = finished
    background, _ = data
    other = ip.Explainer(model, background[:3], feature_names=NAMES)
    with pytest.raises(ValueError, match="refusing to mix") as caught:  # another chunk_size is no difference
        run(other, X, out=out, chunk_size=4, n_jobs=1, progress=False)
    message = str(caught.value)
    assert "background: run has another background" in message and "chunk_size" not in message
    assert "data:" not in message and "sha256" not in message  # the rows are the same: only chunk_size differs
    with pytest.raises(ValueError, match="refusing to mix") as caught:
        run(other, X + 1, out=out, chunk_size=5, n_jobs=1, progress=False)
    message = str(caught.value)
    assert "background: run has another background" in message and "data: run has other rows in X" in message
    assert "sha256" not in message


# ------------------------------------------------------------------ the journal of finished chunks
JOURNAL = "run-chunks.jsonl"


def test_finished_chunks_are_appended_to_a_journal_not_rewritten_in_the_manifest(data, tmp_path, monkeypatch):
    """The manifest is written when the run starts and when it stops, whatever its number of chunks (it was
    rewritten in full after every chunk: quadratic in the chunks); each chunk is one journal line."""
    from interplay.runs._store import Store

    background, X = data
    explainer = ip.Explainer(model, background, feature_names=NAMES)
    writes, real_write = [], Store.write_manifest
    monkeypatch.setattr(Store, "write_manifest", lambda self, m: (writes.append(len(m["chunks"])),
                                                                  real_write(self, m))[1])
    out = tmp_path / "run"
    run(explainer, X, out=out, chunk_size=1, n_jobs=1, progress=False)  # 12 chunks
    assert writes == [0, 12]
    assert not (out / JOURNAL).exists()  # folded into the manifest: a finished run is read as before
    assert len(json.loads((out / "run-manifest.json").read_text())["chunks"]) == 12
    np.testing.assert_array_equal(load_run(out).values, explainer.shapley(X).values)


def test_a_crash_keeps_the_journaled_chunks_and_ignores_a_torn_last_line(finished, tmp_path):
    """A run killed mid-run: its manifest lists no chunk, its journal the finished ones, the last line torn by
    the crash. Reading it sees the journaled chunks; resuming keeps them (not recomputed) and recomputes the
    torn line's chunk; the journal is then folded into the manifest."""
    explainer, X, out = finished
    path = out / "run-manifest.json"
    manifest = json.loads(path.read_text())
    chunks = manifest["chunks"]
    manifest["chunks"], manifest["complete"] = {}, False
    path.write_text(json.dumps(manifest))
    line = {k: json.dumps({"chunk": k, "entry": chunks[k]}).encode() for k in chunks}
    (out / JOURNAL).write_bytes(line["0"] + b"\n" + line["1"] + b"\n" + line["2"][: len(line["2"]) // 2])
    assert sorted(open_run(out).manifest["chunks"]) == ["0", "1"] and open_run(out).n_rows == 10
    kept = {k: os.stat(out / chunks[k]["file"]).st_mtime_ns for k in ("0", "1")}
    os.utime(out / chunks["2"]["file"], ns=(0, 0))
    run(explainer, X, out=out, chunk_size=5, n_jobs=1, progress=False)
    assert {k: os.stat(out / chunks[k]["file"]).st_mtime_ns for k in ("0", "1")} == kept  # not recomputed
    assert os.stat(out / chunks["2"]["file"]).st_mtime_ns != 0  # the torn line's chunk was
    assert not (out / JOURNAL).exists()
    assert json.loads(path.read_text())["chunks"] == chunks
    np.testing.assert_array_equal(load_run(out).values, explainer.shapley(X).values)


def test_a_full_disk_at_a_journal_append_keeps_the_finished_chunks(data, tmp_path, monkeypatch):
    """The disk fills half-way through the third chunk's line: a clear error that says how to resume, the torn
    line does no harm, and the resume keeps the chunks finished before (not recomputed)."""
    import errno

    from interplay.runs import _store

    background, X = data
    explainer = ip.Explainer(model, background, feature_names=NAMES)
    real, calls = _store._append, {"n": 0}

    def append(fd, line):
        calls["n"] += 1
        if calls["n"] == 3:
            real(fd, line[: len(line) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, line)

    monkeypatch.setattr(_store, "_append", append)
    out = tmp_path / "run"
    with pytest.raises(OSError, match=r"run-chunks\.jsonl.*no space left on device.*resume"):
        run(explainer, X, out=out, chunk_size=2, n_jobs=1, progress=False)
    monkeypatch.undo()
    finished = open_run(out).manifest["chunks"]
    assert len(finished) >= 2 and not open_run(out).complete
    kept = {k: os.stat(out / e["file"]).st_mtime_ns for k, e in finished.items()}
    run(explainer, X, out=out, chunk_size=2, n_jobs=1, progress=False)
    assert {k: os.stat(out / finished[k]["file"]).st_mtime_ns for k in kept} == kept
    assert not (out / JOURNAL).exists() and open_run(out).complete
    np.testing.assert_array_equal(load_run(out).values, explainer.shapley(X).values)
