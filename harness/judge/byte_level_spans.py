"""Byte-level spans on both sides: what the offset contract gives the tokens of a
``ByteLevel`` pre-tokenized word (decision 0024), and what upstream's ``ByteLevel``
post-processor makes of spans with ``trim_offsets``.

**Our side** (:func:`byte_level_spans`, ``oc-byte-fallback-spans`` read for byte-level
symbols): every byte symbol of a token stands for one byte of one character, and a token's
span runs from the original span of the first character its bytes come from to the end of
the last one's. A word is judged only where its tokens' bytes spell the text exactly, word
after word from the start of each input (added tokens in between covering their own slice),
optionally after one space ``add_prefix_space`` inserted (it belongs to the character it
stands in front of): at the start of an input or right after an added token when ByteLevel
is the first step, in front of any word when a step before it made the pieces. Where a step
of the pre-tokenizer removes text (a ``Removed`` behaviour, ``Whitespace``,
``WhitespaceSplit``), where a word starts is not known from the text alone, and each word is
read from where our span says it starts. A word that does not spell the text (a
pre-tokenizer inserted a space, an unknown token) is not judged, and the next word is read
from where our span says it starts.

**Normalized text**: with a normalizer, and given how it aligns a text (``aligned``:
upstream's normalizer, whose per-character alignment decision 0025 makes the reference's),
words are read against the normalized text of each section between the added tokens
extracted before normalization (those with ``normalized: false``), each normalized
character on its original span; a normalized added token covers its normalized characters.

**Upstream's trimming** (:func:`upstream_trimmed_spans`, ``byte_level.rs``
``process_offsets``): a token's leading and trailing space symbols (``Ġ`` or whitespace) are
cut off its offsets, counted in characters; one leading space is kept on the first token of
an encoding (or one starting at 0) when ``add_prefix_space`` is set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.outcome import Encoded
from .upstream_decoders import SYMBOL_BYTES

Span = tuple[int, int]
#: One character of a (normalized) text and the original span it is aligned to.
Unit = tuple[str, Span]
#: How a normalizer aligns a text: its normalized characters with their spans in the text,
#: or None when that cannot be told.
Aligner = Callable[[str], list[Unit] | None]
#: Where an inserted space may start a word: at the start of an input or after an added
#: token, in front of any word, or nowhere.
Insertion = Literal["start", "anywhere", "never"]
_SPACE_SYMBOL = "\u0120"
#: Pre-tokenizers that remove text (with ``behavior`` Removed for Split and Punctuation).
_REMOVING = ("Whitespace", "WhitespaceSplit")


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


def _removes(step: dict[str, Any]) -> bool:
    behavior = step.get("behavior")
    if isinstance(behavior, dict) and len(behavior) == 1:
        behavior = next(iter(behavior))
    return step.get("type") in _REMOVING or (
        step.get("type") in ("Split", "Punctuation") and behavior == "Removed")


@dataclass(frozen=True)
class _Reading:
    """How the words of a document's inputs are read."""

    insertion: Insertion
    #: Whether each word is read from where our span says it starts (text was removed).
    anchored: bool
    #: Contents of the added tokens matched before normalization / after it.
    raw: frozenset[str]
    normalized: frozenset[str]
    #: Byte-level tokens (their symbols stand for bytes), or tokens that spell their
    #: characters (with the model's decoration, and ``<0xXX>`` pieces for bytes).
    symbols: bool = True
    #: What an insertion adds: ByteLevel's space, or Metaspace's replacement (which also
    #: stands for every space of the text).
    inserted: str = " "
    prefix: str = ""
    suffix: str = ""
    unk: str | None = None

    def is_raw(self, token: str) -> bool:
        """An added token matched before normalization (its string holds the whitespace
        ``lstrip``/``rstrip`` took with it)."""
        content = token if token in self.raw else token.strip()
        return content in self.raw and content not in self.normalized

    def chunk(self, token: str, index: int, count: int) -> bytes | None:
        """The bytes of the text the ``index``-th of ``count`` tokens of a word stands for;
        None when it does not say (an unknown token, a byte piece under a decoration).
        The model's decoration is taken off first, over byte-level symbols too."""
        if token == self.unk:
            return None
        if _BYTE_PIECES.fullmatch(token):
            return None if self.prefix or self.suffix else bytes(
                int(value, 16) for value in _BYTE_PIECE.findall(token))
        if index > 0 and self.prefix and token.startswith(self.prefix):
            token = token[len(self.prefix):]
        if index == count - 1 and self.suffix and token.endswith(self.suffix):
            token = token[:-len(self.suffix)]
        if self.symbols:
            return _token_bytes(token)
        return token.encode("utf-8")


_BYTE_PIECE = re.compile(r"<0x([0-9A-F]{2})>")
_BYTE_PIECES = re.compile(r"(?:<0x[0-9A-F]{2}>)+")


def _reading(document: dict[str, Any], plain: bool = False) -> _Reading | None:
    """None without a ByteLevel pre-tokenizer (unless ``plain``), else how its words are
    read."""
    steps = list(_steps(document.get("pre_tokenizer"), "pretokenizers"))
    kinds = [step.get("type") for step in steps]
    entries = [e for e in document.get("added_tokens") or () if isinstance(e, dict)
               and isinstance(e.get("content"), str)]
    raw = frozenset(e["content"] for e in entries if e.get("normalized") is not True)
    normalized = frozenset(e["content"] for e in entries if e.get("normalized") is True)
    if "ByteLevel" not in kinds:
        if not plain:
            return None
        metaspace = any(step.get("type") == "Metaspace" for step in steps)
        prefix, suffix, unk = _decoration(document)
        return _Reading("anywhere" if metaspace else "never", True, raw, normalized,
                        symbols=False, inserted=_METASPACE if metaspace else " ",
                        prefix=prefix, suffix=suffix, unk=unk)
    inserting = [i for i, step in enumerate(steps)
                 if step.get("type") == "ByteLevel" and step.get("add_prefix_space") is True]
    insertion: Insertion = ("never" if not inserting else "start" if inserting[0] == 0
                            else "anywhere")
    prefix, suffix, unk = _decoration(document)
    return _Reading(insertion, any(_removes(step) for step in steps), raw, normalized,
                    prefix=prefix, suffix=suffix, unk=unk)


def _decoration(document: dict[str, Any]) -> tuple[str, str, str | None]:
    """The model's continuing-subword prefix and end-of-word suffix ("" when absent), and
    its unknown token."""
    model = document.get("model") if isinstance(document.get("model"), dict) else {}
    assert isinstance(model, dict)
    prefix, suffix = (value if isinstance(value, str) else "" for value in (
        model.get("continuing_subword_prefix"), model.get("end_of_word_suffix")))
    unk = model.get("unk_token")
    return prefix, suffix, unk if isinstance(unk, str) else None


_METASPACE = "\u2581"


def _token_bytes(token: str) -> bytes | None:
    try:
        return bytes([SYMBOL_BYTES[char] for char in token])
    except KeyError:
        return None


@dataclass
class _Section:
    """The (normalized) characters of one section of an input, and the reading cursor."""

    units: list[Unit]
    at: int | None = 0

    def anchors(self, start: int) -> list[int]:
        """The characters aligned to start at original ``start`` (several where a
        normalizer expanded or inserted), those from the cursor on first."""
        found = [k for k, (_, span) in enumerate(self.units) if span[0] == start]
        after = self.at or 0
        return [k for k in found if k >= after] + [k for k in found if k < after]


def byte_level_spans(enc: Encoded, texts: Sequence[str], document: dict[str, Any],
                     aligned: Aligner | None = None, *, plain: bool = False
                     ) -> dict[int, Span]:
    """The contract's span of every judged position (model tokens of judged words, added
    tokens whose slice of the text is their content); empty without a ByteLevel
    pre-tokenizer or word ids. ``aligned`` reads normalized words (without it, a
    normalizer's changes leave the words they touch unjudged). ``plain``: without a
    ByteLevel pre-tokenizer, the words whose tokens spell their characters (the model's
    decoration taken off, ``<0xXX>`` pieces read as their bytes, a Metaspace replacement as
    a space or inserted in front of a word), each read from where our span says it
    starts."""
    reading = _reading(document, plain)
    if reading is None or not enc.model_word_ids:
        return {}
    reader = _Reader(enc, reading, aligned if document.get("normalizer") is not None
                     else None)
    sections: dict[int | None, _Section | None] = {}
    position = 0
    while position < len(enc.ids):
        sequence = enc.sequence_ids[position] if position < len(enc.sequence_ids) else 0
        text = texts[1] if sequence == 1 and len(texts) > 1 else texts[0]
        if sequence not in sections:
            sections[sequence] = reader.section(position, text, 0)
        section = sections[sequence]
        if enc.model_word_ids[position] is None:
            if enc.special_mask[position] == 0:  # an added token found in the text
                sections[sequence] = reader.added(position, text, section)
            position += 1
            continue
        word = _word_positions(enc, position)
        if section is not None:
            reader.word(word, section)
        position = word[-1] + 1
    return reader.judged


@dataclass
class _Reader:
    """Reads one encoding's words: ``aligned`` is None when the text is read as it is."""

    enc: Encoded
    reading: _Reading
    aligned: Aligner | None
    judged: dict[int, Span] = field(default_factory=dict)

    def section(self, position: int, text: str, start: int) -> _Section | None:
        """The section of ``text`` from ``start`` to the next added token matched before
        normalization (found in our encoding from ``position`` on, fitting the text), its
        characters normalized (as they are where the alignment is not known); None when its
        end cannot be told. Without a normalizer, the whole text, read from ``start``."""
        if self.aligned is None:
            return _Section(self._replaced([(char, (i, i + 1)) for i, char in enumerate(text)]),
                            start)
        enc = self.enc
        end = len(text)
        sequence = _sequence(enc, position)
        for i in range(position, len(enc.ids)):
            if _sequence(enc, i) != sequence:
                break
            if enc.model_word_ids[i] is None and enc.special_mask[i] == 0 and (
                    self.reading.is_raw(enc.tokens[i])):
                token_start, token_end = enc.spans[i]
                if text[token_start:token_end] != enc.tokens[i] or token_start < start:
                    return None
                end = token_start
                break
        units = self.aligned(text[start:end])
        if units is None:  # not known (no tokenizers): the text itself, as without ``aligned``
            units = [(char, (i, i + 1)) for i, char in enumerate(text[start:end])]
        return _Section(self._replaced([(char, (a + start, b + start))
                                        for char, (a, b) in units]))

    def _replaced(self, units: list[Unit]) -> list[Unit]:
        """Spaces as Metaspace's replacement, where a Metaspace step makes them so."""
        mark = self.reading.inserted
        if self.reading.symbols or mark == " ":
            return units
        return [(mark if char == " " else char, span) for char, span in units]

    def added(self, position: int, text: str, section: _Section | None) -> _Section | None:
        """Read the added token at ``position``; the section the reading goes on in."""
        token = self.enc.tokens[position]
        start, end = self.enc.spans[position]
        if self.aligned is None:  # the text itself: the token covers its own slice
            at = None if section is None else section.at
            # At the cursor or past it: a character the lenient reference drops before the
            # token leaves no trace in the cursor.
            fits = (at is None or at <= start) and text[start:end] == token
            if section is not None:
                section.at = end if fits else None
            if fits:
                self.judged[position] = (start, end)
            return section
        if self.reading.is_raw(token):
            if text[start:end] != token:
                return None  # where the next section starts is not known: stop reading
            self.judged[position] = (start, end)
            return self.section(position + 1, text, end)
        if section is None or section.at is None:
            return section
        at = section.at
        chars = section.units[at:at + len(token)]
        if not chars or "".join(char for char, _ in chars) != token:
            section.at = None
            return section
        self.judged[position] = (chars[0][1][0], chars[-1][1][1])
        section.at = at + len(token)
        return section

    def word(self, word: list[int], section: _Section) -> None:
        """Read one word from the section's cursor (or from where ours says it starts).
        Tokens that spell their characters are read one by one, each from where ours says
        it starts (an unknown token between them, or a character the lenient reference
        drops, leaves no trace in the others)."""
        if self.reading.symbols:
            self.run(word, section)
            return
        for k, i in enumerate(word):
            if self.reading.chunk(self.enc.tokens[i], k, len(word)) is not None:
                self.run([i], section, (k, len(word)))
            elif k == len(word) - 1:
                # The word ends in tokens not read (say the byte pieces of a decorated
                # symbol): where the next token starts is not known from the reading.
                section.at = None

    def run(self, word: list[int], section: _Section,
            where: tuple[int, int] | None = None) -> None:
        """Read consecutive tokens of one word: ``where`` is the first one's index in the
        word and the word's length (the whole word by default)."""
        enc = self.enc
        first = word[0]
        after_added = first > 0 and enc.model_word_ids[first - 1] is None and (
            enc.special_mask[first - 1] == 0)
        starts: list[int] = [] if section.at is None else [section.at]
        if section.at is None or self.reading.anchored:  # where ours says it starts
            starts = section.anchors(enc.spans[first][0])
        insertion = self.reading.insertion
        found = None
        for at in starts:
            inserted = (insertion == "anywhere" and (where is None or where[0] == 0)) or (
                insertion == "start" and (at == 0 or after_added))
            found = _word_spans(enc, word, section.units, at, inserted, reading=self.reading,
                                where=where or (0, len(word)))
            if found is not None:
                break
        if found is None:
            section.at = None
        else:
            self.judged.update(found[0])
            section.at = found[1]


def _word_positions(enc: Encoded, first: int) -> list[int]:
    key = (enc.sequence_ids[first] if first < len(enc.sequence_ids) else 0,
           enc.model_word_ids[first])
    positions = [first]
    while positions[-1] + 1 < len(enc.ids):
        nxt = positions[-1] + 1
        if (enc.sequence_ids[nxt] if nxt < len(enc.sequence_ids) else 0,
                enc.model_word_ids[nxt]) != key:
            break
        positions.append(nxt)
    return positions


def _word_spans(enc: Encoded, word: list[int], units: list[Unit], start: int,
                prefix_allowed: bool, *, reading: _Reading, where: tuple[int, int]
                ) -> tuple[dict[int, Span], int] | None:
    """Each position of the word at the span of the characters its bytes come from, the
    word starting at character ``start`` of ``units``, and where the next word starts; None
    when its bytes do not spell the characters there. (A word may be the inserted space
    alone: with ``use_regex``, ``" \\tx"`` splits into ``" "``, ``"\\t"``, ``"x"``.)"""
    index, count = where
    chunks = [reading.chunk(enc.tokens[i], index + k, count) for k, i in enumerate(word)]
    if any(chunk is None for chunk in chunks):
        return None
    data = b"".join(chunk for chunk in chunks if chunk is not None)
    inserted = 0
    if not _spells(data, units, start):
        mark = reading.inserted.encode("utf-8")
        inserted = len(mark)
        if not (prefix_allowed and data.startswith(mark) and units[start:start + 1] != []
                and units[start][0] != reading.inserted
                and (data == mark or _spells(data[inserted:], units, start))):
            return None
    # The character of each byte: the inserted space is the first character's.
    owner = [start] * inserted
    consumed = start
    while len(owner) < len(data) and consumed < len(units):
        owner.extend([consumed] * len(units[consumed][0].encode("utf-8")))
        consumed += 1
    spans: dict[int, Span] = {}
    offset = 0
    for i, chunk in zip(word, chunks, strict=True):
        assert chunk is not None
        if not chunk:
            return None
        first, last = owner[offset], owner[offset + len(chunk) - 1]
        spans[i] = (units[first][1][0], units[last][1][1])
        offset += len(chunk)
    return spans, consumed


def _spells(data: bytes, units: list[Unit], start: int) -> bool:
    """``data`` is the UTF-8 of whole characters of ``units`` from ``start`` on."""
    try:
        chars = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    ahead = "".join(char for char, _ in units[start:start + len(chars)])
    return bool(chars) and ahead == chars


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
