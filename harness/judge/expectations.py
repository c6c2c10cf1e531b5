"""Expectations of third-party subjects: ``harness/expectations/<subject>.yaml`` lists each
known divergence of that subject from ``tokenizers``, in the spirit of web-platform-tests
expectation files and Wycheproof flags.

Each entry has an id, a one-line ``title``, the ``side`` that is right where that is
clear (``subject-bug``: the subject is wrong; ``upstream-bug``: tokenizers is wrong and
the subject right; ``different``: neither is a bug, they just differ), a ``link`` where
one exists, the tiers it may ``explain``, and a ``recogniser``: the name of a predicate
in ``harness/judge/recognisers.py`` (which must recognise the mechanism positively, as
the predicates of our own registry do) or a ``signature`` (operation, tier, both outcome kinds and a
regular expression on the subject's message). ``inherit: reference`` makes our own
registry's classes apply too (a subject wrapping our reference).

A run against a subject is green when every divergence is known; a known entry whose
pinned witness no longer shows it is stale; anything else is a failure.

An optional ``generator`` mapping narrows the generated cases of a run against the subject
to what its entries have been triaged over (``{dimension: [option, ...]}``, the keywords of
``harness.strategies.cases``); the run says so in one line. Real-model fixtures and pinned
witnesses are not narrowed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Final, Literal

import yaml

from ..core.outcome import outcome_kind
from .classify import Explainer
from .compare import TIERS, Divergence
from .predicates import ALL, NONE, Context, Predicate
from .recognisers import RECOGNISERS
from .registry import load_registry

#: The package holding the expectation files (data only).
FILES_PACKAGE: Final = "harness.expectations"

Side = Literal["subject-bug", "upstream-bug", "different"]
SIDES: Final[tuple[Side, ...]] = ("subject-bug", "upstream-bug", "different")


class ExpectationsError(Exception):
    """An expectations file is malformed (the message names the file and the entry)."""


@dataclass(frozen=True)
class Signature:
    """A divergence recognised by its shape: operation, tier, both outcome kinds (as in
    a failure signature: ``encoded``, ``refused[rule]``, ``crashed[kind]``, ...) and a
    regular expression the subject's refusal or crash message must match."""

    operation: str
    tier: str
    subject: str
    upstream: str
    message: str = ""

    def __call__(self, ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        if (obs.operation, div.tier) != (self.operation, self.tier):
            return NONE
        if outcome_kind(obs.reference) != self.subject:
            return NONE
        if outcome_kind(obs.upstream) != self.upstream:
            return NONE
        if self.message:
            text = getattr(obs.reference, "message", "")
            if not isinstance(text, str) or re.search(self.message, text) is None:
                return NONE
        return ALL


@dataclass(frozen=True)
class Expectation:
    id: str
    title: str
    side: Side
    link: str | None
    explains: tuple[str, ...]
    recogniser: str
    why: str
    predicate: Predicate

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "side": self.side, "link": self.link,
                "recogniser": self.recogniser, "why": self.why}


@dataclass(frozen=True)
class Expectations:
    subject: str
    #: The file, as a repository path.
    path: str
    entries: tuple[Expectation, ...]
    inherit_reference: bool
    #: Narrowing of the generated cases (``harness.strategies.cases`` keywords).
    generator: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def classes(self) -> tuple[Explainer, ...]:
        own: tuple[Explainer, ...] = self.entries
        return own + (tuple(load_registry()) if self.inherit_reference else ())

    def entry(self, entry_id: str) -> Expectation | None:
        return next((e for e in self.entries if e.id == entry_id), None)


def path_of(subject: str) -> str:
    return f"harness/expectations/{subject}.yaml"


def available() -> tuple[str, ...]:
    """The subjects that have an expectations file."""
    folder = resources.files(FILES_PACKAGE)
    return tuple(sorted(p.name.removesuffix(".yaml") for p in folder.iterdir()
                        if p.name.endswith(".yaml")))


def empty(subject: str) -> Expectations:
    """No known divergence: every divergence of the subject is a failure."""
    return Expectations(subject, "(none)", (), inherit_reference=False)


@cache
def load(subject: str) -> Expectations:
    """``harness/expectations/<subject>.yaml``, checked."""
    if subject not in available():
        return empty(subject)
    text = resources.files(FILES_PACKAGE).joinpath(f"{subject}.yaml").read_text("utf-8")
    return parse(text, where=path_of(subject))


def parse_file(path: str) -> Expectations:
    """An expectations file named by its repository path (``harness/expectations/x.yaml``),
    or the empty expectations that ``empty`` names ``(none)``."""
    name = path.removeprefix("harness/expectations/").removesuffix(".yaml")
    return load(name) if path != "(none)" else empty("(none)")


def parse(text: str, *, where: str) -> Expectations:
    data = yaml.safe_load(text)
    if not isinstance(data, dict) or not isinstance(data.get("subject"), str):
        raise ExpectationsError(f"{where}: a mapping with 'subject' and 'expectations'")
    inherit = data.get("inherit", [])
    if inherit not in ([], ["reference"]):
        raise ExpectationsError(f"{where}: inherit may only be [] or [reference]")
    entries: list[Expectation] = []
    seen: set[str] = set()
    for number, raw in enumerate(data.get("expectations") or []):
        entry = _entry(raw, f"{where}: expectations[{number}]")
        if entry.id in seen:
            raise ExpectationsError(f"{where}: entry id {entry.id!r} appears twice")
        seen.add(entry.id)
        entries.append(entry)
    return Expectations(data["subject"], where, tuple(entries), inherit == ["reference"],
                        _generator(data.get("generator"), where))


def _generator(raw: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, dict) or not all(
            isinstance(key, str) and isinstance(options, list) and options
            and all(isinstance(option, str) for option in options)
            for key, options in raw.items()):
        raise ExpectationsError(f"{where}: generator must map dimension names to non-empty "
                                "lists of option names")
    return tuple((key, tuple(options)) for key, options in sorted(raw.items()))


def _entry(raw: Any, where: str) -> Expectation:
    if not isinstance(raw, dict):
        raise ExpectationsError(f"{where}: an entry is a mapping")
    for key in ("id", "title", "side", "explains", "recogniser"):
        if key not in raw:
            raise ExpectationsError(f"{where}: missing {key!r}")
    if raw["side"] not in SIDES:
        raise ExpectationsError(f"{where}: side must be one of {', '.join(SIDES)}")
    explains = tuple(raw["explains"])
    unknown = [t for t in explains if t not in TIERS]
    if unknown:
        raise ExpectationsError(f"{where}: unknown tiers {unknown}")
    recogniser = raw["recogniser"]
    predicate: Predicate
    if isinstance(recogniser, str):
        if recogniser not in RECOGNISERS:
            raise ExpectationsError(f"{where}: unknown recogniser {recogniser!r} (define it "
                                    "in harness/judge/recognisers.py)")
        predicate, name = RECOGNISERS[recogniser], recogniser
    elif isinstance(recogniser, dict) and isinstance(recogniser.get("signature"), dict):
        fields = recogniser["signature"]
        try:
            predicate = Signature(**{k: str(v) for k, v in fields.items()})
        except TypeError as exc:
            raise ExpectationsError(f"{where}: signature: {exc}") from None
        name = "signature"
    else:
        raise ExpectationsError(f"{where}: recogniser is a predicate name or "
                                "{signature: {...}}")
    return Expectation(id=str(raw["id"]), title=str(raw["title"]), side=raw["side"],
                       link=raw.get("link"), explains=explains, recogniser=name,
                       why=" ".join(str(raw.get("why", "")).split()), predicate=predicate)
