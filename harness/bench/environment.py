"""The environment header of a benchmark report: machine, Python, library versions, the
commit and the command (and where git commands and the memory child run)."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.resources import checkout_root
from .scales import Scale

#: git commands and the memory child run here: the checkout, else the working directory.
REPO_ROOT = checkout_root() or Path(".")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO_ROOT, check=True, capture_output=True,
                               text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with local changes)" if dirty else "")


def environment(scale: Scale, command: str) -> dict[str, Any]:
    from ..job import environment as conformance_environment

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count() or 0
    return {
        **conformance_environment(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count() or 0,
        "cpus_usable": usable,
        "commit": _git_commit(),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
        "scale": scale.name,
        "timer": "time.perf_counter (wall clock); the cyclic GC off while encode/decode/"
                 "growth passes are timed, on during the harness exploration",
    }
