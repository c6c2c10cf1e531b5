"""A minimal W3C WebDriver client (standard library only) for Debian's ``chromium-driver``:
start the driver on a free loopback port, open one headless Chromium session, navigate,
find, click, read the DOM, the console log and screenshots. Used by the browser test of
the site (tests/harness/test_site_browser.py); nothing downloads a browser build."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Debian's /usr/bin/chromium is a shell wrapper; the driver needs the binary itself.
CHROMIUM_BINARY = Path("/usr/lib/chromium/chromium")
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage", "--window-size=1400,1100"]


class WebDriverError(Exception):
    """The driver answered a command with an error."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Browser:
    """One headless Chromium driven through chromedriver; a context manager that ends both
    (the driver runs in its own process group, killed whole on exit)."""

    def __init__(self, profile: Path) -> None:
        self.port = _free_port()
        self.driver = subprocess.Popen(
            [str(CHROMEDRIVER), f"--port={self.port}"], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        self.base = f"http://127.0.0.1:{self.port}"
        self._wait_ready()
        capabilities = {"browserName": "chrome",
                        "goog:chromeOptions": {"binary": str(CHROMIUM_BINARY),
                                               "args": [*ARGS, f"--user-data-dir={profile}"]},
                        "goog:loggingPrefs": {"browser": "ALL"}}
        answer = self._call("POST", "/session", {"capabilities": {"alwaysMatch": capabilities}})
        self.session = f"/session/{answer['sessionId']}"

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if self._call("GET", "/status").get("ready"):
                    return
            except (OSError, WebDriverError):
                pass
            time.sleep(0.1)
        raise WebDriverError("chromedriver did not become ready within 30 s")

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                payload = json.loads(response.read())
        except urllib.error.HTTPError as exc:
            payload = json.loads(exc.read() or b"{}")
            value = payload.get("value", {})
            raise WebDriverError(f"{method} {path}: {value.get('error')}: "
                                 f"{str(value.get('message'))[:300]}") from None
        value = payload.get("value")
        if path == "/session" and method == "POST":
            return value
        return value if value is not None else {}

    def command(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return self._call(method, self.session + path, body)

    def open(self, page: Path) -> None:
        self.command("POST", "/url", {"url": page.as_uri()})

    def url(self) -> str:
        value: str = self.command("GET", "/url")
        return value

    def source(self) -> str:
        value: str = self.command("GET", "/source")
        return value

    def find(self, css: str) -> str:
        found = self.command("POST", "/element", {"using": "css selector", "value": css})
        element: str = found[ELEMENT]
        return element

    def click(self, element: str) -> None:
        self.command("POST", f"/element/{element}/click", {})

    def text(self, css: str) -> str:
        value: str = self.command("GET", f"/element/{self.find(css)}/text")
        return value

    def console(self) -> list[dict[str, Any]]:
        """The browser's console entries since the last call (chromedriver's log)."""
        entries: list[dict[str, Any]] = self.command("POST", "/se/log", {"type": "browser"})
        return entries

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.command("GET", "/screenshot")))

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        try:
            self.command("DELETE", "")
        except (OSError, WebDriverError):
            pass
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.driver.pid, signal.SIGKILL)
            self.driver.wait(timeout=10)
