"""Rule coverage: which rule of the byte-fallback decision each comparison exercised.

Every rule id of the decision (``docs/spec/byte-fallback.md``) is declared once here with
its meaning (the oracle files' flags take theirs from here); ``rules_exercised`` looks at
the case and one observation and names the rules that comparison put to the test.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from ..core.case import Case
from ..core.observation import Observation
from ..core.outcome import Decoded, Encoded

RULES: dict[str, str] = {
    "bf-fact-1-code-point": "An uncovered code point becomes one <0xXX> piece per UTF-8 "
    "byte; a symbol present in the vocabulary is never expanded.",
    "bf-fact-2-all-or-nothing": "A code point whose bytes are only partly covered falls to "
    "the unknown token as a whole.",
    "bf-fact-3-uppercase": "Only the upper-case <0xXX> spelling resolves a byte.",
    "bf-fact-4-before-merges": "Byte pieces are ordinary symbols: merges of byte pieces fire.",
    "bf-fact-5-decorated": "The prefix/suffix-decorated symbol is what gets expanded.",
    "bf-fact-6-no-fuse": "fuse_unk never fuses a byte-resolved symbol into an unknown one; "
    "unknown symbols still fuse among themselves.",
    "bf-rule-1-alphabet": "byte_fallback requires all 256 upper-case pieces (load).",
    "bf-rule-2-decoder": "byte_fallback requires one of the two reproduced decoder shapes.",
    "bf-ordering": "An unknown symbol before a byte-resolved one in a word (the upstream "
    "unk/byte ordering bug's region; reachable on the lenient track only).",
    "bf-decode-runs": "A raw id run is decoded; an invalid byte run gives one U+FFFD per "
    "byte of the run (including valid bytes inside it).",
}

_BYTE = re.compile(r"<0x[0-9A-F]{2}>")
_BYTE_ANY_CASE = re.compile(r"<0x[0-9A-Fa-f]{2}>")


def rules_exercised(case: Case, obs: Observation) -> set[str]:
    model: Any = case.document.get("model")
    if not isinstance(model, dict) or model.get("byte_fallback") is not True:
        return set()
    raw_vocab = model.get("vocab")
    vocab: dict[str, Any] = raw_vocab if isinstance(raw_vocab, dict) else {}
    if obs.operation == "load":
        return {"bf-rule-1-alphabet", "bf-rule-2-decoder"}
    if obs.operation == "decode":
        out = obs.upstream if isinstance(obs.upstream, Decoded) else obs.subject
        if isinstance(out, Decoded) and "\ufffd" in out.text:
            return {"bf-decode-runs"}
        return set()
    encoded = obs.subject if isinstance(obs.subject, Encoded) else obs.upstream
    text = obs.input if isinstance(obs.input, str) else ""
    rules: set[str] = set()
    if isinstance(encoded, Encoded):
        rules |= _from_stream(encoded, text, model, obs.track)
    rules |= _from_text(text, vocab)
    return rules


def _from_stream(enc: Encoded, text: str, model: dict[str, Any], track: str) -> set[str]:
    rules: set[str] = set()
    unk = model.get("unk_token")
    kinds: list[str] = []
    for token, (start, end) in zip(enc.tokens, enc.spans, strict=False):
        if "<0x" not in token:  # no byte piece (the common case: no regex)
            kinds.append("unk" if token == unk else "other")
            continue
        source = text[start:end] if 0 <= start <= end <= len(text) else ""
        pieces = _BYTE.findall(token)
        if pieces and _BYTE.sub("", token) == "" and source != token:
            rules.add("bf-fact-1-code-point")
            if len(pieces) > 1:
                rules.add("bf-fact-4-before-merges")
            if model.get("continuing_subword_prefix") or model.get("end_of_word_suffix"):
                rules.add("bf-fact-5-decorated")
            kinds.append("byte")
        elif token == unk:
            kinds.append("unk")
        else:
            kinds.append("other")
    adjacent = set(itertools.pairwise(kinds))
    if model.get("fuse_unk") is True and ({("unk", "byte"), ("byte", "unk")} & adjacent):
        rules.add("bf-fact-6-no-fuse")
    if track == "lenient" and ("unk", "byte") in adjacent:
        rules.add("bf-ordering")
    return rules


def _lower_byte_pieces(vocab: dict[str, Any]) -> set[str]:
    """The vocabulary's byte pieces spelled in lower case (lower-cased): one scan per
    vocabulary, kept while the same dict is asked about (every comparison of a case)."""
    if not _LOWER or _LOWER[0][0] is not vocab:
        _LOWER[:] = [(vocab, {p.lower() for p in vocab if _BYTE_ANY_CASE.fullmatch(p)
                              and p != p.upper().replace("0X", "0x")})]
    return _LOWER[0][1]


#: The last vocabulary ``_lower_byte_pieces`` scanned (held, so its id is never reused).
_LOWER: list[tuple[dict[str, Any], set[str]]] = []


def _from_text(text: str, vocab: dict[str, Any]) -> set[str]:
    rules: set[str] = set()
    lower = _lower_byte_pieces(vocab)
    for ch in set(text):
        if ch in vocab:
            continue
        pieces = [f"<0x{b:02X}>" for b in ch.encode()]
        present = [p in vocab for p in pieces]
        if any(present) and not all(present):
            rules.add("bf-fact-2-all-or-nothing")
        if lower and any(p.lower() in lower for p in pieces):
            rules.add("bf-fact-3-uppercase")
    return rules
