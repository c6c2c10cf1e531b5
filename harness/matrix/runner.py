"""Run the matrix' subjects: per subject one job — an ordinary conformance run of it
(``python -m harness conformance --subject SPEC``, one worker) and the transplant of
every pinned witness (``harness.matrix.transplant``), each a child process with a time
limit — with up to one job per core at once. A child that dies, hangs past its limit or
writes no report ends only its own subject's job (decision 0037); an interrupt ends every
child's group (``core.children``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..core import children

#: Subjects of the registry the matrix does not run, and why (one line each).
NOT_RUN: Final = {
    "upstream": "the comparator itself (tokenizers 0.23.1): every run compares with it",
    "tokenizers-version": "a family, not one subject: run it as --subject tokenizers==X",
}
CONFORMANCE_TIMEOUT: Final = 1800.0
TRANSPLANT_TIMEOUT: Final = 900.0


@dataclass(frozen=True)
class Options:
    """How each subject's conformance run is run (passed on to the child)."""

    profile: str
    seed: int
    examples: int | None = None
    real_examples: int | None = None
    conformance_timeout: float = CONFORMANCE_TIMEOUT
    transplant_timeout: float = TRANSPLANT_TIMEOUT


@dataclass
class Outcome:
    """What one subject's job left: its report (None: none written), the transplant's
    rows, and one line saying why something is missing."""

    name: str
    spec: str
    report: Path | None
    transplant: dict[str, Any] | None
    reason: str = ""
    seconds: float = 0.0
    exit_status: int | None = None
    notes: list[str] = field(default_factory=list)


def file_name(spec: str) -> str:
    """The matrix' name of a subject spec: a registered name as it is, ``tokenizers==X``
    as ``tokenizers-X``, ``cmd:...`` as ``cmd-`` and a slug of its last two words."""
    if spec.startswith("cmd:"):
        words = spec.removeprefix("cmd:").split()[-2:]
        slug = re.sub(r"[^a-z0-9]+", "-", " ".join(Path(w).name for w in words).lower())
        return "cmd-" + slug.strip("-")
    return spec.replace("==", "-")


def _python(*arguments: str) -> list[str]:
    """A harness command in a child (it inherits the cache folder: ``use_cache_dir``)."""
    return [sys.executable, "-m", "harness", *arguments]


def conformance_command(spec: str, report: Path, options: Options) -> list[str]:
    words = ["conformance", "--profile", options.profile, "--seed", str(options.seed),
             "--workers", "1", "--no-database", "--report", str(report)]
    if spec != "reference":
        words[1:1] = ["--subject", spec]
    if options.examples is not None:
        words += ["--examples", str(options.examples)]
    if options.real_examples is not None:
        words += ["--real-examples", str(options.real_examples)]
    return _python(*words)


def run_subject(spec: str, folder: Path, scratch: Path, options: Options) -> Outcome:
    """One subject's job: its conformance run (its report written, atomically, as
    ``folder/<name>.yaml``: the report names itself in its reproduce commands), then its
    transplant (into ``scratch``) where the run wrote a report."""
    name = file_name(spec)
    started = time.monotonic()
    report = folder / f"{name}.yaml"
    report.unlink(missing_ok=True)  # an earlier run's report is not this run's
    outcome = Outcome(name, spec, None, None)
    try:
        done = _run_child(conformance_command(spec, report, options),
                            timeout=options.conformance_timeout)
    except children.ChildTimeoutError:
        outcome.reason = f"its run passed the matrix' limit of {options.conformance_timeout:g} s"
    except OSError as exc:
        outcome.reason = f"its run could not start ({exc})"
    else:
        outcome.exit_status = done.returncode
        if report.is_file():
            outcome.report = report
        else:
            skipped = [line.removeprefix("skipped: ") for line in done.stdout.splitlines()
                       if line.startswith("skipped: ")]
            outcome.reason = skipped[0] if skipped else (
                f"its run wrote no report (exit status {done.returncode}: "
                f"{children.excerpt(done)})")
    if outcome.report is not None:
        outcome.transplant = _transplant(spec, scratch / f"{name}.transplant.json", options,
                                         outcome.notes)
    outcome.seconds = time.monotonic() - started
    return outcome


def _transplant(spec: str, target: Path, options: Options, notes: list[str]
                ) -> dict[str, Any] | None:
    command = [sys.executable, "-m", "harness.matrix.transplant", spec, str(target)]
    try:
        done = _run_child(command, timeout=options.transplant_timeout)
    except children.ChildTimeoutError:
        notes.append(f"the transplant passed its limit of {options.transplant_timeout:g} s")
        return None
    if done.returncode != 0 or not target.is_file():
        notes.append(f"the transplant failed: {children.excerpt(done)}")
        return None
    found: dict[str, Any] = json.loads(target.read_text(encoding="utf-8"))
    return found


class _StoppedError(Exception):
    """The matrix is stopping (an interrupt in the main thread): start no child."""


_LIVE: set[subprocess.Popen[str]] = set()
_LOCK = threading.Lock()
_STOPPING = threading.Event()


def _run_child(command: Sequence[str], *, timeout: float) -> children.Finished:
    """``core.children.run`` for a worker thread: the child is known to the main thread,
    which ends every live child's group when an interrupt reaches it."""
    with _LOCK:
        if _STOPPING.is_set():
            raise _StoppedError
        process = subprocess.Popen(list(command), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        _LIVE.add(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        children.end_group(process)
        process.communicate()
        raise children.ChildTimeoutError(f"ran past {timeout:.0f} s") from None
    finally:
        with _LOCK:
            _LIVE.discard(process)
    return children.Finished(process.returncode, stdout, stderr)


def _end_all() -> None:
    with _LOCK:
        _STOPPING.set()
        live = list(_LIVE)
    for process in live:
        children.end_group(process)


def run_all(specs: Sequence[str], folder: Path, scratch: Path, options: Options, *, jobs: int,
            progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Every subject's job, up to ``jobs`` at once; the outcomes in the order of ``specs``."""
    def one(spec: str) -> Outcome:
        outcome = run_subject(spec, folder, scratch, options)
        if progress is not None:
            progress(outcome)
        return outcome

    _STOPPING.clear()
    pool = ThreadPoolExecutor(max_workers=max(1, jobs))
    futures = [pool.submit(one, spec) for spec in specs]
    try:
        while True:
            done, pending = wait(futures, timeout=0.5, return_when=FIRST_EXCEPTION)
            if not pending or any(f.exception() is not None for f in done):
                break
        return [future.result() for future in futures]
    except BaseException:
        _end_all()
        raise
    finally:
        for future in futures:
            future.cancel()
        pool.shutdown(wait=True)
