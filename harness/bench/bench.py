"""Benchmarks: the reference against ``tokenizers`` 0.23.1, side by side, in one process.

    python -m harness bench [--scale full|tiny] [--repeats N] [--only SECTION,...]
                            [--output FILE | --write]

(``nox -s bench`` installs ``.[harness]`` and runs it). The figures are printed; ``--output``
writes them to a file, and only ``--write`` (a full run of every section) rewrites the
committed ``reports/bench.yaml``.
Every figure is measured several times and reported as min / median / max over the
repeats; ratios are reference time over upstream time, measured back to back on the same
inputs, so a busy machine slows both sides of one pair alike. Sections:

encode    encode throughput (characters/s) of the real Mistral v0.1 tokenizer over the
          real-model corpus, and of a small vocabulary trained here on the same corpus:
          warm (word caches filled by a first pass), cold (a fresh load for every pass),
          and upstream's ``encode_batch`` for scale; the reference's profile on the corpus
          (what bounds the ratio). Then every conformance fixture (``fixtures``): its load
          time on each side (the cyclic GC on, as a user loads; where the strict reference
          refuses the file, the time to that refusal and the lenient load that follows)
          and the warm corpus encode (as the real-model run times it), with the ratios.
growth    cost growth: one word of 1k, 4k, 16k and 64k characters under a vocabulary of
          thousands of merges trained on a four-letter text (so a long word keeps merging
          down to tokens of ~6 letters), and the fitted exponent k of time ~ n^k between
          16k and 64k from the minimum of the repeats.
long_words  one long word (no pre-tokenizer splits it) of 1k, 5k and 50k characters, Latin
          script and CJK, under the real Mistral v0.1 tokenizer (its normalizer turns spaces
          into "▁" and it has no pre-tokenizer, so a whole text is one BPE word, byte
          fallback on) and under the small vocabulary trained here: warm (the reference's
          caches filled by other texts of the kind) and cold (a fresh load of both sides).
harness   the default conformance profile's exploration phase (no shrinking): comparisons
          per second, and the split of its time between generation (Hypothesis drawing the
          cases), the upstream subject, the reference subject, comparison, classification,
          recording and the rest (Hypothesis' engine), timed exclusively with
          ``time.perf_counter`` around each stage.
decode    decode throughput (ids/s) on long id sequences of the Mistral tokenizer, with
          byte-fallback runs (valid UTF-8 and cut characters) between corpus encodings.
memory    peak resident memory (VmHWM) of a child process running the default
          exploration and then the real-model conformance at a reduced budget.

Benchmarks are not tests: nothing here asserts a time. ``reports/bench.yaml`` also
carries an ``acceptance`` block (the limits of the issue that asked for this, with the
value reached) for the reader.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import heapq
import itertools
import json
import math
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..core.resources import checkout_root
from ..documents import METASPACE, bpe_model, byte_alphabet, document, llama_pipeline

LLAMA_SPECIALS = ("<unk>", "<s>", "</s>")

#: git commands and the memory child run here: the checkout, else the working directory.
REPO_ROOT = checkout_root() or Path(".")
#: The committed figures; written only with ``--write`` (else ``--output`` or stdout).
COMMITTED_OUTPUT = Path("reports") / "bench.yaml"
SECTIONS = ("encode", "growth", "long_words", "harness", "decode", "memory")
REAL_MODEL = "mistral-v0.1"

#: The issue's limits, reported beside the values reached (never asserted).
GROWTH_EXPONENT_LIMIT = 1.2
FIXTURE_ENCODE_RATIO_LIMIT = 3.0
FIXTURE_LOAD_RATIO_LIMIT = 2.0
MISTRAL_RATIO_LIMIT = 15.0
LONG_WORD_RATIO_LIMIT = 10.0
COMPARISONS_PER_SECOND_FLOOR = 500.0

PREAMBLE = """\
Benchmarks: the reference tokenizer (implementation/) against HuggingFace tokenizers,
in one process, on the same inputs; written by `python -m harness bench` (nox -s bench).
Every figure: min / median / max over `repeats` runs. Times are wall-clock seconds
(time.perf_counter); ratio = reference time / upstream time, the two measured back to
back (so a busy machine slows both sides of a pair alike); rates per repeat (their max is
the fastest repeat, the one least disturbed by other work on the machine).
The machine's load average is recorded at the start and end of every section: figures
taken under load are slower, ratios much less so.
"""


@dataclass(frozen=True)
class Scale:
    """How much work each section does."""

    name: str
    repeats: int
    #: Texts of the real-model corpus to encode (None: all of them).
    corpus_texts: int | None
    small_vocabulary_merges: int
    growth_sizes: tuple[int, ...]
    growth_merges: int
    growth_training_chars: int
    long_word_sizes: tuple[int, ...]
    #: Cases per exploration (None: the default profile's budget) and explorations.
    harness_examples: int | None
    harness_repeats: int
    decode_sequences: int
    decode_length: int
    memory_examples: int | None
    #: Hypothesis texts per real-model fixture in the memory run (-1: no real models).
    memory_real_examples: int
    memory_repeats: int
    #: The real-model fixtures whose load and corpus encode the encode section times.
    fixtures: tuple[str, ...] = (REAL_MODEL,)


def _conformance_fixtures() -> tuple[str, ...]:
    from ..fixtures.real_models import CONFORMANCE_FIXTURES

    return CONFORMANCE_FIXTURES


SCALES: dict[str, Scale] = {
    s.name: s
    for s in (
        Scale("full", repeats=7, corpus_texts=None, small_vocabulary_merges=1000,
              growth_sizes=(1024, 4096, 16384, 65536), growth_merges=4000,
              growth_training_chars=131072, long_word_sizes=(1000, 5000, 50000),
              harness_examples=None, harness_repeats=3,
              decode_sequences=8, decode_length=16384, memory_examples=None,
              memory_real_examples=200, memory_repeats=2, fixtures=_conformance_fixtures()),
        Scale("tiny", repeats=2, corpus_texts=40, small_vocabulary_merges=40,
              growth_sizes=(64, 128, 256, 512), growth_merges=60, growth_training_chars=2048,
              long_word_sizes=(300, 1000),
              harness_examples=6, harness_repeats=2, decode_sequences=2, decode_length=512,
              memory_examples=4, memory_real_examples=-1, memory_repeats=1),
    )
}


# --- figures -------------------------------------------------------------------------------------

def _round(value: float, digits: int = 4) -> float:
    """``value`` to ``digits`` significant figures (the YAML stays readable)."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def summary(values: Sequence[float]) -> dict[str, Any]:
    """min / median / max of the repeats, and how many there were."""
    if not values:
        raise ValueError("a figure needs at least one repeat")
    return {"min": _round(min(values)), "median": _round(statistics.median(values)),
            "max": _round(max(values)), "repeats": len(values)}


def rates(amount: float, seconds: Sequence[float]) -> dict[str, Any]:
    """``amount`` per second for each repeat's time."""
    return summary([amount / max(s, 1e-12) for s in seconds])


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> dict[str, Any]:
    """Pairwise ratios of repeats measured back to back."""
    return summary([a / max(b, 1e-12) for a, b in zip(numerators, denominators, strict=True)])


@contextmanager
def _no_gc() -> Iterator[None]:
    """Like ``timeit``: the cyclic collector off while a pass is timed."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def timed(action: Callable[[], object]) -> float:
    with _no_gc():
        started = time.perf_counter()
        action()
        return time.perf_counter() - started


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not available on this platform
        return []


# --- the environment -----------------------------------------------------------------------------

def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=REPO_ROOT, check=True, capture_output=True,
                               text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (with local changes)" if dirty else "")


def environment(scale: Scale, command: str) -> dict[str, Any]:
    from ..job import environment as conformance_environment

    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        usable = os.cpu_count() or 0
    return {
        **conformance_environment(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count() or 0,
        "cpus_usable": usable,
        "commit": _git_commit(),
        "date": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": command,
        "scale": scale.name,
        "timer": "time.perf_counter (wall clock); the cyclic GC off while encode/decode/"
                 "growth passes are timed, on during the harness exploration",
    }


# --- vocabularies built here ---------------------------------------------------------------------

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


# --- loading both sides --------------------------------------------------------------------------

@dataclass
class Pair:
    """One tokenizer.json loaded by both sides."""

    reference: Any
    upstream: Any
    reference_load_seconds: float
    upstream_load_seconds: float


def load_pair(document_json: str) -> Pair:
    import tokenizers

    import implementation

    started = time.perf_counter()
    reference = implementation.load_tokenizer(document_json, strict=True)
    middle = time.perf_counter()
    upstream = tokenizers.Tokenizer.from_str(document_json)
    return Pair(reference, upstream, middle - started, time.perf_counter() - middle)


def corpus_texts(limit: int | None) -> list[str]:
    from ..runs.real_models import load_corpus

    texts = [entry["text"] for entry in load_corpus()]
    return texts if limit is None else texts[:limit]


def real_model_json() -> tuple[str | None, str]:
    """The Mistral v0.1 tokenizer.json text, or None and why it could not be built."""
    from ..fixtures.real_models import FixtureError, build_fixture

    try:
        path = build_fixture(REAL_MODEL)
    except FixtureError as exc:
        return None, f"fixture {REAL_MODEL} cannot be built here: {exc}"
    return path.read_text(encoding="utf-8"), str(path.relative_to(REPO_ROOT)
                                                 if path.is_relative_to(REPO_ROOT) else path)


# --- 1. encode throughput ------------------------------------------------------------------------

def _profile_top(action: Callable[[], object], top: int = 8) -> list[dict[str, Any]]:
    """The functions with the largest share of internal time while ``action`` runs."""
    profiler = cProfile.Profile()
    profiler.enable()
    action()
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in rows.values()) or 1e-12
    ordered = sorted(rows.items(), key=lambda item: item[1][2], reverse=True)[:top]
    out = []
    for (filename, line, name), row in ordered:
        where = Path(filename)
        label = (f"{where.relative_to(REPO_ROOT)}:{line}({name})"
                 if where.is_relative_to(REPO_ROOT) else f"{where.name}:{line}({name})"
                 if line else name)
        out.append({"function": label, "calls": row[1], "share": _round(row[2] / total, 3)})
    return out


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
        out["reference_profile_warm"] = _profile_top(ref_pass)
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


# --- 2. cost growth ------------------------------------------------------------------------------

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
            "build_seconds": _round(built),
        },
        "word": f"one pseudo-random word over {GROWTH_ALPHABET!r}: the first n characters",
        "sizes": sizes,
        f"exponent_{small}_to_{large}": {
            side: _round(exponent(small, minimum[side][i], large, minimum[side][j]), 3)
            for side in ("reference", "upstream")},
        "exponent_least_squares_all_sizes": {
            side: _round(fitted_exponent(scale.growth_sizes, minimum[side]), 3)
            for side in ("reference", "upstream")},
        "exponent_from": "the minimum of the repeats at each size",
    }
    return out


# --- 2b. long words -----------------------------------------------------------------------------

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


# --- 3. harness throughput -----------------------------------------------------------------------

class StageClock:
    """Exclusive time per stage: entering a stage pauses the one it was called from."""

    def __init__(self) -> None:
        self.totals: defaultdict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()
        self._stack: list[str] = []
        self._mark = 0.0

    def enter(self, stage: str) -> None:
        now = time.perf_counter()
        if self._stack:
            self.totals[self._stack[-1]] += now - self._mark
        self._stack.append(stage)
        self.calls[stage] += 1
        self._mark = now

    def exit(self) -> None:
        now = time.perf_counter()
        self.totals[self._stack.pop()] += now - self._mark
        self._mark = now

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """The engine's timing hook (``runs.engine.Timing``): its stages, named as this
        section reports them."""
        self.enter(ENGINE_STAGES.get(name, name))
        try:
            yield
        finally:
            self.exit()


#: The engine's stage names -> this section's.
ENGINE_STAGES = {"observe": "execute_glue", "replay": "reference_for_classification",
                 "specification": "classify"}


class TimedSubject:
    """A subject whose every call is timed as ``stage`` (the rest is the subject's own)."""

    def __init__(self, subject: Any, clock: StageClock, stage: str) -> None:
        self.subject, self.clock, self.stage = subject, clock, stage

    def __getattr__(self, name: str) -> Any:
        return getattr(self.subject, name)

    def _timed(self, call: Callable[[], Any]) -> Any:
        self.clock.enter(self.stage)
        try:
            return call()
        finally:
            self.clock.exit()

    def load(self, document: str) -> Any:
        return self._timed(lambda: self.subject.load(document))

    def encode(self, handle: Any, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Any:
        return self._timed(lambda: self.subject.encode(
            handle, text, pair, add_special_tokens=add_special_tokens))

    def decode(self, handle: Any, ids: Any, *, skip_special_tokens: bool) -> Any:
        return self._timed(lambda: self.subject.decode(
            handle, ids, skip_special_tokens=skip_special_tokens))


def timed_observer(clock: StageClock) -> Callable[[Any], Any]:
    """The generated run's observer over subjects timed as ``upstream`` and ``reference``."""
    from ..runs.observe import observe_case
    from ..subjects.reference import LENIENT, STRICT
    from ..subjects.upstream import UPSTREAM

    upstream = TimedSubject(UPSTREAM, clock, "upstream")
    tracks: Any = (TimedSubject(STRICT, clock, "reference"),
                   TimedSubject(LENIENT, clock, "reference"))
    return lambda case: observe_case(case, upstream, tracks)


def timed_strategy(strategy: Any, clock: StageClock) -> Any:
    """``strategy`` with its draws timed as ``generation`` (the same choices are drawn)."""
    from hypothesis import strategies as st

    @st.composite
    def drawn(draw: st.DrawFn) -> Any:
        clock.enter("generation")
        try:
            return draw(strategy)
        finally:
            clock.exit()

    return drawn()


STAGES = ("generation", "upstream", "reference", "reference_for_classification",
          "execute_glue", "compare", "classify", "record", "engine_and_rest")
#: The stages that are the subjects' own work (harness efficiency: their share of the wall).
SUBJECT_STAGES = ("upstream", "reference", "reference_for_classification")

STAGE_MEANING = {
    "generation": "Hypothesis drawing the cases (harness/strategies)",
    "upstream": "the upstream subject: tokenizers load/encode/decode and their Outcomes",
    "reference": "the reference subject: implementation/ load/encode/decode (both tracks)",
    "reference_for_classification": "what the judge has run again through its replayer "
                                    "(harness/runs/replay.py: the lenient reference "
                                    "re-loaded for the predicates, say)",
    "execute_glue": "harness/runs/observe.py around the subjects (document JSON, "
                    "Observations)",
    "compare": "harness/judge/compare.py: tiered comparison of each observation",
    "classify": "harness/judge/classify.py and the predicates, without what the replayer "
                "runs",
    "record": "Tally.record: counts, witnesses, rule coverage",
    "engine_and_rest": "the rest of the wall time: Hypothesis' engine (choice trees, "
                       "mutations), the test wrapper",
}


def explore_once(examples: int, seed_value: int) -> dict[str, Any]:
    """One instrumented exploration of ``examples`` cases of the default strategy."""
    from ..judge.coverage import rules_exercised
    from ..runs import generated
    from ..runs.engine import Engine
    from ..runs.tally import Tally

    clock = StageClock()
    stats = Tally()
    strategy = timed_strategy(generated.default_strategy(), clock)
    engine = Engine(observe=timed_observer(clock), rules=rules_exercised, timing=clock)
    cpu = time.process_time()
    started = time.perf_counter()
    engine.explore(strategy, budget=examples, seed_value=seed_value, tally=stats)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu
    stages = {stage: clock.totals.get(stage, 0.0) for stage in STAGES[:-1]}
    stages["engine_and_rest"] = max(0.0, wall - sum(stages.values()))
    return {"examples": stats.examples, "comparisons": stats.comparisons, "wall": wall,
            "cpu": cpu, "stages": stages}


def section_harness(scale: Scale, notes: list[str]) -> dict[str, Any]:
    from ..core.profiles import DEFAULT_PROFILE, PROFILES

    profile = PROFILES[DEFAULT_PROFILE]
    examples = profile.examples if scale.harness_examples is None else scale.harness_examples
    seed_value = 0
    runs = [explore_once(examples, seed_value) for _ in range(scale.harness_repeats)]
    comparisons = [r["comparisons"] for r in runs]
    if len(set(comparisons)) != 1:
        notes.append(f"harness: the repeats compared different counts {comparisons} "
                     "(expected the same cases every time)")
    walls = [r["wall"] for r in runs]
    split: dict[str, Any] = {}
    for stage in STAGES:
        shares = [r["stages"][stage] / r["wall"] for r in runs]
        split[stage] = {"share": summary(shares),
                        "seconds": summary([r["stages"][stage] for r in runs]),
                        "what": STAGE_MEANING[stage]}
    grouped = {
        "generation": ("generation",),
        "upstream_subject": ("upstream",),
        "reference_subject": ("reference", "reference_for_classification"),
        "classification": ("compare", "classify"),
        "harness_glue_and_recording": ("execute_glue", "record"),
        "hypothesis_engine_and_rest": ("engine_and_rest",),
    }
    return {
        "what": f"the exploration phase of the default conformance profile "
                f"({profile.name}: {profile.examples} cases, seed {seed_value}, one process, "
                "no shrinking), instrumented with time.perf_counter around each stage",
        "note": "Hypothesis mixes constants from the loaded modules of this repository into "
                "what it draws, so with this module and the other sections loaded a seed "
                "explores other cases than `python -m harness conformance` does (the same "
                "mix); the repeats explore the same cases",
        "examples": runs[0]["examples"],
        "comparisons": runs[0]["comparisons"],
        "comparisons_per_second": rates(runs[0]["comparisons"], walls),
        "comparisons_per_cpu_second": rates(runs[0]["comparisons"],
                                            [r["cpu"] for r in runs]),
        "cases_per_second": rates(runs[0]["examples"], walls),
        "seconds": summary(walls),
        "split": split,
        "split_summary": {
            name: summary([sum(r["stages"][s] for s in members) / r["wall"] for r in runs])
            for name, members in grouped.items()},
        # Harness efficiency (issue 24): the subjects' own time as a share of the wall time
        # (goal: at least half; before the cheaper cases it was 0.13).
        "subjects_share": summary([sum(r["stages"][s] for s in SUBJECT_STAGES) / r["wall"]
                                   for r in runs]),
    }


# --- 4. decode throughput ------------------------------------------------------------------------

#: Byte runs put between corpus encodings: whole characters of 2, 3 and 4 bytes, and
#: cut ones (ByteFallback turns an invalid run into one U+FFFD per byte).
DECODE_BYTE_RUNS: tuple[tuple[str, bytes], ...] = (
    ("valid", "🦜".encode()), ("valid", "ꙮ".encode()), ("valid", "ǅ".encode()),
    ("cut", "🦜".encode()[:3]), ("valid", "𝔘𝔫𝔦".encode()), ("cut", "ꙮ".encode()[1:]),
)


def decode_sequences(upstream: Any, texts: Sequence[str], count: int, length: int
                     ) -> tuple[list[list[int]], int]:
    """``count`` sequences of ``length`` ids: corpus encodings with byte runs between them
    (cycling through the corpus as often as needed); and how many ids are byte pieces."""
    byte_ids = [upstream.token_to_id(f"<0x{b:02X}>") for b in range(256)]
    stream: list[int] = []
    runs = 0
    needed = count * length
    while len(stream) < needed:
        for text in texts:
            stream.extend(upstream.encode(text, add_special_tokens=False).ids)
            _, raw = DECODE_BYTE_RUNS[runs % len(DECODE_BYTE_RUNS)]
            stream.extend(byte_ids[b] for b in raw)
            runs += 1
            if len(stream) >= needed:
                break
    sequences = [stream[i * length:(i + 1) * length] for i in range(count)]
    byte_set = set(byte_ids)
    pieces = sum(1 for seq in sequences for i in seq if i in byte_set)
    return sequences, pieces


def section_decode(scale: Scale, notes: list[str]) -> dict[str, Any]:
    document, where = real_model_json()
    if document is None:
        notes.append(f"decode: {where}")
        return {"skipped": where}
    pair = load_pair(document)
    texts = corpus_texts(scale.corpus_texts)
    sequences, pieces = decode_sequences(pair.upstream, texts, scale.decode_sequences,
                                         scale.decode_length)
    total = sum(len(s) for s in sequences)
    agree = sum(pair.reference.decode(s) == pair.upstream.decode(s) for s in sequences)
    ref_s: list[float] = []
    up_s: list[float] = []
    for _ in range(scale.repeats):
        ref_s.append(timed(lambda: [pair.reference.decode(s) for s in sequences]))
        up_s.append(timed(lambda: [pair.upstream.decode(s) for s in sequences]))
    return {
        "fixture": where,
        "what": f"{len(sequences)} sequences of {scale.decode_length} ids: the corpus' "
                "encodings (no specials) with a byte run after each text (whole 2-, 3- and "
                "4-byte characters, and cut ones); decode(ids), skip_special_tokens=True",
        "ids": total,
        "byte_piece_share": _round(pieces / max(total, 1), 3),
        "sequences_agree": f"{agree}/{len(sequences)}",
        "reference_ids_per_second": rates(total, ref_s),
        "upstream_ids_per_second": rates(total, up_s),
        "ratio": ratios(ref_s, up_s),
        "reference_profile": _profile_top(
            lambda: [pair.reference.decode(s) for s in sequences], top=6),
    }


# --- 5. peak memory ------------------------------------------------------------------------------

def _max_rss_bytes() -> int:
    """This process' peak resident set size, in bytes.

    On Linux, ``VmHWM`` of /proc/self/status: ``ru_maxrss`` there also keeps the peak of
    the memory image an ``exec`` replaced, and a child started by ``subprocess`` (vfork,
    then exec) would report its parent's peak.
    """
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024  # kB
    except (OSError, ValueError, IndexError):
        pass
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024)  # Linux: KiB


def memory_child(examples: int, real_examples: int, seed_value: int) -> dict[str, Any]:
    """Runs in the child process: imports, exploration, pinned witnesses, real models;
    the peak resident size after each."""
    from ..runs.generated import ENGINE, default_strategy
    from ..runs.pinned import check_pinned_witnesses
    from ..runs.tally import Tally

    out: dict[str, Any] = {"after_imports": _max_rss_bytes()}
    stats = Tally()
    started = time.perf_counter()
    ENGINE.explore(default_strategy(), budget=examples, seed_value=seed_value, tally=stats)
    out["explore_seconds"] = time.perf_counter() - started
    out["comparisons"] = stats.comparisons
    out["after_exploration"] = _max_rss_bytes()
    check_pinned_witnesses()
    out["after_pinned_witnesses"] = _max_rss_bytes()
    if real_examples >= 0:
        from ..runs import real_models

        started = time.perf_counter()
        fixtures = real_models.run(examples=real_examples, seed_value=seed_value)
        out["real_seconds"] = time.perf_counter() - started
        out["real_fixtures"] = [f.name for f in fixtures]
        out["after_real_models"] = _max_rss_bytes()
    return out


def section_memory(scale: Scale, notes: list[str]) -> dict[str, Any]:
    from ..core.profiles import DEFAULT_PROFILE, PROFILES

    examples = (PROFILES[DEFAULT_PROFILE].examples if scale.memory_examples is None
                else scale.memory_examples)
    runs: list[dict[str, Any]] = []
    for _ in range(scale.memory_repeats):
        command = [sys.executable, "-m", "harness", "bench", "--memory-child",
                   "--memory-examples", str(examples),
                   "--memory-real-examples", str(scale.memory_real_examples)]
        done = subprocess.run(command, cwd=REPO_ROOT, check=True, capture_output=True,
                              text=True)
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    mib = 1024 * 1024
    phases = [p for p in ("after_imports", "after_exploration", "after_pinned_witnesses",
                          "after_real_models") if p in runs[0]]
    fixtures = ", ".join(runs[0].get("real_fixtures", []))
    real = (f"then the real-model conformance of every fixture ({fixtures}) with "
            f"{scale.memory_real_examples} generated texts each"
            if scale.memory_real_examples >= 0 else "no real models")
    return {
        "what": f"a child process: the default exploration ({examples} cases, seed 0), the "
                f"pinned witnesses, {real}; peak resident set (VmHWM) after each phase "
                "(shrinking and the unified morph track left out)",
        "peak_rss_mib": summary([r[phases[-1]] / mib for r in runs]),
        "peak_rss_mib_by_phase": {p: summary([r[p] / mib for r in runs]) for p in phases},
        "comparisons": runs[0]["comparisons"],
    }


# --- the run -------------------------------------------------------------------------------------

SECTION_FUNCTIONS: dict[str, Callable[[Scale, list[str]], dict[str, Any]]] = {
    "encode": section_encode,
    "growth": section_growth,
    "long_words": section_long_words,
    "harness": section_harness,
    "decode": section_decode,
    "memory": section_memory,
}


def acceptance(report: Mapping[str, Any]) -> dict[str, Any]:
    """The issue's limits beside the values reached (for the reader; never asserted)."""
    out: dict[str, Any] = {}
    growth = report.get("growth")
    if growth:
        key = next(k for k in growth if k.startswith("exponent_") and "_to_" in k)
        value = growth[key]["reference"]
        out["growth_exponent"] = {"figure": f"growth.{key}.reference", "value": value,
                                  "limit": f"<= {GROWTH_EXPONENT_LIMIT}",
                                  "met": value <= GROWTH_EXPONENT_LIMIT}
    mistral = (report.get("encode") or {}).get(REAL_MODEL) or {}
    if "warm" in mistral:
        value = mistral["warm"]["ratio"]["min"]
        out["mistral_encode_ratio"] = {
            "figure": f"encode.{REAL_MODEL}.warm.ratio.min", "value": value,
            "warm_ratio_median": mistral["warm"]["ratio"]["median"],
            "cold_ratio_min": mistral["cold"]["ratio"]["min"],
            "bounded_by": "the reference's pure-Python work per character and per token "
                          "(see reference_profile_warm: building tokens and spans, the "
                          "merges of the corpus texts too long for either word cache)",
            "limit": f"<= {MISTRAL_RATIO_LIMIT}", "met": value <= MISTRAL_RATIO_LIMIT}
    fixtures = {name: entry for name, entry in
                ((report.get("encode") or {}).get("fixtures") or {}).items()
                if "skipped" not in entry}
    for figure, limit, key in (("corpus_encode_seconds", FIXTURE_ENCODE_RATIO_LIMIT,
                                "fixture_encode_ratio"),
                               ("load_seconds", FIXTURE_LOAD_RATIO_LIMIT, "fixture_load_ratio")):
        if not fixtures:
            break
        by_fixture = {name: entry[figure]["ratio"]["min"] for name, entry in fixtures.items()}
        worst = max(by_fixture, key=by_fixture.__getitem__)
        out[key] = {"figure": f"encode.fixtures.<each>.{figure}.ratio.min (the largest: "
                              f"{worst})", "value": by_fixture[worst], "by_fixture": by_fixture,
                    "limit": f"<= {limit}", "met": by_fixture[worst] <= limit}
    long_words = report.get("long_words") or {}
    model = next((m for m in (REAL_MODEL, "small_vocabulary")
                  if "skipped" not in long_words.get(m, {"skipped": True})), None)
    if model is not None:
        figures = {key: entry for key, entry in long_words[model].items()
                   if isinstance(entry, dict) and "warm" in entry}
        worst = max(figures, key=lambda key: figures[key]["warm"]["ratio"]["median"])
        value = figures[worst]["warm"]["ratio"]["median"]
        out["long_word_ratio"] = {
            "figure": f"long_words.{model}.{worst}.warm.ratio.median (the largest of "
                      f"{', '.join(figures)})",
            "value": value,
            "by_size": {key: entry["warm"]["ratio"]["median"]
                        for key, entry in figures.items()},
            "cold_by_size": {key: entry["cold"]["ratio"]["median"]
                             for key, entry in figures.items()},
            "limit": f"<= {LONG_WORD_RATIO_LIMIT}", "met": value <= LONG_WORD_RATIO_LIMIT}
    harness = report.get("harness")
    if harness:
        value = harness["comparisons_per_second"]["max"]
        out["comparisons_per_second"] = {
            "figure": "harness.comparisons_per_second.max (the fastest repeat: least "
                      "disturbed by other load)", "value": value,
            "limit": f">= {COMPARISONS_PER_SECOND_FLOOR}",
            "met": value >= COMPARISONS_PER_SECOND_FLOOR}
    return out


def run(scale: Scale, sections: Sequence[str], command: str,
        progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    notes: list[str] = []
    report: dict[str, Any] = {"environment": environment(scale, command)}
    loads: dict[str, Any] = {"start": load_average()}
    for name in sections:
        if progress is not None:
            progress(name)
        before = load_average()
        started = time.perf_counter()
        report[name] = SECTION_FUNCTIONS[name](scale, notes)
        report[name]["section_seconds"] = _round(time.perf_counter() - started)
        loads[name] = {"start": before, "end": load_average()}
    loads["end"] = load_average()
    report["environment"]["load_average_1_5_15_min"] = loads
    report["acceptance"] = acceptance(report)
    report["notes"] = notes
    return report


def write(report: Mapping[str, Any], output: Path) -> None:
    from ..core.canonical import canonical_yaml, write_atomic

    write_atomic(output, canonical_yaml(dict(report), preamble=PREAMBLE))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scale", choices=sorted(SCALES), default="full",
                        help="how much work (tiny: seconds, for the smoke test)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="repeats of every timed figure (default: the scale's)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections (default all: {','.join(SECTIONS)})")
    parser.add_argument("--output", type=Path, default=None,
                        help="write the figures here (default: print them)")
    parser.add_argument("--write", action="store_true",
                        help=f"write the committed figures, {COMMITTED_OUTPUT} (only a full-"
                             "scale run of every section may)")
    parser.add_argument("--harness-examples", type=int, default=None,
                        help="cases per harness exploration (default: the scale's; full: "
                             "the default profile's budget)")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory-examples", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--memory-real-examples", type=int, default=-1,
                        help=argparse.SUPPRESS)


def run_cli(args: argparse.Namespace) -> int:
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_examples, args.memory_real_examples, 0)))
        return 0
    scale = SCALES[args.scale]
    if args.repeats is not None:
        scale = replace(scale, repeats=args.repeats)
    if args.harness_examples is not None:
        scale = replace(scale, harness_examples=args.harness_examples)
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        print(f"unknown section(s) {unknown}; expected some of {list(SECTIONS)}",
              file=sys.stderr)
        return 2
    command = "python -m harness bench " + " ".join(
        ["--scale", scale.name]
        + (["--repeats", str(args.repeats)] if args.repeats is not None else [])
        + (["--harness-examples", str(args.harness_examples)]
           if args.harness_examples is not None else [])
        + (["--only", ",".join(sections)] if tuple(sections) != SECTIONS else []))

    def progress(section: str) -> None:
        print(f"bench: {section} ...", file=sys.stderr, flush=True)

    if args.write and (scale.name != "full" or tuple(sections) != SECTIONS
                       or args.output is not None):
        print("--write rewrites the committed reports/bench.yaml: only with the full scale, "
              "every section and no --output", file=sys.stderr)
        return 2
    report = run(scale, sections, command, progress)
    output = COMMITTED_OUTPUT if args.write else args.output
    if output is not None:
        write(report, output)
    else:
        from ..core.canonical import canonical_yaml

        sys.stdout.write(canonical_yaml(dict(report), preamble=PREAMBLE))
    for line in headline(report):
        print(line, file=sys.stderr if output is None else sys.stdout)
    if output is not None:
        print(f"report: {output}")
    return 0


def headline(report: Mapping[str, Any]) -> list[str]:
    """One line per acceptance figure, and the load."""
    lines = [f"{name}: {entry['value']} (limit {entry['limit']}: "
             f"{'met' if entry['met'] else 'NOT met'})"
             for name, entry in report.get("acceptance", {}).items()]
    loads = report["environment"]["load_average_1_5_15_min"]
    lines.append(f"load average: start {loads['start']}, end {loads['end']}")
    lines.extend(f"note: {note}" for note in report.get("notes", []))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness bench",
                                     description=__doc__.split("\n")[0] if __doc__ else None)
    add_arguments(parser)
    return run_cli(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
