"""Models of upstream's (tokenizers 0.23.1) decoder steps where the reference departs from
it on purpose: ``Strip``, which panics on some tokens (decision 0010), and ``Metaspace``,
which the reference does not apply (decision 0002). The judge's own, independent of the
code it judges; measured against upstream in ``tests/test_decoders.py``."""

from __future__ import annotations

from typing import Literal

PrependScheme = Literal["always", "first", "never"]


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
