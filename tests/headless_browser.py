"""A headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe): no
port, no websocket library, no driver binary. Enough to open a local page with the network
off, collect console errors, failed requests and exceptions, evaluate JavaScript and take a
screenshot. Used by the report tests and by docs/make_screenshot.py.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    pass


def _high_fd(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class HeadlessBrowser:
    """One browser, one page. Use as a context manager."""

    def __init__(self, executable: str | None = None, width: int = 1400, height: int = 1000, timeout: float = 60.0) -> None:
        self.executable = executable or find_chromium()
        if self.executable is None:
            raise BrowserError("no chromium found (apt-get install -y chromium)")
        self.width, self.height, self.timeout = width, height, timeout
        self.events: list[dict[str, Any]] = []
        self._id = 0
        self._buffer = b""

    # --- process ---------------------------------------------------------------------------
    def __enter__(self) -> "HeadlessBrowser":
        self.profile = tempfile.mkdtemp(prefix="kschedctl-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the child's ends above 9, so that putting them on 3 and 4 cannot overwrite one another
        to_browser_r, from_browser_w = (_high_fd(fd) for fd in (to_browser_r, from_browser_w))
        args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--no-first-run",
            "--no-default-browser-check",
            "--metrics-recording-only",
            "--mute-audio",
            "--hide-scrollbars",
            # no network at all: every request would go to a closed local port
            "--proxy-server=http://127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            f"--user-data-dir={self.profile}",
            f"--window-size={self.width},{self.height}",
            "--remote-debugging-pipe",
            "about:blank",
        ]

        def on_3_and_4() -> None:  # in the child: where --remote-debugging-pipe reads and writes
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.proc = subprocess.Popen(
            [self.executable, *args],
            pass_fds=(3, 4),
            preexec_fn=on_3_and_4,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=True)
        self.call(
            "Network.emulateNetworkConditions",
            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            session=True,
        )
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    # --- protocol --------------------------------------------------------------------------
    def call(
        self, method: str, params: dict[str, Any] | None = None, session: bool = False, timeout: float | None = None
    ) -> dict[str, Any]:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed the pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def wait_for_event(self, method: str, timeout: float | None = None, since: int = 0) -> dict[str, Any]:
        """The first event ``method`` from position ``since`` of the events received (reading on)."""
        deadline = time.monotonic() + (timeout or self.timeout)
        seen = since
        while True:
            for e in self.events[seen:]:
                if e.get("method") == method:
                    return e
            seen = len(self.events)
            self.events.append(self._read(deadline))

    # --- page ------------------------------------------------------------------------------
    def open(self, path: str | Path) -> None:
        self.events.clear()
        self.call("Page.navigate", {"url": Path(path).resolve().as_uri()}, session=True)
        self.wait_for_event("Page.loadEventFired", since=0)  # it may have come with navigate's answer

    def evaluate(self, expression: str) -> Any:
        out = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, session=True)
        if "exceptionDetails" in out:
            raise BrowserError(f"{expression}: {out['exceptionDetails']}")
        return out["result"].get("value")

    def wait_until(self, expression: str, timeout: float = 30.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {expression}")
            time.sleep(0.1)

    def problems(self) -> list[str]:
        """Console errors, uncaught exceptions and requests that left the page's own file."""
        out = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                out.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(params["exceptionDetails"])[:500])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                out.append("log: " + params["entry"].get("text", ""))
            elif method == "Network.requestWillBeSent":
                url = params["request"]["url"]
                if not url.startswith(("file:", "data:", "about:", "blob:")):
                    out.append("request: " + url)
        return out

    def screenshot(self, path: str | Path, full_page: bool = True) -> None:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self.evaluate("[document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
            params["captureBeyondViewport"] = True
            params["clip"] = {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1}
        data = self.call("Page.captureScreenshot", params, session=True)["data"]
        Path(path).write_bytes(base64.b64decode(data))
