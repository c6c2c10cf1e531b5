"""Added tokens: upstream's id assignment, and leftmost-longest matching with
``lstrip``/``rstrip``/``single_word``, on the original text (``normalized: false``) or on
each normalized piece (``normalized: true``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import regex  # type: ignore[import-untyped, unused-ignore]

from .char_classes import RUST_WORD_ITEMS, WHITE_SPACE
from .errors import LoadError, excerpt
from .jsonfields import Node

#: Rust regex's Unicode ``\w``, which upstream's ``single_word`` tests (the Whitespace
#: pre-tokenizer's class, ``char_classes.RUST_WORD_ITEMS``): measured equal to upstream on
#: every code point (tests/exhaustive/test_word_chars_every_code_point.py). Python's
#: ``unicodedata`` (14.0 in 3.11) would miss the letters Unicode added since.
_WORD_CHAR = regex.compile(f"[{RUST_WORD_ITEMS}]")


def is_word_char(c: str) -> bool:
    """A word character for ``single_word``: Rust regex's Unicode ``\\w``."""
    return _WORD_CHAR.match(c) is not None


@dataclass(frozen=True, slots=True)
class AddedToken:
    content: str
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = True
    special: bool = False


@dataclass(frozen=True, slots=True)
class Match:
    """A piece of a text: ``token_id`` set for a matched added token, else None."""

    token_id: int | None
    start: int
    end: int


def added_tokens_from_json(root: Node) -> list[AddedToken]:
    """``$.added_tokens``: absent means none; present it must be an array (upstream
    refuses ``null``: "invalid type: null, expected a sequence")."""
    node = Node(root.obj().get("added_tokens", []), root.child_path("added_tokens"))
    tokens: list[AddedToken] = []
    for entry in node.elements():
        entry.field("id").u32()  # required, then ignored: upstream re-assigns ids
        tokens.append(
            AddedToken(
                content=entry.field("content").str_(),
                single_word=entry.field("single_word").bool_(),
                lstrip=entry.field("lstrip").bool_(),
                rstrip=entry.field("rstrip").bool_(),
                normalized=entry.field("normalized").bool_(),
                special=entry.field("special").bool_(),
            )
        )
    return tokens


class AddedVocabulary:
    """Upstream's ``AddedVocabulary``, built once from the file's ``added_tokens`` list."""

    def __init__(
        self,
        tokens: Iterable[AddedToken],
        *,
        model_token_to_id: Callable[[str], int | None],
        model_vocab_size: int,
        normalize: Callable[[str], str],
    ) -> None:
        self.content_to_id: dict[str, int] = {}
        self.id_to_added: dict[int, AddedToken] = {}
        self.special_contents: set[str] = set()
        self.normalized_form: dict[int, str] = {}
        next_id = model_vocab_size
        entry_of: dict[int, int] = {}  # id -> index of its (last) entry in added_tokens
        for index, token in enumerate(tokens):
            if not token.content:
                continue
            if token.content in self.content_to_id:
                new_id = self.content_to_id[token.content]
            else:
                model_id = model_token_to_id(token.content)
                if model_id is not None:
                    new_id = model_id
                else:
                    new_id = next_id
                    next_id += 1
            if token.normalized:
                normed = normalize(token.content)
                if normed != token.content:
                    # Like upstream's normalized_cache: only ever inserted, never evicted.
                    self.normalized_form[new_id] = normed
            self.content_to_id[token.content] = new_id
            if token.special:
                self.special_contents.add(token.content)
            self.id_to_added[new_id] = token
            entry_of[new_id] = index
        # The two matchers: pattern -> id, for raw and for normalized tokens.
        self._raw: dict[str, int] = {}
        self._normalized: dict[str, int] = {}
        for token_id, token in self.id_to_added.items():
            if token.normalized:
                form = self.normalized_form.get(token_id, token.content)
                if not form:
                    raise LoadError(
                        "invalid-value", f"$.added_tokens[{entry_of[token_id]}].content",
                        f"added token {excerpt(token.content)} is normalized to the empty "
                        "string, which matches nowhere (upstream refuses to load: "
                        "InvalidArgumentError: pattern.len() must be >= 1)")
                other = self._normalized.get(form)
                if other is not None and other != token_id:
                    raise LoadError(
                        "invalid-value", f"$.added_tokens[{entry_of[token_id]}].content",
                        f"added tokens {excerpt(self.id_to_added[other].content)} and "
                        f"{excerpt(token.content)} are both normalized to "
                        f"{excerpt(form)}: one pattern for two ids (upstream refuses to "
                        "load: DuplicatePatternError)")
                self._normalized[form] = token_id
            else:
                self._raw[token.content] = token_id
        self._raw_trie = _trie(self._raw)
        self._normalized_trie = _trie(self._normalized)

    def id_to_token(self, token_id: int) -> str | None:
        """Upstream 0.23's ``simple_id_to_token``: the normalized form when it differs."""
        token = self.id_to_added.get(token_id)
        if token is None:
            return None
        return self.normalized_form.get(token_id, token.content)

    def is_special(self, token: str) -> bool:
        return token in self.special_contents

    def split_raw(self, text: str) -> list[Match]:
        return self._split(text, self._raw, self._raw_trie)

    def split_normalized(self, text: str) -> list[Match]:
        return self._split(text, self._normalized, self._normalized_trie)

    def _split(self, text: str, patterns: dict[str, int], trie: Trie) -> list[Match]:
        if not patterns or not text:
            return [Match(None, 0, len(text))]
        out: list[Match] = []
        consumed = 0  # upstream's start_offset: the end of the last accepted match
        i = 0
        n = len(text)
        while i < n:
            if text[i] not in trie:
                i += 1  # no pattern starts with this character
                continue
            found = _longest_at(text, i, trie)
            if found is None:
                i += 1
                continue
            start, stop = i, i + len(found)
            token_id = patterns[found]
            i = stop  # leftmost-longest iteration resumes after every match, kept or not
            token = self.id_to_added[token_id]
            if token.single_word:
                start_ok = start == 0 or not is_word_char(text[start - 1])
                stop_ok = stop == n or not is_word_char(text[stop])
                if not (start_ok and stop_ok):
                    continue
            if token.lstrip:
                new_start = start
                while new_start > 0 and text[new_start - 1] in WHITE_SPACE:
                    new_start -= 1
                start = max(new_start, consumed)
            if token.rstrip:
                while stop < n and text[stop] in WHITE_SPACE:
                    stop += 1
            if consumed < start:
                out.append(Match(None, consumed, start))
            out.append(Match(token_id, start, stop))
            consumed = stop
        if consumed != n:
            out.append(Match(None, consumed, n))
        return out


#: A prefix tree of patterns: character -> subtree; ``_END`` (a key no character equals)
#: holds the pattern that ends at a node.
Trie = dict[str, Any]
_END = ""


def _trie(patterns: dict[str, int]) -> Trie:
    """The patterns as a prefix tree. No pattern is empty: the loader skips an empty
    content and refuses an empty normalized form."""
    root: Trie = {}
    for pattern in patterns:
        node = root
        for char in pattern:
            node = node.setdefault(char, {})
        node[_END] = pattern
    return root


def _longest_at(text: str, i: int, trie: Trie) -> str | None:
    """The longest pattern that ``text`` holds at ``i`` (one walk down the tree)."""
    found: str | None = None
    node: Trie = trie
    for j in range(i, len(text)):
        child: Trie | None = node.get(text[j])
        if child is None:
            break
        node = child
        found = node.get(_END, found)
    return found
