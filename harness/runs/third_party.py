"""Runs against a third-party subject (``--subject``): any implementation speaking the
subject protocol, compared with ``tokenizers`` over the same generated cases and real
files as our reference, its divergences judged by its expectations file.

A subject is named by a spec: ``example`` (our reference behind the protocol),
``transformers-js`` (the npm package, installed on first use) or ``cmd:<command line>``
(any command speaking the protocol). One child process per spec and per process (a
worker starts its own). The subject's pinned witnesses (``oracles/subjects/<name>.json``,
adopted from a report) are re-run at the end: an entry whose witness no longer shows it
is stale.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..core.case import Case
from ..core.observation import Observation
from ..core.resources import data_dir
from ..judge.coverage import rules_exercised
from ..judge.expectations import Expectations, load
from ..subjects import transformers_js
from ..subjects.process import ProcessSubject
from ..subjects.upstream import UPSTREAM
from .engine import Engine
from .generated import case_features
from .observe import observe_subject_case
from .pinned import PinnedCheck, pinned_rows, recheck

#: The default subject: our reference (its own run, with the strict and lenient tracks).
REFERENCE = "reference"
#: Subjects known by name (besides ``cmd:...``).
NAMED = ("example", transformers_js.NAME)
PINNED_FOLDER = "subjects"


class SubjectUnavailableError(Exception):
    """The subject cannot run here (one line saying why)."""


def command_of(spec: str) -> list[str]:
    """The command line that starts the subject ``spec``."""
    if spec == "example":
        return [sys.executable, "-m", "harness.subjects.example"]
    if spec == transformers_js.NAME:
        try:
            return transformers_js.command()
        except transformers_js.SubjectUnavailableError as exc:
            raise SubjectUnavailableError(str(exc)) from None
    if spec.startswith("cmd:"):
        try:
            words = shlex.split(spec.removeprefix("cmd:"))
        except ValueError as exc:
            raise SubjectUnavailableError(f"--subject {spec!r}: {exc}") from None
        if not words:
            raise SubjectUnavailableError("--subject cmd: needs a command line")
        return words
    raise SubjectUnavailableError(f"unknown subject {spec!r} (known: {REFERENCE}, "
                                  f"{', '.join(NAMED)}, or cmd:'<command line>')")


@cache
def subject_for(spec: str) -> ProcessSubject:
    """The subject process of ``spec`` in this process (started on first request)."""
    return ProcessSubject(command_of(spec))


def expectations_for(subject: ProcessSubject) -> Expectations:
    """The expectations file named after the subject (by its hello)."""
    return load(subject.name)


@dataclass(frozen=True)
class SubjectEngine:
    spec: str
    subject: ProcessSubject
    expectations: Expectations
    engine: Engine


@cache
def engine_for(spec: str) -> SubjectEngine:
    subject = subject_for(spec)
    expectations = expectations_for(subject)

    def observe(case: Case) -> list[Observation]:
        return observe_subject_case(case, subject, UPSTREAM)

    engine = Engine(observe=observe, capabilities=subject.capabilities,
                    rules=rules_exercised, features=case_features,
                    classes=expectations.classes)
    return SubjectEngine(spec, subject, expectations, engine)


def pinned_path(name: str) -> Path:
    return data_dir("oracles") / PINNED_FOLDER / f"{name}.json"


def check_subject_witnesses(spec: str) -> PinnedCheck:
    """Re-run the subject's pinned witnesses; an entry no longer shown is stale. An entry
    deleted from the expectations is skipped: its witness is a failure now."""
    wired = engine_for(spec)
    return recheck(pinned_rows(pinned_path(wired.subject.name)), wired.engine.evaluate,
                   keep=lambda cls: wired.expectations.entry(cls) is not None)
