"""kitoken's readings of byte pieces (``recognisers/__init__.py`` composes them with the
others): its byte pieces read in either case, as ordinary tokens of their bytes, given
where only some of a character's exist, and decoded to bytes read as UTF-8.
"""

from __future__ import annotations

import re
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Decoded, Encoded, Outcome
from ...transformers_js.recognisers.replay import model_of, with_model
from .refusals import _BYTE_PIECE, _merge_sides, _types


def _upper_piece(token: str) -> str:
    piece = _BYTE_PIECE.match(token)
    return f"<0x{piece.group(1).upper()}>" if piece else token


def byte_pieces_uppercased(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken reads ``<0xf8>`` as the byte 0xF8, like ``<0xF8>``; upstream's byte
    fallback looks up only the uppercase spelling: the vocabulary with its lowercase
    byte pieces spelt in uppercase (merges alike)."""
    model = model_of(document)
    vocab = model.get("vocab")
    if model.get("type") != "BPE" or not isinstance(vocab, dict):
        return None
    renamed = {_upper_piece(token): i for token, i in vocab.items()}
    if renamed.keys() == vocab.keys() or len(renamed) != len(vocab):
        return None  # no lowercase piece, or its uppercase spelling exists too
    merges = [[_upper_piece(s) for s in sides] if (sides := _merge_sides(m)) else m
              for m in model.get("merges") or ()]
    return with_model(document, vocab=renamed, merges=merges)


def _decodes_byte_runes(document: dict[str, Any]) -> bool:
    return model_of(document).get("byte_fallback") is True or \
        "ByteFallback" in _types(document.get("decoder"))


def byte_pieces_as_tokens(document: dict[str, Any]) -> dict[str, Any] | None:
    """With byte decoding on (the model's byte_fallback or a ByteFallback decoder)
    kitoken reads each byte piece as the bytes it stands for, an ordinary token of its
    vocabulary: ``<0x34>`` is the token "4". The vocabulary with each ASCII byte piece
    spelt as its character (where that character is no token of its own)."""
    model = model_of(document)
    vocab = model.get("vocab")
    if model.get("type") != "BPE" or not isinstance(vocab, dict) or \
            not _decodes_byte_runes(document):
        return None
    renamed: dict[str, Any] = {}
    for token, i in vocab.items():
        piece = _BYTE_PIECE.match(token)
        char = chr(int(piece.group(1), 16)) if piece else None
        renamed[char if char is not None and ord(char) < 0x80 and char not in vocab
                else token] = i
    return with_model(document, vocab=renamed) if renamed.keys() != vocab.keys() else None


def _first_new_id(document: dict[str, Any]) -> int | None:
    """With byte fallback on and no unk token, the id past every id of the document."""
    model = model_of(document)
    vocab = model.get("vocab")
    if model.get("type") != "BPE" or model.get("byte_fallback") is not True or \
            not isinstance(vocab, dict) or model.get("unk_token") is not None:
        return None  # with an unk token kitoken's fallback is not modelled
    ids = [i for i in vocab.values() if isinstance(i, int)]
    ids += [e["id"] for e in document.get("added_tokens") or ()
            if isinstance(e, dict) and isinstance(e.get("id"), int)]
    return max(ids, default=-1) + 1


def every_byte_piece(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken's byte fallback gives a character no token covers the byte pieces of it
    that the vocabulary has (``<0xE2>`` for ``▁`` whose ``<0x96>`` and ``<0x81>`` are
    missing) and drops the others; upstream uses a character's byte pieces only when all
    exist. Upstream with every missing byte piece added at a new id, those ids dropped
    from its answer (``new_pieces_dropped``)."""
    base = _first_new_id(document)
    vocab = model_of(document).get("vocab") or {}
    missing = {f"<0x{b:02X}>": base + b for b in range(256)
               if f"<0x{b:02X}>" not in vocab} if base is not None else {}
    if not missing:
        return None
    return with_model(document, vocab={**vocab, **missing})


def new_pieces_dropped(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                       ) -> Outcome | None:
    base = _first_new_id(document)
    if not isinstance(outcome, Encoded) or base is None:
        return outcome
    return Encoded(ids=tuple(i for i in outcome.ids if i < base), tokens=(), spans=(),
                   special_mask=())


def _without_byte_fallback(step: Any) -> Any:
    if isinstance(step, dict) and step.get("type") == "Sequence" and isinstance(
            step.get("decoders"), list):
        kept = [_without_byte_fallback(s) for s in step["decoders"]
                if not (isinstance(s, dict) and s.get("type") == "ByteFallback")]
        return {**step, "decoders": kept} if kept else {"type": "Fuse"}
    if isinstance(step, dict) and step.get("type") == "ByteFallback":
        return {"type": "Fuse"}
    return step


#: Where the byte pieces are spelt for the replay: byte b as U+F0000 + b (plane 15's
#: private use), which no literal text of a token spells (``byte_pieces_kept`` checks).
_PIECE_BASE: Final = 0xF0000
_PIECE_RUN: Final = re.compile("[\U000F0000-\U000F00FF]+")


def byte_pieces_kept(document: dict[str, Any]) -> dict[str, Any] | None:
    """The decoder without its ByteFallback steps and each byte piece of the vocabulary
    spelt as one private-use character of its byte: the replay keeps each byte piece as
    that character, which ``byte_runs_as_utf8`` turns into kitoken's answer, while a
    token spelling ``<0x41>`` literally (``<``, ``0x``, ...) stays text, as in kitoken.
    None where a token of the vocabulary holds such a character already."""
    model = model_of(document)
    vocab = model.get("vocab")
    changed = {**document, "decoder": _without_byte_fallback(document.get("decoder"))}
    if not isinstance(vocab, dict):
        return changed
    if any(isinstance(t, str) and _PIECE_RUN.search(t) for t in vocab):
        return None
    renamed = {chr(_PIECE_BASE + int(piece.group(1), 16))
               if (piece := _BYTE_PIECE.match(token)) else token: i
               for token, i in vocab.items()}
    if len(renamed) != len(vocab):
        return None  # a byte piece spelt in both cases
    return with_model(changed, vocab=renamed)


def byte_runs_as_utf8(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                      ) -> Outcome | None:
    """kitoken decodes each byte piece to its byte and returns the bytes of the whole
    text, which the adapter reads as UTF-8 with one U+FFFD per invalid sequence; upstream's
    ByteFallback gives one U+FFFD per byte piece of a run that is not UTF-8."""
    if not isinstance(outcome, Decoded):
        return outcome
    return Decoded(_PIECE_RUN.sub(lambda run: bytes(
        ord(c) - _PIECE_BASE for c in run.group(0)).decode("utf-8", errors="replace"),
        outcome.text))
