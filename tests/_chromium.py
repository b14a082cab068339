"""A tiny headless-Chromium driver over the DevTools protocol on pipes (``--remote-debugging-pipe``).

No dependency beyond the standard library: Chromium reads JSON commands from fd 3 and writes replies and events
to fd 4, each message ending in a NUL byte. Used by tests/test_report.py; skipped when chromium is missing.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    """One page in a headless Chromium; collects console errors, exceptions and dialogs (alerts)."""

    def __init__(self, executable: str, user_data_dir: str, *, width: int = 1360, height: int = 900,
                 timeout: float = 60.0) -> None:
        self.timeout = timeout
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()

        def wire():  # in the child: our pipe ends become fds 3 (commands in) and 4 (replies out)
            a, b = os.dup(cmd_r), os.dup(out_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={user_data_dir}", "--remote-debugging-pipe", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(out_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session = None
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # ------------------------------------------------------------------ protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self._out_r], [], [], left)
            if ready:
                chunk = os.read(self._out_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def _handle_event(self, message: dict) -> None:
        self.events.append(message)
        if message.get("method") == "Page.javascriptDialogOpening":  # never leave a dialog blocking the page
            self.send("Page.handleJavaScriptDialog", {"accept": True})

    def send(self, method: str, params: dict | None = None) -> int:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(message).encode() + b"\0")
        return self._next_id

    def call(self, method: str, params: dict | None = None) -> dict:
        ident = self.send(method, params)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read_message(deadline)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self._handle_event(message)

    def wait_for(self, method: str) -> dict:
        for message in self.events:
            if message.get("method") == method:
                return message
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._read_message(deadline)
            if "method" in message:
                self._handle_event(message)
                if message["method"] == method:
                    return message

    # ------------------------------------------------------------------ page helpers
    def open(self, url: str) -> None:
        self.events = [e for e in self.events if e.get("method") != "Page.loadEventFired"]
        self.call("Page.navigate", {"url": url})
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path) -> None:
        data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True})["data"]
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(data))

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions, error log entries (CSP violations...) and dialogs so far."""
        self.evaluate("1")  # drain pending events
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                out.append("exception: " + str(details.get("exception", {}).get("description", details.get("text"))))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                out.append("log: " + params["entry"].get("text", ""))
            elif method == "Page.javascriptDialogOpening":
                out.append("dialog: " + params.get("message", ""))
        return out

    def close(self) -> None:
        self.session = None  # Browser.close is a browser-level command
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._cmd_w, self._out_r):
            try:
                os.close(fd)
            except OSError:
                pass
