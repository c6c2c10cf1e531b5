"""tokie 0.1.4's byte-level encoder at a byte no token covers, for the recognisers beside
this module (decision 0034).

Outside its SentencePiece encoder tokie encodes with a backtracking encoder that asks, at each
position, for the leftmost-longest vocabulary match in the rest of the text: where a byte
has no token that match lies further on, and tokie emits it *at the uncovered position*,
advancing by its length. So the three bytes of a ``▁`` no token covers, followed by
``a``, give ``a a a a``; bytes with no match after them (the end of a segment) are dropped.
Upstream, replaying the document with one fresh ``<0xNN>`` token per byte value and byte
fallback on (``marked``), shows where every uncovered byte stands; ``walked`` then
rebuilds tokie's answer from that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Encoded, Outcome
from ...transformers_js.recognisers.replay import document_ids, model_of, with_model
from . import backtracking, model

#: The id of the fresh byte token ``<0x00>`` (``<0xFF>`` is this + 255), far above any id
#: the strategies give.
BYTE_MARKS: Final = 2**30

#: The pre-tokenizers under which tokie's encoder is measured to walk the whole segment
#: (Metaspace and Split are not split on: an uncovered byte takes the next piece's
#: token); ByteLevel splits by its regex and Whitespace removes bytes: not modelled.
_WALKED: Final = ("Metaspace", "Split")


def _pre_steps(step: Any) -> list[Any]:
    if isinstance(step, dict) and step.get("type") == "Sequence":
        return [s for inner in step.get("pretokenizers") or () for s in _pre_steps(inner)]
    return [step]


def _walks_whole_segment(document: dict[str, Any]) -> bool:
    if model.pretokenizer_type(document) == "None":
        return True  # tokie runs none: the reading pre_tokenizer_by_detection takes it off
    return all(step is None or (isinstance(step, dict) and step.get("type") in _WALKED
                                and step.get("behavior") != "Removed")
               for step in _pre_steps(document.get("pre_tokenizer")))


def marked(document: dict[str, Any]) -> dict[str, Any] | None:
    """The document with a fresh token ``<0xNN>`` for every byte value (id ``BYTE_MARKS +
    NN``; a ``<0xNN>`` string of the vocabulary, plain text on tokie's byte-level path,
    is given that id), byte fallback on and no unk token: upstream then answers every
    byte no token covers as its mark. None under a pre-tokenizer not in ``_WALKED``,
    with a subword prefix (a suffix is taken off first by its own reading, which is in
    force wherever the file has one), or where the document already gives an id that
    high. (Only where tokie encodes byte by byte: ``walks_bytes``, ``backtracks``.)"""
    model_ = model_of(document)
    vocab = model_.get("vocab")
    if model_.get("type") != "BPE" or not isinstance(vocab, dict) \
            or not _walks_whole_segment(document) \
            or model_.get("continuing_subword_prefix") \
            or any(i >= BYTE_MARKS for i in document_ids(document)):
        return None
    marks = {f"<0x{byte:02X}>": BYTE_MARKS + byte for byte in range(256)}
    return with_model(document, vocab={**{t: i for t, i in vocab.items() if t not in marks},
                                       **marks}, byte_fallback=True, unk_token=None)


def drops_uncovered(document: dict[str, Any], obs: Observation) -> bool:
    """tokie loads the file with its SentencePiece encoder (``model.sentencepiece_encoder``),
    which drops an uncovered byte (keeping the ``<0xNN>`` tokens it has)."""
    return model.sentencepiece_encoder(document)


def walks_bytes(document: dict[str, Any], obs: Observation) -> bool:
    """tokie encodes the file byte by byte, on its byte-level path or its vocab-defined one
    (``<0xNN>`` tokens there are bytes), not with its SentencePiece encoder; checked on
    the file itself, before another reading changes its merges. (On the vocab-defined path
    without a ByteLevel decoder its backtracking encoder is ported whole: ``backtracks``.)"""
    return not model.sentencepiece_encoder(document) and not backtracks(document, obs)


def backtracks(document: dict[str, Any], obs: Observation) -> bool:
    """tokie encodes each segment between added tokens whole with its backtracking encoder
    (ported in ``backtracking.py``), where upstream's tokens cannot be walked: on its
    vocab-defined path (no Metaspace normalizer detected, no ByteLevel decoder: hf.rs
    ``load_vocab_defined_bpe``), or on its byte-level path (hf.rs ``load_byte_level_bpe``)
    with a pre-tokenizer in the file that tokie does not run. Either way tokie runs no
    pre-tokenizer (``model.pretokenizer_type``). (On the byte-level path without a
    pre-tokenizer ``walks_bytes`` walks the uncovered bytes among upstream's tokens.)"""
    if model.pretokenizer_type(document) != "None" or not (
            model.backtracking_on_vocab(document) or (
                model.topological(document) and document.get("pre_tokenizer") is not None)):
        return False
    return backtracking.tables(document) is not None


def ports_bytes(document: dict[str, Any]) -> bool:
    """On tokie's byte-level path, with no pre-tokenizer run, the walk of the uncovered
    bytes is tokie's backtracking encoder ported whole (``backtracking.py``)."""
    return model.topological(document) and model.pretokenizer_type(document) == "None" \
        and backtracking.tables(document) is not None


def _leftmost_longest(units: bytes, start: int, table: dict[bytes, int], longest: int
                      ) -> tuple[int, int] | None:
    """The position of the leftmost-longest token of ``table`` in ``units[start:]`` and
    its length (None: no token there)."""
    for begin in range(start, len(units)):
        for size in range(min(longest, len(units) - begin), 0, -1):
            found = table.get(units[begin:begin + size])
            if found is not None:
                return found, size
    return None


def _segments(document: dict[str, Any], outcome: Encoded) -> list[list[int]]:
    """The indices of ``outcome``, cut where tokie encodes apart: around an added or
    template token (a segment of its own) and where the sequence changes."""
    size = len(model.positions(document))
    added = {e.get("id") for e in document.get("added_tokens") or () if isinstance(e, dict)}

    def alone(index: int) -> bool:
        i = outcome.ids[index]
        return not BYTE_MARKS <= i < BYTE_MARKS + 256 and (
            i in added or not 0 <= i < size or (index < len(outcome.special_mask)
                                                and outcome.special_mask[index] == 1))

    cuts: list[list[int]] = []
    for index in range(len(outcome.ids)):
        sequence = outcome.type_ids[index] if index < len(outcome.type_ids) else 0
        before = cuts[-1][-1] if cuts else None
        if before is None or alone(index) or alone(before) or sequence != (
                outcome.type_ids[before] if before < len(outcome.type_ids) else 0):
            cuts.append([])
        cuts[-1].append(index)
    return cuts


@model.per_document
def byte_table(document: dict[str, Any]) -> tuple[dict[bytes, int], int]:
    """tokie's tokens by their bytes (the first position of each) and the longest one."""
    found: dict[bytes, int] = {}
    for position, token in enumerate(model.positions(document)):
        found.setdefault(model.token_bytes(document, token), position)
    return found, max((len(b) for b in found), default=0)


def _dropped(document: dict[str, Any], outcome: Encoded, cut: Sequence[int]
             ) -> list[tuple[str, int]]:
    """tokie's SentencePiece encoder on one segment: upstream's tokens, each uncovered
    byte given tokie's ``<0xNN>`` token where the vocabulary has one, else dropped."""
    found = byte_table(document)[0]
    out: list[tuple[str, int]] = []
    for index in cut:
        i = outcome.ids[index]
        if not BYTE_MARKS <= i < BYTE_MARKS + 256:
            out.append(("index", index))
        elif bytes([i - BYTE_MARKS]) in found:
            out.append(("position", found[bytes([i - BYTE_MARKS])]))
    return out


def _units(document: dict[str, Any], outcome: Encoded, cut: Sequence[int]) -> bytes:
    """The segment's bytes: upstream's tokens read as tokie's bytes, each mark as its byte
    (a token past tokie's table, an added token's, as its text)."""
    table = model.positions(document)
    units = bytearray()
    for index in cut:
        i = outcome.ids[index]
        units.extend(bytes([i - BYTE_MARKS]) if BYTE_MARKS <= i < BYTE_MARKS + 256
                     else model.token_bytes(document, table[i]) if 0 <= i < len(table)
                     else outcome.tokens[index].encode("utf-8", "surrogatepass"))
    return bytes(units)


def _backtracked(document: dict[str, Any], outcome: Encoded, cut: Sequence[int],
                 after: bytes = b"") -> list[tuple[str, int]]:
    """tokie's backtracking encoder (``backtracking.py``) on the segment's bytes
    (``_units``), its search going on into ``after``, the bytes of the segments after."""
    tables = backtracking.tables(document)
    if tables is None:
        return [("index", index) for index in cut]
    try:
        found = backtracking.encode(tables, _units(document, outcome, cut), after)
    except (IndexError, backtracking.EndlessError):
        return [("fails", -1)]  # tokie panics or loops: no answer to compare
    return [("position", p) for p in found]


def _walk(document: dict[str, Any], outcome: Encoded, cut: Sequence[int], port: bool = False,
          after: bytes = b"") -> list[tuple[str, int]]:
    """tokie's tokens for one segment: ("index", i) where it answers upstream's token i,
    ("position", p) where it emits the token at position p of its table."""
    table = model.positions(document)
    first = outcome.ids[cut[0]]
    if len(cut) == 1 and not BYTE_MARKS <= first < BYTE_MARKS + 256:
        return [("index", cut[0])]
    if model.sentencepiece_encoder(document):
        return _dropped(document, outcome, cut)
    if port:
        return _backtracked(document, outcome, cut, after)
    units, starts = bytearray(), {}
    for index in cut:
        i = outcome.ids[index]
        if BYTE_MARKS <= i < BYTE_MARKS + 256:
            units.append(i - BYTE_MARKS)
        else:
            starts[len(units)] = index
            units.extend(model.token_bytes(document, table[i]))
    bytes_, (found, longest) = bytes(units), byte_table(document)
    out: list[tuple[str, int]] = []
    at = 0
    while at < len(bytes_):
        if at in starts:
            out.append(("index", starts[at]))
            at += len(model.token_bytes(document, table[outcome.ids[starts[at]]]))
            continue
        match = _leftmost_longest(bytes_, at, found, longest)
        if match is None:
            break
        out.append(("position", match[0]))
        at += match[1]
    return out


def walked(document: dict[str, Any], outcome: Outcome | None, port: bool = False
           ) -> Outcome | None:
    """tokie's answer rebuilt from upstream's on the ``marked`` document: each segment's
    bytes walked as tokie's encoder walks them (upstream's token where one starts, else
    the leftmost-longest token further on, emitted here; with ``port``, tokie's whole
    backtracking encoder on the segment's bytes)."""
    if not isinstance(outcome, Encoded) or (not port and not any(
            BYTE_MARKS <= i < BYTE_MARKS + 256 for i in outcome.ids)):
        return outcome
    table = model.positions(document)
    ids: list[int] = []
    tokens: list[str] = []
    spans: list[tuple[int, int]] = []
    special: list[int] = []
    types: list[int] = []
    attention: list[int] = []
    cuts = _segments(document, outcome)
    for number, cut in enumerate(cuts):
        kind = outcome.type_ids[cut[0]] if outcome.type_ids else 0
        after = b"".join(_units(document, outcome, c) for c in cuts[number + 1:]
                         if (outcome.type_ids[c[0]] if outcome.type_ids else 0) == kind
                         ) if port and len(cut) > 1 else b""
        steps = _walk(document, outcome, cut, port, after)
        if ("fails", -1) in steps:
            return None
        for what, value in steps:
            if what == "index":
                ids.append(outcome.ids[value])
                tokens.append(outcome.tokens[value])
                spans.append(outcome.spans[value] if outcome.spans else (0, 0))
                special.append(outcome.special_mask[value] if outcome.special_mask else 0)
                types.append(outcome.type_ids[value] if outcome.type_ids else 0)
                attention.append(outcome.attention_mask[value]
                                 if outcome.attention_mask else 1)
            else:
                ids.append(value)
                tokens.append(table[value])
                spans.append((0, 0))
                special.append(0)
                types.append(kind)
                attention.append(1)
    return Encoded(ids=tuple(ids), tokens=tuple(tokens), spans=tuple(spans),
                   special_mask=tuple(special),
                   type_ids=tuple(types) if outcome.type_ids else (),
                   attention_mask=tuple(attention) if outcome.attention_mask else ())
