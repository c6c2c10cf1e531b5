"""Byte-level spans on both sides: what the offset contract gives the tokens of a
``ByteLevel`` pre-tokenized word (decision 0024), and what upstream's ``ByteLevel``
post-processor makes of spans with ``trim_offsets``.

**Our side** (:func:`byte_level_spans`, ``oc-byte-fallback-spans`` read for byte-level
symbols): every byte symbol of a token stands for one byte of one character of the text,
and a token's span runs from the first character its bytes come from to the end of the
last one. A word is judged only where its tokens' bytes spell the text exactly, word after
word from the start of each input (added tokens in between covering their own slice),
optionally after one space ``add_prefix_space`` inserted at the start of an input or right
after an added token (it belongs to the character it stands in front of). A word that does
not (a normalizer changed the text, a pre-tokenizer before ``ByteLevel`` inserted a space,
an unknown token) is not judged, and the next word is read from where our span says it
starts.

**Upstream's trimming** (:func:`upstream_trimmed_spans`, ``byte_level.rs``
``process_offsets``): a token's leading and trailing space symbols (``Ġ`` or whitespace) are
cut off its offsets, counted in characters; one leading space is kept on the first token of
an encoding (or one starting at 0) when ``add_prefix_space`` is set.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from implementation.byte_level import SYMBOL_BYTES

from ..core.outcome import Encoded

Span = tuple[int, int]
_SPACE_SYMBOL = "\u0120"


# -- our side ---------------------------------------------------------------------------------
def _steps(component: Any, key: str) -> Iterator[dict[str, Any]]:
    """The steps of a component, nested Sequences flattened, in order of application."""
    if not isinstance(component, dict):
        return
    if component.get("type") == "Sequence" and isinstance(component.get(key), list):
        for step in component[key]:
            yield from _steps(step, key)
    else:
        yield component


def _prefix_inserted(document: dict[str, Any]) -> bool | None:
    """None: no ByteLevel pre-tokenizer. Else whether a judged word may start with a space
    ``add_prefix_space`` inserted: ByteLevel is the first step and sets it (after another
    step, the pieces it is given are not known here)."""
    steps = list(_steps(document.get("pre_tokenizer"), "pretokenizers"))
    kinds = [step.get("type") for step in steps]
    if "ByteLevel" not in kinds:
        return None
    return kinds[0] == "ByteLevel" and steps[0].get("add_prefix_space") is True


def _token_bytes(token: str) -> bytes | None:
    try:
        return bytes([SYMBOL_BYTES[char] for char in token])
    except KeyError:
        return None


def byte_level_spans(enc: Encoded, texts: Sequence[str], document: dict[str, Any]
                     ) -> dict[int, Span]:
    """The contract's span of every judged position (model tokens of judged words, added
    tokens whose slice of the text is their content); empty without a ByteLevel
    pre-tokenizer or word ids."""
    prefix_allowed = _prefix_inserted(document)
    if prefix_allowed is None or not enc.word_ids:
        return {}
    judged: dict[int, Span] = {}
    cursor: dict[int | None, int | None] = {}
    position = 0
    while position < len(enc.ids):
        sequence = enc.sequence_ids[position] if position < len(enc.sequence_ids) else 0
        text = texts[1] if sequence == 1 and len(texts) > 1 else texts[0]
        at = cursor.get(sequence, 0)
        if enc.word_ids[position] is None:
            if enc.special_mask[position] == 0:  # an added token found in the text
                start, end = enc.spans[position]
                fits = at in (start, None) and text[start:end] == enc.tokens[position]
                cursor[sequence] = end if fits else None
                if fits:
                    judged[position] = (start, end)
            position += 1
            continue
        word = _word_positions(enc, position)
        after_added = position > 0 and enc.word_ids[position - 1] is None and (
            enc.special_mask[position - 1] == 0)
        if at is None:  # after a word not judged: start again where ours says it starts
            at = enc.spans[position][0]
        found = _word_spans(enc, word, text, at, prefix_allowed and (at == 0 or after_added))
        if found is None:
            cursor[sequence] = None
        else:
            judged.update(found[0])
            cursor[sequence] = found[1]
        position = word[-1] + 1
    return judged


def _word_positions(enc: Encoded, first: int) -> list[int]:
    key = (enc.sequence_ids[first] if first < len(enc.sequence_ids) else 0, enc.word_ids[first])
    positions = [first]
    while positions[-1] + 1 < len(enc.ids):
        nxt = positions[-1] + 1
        if (enc.sequence_ids[nxt] if nxt < len(enc.sequence_ids) else 0,
                enc.word_ids[nxt]) != key:
            break
        positions.append(nxt)
    return positions


def _word_spans(enc: Encoded, word: list[int], text: str, start: int, prefix_allowed: bool
                ) -> tuple[dict[int, Span], int] | None:
    """Each position of the word at the span of the characters its bytes come from, the
    word starting at character ``start``, and where the next word starts; None when its
    bytes do not spell the text there. (A word may be the inserted space alone: with
    ``use_regex``, ``" \tx"`` splits into ``" "``, ``"\t"``, ``"x"``.)"""
    chunks = [_token_bytes(enc.tokens[i]) for i in word]
    if any(chunk is None for chunk in chunks):
        return None
    data = b"".join(chunk for chunk in chunks if chunk is not None)
    inserted = 0
    if not _spells(data, text, start):
        inserted = 1
        if not (prefix_allowed and data[:1] == b" " and text[start:start + 1] != " "
                and (data == b" " or _spells(data[1:], text, start))):
            return None
    # The character of each byte: the inserted space is the first character's.
    owner = [start] * inserted
    consumed = start
    for char in text[start:start + len(data)]:
        if len(owner) >= len(data):
            break
        owner.extend([consumed] * len(char.encode("utf-8")))
        consumed += 1
    spans: dict[int, Span] = {}
    offset = 0
    for i, chunk in zip(word, chunks, strict=True):
        assert chunk is not None
        if not chunk:
            return None
        spans[i] = (owner[offset], owner[offset + len(chunk) - 1] + 1)
        offset += len(chunk)
    return spans, consumed


def _spells(data: bytes, text: str, start: int) -> bool:
    """``data`` is the UTF-8 of whole characters of ``text`` from ``start`` on."""
    try:
        chars = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return bool(chars) and text.startswith(chars, start)


# -- upstream's trimming -----------------------------------------------------------------------
def trimming_steps(document: dict[str, Any]) -> list[bool]:
    """The ``add_prefix_space`` of each ByteLevel post-processing step that trims offsets,
    in order of application."""
    return [step.get("add_prefix_space") is True
            for step in _steps(document.get("post_processor"), "processors")
            if step.get("type") == "ByteLevel" and step.get("trim_offsets") is True]


def _space_run(chars: Iterator[str]) -> int:
    count = 0
    for char in chars:
        if char != _SPACE_SYMBOL and not char.isspace():
            break
        count += 1
    return count


def upstream_trimmed_spans(enc: Encoded, steps: Sequence[bool]) -> list[Span]:
    """Our spans as upstream's trimming steps leave them (template specials untouched:
    upstream has them at (0, 0), which trimming keeps). The first token of each encoding a
    step is given is the first of each run of one input's tokens."""
    spans = list(enc.spans)
    for add_prefix_space in steps:
        for i, token in enumerate(enc.tokens):
            if enc.special_mask[i] == 1:
                continue
            start, end = spans[i]
            leading, trailing = _space_run(iter(token)), _space_run(reversed(token))
            if leading:
                first = i == 0 or _sequence(enc, i) != _sequence(enc, i - 1) or start == 0
                if first and add_prefix_space and leading == 1:
                    leading = 0
                start = min(start + leading, end)
            if trailing and end >= trailing:
                end = max(end - trailing, start)
            spans[i] = (start, end)
    return spans


def _sequence(enc: Encoded, i: int) -> int | None:
    return enc.sequence_ids[i] if i < len(enc.sequence_ids) else 0
