"""Benchmark section ``growth``: one word of 1k to 64k characters under the growth
vocabulary, and the fitted exponent k of time ~ n^k between the two largest sizes (from
the minimum of the repeats)."""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Sequence
from typing import Any

from .figures import ratios, round_figure, summary, timed
from .inputs import load_pair
from .scales import Scale
from .vocabularies import GROWTH_ALPHABET, GROWTH_TRAINING_WORD, growth_vocabulary, lcg_text


def exponent(n1: int, t1: float, n2: int, t2: float) -> float:
    """k in time ~ n^k through two points."""
    return math.log(t2 / t1) / math.log(n2 / n1)


def fitted_exponent(sizes: Sequence[int], seconds: Sequence[float]) -> float:
    """Least-squares slope of log(time) over log(size)."""
    xs = [math.log(n) for n in sizes]
    ys = [math.log(t) for t in seconds]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
            / sum((x - mx) ** 2 for x in xs))


def section_growth(scale: Scale, notes: list[str]) -> dict[str, Any]:
    started = time.perf_counter()
    document = growth_vocabulary(scale.growth_merges, scale.growth_training_chars)
    built = time.perf_counter() - started
    pair = load_pair(json.dumps(document))
    longest = max(scale.growth_sizes)
    text = lcg_text(longest, seed=2)
    sizes: dict[str, Any] = {}
    minimum: dict[str, list[float]] = {"reference": [], "upstream": []}
    words = [text[:n] for n in scale.growth_sizes]
    ids = [(pair.reference.encode(w), pair.upstream.encode(w).ids) for w in words]  # warm-up
    times: list[tuple[list[float], list[float]]] = [([], []) for _ in words]
    # Every repeat times every size in turn: a burst of other work on the machine then
    # slows one repeat of every size, not every repeat of one size (the minima stay apart).
    for _ in range(scale.repeats):
        for word, (ref_s, up_s) in zip(words, times, strict=True):
            ref_s.append(timed(lambda w=word: pair.reference.encode(w)))  # type: ignore[misc]
            up_s.append(timed(lambda w=word: pair.upstream.encode(w)))  # type: ignore[misc]
    for n, (ref_ids, up_ids), (ref_s, up_s) in zip(scale.growth_sizes, ids, times, strict=True):
        minimum["reference"].append(min(ref_s))
        minimum["upstream"].append(min(up_s))
        sizes[str(n)] = {
            "tokens": len(up_ids),
            "merges_applied": n - len(up_ids),
            "ids_agree": ref_ids == up_ids,
            "reference_seconds": summary(ref_s),
            "upstream_seconds": summary(up_s),
            "ratio": ratios(ref_s, up_s),
        }
    small, large = sorted(scale.growth_sizes)[-2:]
    i, j = scale.growth_sizes.index(small), scale.growth_sizes.index(large)
    out = {
        "vocabulary": {
            "what": f"model only, {len(document['model']['merges'])} merges trained on "
                    f"{scale.growth_training_chars} pseudo-random characters over "
                    f"{GROWTH_ALPHABET!r} ({GROWTH_TRAINING_WORD}-character words, pairs "
                    "seen at least twice); no normalizer or "
                    "pre-tokenizer, so the text is one word",
            "vocabulary_size": len(document["model"]["vocab"]),
            "longest_token": max(len(t) for t in document["model"]["vocab"]),
            "build_seconds": round_figure(built),
        },
        "word": f"one pseudo-random word over {GROWTH_ALPHABET!r}: the first n characters",
        "sizes": sizes,
        f"exponent_{small}_to_{large}": {
            side: round_figure(exponent(small, minimum[side][i], large, minimum[side][j]), 3)
            for side in ("reference", "upstream")},
        "exponent_least_squares_all_sizes": {
            side: round_figure(fitted_exponent(scale.growth_sizes, minimum[side]), 3)
            for side in ("reference", "upstream")},
        "exponent_from": "the minimum of the repeats at each size",
    }
    return out
