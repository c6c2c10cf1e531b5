"""The subject self-check (``python -m harness check-subject SPEC``): an adapter calibrated
before any run, in the spirit of Hypothesis' conformance test for its backends.

One small document (a BPE model of five pieces, a TemplateProcessing that adds ``<s>`` to a
single text and ``<s> A </s> B </s>`` to a pair, a Fuse decoder) that any implementation of
the format answers like upstream, asked what the protocol (docs/subject-protocol.md)
requires of the adapter: that it loads; that every tier its hello claims is in its answers
(and says which it gives unclaimed); that ``add_special_tokens`` true adds the template's
specials and false adds none; that ``skip_special_tokens`` is passed through, both ways
(an adapter that always skips, or never, shows its decode's default instead); that a pair
is encoded as a pair where it claims ``pairs``. Each answer is compared with upstream's on
the same request. A finding is about the adapter, not the implementation: a run judged
through a mis-mapped adapter would report its mistakes as the subject's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..core.outcome import Decoded, Encoded, outcome_kind
from .protocol import Subject, failed

TEXT: Final = "abcab"
PAIR: Final = "cab"
BOS: Final = "<s>"
EOS: Final = "</s>"
#: The calibration document: what every tier of a subject is asked on.
DOCUMENT: Final[dict[str, Any]] = {
    "version": "1.0",
    "truncation": None,
    "padding": None,
    "added_tokens": [
        {"id": 1, "content": BOS, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True},
        {"id": 2, "content": EOS, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True},
    ],
    "normalizer": None,
    "pre_tokenizer": None,
    "post_processor": {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": BOS, "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": EOS, "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}},
                 {"SpecialToken": {"id": EOS, "type_id": 1}}],
        "special_tokens": {BOS: {"id": BOS, "ids": [1], "tokens": [BOS]},
                           EOS: {"id": EOS, "ids": [2], "tokens": [EOS]}},
    },
    "decoder": {"type": "Fuse"},
    "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
              "continuing_subword_prefix": None, "end_of_word_suffix": None,
              "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
              "vocab": {"<unk>": 0, BOS: 1, EOS: 2, "a": 3, "b": 4, "c": 5, "ab": 6},
              "merges": [["a", "b"]]},
}
#: The tiers of an encoding, each with the ``Encoded`` field that carries it.
ENCODING_FIELDS: Final = {"tokens": "tokens", "spans": "spans",
                          "special_mask": "special_mask", "type_ids": "type_ids",
                          "attention_mask": "attention_mask"}


@dataclass(frozen=True)
class Line:
    """One calibration: what was asked, and the answer (``problem`` None when right)."""

    check: str
    answer: str
    problem: str | None = None


def document_text() -> str:
    return json.dumps(DOCUMENT, ensure_ascii=False, sort_keys=True)


def calibrate(subject: Subject[Any], upstream: Subject[Any]) -> list[Line]:
    """Every calibration of ``subject``'s adapter, against ``upstream``'s answers."""
    text = document_text()
    mine, theirs = subject.load(text), upstream.load(text)
    if failed(theirs):
        raise RuntimeError(f"upstream does not load the calibration document: {theirs}")
    if failed(mine):
        return [Line("load", outcome_kind(mine),
                     f"it does not load the calibration document: {mine}")]
    lines = [Line("load", "loaded")]
    claimed = set(subject.capabilities)
    with_specials = subject.encode(mine, TEXT, add_special_tokens=True)
    expected = upstream.encode(theirs, TEXT, add_special_tokens=True)
    if not isinstance(with_specials, Encoded) or not isinstance(expected, Encoded):
        return [*lines, Line("encode", outcome_kind(with_specials),
                             f"it does not encode {TEXT!r}: {with_specials}")]
    lines.append(_tiers(claimed, with_specials))
    lines.append(_specials(with_specials, expected, added=True))
    without = subject.encode(mine, TEXT, add_special_tokens=False)
    expected_without = upstream.encode(theirs, TEXT, add_special_tokens=False)
    if isinstance(without, Encoded) and isinstance(expected_without, Encoded):
        lines.append(_specials(without, expected_without, added=False))
    else:
        lines.append(Line("encode add_special_tokens=false", outcome_kind(without),
                          f"it does not encode {TEXT!r} without specials: {without}"))
    if "decode" in claimed:
        lines.append(_decode(subject, mine, upstream, theirs, expected.ids))
    if "pairs" in claimed:
        lines.append(_pair(subject, mine, upstream, theirs))
    return lines


def _tiers(claimed: set[str], answer: Encoded) -> Line:
    given = {"ids"} | {tier for tier, name in ENCODING_FIELDS.items() if getattr(answer, name)}
    claimed_encoding = claimed & ({"ids"} | set(ENCODING_FIELDS))
    answered = ", ".join(sorted(given))
    missing = sorted(claimed_encoding - given)
    if missing:
        return Line("tiers", answered, f"its hello claims {', '.join(missing)} but its "
                    f"encode answers give {'none of them' if len(missing) > 1 else 'none'}")
    unclaimed = sorted(given - claimed_encoding)
    note = f" (given but not claimed, so not compared: {', '.join(unclaimed)})" if unclaimed else ""
    return Line("tiers", answered + note)


def _specials(answer: Encoded, expected: Encoded, *, added: bool) -> Line:
    check = f"encode add_special_tokens={'true' if added else 'false'}"
    specials = [token for token in answer.tokens if token in (BOS, EOS)]
    shown = f"{list(answer.tokens)}"
    if list(answer.ids) == list(expected.ids):
        return Line(check, shown)
    if added and not specials:
        return Line(check, shown, "encode with add_special_tokens=true added none of the "
                    f"template's specials (upstream: {list(expected.tokens)})")
    if not added and specials:
        return Line(check, shown, "encode with add_special_tokens=false added the "
                    f"template's specials {specials} (the protocol: false adds none; "
                    f"upstream: {list(expected.tokens)})")
    return Line(check, shown, f"ids {list(answer.ids)}, upstream's {list(expected.ids)}: "
                "the calibration document is plain BPE, every implementation agrees on it")


def _decode(subject: Subject[Any], mine: Any, upstream: Subject[Any], theirs: Any,
            ids: Sequence[int]) -> Line:
    answers: dict[bool, str | None] = {}
    for skip in (True, False):
        got = subject.decode(mine, ids, skip_special_tokens=skip)
        if not isinstance(got, Decoded):
            return Line("decode skip_special_tokens", outcome_kind(got),
                        f"decode of {list(ids)} with skip_special_tokens="
                        f"{'true' if skip else 'false'} answered {got}")
        answers[skip] = got.text
    want = {skip: upstream.decode(theirs, ids, skip_special_tokens=skip) for skip in (True, False)}
    expected = {skip: w.text if isinstance(w, Decoded) else None for skip, w in want.items()}
    shown = f"skip=true {answers[True]!r}, skip=false {answers[False]!r}"
    if answers == expected:
        return Line("decode skip_special_tokens", shown)
    if answers[True] == answers[False] and answers[True] in expected.values():
        default = "true" if answers[True] == expected[True] else "false"
        return Line("decode skip_special_tokens", shown, "decode ignores skip_special_tokens"
                    f" (it always answers as with {default}, its default): the adapter must "
                    "pass the flag through")
    if answers == {True: expected[False], False: expected[True]}:
        return Line("decode skip_special_tokens", shown,
                    "decode reads skip_special_tokens the wrong way round")
    return Line("decode skip_special_tokens", shown,
                f"upstream: skip=true {expected[True]!r}, skip=false {expected[False]!r}")


def _pair(subject: Subject[Any], mine: Any, upstream: Subject[Any], theirs: Any) -> Line:
    got = subject.encode(mine, TEXT, PAIR, add_special_tokens=True)
    want = upstream.encode(theirs, TEXT, PAIR, add_special_tokens=True)
    if not isinstance(got, Encoded) or not isinstance(want, Encoded):
        return Line("pairs", outcome_kind(got), f"it claims pairs but does not encode one: {got}")
    shown = f"{list(got.tokens)}"
    if got.ids != want.ids:
        return Line("pairs", shown, f"a pair encoded as {list(got.ids)}, upstream "
                    f"{list(want.ids)} (is the pair passed through?)")
    if got.type_ids and got.type_ids != want.type_ids:
        return Line("pairs", shown, f"type ids {list(got.type_ids)}, upstream "
                    f"{list(want.type_ids)}")
    return Line("pairs", shown)
