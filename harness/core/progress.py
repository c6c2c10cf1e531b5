"""The conformance run's progress on a terminal: one self-rewriting line, and nothing at all
in a CI log (``--log-phases`` prints one line per phase there instead)."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO


class ProgressLine:
    """One self-rewriting status line on a terminal; nothing at all anywhere else.

    Called with the running ``Tally`` (examples done, comparisons/s, failures so far) and
    told of later phases by ``phase``. In CI logs (standard error not a terminal) it stays
    silent and the summary printed at the end is all there is.
    """

    def __init__(self, total: int, stream: TextIO | None = None,
                 interval: float = 0.2, *, log_phases: bool = False) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty()
        self.log_phases = log_phases and not self.enabled
        self.total = total
        self.interval = interval
        self.started = time.monotonic()
        self.last = float("-inf")
        self.dirty = False

    def __call__(self, tally: Any) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < self.interval
                                and tally.examples < self.total):
            return
        self.last = now
        rate = tally.comparisons / max(now - self.started, 1e-9)
        self._write(f"explore: {tally.examples}/{self.total} cases, {tally.comparisons} "
                    f"comparisons, {rate:.0f} comparisons/s, "
                    f"{sum(tally.failures.values())} failures so far")

    def phase(self, text: str) -> None:
        if self.log_phases:
            self.stream.write(f"phase: {text}\n")
            self.stream.flush()
        if not self.enabled:
            return
        if self.dirty:
            self.stream.write("\n")
        self._write(f"{text} ...")

    def close(self) -> None:
        if self.enabled and self.dirty:
            self.stream.write("\n")
            self.stream.flush()
            self.dirty = False

    def _write(self, text: str) -> None:
        self.stream.write(f"\r{text}\x1b[K")
        self.stream.flush()
        self.dirty = True
