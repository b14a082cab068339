"""Writing files so that they are never seen half-written, and write failures (disk full) that say where.

:func:`atomic_write` writes to a temporary file in the destination's folder, flushes and fsyncs it, then renames
it over the destination with ``os.replace`` (atomic on POSIX) and fsyncs the folder: after a crash or a full
disk, the destination is either its old complete self, absent, or the new complete file; the temporary file is
removed when the write fails. A failure raises :class:`WriteError` (an ``OSError`` keeping the ``errno``) whose
message names the file and the cause ("no space left on device"), followed by the caller's advice.

Test hook (the fault-injection suite, ``tests/test_fault_injection.py``): when the environment variable
``INTERPLAY_CRASH_AT`` is ``"PATTERN:N:PHASE"``, the ``N``-th write (1-based) of a file whose name matches the
``fnmatch`` pattern ``PATTERN`` kills this process with SIGKILL (no cleanup code runs, as in a power cut or
``kill -9``) at ``PHASE``: ``start`` (nothing written yet), ``partial`` (half of the temporary file written and
flushed), ``written`` (the temporary file complete, not yet renamed) or ``renamed`` (the new file in place, its
folder not yet fsync'ed). This is the only place where the hook acts; unset, it costs one dictionary look-up.
"""

from __future__ import annotations

import errno
import fnmatch
import os
import signal
from typing import Any

CRASH_VARIABLE = "INTERPLAY_CRASH_AT"
CRASH_PHASES = ("start", "partial", "written", "renamed")
_crash_counts: dict[str, int] = {}


class WriteError(OSError):
    """Writing a file failed (disk full, quota exceeded, read-only or vanished folder); nothing partial is left.

    ``errno`` and ``filename`` are those of the failure; ``str()`` is a message naming the file."""

    def __init__(self, code: int | None, message: str, filename: str) -> None:
        super().__init__(code, message)
        self.filename = filename
        self.message = message

    def __str__(self) -> str:
        return self.message

    @property
    def disk_full(self) -> bool:
        return self.errno in (errno.ENOSPC, errno.EDQUOT)


def describe(exc: OSError) -> str:
    """The cause of a write failure in words."""
    if exc.errno == errno.ENOSPC:
        return "no space left on device"
    if exc.errno == errno.EDQUOT:
        return "disk quota exceeded"
    return exc.strerror or str(exc)


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _write(fh: Any, data: bytes) -> None:
    """Write all of ``data`` to ``fh`` (a separate function so that tests can make the disk full)."""
    fh.write(data)


def _crash_point(name: str) -> str | None:
    """The phase at which this write of ``name`` must kill the process (the test hook above), else None."""
    spec = os.environ.get(CRASH_VARIABLE)
    if not spec:
        return None
    try:
        pattern, n, phase = spec.rsplit(":", 2)
        n = int(n)
    except ValueError:
        raise ValueError(f"{CRASH_VARIABLE}: expected 'PATTERN:N:PHASE', got {spec!r}") from None
    if phase not in CRASH_PHASES:
        raise ValueError(f"{CRASH_VARIABLE}: expected a phase among {CRASH_PHASES}, got {phase!r}")
    if not fnmatch.fnmatchcase(name, pattern):
        return None
    _crash_counts[spec] = _crash_counts.get(spec, 0) + 1
    return phase if _crash_counts[spec] == n else None


def _crash(phase: str | None, now: str) -> None:
    if phase == now:
        os.kill(os.getpid(), signal.SIGKILL)


def atomic_write(path: Any, data: bytes | str, *, advice: str = "") -> None:
    """Write ``data`` (bytes, or text written as UTF-8) to ``path`` atomically (see the module docstring).

    On failure: the temporary file is removed, ``path`` is untouched, and :class:`WriteError` is raised with
    ``advice`` appended to its message (e.g. how to resume)."""
    path = os.fspath(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    if os.path.islink(path):  # write through a link (the renamed file would have replaced the link itself)
        path = os.path.realpath(path)
    if os.path.exists(path) and not os.access(path, os.W_OK):  # a write-protected file is not replaced silently
        raise WriteError(errno.EACCES, f"could not write {path!r}: the file is write-protected"
                         + (f"; {advice}" if advice else ""), path)
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name}.tmp-{os.getpid()}")
    crash = _crash_point(name)
    _crash(crash, "start")
    try:
        try:
            with open(tmp, "wb") as fh:
                if crash == "partial":
                    fh.write(data[: len(data) // 2])
                    fh.flush()
                    _crash(crash, "partial")
                _write(fh, data)
                fh.flush()
                os.fsync(fh.fileno())
            _crash(crash, "written")
            os.replace(tmp, path)
            _crash(crash, "renamed")
        except BaseException:
            try:
                os.remove(tmp)
            except OSError:
                pass
            raise
    except OSError as exc:
        raise WriteError(exc.errno, f"could not write {path!r}: {describe(exc)}" + (f"; {advice}" if advice else ""),
                         path) from None
    _fsync_dir(folder)
