"""Benchmark section ``memory``: peak resident memory (VmHWM) of a child process
(``python -m harness bench --memory-child``) running the default exploration, the pinned
witnesses and then the real-model conformance at a reduced budget."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .environment import REPO_ROOT
from .figures import summary
from .scales import Scale


def _max_rss_bytes() -> int:
    """This process' peak resident set size, in bytes.

    On Linux, ``VmHWM`` of /proc/self/status: ``ru_maxrss`` there also keeps the peak of
    the memory image an ``exec`` replaced, and a child started by ``subprocess`` (vfork,
    then exec) would report its parent's peak.
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024)  # Linux: KiB


def memory_child(examples: int, real_examples: int, seed_value: int) -> dict[str, Any]:
    """Runs in the child process: imports, exploration, pinned witnesses, real models;
    the peak resident size after each."""
    from ..core.profiles import DEFAULT_PROFILE, PROFILES
    from ..runs.generated import ENGINE
    from ..runs.pinned import check_pinned_witnesses
    from ..runs.tally import Tally
    from ..runs.workers import exploration_sampled, strategy_of

    out: dict[str, Any] = {"after_imports": _max_rss_bytes()}
    stats = Tally()
    started = time.perf_counter()
    strategy = strategy_of(None, exploration_sampled(PROFILES[DEFAULT_PROFILE]))
    ENGINE.explore(strategy, budget=examples, seed_value=seed_value, tally=stats)
    out["explore_seconds"] = time.perf_counter() - started
    out["comparisons"] = stats.comparisons
    out["after_exploration"] = _max_rss_bytes()
    check_pinned_witnesses()
    out["after_pinned_witnesses"] = _max_rss_bytes()
    if real_examples >= 0:
        from ..runs import real_models

        started = time.perf_counter()
        fixtures = real_models.run(examples=real_examples, seed_value=seed_value)
        out["real_seconds"] = time.perf_counter() - started
        out["real_fixtures"] = [f.name for f in fixtures]
        out["after_real_models"] = _max_rss_bytes()
    return out


def section_memory(scale: Scale, notes: list[str]) -> dict[str, Any]:
    from ..core.profiles import DEFAULT_PROFILE, PROFILES

    examples = (PROFILES[DEFAULT_PROFILE].examples if scale.memory_examples is None
                else scale.memory_examples)
    runs: list[dict[str, Any]] = []
    for _ in range(scale.memory_repeats):
        command = [sys.executable, "-m", "harness", "bench", "--memory-child",
                   "--memory-examples", str(examples),
                   "--memory-real-examples", str(scale.memory_real_examples)]
        done = subprocess.run(command, cwd=REPO_ROOT, check=True, capture_output=True,
                              text=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    mib = 1024 * 1024
    phases = [p for p in ("after_imports", "after_exploration", "after_pinned_witnesses",
                          "after_real_models") if p in runs[0]]
    fixtures = ", ".join(runs[0].get("real_fixtures", []))
    real = (f"then the real-model conformance of every fixture ({fixtures}) with "
            f"{scale.memory_real_examples} generated texts each"
            if scale.memory_real_examples >= 0 else "no real models")
    return {
        "what": f"a child process: the default exploration ({examples} cases, seed 0), the "
                f"pinned witnesses, {real}; peak resident set (VmHWM) after each phase "
                "(shrinking and the unified morph track left out)",
        "peak_rss_mib": summary([r[phases[-1]] / mib for r in runs]),
        "peak_rss_mib_by_phase": {p: summary([r[p] / mib for r in runs]) for p in phases},
        "comparisons": runs[0]["comparisons"],
    }
