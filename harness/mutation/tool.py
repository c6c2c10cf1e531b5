"""Cosmic Ray (pinned, ``COSMIC_RAY``) driven through its command line over a copy.

A module's campaign copies ``implementation/`` into a temporary folder, writes a Cosmic
Ray configuration naming the copy's module and the killer
(``python -m harness.mutation.killer``, run with the copy's folder as its working
directory so that the copy is the ``implementation`` it imports), lets ``cosmic-ray
init`` enumerate every mutant, keeps a seeded sample of them in the tool's session file
(the others are deleted from it before ``cosmic-ray exec``), and reads the results back
with ``cosmic-ray dump``. Cosmic Ray mutates the copy in place and restores it; the
working tree is never written, and an interrupt ends every child's process group and
removes the folder (docs/decisions/0046-mutation-campaign.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from harness.core.children import end_group
from harness.mutation.sites import Sites

#: The mutation tool and its exact version (the nox session installs this pin).
COSMIC_RAY: Final = "cosmic-ray==8.7.0"
#: A killer run past this many times the unmutated run (at least ``TIMEOUT_FLOOR`` s) is
#: a timeout (a mutant that loops, or one so slow it is as good as caught).
TIMEOUT_FACTOR: Final = 6.0
TIMEOUT_FLOOR: Final = 60.0


class ToolError(RuntimeError):
    """Cosmic Ray is missing, of another version, or failed (its message says how)."""


@dataclass(frozen=True)
class Spec:
    """One mutant as Cosmic Ray names it: an operator's ``occurrence``-th site in a module."""

    operator: str
    occurrence: int
    line: int
    column: int
    end_line: int
    end_column: int
    definition: str | None


@dataclass(frozen=True)
class Outcome:
    """What ``exec`` found for one mutant: the tool's worker and test outcomes, the diff
    and the killer's output (its last lines)."""

    spec: Spec
    worker_outcome: str
    test_outcome: str | None
    diff: str
    output: str


_live: set[subprocess.Popen[str]] = set()
_lock = threading.Lock()
_stopping = threading.Event()


class StoppedError(RuntimeError):
    """The campaign is being stopped: no further child is started."""


def end_children() -> None:
    """End every child's process group still running, and start none after (an
    interrupt's cleanup)."""
    _stopping.set()
    with _lock:
        live = list(_live)
    for process in live:
        end_group(process)


def _run(command: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None,
         timeout: float) -> tuple[int, str]:
    with _lock:  # checked and registered together: end_children() misses no child
        if _stopping.is_set():
            raise StoppedError("the campaign is stopping")
        process = subprocess.Popen(list(command), cwd=cwd, env=dict(env) if env else None,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        _live.add(process)
    try:
        out, _ = process.communicate(timeout=timeout)
    except BaseException:
        end_group(process)
        raise
    finally:
        with _lock:
            _live.discard(process)
    return process.returncode, out


def cosmic_ray_command() -> str:
    """The ``cosmic-ray`` beside this Python, else on PATH; of the pinned version."""
    beside = Path(sys.executable).parent / "cosmic-ray"
    found = str(beside) if beside.is_file() else shutil.which("cosmic-ray")
    if found is None:
        raise ToolError(f"cosmic-ray is not installed (pip install {COSMIC_RAY})")
    status, out = _run([found, "--version"], cwd=Path.cwd(), timeout=60)
    version = out.strip().rsplit(" ", 1)[-1]
    if status != 0 or version != COSMIC_RAY.split("==", 1)[1]:
        raise ToolError(f"{found} is version {version!r}, the campaign pins {COSMIC_RAY}")
    return found


def _config(module_path: Path, killer: str, timeout: float) -> str:
    return "\n".join((
        "[cosmic-ray]",
        f"module-path = {json.dumps(str(module_path))}",
        f"timeout = {timeout:.1f}",
        "excluded-modules = []",
        f"test-command = {json.dumps(killer)}",
        "",
        "[cosmic-ray.distributor]",
        'name = "local"',
        "",
    ))


def _specs(session: Path) -> dict[str, Spec]:
    with contextlib.closing(sqlite3.connect(session)) as db:
        rows = db.execute(
            "SELECT job_id, operator_name, occurrence, start_pos_row, start_pos_col, "
            "end_pos_row, end_pos_col, definition_name FROM mutation_specs").fetchall()
    return {row[0]: Spec(row[1], row[2], row[3], row[4], row[5], row[6], row[7])
            for row in rows}


def _keep_only(session: Path, keep: set[str]) -> None:
    with contextlib.closing(sqlite3.connect(session)) as db, db:
        jobs = [row[0] for row in db.execute("SELECT job_id FROM work_items")]
        drop = [(job,) for job in jobs if job not in keep]
        db.executemany("DELETE FROM mutation_specs WHERE job_id = ?", drop)
        db.executemany("DELETE FROM work_items WHERE job_id = ?", drop)


def sample_of(specs: Mapping[str, Spec], size: int, seed: int) -> list[str]:
    """``size`` job ids drawn by ``seed`` from the mutants in a fixed order (operator,
    occurrence), so the same source, size and seed give the same mutants."""
    ordered = sorted(specs, key=lambda job: (specs[job].operator, specs[job].occurrence))
    chosen = random.Random(f"{seed}").sample(range(len(ordered)), min(size, len(ordered)))
    return [ordered[i] for i in sorted(chosen)]


@dataclass(frozen=True)
class Campaign:
    """One module's run: how many mutants the tool found, the sampled outcomes, the cost."""

    population: int
    #: Mutants inside type annotations: equivalent by construction, never run.
    annotations: int
    outcomes: list[Outcome]
    baseline_seconds: float
    seconds: float
    #: Mutants in code only API calls outside the subject protocol reach
    #: (``sites.API_ONLY_MARKS``): no harness run can kill them; never run (decision 0050).
    api_only: int = 0


@contextlib.contextmanager
def _copy(root: Path) -> Iterator[Path]:
    with contextlib.ExitStack() as stack:
        import tempfile

        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mutation-")))
        shutil.copytree(root / "implementation", folder / "implementation",
                        ignore=shutil.ignore_patterns("__pycache__"))
        yield folder


def run_module(root: Path, module: str, *, size: int, seed: int, killer: Sequence[str],
               tool: str) -> Campaign:
    """Sample ``size`` mutants of implementation/<module>.py and run the killer on each."""
    started = time.perf_counter()
    with _copy(root) as folder:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(root)]),
               "PYTHONDONTWRITEBYTECODE": "1"}
        killer_line = " ".join(killer)
        t0 = time.perf_counter()
        status, out = _run(killer, cwd=folder, env=env, timeout=600)
        baseline = time.perf_counter() - t0
        expected = f"implementation: {folder / 'implementation' / '__init__.py'}"
        if status != 0 or expected not in out:
            raise ToolError(f"the unmutated killer run of {module} did not pass on the copy "
                            f"(status {status}): {out.strip().splitlines()[-1:]}")
        config, session = folder / "cosmic-ray.toml", folder / "session.sqlite"
        timeout = max(TIMEOUT_FLOOR, TIMEOUT_FACTOR * baseline)
        config.write_text(_config(folder / "implementation" / f"{module}.py", killer_line,
                                  timeout), encoding="utf-8")
        _checked(_run([tool, "init", str(config), str(session)], cwd=folder, env=env,
                      timeout=600), "init")
        specs = _specs(session)
        sites = Sites((root / "implementation" / f"{module}.py").read_text(encoding="utf-8"))
        kinds = {job: sites.kind(spec.line, spec.column) for job, spec in specs.items()}
        runnable = {job: spec for job, spec in specs.items()
                    if kinds[job] not in ("annotation", "api_only")}
        chosen = sample_of(runnable, size, seed)
        _keep_only(session, set(chosen))
        _checked(_run([tool, "exec", str(config), str(session)], cwd=folder, env=env,
                      timeout=(timeout + 30) * max(len(chosen), 1)), "exec")
        status, dumped = _checked(_run([tool, "dump", str(session)], cwd=folder, env=env,
                                       timeout=600), "dump")
        outcomes = [_outcome(line, specs, f"{folder}/") for line in dumped.splitlines()
                    if line.startswith("[")]
    outcomes.sort(key=lambda o: (o.spec.operator, o.spec.occurrence))
    api_only = sum(1 for kind in kinds.values() if kind == "api_only")
    return Campaign(len(specs), len(specs) - len(runnable) - api_only, outcomes, baseline,
                    time.perf_counter() - started, api_only)


def _checked(result: tuple[int, str], step: str) -> tuple[int, str]:
    if result[0] != 0:
        raise ToolError(f"cosmic-ray {step} failed (status {result[0]}): "
                        f"{result[1].strip().splitlines()[-1:]}")
    return result


def _outcome(line: str, specs: Mapping[str, Spec], folder: str) -> Outcome:
    item, result = json.loads(line)
    spec = specs[item["job_id"]]
    if result is None:
        return Outcome(spec, "pending", None, "", "")
    output = (result.get("output") or "").strip()
    return Outcome(spec, result["worker_outcome"], result.get("test_outcome"),
                   _diff(result.get("diff") or "", folder),
                   _caught_by(output).replace(folder, "<copy>/"))


def _diff(diff: str, folder: str) -> str:
    """The unified diff from its first ``---`` line, paths relative to the repository."""
    lines = diff.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("--- a/")), 0)
    return "\n".join(line.replace(f"a/{folder}", "a/").replace(f"b/{folder}", "b/")
                     for line in lines[start:]).strip() + "\n"


def _caught_by(output: str) -> str:
    """The killer's first finding line (a failure, a stale witness), else its last line."""
    lines = [line for line in output.splitlines() if line.strip()]
    if output == "timeout":
        return "timeout"
    found = [line for line in lines if line.startswith(("failure: ", "stale pinned"))]
    return (found or lines[-1:] or [""])[0][:240]
