"""Runs against a third-party subject (``--subject``): any implementation speaking the
subject protocol, compared with ``tokenizers`` over the same generated cases and real
files as our reference, its divergences judged by its expectations.

A subject is named by a spec: a name of the registry (``harness.subjects.registry``: a
folder of ``harness/subjects/`` or an entry point) or ``cmd:<command line>`` (any command
speaking the protocol). Its expectations are the ``expectations.yaml`` of the registered
subject its hello names, or the file given with ``--expectations``; their named
recognisers are that subject's ``recognisers`` module, wired in here (the judge imports
no subject: decision 0034). Its pinned witnesses, ``witnesses.json`` beside the
expectations file, are re-run at the end: an entry whose witness no longer shows it is
stale. One child process per spec and per process (a worker starts its own).
"""

from __future__ import annotations

import importlib
import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, cast

from ..core.case import Case
from ..core.observation import Observation
from ..judge.compare import SUBJECT_SIDE
from ..judge.coverage import rules_exercised
from ..judge.expectations import Expectations, ExpectationsError, empty, parse
from ..judge.predicates import Predicate
from ..subjects import registry, tokenizers_version
from ..subjects.process import ProcessSubject
from ..subjects.protocol import Subject
from ..subjects.registry import EXPECTATIONS, WITNESSES, SubjectUnavailableError
from ..subjects.upstream import UPSTREAM
from .engine import Engine
from .generated import case_features
from .observe import observe_subject_case
from .pinned import PinnedCheck, recheck

__all__ = ["SubjectUnavailableError"]

#: The default subject: our reference (its own run, with the strict and lenient tracks).
REFERENCE: Final = "reference"
#: Joins a subject spec and an out-of-tree expectations file into one run spec, the one
#: string a run (and each of its worker processes) is given. A command line cannot hold
#: a NUL, so the split is unambiguous.
_EXPECTATIONS_MARK: Final = "\0--expectations="


def run_spec(spec: str, expectations: str | None) -> str:
    """``spec`` judged by the expectations file ``expectations`` (None: its own)."""
    return spec if expectations is None else f"{spec}{_EXPECTATIONS_MARK}{expectations}"


def split_spec(run: str) -> tuple[str, str | None]:
    """The subject spec and the out-of-tree expectations file of a run spec."""
    spec, _, expectations = run.partition(_EXPECTATIONS_MARK)
    return spec, expectations or None


def command_of(spec: str) -> list[str]:
    """The command line that starts the subject ``spec`` (a registered name or cmd:...)."""
    if tokenizers_version.is_spec(spec):  # any published tokenizers, in its own venv
        try:
            return tokenizers_version.command_for(spec)
        except tokenizers_version.SubjectUnavailableError as exc:
            raise SubjectUnavailableError(f"--subject {spec}: {exc}") from None
    if spec.startswith("cmd:"):
        try:
            words = shlex.split(spec.removeprefix("cmd:"))
        except ValueError as exc:
            raise SubjectUnavailableError(f"--subject {spec!r}: {exc}") from None
        if not words:
            raise SubjectUnavailableError("--subject cmd: needs a command line")
        return words
    entry = registry.lookup(spec)
    if entry is None or spec == REFERENCE:
        raise SubjectUnavailableError(
            f"unknown subject {spec!r} (known: {', '.join(registry.names())}, or "
            "cmd:'<command line>')")
    command = entry.command()
    if command is None:
        raise SubjectUnavailableError(f"{spec} runs in this process, not as a child process "
                                      "speaking the protocol: --subject cannot judge it "
                                      "(python -m harness check-subject can calibrate it)")
    return command


def subject_to_check(spec: str) -> Subject[Any]:
    """The subject ``spec`` for ``check-subject``: a child process, or a registered subject
    that runs in this process (our reference, upstream)."""
    entry = registry.lookup(spec) if not spec.startswith("cmd:") else None
    if entry is not None and entry.command() is None:
        made = entry.in_process()
        if made is None:
            raise SubjectUnavailableError(f"{entry.package} has neither command() nor "
                                          "subject(): it is no adapter")
        return cast(Subject[Any], made)
    return ProcessSubject(command_of(spec))


def is_registered(spec: str) -> bool:
    return registry.lookup(spec) is not None


@cache
def subject_for(spec: str) -> ProcessSubject:
    """The subject process of ``spec`` in this process (started on first request)."""
    return ProcessSubject(command_of(spec))


def recognisers_of(name: str) -> Mapping[str, Predicate]:
    """The recognisers of the registered subject ``name`` (none where it has none)."""
    entry = registry.lookup(name)  # a registered name first (tokenizers-npm is one)
    if entry is None and name.startswith(tokenizers_version.HELLO_PREFIX):
        entry = registry.lookup(tokenizers_version.REGISTERED)  # tokenizers-0.x, -1.x
    module = entry.recognisers_module() if entry is not None else None
    if module is None:
        return {}
    found = getattr(importlib.import_module(module), "RECOGNISERS", None)
    if not isinstance(found, Mapping) or not all(callable(p) for p in found.values()):
        raise SubjectUnavailableError(f"{module}.RECOGNISERS must map recogniser names to "
                                      "predicates")
    return found


def read_named(path: str) -> str | None:
    """The text of a file as a report names it: a file of a registered subject's folder
    (``harness/subjects/<folder>/...``), else a path of this machine; None where there is
    no such file."""
    for entry in registry.registered().values():
        folder = entry.display_folder
        if path.startswith(folder) and "/" not in path.removeprefix(folder):
            found = entry.file(path.removeprefix(folder))
            return found.read_text(encoding="utf-8") if found is not None else None
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise SubjectUnavailableError(f"{path}: cannot read it ({exc})") from None


@cache
def expectations_at(path: str) -> Expectations:
    """The expectations file ``path`` as a report names it (a registered subject's own,
    any other file given with ``--expectations``, or ``(none)``); its named recognisers
    are those of the registered subject the file names."""
    if path == "(none)":
        return empty("(none)")
    text = read_named(path)
    if text is None:
        raise ExpectationsError(f"{path}: no such file")
    subject = _named_subject(text)
    return parse(text, where=path,
                 recognisers=recognisers_of(subject) if subject is not None else {})


def _named_subject(text: str) -> str | None:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return None  # parse() says what is wrong
    name = data.get("subject") if isinstance(data, dict) else None
    return name if isinstance(name, str) else None


def expectations_path(name: str, expectations: str | None) -> str:
    """The expectations file a run of the subject ``name`` (its hello's) is judged by."""
    if expectations is not None:
        return expectations
    entry = registry.lookup(name)  # a registered name first: tokenizers-npm is one
    if entry is None and name.startswith(tokenizers_version.HELLO_PREFIX):
        return tokenizers_version.expectations_display(name)  # one file per API family
    if entry is None or entry.file(EXPECTATIONS) is None:
        return "(none)"
    return entry.display(EXPECTATIONS)


def witnesses_beside(expectations: str) -> str | None:
    """The pinned-witness file of an expectations file: ``witnesses.json`` beside it
    (``witnesses-X.json`` beside an ``expectations-X.yaml``: one folder, several files)."""
    if expectations == "(none)":
        return None
    path = Path(expectations)
    tail = path.stem.removeprefix("expectations-") if path.stem.startswith("expectations-") \
        else None
    return (path.parent / (WITNESSES if tail is None else f"witnesses-{tail}.json")).as_posix()


@dataclass(frozen=True)
class SubjectEngine:
    spec: str
    subject: ProcessSubject
    expectations: Expectations
    engine: Engine

    @property
    def witnesses(self) -> str | None:
        """The subject's pinned-witness file, as a report names it."""
        return witnesses_beside(self.expectations.path)


@cache
def engine_for(run: str) -> SubjectEngine:
    """The engine of a run spec (``run_spec``): the subject, judged by its expectations."""
    spec, expectations = split_spec(run)
    subject = subject_for(spec)
    wired = expectations_at(expectations_path(subject.name, expectations))
    if expectations is not None and wired.subject != subject.name:
        raise SubjectUnavailableError(f"--expectations {expectations}: the file is for "
                                      f"subject {wired.subject!r}, the subject says it is "
                                      f"{subject.name!r}")

    def observe(case: Case) -> list[Observation]:
        return observe_subject_case(case, subject, UPSTREAM)

    engine = Engine(observe=observe, capabilities=subject.capabilities,
                    rules=rules_exercised, features=case_features,
                    classes=wired.classes, side=SUBJECT_SIDE)
    return SubjectEngine(spec, subject, wired, engine)


def subject_pinned_rows(wired: SubjectEngine) -> list[dict[str, Any]]:
    """The rows of the subject's pinned-witness file (none where it has none)."""
    text = read_named(wired.witnesses) if wired.witnesses is not None else None
    return list(json.loads(text).get("cases", [])) if text is not None else []


def run_of(spec: str, name: str, expectations: str) -> str:
    """The run spec that judges the subject ``spec`` (hello name ``name``) as a report
    recorded it: by ``expectations`` where that is not the subject's own file."""
    own = expectations_path(name, None)
    return run_spec(spec, None if expectations == own else expectations)


def check_subject_witnesses(run: str) -> PinnedCheck:
    """Re-run the subject's pinned witnesses; an entry no longer shown is stale. An entry
    deleted from the expectations is skipped: its witness is a failure now."""
    wired = engine_for(run)
    return recheck(subject_pinned_rows(wired), wired.engine.evaluate,
                   keep=lambda cls: wired.expectations.entry(cls) is not None)
