"""The vocabularies the benchmarks train for themselves: a small BPE vocabulary on the
real-model corpus, and the growth vocabulary (thousands of merges on a four-letter text, so
a long word keeps merging down to tokens of ~6 letters); deterministic, no model hub."""

from __future__ import annotations

import heapq
import itertools
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from ..documents import METASPACE, bpe_model, byte_alphabet, document, llama_pipeline

LLAMA_SPECIALS = ("<unk>", "<s>", "</s>")


def train_merges(words: Mapping[str, int], merges: int, min_count: int = 2
                 ) -> list[tuple[str, str]]:
    """Greedy BPE training: repeatedly merge the most frequent adjacent pair of symbols,
    up to ``merges`` merges and while the best pair occurs at least ``min_count`` times.

    ``words`` maps a word to its count; ties are broken by the pair itself, so the result
    is deterministic. Pair counts are kept up to date incrementally (only the words that
    contain the merged pair are rewritten) and the best pair comes from a heap whose stale
    entries are skipped.
    """
    symbols = [list(word) for word in words]
    counts = list(words.values())
    pair_counts: Counter[tuple[str, str]] = Counter()
    where: defaultdict[tuple[str, str], set[int]] = defaultdict(set)
    for index, syms in enumerate(symbols):
        for pair in itertools.pairwise(syms):
            pair_counts[pair] += counts[index]
            where[pair].add(index)
    heap = [(-count, pair) for pair, count in pair_counts.items()]
    heapq.heapify(heap)
    out: list[tuple[str, str]] = []
    while heap and len(out) < merges:
        negative, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative:
            continue  # stale: the count changed since this entry was pushed
        if -negative < min_count:
            break
        out.append(pair)
        left, right = pair
        merged_symbol = left + right
        touched: set[tuple[str, str]] = set()
        for index in sorted(where.pop(pair, ())):
            syms, count = symbols[index], counts[index]
            for old in itertools.pairwise(syms):
                pair_counts[old] -= count
                touched.add(old)
            merged: list[str] = []
            i = 0
            while i < len(syms):
                if i + 1 < len(syms) and syms[i] == left and syms[i + 1] == right:
                    merged.append(merged_symbol)
                    i += 2
                else:
                    merged.append(syms[i])
                    i += 1
            symbols[index] = merged
            for new in itertools.pairwise(merged):
                pair_counts[new] += count
                where[new].add(index)
                touched.add(new)
        del pair_counts[pair]
        touched.discard(pair)
        for changed in sorted(touched):
            count = pair_counts.get(changed, 0)
            if count > 0:
                heapq.heappush(heap, (-count, changed))
            else:
                pair_counts.pop(changed, None)
    return out


def _vocab_and_merges(base: Sequence[str], merges: Sequence[tuple[str, str]]
                      ) -> tuple[dict[str, int], list[list[str]]]:
    vocab: dict[str, int] = {}
    for token in base:
        vocab.setdefault(token, len(vocab))
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    return vocab, [[left, right] for left, right in merges]


def small_vocabulary(corpus: Sequence[str], merges: int) -> dict[str, Any]:
    """A Llama-shaped tokenizer.json with a small vocabulary trained on ``corpus``: the
    specials, the 256 byte pieces, every character seen at least 3 times, ``merges``
    merges learnt over the corpus' ``▁word`` pieces (SentencePiece never merges across
    ``▁``); every other character falls back to bytes."""
    words: Counter[str] = Counter()
    characters: Counter[str] = Counter()
    for text in corpus:
        for word in text.split(" "):
            if word:
                words[METASPACE + word] += 1
        characters.update(text.replace(" ", METASPACE))
    characters[METASPACE] += 1
    alphabet = sorted(c for c, n in characters.items() if n >= 3)
    kept = set(alphabet)
    # Words over the kept alphabet only, so every merge result is buildable.
    trainable = Counter({w: n for w, n in words.items() if kept.issuperset(w)})
    base = [*LLAMA_SPECIALS, *byte_alphabet(), *alphabet]
    vocab, merge_list = _vocab_and_merges(base, train_merges(trainable, merges))
    return llama_pipeline(bpe_model(vocab, merge_list, byte_fallback=True, fuse_unk=True,
                                    unk_token="<unk>"))


GROWTH_ALPHABET = "abcd"


def lcg_text(length: int, seed: int, alphabet: str = GROWTH_ALPHABET) -> str:
    """A deterministic pseudo-random text over ``alphabet`` (a linear congruential
    generator: the same text on every platform and Python)."""
    state = seed
    out: list[str] = []
    for _ in range(length):
        state = (1103515245 * state + 12345) % 2**31
        out.append(alphabet[(state >> 16) % len(alphabet)])
    return "".join(out)


GROWTH_TRAINING_WORD = 16


def growth_vocabulary(merges: int, training_chars: int) -> dict[str, Any]:
    """A model-only tokenizer.json (no normalizer or pre-tokenizer: a text is one word)
    with up to ``merges`` merges trained on a pseudo-random four-letter text cut into
    16-character words (pairs seen twice or more): the merges cover the short strings of
    the alphabet, so a long word over it keeps merging, about one merge per character."""
    text = lcg_text(training_chars, seed=1)
    size = GROWTH_TRAINING_WORD
    chunks = Counter(text[i:i + size] for i in range(0, len(text), size))
    vocab, merge_list = _vocab_and_merges(list(GROWTH_ALPHABET),
                                          train_merges(chunks, merges))
    return document(bpe_model(vocab, merge_list))
