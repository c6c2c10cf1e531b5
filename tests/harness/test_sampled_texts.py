"""The real-model phase's seeded text batches (``harness.strategies.sampled_texts``): a seed
gives the same texts, a batch holds distinct texts, and every kind of fragment the
vocabulary offers is drawn at about its declared share."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings

from harness.documents import metaspace_document
from harness.strategies import inventory
from harness.strategies import profile as shares
from harness.strategies.sampled_texts import TextSampler, batches, scalar
from harness.strategies.texts import fragment_kinds

DOCUMENT = metaspace_document()
CORPUS = ("Hello, world", "日本語のテキスト", "def f(x):\n    return x")
GLUE = (" ", "\n", "<s>")


def _sampler() -> TextSampler:
    return TextSampler(inventory(DOCUMENT), CORPUS, GLUE)


def test_a_seed_gives_the_same_batch() -> None:
    sampler = _sampler()
    assert sampler.batch(7, 16) == sampler.batch(7, 16)
    assert sampler.batch(7, 16) != sampler.batch(8, 16)


def test_a_batch_holds_distinct_texts() -> None:
    for seed_value in range(50):
        batch = _sampler().batch(seed_value, 16)
        assert len(batch) == len(set(batch)) == 16


def test_every_fragment_kind_is_drawn_at_its_share() -> None:
    """Over many fragments each kind is chosen within 10% of its weight's share."""
    sampler = _sampler()
    kinds = fragment_kinds(inventory(DOCUMENT))
    total = sum(weight for weight, _ in kinds)
    rng = random.Random(0)
    drawn = Counter(sampler.kind(rng) for _ in range(40_000))
    for index, (weight, _) in enumerate(kinds):
        expected = 40_000 * weight / total
        assert abs(drawn[index] - expected) <= expected / 10 + 30, (index, drawn[index])


def test_texts_mix_vocabulary_corpus_and_arbitrary() -> None:
    sampler = _sampler()
    rng = random.Random(1)
    texts = [sampler.text(rng) for _ in range(3000)]
    pieces = inventory(DOCUMENT).pieces
    assert sum(any(piece in t for piece in pieces) for t in texts) > 300
    assert any(any(c[:5] in t for c in CORPUS) for t in texts)
    assert any(any(ord(ch) > 0xFFFF for ch in t) for t in texts)
    empty_share = texts.count("") / len(texts)
    assert empty_share < 3 * shares.EMPTY_TEXT / 1000 + 0.05


def test_scalar_is_never_a_surrogate() -> None:
    rng = random.Random(2)
    assert all(not 0xD800 <= ord(scalar(rng)) <= 0xDFFF for _ in range(100_000))


@settings(max_examples=30, database=None)
@given(batches(_sampler(), 8))
def test_hypothesis_draws_whole_batches(batch: tuple[str, ...]) -> None:
    assert len(batch) == 8
