"""Interrupts: Ctrl-C (SIGINT) and SIGTERM stop a run promptly and nothing is written.

``install()`` replaces both handlers: the first signal sets a flag and raises
``Interrupted`` where the process happens to be. Python may swallow an exception raised
inside a garbage-collector callback or a ``__del__`` (Hypothesis keeps one), so the run's
loops also call ``check()`` between cases, which raises again from the flag: a signal is
never lost. ``Interrupted`` derives from ``BaseException``, so no ``except Exception``
(ours, Hypothesis', a subject's) takes it for a finding.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from types import FrameType
from typing import Final

#: Exit status of a run stopped by each signal (128 + the signal number, as shells do).
EXIT_STATUS: Final = {signal.SIGINT: 130, signal.SIGTERM: 143}
_received: list[int] = []
#: What the run is doing, for the line an interrupt prints.
_phase: list[str] = ["starting"]


class Interrupted(BaseException):
    """The run was stopped by a signal (``signum``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS.get(signal.Signals(self.signum), 128 + self.signum)


def _handler(signum: int, frame: FrameType | None) -> None:
    first = not _received
    _received.append(signum)
    if first:
        raise Interrupted(signum)


def _unraisable(info: sys.UnraisableHookArgs) -> None:
    """An ``Interrupted`` that Python could not raise (inside a garbage-collector callback
    or a ``__del__``) is not reported: the flag holds it and ``check()`` raises it again."""
    if isinstance(info.exc_value, Interrupted):
        return
    sys.__unraisablehook__(info)


def install() -> None:
    """Route SIGINT and SIGTERM to ``Interrupted`` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in EXIT_STATUS:
        signal.signal(signum, _handler)
    sys.unraisablehook = _unraisable


def set_phase(text: str) -> None:
    _phase[0] = text


def phase() -> str:
    return _phase[0]


def watch_parent(interval: float = 0.5) -> None:
    """Stop this process (as by SIGTERM) when the process that started it goes away: a
    command run by nox, whose own SIGTERM would otherwise leave it running."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def received() -> int | None:
    return _received[0] if _received else None


def check() -> None:
    """Raise ``Interrupted`` if a signal arrived (even if its first raise was lost)."""
    if _received:
        raise Interrupted(_received[0])
