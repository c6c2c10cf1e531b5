"""Ctrl-C and SIGTERM stop a conformance run at once, wherever it is: exit 130 / 143 within
two seconds, one line on standard error saying what was interrupted, the report left as
it was, and no process left behind (workers included).

Each run uses the ``smoke`` profile and ``--log-phases``, so the test signals it while
it is in the phase it names: exploring, shrinking, or the real models. Ctrl-C is sent to
the whole process group, as a terminal does; SIGTERM to the parent alone, as a process
manager does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
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
