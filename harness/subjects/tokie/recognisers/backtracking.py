"""tokie 0.1.4's backtracking encoder (``crates/tokie/src/encoder/backtracking.rs``), ported
for the recognisers beside this module (decision 0034).

tokie encodes a piece with GitHub's backtracking BPE: at each position the leftmost-longest
vocabulary match in the rest of the piece (Aho-Corasick, *anywhere* further on: a byte no
token covers takes the next token found), shortened through each token's longest proper
prefix match until it ends on a reachable position and ``is_valid_pair`` accepts it after
the previous token, else the previous token is taken back. ``is_valid_pair`` reads the
token *ids* as merge ranks (a merge's result id is its rank), which holds only where every
merge's result has a larger id than its parts. The tables are built as tokie builds them:
``token_bytes``, the Aho-Corasick patterns and the split table by position in the id-sorted
vocabulary, the merges' pair lookup by the file's ids (``model.py``).

Upstream has no such encoder: the recogniser that uses this port replays upstream on the
document as tokie reads it for everything around the encoder (normalizer, added tokens,
the pieces' bytes, ``uncovered.py``) and answers with this encoder on each piece.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ...transformers_js.recognisers.replay import model_of
from . import model

#: backtracking.rs MAX_CACHED_TOKEN_LEN: a piece this short that is a token is that token.
MAX_CACHED_TOKEN_LEN: Final = 16
#: No token (``u32::MAX``).
NO_TOKEN: Final = 2**32 - 1


class EndlessError(Exception):
    """``is_valid_pair`` does not end on these tables (tokie loops forever)."""


@dataclass
class Tables:
    """What ``BacktrackingBytePairEncoder::from_vocab_and_merges`` builds."""

    token_bytes: tuple[bytes, ...]
    #: Aho-Corasick patterns: bytes -> position (a duplicate's last position).
    patterns: dict[bytes, int]
    longest: int
    #: pack_pair(left id, right id) -> merged id.
    pair_lookup: dict[tuple[int, int], int]
    #: (left, right) per position; a token no merge creates splits into its own id.
    split_table: tuple[tuple[int, int], ...]
    #: The early exit: bytes -> the last position with those bytes (up to 16 bytes).
    token_cache: dict[bytes, int]
    #: next_prefix_match, computed as asked (a real vocabulary has 100,000s of tokens).
    prefixes: dict[int, int] = field(default_factory=dict)

    def next_prefix(self, token: int) -> int:
        """The leftmost-longest match in the token's bytes but its last (``NO_TOKEN``:
        none, or a token of one byte)."""
        found = self.prefixes.get(token)
        if found is None:
            own = self.token_bytes[token]
            match = _leftmost_longest(own[:-1], self.patterns, self.longest) \
                if len(own) > 1 else None
            found = match[2] if match is not None else NO_TOKEN
            self.prefixes[token] = found
        return found


def _leftmost_longest(text: bytes, patterns: dict[bytes, int], longest: int
                      ) -> tuple[int, int, int] | None:
    """(start, end, pattern) of the leftmost-longest match in ``text`` (None: no match)."""
    for begin in range(len(text)):
        for size in range(min(longest, len(text) - begin), 0, -1):
            found = patterns.get(text[begin:begin + size])
            if found is not None:
                return begin, begin + size, found
    return None


def _merge_ids(document: dict[str, Any]) -> list[tuple[int, int]]:
    """hf.rs: each merge's sides as the file's ids (a merge naming a missing token skipped)."""
    vocab = model_of(document).get("vocab") or {}
    out: list[tuple[int, int]] = []
    for merge in model_of(document).get("merges") or ():
        if isinstance(merge, list):
            sides = merge[:2] if len(merge) >= 2 else None
        elif isinstance(merge, str):
            parts = merge.split(" ")
            sides = parts[:2] if len(parts) >= 2 else None
        else:
            sides = None
        if sides is None or not all(isinstance(s, str) for s in sides):
            continue
        left, right = vocab.get(sides[0]), vocab.get(sides[1])
        if isinstance(left, int) and isinstance(right, int) and left >= 0 and right >= 0:
            out.append((left, right))
    return out


@model.per_document
def tables(document: dict[str, Any]) -> Tables | None:
    """The encoder's tables for ``document`` as tokie reads it (None where tokie's
    loader would panic building them: a merge side past the table)."""
    vocab = model_of(document).get("vocab") or {}
    order = model.positions(document)
    token_bytes = tuple(model.token_bytes(document, token) for token in order)
    ids = [vocab[token] if isinstance(vocab.get(token), int) and vocab[token] >= 0 else 0
           for token in order]
    bytes_to_id: dict[bytes, int] = {}
    for position, found in enumerate(token_bytes):
        bytes_to_id[found] = ids[position]
    pair_lookup: dict[tuple[int, int], int] = {}
    creates: dict[int, tuple[int, int]] = {}
    for left, right in _merge_ids(document):
        if left >= len(token_bytes) or right >= len(token_bytes):
            return None
        merged = bytes_to_id.get(token_bytes[left] + token_bytes[right])
        if merged is not None:
            pair_lookup[(left, right)] = merged
            creates.setdefault(merged, (left, right))
    split_table = tuple(creates.get(i, (i, i)) for i in ids)
    patterns: dict[bytes, int] = {}
    for position, found in enumerate(token_bytes):
        if found:
            patterns[found] = position
    longest = max((len(b) for b in patterns), default=0)
    cache: dict[bytes, int] = {}
    for position, found in enumerate(token_bytes):
        if len(found) <= MAX_CACHED_TOKEN_LEN:
            cache[found] = position
    return Tables(token_bytes, patterns, longest, pair_lookup, split_table, cache)


def is_valid_pair(t: Tables, token1: int, token2: int) -> bool:
    """backtracking.rs ``is_valid_pair``, step for step (positions read as ids)."""
    limit = NO_TOKEN
    for _ in range(100_000):
        combined = t.pair_lookup.get((token1, token2))
        if combined is not None and combined < limit:
            return False
        if token1 > token2:
            limit = token1
            right = t.split_table[token1][1]
            if right == token1:
                limit = token2 + 1
                left = t.split_table[token2][0]
                if left + 1 == limit:
                    return True
                token2 = left
            else:
                token1 = right
        else:
            limit = token2 + 1
            left = t.split_table[token2][0]
            if left + 1 == limit:
                limit = token1
                right = t.split_table[token1][1]
                if right == limit:
                    return True
                token1 = right
            else:
                token2 = left
    raise EndlessError(f"is_valid_pair({token1}, {token2}) does not end")


def encode(t: Tables, text: bytes, after: bytes = b"") -> list[int]:
    """backtracking.rs ``encode`` of one piece below the parallel threshold: the
    positions of the tokens tokie emits. Raises IndexError where tokie indexes past a
    table (it panics) and ``EndlessError`` where it loops forever. ``after``: the bytes
    of the text after the piece (its added tokens and later pieces), where the search
    for a match goes on past the piece's end (measured on tokie 0.1.4: ``'éa<s>'``,
    "é" and "a" uncovered, gives ``▁ <s> <s>``); the piece ends at its own end."""
    if not text:
        return []
    if len(text) <= MAX_CACHED_TOKEN_LEN and text in t.token_cache:
        return [t.token_cache[text]]
    tokens: list[int] = []
    cleared: set[int] = set()
    pos = 0
    whole = text + after

    def next_match(at: int) -> int | None:
        if at >= len(text):
            return None
        found = _leftmost_longest(whole[at:], t.patterns, t.longest)
        return found[2] if found is not None else None

    next_token = next_match(pos)
    while next_token is not None:
        token = next_token
        last = tokens[-1] if tokens else None
        while True:
            end = pos + len(t.token_bytes[token])
            reachable = end not in cleared
            compatible = last is None or is_valid_pair(t, last, token)
            if reachable and compatible:
                tokens.append(token)
                pos = end
                next_token = next_match(pos)
                break
            shorter = t.next_prefix(token)
            if shorter != NO_TOKEN:
                token = shorter
                continue
            cleared.add(pos)
            if tokens:
                pos -= len(t.token_bytes[tokens.pop()])
            next_token = last
            break
    return tokens
