"""Models of upstream's (tokenizers 0.23.1) decoder steps where the reference departs from
it on purpose: ``Strip``, which panics on some tokens (decision 0010), and ``Metaspace``,
which the reference does not apply (decision 0002); and GPT-2's byte map, which the
ByteLevel steps share (decision 0024). The judge's own, independent of the code it judges;
measured against upstream in ``tests/test_decoders.py``."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal

PrependScheme = Literal["always", "first", "never"]


def _byte_symbols() -> dict[str, int]:
    """GPT-2's ``bytes_to_unicode``, inverted: a printable byte stands for itself, every
    other byte, in order, for U+0100 onwards."""
    printable = {*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)}
    others = [byte for byte in range(256) if byte not in printable]
    symbols = {chr(byte): byte for byte in printable}
    symbols.update({chr(0x100 + n): byte for n, byte in enumerate(others)})
    return symbols


#: A byte-level symbol -> the byte it stands for.
SYMBOL_BYTES: Mapping[str, int] = MappingProxyType(_byte_symbols())


def _leading_cut(token: str, content: str, start: int) -> int:
    """How many leading ``content`` characters upstream removes (at most ``start``)."""
    cut = 0
    for i, char in enumerate(token[:start]):
        if char != content:
            break
        cut = i + 1
    return cut


def _trailing_cut(token: str, content: str, stop: int) -> int:
    """Where upstream's kept part ends, scanning at most ``stop`` characters from the end
    (stopping at the first character where upstream would scan on and panic)."""
    cut = len(token)
    for index in range(len(token) - 1, max(len(token) - stop, 0) - 1, -1):
        if token[index] != content:
            break
        cut = index
    return cut


def strip_would_panic(token: str, content: str, start: int, stop: int) -> bool:
    """True where upstream's ``Strip`` panics on ``token``: the trailing scan underflows
    when the token is all ``content`` and ``stop`` exceeds its length; otherwise the slice
    panics when the leading cut passes the trailing one."""
    if stop > len(token) and all(char == content for char in token):
        return True
    return _leading_cut(token, content, start) > _trailing_cut(token, content, stop)


def strip_upstream(token: str, content: str, start: int, stop: int) -> str:
    """What upstream's ``Strip`` makes of a token it does not panic on."""
    return token[_leading_cut(token, content, start):_trailing_cut(token, content, stop)]


def metaspace_decode_upstream(tokens: list[str], replacement: str,
                              prepend_scheme: PrependScheme) -> list[str]:
    """What upstream's Metaspace decoder returns: in the first token every
    ``replacement`` is deleted unless the scheme is ``never``; everywhere else each
    ``replacement`` becomes ``" "``."""
    return [
        token.replace(replacement, "" if i == 0 and prepend_scheme != "never" else " ")
        for i, token in enumerate(tokens)
    ]
