"""Child processes the harness waits on (``pip download``, ``npm pack``): each in a process
group of its own, ended with its whole group when the wait is cut short.

A signal that stops the run (``core.interrupts``) arrives while the harness sits in
:func:`run`; the exception it raises ends the child's group (SIGTERM, then SIGKILL after
a short grace) before it travels on, so no download outlives the run and the temporary
folder it wrote into can be removed at once. Decision 0033.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: How long a child's group has to go after SIGTERM before it is killed.
GRACE_SECONDS: Final = 0.5


@dataclass(frozen=True, slots=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str


class ChildTimeoutError(Exception):
    """The child ran past its time limit (its group was ended)."""


def end_group(process: subprocess.Popen[str]) -> None:
    """End ``process`` and every process of its group; reap it."""
    for signum, wait in ((signal.SIGTERM, GRACE_SECONDS), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signum)
        try:
            process.wait(timeout=wait)
            # The group may outlive its leader: one more SIGKILL for stragglers.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue


def run(command: Sequence[str], *, timeout: float, cwd: Path | None = None,
        env: Mapping[str, str] | None = None) -> Finished:
    """Run ``command`` to its end and return what it printed. Raises ``OSError`` when it
    cannot start and :class:`ChildTimeoutError` past ``timeout`` seconds; anything raised while
    waiting (an interrupt) ends the child's group first."""
    process = subprocess.Popen(list(command), cwd=cwd, env=dict(env) if env is not None
                               else None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        end_group(process)
        process.communicate()
        raise ChildTimeoutError(f"{' '.join(command)} ran past {timeout:.0f} s") from None
    except BaseException:
        end_group(process)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
        raise
    return Finished(process.returncode, stdout, stderr)


#: Lines that say what went wrong in pip's and npm's output, in preference to the others.
MARKERS: Final = ("ERROR:", "FetchError", "npm error code", "npm ERR! code")


def excerpt(finished: Finished, width: int = 240) -> str:
    """One line of what a child printed that says what went wrong (the last line with a
    marker, else the last line), at most ``width`` characters, with "…" where it was cut."""
    lines = [line.strip() for line in (finished.stdout + "\n" + finished.stderr).splitlines()
             if line.strip()]
    marked = [line for line in lines if any(marker in line for marker in MARKERS)]
    line = (marked or lines or ["(no message)"])[-1]
    for prefix in ("npm error ", "npm ERR! "):
        line = line.removeprefix(prefix)
    return line if len(line) <= width else line[:width - 1] + "…"
