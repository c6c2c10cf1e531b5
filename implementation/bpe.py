"""The BPE model: symbols, byte fallback, unk/fuse, heap merging, word cache.

Reproduces the BPE model of HuggingFace ``tokenizers`` 0.23.1
(``models/bpe/{model,word,serialization}.rs``; its loading is ``bpe_loader.py``) with
these deliberate differences, all decided by the project's spec:

* loading refuses, by rule id and JSON path, what upstream accepts but cannot
  reproduce (duplicate ids, 0 < dropout < 1) or what it panics on (merge
  results longer than every vocabulary entry, prefix underflow);
* strict mode also refuses an ``unk_token`` absent from the vocabulary and an
  incomplete or lower-case byte alphabet under ``byte_fallback``;
* a pending unknown token is flushed *before* a byte-fallback expansion
  (upstream flushes it after, misordering the stream);
* spans are character offsets within the word that cover the text each token
  really came from (upstream's byte lengths overrun under a decorated byte
  fallback and shift after a dropped character).
"""

from __future__ import annotations

import heapq
import itertools
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from .errors import EncodeError, clip

#: Upstream's ``DEFAULT_CACHE_CAPACITY`` (``utils/cache.rs``): entries, no eviction.
CACHE_CAPACITY = 10_000
#: Upstream's ``MAX_LENGTH``: only words shorter than this many UTF-8 bytes are cached.
CACHE_MAX_WORD_BYTES = 256

#: The longest piece of a long word whose result is kept (symbols), like upstream's bound
#: on the words it caches: the piece cache stays small whatever the texts.
PIECE_CACHE_MAX_SYMBOLS = 64
#: Up to this many distinct characters, a word's pairs of them are all looked up before
#: its boundaries are (none a cut: no boundary needs looking at).
_FEW_CHARACTERS = 32
#: Boundaries of a long word looked at to decide whether to merge it piece by piece.
_CUT_SAMPLE = 256

_UNK_PATH = "$.model.unk_token"


def byte_piece(byte: int) -> str:
    """The vocabulary spelling of one byte under byte fallback (upper-case hex)."""
    return f"<0x{byte:02X}>"


#: ``byte_piece(b)`` for every byte, spelled once (every load looks all 256 up).
BYTE_PIECES: tuple[str, ...] = tuple(byte_piece(b) for b in range(256))


@dataclass(frozen=True, slots=True)
class BpeToken:
    """One model token of one word; ``start``/``end`` are character offsets in the word."""

    id: int
    value: str
    start: int
    end: int


#: One word's tokens as columns: ids, values, starts, ends (character offsets in the word).
Columns = tuple[Sequence[int], Sequence[str], Sequence[int], Sequence[int]]


def _pair_key(left: int, right: int) -> int:
    return (left << 32) | right


class BpeModel:
    """A loaded BPE model. Build it with ``bpe_loader.load_bpe_model``."""

    vocab: Mapping[str, int]
    unk_token: str | None
    fuse_unk: bool
    byte_fallback: bool
    continuing_subword_prefix: str | None
    end_of_word_suffix: str | None
    ignore_merges: bool
    dropout: float | None

    def __init__(
        self,
        *,
        vocab: dict[str, int],
        merges: dict[int, int],
        unk_token: str | None = None,
        fuse_unk: bool = False,
        byte_fallback: bool = False,
        continuing_subword_prefix: str | None = None,
        end_of_word_suffix: str | None = None,
        ignore_merges: bool = False,
        dropout: float | None = None,
        strict: bool = True,
        junctions: frozenset[str] | None = None,
    ) -> None:
        """Assemble an already validated model; ``merges`` maps a pair key to
        ``rank << 32 | new id``.

        ``junctions``: where every merge result is its left part followed by its right part,
        the last character of every merge's left part followed by the first of its right
        part (what lets a long word be merged piece by piece); None: never cut."""
        self._vocab = vocab
        self._vocab_r = dict(zip(vocab.values(), vocab.keys(), strict=True))
        self._merges = merges
        self.vocab = MappingProxyType(vocab)
        self.unk_token = unk_token
        self.fuse_unk = fuse_unk
        self.byte_fallback = byte_fallback
        self.continuing_subword_prefix = continuing_subword_prefix
        self.end_of_word_suffix = end_of_word_suffix
        self.ignore_merges = ignore_merges
        self.dropout = dropout
        self._strict = strict
        self._byte_ids: list[int | None] = [vocab.get(piece) for piece in BYTE_PIECES]
        #: Word -> its tokens as columns (tuples), for words upstream would cache.
        self._cache: dict[str, Columns] = {}
        #: Pieces of long words (see _cuts): initial ids -> (surviving indices, their ids).
        self._piece_cache: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self._junctions = junctions

    # -- lookups ----------------------------------------------------------------
    def token_to_id(self, token: str) -> int | None:
        return self._vocab.get(token)

    def id_to_token(self, id: int) -> str | None:
        return self._vocab_r.get(id)

    def vocab_size(self) -> int:
        """The number of vocabulary strings (upstream ``get_vocab_size`` of the model)."""
        return len(self._vocab)

    # -- encoding ---------------------------------------------------------------
    def tokenize(self, word: str) -> list[BpeToken]:
        """Tokenize one pre-token; spans are character offsets within ``word``."""
        return [BpeToken(*token) for token in zip(*self.word_columns(word), strict=True)]

    def word_columns(self, word: str) -> Columns:
        """``tokenize(word)`` as columns (ids, values, starts, ends), never a token object:
        what the pipeline reads. The columns of a word upstream would cache are kept (the
        same result every time: neither the cache nor its capacity changes any output) and
        must not be mutated."""
        if not word:
            return ((), (), (), ())
        if self.dropout is not None:
            # dropout == 1.0: upstream skips every merge, the cache and ignore_merges.
            ids, starts, ends = self._word_symbols(word)
            return ids, list(map(self._vocab_r.__getitem__, ids)), starts, ends
        if self.ignore_merges:
            token_id = self._vocab.get(word)
            if token_id is not None:
                return (token_id,), (word,), (0,), (len(word),)
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if not _cacheable(word):
            long = self.long_word_columns(word)
            assert long is not None  # dropout and a whole-word ignore_merges: handled above
            return long
        ids, starts, ends = self._word_symbols(word)
        alive = _merge_all(ids, ends, self._merges)
        if len(alive) != len(ids):
            ids = [ids[i] for i in alive]
            starts = [starts[i] for i in alive]
            ends = [ends[i] for i in alive]
        columns: Columns = (tuple(ids), tuple(map(self._vocab_r.__getitem__, ids)),
                            tuple(starts), tuple(ends))
        if len(self._cache) < CACHE_CAPACITY:
            self._cache[word] = columns
        return columns

    def long_word_columns(
        self, word: str
    ) -> tuple[list[int], list[str], list[int], list[int]] | None:
        """``tokenize(word)`` as columns (ids, values, starts, ends), without a token object
        per token, for a word the cache never holds (``CACHE_MAX_WORD_BYTES`` or longer);
        ``None`` for any other word, which ``tokenize`` handles.

        A word that long goes through ``tokenize`` as: dropout, ``ignore_merges`` (a whole
        word in the vocabulary), a cache lookup that always misses, merging, no caching.
        Only the merging case is handled here; the others answer ``None``.
        """
        if self.dropout is not None or _cacheable(word):
            return None
        if self.ignore_merges and word in self._vocab:
            return None
        ids, starts, ends = self._word_symbols(word)
        cuts = self._cuts(ids) if len(ids) > 1 and self._worth_cutting(ids) else []
        if cuts:
            alive, ids = self._merge_pieces(ids, cuts)
            last = len(starts) - 1
            starts, ends = ([starts[i] for i in alive],
                            [ends[i - 1] for i in itertools.islice(alive, 1, None)] + [ends[last]])
        else:
            alive = _merge_all(ids, ends, self._merges)
            if len(alive) != len(ids):
                ids = [ids[i] for i in alive]
                starts = [starts[i] for i in alive]
                ends = [ends[i] for i in alive]
        return ids, list(map(self._vocab_r.__getitem__, ids)), starts, ends

    # A long word is merged piece by piece where merging provably never joins the pieces.
    # Every merge result's string is its left part's string followed by its right part's
    # (the load checks it; without continuing_subword_prefix, which is cut off the right
    # part, or end_of_word_suffix), so a symbol's string is always its initial symbols'
    # strings end to end. Take the boundary between two initial symbols whose strings are
    # the single characters x and y: the first merge ever to join across it merges a
    # symbol ending in x with one starting with y, so x + y is that merge's junction (the
    # last character of its left part, then the first of its right part). Where x + y is
    # no merge's junction, nothing ever merges across the boundary; upstream's heap then
    # pops the entries of each side in the same relative order as it would for that side
    # alone, and each pop only looks at its own side (an entry of a side's last symbol
    # whose neighbour is now across the boundary finds no merge, as it finds no neighbour
    # alone), so each piece merges exactly as it would alone. Pieces repeat in real text
    # (a word between two spaces), so their results are kept, as upstream keeps words'.
    def _worth_cutting(self, ids: list[int]) -> bool:
        """Whether merges are dense, so that merging piece by piece pays (most neighbours
        are some merge's junction, as in a Latin-script text); where they are sparse (byte
        pieces, ideographs) one merge of the whole word is cheaper. Judged on the first
        boundaries only: either way the result is the same."""
        inside = self._junctions
        if inside is None:
            return False
        sample = list(map(self._vocab_r.__getitem__, ids[:_CUT_SAMPLE + 1]))
        joined = map(operator.add, sample, itertools.islice(sample, 1, None))
        return 2 * sum(pair in inside for pair in joined) >= len(sample) - 1

    def _cuts(self, ids: list[int]) -> list[int]:
        """The boundaries (index of the symbol after it) no merge can ever cross: between two
        single characters that are no merge's junction."""
        inside = self._junctions
        if inside is None:
            return []
        vocab_r = self._vocab_r
        singles = [s for s in map(vocab_r.__getitem__, set(ids)) if len(s) == 1]
        if len(singles) <= _FEW_CHARACTERS and all(a + b in inside for a in singles
                                                   for b in singles):
            return []  # a small alphabet whose every pair is a junction: no cut anywhere
        strings = list(map(vocab_r.__getitem__, ids))
        joined = map(operator.add, strings, itertools.islice(strings, 1, None))
        return [j for j, pair in enumerate(joined, 1)
                if pair not in inside and len(pair) == 2 and len(strings[j - 1]) == 1]

    def _merge_pieces(self, ids: list[int], cuts: list[int]) -> tuple[list[int], list[int]]:
        """``_merge_all`` of the whole symbol sequence, piece by piece between ``cuts``: the
        indices of the surviving symbols and their ids."""
        merges = self._merges
        pieces = self._piece_cache
        alive: list[int] = []
        merged: list[int] = []
        start = 0
        for end in itertools.chain(cuts, (len(ids),)):
            if end - start == 1:  # one symbol: nothing to merge
                alive.append(start)
                merged.append(ids[start])
                start = end
                continue
            key = tuple(ids[start:end])
            known = pieces.get(key) if end - start <= PIECE_CACHE_MAX_SYMBOLS else None
            if known is None:
                piece_ids = list(key)
                survivors = _merge_all(piece_ids, list(range(len(key))), merges)
                known = (tuple(survivors), tuple([piece_ids[i] for i in survivors]))
                if len(pieces) < CACHE_CAPACITY and end - start <= PIECE_CACHE_MAX_SYMBOLS:
                    pieces[key] = known
            alive.extend(map(start.__add__, known[0]))
            merged.extend(known[1])
            start = end
        return alive, merged

    def _merged_tokens(self, word: str) -> list[BpeToken]:
        """The whole word merged at once, as tokens (what the piece-by-piece merge of a long
        word must equal: the tests compare the two)."""
        ids, starts, ends = self._word_symbols(word)
        alive = _merge_all(ids, ends, self._merges)
        vocab_r = self._vocab_r
        return [BpeToken(ids[i], vocab_r[ids[i]], starts[i], ends[i]) for i in alive]

    def _word_symbols(self, word: str) -> tuple[list[int], list[int], list[int]]:
        """Upstream ``merge_word`` before merging: (ids, starts, ends) of the initial symbols."""
        prefix = self.continuing_subword_prefix
        suffix = self.end_of_word_suffix
        if prefix is None and suffix is None:
            # The common case: every character is a vocabulary entry of its own.
            try:
                ids = list(map(self._vocab.__getitem__, word))
            except KeyError:
                pass
            else:
                shared = _positions(len(word))
                return ids, shared[:len(word)], shared[1:len(word) + 1]
            # Next: every character is an entry or has all its byte pieces (no unknown).
            table: dict[str, list[int]] = {}
            firsts: dict[str, tuple[int, ...]] = {}  # 1 for a character's first symbol, else 0
            for ch in set(word):
                resolved = self._resolve(ch)
                if resolved is None:
                    break
                table[ch] = resolved
                firsts[ch] = (1,) + (0,) * (len(resolved) - 1)
            else:
                flat = itertools.chain.from_iterable
                marks = list(flat(map(firsts.__getitem__, word)))
                ends = list(itertools.accumulate(marks))  # the character index + 1
                starts = list(itertools.accumulate(marks, initial=-1))
                del starts[0]
                return list(flat(map(table.__getitem__, word))), starts, ends
        ids = []
        starts = []
        ends = []
        vocab_get = self._vocab.get
        last = len(word) - 1
        pending: list[int] | None = None  # [unk id, start, end] of the unknown not yet pushed

        for k, ch in enumerate(word):
            s = ch
            if k > 0 and prefix is not None:
                s = prefix + s
            if k == last and suffix is not None:
                s = s + suffix
            token_id = vocab_get(s)
            pieces = [token_id] if token_id is not None else self._fallback_pieces(s)
            if pieces is not None:
                if pending is not None:  # flushed first, before byte pieces too (our fix)
                    ids.append(pending[0])
                    starts.append(pending[1])
                    ends.append(pending[2])
                    pending = None
                if len(pieces) == 1:
                    ids.append(pieces[0])
                    starts.append(k)
                    ends.append(k + 1)
                else:
                    ids.extend(pieces)
                    starts.extend([k] * len(pieces))
                    ends.extend([k + 1] * len(pieces))
            elif self.unk_token is not None:
                if pending is not None and self.fuse_unk:
                    pending[2] = k + 1
                else:
                    if pending is not None:
                        ids.append(pending[0])
                        starts.append(pending[1])
                        ends.append(pending[2])
                    pending = [self._unk_id(), k, k + 1]
            elif self._strict:
                raise EncodeError(
                    "character-dropped",
                    _UNK_PATH,
                    f"character {ch!r} at {k} of the word is not in the vocabulary, has no "
                    "byte-fallback pieces and there is no unk_token; upstream drops it silently",
                )
            # else: lenient mode drops the character like upstream; it keeps its coordinates.
        if pending is not None:
            ids.append(pending[0])
            starts.append(pending[1])
            ends.append(pending[2])
        return ids, starts, ends

    def _fallback_pieces(self, symbol: str) -> list[int] | None:
        """The byte pieces of a symbol missing from the vocabulary, when byte fallback
        covers ALL its bytes; else None."""
        if not self.byte_fallback:
            return None
        byte_ids = self._byte_ids
        pieces = [byte_ids[byte] for byte in symbol.encode()]
        return None if None in pieces else pieces  # type: ignore[return-value]

    def _resolve(self, symbol: str) -> list[int] | None:
        """The symbol's id, else its byte pieces when byte fallback covers ALL its bytes."""
        token_id = self._vocab.get(symbol)
        if token_id is not None:
            return [token_id]
        return self._fallback_pieces(symbol)

    def _unk_id(self) -> int:
        assert self.unk_token is not None
        unk_id = self._vocab.get(self.unk_token)
        if unk_id is None:
            raise EncodeError(
                "unk-token-missing-at-encode",
                _UNK_PATH,
                f"Unk token `{clip(self.unk_token)}` not found in the vocabulary",
            )
        return unk_id


def _cacheable(word: str) -> bool:
    """Upstream caches words shorter than ``MAX_LENGTH`` UTF-8 bytes."""
    return len(word) < CACHE_MAX_WORD_BYTES and len(word.encode()) < CACHE_MAX_WORD_BYTES


# -- merging ----------------------------------------------------------------------
def _merge_all(ids: list[int], ends: list[int], merges: dict[int, int]) -> list[int]:
    """Upstream ``Word::merge_all`` without dropout, in place; returns the surviving indices.

    Upstream pops a min-heap of (rank, position, new id); a popped entry is skipped when
    its left symbol is consumed, has no right neighbour, or the *current* pair's merge is
    missing or yields another id (upstream compares the new id only). The left symbol
    absorbs the right; its span grows to the right's end.

    ``merges`` maps a pair key to ``rank << 32 | new id`` (:func:`_pair_key`; an int, no
    tuple): ordered like the ranks, and the new id is its low half. The queue here pops in
    exactly upstream's order but is built in two levels, so that no heap grows with the
    word: ``ranks`` is a min-heap of the merges (packed as above) that have pending
    entries, and ``queued[merge]`` a min-heap of their positions. On a long word one heap
    of every entry costs more than n log n (its entries stop fitting in the caches); this
    stays close to linear.
    """
    n = len(ids)
    if n < 2:
        return list(range(n))
    shared = _positions(n)
    # nxt[i]: the next live symbol (-1: none); -2 once symbol i is consumed by its left
    # neighbour, so one test (nxt[pos] < 0) skips both a consumed and a last symbol.
    nxt = shared[1:n]
    nxt.append(-1)
    prv = shared[:n - 1]
    prv.insert(0, -1)
    get = merges.get  # keys: _pair_key(left, right), inlined below as (left << 32) | right
    queued: dict[int, list[int]] = {}
    for pos in shared[:n - 1]:
        merge = get((ids[pos] << 32) | ids[pos + 1])
        if merge is not None:
            positions = queued.get(merge)
            if positions is None:
                queued[merge] = [pos]
            else:
                positions.append(pos)  # ascending: already a heap
    ranks = list(queued)
    heapq.heapify(ranks)
    pop, push = heapq.heappop, heapq.heappush
    while ranks:
        rank = ranks[0]
        positions = queued[rank]
        pos = pop(positions)
        if not positions:
            pop(ranks)
            del queued[rank]
        right = nxt[pos]
        if right < 0:
            continue
        new_id = rank & _LOW
        merge = get((ids[pos] << 32) | ids[right])
        if merge is None or merge & _LOW != new_id:
            continue
        ids[pos] = new_id
        ends[pos] = ends[right]
        after = nxt[right]
        nxt[right] = -2
        nxt[pos] = after
        # The two new pairs, inlined (this loop is the hot path of every long word).
        before = prv[pos]
        if before != -1:
            merge = get((ids[before] << 32) | new_id)
            if merge is not None:
                positions = queued.get(merge)
                if positions is None:
                    queued[merge] = [before]
                    push(ranks, merge)
                else:
                    push(positions, before)
        if after != -1:
            prv[after] = pos
            merge = get((new_id << 32) | ids[after])
            if merge is not None:
                positions = queued.get(merge)
                if positions is None:
                    queued[merge] = [pos]
                    push(ranks, merge)
                else:
                    push(positions, pos)
    return [i for i in range(n) if nxt[i] != -2]


_LOW = (1 << 32) - 1

#: 0, 1, 2, ... as one run of int objects, which every position list of a word shares
#: (:func:`_positions`). ``list(range(n))`` makes n new objects per list, scattered over
#: the heap: on a long word the merge loop then misses the processor's caches at every
#: step, and its time per character grows with the word (measured: twice the time per
#: character at 256k characters as at 4k, against 1.8x with the run shared).
_SHARED_POSITIONS: list[int] = []
#: The run stops growing here (about 9 MB of int objects); longer words get their own.
_SHARED_POSITIONS_MAX: Final = 1 << 18


def _positions(n: int) -> list[int]:
    """A list whose first ``n + 1`` items are 0 .. n (shared: never mutate it)."""
    have = len(_SHARED_POSITIONS)
    if n < have:
        return _SHARED_POSITIONS
    if n >= _SHARED_POSITIONS_MAX:
        return list(range(n + 1))
    _SHARED_POSITIONS.extend(range(have, min(_SHARED_POSITIONS_MAX, max(n + 1, 2 * have))))
    return _SHARED_POSITIONS
