"""Benchmark section ``long_words``: one long word (no pre-tokenizer splits it) of 1k to 50k
characters, Latin script and CJK, under the real Mistral v0.1 tokenizer (a whole text is
one BPE word, byte fallback on) and the small trained vocabulary: warm and cold."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .figures import rates, ratios, summary, timed
from .inputs import corpus_texts, load_pair, real_model_json
from .scales import REAL_MODEL, Scale
from .vocabularies import small_vocabulary

#: Corpus tags of texts that are not plain prose of their script (or hold special tokens).
LONG_WORD_EXCLUDED_TAGS = frozenset({"special", "special-literal", "control"})
CJK_PREFIXES = ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "IDEOGRAPHIC", "FULLWIDTH")


def lcg_indices(count: int, modulo: int, seed: int) -> Iterator[int]:
    """``count`` deterministic pseudo-random indices below ``modulo`` (``lcg_text``'s
    generator)."""
    state = seed
    for _ in range(count):
        state = (1103515245 * state + 12345) % 2**31
        yield (state >> 16) % modulo


def long_word_pools(entries: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """What the long texts are drawn from, out of the real-model corpus' prose: the words
    of its Latin-script texts (every letter a LATIN one), and the characters of its CJK
    texts that are CJK, kana, hangul or full-width (so no space, no ASCII)."""
    import unicodedata

    def letters_are(text: str, prefixes: tuple[str, ...]) -> bool:
        return all(not c.isalpha() or unicodedata.name(c, "").startswith(prefixes)
                   for c in text)

    prose = [e["text"] for e in entries if "prose" in e["tags"]
             and not LONG_WORD_EXCLUDED_TAGS & set(e["tags"])]
    latin = [w for t in prose if letters_are(t, ("LATIN",)) for w in t.split()]
    cjk = [c for t in prose if any(unicodedata.name(c, "").startswith(CJK_PREFIXES) for c in t)
           for c in t if unicodedata.name(c, "").startswith(CJK_PREFIXES)]
    return {"latin": latin, "cjk": cjk}


def long_text(pool: Sequence[str], script: str, length: int, seed: int) -> str:
    """``length`` characters drawn from ``pool``: words joined by single spaces (Latin), or
    characters end to end (CJK), in a deterministic pseudo-random order."""
    separator = " " if script == "latin" else ""
    out: list[str] = []
    size = 0
    for index in lcg_indices(length, len(pool), seed):  # at least a character per draw
        out.append(pool[index])
        size += len(pool[index]) + len(separator)
        if size >= length:
            break
    return separator.join(out)[:length]


def long_word_figures(document_json: str, pools: Mapping[str, Sequence[str]],
                      sizes: Sequence[int], repeats: int) -> dict[str, Any]:
    """Warm and cold encodes of one long word per script and size."""
    pair = load_pair(document_json)
    out: dict[str, Any] = {}
    for script, pool in pools.items():
        for n in sizes:
            # Seed 1 warms the reference's caches; every repeat encodes a text of its own.
            pair.reference.encode(long_text(pool, script, n, seed=1))
            texts = [long_text(pool, script, n, seed=2 + r) for r in range(repeats)]
            agree = sum(pair.reference.encode(t) == pair.upstream.encode(t).ids for t in texts)
            words = {len(pair.reference.pre_tokenize(t)) for t in texts}
            tokens = [len(pair.upstream.encode(t).ids) for t in texts]
            warm_ref: list[float] = []
            warm_up: list[float] = []
            cold_ref: list[float] = []
            cold_up: list[float] = []
            for text in texts:
                warm_ref.append(timed(lambda t=text: pair.reference.encode(t)))  # type: ignore[misc]
                warm_up.append(timed(lambda t=text: pair.upstream.encode(t)))  # type: ignore[misc]
            for text in texts:
                fresh = load_pair(document_json)
                cold_ref.append(timed(lambda t=text, f=fresh: f.reference.encode(t)))  # type: ignore[misc]
                cold_up.append(timed(lambda t=text, f=fresh: f.upstream.encode(t)))  # type: ignore[misc]
                del fresh
            out[f"{script}_{n}"] = {
                "characters": n,
                "words_seen_by_the_model": sorted(words),
                "tokens": summary(tokens),
                "ids_agree": f"{agree}/{len(texts)}",
                "warm": {
                    "reference_chars_per_second": rates(n, warm_ref),
                    "upstream_chars_per_second": rates(n, warm_up),
                    "ratio": ratios(warm_ref, warm_up),
                },
                "cold": {"ratio": ratios(cold_ref, cold_up),
                         "reference_seconds": summary(cold_ref)},
            }
    return out


def section_long_words(scale: Scale, notes: list[str]) -> dict[str, Any]:
    from ..runs.real_models import load_corpus

    entries = load_corpus()
    pools = long_word_pools(entries)
    out: dict[str, Any] = {
        "what": "one text = one BPE word (the model sees it whole: no pre-tokenizer, no added "
                "token inside), encoded by both sides; ratio = reference / upstream time of "
                "the same text, back to back. Each repeat encodes a text of its own (seeds 2, "
                "3, ...). warm: the reference's caches (words, and the pieces of long words) "
                "already hold another text of the kind (seed 1), as in a long run; cold: a "
                "fresh load of both sides before the encode (empty caches, and the "
                "reference's one-time table of merge results built by this first long word)",
        "texts": {
            "source": "fixtures/corpus/real_model_corpus.json, texts tagged prose (without "
                      "special, special-literal or control tags)",
            "latin": f"words of the Latin-script texts (every letter a LATIN one; "
                     f"{len(pools['latin'])} words, {len(set(pools['latin']))} distinct), "
                     "drawn pseudo-randomly and joined by single spaces",
            "cjk": f"the CJK, kana, hangul and full-width characters of the CJK texts "
                   f"({len(pools['cjk'])}, {len(set(pools['cjk']))} distinct), drawn "
                   "pseudo-randomly, end to end",
        },
    }
    document, where = real_model_json()
    if document is None:
        out[REAL_MODEL] = {"skipped": where}
        notes.append(f"long_words: {where}")
    else:
        out[REAL_MODEL] = {
            "fixture": where,
            "why": "a real vocabulary (32,000 pieces, 58,980 merges) whose pipeline makes a "
                   "whole text one word: Prepend and Replace(' ', '▁') normalizers and no "
                   "pre-tokenizer, byte_fallback for the characters it lacks (most of the "
                   "CJK ones) - the shape of the long words the issue names",
            **long_word_figures(document, pools, scale.long_word_sizes, scale.repeats)}
    small = small_vocabulary(corpus_texts(scale.corpus_texts), scale.small_vocabulary_merges)
    out["small_vocabulary"] = {
        "what": "the encode section's small vocabulary (Mistral's pipeline, "
                f"{len(small['model']['merges'])} merges trained here): the same without "
                "the fixture",
        **long_word_figures(json.dumps(small, ensure_ascii=False), pools,
                            scale.long_word_sizes, scale.repeats)}
    return out
