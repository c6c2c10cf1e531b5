"""Hypothesis strategies for the unified tokenizer: mixed texts (Latin, CJK, emoji,
Mongolian words with every control character in and out of place, placeholders, literal
special strings and near-misses of them), and ``images=``/``videos=`` arguments.

Used by the property tests (``tests/unit/test_unified_properties.py``) and by the morph-track
differential (``harness/runs/morph_track.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from hypothesis import strategies as st

from . import mongolian_corpus as corpus

NNBSP, MVS = corpus.NNBSP, corpus.MVS
FVS = (corpus.FVS1, corpus.FVS2, corpus.FVS3, corpus.FVS4)
CONTROLS = (NNBSP, MVS, *FVS)
#: Every code point of both Mongolian blocks (assigned or not).
MONGOLIAN_ALL = tuple(chr(c) for c in (*range(0x1800, 0x18B0), *range(0x11660, 0x11680)))
MONGOLIAN_LETTERS = tuple(chr(c) for c in (*range(0x1820, 0x1879), *range(0x1880, 0x18AB)))
EMOJI = ("😀", "👍🏽", "👨\u200d👩\u200d👧", "🇲🇳", "❤️", "🙂", "𝄞")
LATIN_WORDS = ("Hello", "world", "hello", "the", "Mongolian", "script", "é", "café", "a", "H")
WHITESPACE = (" ", "  ", "\n", "\t", "\u3000", "\u00a0")
#: Defaults: the strings of fixtures/unified/config.json.
SPECIALS = ("<s>", "</s>", "<pad>", "<unk>")
PLACEHOLDERS = ("<image>", "<video>")


def generated_word() -> st.SearchStrategy[str]:
    """A word of the synthetic corpus (stems, NNBSP suffixes, MVS, FVS), any seed."""
    return st.integers(0, 2**32 - 1).map(lambda s: corpus.word(random.Random(s)))


def raw_mongolian() -> st.SearchStrategy[str]:
    """Letters, any code point of the blocks and every control, in any order: controls at
    the start, doubled, after punctuation, NNBSP at the edges..."""
    return st.lists(
        st.one_of(st.sampled_from(MONGOLIAN_LETTERS), st.sampled_from(CONTROLS),
                  st.sampled_from(MONGOLIAN_ALL)),
        min_size=1, max_size=10).map("".join)


def mongolian() -> st.SearchStrategy[str]:
    return st.one_of(generated_word(), generated_word(), raw_mongolian())


def fragments(specials: Sequence[str] = SPECIALS,
              placeholders: Sequence[str] = PLACEHOLDERS) -> st.SearchStrategy[str]:
    near_misses = [s[:-1] for s in (*specials, *placeholders) if len(s) > 1]
    return st.one_of(
        st.sampled_from(LATIN_WORDS),
        st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF), min_size=1,
                max_size=4),
        st.sampled_from(EMOJI),
        mongolian(),
        mongolian(),
        st.sampled_from(CONTROLS),
        st.sampled_from(WHITESPACE),
        st.sampled_from(tuple(placeholders)),
        st.sampled_from(tuple(specials)),
        st.sampled_from(tuple(near_misses)),
        st.text(max_size=4),
    )


def mixed_texts(specials: Sequence[str] = SPECIALS,
                placeholders: Sequence[str] = PLACEHOLDERS,
                max_fragments: int = 10) -> st.SearchStrategy[str]:
    return st.lists(fragments(specials, placeholders), max_size=max_fragments).map("".join)


def morph_texts() -> st.SearchStrategy[str]:
    """Texts for the morph-track differential: mostly Mongolian, also mixed."""
    sentence = st.lists(mongolian(), min_size=1, max_size=5).map(" ".join)
    return st.one_of(mongolian(), sentence, mixed_texts())


def image_items() -> st.SearchStrategy[int]:
    return st.integers(1, 4)


def video_items() -> st.SearchStrategy[tuple[int, int]]:
    return st.tuples(st.integers(1, 3), st.integers(1, 3))
