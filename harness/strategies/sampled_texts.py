"""Batches of texts expanded from one seed, for a run that explores and never shrinks (the
real-model phase): Hypothesis draws one integer per batch and ``TextSampler`` expands it
with ``random.Random`` over the tables ``texts.fragments`` draws from (the same kinds and
shares), the corpus fragments and any scalar value. A seed still gives the same texts on
every machine; a batch costs one choice instead of hundreds (decision 0049).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence
from typing import Final

from hypothesis import strategies as st

from harness.strategies import profile as shares
from harness.strategies.texts import Inventory, fragment_kinds

#: Up to this many parts in a corpus mix (fragments and glue), as ``corpus_mix`` had.
MIX_MAX: Final = 8
#: Characters in an arbitrary text, at most.
ARBITRARY_MAX: Final = 40
#: Unicode scalar values: every code point but the surrogates.
_SCALARS: Final = 0x110000 - 0x800
#: Draws per wanted text before a batch settles for fewer distinct texts.
_TRIES: Final = 4


class TextSampler:
    """Texts for one vocabulary, each one of three kinds alike: fragments of the vocabulary
    (``texts.texts_for``' mix), corpus fragments glued by spaces and literal specials,
    and arbitrary short texts."""

    def __init__(self, inv: Inventory, corpus_fragments: Sequence[str],
                 glue: Sequence[str]) -> None:
        kinds = fragment_kinds(inv)
        self._kinds = [items for _, items in kinds]
        self._cumulative = list(itertools.accumulate(weight for weight, _ in kinds))
        self._corpus = tuple(corpus_fragments)
        self._glue = tuple(glue)

    def text(self, rng: random.Random) -> str:
        kind = rng.randrange(3 if self._corpus else 2)
        if kind == 0:
            return self._vocabulary_text(rng)
        if kind == 1:
            return self._arbitrary_text(rng)
        return "".join(rng.choice(self._corpus) if rng.random() < 0.5 else rng.choice(self._glue)
                       for _ in range(rng.randint(0, MIX_MAX)))

    def batch(self, seed_value: int, size: int) -> tuple[str, ...]:
        """``size`` distinct texts from ``seed_value`` (fewer only if the vocabulary offers
        fewer within a few draws each)."""
        rng = random.Random(seed_value)
        found: dict[str, None] = {}
        for _ in range(size * _TRIES):
            found[self.text(rng)] = None
            if len(found) == size:
                break
        return tuple(found)

    def kind(self, rng: random.Random) -> int:
        """The index (in ``texts.fragment_kinds``) of a kind of fragment, by weight."""
        return bisect.bisect_right(self._cumulative, rng.randrange(self._cumulative[-1]))

    def _fragment(self, rng: random.Random) -> str:
        return rng.choice(self._kinds[self.kind(rng)])

    def _vocabulary_text(self, rng: random.Random) -> str:
        if rng.randrange(1000) < shares.EMPTY_TEXT:
            return ""
        parts = [self._fragment(rng) for _ in range(rng.randint(1, shares.FRAGMENTS_MAX))]
        if rng.randrange(1000) < shares.WILD_CHARACTER:
            parts.insert(rng.randint(0, len(parts)), scalar(rng))
        return "".join(parts)

    @staticmethod
    def _arbitrary_text(rng: random.Random) -> str:
        """Mostly ASCII, then the BMP, then any scalar value (as Hypothesis' ``text``
        leans towards small code points)."""
        out = []
        for _ in range(rng.randint(0, ARBITRARY_MAX)):
            roll = rng.random()
            out.append(chr(rng.randrange(0x20, 0x7F)) if roll < 0.5
                       else chr(rng.randrange(0x80, 0xD800)) if roll < 0.75
                       else scalar(rng))
        return "".join(out)


def scalar(rng: random.Random) -> str:
    """Any Unicode scalar value, uniformly."""
    value = rng.randrange(_SCALARS)
    return chr(value if value < 0xD800 else value + 0x800)


def seeds() -> st.SearchStrategy[int]:
    """The one integer Hypothesis draws per batch."""
    return st.integers(0, 2**63 - 1)


def batches(sampler: TextSampler, size: int) -> st.SearchStrategy[tuple[str, ...]]:
    """Batches of ``size`` texts, each expanded from one integer Hypothesis draws."""
    return seeds().map(lambda value: sampler.batch(value, size))
