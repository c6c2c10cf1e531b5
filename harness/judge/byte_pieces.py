"""Byte pieces under the offset contract (``oc-byte-fallback-spans``,
``docs/spec/offset-contract.md``): the pieces of one (decorated) symbol share one
non-empty span, the span of its character. Read by the specification oracle and the
decorated-byte-fallback predicate."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.outcome import Encoded


@dataclass
class _Symbol:
    char: str
    positions: list[int] = field(default_factory=list)


def byte_piece_violations(enc: Encoded, texts: Sequence[str], model: Mapping[str, Any],
                          plain: bool) -> dict[int, str]:
    """Positions of byte pieces whose span breaks ``oc-byte-fallback-spans``: the pieces
    of one symbol (a character with the model's prefix before it unless it starts the
    word, and its suffix after it if it ends the word) must share one non-empty span
    within the text; when nothing normalizes the text (``plain``), the span holds exactly
    that character. Runs this oracle cannot read as whole symbols are not judged."""
    if model.get("byte_fallback") is not True or not enc.model_word_ids:
        return {}
    prefix = model.get("continuing_subword_prefix")
    suffix = model.get("end_of_word_suffix")
    prefix_b = prefix.encode() if isinstance(prefix, str) else b""
    suffix_b = suffix.encode() if isinstance(suffix, str) else b""
    violations: dict[int, str] = {}
    for word in _words(enc):
        for start, end in _byte_runs(enc, texts, word, len(prefix_b)):
            symbols = _symbols(enc, word, (start, end), prefix_b, suffix_b)
            if symbols is None:
                continue
            text = _text_of(enc, texts, word[start])
            for symbol in symbols:
                spans = {enc.spans[i] for i in symbol.positions}
                (s, e), = spans if len(spans) == 1 else ((-2, -2),)
                if len(spans) != 1:
                    why = f"the pieces of {symbol.char!r} have spans {sorted(spans)}"
                elif not 0 <= s < e <= len(text):
                    why = f"the pieces of {symbol.char!r} have span {(s, e)}"
                elif plain and text[s:e] != symbol.char:
                    why = f"the pieces of {symbol.char!r} have span {(s, e)}: {text[s:e]!r}"
                else:
                    continue
                for i in symbol.positions:
                    violations[i] = why
    return violations


def _words(enc: Encoded) -> list[list[int]]:
    """Positions of each word (consecutive tokens of one word of one sequence)."""
    words: list[list[int]] = []
    key: object = None
    for i, word in enumerate(enc.model_word_ids):
        if word is None:
            key = None
            continue
        this = (enc.sequence_ids[i] if i < len(enc.sequence_ids) else 0, word)
        if this != key:
            words.append([])
            key = this
        words[-1].append(i)
    return words


def _byte_runs(enc: Encoded, texts: Sequence[str], word: list[int], prefix_length: int
               ) -> Iterator[tuple[int, int]]:
    """Maximal runs (start, end indices into ``word``) of tokens made of byte pieces (a
    token spelling its own text, ``<0x58>`` written in the text, is no byte piece)."""
    start: int | None = None
    for k, i in enumerate([*word, None]):
        is_bytes = (i is not None and token_bytes(enc.tokens[i], prefix_length) is not None
                    and _slice(_text_of(enc, texts, i), enc.spans[i]) != enc.tokens[i])
        if is_bytes and start is None:
            start = k
        elif not is_bytes and start is not None:
            yield start, k
            start = None


def _symbols(enc: Encoded, word: list[int], run_range: tuple[int, int], prefix: bytes,
             suffix: bytes) -> list[_Symbol] | None:
    """The run's bytes read as symbols, each with the positions lying wholly inside it;
    None when they do not read as whole decorated characters."""
    start, end = run_range
    bounds: list[tuple[int, int]] = []  # byte range of each position of the run
    run = bytearray()
    for i in word[start:end]:
        value = token_bytes(enc.tokens[i], len(prefix))
        assert value is not None
        bounds.append((len(run), len(run) + len(value)))
        run.extend(value)
    data = bytes(run)
    ends_word = end == len(word)
    if ends_word and suffix:
        if not data.endswith(suffix):
            return None
        data = data[:-len(suffix)]
    symbols: list[tuple[str, int, int]] = []
    at = 0
    while at < len(data):
        begin = at
        if prefix and (symbols or start > 0):
            if not data.startswith(prefix, at):
                return None
            at += len(prefix)
        width = _utf8_width(data, at)
        if width is None:
            return None
        char = data[at:at + width].decode("utf-8")
        at += width
        symbols.append((char, begin, at))
    if not symbols:
        return None
    if ends_word and suffix:
        char, begin, _ = symbols[-1]
        symbols[-1] = (char, begin, len(run))
    out = [_Symbol(char) for char, _, _ in symbols]
    # The symbols are consecutive byte ranges and the positions' ranges ascend: each
    # position lies wholly inside the first symbol not ending at or before its start, or
    # inside none.
    k = 0
    for (lo, hi), i in zip(bounds, word[start:end], strict=True):
        while k < len(symbols) and symbols[k][2] <= lo:
            k += 1
        if k < len(symbols) and symbols[k][1] <= lo and hi <= symbols[k][2]:
            out[k].positions.append(i)
    return out


def _utf8_width(data: bytes, at: int) -> int | None:
    if at >= len(data):
        return None
    lead = data[at]
    width = 1 if lead < 0x80 else 2 if lead >> 5 == 6 else 3 if lead >> 4 == 14 else (
        4 if lead >> 3 == 30 else 0)
    if not width or at + width > len(data):
        return None
    try:
        data[at:at + width].decode("utf-8")
    except UnicodeDecodeError:
        return None
    return width


_PIECE = re.compile(r"<0x([0-9A-F]{2})>")


def token_bytes(token: str, prefix_length: int) -> bytes | None:
    """The bytes a token of upper-case byte pieces stands for: ``<0xC3>``, or pieces
    merged, each right part cut by the prefix's byte length as upstream merges
    (``<0xC3>xA9>`` under a two-byte prefix). None for any other token."""
    first = _PIECE.match(token)
    if first is None or prefix_length > 3:
        return None
    rest = "<0x"[prefix_length:]
    values = [int(first.group(1), 16)]
    at = first.end()
    while at < len(token):
        if not token.startswith(rest, at):
            return None
        digits = token[at + len(rest):at + len(rest) + 3]
        if not re.fullmatch(r"[0-9A-F]{2}>", digits):
            return None
        values.append(int(digits[:2], 16))
        at += len(rest) + 3
    return bytes(values)


def _slice(text: str, span: tuple[int, int]) -> str:
    start, end = span
    return text[start:end] if 0 <= start <= end <= len(text) else ""


def _text_of(enc: Encoded, texts: Sequence[str], position: int) -> str:
    sequence = enc.sequence_ids[position] if position < len(enc.sequence_ids) else 0
    return texts[1] if sequence == 1 and len(texts) > 1 else texts[0]
