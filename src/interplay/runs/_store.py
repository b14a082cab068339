"""A run's directory: Parquet parts written atomically, and a JSON manifest that records them.

Layout::

    DIR/run-manifest.json            parameters of the run + one entry per finished chunk (file, rows, sha256)
    DIR/run-chunks.jsonl             while a run is written: the chunks finished since the manifest was written,
                                     one JSON line each (appended), folded into the manifest at the end
    DIR/parts/part-000042.parquet

Every file is written to a temporary name in the same directory, flushed and fsync'ed, then renamed over its
final name with ``os.replace`` (atomic on POSIX), and the directory is fsync'ed: after a crash a file is either
absent or complete. A part counts as finished only once the manifest (written after the part) lists it with its
SHA-256; a part whose bytes do not match (truncated, corrupted) is recomputed.

A finished chunk is recorded by appending one line to the journal ``DIR/run-chunks.jsonl`` (written, flushed and
fsync'ed), not by rewriting the manifest: rewriting it after every chunk made a run quadratic in its chunks.
Reading a run (:meth:`Store.read_manifest`) applies the journal's lines to the manifest in order; a line that is
not complete JSON (the last one, torn by a crash mid-append) is ignored, so its chunk is simply recomputed. The
journal is folded into the manifest (written atomically, then the journal removed) when a run starts or resumes
and when it stops, so a finished run is the manifest and its parts alone, as before; runs written without a
journal are read as they are. One run at a time may write to a
directory (an advisory ``fcntl`` lock on ``DIR/.lock``, released by the OS if the process dies).

Reading is checked too: every read of a part verifies its size and SHA-256 against the manifest (and that it holds
exactly the rows the manifest says), so a damaged part is refused (:class:`DamagedPartError`) rather than read
back as other numbers. The manifest itself is validated when read: every part lies inside ``DIR/parts`` (no
absolute paths, no ``..``, no symbolic link leading out), and no row belongs to two chunks.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from typing import Any

from .._files import (
    WriteError,
    _crash,
    _crash_point,
    _fsync_dir,
    atomic_write,
    describe,
)

MANIFEST = "run-manifest.json"
JOURNAL = "run-chunks.jsonl"  # finished chunks not yet folded into the manifest, one JSON line each
PARTS = "parts"
# The manifest's format: "interplay-run/1" while chunk k holds rows k * chunk_size .. (k + 1) * chunk_size - 1 (the
# last one shorter), with chunk_size the run's recorded one; "interplay-run/2" for a run whose chunks do not (a resume
# with another chunk_size keeps the finished chunks as they are: sizes mixed, keys not in row order). Readers before
# 2 put parts in key order and resumed on the one chunk size, so they would read such a run's rows out of order: they
# refuse the 2 as an unknown format, and a run of one chunk size is still written as 1 for them (manifest_format).
FORMAT = "interplay-run/1"
FORMAT_MIXED = "interplay-run/2"
FORMATS = (FORMAT, FORMAT_MIXED)


def sha256_file(path: str) -> str | None:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return None
    return digest.hexdigest()


def _append(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the file descriptor ``fd`` (a separate function so that tests can fill the disk)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def manifest_format(manifest: dict) -> str:
    """:data:`FORMAT` when every chunk of ``manifest`` is where one chunk size puts it (chunk ``k`` holds rows
    ``k * chunk_size`` up to the next chunk's first or the run's end, with the run's recorded ``chunk_size``), as
    every reader assumes, else :data:`FORMAT_MIXED` (a run resumed with another chunk size), which readers before
    it refuse rather than read its rows out of order."""
    size, n_rows = manifest.get("params", {}).get("chunk_size"), manifest.get("n_rows")
    if not isinstance(size, int) or size < 1:
        return FORMAT  # (not written: every run records its chunk size)
    for key, entry in manifest.get("chunks", {}).items():
        start, stop = entry["rows"]
        end = start + size if n_rows is None else min(start + size, n_rows)
        if int(key) * size != start or stop != end:
            return FORMAT_MIXED
    return FORMAT


class DamagedPartError(ValueError):
    """A finished part whose bytes differ from those recorded in the run manifest (or that is missing)."""


class Store:
    """The output directory of one run (see the module docstring)."""

    def __init__(self, out: Any, *, create: bool) -> None:
        self.root = os.path.abspath(os.fspath(out))
        self.parts = os.path.join(self.root, PARTS)
        self._lock_fd = None
        if create:
            try:
                os.makedirs(self.parts, exist_ok=True)
                probe = os.path.join(self.root, f".probe-{os.getpid()}")
                try:
                    with open(probe, "wb") as fh:
                        fh.write(b"ok")
                        fh.flush()
                finally:
                    if os.path.exists(probe):
                        os.remove(probe)
            except OSError as exc:
                raise ValueError(f"out: cannot write to the output directory {self.root!r} "
                                 f"({type(exc).__name__}: {exc.strerror or exc}); choose a writable folder") from None
        elif not os.path.isfile(os.path.join(self.root, MANIFEST)):
            raise ValueError(f"out: {self.root!r} holds no run (no {MANIFEST}); run ip.run(..., out=...) first")

    # -------------------------------------------------------------- locking
    def lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no advisory lock, one writer is the user's job
            return
        self._lock_fd = os.open(os.path.join(self.root, ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock_fd)
            self._lock_fd = None
            raise RuntimeError(f"out: another process is writing to {self.root!r}; wait for it or use another "
                               "folder") from None

    def unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing releases the flock
            self._lock_fd = None

    def remove_temporaries(self) -> None:
        """Delete temporary files left by a crashed writer."""
        for folder in (self.root, self.parts):
            for name in os.listdir(folder):
                if name.startswith(".") and ".tmp-" in name:
                    try:
                        os.remove(os.path.join(folder, name))
                    except OSError:  # pragma: no cover
                        pass

    def remove_unlisted_parts(self, manifest: dict) -> None:
        """Delete the parts the manifest does not list (written by a run killed before it recorded them, or
        recorded as corrupt): a resume with another chunk size writes other files, so they would stay beside the
        parts holding their rows, read twice by ``read_parquet('DIR/parts/*.parquet')``."""
        listed = {os.path.normpath(entry["file"]) for entry in manifest["chunks"].values()}
        for name in os.listdir(self.parts):
            if (name.startswith("part-") and name.endswith(".parquet")
                    and os.path.normpath(os.path.join(PARTS, name)) not in listed):
                try:
                    os.remove(os.path.join(self.parts, name))
                except OSError:  # pragma: no cover - left as it was; its rows are in no listed part
                    pass

    # -------------------------------------------------------------- manifest
    def read_manifest(self) -> dict | None:
        path = os.path.join(self.root, MANIFEST)
        if not os.path.exists(path):
            return None
        try:
            with open(path, encoding="utf-8") as fh:
                manifest = json.load(fh)
        except (OSError, ValueError) as exc:
            raise ValueError(f"out: unreadable manifest {path!r} ({exc}); move the folder away and start "
                             "again") from None
        if not isinstance(manifest, dict) or manifest.get("format") not in FORMATS:
            found = manifest.get("format") if isinstance(manifest, dict) else None
            newer = (f"; its format {found!r} is from a newer interplay: upgrade interplay to read it"
                     if isinstance(found, str) and found.startswith("interplay-run/") else "")
            raise ValueError(f"out: {path!r} is not an interplay run manifest (format {FORMAT!r} or "
                             f"{FORMAT_MIXED!r}){newer}")
        self._apply_journal(manifest)
        self._check_manifest(manifest, path)
        return manifest

    def _apply_journal(self, manifest: dict) -> None:
        """The chunks the journal records (finished after the manifest was written) added to ``manifest``, in
        order (a later line for a chunk replaces an earlier one). Lines that are not complete JSON objects (a
        line torn by a crash mid-append, which also lacks its newline) are ignored: their chunks are recomputed."""
        try:
            with open(os.path.join(self.root, JOURNAL), "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            return
        except OSError as exc:
            raise ValueError(f"out: unreadable journal {os.path.join(self.root, JOURNAL)!r} ({exc.strerror or exc})"
                             "; move the folder away and start again") from None
        chunks = manifest.get("chunks")
        if not isinstance(chunks, dict):
            return  # refused by _check_manifest
        for line in data.split(b"\n")[:-1]:  # the part after the last newline is a torn line (or empty)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and isinstance(record.get("chunk"), str) and isinstance(record.get("entry"),
                                                                                                 dict):
                chunks[record["chunk"]] = record["entry"]

    def append_chunk(self, key: str, entry: dict) -> None:
        """Record one finished chunk: one line appended to the journal, flushed and fsync'ed (the folder too, when
        the journal is created), so a crash keeps it; constant cost per chunk, whatever the run's size."""
        path = os.path.join(self.root, JOURNAL)
        line = json.dumps({"chunk": key, "entry": entry}, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        created = not os.path.exists(path)
        crash = _crash_point(JOURNAL)
        _crash(crash, "start")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if crash == "partial":  # the test hook: a torn line (half of it, no newline), then killed
                    os.write(fd, line[: len(line) // 2])
                    os.fsync(fd)
                    _crash(crash, "partial")
                _append(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)
            _crash(crash, "written")
            if created:
                _fsync_dir(self.root)
            _crash(crash, "renamed")
        except OSError as exc:
            raise WriteError(exc.errno, f"could not write {path!r}: {describe(exc)}; {self._advice()}",
                             path) from None

    def fold_journal(self, manifest: dict) -> None:
        """Write ``manifest`` (which holds every chunk of the journal: read by :meth:`read_manifest`) atomically,
        then remove the journal. A crash in between leaves lines that repeat the manifest's entries (harmless)."""
        self.write_manifest(manifest)
        try:
            os.remove(os.path.join(self.root, JOURNAL))
        except FileNotFoundError:
            return
        except OSError as exc:
            raise WriteError(exc.errno, f"could not remove {os.path.join(self.root, JOURNAL)!r}: {describe(exc)}; "
                             f"{self._advice()}", os.path.join(self.root, JOURNAL)) from None
        _fsync_dir(self.root)

    def _check_manifest(self, manifest: dict, path: str) -> None:
        """Refuse a manifest whose parts lie outside ``DIR/parts`` or whose chunks overlap (duplicated rows)."""
        chunks = manifest.get("chunks")
        if not isinstance(chunks, dict) or not isinstance(manifest.get("params"), dict):
            raise ValueError(f"out: {path!r} is not a valid run manifest (no 'params'/'chunks' tables)")
        spans, files = [], {}
        for key, entry in chunks.items():
            where = f"out: {path!r}, chunk {key!r}"
            if not (isinstance(entry, dict) and isinstance(entry.get("file"), str)
                    and isinstance(entry.get("sha256"), str) and isinstance(entry.get("bytes"), int)
                    and isinstance(entry.get("rows"), list) and len(entry["rows"]) == 2
                    and all(isinstance(r, int) and not isinstance(r, bool) for r in entry["rows"])
                    and 0 <= entry["rows"][0] < entry["rows"][1] and str(key).isdigit()):
                raise ValueError(f"{where}: malformed entry {entry!r}; the manifest was edited or damaged")
            self.part_file(entry, where)  # confined to DIR/parts
            if entry["file"] in files:
                raise ValueError(f"{where}: part {entry['file']!r} is also listed for chunk {files[entry['file']]!r}; "
                                 "refusing a manifest that lists a part twice")
            files[entry["file"]] = key
            spans.append((entry["rows"][0], entry["rows"][1], key))
        spans.sort()
        for (a0, a1, ka), (b0, b1, kb) in zip(spans, spans[1:]):
            if b0 < a1:
                raise ValueError(f"out: {path!r}: chunks {ka!r} (rows {a0}..{a1 - 1}) and {kb!r} (rows {b0}..{b1 - 1}) "
                                 "overlap; refusing a manifest with duplicated rows")

    def part_file(self, entry: dict, where: str = "out") -> str:
        """The absolute path of ``entry``'s part, refused unless it lies inside ``DIR/parts``."""
        name = entry["file"]
        parts = os.path.realpath(self.parts)
        path = os.path.join(self.root, name)
        if (os.path.isabs(name) or ".." in name.replace("\\", "/").split("/")
                or os.path.commonpath([parts, os.path.realpath(path)]) != parts):
            raise ValueError(f"{where}: part path {name!r} points outside the run folder's {PARTS}/ directory; "
                             "refusing to read it (the manifest was edited or damaged)")
        return path

    def _advice(self) -> str:
        return (f"the finished chunks in {self.root!r} are kept: free some space (or fix the folder), then resume "
                f"the run with the same call (ip.run(explainer, X, out={self.root!r}, resume=True, ...)) or the "
                "same `interplay explain` command with --resume")

    def write_manifest(self, manifest: dict) -> None:
        # compact: json's C encoder (indent= takes its Python one); written when a run starts and stops (finished
        # chunks go to the journal in between: append_chunk). Its format says whether its chunks are of one size
        # (readable by every version) or not (refused by versions that would read its rows out of order).
        manifest["format"] = manifest_format(manifest)
        data = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()
        atomic_write(os.path.join(self.root, MANIFEST), data, advice=self._advice())

    # -------------------------------------------------------------- parts
    def part_path(self, index: int) -> str:
        return os.path.join(self.parts, f"part-{index:06d}.parquet")

    def write_part(self, index: int, table) -> dict:
        """Write one chunk's table; return its manifest entry (file, sha256, bytes)."""
        import pyarrow.parquet as pq

        buffer = io.BytesIO()
        pq.write_table(table, buffer, compression="zstd")
        data = buffer.getvalue()
        path = self.part_path(index)
        atomic_write(path, data, advice=self._advice())
        return {"file": os.path.relpath(path, self.root), "sha256": hashlib.sha256(data).hexdigest(),
                "bytes": len(data)}

    def part_ok(self, entry: dict) -> bool:
        """Whether the part of ``entry`` exists with exactly the recorded bytes."""
        path = self.part_file(entry)
        try:
            if os.path.getsize(path) != entry["bytes"]:
                return False
        except OSError:
            return False
        return sha256_file(path) == entry["sha256"]

    def read_part(self, entry: dict, columns=None):
        """The part of ``entry`` as a pyarrow Table, after checking its bytes against the manifest's SHA-256
        (the bytes checked are the bytes parsed) and its ``row`` column against the manifest's rows."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = self.part_file(entry)
        resume = ("resume the run to recompute it: ip.run(explainer, X, out=..., resume=True) with the same "
                  "arguments, or the same `interplay explain` command with --resume")
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise DamagedPartError(f"out: part {path!r} cannot be read ({exc.strerror or exc}); {resume}") from None
        if len(data) != entry["bytes"] or hashlib.sha256(data).hexdigest() != entry["sha256"]:
            raise DamagedPartError(
                f"out: part {path!r} is damaged: its {len(data)} bytes do not match the SHA-256 recorded in "
                f"{MANIFEST} ({entry['bytes']} bytes); {resume}")
        # one thread: pyarrow's thread pool could abort the interpreter at exit after reads ("terminate called
        # without an active exception", exit code 134, 5 of 41 scripts in a review; 0 of 35 with one thread)
        table = pq.read_table(pa.BufferReader(data), columns=columns, use_threads=False)
        if columns is None or "row" in columns:
            rows = table.column("row").to_numpy()
            start, stop = entry["rows"]
            if not np.array_equal(rows, np.arange(start, stop)):
                raise DamagedPartError(f"out: part {path!r} holds rows other than {start}..{stop - 1} recorded in "
                                       f"{MANIFEST}; {resume}")
        return table
