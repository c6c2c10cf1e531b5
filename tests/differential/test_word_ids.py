"""Word ids are upstream's: every piece of an input, pre-tokenized word or added token found
in the text, takes the next index (pieces a normalizer empties take none); a pair's second
text counts again from 0; template specials have none. Compared against ``tokenizers``
itself, and through the subjects as the run compares them (the ``word_ids`` tier)."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("tokenizers")

import tokenizers

import implementation as ref
from harness.core.observation import Observation
from harness.core.outcome import Encoded
from harness.judge.compare import judge_tiers
from harness.subjects.reference import STRICT
from harness.subjects.upstream import UPSTREAM, Handle

pytestmark = pytest.mark.upstream

WHITESPACE = {"type": "WhitespaceSplit"}
DROP_A = {"type": "Replace", "pattern": {"String": "a"}, "content": ""}
TEMPLATE = {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [9], "tokens": ["<s>"]}}}


def document(*, pre_tokenizer: Any = None, normalizer: Any = None, special: bool = False,
             normalized: bool = False, post_processor: Any = None) -> str:
    vocab = {char: i for i, char in enumerate("abcd ")}
    vocab["<s>"] = 9
    added = {"id": 10, "content": "<x>", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": normalized, "special": special}
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [added],
        "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
        "post_processor": post_processor, "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "fuse_unk": False,
                  "byte_fallback": False, "ignore_merges": False,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "vocab": vocab, "merges": []}})


CASES = [
    (document(), "ab<x>cd", None),
    (document(), "<x>ab<x>", None),
    (document(special=True), "ab<x>cd", None),
    (document(normalized=True), "ab<x>cd", None),
    (document(pre_tokenizer=WHITESPACE), "ab cd<x>a b", None),
    (document(pre_tokenizer=WHITESPACE), "ab<x>c", "d<x>a b"),
    (document(normalizer=DROP_A), "b<x>a<x>c", None),
    (document(normalizer=DROP_A, pre_tokenizer=WHITESPACE), "b a<x>a c", None),
    (document(post_processor=TEMPLATE), "ab<x>c", "d<x>"),
]


@pytest.mark.parametrize(("doc", "text", "pair"), CASES)
def test_word_ids_are_upstreams(doc: str, text: str, pair: str | None) -> None:
    theirs = tokenizers.Tokenizer.from_str(doc).encode(text, pair)
    ours = ref.load_tokenizer(doc).encode_with_spans(text, pair=pair)
    assert ours.token_strings == theirs.tokens
    assert ours.word_ids == theirs.word_ids


@pytest.mark.parametrize(("doc", "text", "pair"), CASES)
def test_the_word_ids_tier_compares_them(doc: str, text: str, pair: str | None) -> None:
    handle, upstream_handle = STRICT.load(doc), UPSTREAM.load(doc)
    assert isinstance(handle, ref.Tokenizer) and isinstance(upstream_handle, Handle)
    ours, theirs = STRICT.encode(handle, text, pair), UPSTREAM.encode(upstream_handle, text, pair)
    assert isinstance(ours, Encoded) and isinstance(theirs, Encoded)
    assert ours.word_ids and theirs.word_ids
    assert judge_tiers(Observation("strict", "encode", text, (), ours, theirs)
                       ).divergences == ()
    # The reading of the first campaign's reference (added tokens outside the numbering)
    # is a divergence at word_ids, and only there.
    old = Encoded(ours.ids, ours.tokens, ours.spans, ours.special_mask,
                  word_ids=tuple(_renumbered(ours.model_word_ids, ours.sequence_ids)),
                  sequence_ids=ours.sequence_ids, type_ids=ours.type_ids,
                  attention_mask=ours.attention_mask)
    tiers = [d.tier for d in judge_tiers(Observation("strict", "encode", text, (), old,
                                                      theirs)).divergences]
    assert tiers == ["word_ids"]


def _renumbered(words: tuple[int | None, ...], sequences: tuple[int | None, ...]
                ) -> list[int | None]:
    """Model words numbered among themselves, per input (added tokens: None)."""
    out: list[int | None] = []
    seen: dict[tuple[int | None, int], int] = {}
    for word, sequence in zip(words, sequences, strict=True):
        if word is None:
            out.append(None)
            continue
        counted = sum(1 for key in seen if key[0] == sequence)
        out.append(seen.setdefault((sequence, word), counted))
    return out


def test_word_ids_of_two_streams_of_other_ids_are_skipped() -> None:
    """Where the ids differ (a class explains them, or they fail), the word ids of the two
    streams say nothing position by position: skipped and counted, never a divergence."""
    ours = Encoded((1, 2, 1), ("u", "x", "u"), ((0, 1), (1, 2), (2, 3)), (0, 0, 0),
                   word_ids=(0, 0, 0))
    theirs = Encoded((2, 1), ("x", "u"), ((1, 2), (2, 3)), (0, 0), word_ids=(0, 0))
    judged = judge_tiers(Observation("lenient", "encode", "yxy", (), ours, theirs))
    assert "word_ids" in judged.skipped
    assert [d.tier for d in judged.divergences] == ["ids", "tokens", "spans", "special_mask"]
