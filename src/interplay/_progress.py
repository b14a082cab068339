"""Progress of long work (many rows, a batch run): a bar on a terminal or in a notebook, plain lines in logs.

:func:`progress` returns a :class:`Progress` (``update(n)``, ``close()``, a context manager) that shows, on
``sys.stderr``:

- on a terminal, or in a Jupyter notebook: tqdm's bar (``tqdm.auto``: a widget in notebooks);
- otherwise (stderr redirected to a file, a CI log, a pipe; or tqdm not installed): one plain line at most every
  :data:`INTERVAL` seconds, e.g. ``interplay: explaining 120/1000 rows (12%), 0:00:31 elapsed, about 0:03:47
  left``, and a last line when the work ends, so logs show progress without a bar's carriage returns.

``enabled``: ``None`` (the default everywhere) shows progress only once the work has taken :data:`DELAY` seconds,
so quick calls print nothing; ``True`` shows it at once; ``False`` never. The environment variable
``INTERPLAY_PROGRESS=0`` turns the default off (``1`` turns it on at once). Cost: one clock read per update.
"""

from __future__ import annotations

import datetime
import os
import sys
import time
from typing import Any, Iterable, Iterator

DELAY = 3.0  # seconds of work before the default shows anything
INTERVAL = 30.0  # seconds between two plain lines
ENV = "INTERPLAY_PROGRESS"
_clock = time.monotonic  # replaced in tests, which never wait on the wall clock


def _in_notebook() -> bool:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return type(shell).__name__ == "ZMQInteractiveShell"


def _interactive() -> bool:
    """Whether a bar can be drawn: stderr is a terminal, or this is a notebook's kernel."""
    try:
        return bool(sys.stderr.isatty()) or _in_notebook()
    except (AttributeError, ValueError):  # no stderr, or a closed one
        return False


def _resolve(enabled: bool | None) -> bool | None:
    if enabled is not None:
        if not isinstance(enabled, bool):
            raise TypeError(f"progress: expected True, False or None (shown after {DELAY:g} s), got {enabled!r}")
        return enabled
    setting = os.environ.get(ENV, "").strip().lower()
    if setting in ("0", "false", "no", "off"):
        return False
    if setting in ("1", "true", "yes", "on"):
        return True
    return None


def _clock_text(seconds: float) -> str:
    return str(datetime.timedelta(seconds=int(round(seconds))))


class Progress:
    """Counts finished units of work and shows them (see the module docstring)."""

    def __init__(self, total: int | None, desc: str, unit: str, enabled: bool | None, initial: int) -> None:
        self.total, self.desc, self.unit = total, desc, unit
        self.n = self.initial = initial
        self.mode = _resolve(enabled)  # True: at once, None: after DELAY, False: never
        self.start = _clock()
        self.bar: Any = None
        self.last_line: float | None = None
        if self.mode is not False and _interactive():
            try:
                from tqdm.auto import tqdm
            except ImportError:  # pragma: no cover - tqdm is optional: plain lines instead
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, initial=initial, desc=desc, unit=unit, file=sys.stderr,
                                delay=0 if self.mode else DELAY, smoothing=0.05)
        if self.mode is True and self.bar is None:
            self._line()

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.mode is not False:
            now = _clock()
            due = self.start + DELAY if self.last_line is None else self.last_line + INTERVAL
            if now >= due and self.total is not None and self.n >= self.total:  # the end, said once (not again
                self._line(now, final=True)                                     # by close())
                self.last_line, self.mode = None, False
            elif now >= due:
                self._line(now)

    def _line(self, now: float | None = None, final: bool = False) -> None:
        now = _clock() if now is None else now
        elapsed = now - self.start
        text = f"interplay: {self.desc} {self.n}"
        if self.total:
            text += f"/{self.total} {self.unit}s ({100 * self.n / self.total:.0f}%)"
        else:
            text += f" {self.unit}s"
        text += f", {_clock_text(elapsed)} elapsed"
        done_here = self.n - self.initial
        if not final and self.total and done_here > 0 and self.n < self.total:
            text += f", about {_clock_text(elapsed / done_here * (self.total - self.n))} left"
        elif final:
            text += ", done" if self.total is None or self.n >= self.total else ", stopped"
        print(text, file=sys.stderr, flush=True)
        self.last_line = now

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        elif self.last_line is not None:  # lines were shown: say how it ended
            self._line(final=True)
            self.last_line = None
        self.mode = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress(total: int | None, desc: str = "explaining", *, unit: str = "row", enabled: bool | None = None,
             initial: int = 0) -> Progress:
    """A :class:`Progress` for ``total`` units (``None``: unknown), ``initial`` of them already done."""
    return Progress(total, desc, unit, enabled, initial)


def tracked(items: Iterable, total: int, desc: str = "explaining", *, unit: str = "row",
            enabled: bool | None = None) -> Iterator:
    """Yield ``items``, counting one unit per item (see :func:`progress`); the display ends with the loop."""
    with progress(total, desc, unit=unit, enabled=enabled) as bar:
        for item in items:
            yield item
            bar.update(1)
