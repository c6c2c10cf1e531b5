"""Decoders: ``ByteFallback``, ``Fuse``, ``Strip``, ``Replace``, ``Metaspace``, ``ByteLevel``
(``implementation/byte_level.py``), ``Sequence``.

A decoder maps the list of token strings to a list of strings (``decode_chain``);
the tokenizer joins the final list with ``""``. Every behaviour below was
measured against tokenizers 0.23.1 (see ``tests/unit/test_decoders.py``).

Where this module deliberately departs from upstream:

* ``Metaspace`` (:class:`~.metaspace.MetaspaceDecoder`) is parsed and validated like
  upstream but its ``decode_chain`` is the identity (decision-byte-fallback, rule 2:
  "accepted and not applied, and Decode returns the escaped text").
* ``Strip`` never panics: where upstream panics the token decodes to ``""`` (see
  :func:`strip_token`).
* A ``Replace`` ``Regex`` pattern is Oniguruma syntax upstream; only the Replace dialect
  of :mod:`.oniguruma` is accepted (:mod:`.patterns`), the rest is refused as
  ``unsupported-component`` (``regex-syntax`` where Oniguruma refuses it too).
* A decoder object without ``"type"`` is refused (``missing-field``); upstream's
  legacy untagged fallback accepts a type-less ``Strip`` or ``Replace``.
* When the model declares ``byte_fallback`` and the load is strict, only the
  two shapes of decision-byte-fallback rule 2 load (:func:`decoder_from_json`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .byte_level import ByteLevelDecoder, byte_level_from_json
from .errors import clip, excerpt
from .jsonfields import Node
from .metaspace import MetaspaceDecoder, metaspace_decoder_from_json
from .patterns import Pattern, pattern_from_json

REPLACEMENT_CHARACTER = "\ufffd"

#: Decoder types upstream 0.23.1 knows but this reference does not reproduce.
UPSTREAM_ONLY_TYPES = frozenset({"BPEDecoder", "WordPiece", "CTC"})

#: The Sequence decision-byte-fallback rule 2 accepts (Llama-2's decoder chain).
BYTE_FALLBACK_CHAIN: tuple[str, ...] = ("Replace", "ByteFallback", "Fuse", "Strip")

_USIZE_LIMIT = 2**64  # upstream fields are Rust usize (64-bit targets)


class Decoder(Protocol):
    """One decoding step: a list of token strings to a list of strings."""

    def decode_chain(self, tokens: list[str]) -> list[str]: ...


# ---------------------------------------------------------------------------
# ByteFallback
# ---------------------------------------------------------------------------


def byte_token_value(token: str) -> int | None:
    """The byte a ``<0xHH>`` token stands for, or None if it is not a byte token.

    Upstream's test: the UTF-8 length is 6, it starts with ``<0x``, ends with
    ``>``, and ``u8::from_str_radix(token[3..5], 16)`` succeeds. That parse
    takes ASCII hex digits of either case and one leading ``+`` (``<0x+5>`` is
    byte 5); Python's ``int()`` would also take spaces, ``_`` and non-ASCII
    digits, so it is not used.
    """
    if len(token.encode("utf-8")) != 6 or not token.startswith("<0x") or not token.endswith(">"):
        return None
    return _rust_hex_u8(token[3:-1])


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _rust_hex_u8(text: str) -> int | None:
    """``u8::from_str_radix(text, 16)`` for the two-byte slices ByteFallback passes."""
    digits = text[1:] if text.startswith("+") else text
    if not digits or any(c not in _HEX_DIGITS for c in digits):
        return None
    value = int(digits, 16)
    return value if value < 256 else None


def decode_byte_run(run: bytes) -> list[str]:
    """A maximal run of byte tokens: one string if it is valid UTF-8, else one U+FFFD per byte.

    Not Python's ``errors="replace"`` (one U+FFFD per maximal invalid subpart):
    upstream replaces *every* byte of an invalid run, valid ones included.
    """
    try:
        return [run.decode("utf-8")]
    except UnicodeDecodeError:
        return [REPLACEMENT_CHARACTER] * len(run)


@dataclass(frozen=True, slots=True)
class ByteFallback:
    """``{"type": "ByteFallback"}``: byte tokens back to text, run by run."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        run = bytearray()
        for token in tokens:
            value = byte_token_value(token)
            if value is not None:
                run.append(value)
                continue
            if run:
                out.extend(decode_byte_run(bytes(run)))
                run.clear()
            out.append(token)
        if run:
            out.extend(decode_byte_run(bytes(run)))
        return out


# ---------------------------------------------------------------------------
# Fuse
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Fuse:
    """``{"type": "Fuse"}``: all tokens into one string (an empty list gives ``[""]``)."""

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return ["".join(tokens)]


# ---------------------------------------------------------------------------
# Strip
# ---------------------------------------------------------------------------


def _leading_cut(token: str, content: str, start: int) -> int:
    """How many leading ``content`` characters upstream removes (at most ``start``)."""
    cut = 0
    for i, char in enumerate(token[:start]):
        if char != content:
            break
        cut = i + 1
    return cut


def _trailing_cut(token: str, content: str, stop: int) -> int:
    """Where upstream's kept part ends, scanning at most ``stop`` characters from the end.

    Upstream keeps scanning past the first character when every character is
    ``content`` and ``stop`` exceeds the length (and panics there); this scan
    stops at the first character instead.
    """
    cut = len(token)
    for index in range(len(token) - 1, max(len(token) - stop, 0) - 1, -1):
        if token[index] != content:
            break
        cut = index
    return cut


def strip_token(token: str, content: str, start: int, stop: int) -> str:
    """Strip up to ``start`` leading and ``stop`` trailing ``content`` characters.

    Character-wise, as upstream: each side stops at the first other character.
    Upstream panics in two cases (decision 0010), both only reachable
    when the token consists entirely of ``content`` characters: ``stop`` larger
    than the token, and the two windows crossing. Decision: such a token decodes
    to ``""`` — every one of its characters lies inside a window, so removing
    them all is the only reading that needs no choice between the windows.
    Llama's ``start=1, stop=0`` never reaches either case.
    """
    start_cut = _leading_cut(token, content, start)
    stop_cut = _trailing_cut(token, content, stop)
    if stop_cut < start_cut:
        return ""
    return token[start_cut:stop_cut]


@dataclass(frozen=True, slots=True)
class Strip:
    """``{"type": "Strip", "content": c, "start": n, "stop": m}``, applied to each token."""

    content: str
    start: int
    stop: int

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [strip_token(t, self.content, self.start, self.stop) for t in tokens]


@dataclass(frozen=True, slots=True)
class Replace:
    """``{"type": "Replace", "pattern": {...}, "content": s}``: each token rewritten on its own."""

    pattern: Pattern
    content: str

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.pattern.replace(token, self.content) for token in tokens]


# ---------------------------------------------------------------------------
# Metaspace (the decoder itself: implementation/metaspace.py)
# ---------------------------------------------------------------------------

#: The Metaspace decoder, by its JSON type name among the decoder types.
Metaspace = MetaspaceDecoder


# ---------------------------------------------------------------------------
# Sequence
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sequence:
    """``{"type": "Sequence", "decoders": [...]}``: the steps in declared order."""

    decoders: tuple[Decoder, ...]

    def decode_chain(self, tokens: list[str]) -> list[str]:
        for decoder in self.decoders:
            tokens = decoder.decode_chain(tokens)
        return tokens


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def _parse_usize(node: Node) -> int:
    value = node.usize()
    if value >= _USIZE_LIMIT:
        node.fail("invalid-value",
                  f"{excerpt(value)} does not fit an unsigned 64-bit integer")
    return value


def _parse_strip(node: Node) -> Strip:
    return Strip(
        content=node.field("content").char(),
        start=_parse_usize(node.field("start")),
        stop=_parse_usize(node.field("stop")),
    )


def _parse_replace(node: Node) -> Replace:
    pattern = pattern_from_json(node.field("pattern"), "Replace")
    return Replace(pattern, node.field("content").str_())


def _parse_sequence(node: Node) -> Sequence:
    return Sequence(tuple(parse_decoder(step) for step in node.field("decoders").elements()))


def parse_decoder(node: Node) -> Decoder:
    """One decoder object of any supported type, recursively; no shape rule applied."""
    tag = node.type_tag()
    if tag == "ByteFallback":
        return ByteFallback()
    if tag == "Fuse":
        return Fuse()
    if tag == "Strip":
        return _parse_strip(node)
    if tag == "Replace":
        return _parse_replace(node)
    if tag == "Metaspace":
        return metaspace_decoder_from_json(node)
    if tag == "ByteLevel":
        return ByteLevelDecoder(byte_level_from_json(node))
    if tag == "Sequence":
        return _parse_sequence(node)
    # A type upstream decodes and we do not (decision 0012; class strict-unreproduced-component).
    if tag in UPSTREAM_ONLY_TYPES:
        node.fail("unsupported-component", f"decoder type {excerpt(tag)} is not reproduced", "type")
    return node.fail("unsupported-component", f"unknown decoder type {excerpt(tag)}", "type")


_ACCEPTED_SHAPES = (
    "accepted when the model declares byte_fallback: a bare ByteFallback, or a Sequence of "
    "exactly [Replace, ByteFallback, Fuse, Strip]"
)


def _describe(tags: list[str], limit: int = 6) -> str:
    shown = [clip(tag, 24) for tag in tags[:limit]]
    if len(tags) > limit:
        shown.append(f"… ({len(tags)} steps)")
    return "[" + ", ".join(shown) + "]"


def check_byte_fallback_shape(node: Node) -> None:
    """Decision-byte-fallback rule 2: refuse any decoder but the two reproduced shapes.

    Only the shape is checked (types, count, order). The parameters of Replace
    and Strip may differ from Llama's (``"▁"`` to ``" "``; ``" "``, 1, 0): each
    step is reproduced faithfully with its own parameters, so a different value
    decodes as upstream does and nothing is canonicalized. (The one exception,
    Strip where upstream panics, is documented on :func:`strip_token`.)
    """
    if node.is_null:
        node.fail("decoder-shape", f"found no decoder (null); {_ACCEPTED_SHAPES}")
    tag = node.type_tag()
    if tag == "ByteFallback":
        return
    if tag != "Sequence":
        node.fail("decoder-shape", f"found a bare {clip(tag)}; {_ACCEPTED_SHAPES}")
    steps_node = node.field("decoders")
    steps = list(steps_node.elements())
    tags = [step.type_tag() for step in steps]
    found = f"found Sequence {_describe(tags)}"
    for i, (tag_found, expected) in enumerate(zip(tags, BYTE_FALLBACK_CHAIN, strict=False)):
        if tag_found != expected:
            steps[i].fail("decoder-shape", f"{found}: step {i} is {clip(tag_found, 24)} where "
                          f"{expected} is expected; {_ACCEPTED_SHAPES}")
    if len(tags) > len(BYTE_FALLBACK_CHAIN):
        extra = len(BYTE_FALLBACK_CHAIN)
        steps[extra].fail("decoder-shape", f"{found}: step {extra} ({clip(tags[extra], 24)}) "
                          f"is one too many; {_ACCEPTED_SHAPES}")
    if len(tags) < len(BYTE_FALLBACK_CHAIN):
        missing = _describe(list(BYTE_FALLBACK_CHAIN[len(tags):]))
        steps_node.fail("decoder-shape", f"{found}: missing {missing} at the end; "
                        f"{_ACCEPTED_SHAPES}")


def decoder_from_json(node: Node, *, strict: bool, byte_fallback: bool) -> Decoder | None:
    """The ``$.decoder`` component; JSON null gives None.

    Strict and ``byte_fallback``: only the two shapes of
    :func:`check_byte_fallback_shape` load (null included in the refusals);
    otherwise any composition of the supported types loads.
    """
    if strict and byte_fallback:
        check_byte_fallback_shape(node)
    if node.is_null:
        return None
    return parse_decoder(node)
