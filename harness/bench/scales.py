"""How much work each benchmark section does: the ``full`` scale (the committed
``reports/bench.yaml``) and the ``tiny`` one (seconds, for the smoke test)."""

from __future__ import annotations

from dataclasses import dataclass

REAL_MODEL = "mistral-v0.1"


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
    #: The real-model fixtures whose load and corpus encode the encode section times (and
    #: whose real-model phase the real_models section times).
    fixtures: tuple[str, ...] = (REAL_MODEL,)
    #: Generated texts per fixture in the real_models section (None: the default
    #: profile's) and its repeats.
    real_model_texts: int | None = None
    real_model_repeats: int = 1
    #: The profiles whose whole conformance job the jobs section runs, and its repeats.
    job_profiles: tuple[str, ...] = ("smoke", "dev", "ci")
    job_repeats: int = 1


def _conformance_fixtures() -> tuple[str, ...]:
    from ..fixture_builders.real_models import CONFORMANCE_FIXTURES

    return CONFORMANCE_FIXTURES


SCALES: dict[str, Scale] = {
    s.name: s
    for s in (
        Scale("full", repeats=7, corpus_texts=None, small_vocabulary_merges=1000,
              growth_sizes=(1024, 4096, 16384, 65536), growth_merges=4000,
              growth_training_chars=131072, long_word_sizes=(1000, 5000, 50000),
              harness_examples=None, harness_repeats=3,
              decode_sequences=8, decode_length=16384, memory_examples=None,
              memory_real_examples=200, memory_repeats=2, fixtures=_conformance_fixtures(),
              real_model_repeats=1),
        Scale("tiny", repeats=2, corpus_texts=40, small_vocabulary_merges=40,
              growth_sizes=(64, 128, 256, 512), growth_merges=60, growth_training_chars=2048,
              long_word_sizes=(300, 1000),
              harness_examples=6, harness_repeats=2, decode_sequences=2, decode_length=512,
              memory_examples=4, memory_real_examples=-1, memory_repeats=1,
              real_model_texts=32, job_profiles=("smoke",)),
    )
}
