"""Benchmark section ``jobs``: each profile's whole conformance job as users run it
(``python -m harness conformance --profile P``, every core, a child process), its wall
time and the report's own time by phase (exploration, witness searches, pinned witnesses,
real models, morph track), beside the work it did (cases, comparisons, real-model
comparisons), and the limit the profile promises."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .figures import summary
from .scales import Scale

#: What each profile promises on this machine (issue 24), seconds of wall time.
PROFILE_LIMITS = {"smoke": 20.0, "dev": 90.0, "ci": 150.0}
#: The report's timing fields, by phase.
PHASES = ("explore_seconds", "witness_search_seconds", "pinned_seconds",
          "real_models_seconds", "morph_track_seconds")
#: A job past this is stopped and recorded as such (a bench never hangs).
JOB_TIMEOUT = 3600


def job_once(profile: str) -> dict[str, Any]:
    """One run of ``profile``'s job in a child process; its report's figures."""
    from ..core.canonical import read_yaml

    with tempfile.TemporaryDirectory(prefix="bench-job-") as folder:
        report = Path(folder) / "conformance.yaml"
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "harness", "conformance", "--profile", profile,
             "--no-database", "--report", str(report)],
            capture_output=True, text=True, timeout=JOB_TIMEOUT, check=False)
        wall = time.perf_counter() - started
        if done.returncode not in (0, 3) or not report.exists():
            last = (done.stderr.strip().splitlines() or [""])[-1][:300]
            return {"wall": wall, "error": f"exit {done.returncode}: {last}"}
        data = read_yaml(report)
    assert isinstance(data, dict)
    summary_ = data["summary"]
    real = sum(f["tally"]["comparisons"] for f in data.get("real_models", {}).get("fixtures", [])
               if isinstance(f, dict) and "tally" in f)
    return {"wall": wall, "verdict": data.get("verdict"), "cases": summary_["examples"],
            "comparisons": summary_["comparisons"], "real_model_comparisons": real,
            "phases": {phase: float(summary_.get(phase, 0.0)) for phase in PHASES},
            "duration": float(summary_["duration_seconds"])}


def section_jobs(scale: Scale, notes: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"what": "each profile's conformance job (python -m harness "
                                   "conformance --profile P --no-database, every core), wall "
                                   "time of the child and the report's time by phase"}
    for profile in scale.job_profiles:
        runs = [job_once(profile) for _ in range(scale.job_repeats)]
        failed = [r["error"] for r in runs if "error" in r]
        if failed:
            notes.append(f"jobs: {profile}: {failed[0]}")
            out[profile] = {"error": failed[0]}
            continue
        walls = [r["wall"] for r in runs]
        first = runs[0]
        out[profile] = {
            "verdict": first["verdict"], "cases": first["cases"],
            "comparisons": first["comparisons"],
            "real_model_comparisons": first["real_model_comparisons"],
            "seconds": summary(walls),
            "by_phase": {phase.removesuffix("_seconds"): summary([r["phases"][phase]
                                                                  for r in runs])
                         for phase in PHASES},
            "limit_seconds": PROFILE_LIMITS.get(profile),
        }
    return out
