"""Typed errors of the reference tokenizer.

Every refusal names a stable ``rule`` identifier (matched by tools, never the
message) and the JSON ``path`` of the offending value (``$.model.vocab``...).
"""

from __future__ import annotations

from collections.abc import Iterable

#: At most this many characters of a value are quoted in a message.
EXCERPT_CHARS = 80
#: A path longer than this keeps its beginning and its end around an ellipsis.
PATH_CHARS = 300
_INTEGER_DIGITS = 18


def excerpt(value: object) -> str:
    """A bounded quotation of ``value`` for an error message.

    A string of at most ``EXCERPT_CHARS`` characters is its ``repr``; a longer one (or one
    whose ``repr`` is long) is cut, with an ellipsis and its length:
    ``'aaaa…' (50000000 characters)``. Integers beyond 18 digits are described by their
    size, ``<16610-bit integer>`` (``str()`` of a 5,000-digit integer raises ValueError);
    containers and other objects by their type and length, never by their contents.
    """
    if isinstance(value, str):
        return _quote(value)
    if value is None or isinstance(value, bool | float):
        return repr(value)
    if isinstance(value, int):
        return _integer(value)
    if isinstance(value, bytes | bytearray | memoryview):
        raw = bytes(value[: EXCERPT_CHARS + 1])
        if len(value) <= EXCERPT_CHARS:
            return repr(raw)
        text = repr(raw[:EXCERPT_CHARS])
        return f"{text[:-1]}…{text[-1]} ({len(value)} bytes)"
    if isinstance(value, list | tuple):
        return f"an array of {len(value)} element(s)"
    if isinstance(value, dict):
        return f"an object of {len(value)} key(s)"
    return f"a {type(value).__name__}"


def clip(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text`` itself (unquoted) when short, else its first ``limit`` characters, an
    ellipsis and the length: for messages that spell a value like upstream does."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def excerpt_keys(keys: Iterable[object], limit: int = 5) -> str:
    """A bounded list of object keys: ``['a', 'b']``, or the first ``limit`` and a count."""
    keys = list(keys)
    shown = ", ".join(excerpt(k) for k in keys[:limit])
    more = f", … ({len(keys)} keys)" if len(keys) > limit else ""
    return f"[{shown}{more}]"


def bounded_path(path: str) -> str:
    """``path`` itself, or, past ``PATH_CHARS`` characters, its beginning and its end around
    an ellipsis (the root ``$...`` and the offending leaf both stay readable)."""
    if len(path) <= PATH_CHARS:
        return path
    half = (PATH_CHARS - 1) // 2
    return f"{path[:half]}…{path[-half:]}"


def excerpt_file(name: str, limit: int = EXCERPT_CHARS) -> str:
    """A file name quoted for a message: itself when short, else its beginning and its end
    around an ellipsis, so the file's own name stays readable in a long folder path."""
    if len(name) <= limit:
        return repr(name)
    half = (limit - 1) // 2
    return f"{name[:half]!r}…{name[-half:]!r} ({len(name)} characters)"


def _quote(text: str) -> str:
    if len(text) <= EXCERPT_CHARS:
        quoted = repr(text)
        if len(quoted) <= 2 * EXCERPT_CHARS:
            return quoted
    cut = text[:EXCERPT_CHARS]
    quoted = repr(cut)
    while len(quoted) > 2 * EXCERPT_CHARS:  # escapes (\U0010ffff) make a repr long
        cut = cut[: len(cut) // 2]
        quoted = repr(cut)
    return f"{quoted[:-1]}…{quoted[-1]} ({len(text)} characters)"


def _integer(value: int) -> str:
    if -(10**_INTEGER_DIGITS) < value < 10**_INTEGER_DIGITS:
        return str(value)
    sign = "negative " if value < 0 else ""
    return f"<{sign}{value.bit_length()}-bit integer>"


class TokenizerError(Exception):
    """Base class of every error the reference raises on purpose.

    ``message`` quotes values only through :func:`excerpt`/:func:`clip`, so it stays short
    whatever the input; ``path`` is bounded by :func:`bounded_path`.
    """

    def __init__(self, rule: str, path: str, message: str) -> None:
        path = bounded_path(path)
        self.rule = rule
        self.path = path
        self.message = message
        super().__init__(f"[{rule}] at {path}: {message}")

    def __reduce__(self) -> tuple[type[TokenizerError], tuple[str, str, str]]:
        return (type(self), (self.rule, self.path, self.message))


class LoadError(TokenizerError):
    """A tokenizer.json the reference refuses to load.

    ``rule`` is one of the ids listed in ``implementation.rules.LOAD_RULES``.
    """


class EncodeError(TokenizerError):
    """An input the loaded tokenizer cannot encode, with the rule that stops it:
    ``character-dropped`` (strict mode: upstream would silently drop a character) or
    ``unk-token-missing-at-encode`` (lenient mode: upstream raises the same way)."""


class DecodeError(TokenizerError):
    """Ids the reference refuses to decode (an id outside the vocabulary)."""
