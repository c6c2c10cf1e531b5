"""What one subject did with one operation: the single currency of the comparison.

Every subject (``harness.subjects``) returns these, so nothing downstream knows which
implementation produced them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

#: ``panic``: a Rust panic; ``exception``: an unexpected exception; ``timeout``: no answer
#: in time; ``died``: an out-of-process subject exited; ``protocol``: it answered with
#: something that is not a protocol line.
CrashKind = Literal["panic", "exception", "timeout", "died", "protocol"]


@dataclass(frozen=True, slots=True)
class Refused:
    """The subject refused to load the tokenizer.json (or to encode/decode).

    ``rule`` is the reference's stable rule id; for upstream it is the message
    with the serde position suffix (`` at line L column C``) removed.
    """

    rule: str
    message: str
    path: str = ""


#: The refusal rule a subject answers with when the document (or the request) cannot be
#: expressed in its own format at all (a lineage oracle: docs/subject-protocol.md,
#: decision 0040): the comparison is skipped and counted, never an agreement, never a
#: divergence.
NOT_EXPRESSIBLE: Final = "not-expressible"


def declined(outcome: object) -> bool:
    """A subject's answer that the document or request is not expressible in its format."""
    return isinstance(outcome, Refused) and outcome.rule == NOT_EXPRESSIBLE


@dataclass(frozen=True, slots=True)
class Crashed:
    """The subject died: a Rust panic, an unexpected exception, a timeout."""

    kind: CrashKind
    message: str


@dataclass(frozen=True, slots=True)
class Encoded:
    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int], ...]
    special_mask: tuple[int, ...]
    #: The piece of its input each token came from (upstream's ``Encoding.word_ids``: the
    #: pre-tokenized words and the added tokens found in the text, numbered together;
    #: None for a template special). A tier where both sides carry it (the ``word_ids``
    #: capability); left out of ``==``.
    word_ids: tuple[int | None, ...] = field(default=(), compare=False)
    #: The input each token came from (0, or 1 for a pair's second text; None for a
    #: template special). Not compared: predicates use it to find a token's source text.
    sequence_ids: tuple[int | None, ...] = field(default=(), compare=False)
    #: Segment ids and attention mask; empty when the subject does not expose them (then
    #: those tiers are skipped and counted, not compared).
    type_ids: tuple[int, ...] = ()
    attention_mask: tuple[int, ...] = ()
    #: The pre-tokenized word of each model token, None for added tokens and template
    #: specials (the reference and subjects that give it; upstream leaves it empty). Not
    #: compared: classifiers use it to reason about the model's words.
    model_word_ids: tuple[int | None, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str


@dataclass(frozen=True, slots=True)
class Loaded:
    """The tokenizer.json was accepted."""


Outcome = Refused | Crashed | Encoded | Decoded | Loaded


def outcome_kind(outcome: object) -> str:
    """The kind of an outcome, as failure signatures name it: ``encoded``, ``decoded``,
    ``loaded``, ``refused[rule]`` (a short rule) or ``refused``, ``crashed[kind]``."""
    rule = getattr(outcome, "rule", None)
    kind = type(outcome).__name__.lower()
    if kind == "refused" and isinstance(rule, str) and rule and len(rule) < 40:
        return f"refused[{rule}]"
    if kind == "crashed":
        return f"crashed[{getattr(outcome, 'kind', '?')}]"
    return kind


def outcome_to_json(outcome: Outcome, *, masks: bool = True) -> dict[str, Any]:
    """A canonical, JSON-ready form (used by reports and oracles). ``masks=False`` leaves
    out ``type_ids`` and ``attention_mask`` (the oracle files pin the other tiers)."""
    if isinstance(outcome, Refused):
        return {"outcome": "refused", "rule": outcome.rule, "message": outcome.message,
                "path": outcome.path}
    if isinstance(outcome, Crashed):
        return {"outcome": "crashed", "kind": outcome.kind, "message": outcome.message}
    if isinstance(outcome, Encoded):
        return {
            "outcome": "encoded",
            "ids": list(outcome.ids),
            "tokens": list(outcome.tokens),
            "spans": [list(s) for s in outcome.spans],
            "special_mask": list(outcome.special_mask),
            **({"type_ids": list(outcome.type_ids),
                "attention_mask": list(outcome.attention_mask)} if masks else {}),
        }
    if isinstance(outcome, Decoded):
        return {"outcome": "decoded", "text": outcome.text}
    return {"outcome": "loaded"}


def outcome_from_json(data: dict[str, Any]) -> Outcome:
    kind = data["outcome"]
    if kind == "refused":
        return Refused(data["rule"], data["message"], data.get("path", ""))
    if kind == "crashed":
        return Crashed(data["kind"], data["message"])
    if kind == "encoded":
        return Encoded(
            tuple(data["ids"]),
            tuple(data["tokens"]),
            tuple((int(a), int(b)) for a, b in data["spans"]),
            tuple(data["special_mask"]),
            type_ids=tuple(data.get("type_ids", ())),
            attention_mask=tuple(data.get("attention_mask", ())),
        )
    if kind == "decoded":
        return Decoded(data["text"])
    if kind == "loaded":
        return Loaded()
    raise ValueError(f"unknown outcome kind {kind!r}")
