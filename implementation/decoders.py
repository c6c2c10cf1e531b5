"""Decoders: ``ByteFallback``, ``Fuse``, ``Strip``, ``Replace``, ``Metaspace``, ``Sequence``.

A decoder maps the list of token strings to a list of strings (``decode_chain``);
the tokenizer joins the final list with ``""``. Every behaviour below was
measured against tokenizers 0.23.1 (see ``tests/test_decoders.py``).

Where this module deliberately departs from upstream:

* ``Metaspace`` is parsed and validated like upstream but its ``decode_chain`` is
  the identity (decision-byte-fallback, rule 2: "accepted and not applied, and
  Decode returns the escaped text"). What upstream would produce is available as
  :func:`metaspace_decode_upstream`, for the harness only.
* ``Strip`` never panics: where upstream panics (see :func:`strip_would_panic`)
  the token decodes to ``""`` (see :func:`strip_token`).
* A ``Replace`` ``Regex`` pattern is Oniguruma syntax upstream; only the subset
  that Python's ``re`` expresses identically is accepted (see
  :func:`translate_oniguruma`), the rest is refused as ``unsupported-component``.
* A decoder object without ``"type"`` is refused (``missing-field``); upstream's
  legacy untagged fallback accepts a type-less ``Strip`` or ``Replace``.
* When the model declares ``byte_fallback`` and the load is strict, only the
  two shapes of decision-byte-fallback rule 2 load (:func:`decoder_from_json`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

from .jsonfields import Node

REPLACEMENT_CHARACTER = "\ufffd"

#: Decoder types upstream 0.23.1 knows but this reference does not reproduce.
UPSTREAM_ONLY_TYPES = frozenset({"BPEDecoder", "ByteLevel", "WordPiece", "CTC"})

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
    Upstream panics in two cases (:func:`strip_would_panic`), both only reachable
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


def strip_would_panic(token: str, content: str, start: int, stop: int) -> bool:
    """True where upstream's ``Strip`` panics on ``token`` (for the harness).

    The trailing scan indexes ``len - i - 1`` for ``i < stop`` until it meets a
    non-``content`` character, so it underflows when the token is all
    ``content`` and ``stop > len``; otherwise the slice panics when the leading
    cut passes the trailing one.
    """
    if stop > len(token) and all(char == content for char in token):
        return True
    return _leading_cut(token, content, start) > _trailing_cut(token, content, stop)


@dataclass(frozen=True, slots=True)
class Strip:
    """``{"type": "Strip", "content": c, "start": n, "stop": m}``, applied to each token."""

    content: str
    start: int
    stop: int

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [strip_token(t, self.content, self.start, self.stop) for t in tokens]


# ---------------------------------------------------------------------------
# Replace: patterns (shared shape with the Replace normalizer)
# ---------------------------------------------------------------------------


class UnsupportedRegexError(Exception):
    """An Oniguruma construct this reference cannot express identically with ``re``."""


#: Oniguruma's Unicode ``\\s`` (measured over every code point): Python's ``\\s``
#: also takes U+001C..U+001F, so ``\\s`` is spelled out as this class body.
_WHITESPACE_CLASS = r"\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"

_CONTROL_ESCAPES = {
    "t": "\t", "n": "\n", "r": "\r", "f": "\f", "v": "\x0b", "a": "\x07", "e": "\x1b",
}
_ANCHOR_ESCAPES = {"A": r"\A", "z": r"\Z", "Z": r"(?=\n?\Z)"}
_GROUP_OPENERS = {"(?:": "(?:", "(?=": "(?=", "(?!": "(?!", "(?<=": "(?<=", "(?<!": "(?<!"}
_LOOKAROUNDS = frozenset({"(?=", "(?!", "(?<=", "(?<!"})
_INTERVAL = re.compile(r"\{([0-9]*)(,?)([0-9]*)\}")
_MAX_REPEAT = 100_000  # ONIG_MAX_REPEAT_NUM
_QUANTIFIER_STARTS = frozenset("*+?{")


def _is_ascii_punctuation(char: str) -> bool:
    return char.isascii() and char.isprintable() and not char.isalnum()


@dataclass(slots=True)
class _GroupFrame:
    """An open group while translating, and what Oniguruma lets be repeated after it.

    Oniguruma refuses to repeat an anchor or look-around, and a non-capturing
    group one of whose alternatives is exactly one such element (``(?:^)*``,
    ``(?:a|^)*``); a capturing group is always repeatable (``(^)*``).
    """

    kind: Literal["top", "capture", "group", "look"]
    elements: int = 0  # elements in the current alternative
    sole_is_anchor: bool = False  # the current alternative is exactly one anchor-like element
    anchor_alternative: bool = False  # a finished alternative was exactly one anchor-like element

    def add(self, *, anchor_like: bool) -> None:
        self.elements += 1
        self.sole_is_anchor = anchor_like and self.elements == 1

    def next_alternative(self) -> None:
        self.anchor_alternative |= self.elements == 1 and self.sole_is_anchor
        self.elements = 0
        self.sole_is_anchor = False

    def close(self) -> bool:
        """Ends the group; True if it is anchor-like (not repeatable)."""
        self.next_alternative()
        return self.kind == "look" or (self.kind == "group" and self.anchor_alternative)


_ElementKind = Literal["atom", "anchor", "syntax"]

#: Oniguruma's ``^``: at the start, or after a newline that does not end the text.
_LINE_START = r"(?:\A|(?<=\n)(?!\Z))"


class _OnigTranslator:
    """Translates the Oniguruma (Ruby syntax) subset that ``re`` matches identically.

    Accepted: literals; ``.``; ``^`` (after a newline only if more text
    follows) and ``$`` (before any newline); ``|``; groups ``(``, ``(?:``, and
    look-arounds; ``*``, ``+``, ``?``, ``{n}``, ``{n,}``, ``{n,m}``, ``{,m}``
    with an optional lazy ``?`` (not after ``{n}``: Oniguruma reads ``x{n}?``
    as ``(?:x{n})?``); escapes ``\\t \\n \\r \\f \\v \\a \\e \\xHH \\uHHHH
    \\s \\S \\A \\z \\Z`` and escaped ASCII punctuation; classes ``[...]``,
    ``[^...]`` of characters, ranges and ``\\s``. Everything else (``\\d``,
    ``\\w``, ``\\b`` whose Unicode tables differ, inline options,
    possessive/stacked quantifiers, named or atomic groups, back-references,
    ``\\p{..}``, POSIX brackets, nested classes and ``&&``...) raises
    :class:`UnsupportedRegexError`, as does every repetition Oniguruma refuses.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.out: list[str] = []
        self.frames: list[_GroupFrame] = [_GroupFrame("top")]
        self.quantifiable = False

    def translate(self) -> str:
        while self.pos < len(self.pattern):
            self._step()
        if len(self.frames) > 1:
            raise UnsupportedRegexError("unbalanced '('")
        return "".join(self.out)

    # -- top level ------------------------------------------------------------
    def _step(self) -> None:
        char = self.pattern[self.pos]
        if char in _QUANTIFIER_STARTS:
            self._quantifier()
        elif char == "\\":
            self._escape()
        elif char == "[":
            self._emit(self._char_class(), "atom")
        elif char == "(":
            self._open_group()
        elif char == ")":
            self._close_group()
        elif char == "|":
            self.pos += 1
            self.frames[-1].next_alternative()
            self._emit("|", "syntax")
        elif char in "^$":
            self.pos += 1
            self._emit(_LINE_START if char == "^" else "(?m:$)", "anchor")
        else:
            self.pos += 1
            self._emit("." if char == "." else re.escape(char), "atom")

    def _emit(self, text: str, kind: _ElementKind) -> None:
        self.out.append(text)
        if kind != "syntax":
            self.frames[-1].add(anchor_like=kind == "anchor")
        self.quantifiable = kind == "atom"

    def _open_group(self) -> None:
        opener = next((o for o in _GROUP_OPENERS if self.pattern.startswith(o, self.pos)), None)
        if opener is None and self.pattern.startswith("(?", self.pos):
            raise UnsupportedRegexError(f"group construct at offset {self.pos}")
        self.pos += len(opener) if opener else 1
        kind: Literal["capture", "group", "look"] = (
            "capture" if opener is None else "look" if opener in _LOOKAROUNDS else "group"
        )
        self.frames.append(_GroupFrame(kind))
        self._emit(_GROUP_OPENERS[opener] if opener else "(?:", "syntax")

    def _close_group(self) -> None:
        if len(self.frames) == 1:
            raise UnsupportedRegexError("unbalanced ')'")
        self.pos += 1
        anchor_like = self.frames.pop().close()
        self._emit(")", "anchor" if anchor_like else "atom")

    # -- quantifiers ----------------------------------------------------------
    def _quantifier(self) -> None:
        if not self.quantifiable:
            at = self.pos
            raise UnsupportedRegexError(f"quantifier without a repeatable target at offset {at}")
        text, exact = self._quantifier_body()
        if self.pattern.startswith("?", self.pos):
            if exact:
                raise UnsupportedRegexError("'{n}?' (Oniguruma: optional exact repeat, re: lazy)")
            self.pos += 1
            text += "?"
        if self.pos < len(self.pattern) and self.pattern[self.pos] in _QUANTIFIER_STARTS:
            raise UnsupportedRegexError(f"stacked or possessive quantifier at offset {self.pos}")
        self.out.append(text)
        self.quantifiable = False

    def _quantifier_body(self) -> tuple[str, bool]:
        char = self.pattern[self.pos]
        if char != "{":
            self.pos += 1
            return char, False
        match = _INTERVAL.match(self.pattern, self.pos)
        if match is None or not (match.group(1) or match.group(3)):
            raise UnsupportedRegexError(f"'{{' that is not an interval at offset {self.pos}")
        low, comma, high = match.groups()
        self._check_interval(low, high)
        self.pos = match.end()
        if not comma:
            return f"{{{low}}}", True
        return f"{{{low or 0},{high}}}", False

    @staticmethod
    def _check_interval(low: str, high: str) -> None:
        numbers = [int(n) for n in (low, high) if n]
        if any(n > _MAX_REPEAT for n in numbers):
            raise UnsupportedRegexError("repeat count above 100000")
        if low and high and int(low) > int(high):
            raise UnsupportedRegexError(f"interval {{{low},{high}}} with min > max")

    # -- escapes --------------------------------------------------------------
    def _escape(self) -> None:
        letter = self._peek_escape_letter()
        if letter in _ANCHOR_ESCAPES:
            self.pos += 2
            self._emit(_ANCHOR_ESCAPES[letter], "anchor")
        elif letter == "s":
            self.pos += 2
            self._emit(f"[{_WHITESPACE_CLASS}]", "atom")
        elif letter == "S":
            self.pos += 2
            self._emit(f"[^{_WHITESPACE_CLASS}]", "atom")
        else:
            self._emit(re.escape(self._escaped_char()), "atom")

    def _peek_escape_letter(self) -> str:
        if self.pos + 1 >= len(self.pattern):
            raise UnsupportedRegexError("trailing backslash")
        return self.pattern[self.pos + 1]

    def _escaped_char(self) -> str:
        """A backslash escape standing for one character; advances past it."""
        letter = self._peek_escape_letter()
        if letter in _CONTROL_ESCAPES:
            self.pos += 2
            return _CONTROL_ESCAPES[letter]
        if letter in "xu":
            return self._hex_escape(4 if letter == "u" else 2)
        if _is_ascii_punctuation(letter):
            self.pos += 2
            return letter
        raise UnsupportedRegexError(f"escape '\\{letter}'")

    def _hex_escape(self, width: int) -> str:
        digits = self.pattern[self.pos + 2 : self.pos + 2 + width]
        if len(digits) != width or any(c not in _HEX_DIGITS for c in digits):
            letter = self.pattern[self.pos + 1]
            raise UnsupportedRegexError(f"'\\{letter}' not followed by {width} hex digits")
        self.pos += 2 + width
        value = int(digits, 16)
        if 0xD800 <= value < 0xE000:
            raise UnsupportedRegexError("surrogate code point escape")
        return chr(value)

    # -- character classes ----------------------------------------------------
    def _char_class(self) -> str:
        self.pos += 1
        negate = self.pattern.startswith("^", self.pos)
        self.pos += int(negate)
        items: list[str] = []
        while True:
            if self.pos >= len(self.pattern):
                raise UnsupportedRegexError("unterminated character class")
            if self.pattern[self.pos] == "]":
                if not items:
                    raise UnsupportedRegexError("empty character class or leading ']'")
                self.pos += 1
                return "[" + ("^" if negate else "") + "".join(items) + "]"
            items.append(self._class_item(first=not items))

    def _class_item(self, *, first: bool) -> str:
        char = self.pattern[self.pos]
        if char == "[" or self.pattern.startswith("&&", self.pos):
            raise UnsupportedRegexError(f"nested class, POSIX bracket or '&&' at offset {self.pos}")
        if self.pattern.startswith("\\s", self.pos):
            self.pos += 2
            self._refuse_range_after("\\s")
            return _WHITESPACE_CLASS
        low, low_escaped = self._class_char()
        bare_dash = low == "-" and not low_escaped
        if bare_dash and not first and not self.pattern.startswith("]", self.pos):
            raise UnsupportedRegexError("'-' inside a class: neither first, last nor a range")
        if not self._at_range_dash():
            return re.escape(low)
        if bare_dash:
            raise UnsupportedRegexError("class range starting with '-'")
        self.pos += 1
        high, high_escaped = self._class_char()
        if (high == "-" and not high_escaped) or high < low:
            raise UnsupportedRegexError(f"class range {low!r}-{high!r}")
        self._refuse_range_after(f"{low}-{high}")
        return f"{re.escape(low)}-{re.escape(high)}"

    def _at_range_dash(self) -> bool:
        at_dash = self.pattern.startswith("-", self.pos)
        return at_dash and not self.pattern.startswith("-]", self.pos)

    def _refuse_range_after(self, what: str) -> None:
        if self._at_range_dash():
            raise UnsupportedRegexError(f"'-' after {what!r} inside a class")

    def _class_char(self) -> tuple[str, bool]:
        """One class character and whether it was written as an escape."""
        if self.pos >= len(self.pattern):
            raise UnsupportedRegexError("unterminated character class")
        char = self.pattern[self.pos]
        if char == "[":
            raise UnsupportedRegexError(f"nested class at offset {self.pos}")
        if char == "\\":
            return self._escaped_char(), True
        self.pos += 1
        return char, False


def translate_oniguruma(pattern: str) -> str:
    """Python ``re`` source matching exactly what Oniguruma (Ruby syntax) matches.

    Raises :class:`UnsupportedRegexError` for anything outside the supported subset,
    including a translation ``re`` cannot compile (e.g. a variable-width
    look-behind, which Oniguruma accepts).
    """
    translated = _OnigTranslator(pattern).translate()
    try:
        re.compile(translated)
    except re.error as exc:
        raise UnsupportedRegexError(f"not expressible with Python's re ({exc})") from exc
    return translated


def onig_find_iter(regex: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """The spans the ``onig`` crate's ``find_iter`` yields (character offsets).

    Unlike ``re.finditer``, an empty match ending where the previous match ended
    is skipped, and the search resumes one character later: ``x*`` over
    ``abxd`` matches at 0, 1, 2-3 and 4, not also at 3.
    """
    last_end = 0
    last_match_end: int | None = None
    while last_end <= len(text):
        match = regex.search(text, last_end)
        if match is None:
            return
        start, end = match.span()
        if start == end and last_match_end == end:
            last_end += 1
            continue
        last_end = last_match_end = end
        yield start, end


@dataclass(frozen=True, slots=True)
class ReplacePattern:
    """``{"String": s}`` (a literal) or ``{"Regex": r}`` (Oniguruma), compiled for ``re``."""

    kind: Literal["String", "Regex"]
    source: str
    regex: re.Pattern[str]

    def find_matches(self, text: str) -> list[tuple[int, int, bool]]:
        """Upstream's ``Pattern::find_matches``: contiguous ``(start, end, is_match)`` pieces.

        An empty ``text`` is one non-matching piece, even for a pattern matching
        the empty string.
        """
        if not text:
            return [(0, 0, False)]
        pieces: list[tuple[int, int, bool]] = []
        previous = 0
        for start, end in onig_find_iter(self.regex, text):
            if previous != start:
                pieces.append((previous, start, False))
            pieces.append((start, end, True))
            previous = end
        if previous != len(text):
            pieces.append((previous, len(text), False))
        return pieces

    def replace(self, text: str, content: str) -> str:
        return "".join(
            content if is_match else text[start:end]
            for start, end, is_match in self.find_matches(text)
        )


def parse_replace_pattern(node: Node) -> ReplacePattern:
    """``pattern`` of a Replace component: an object with exactly one of String, Regex."""
    keys = list(node.obj())
    if len(keys) != 1 or keys[0] not in ("String", "Regex"):
        node.fail("invalid-value", f"expected exactly one of 'String', 'Regex'; got keys {keys}")
    kind: Literal["String", "Regex"] = "String" if keys[0] == "String" else "Regex"
    source_node = node.field(kind)
    source = source_node.str_()
    if kind == "String":
        return ReplacePattern(kind, source, re.compile(re.escape(source)))
    try:
        translated = translate_oniguruma(source)
    except UnsupportedRegexError as exc:
        source_node.fail("unsupported-component", f"Replace regex {source!r}: {exc}")
    return ReplacePattern(kind, source, re.compile(translated))


@dataclass(frozen=True, slots=True)
class Replace:
    """``{"type": "Replace", "pattern": {...}, "content": s}``: each token rewritten on its own."""

    pattern: ReplacePattern
    content: str

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return [self.pattern.replace(token, self.content) for token in tokens]


# ---------------------------------------------------------------------------
# Metaspace
# ---------------------------------------------------------------------------

PrependScheme = Literal["always", "first", "never"]
_PREPEND_SCHEMES: tuple[PrependScheme, ...] = ("always", "first", "never")


@dataclass(frozen=True, slots=True)
class Metaspace:
    """``{"type": "Metaspace", ...}`` as a decoder: validated like upstream, applied as identity.

    Decision-byte-fallback rule 2: for a file without byte_fallback, a Metaspace
    decoder "is accepted and not applied, and Decode returns the escaped text".
    Upstream's behaviour is :func:`metaspace_decode_upstream`.
    """

    replacement: str
    prepend_scheme: PrependScheme
    split: bool

    def decode_chain(self, tokens: list[str]) -> list[str]:
        return list(tokens)


def metaspace_decode_upstream(
    tokens: list[str], replacement: str, prepend_scheme: PrependScheme
) -> list[str]:
    """What upstream's Metaspace decoder returns (not used by the reference's decode).

    In the first token every ``replacement`` is deleted unless the scheme is
    ``never``; everywhere else each ``replacement`` becomes ``" "``.
    """
    return [
        token.replace(replacement, "" if i == 0 and prepend_scheme != "never" else " ")
        for i, token in enumerate(tokens)
    ]


def _parse_prepend_scheme(node: Node) -> PrependScheme:
    obj = node.obj()
    if "prepend_scheme" not in obj:
        return "always"
    value = Node(obj["prepend_scheme"], node.child_path("prepend_scheme")).str_()
    for scheme in _PREPEND_SCHEMES:
        if value == scheme:
            return scheme
    return node.fail(
        "invalid-value", f"prepend_scheme {value!r} is not one of always, first, never",
        "prepend_scheme",
    )


def parse_metaspace(node: Node) -> Metaspace:
    """Upstream's Metaspace deserializer (shared by the pre-tokenizer and the decoder)."""
    replacement = node.field("replacement").char()
    scheme = _parse_prepend_scheme(node)
    split = node.optional_bool("split", default=True)
    node.optional_str("str_rep")  # ignored upstream, but must be a string when present
    add_prefix_space = node.field("add_prefix_space", required=False)
    if not add_prefix_space.is_null and not add_prefix_space.bool_() and scheme != "never":
        add_prefix_space.fail(
            "invalid-value", "add_prefix_space does not match declared prepend_scheme"
        )
    return Metaspace(replacement, scheme, split)


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
        node.fail("invalid-value", f"integer {value} does not fit an unsigned 64-bit integer")
    return value


def _parse_strip(node: Node) -> Strip:
    return Strip(
        content=node.field("content").char(),
        start=_parse_usize(node.field("start")),
        stop=_parse_usize(node.field("stop")),
    )


def _parse_replace(node: Node) -> Replace:
    pattern = parse_replace_pattern(node.field("pattern"))
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
        return parse_metaspace(node)
    if tag == "Sequence":
        return _parse_sequence(node)
    if tag in UPSTREAM_ONLY_TYPES:
        node.fail("unsupported-component", f"decoder type {tag!r} is not reproduced", "type")
    return node.fail("unsupported-component", f"unknown decoder type {tag!r}", "type")


_ACCEPTED_SHAPES = (
    "accepted when the model declares byte_fallback: a bare ByteFallback, or a Sequence of "
    "exactly [Replace, ByteFallback, Fuse, Strip]"
)


def _describe(tags: list[str]) -> str:
    return "[" + ", ".join(tags) + "]"


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
        node.fail("decoder-shape", f"found a bare {tag}; {_ACCEPTED_SHAPES}")
    steps_node = node.field("decoders")
    steps = list(steps_node.elements())
    tags = [step.type_tag() for step in steps]
    found = f"found Sequence {_describe(tags)}"
    for i, (tag_found, expected) in enumerate(zip(tags, BYTE_FALLBACK_CHAIN, strict=False)):
        if tag_found != expected:
            steps[i].fail("decoder-shape", f"{found}: step {i} is {tag_found} where "
                          f"{expected} is expected; {_ACCEPTED_SHAPES}")
    if len(tags) > len(BYTE_FALLBACK_CHAIN):
        extra = len(BYTE_FALLBACK_CHAIN)
        steps[extra].fail("decoder-shape", f"{found}: step {extra} ({tags[extra]}) is one too "
                          f"many; {_ACCEPTED_SHAPES}")
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
