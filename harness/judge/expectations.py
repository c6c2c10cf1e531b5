"""Expectations of third-party subjects: each known divergence of a subject from
``tokenizers`` (an ``expectations.yaml`` in the subject's folder, or any file named by
``--expectations``), in the spirit of web-platform-tests expectation files and Wycheproof
flags. The format, with a worked example: ``docs/subject-protocol.md``.

An entry is recognised by a named predicate the caller hands to ``parse`` (the subject's
own recognisers, a plugin the run wires in: this package imports none, decision 0034) or
by a ``signature``. A run against a subject is green when every divergence is known; a
known entry whose pinned witness no longer shows it is stale; anything else is a failure.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

import yaml

from ..core.outcome import outcome_kind
from .classify import Explainer
from .compare import TIERS, Divergence
from .predicates import ALL, NONE, Context, Predicate
from .registry import load_registry

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
        if outcome_kind(obs.subject) != self.subject:
            return NONE
        if outcome_kind(obs.upstream) != self.upstream:
            return NONE
        if self.message:
            text = getattr(obs.subject, "message", "")
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


def empty(subject: str) -> Expectations:
    """No known divergence: every divergence of the subject is a failure."""
    return Expectations(subject, "(none)", (), inherit_reference=False)


def parse(text: str, *, where: str,
          recognisers: Mapping[str, Predicate] | None = None) -> Expectations:
    """An expectations file (its text; ``where`` names it in every error), its named
    recognisers resolved in ``recognisers`` (the subject's own)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ExpectationsError(f"{where}: not YAML: {' '.join(str(exc).split())}"
                                ) from None
    if not isinstance(data, dict) or not isinstance(data.get("subject"), str):
        raise ExpectationsError(f"{where}: a mapping with 'subject' and 'expectations'")
    inherit = data.get("inherit", [])
    if inherit not in ([], ["reference"]):
        raise ExpectationsError(f"{where}: inherit may only be [] or [reference]")
    entries: list[Expectation] = []
    seen: set[str] = set()
    for number, raw in enumerate(data.get("expectations") or []):
        entry = _entry(raw, f"{where}: expectations[{number}]", recognisers or {})
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


def _entry(raw: Any, where: str, recognisers: Mapping[str, Predicate]) -> Expectation:
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
        if recogniser not in recognisers:
            raise ExpectationsError(f"{where}: unknown recogniser {recogniser!r} (the "
                                    "subject's recognisers module defines none of that "
                                    "name; or use {signature: {...}})")
        predicate, name = recognisers[recogniser], recogniser
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
