"""Ctrl-C for a subprocess run: wait until its run manifest records a finished chunk, then send SIGINT."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path


def recorded_chunks(manifest: Path) -> dict:
    """The finished chunks of the run whose manifest is ``manifest`` (while it runs: those its journal lists too,
    which the manifest holds only once the run stops); {} before the manifest exists."""
    from interplay.runs._store import Store

    if not manifest.exists():
        return {}
    return Store(manifest.parent, create=False).read_manifest()["chunks"]


def with_ctrl_c() -> None:
    """``preexec_fn`` for the subprocess: SIGINT back to its default. A job started in the background of a
    non-interactive shell (as a CI runner may start the tests) inherits SIGINT ignored, and Python then installs
    no KeyboardInterrupt handler, so Ctrl-C would not reach the run at all."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_after_first_chunk(proc: subprocess.Popen, manifest: Path, timeout: float = 120) -> str:
    """SIGINT ``proc`` (what Ctrl-C sends) once ``manifest`` lists a chunk (or ``proc`` ended, or ``timeout``
    seconds passed); returns its standard error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if recorded_chunks(manifest):
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    return proc.communicate(timeout=timeout)[1]
