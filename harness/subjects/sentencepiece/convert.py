"""A tokenizer.json of the SentencePiece-BPE lineage as a SentencePiece ``ModelProto``
(serialised by hand: standard library only, no protobuf), or ``NotExpressibleError``
naming the rule it breaks. Which documents convert is decision 0040 (and this folder's
FINDINGS.md); the program runs in the subject's own environment and loads this file by
path, the tests import it as ``harness.subjects.sentencepiece.convert``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Final

try:
    from .. import lineage
except ImportError:  # loaded by path in the subject's environment (program.py)
    import lineage  # type: ignore[no-redef,import-not-found]

require = lineage.require
NotExpressibleError = lineage.NotExpressibleError

SPACE: Final = "\u2581"
# ModelProto.SentencePiece.Type
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
BPE: Final = 2
BYTE_PIECES: Final = tuple(f"<0x{b:02X}>" for b in range(256))
#: The decoders spm's own decoding is (Llama's with its Strip, and without it).
_REPLACE_SPACE: Final = {"type": "Replace", "pattern": {"String": SPACE}, "content": " "}
_FUSE: Final = {"type": "Fuse"}
_BYTE_FALLBACK: Final = {"type": "ByteFallback"}
_STRIP: Final = {"type": "Strip", "content": " ", "start": 1, "stop": 0}


@dataclass(frozen=True)
class Converted:
    """The model, what the template adds, and whether decoding is expressible."""

    proto: bytes
    #: ids the post-processor puts before and after the text. spm's own ``add_bos``
    #: names a control piece only, which spm never matches in a text (upstream matches
    #: its specials in texts): the pieces are user-defined and the program adds these.
    bos: int | None
    eos: int | None
    #: ids upstream's decode skips with ``skip_special_tokens`` (special added tokens).
    specials: frozenset[int]
    #: None: the decoder is spm's own decoding; else why it is not.
    decode_not_expressible: str | None
    #: Added tokens' contents a text may not hold: upstream splits the text at them and
    #: normalizes each part (Prepend puts a ▁ after each), spm prepends once; and spm never
    #: matches its unk piece in a text. An encode of such a text is declined.
    not_in_texts: tuple[str, ...] = ()


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        low = value & 0x7F
        value >>= 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _int(field: int, value: int) -> bytes:
    return _key(field, 0) + _varint(value)


def _bytes(field: int, value: bytes) -> bytes:
    return _key(field, 2) + _varint(len(value)) + value


def _float(field: int, value: float) -> bytes:
    return _key(field, 5) + struct.pack("<f", value)


def _normalizer(normalizer: Any, pre_tokenizer: Any) -> tuple[bool, bool]:
    """(add_dummy_prefix, escape_whitespaces) of the document's normalizer."""
    dummy, escape = _normalizer_steps(normalizer)
    # Gemma's Split on " " after the normalizer replaced every space: it never matches.
    inert = (isinstance(pre_tokenizer, dict) and pre_tokenizer.get("type") == "Split"
             and pre_tokenizer.get("pattern") == {"String": " "}
             and pre_tokenizer.get("invert") is False and escape)
    require(pre_tokenizer is None or inert, "pre_tokenizer: spm has none (Metaspace's "
            "split and prepend rules differ from add_dummy_prefix)")
    return dummy, escape


def _normalizer_steps(normalizer: Any) -> tuple[bool, bool]:
    if normalizer is None:
        return False, False
    steps = normalizer.get("normalizers") if normalizer.get("type") == "Sequence" else [
        normalizer]
    require(isinstance(steps, list), "normalizer: not a Sequence of steps")
    kinds = [_step_kind(step) for step in steps]
    if kinds == ["prepend", "replace"]:
        return True, True
    if kinds == ["replace"]:
        return False, True
    raise NotExpressibleError(f"normalizer: {kinds} is not Prepend(▁)+Replace(' ', ▁), "
                              "Replace(' ', ▁) or none")


def _step_kind(step: Any) -> str:
    if isinstance(step, dict) and step.get("type") == "Prepend" and step.get(
            "prepend") == SPACE:
        return "prepend"
    if (isinstance(step, dict) and step.get("type") == "Replace"
            and step.get("pattern") == {"String": " "} and step.get("content") == SPACE):
        return "replace"
    return str(step.get("type") if isinstance(step, dict) else step)


def _decoder(decoder: Any, dummy: bool, escape: bool) -> str | None:
    if not escape:
        return "decoder: spm without escape_whitespaces keeps spaces; no decoder checked"
    steps = decoder.get("decoders") if isinstance(decoder, dict) and decoder.get(
        "type") == "Sequence" else None
    want: list[dict[str, Any]] = [_REPLACE_SPACE, _BYTE_FALLBACK, _FUSE]
    want += [_STRIP] if dummy else []
    return None if steps == want else f"decoder: not {[w['type'] for w in want]}"


def convert(document: dict[str, Any]) -> Converted:
    """The ``ModelProto`` of ``document``, or ``NotExpressibleError``."""
    found = document.get("model")
    require(isinstance(found, dict), "model: not an object")
    model: dict[str, Any] = found if isinstance(found, dict) else {}
    ignore = bool(model.get("ignore_merges"))
    lineage.plain_bpe({**model, "ignore_merges": False})
    dummy, escape = _normalizer(document.get("normalizer"), document.get("pre_tokenizer"))
    vocab: dict[str, int] = model.get("vocab") or {}
    require(len(set(vocab.values())) == len(vocab), "model.vocab: two pieces on one id")
    # Without any byte piece upstream's byte fallback falls back to unk: spm's off.
    byte_fallback = bool(model.get("byte_fallback")) and any(b in vocab for b in BYTE_PIECES)
    merges = lineage.merges_of(model)
    for left, right in merges:
        require(left in vocab and right in vocab and left + right in vocab,
                f"model.merges: {left!r} {right!r} is not over the vocabulary")
    if byte_fallback:
        require(all(b in vocab for b in BYTE_PIECES), "model.byte_fallback: spm needs all "
                "256 <0xXX> pieces")
        in_merges = {p for m in merges for p in (*m, m[0] + m[1])}
        require(not in_merges & set(BYTE_PIECES), "model.merges: a merge of byte pieces "
                "(spm falls back to bytes after merging)")
    symbols = set(vocab) | {c for piece in vocab for c in piece}
    ranks = lineage.greedy_equivalent(merges, symbols)
    if ignore:  # upstream takes a whole text part that is a piece: BPE must make it too
        contents = {e.get("content") for e in document.get("added_tokens") or []}
        for piece in vocab:
            if len(piece) < 2 or piece in contents or (piece in BYTE_PIECES
                                                       and byte_fallback):
                continue
            require(piece in ranks and lineage.merge_word(list(piece), ranks,
                                                          lambda a, b: a + b) == [piece],
                    f"model.ignore_merges: BPE does not make the piece {piece!r} of its "
                    "own characters (upstream takes a whole part that is a piece)")
    unk = model.get("unk_token")
    unk_id = vocab.get(unk) if isinstance(unk, str) else None
    require(unk is None or unk_id is not None, "model.unk_token: not in the vocabulary")
    require(unk_id is not None or byte_fallback, "model.unk_token: none (spm always has "
            "one), and no byte fallback to keep it unused")
    require(unk_id is None or byte_fallback or bool(model.get("fuse_unk")),
            "model.fuse_unk: false (spm fuses runs of unknown pieces)")

    added: dict[int, dict[str, Any]] = {}
    for i, entry in enumerate(document.get("added_tokens") or []):
        content, number = entry.get("content"), entry.get("id")
        require(isinstance(content, str) and bool(content) and isinstance(number, int),
                f"added_tokens[{i}]: no content or id")
        require(not any(entry.get(f) for f in ("lstrip", "rstrip", "single_word")),
                f"added_tokens[{i}]: lstrip/rstrip/single_word")
        require(" " not in content and SPACE not in content,
                f"added_tokens[{i}]: a space in the content (spm matches user-defined "
                "pieces on the escaped text)")
        require(number not in added, f"added_tokens[{i}]: a second token on id {number}")
        require(vocab.get(content, number) == number and all(
            a["content"] != content for a in added.values()),
            f"added_tokens[{i}]: its content names another id")
        require(content not in ranks, f"added_tokens[{i}]: a merge makes it")
        added[number] = entry
    pieces = {i: p for p, i in vocab.items()}
    for number, entry in added.items():
        pieces[number] = entry["content"]
    size = max(pieces, default=-1) + 1
    total = len(merges) + 1
    proto = bytearray()
    for number in range(size):
        found = pieces.get(number)
        piece = found if found is not None else f"<hole-{number}>"
        if found is None:  # a hole: a control piece nothing produces, decoded as ""
            kind, score = CONTROL, 0.0
        elif number == unk_id:
            kind, score = UNKNOWN, 0.0
        elif number in added:
            kind, score = USER_DEFINED, 0.0
        elif byte_fallback and piece in BYTE_PIECES:
            kind, score = BYTE, 0.0
        elif piece in ranks:
            kind, score = NORMAL, float(-1 - ranks[piece])
        elif len(piece) == 1:
            kind, score = NORMAL, float(-total)
        else:  # a piece no merge makes: formed last and taken apart again
            kind, score = UNUSED, float(-total - 1)
        proto += _bytes(1, _bytes(1, piece.encode("utf-8", "surrogatepass"))
                        + _float(2, score) + _int(3, kind))
    if unk_id is None:  # spm needs one: a piece nothing produces (bytes cover every text)
        unk_id = size
        proto += _bytes(1, _bytes(1, b"<unk-unused>") + _float(2, 0.0) + _int(3, UNKNOWN))
    bos, eos = lineage.template(document.get("post_processor"), {v["content"]: k for k, v
                                                          in added.items()})
    unk_surface = unk if isinstance(unk, str) else ""
    trainer = (_int(3, BPE) + _int(35, int(byte_fallback)) + _int(40, unk_id)
               + _int(41, -1) + _int(42, -1) + _int(43, -1)
               + _bytes(44, unk_surface.encode("utf-8")))
    normalizer = (_bytes(1, b"identity") + _int(3, int(dummy)) + _int(4, 0)
                  + _int(5, int(escape)))
    proto += _bytes(2, trainer) + _bytes(3, normalizer)
    specials = frozenset(k for k, v in added.items() if v.get("special"))
    held = sorted(v["content"] for k, v in added.items() if dummy or k == unk_id)
    return Converted(bytes(proto), bos, eos, specials,
                     _decoder(document.get("decoder"), dummy, escape), tuple(held))
