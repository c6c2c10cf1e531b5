"""What a predicate of the registry may look at (``Context``: the case, its document, and
the replayer the judge was handed) and how it answers (``ALL``, ``NONE``, a set of token
positions). Decision 0022 says what a predicate must check, on both sides."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property

from ..core.case import Case
from ..core.outcome import Crashed, Outcome, Refused
from ..documents.view import DocumentView
from .compare import Divergence
from .replay import Replayer, Side
from .specification import Specification, broken_rules

ALL: frozenset[int] = frozenset({-1})
NONE: frozenset[int] = frozenset()

BYTE_PIECES = tuple(f"<0x{b:02X}>" for b in range(256))
_BYTE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")
_LOWER_BYTE_PIECE = re.compile(r"<0x(?=[0-9A-Fa-f]{2}>)[0-9A-F]*[a-f][0-9A-Fa-f]*>")


class Context:
    """What a predicate may look at: the case, and what ``replay`` runs again for it."""

    def __init__(self, case: Case, replay: Replayer) -> None:
        self.case = case
        self.replay = replay
        #: The document, read through its typed view (``doc.raw``: the dict itself).
        self.doc = DocumentView.of(case.document)
        #: Predicates a predicate composed with for its last answer (their names).
        self.also: list[str] = []
        #: The names of the predicates in force for this judgement (every class the judge
        #: was given): recognisers that compose only compose with those.
        self.in_force: frozenset[str] | None = None

    @cached_property
    def json(self) -> str:
        """The document as the subjects received it (how the replayer names it)."""
        return self.case.document_json()

    @cached_property
    def spec(self) -> Specification:
        return Specification(self.case, self.replay)

    @cached_property
    def broken(self) -> dict[str, set[str]]:
        return broken_rules(self.case.document)

    @property
    def lenient(self) -> Outcome:
        """How the lenient reference loads the document."""
        return self.replay.load("lenient", self.json)

    @property
    def strict(self) -> Outcome:
        """How the strict reference loads the document."""
        return self.replay.load("strict", self.json)

    def loads(self, side: Side) -> bool:
        return not isinstance(self.replay.load(side, self.json), Refused | Crashed)

    def lenient_loaded(self) -> bool:
        return self.loads("lenient")


Predicate = Callable[[Context, Divergence], frozenset[int]]


def _refused_with(outcome: Outcome, rule: str) -> bool:
    return isinstance(outcome, Refused) and outcome.rule == rule


def _yes(condition: bool) -> frozenset[int]:
    return ALL if condition else NONE
