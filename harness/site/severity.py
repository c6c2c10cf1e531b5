"""Severity grades of a divergence (the matrix issue's scale) and how a witness gets one.

A grade is derived from the witness' two outcomes (the subject's and upstream's) where the
data says it; an entry without a witness in the reports takes the grade declared for it in
``DECLARED`` (keyed by entry id, declared once). See docs/decisions/0032-site.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

Grade = Literal["segmentation", "text", "empty", "refusal", "crash", "hang", "garbage"]


@dataclass(frozen=True)
class GradeInfo:
    grade: Grade
    rank: int
    symbol: str
    label: str


#: Mildest first. The symbol is what the matrix shows beside the colour.
GRADES: Final = (
    GradeInfo("segmentation", 1, "≈", "same decoded text, different segmentation"),
    GradeInfo("text", 2, "≠", "different text or outcome"),
    GradeInfo("empty", 3, "∅", "silently empty or truncated output"),
    GradeInfo("refusal", 4, "⊘", "refusal of a file or input upstream accepts"),
    GradeInfo("crash", 5, "✖", "crash or panic"),
    GradeInfo("hang", 6, "∞", "hang"),
    GradeInfo("garbage", 7, "⁇", "garbage on the protocol"),
)
BY_GRADE: Final = {info.grade: info for info in GRADES}

#: Entries the committed reports carry without a witness (not observed in their run):
#: their grade, read from the entry's recogniser and findings text.
DECLARED: Final[dict[str, Grade]] = {
    # reference registry (harness/judge/divergences.yaml)
    "upstream-normalizer-insertion-panic": "text",
    # transformers.js expectations (owned by the subjects helper; kept here by id)
    "unk-fused-across-words": "text",
    "upstream-strip-decoder-panic": "text",
    "upstream-strip-panic-on-nothing": "text",
    "duplicate-id-decodes-last-string": "text",
    "added-token-id-for-model-token": "text",
    "prepend-on-empty-text": "segmentation",
    "shared-id-token-string": "text",
    "regex-refused": "refusal",
    "empty-normalized-added-token-accepted": "text",
}

_CRASH_GRADES: Final[dict[str, Grade]] = {
    "timeout": "hang", "protocol": "garbage", "panic": "crash", "exception": "crash",
    "died": "crash",
}


def derive(operation: str | None, tier: str | None, subject: Any, upstream: Any
           ) -> tuple[Grade, str]:
    """The grade of one witness and the reason, in words, from its two outcomes."""
    mine = subject if isinstance(subject, dict) else {}
    theirs = upstream if isinstance(upstream, dict) else {}
    outcome, other = mine.get("outcome"), theirs.get("outcome")
    if outcome == "crashed":
        kind = str(mine.get("kind", "died"))
        return _CRASH_GRADES.get(kind, "crash"), f"the subject crashed ({kind})"
    if outcome == "refused" and other in ("loaded", "encoded", "decoded"):
        return "refusal", f"the subject refused ({mine.get('rule', '?')}); upstream {other}"
    if outcome != other:
        return "text", f"the subject {outcome or 'answered'}; upstream {other or 'answered'}"
    if outcome == "decoded":
        return _text_grade(str(mine.get("text", "")), str(theirs.get("text", "")))
    if outcome == "encoded":
        return _encode_grade(tier, mine, theirs)
    return "text", f"both {outcome}, with different answers"


def _text_grade(mine: str, theirs: str) -> tuple[Grade, str]:
    if theirs and not mine:
        return "empty", "the subject decoded to nothing; upstream to text"
    if theirs and len(mine) < len(theirs) and theirs.startswith(mine):
        return "empty", "the subject's text is a truncation of upstream's"
    return "text", "the decoded texts differ"


def _encode_grade(tier: str | None, mine: dict[str, Any], theirs: dict[str, Any]
                  ) -> tuple[Grade, str]:
    ids, their_ids = list(mine.get("ids") or []), list(theirs.get("ids") or [])
    if their_ids and not ids:
        return "empty", "the subject encoded to no token; upstream to some"
    if their_ids and len(ids) < len(their_ids) and their_ids[:len(ids)] == ids:
        return "empty", "the subject's ids are a truncation of upstream's"
    if ids == their_ids:
        return "segmentation", f"same ids; the {tier or 'other'} tier differs"
    tokens, their_tokens = mine.get("tokens"), theirs.get("tokens")
    if isinstance(tokens, list) and isinstance(their_tokens, list) \
            and "".join(map(str, tokens)) == "".join(map(str, their_tokens)):
        return "segmentation", "the tokens spell the same text, split differently"
    return "text", "the ids differ and the tokens spell different text"
