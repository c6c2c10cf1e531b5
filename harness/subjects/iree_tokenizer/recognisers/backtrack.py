"""A reading of iree-tokenizer's BPE on one pre-tokenized word: the backtracking encoder
of ``runtime/src/iree/tokenizer/model/bpe_backtrack.c`` (with the tables of
``bpe_tables.c``), which iree-tokenizer 0.3.0 runs on every segment of up to 2,048 bytes
that is not itself a reachable vocabulary token.

It is not upstream's BPE (merges applied lowest rank first): it takes the longest
vocabulary token at each position and accepts it unless a check rejects it (the position
after it ruled out, the token unreachable on its own, a merge with the previous token that
should have fired, or a lower-rank merge its last part would make with what follows),
trying the token's longest prefix token next and else popping the previous token. The
checks skip a merge of a part with an equal token ("repeating pattern"), so "ifff" in
Llama 3 is "iff", "f" where upstream's ranks give "if", "ff".

Ported for a byte-level document only (every byte a vocabulary token; a word here is the
ByteLevel-mapped string, one character per byte, as upstream's tokens spell it) and no
``end_of_word_suffix``: the caller checks those. Pure Python over the document's merges;
the tables are built once per document (``ctx.doc.memo``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

#: ``UINT32_MAX`` of the C: no limit, no prefix.
_NONE: Final = 2**32 - 1
#: The explicit stack of pair validation holds this many frames; past it a pair is invalid.
_STACK: Final = 64


@dataclass
class Tables:
    """The model as the C builds it: token texts, the merge hash (pair -> result id and
    rank), ``split_table``, ``effective_rank``, ``token_reachable``, and
    ``next_prefix_match``."""

    ids: dict[bytes, int]
    names: dict[int, bytes]
    #: Each token's text size in UTF-8 bytes (``text.size``: a ByteLevel character of a
    #: byte above 0x7F is two).
    sizes: dict[int, int] = field(default_factory=dict)
    merges: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    split: dict[int, tuple[int, int]] = field(default_factory=dict)
    rank: dict[int, int] = field(default_factory=dict)
    reachable: set[int] = field(default_factory=set)
    longest: int = 1

    #: ``byte_fallback_token`` by byte, the unk id, and whether unks fuse.
    fallback: dict[int, int] = field(default_factory=dict)
    unk: int | None = None
    fuse_unk: bool = False

    def size(self, token: int) -> int:
        return self.sizes[token]

    def eff(self, token: int) -> int:
        return self.rank.get(token, 0)

    def parts(self, token: int) -> tuple[int, int]:
        return self.split.get(token, (token, token))

    def merge(self, left: int, right: int) -> tuple[int, int] | None:
        return self.merges.get((left, right))

    def prefix(self, token: int) -> int | None:
        """``next_prefix_match``: the longest proper prefix of the token's text that is a
        token."""
        text = self.names[token]
        for end in range(len(text) - 1, 0, -1):
            found = self.ids.get(text[:end])
            if found is not None:
                return found
        return None

    def rightmost(self, token: int) -> int:
        while self.parts(token)[1] != token:
            token = self.parts(token)[1]
        return token

    def leftmost(self, token: int) -> int:
        while self.parts(token)[0] != token:
            token = self.parts(token)[0]
        return token

    def right_consumed(self, token: int) -> int:
        while self.parts(token)[0] != token:
            right = self.parts(token)[1]
            if self.parts(right)[0] == right:
                return self.eff(token)
            token = right
        return _NONE

    def left_consumed(self, token: int) -> int:
        while self.parts(token)[0] != token:
            left = self.parts(token)[0]
            if self.parts(left)[0] == left:
                return self.eff(token)
            token = left
        return _NONE

    def boundary_open(self, left: int, right: int, token: int) -> bool:
        """No other merge at the left|right boundary fires before either side's
        boundary base token is consumed inside it."""
        boundary = self.merge(self.rightmost(left), self.leftmost(right))
        if boundary is not None and boundary[0] != token:
            consumed = min(self.right_consumed(left), self.left_consumed(right))
            if self.eff(boundary[0]) < consumed:
                return False
        return True

    def decomposition_reachable(self, left: int, right: int, token: int) -> bool:
        return self.boundary_open(left, right, token) and left in self.reachable \
            and right in self.reachable


def _byte_level_bytes() -> dict[str, int]:
    """ByteLevel's character of each byte, inverted."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    chars = {b: b for b in printable}
    extra = 0
    for b in range(256):
        if b not in chars:
            chars[b] = 256 + extra
            extra += 1
    return {chr(code): b for b, code in chars.items()}


def raw_bytes(text: str, byte_level: bool) -> bytes | None:
    """The input bytes a token text stands for: its UTF-8, or with ByteLevel the byte of
    each character (None: a character ByteLevel does not make)."""
    if not byte_level:
        return text.encode("utf-8", "surrogatepass")
    table = _BYTE_LEVEL
    if any(c not in table for c in text):
        return None
    return bytes(table[c] for c in text)


_BYTE_LEVEL: Final = _byte_level_bytes()


def build(vocab: dict[str, int], added: dict[str, int], merges: list[tuple[str, str]], *,
          byte_level: bool, unk: str | None = None, byte_fallback: bool = False,
          fuse_unk: bool = False, specials: frozenset[str] = frozenset()) -> Tables:
    """The tables of ``iree_tokenizer_bpe_build_backtrack_tables`` (and the byte
    tables of ``bpe.c``) over the tokens' input bytes."""
    texts = {**added, **vocab}
    ids: dict[bytes, int] = {}
    names: dict[int, bytes] = {}
    sizes: dict[int, int] = {}
    codepoints: dict[int, int] = {}
    by_text: dict[str, int] = {}
    for text, number in texts.items():
        raw = raw_bytes(text, byte_level)
        if raw is None or not raw:
            continue
        ids[raw] = number
        names[number] = raw
        sizes[number] = len(text.encode("utf-8", "surrogatepass"))
        codepoints[number] = len(text)
        by_text[text] = number
    tables = Tables(ids, names, sizes)
    tables.longest = max((len(raw) for raw in ids), default=1)
    tables.unk = texts.get(unk) if unk is not None else None
    tables.fuse_unk = fuse_unk
    if byte_fallback:
        tables.fallback = {b: vocab[f"<0x{b:02X}>"] for b in range(256)
                           if f"<0x{b:02X}>" in vocab}
    ordered: list[tuple[int, int, int]] = []
    for rank, (left, right) in enumerate(merges):
        left_id, right_id = by_text.get(left), by_text.get(right)
        result = by_text.get(left + right)
        if left_id is None or right_id is None or result is None:
            continue
        tables.merges.setdefault((left_id, right_id), (result, rank))
        ordered.append((left_id, right_id, result))
        if tables.eff(result) == 0:
            tables.split[result] = (left_id, right_id)
            tables.rank[result] = rank + 1
    for left_id, right_id, _ in ordered:
        for side in (left_id, right_id):
            if tables.eff(side) == 0 and tables.size(side) > 1:
                tables.rank[side] = 1
    singles = {raw[0] for raw in ids if len(raw) == 1}
    special = {number for text, number in added.items() if text in specials}
    for number, text in ((n, t) for t, n in by_text.items()):
        if tables.eff(number) == 0 and number not in special and tables.size(number) > 1 \
                and any(b not in singles for b in text.encode("utf-8", "surrogatepass")):
            tables.rank[number] = 1
    tables.reachable = {number for number in names
                        if tables.parts(number)[0] == number and codepoints[number] <= 1}
    changed = True
    while changed:
        changed = False
        for left_id, right_id, result in ordered:
            if result in tables.reachable or left_id not in tables.reachable \
                    or right_id not in tables.reachable:
                continue
            if not tables.boundary_open(left_id, right_id, result):
                continue
            tables.reachable.add(result)
            changed = True
            tables.split[result] = (left_id, right_id)
    return tables


def valid_pair(tables: Tables, first: int, second: int, deferred: int) -> bool:
    """``iree_tokenizer_bpe_is_valid_token_pair``: some decomposition path of the two
    tokens has no merge across their boundary that should have fired."""
    # frames: [token1, token2, limit, split_pos, stage (0 init, 1 first, 2 second), side]
    stack: list[list[int]] = [[first, second, _NONE, 0, 0, 0]]
    while stack:
        frame = stack[-1]
        one, two, limit = frame[0], frame[1], frame[2]
        if frame[4] == 0:
            merged = tables.merge(one, two)
            if merged is not None:
                combined = tables.eff(merged[0])
                if combined < limit and not (deferred > 0 and combined >= deferred):
                    stack.pop()
                    continue
            one_base = tables.parts(one)[1] == one
            two_base = tables.parts(two)[0] == two
            if one_base and two_base:
                return True
            if tables.eff(one) > tables.eff(two):
                frame[5] = 2 if one_base else 1
            else:
                frame[5] = 1 if two_base else 2
            frame[4], frame[3] = 1, 0
            continue
        side = frame[5]
        token = one if side == 1 else two
        found = False
        if frame[3] == 0:
            frame[3] = 1
            left, right = tables.parts(token)
            if left != token:
                if len(stack) >= _STACK:
                    return False
                stack.append(_child(tables, frame, left, right))
                found = True
        if not found:
            text = tables.names[token]
            left_part = tables.parts(token)[0]
            table_split = len(tables.names[left_part]) if left_part != token else 0
            for at in range(frame[3], len(text)):
                if at == table_split and table_split > 0:
                    continue
                left_id, right_id = tables.ids.get(text[:at]), tables.ids.get(text[at:])
                if left_id is None or right_id is None:
                    continue
                merged = tables.merge(left_id, right_id)
                if merged is None or merged[0] != token:
                    continue
                frame[3] = at + 1
                found = True
                if len(stack) >= _STACK:
                    return False
                stack.append(_child(tables, frame, left_id, right_id))
                break
        if found:
            continue
        if frame[4] == 1:
            other = 2 if side == 1 else 1
            other_base = tables.parts(one)[1] == one if other == 1 \
                else tables.parts(two)[0] == two
            if not other_base:
                frame[4], frame[5], frame[3] = 2, other, 0
                continue
        stack.pop()
    return False


def _child(tables: Tables, frame: list[int], left: int, right: int) -> list[int]:
    if frame[5] == 1:
        return [right, frame[1], tables.eff(frame[0]), 0, 0, 0]
    return [frame[0], left, tables.eff(frame[1]) + 1, 0, 0, 0]


def _token_at(tables: Tables, rest: bytes, at: int) -> tuple[int, int] | None:
    """``token_at_position``: the byte's own token, else the shortest token within 8
    bytes (a multi-byte character's); with its length."""
    single = tables.ids.get(rest[at:at + 1])
    if single is not None:
        return single, 1
    for end in range(at + 2, min(len(rest), at + 8) + 1):
        found = tables.ids.get(rest[at:end])
        if found is not None:
            return found, end - at
    return None


def _consumed_rightward(tables: Tables, token: int, rest: bytes, end: int,
                        limit: int) -> bool:
    """``is_token_consumed_rightward``."""
    if end >= len(rest):
        return False
    found = _token_at(tables, rest, end)
    if found is None:
        return False
    following, length = found
    merged = tables.merge(token, following)
    if merged is None or merged[1] >= limit:
        return False
    if end + length < len(rest):
        after = _token_at(tables, rest, end + length)
        if after is not None:
            first = tables.merge(following, after[0])
            if first is not None and first[1] < merged[1]:
                return False
    return True


def _preempted(tables: Tables, prefix: int, limit: int, rest: bytes, end: int) -> bool:
    """``is_suffix_merge_preempted``."""
    if end >= len(rest):
        return False
    found = _token_at(tables, rest, end)
    if found is None:
        return False
    following, length = found
    direct = tables.merge(prefix, following)
    if direct is not None and direct[1] < limit and not _consumed_rightward(
            tables, following, rest, end + length, direct[1]):
        return True
    at = end + length
    extension = _token_at(tables, rest, at) if at < len(rest) else None
    if extension is None:
        return False
    compound = tables.merge(following, extension[0])
    if compound is None or compound[1] >= limit:
        return False
    token = compound[0]
    at += extension[1]
    for _ in range(4):
        joined = tables.merge(prefix, token)
        if joined is not None and joined[1] < limit:
            return True
        if at >= len(rest):
            break
        extension = _token_at(tables, rest, at)
        if extension is None:
            break
        compound = tables.merge(token, extension[0])
        if compound is None or compound[1] >= limit:
            break
        token = compound[0]
        at += extension[1]
    return False


def suffix_blocked(tables: Tables, token: int, rest: bytes) -> int:
    """``is_suffix_blocked``: the blocking rank (the token's effective rank) where a
    part on the token's right spine merges with a token the rest begins with at a lower
    rank, else 0."""
    rank = tables.eff(token)
    if not rest or rank <= 1:
        return 0
    suffixes: list[tuple[int, int]] = []
    current = token
    while len(suffixes) < 32 and tables.parts(current)[0] != current:
        left, right = tables.parts(current)
        if not tables.decomposition_reachable(left, right, current):
            break
        suffixes.append((right, tables.eff(current)))
        current = right
    if not suffixes:
        return 0
    for end in range(1, min(len(rest), tables.longest) + 1):
        prefix = tables.ids.get(rest[:end])
        if prefix is None:
            continue
        for suffix, consumed in suffixes:
            merged = tables.merge(suffix, prefix)
            if merged is None or merged[1] + 1 >= rank or merged[1] + 1 >= consumed \
                    or suffix == prefix:
                continue
            if _preempted(tables, prefix, merged[1], rest, end):
                continue
            if tables.eff(prefix) > 1 and end < len(rest) and _consumed_rightward(
                    tables, tables.rightmost(prefix), rest, end,
                    tables.right_consumed(prefix)):
                continue
            return rank
    return 0


def _longest(tables: Tables, word: bytes, at: int) -> int | None:
    """``backtrack_longest_match``: the longest token at ``at``, one of more than one
    byte only with an effective rank."""
    if at >= len(word):
        return None
    for end in range(min(len(word), at + tables.longest), at, -1):
        found = tables.ids.get(word[at:end])
        if found is not None and (end - at == 1 or tables.eff(found) > 0):
            return found
    return None


def _fallen(tables: Tables, byte: int, previous: int | None) -> int | None:
    """The byte's own token, else ``handle_unknown_byte``: its ``<0x..>`` token, else the
    unk token (None: fused into a previous unk, or no unk)."""
    own = tables.ids.get(bytes([byte]))
    if own is not None:
        return own
    if byte in tables.fallback:
        return tables.fallback[byte]
    if tables.unk is None or (tables.fuse_unk and previous == tables.unk):
        return None
    return tables.unk


def encode_word(tables: Tables, word: bytes) -> list[int]:
    """The library's tokens of one segment (its input bytes): the whole segment where it
    is a reachable token (the fast path), else the backtracking encoder's."""
    whole = tables.ids.get(word)
    if whole is not None and whole in tables.reachable:
        return [whole]
    size = len(word)
    ruled_out: set[int] = set()
    stack: list[tuple[int, int, int]] = []  # (token, start, deferred rank)
    position = committed = 0
    pending = _longest(tables, word, 0)
    while position < size:
        if pending is None:
            fallen = _fallen(tables, word[position], stack[-1][0] if stack else None)
            if fallen is not None:
                stack.append((fallen, position, 0))
            position += 1
            committed = position
            pending = _longest(tables, word, position)
            continue
        token = pending
        last = stack[-1][0] if stack else None
        deferred_here = 0
        pair_deferred = stack[-1][2] if stack else 0
        while True:
            end = position + len(tables.names[token])
            unreachable = end - position > 1 and tables.eff(token) > 1 \
                and token not in tables.reachable
            blocking = suffix_blocked(tables, token, word[end:])
            if blocking:
                deferred_here = blocking
            pair_ok = last is None or valid_pair(tables, last, token, pair_deferred)
            if end not in ruled_out and not unreachable and pair_ok and not blocking:
                stack.append((token, position, deferred_here))
                position = end
                pending = _longest(tables, word, position)
                break
            shorter = tables.prefix(token)
            if shorter is not None:
                token = shorter
                continue
            ruled_out.add(position)
            if not stack or stack[-1][1] < committed:
                fallen = _fallen(tables, word[position], stack[-1][0] if stack else None)
                if fallen is not None:
                    stack.append((fallen, position, 0))
                position += 1
                committed = position
                pending = _longest(tables, word, position)
                break
            popped, position, _ = stack.pop()
            pending = popped
            break
    return [token for token, _, _ in stack]
