"""Benchmark section ``encode``: encode throughput (characters/s) of the real Mistral v0.1
tokenizer and of the small trained vocabulary over the real-model corpus, warm and cold,
upstream's ``encode_batch`` for scale and the reference's profile; then every conformance
fixture's load time on each side (strict refusal, then the lenient load, where it refuses)
and its warm corpus encode, with the ratios."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from .figures import profile_top, rates, ratios, summary, timed
from .inputs import corpus_texts, load_pair, real_model_json
from .scales import REAL_MODEL, Scale
from .vocabularies import small_vocabulary


def encode_figures(document_json: str, texts: Sequence[str], repeats: int, *,
                   profile: bool) -> dict[str, Any]:
    """Warm and cold corpus encodes, reference vs upstream single-call ``encode``."""
    chars = sum(len(t) for t in texts)
    pair = load_pair(document_json)
    ref_encode, up_encode = pair.reference.encode, pair.upstream.encode

    def ref_pass(encode: Callable[[str], Any] = ref_encode) -> None:
        for text in texts:
            encode(text)

    def up_pass(encode: Callable[[str], Any] = up_encode) -> None:
        for text in texts:
            encode(text)

    agree = sum(ref_encode(t) == up_encode(t).ids for t in texts)  # also the warm-up pass
    warm_ref: list[float] = []
    warm_up: list[float] = []
    batch: list[float] = []
    for _ in range(repeats):
        warm_ref.append(timed(ref_pass))
        warm_up.append(timed(up_pass))
        batch.append(timed(lambda: pair.upstream.encode_batch(list(texts))))
    cold_ref: list[float] = []
    cold_up: list[float] = []
    load_ref: list[float] = [pair.reference_load_seconds]
    load_up: list[float] = [pair.upstream_load_seconds]
    for _ in range(repeats):
        fresh = load_pair(document_json)
        load_ref.append(fresh.reference_load_seconds)
        load_up.append(fresh.upstream_load_seconds)
        cold_ref.append(timed(lambda f=fresh: ref_pass(f.reference.encode)))  # type: ignore[misc]
        cold_up.append(timed(lambda f=fresh: up_pass(f.upstream.encode)))  # type: ignore[misc]
        del fresh
    out: dict[str, Any] = {
        "texts": len(texts),
        "characters": chars,
        "ids_agree": f"{agree}/{len(texts)}",
        "warm": {
            "what": "word caches filled by a first pass (the steady state of a long run)",
            "reference_chars_per_second": rates(chars, warm_ref),
            "upstream_chars_per_second": rates(chars, warm_up),
            "ratio": ratios(warm_ref, warm_up),
        },
        "cold": {
            "what": "a fresh load of both sides before every pass (empty word caches)",
            "reference_chars_per_second": rates(chars, cold_ref),
            "upstream_chars_per_second": rates(chars, cold_up),
            "ratio": ratios(cold_ref, cold_up),
        },
        "upstream_encode_batch_chars_per_second": rates(chars, batch),
        "load_seconds": {"reference": summary(load_ref), "upstream": summary(load_up)},
    }
    if profile:
        out["reference_profile_warm"] = profile_top(ref_pass)
    return out


def section_encode(scale: Scale, notes: list[str]) -> dict[str, Any]:
    texts = corpus_texts(scale.corpus_texts)
    out: dict[str, Any] = {"corpus": "fixtures/corpus/real_model_corpus.json"}
    document, where = real_model_json()
    if document is None:
        out[REAL_MODEL] = {"skipped": where}
        notes.append(f"encode: {where}")
    else:
        out[REAL_MODEL] = {"fixture": where,
                           **encode_figures(document, texts, scale.repeats, profile=True)}
    small = small_vocabulary(texts, scale.small_vocabulary_merges)
    out["small_vocabulary"] = {
        "what": "Mistral's pipeline around a vocabulary trained here on the corpus: "
                "3 specials, 256 byte pieces, the characters seen 3+ times, and "
                f"{len(small['model']['merges'])} merges",
        "vocabulary_size": len(small["model"]["vocab"]),
        **encode_figures(json.dumps(small, ensure_ascii=False), texts, scale.repeats,
                         profile=False),
    }
    out["fixtures"] = {name: fixture_figures(name, texts, scale.repeats, notes)
                       for name in scale.fixtures}
    return out


def _timed_load(action: Callable[[], Any]) -> tuple[float, Any]:
    """One load, the cyclic GC on (a user's load runs with it; it is a large share of a
    pure-Python load of a big file)."""
    gc.collect()
    started = time.perf_counter()
    loaded = action()
    return time.perf_counter() - started, loaded


def fixture_figures(name: str, texts: Sequence[str], repeats: int, notes: list[str]
                    ) -> dict[str, Any]:
    """Load time and warm corpus encode of one real-model fixture, both sides."""
    import tokenizers

    import implementation

    from ..fixtures.real_models import FixtureError, build_fixture

    try:
        path = build_fixture(name)
    except FixtureError as exc:
        notes.append(f"encode: fixture {name} cannot be built here: {exc}")
        return {"skipped": str(exc)}
    text = path.read_text(encoding="utf-8")
    ref_load: list[float] = []
    refusals: list[float] = []
    up_load: list[float] = []
    refused: str | None = None
    reference: Any = None
    upstream: Any = None
    for _ in range(repeats):
        gc.collect()
        started = time.perf_counter()
        try:
            reference = implementation.load_tokenizer(text, strict=True)
            seconds = time.perf_counter() - started
        except implementation.LoadError as exc:
            refusals.append(time.perf_counter() - started)
            refused = f"{exc.rule} at {exc.path}"
            seconds, reference = _timed_load(
                lambda: implementation.load_tokenizer(text, strict=False))
        ref_load.append(seconds)
        seconds, upstream = _timed_load(lambda: tokenizers.Tokenizer.from_str(text))
        up_load.append(seconds)
    ref_encode, up_encode = reference.encode, upstream.encode
    agree = sum(ref_encode(t) == up_encode(t).ids for t in texts)  # also the warm-up pass
    ref_pass: list[float] = []
    up_pass: list[float] = []
    for _ in range(repeats):
        ref_pass.append(timed(lambda: [ref_encode(t) for t in texts]))
        up_pass.append(timed(lambda: [up_encode(t) for t in texts]))
    out: dict[str, Any] = {
        "ids_agree": f"{agree}/{len(texts)}",
        "load_seconds": {"reference": summary(ref_load), "upstream": summary(up_load),
                         "ratio": ratios(ref_load, up_load)},
        "corpus_encode_seconds": {"reference": summary(ref_pass),
                                  "upstream": summary(up_pass),
                                  "ratio": ratios(ref_pass, up_pass)},
    }
    if refused is not None:
        out["load_seconds"]["what"] = ("the strict reference refuses the file "
                                       f"({refused}); reference: the lenient load that "
                                       "follows, strict_refusal: the time to the refusal")
        out["load_seconds"]["strict_refusal"] = summary(refusals)
    return out
