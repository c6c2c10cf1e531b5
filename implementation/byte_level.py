"""GPT-2's byte-level family: the byte map, the ``ByteLevel`` pre-tokenizer and decoder, and
the options all three ``ByteLevel`` components share (the post-processor step itself is in
``post_processors.py``).

Reproduces tokenizers 0.23.1 (``pre_tokenizers/byte_level.rs``), measured in
``tests/differential/test_byte_level.py``:

* **The byte map** (:data:`BYTE_SYMBOLS`): every byte is one printable character, the byte
  itself for ``!``..``~``, U+00A1..U+00AC and U+00AE..U+00FF, else U+0100 onwards in byte
  order (space is ``Ġ`` U+0120, newline ``Ċ`` U+010A).
* **The pre-tokenizer**: each piece (a section of text between added tokens, or a piece an
  earlier pre-tokenizer made) gets a space in front when ``add_prefix_space`` is set and it
  does not already start with one (the space shares the first character's span); with
  ``use_regex`` it is split by GPT-2's pattern (:data:`GPT2_PATTERN`, each match its own
  piece); then each character becomes the symbols of its UTF-8 bytes, every symbol keeping
  the span of the character it came from (``oc-byte-fallback-spans``, decision 0024).
* **The decoder**: a token made only of byte symbols stands for those bytes, any other
  token for its own UTF-8 bytes; the bytes of all tokens are decoded at once, an invalid
  sequence becoming U+FFFD per maximal invalid subpart (Rust's ``from_utf8_lossy``, which
  Python's ``errors="replace"`` matches), and the result is one string.
* **JSON**: ``add_prefix_space`` and ``trim_offsets`` are required booleans,
  ``use_regex`` an optional one (absent means true; null is refused, as upstream refuses
  it); other keys are ignored. The three components deserialize alike.

``trim_offsets`` does nothing here (upstream reads it only in the post-processor), and
this reference's post-processor does not trim either: decision 0024.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import regex  # type: ignore[import-untyped, unused-ignore]

from .alignment import NormalizedText, Span
from .errors import excerpt
from .jsonfields import Node

#: The printable bytes that stand for themselves (GPT-2's ``bytes_to_unicode``).
_SELF_SYMBOLS: tuple[int, ...] = (*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100))


def _byte_symbols() -> tuple[str, ...]:
    symbols = {byte: chr(byte) for byte in _SELF_SYMBOLS}
    others = (byte for byte in range(256) if byte not in symbols)
    symbols.update({byte: chr(0x100 + n) for n, byte in enumerate(others)})
    return tuple(symbols[byte] for byte in range(256))


#: ``BYTE_SYMBOLS[b]`` is the character byte ``b`` becomes; declared here only.
BYTE_SYMBOLS: tuple[str, ...] = _byte_symbols()
#: The inverse map: a byte symbol to its byte.
SYMBOL_BYTES: Mapping[str, int] = MappingProxyType(
    {symbol: byte for byte, symbol in enumerate(BYTE_SYMBOLS)})
#: Latin-1 code point (one per byte) -> the byte's symbol, for ``str.translate``.
_LATIN1_TO_SYMBOL = str.maketrans(dict(enumerate(BYTE_SYMBOLS)))

#: The pattern upstream splits with when ``use_regex`` is set (an Oniguruma pattern there;
#: ``regex`` gives ``\p{L}``, ``\p{N}`` and ``\s`` the same meaning: see the tests).
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"
_GPT2: Any = regex.compile(GPT2_PATTERN)


def to_symbols(text: str) -> str:
    """``text``'s UTF-8 bytes, each spelled as its byte symbol."""
    return text.encode("utf-8").decode("latin-1").translate(_LATIN1_TO_SYMBOL)


def token_bytes(token: str) -> bytes:
    """The bytes the decoder reads a token as: the bytes its symbols stand for when every
    character is a byte symbol, else the token's own UTF-8 (an added token such as
    ``<|eot|>`` is made of symbols and stands for itself; ``café`` is not: its ``é`` is the
    symbol of byte 0xE9)."""
    try:
        return bytes([SYMBOL_BYTES[char] for char in token])
    except KeyError:
        return token.encode("utf-8")


# ---------------------------------------------------------------------------
# Options (shared by the three components)
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ByteLevelOptions:
    add_prefix_space: bool
    trim_offsets: bool
    use_regex: bool = True


def _bool_field(node: Node, key: str, default: bool | None) -> bool:
    """A boolean field: absent is ``default`` (missing-field when there is none); present
    means a boolean, JSON null included (upstream: "invalid type: null")."""
    obj = node.obj()
    if key not in obj:
        if default is None:
            node.fail("missing-field", f"required field {excerpt(key)} is missing", key)
        return default
    return Node(obj[key], node.child_path(key)).bool_()


def byte_level_from_json(node: Node) -> ByteLevelOptions:
    """``{"type": "ByteLevel", "add_prefix_space": b, "trim_offsets": b, "use_regex": b?}``
    as upstream deserializes it for the pre-tokenizer, the decoder and the post-processor."""
    return ByteLevelOptions(
        add_prefix_space=_bool_field(node, "add_prefix_space", None),
        trim_offsets=_bool_field(node, "trim_offsets", None),
        use_regex=_bool_field(node, "use_regex", True),
    )


# ---------------------------------------------------------------------------
# The pre-tokenizer
# ---------------------------------------------------------------------------


def split_isolated(piece: NormalizedText, pattern: Any) -> list[NormalizedText]:
    """``piece`` cut at every match of ``pattern``: each match its own piece, and so each
    stretch between matches (upstream's ``SplitDelimiterBehavior::Isolated``)."""
    text = piece.text
    bounds: list[Span] = []
    last = 0
    for match in pattern.finditer(text):
        start, end = match.span()
        if start > last:  # pragma: no cover - the GPT-2 pattern
            # matches every character: no gap between two matches, none after the last
            bounds.append((last, start))
        if end > start:
            bounds.append((start, end))
        last = end
    if last < len(text):  # pragma: no cover - as above: the last match ends the text
        bounds.append((last, len(text)))
    return [piece.slice(start, end) for start, end in bounds]


def to_byte_level(piece: NormalizedText) -> NormalizedText:
    """Each character of ``piece`` replaced by the symbols of its UTF-8 bytes, every symbol
    with the character's alignment (upstream gives every byte of a character the alignment
    of the character: ``normalizer.rs`` ``transform_range``)."""
    text = piece.text
    raw = text.encode("utf-8")
    symbols = raw.decode("latin-1").translate(_LATIN1_TO_SYMBOL)
    if len(raw) == len(text):  # ASCII: one symbol per character, the same alignments (an
        alignments = piece.alignments  # alignment list is replaced, never changed in place)
    else:  # each byte takes its character's: the index of the character is the count of
        # lead bytes so far, minus one
        characters = itertools.accumulate(raw.translate(_LEAD_BYTES), initial=-1)
        alignments = list(map(piece.alignments.__getitem__,
                              itertools.islice(characters, 1, None)))
    return NormalizedText(symbols, alignments, piece.original_start, piece.original_end)


#: ``bytes.translate`` table: 1 for a byte that starts a UTF-8 character, 0 for a
#: continuation byte (0x80..0xBF).
_LEAD_BYTES = bytes(0 if 0x80 <= byte < 0xC0 else 1 for byte in range(256))


@dataclass(frozen=True, slots=True)
class ByteLevelPreTokenizer:
    options: ByteLevelOptions

    def split(self, pieces: list[NormalizedText]) -> list[NormalizedText]:
        if not self.options.add_prefix_space and not self.options.use_regex:
            # Llama 3's step after its Split: each piece becomes its bytes' symbols, alone.
            return [to_byte_level(piece) for piece in pieces if piece.text]
        out: list[NormalizedText] = []
        for piece in pieces:
            if self.options.add_prefix_space and not piece.text.startswith(" "):
                piece.prepend(" ")
            words = split_isolated(piece, _GPT2) if self.options.use_regex else [piece]
            out.extend(to_byte_level(word) for word in words if word.text)
        return out


# ---------------------------------------------------------------------------
# The decoder
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ByteLevelDecoder:
    """All tokens to one string through their bytes (see :func:`token_bytes`)."""

    options: ByteLevelOptions

    def decode_chain(self, tokens: list[str]) -> list[str]:
        data = b"".join(token_bytes(token) for token in tokens)
        return [data.decode("utf-8", "replace")]
