"""How the byte-level spans oracle (``harness.judge.byte_level_spans``) reads words whose
text a pre-tokenizer removed around or a normalizer changed, against tokenizers 0.23.1 run
live on the same documents.

Two readings were added when the Split family and the Unicode normalizers joined the
generated pipelines: where a step removes text before ``ByteLevel`` (``Whitespace``, a
``Removed`` behaviour), or a ``ByteLevel`` with ``add_prefix_space`` is not the first step,
a word is read from where our span says it starts (the text alone no longer says where, and
an inserted space could pass for one the earlier step removed); and with a normalizer, words
are read against the normalized text of each section between the added tokens matched
before normalization, each normalized character on the span upstream's normalizer aligns it
to. Expected spans come from tokenizers; the oracle must judge every model token and agree
with them, and must flag a span off the contract.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

import implementation as ref
from harness.core.case import Case
from harness.core.outcome import Encoded
from harness.judge.byte_level_spans import byte_level_spans
from harness.judge.predicates import Context, byte_level_trimmed_offsets
from harness.judge.specification import Specification, check_case
from harness.runs.generated import evaluate
from harness.runs.replay import CaseReplayer
from harness.subjects.reference import encoded as reference_encoded
from implementation.byte_level import BYTE_SYMBOLS, to_symbols

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream

JSON = dict[str, Any]
SPECIALS = ("<s>", "<x>")


def byte_level(add_prefix_space: bool, trim_offsets: bool = True, use_regex: bool = True
               ) -> JSON:
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space,
            "trim_offsets": trim_offsets, "use_regex": use_regex}


def document(pre_tokenizer: JSON, *, normalizer: JSON | None = None,
             post_processor: JSON | None = None, normalized_x: bool = False) -> JSON:
    """The 256 byte symbols, a few merges (`` h``, ``hi``, ``日``), a raw ``<s>`` and a
    ``<x>`` added token (normalized or not)."""
    merges = [(to_symbols(" "), "h"), ("h", "i"), *[
        (to_symbols("日")[:k], to_symbols("日")[k]) for k in (1, 2)]]
    vocab = {symbol: i for i, symbol in enumerate(BYTE_SYMBOLS)}
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    added = [{"id": len(vocab) + i, "content": content, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": content == "<x>" and normalized_x,
              "special": content == "<s>"} for i, content in enumerate(SPECIALS)]
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
            "post_processor": post_processor, "decoder": byte_level(False),
            "model": {"type": "BPE", "dropout": None, "unk_token": None,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": [list(m) for m in merges]}}


def sequence(*steps: JSON) -> JSON:
    return {"type": "Sequence", "pretokenizers": list(steps)}


def encoded(doc: JSON, text: str) -> tuple[Encoded, Any]:
    ours = reference_encoded(ref.load_tokenizer(doc).encode_with_spans(text))
    return ours, tokenizers.Tokenizer.from_str(json.dumps(doc)).encode(text)


def judged(doc: JSON, text: str) -> tuple[Encoded, dict[int, tuple[int, int]]]:
    ours, theirs = encoded(doc, text)
    assert list(ours.ids) == list(theirs.ids), text
    spec = Specification(Case(doc, texts=(text,)), CaseReplayer())
    return ours, byte_level_spans(ours, (text,), doc, spec.aligned)


TEXTS = (" \x1b\x1b\x1b \x1b  ", "hi  hi\thi", "<s> hi<x>  hi", " 日本 hi日 ", "a<s>b",
         "x<unk> \x00 \x00")
REMOVING = {
    "whitespace-first": sequence({"type": "Whitespace"}, byte_level(True, use_regex=False)),
    "whitespace-split": sequence({"type": "WhitespaceSplit"}, byte_level(True)),
    "split-removed": sequence({"type": "Split", "pattern": {"Regex": r"\s+"},
                               "behavior": "Removed", "invert": False},
                              byte_level(False, use_regex=False)),
    "punctuation-removed-then-inserting": sequence(
        {"type": "Punctuation", "behavior": "Removed"}, byte_level(True, use_regex=True)),
    "isolated-then-inserting": sequence({"type": "Split", "pattern": {"String": " "},
                                         "behavior": "Isolated", "invert": False},
                                        byte_level(True, use_regex=False)),
}


@pytest.mark.parametrize("name", list(REMOVING))
@pytest.mark.parametrize("text", TEXTS)
def test_words_after_removed_text_are_read_where_they_start(name: str, text: str) -> None:
    """Every model token is judged, at upstream's span (no trimming here), which is ours."""
    doc = document(REMOVING[name])
    ours, contract = judged(doc, text)
    theirs = encoded(doc, text)[1]
    model = [i for i, word in enumerate(ours.model_word_ids) if word is not None]
    assert set(model) <= set(contract), (text, ours.tokens)
    assert all(contract[i] == tuple(theirs.offsets[i]) == ours.spans[i] for i in contract)


NORMALIZERS: dict[str, JSON] = {
    "nfkd": {"type": "NFKD"},
    "nfc": {"type": "NFC"},
    "lowercase": {"type": "Lowercase"},
    "strip": {"type": "Strip", "strip_left": True, "strip_right": True},
    "nfkc-prepend-replace": {"type": "Sequence", "normalizers": [
        {"type": "NFKC"}, {"type": "Prepend", "prepend": "▁"},
        {"type": "Replace", "pattern": {"String": "i"}, "content": "IJ"}]},
}
NORMALIZED_TEXTS = (" ①hi ﬁ ", "İi hi", "e\u0301x hi", "  hi <s>  ①  <x> ﬁ  ", "Ａｂ①<x>",
                    "\u3000hi\u3000", "<s><s>", "ΣΑΣ hi")


@pytest.mark.parametrize("normalized_x", [False, True])
@pytest.mark.parametrize("name", list(NORMALIZERS))
@pytest.mark.parametrize("text", NORMALIZED_TEXTS)
def test_normalized_words_are_read_on_upstreams_alignment(name: str, text: str,
                                                          normalized_x: bool) -> None:
    """With a normalizer, the words (and added tokens) the oracle can read are judged at
    the spans upstream gives them untrimmed; every model token is read where the normalizer
    keeps the added tokens' content."""
    doc = document(byte_level(True, use_regex=True), normalizer=NORMALIZERS[name],
                   normalized_x=normalized_x)
    ours, contract = judged(doc, text)
    theirs = encoded(doc, text)[1]
    assert all(contract[i] == tuple(theirs.offsets[i]) == ours.spans[i] for i in contract)
    model = {i for i, word in enumerate(ours.model_word_ids) if word is not None}
    if not (normalized_x and "<x>" in text):
        assert model <= set(contract), (text, ours.tokens, contract)


@pytest.mark.parametrize("name", list(NORMALIZERS))
def test_trimmed_offsets_in_normalized_words_are_explained(name: str) -> None:
    """A trimming post-processor over normalized words: every span upstream trimmed is
    explained by the class, and the case has no failure."""
    doc = document(byte_level(False, use_regex=True), normalizer=NORMALIZERS[name],
                   post_processor=byte_level(True, trim_offsets=True))
    case = Case(doc, texts=NORMALIZED_TEXTS)
    _, judgement = evaluate(case)
    assert not [v for v in judgement.verdicts if v.is_failure]
    shown = [v for v in judgement.verdicts if "byte-level-trimmed-offsets" in v.classes]
    assert shown
    for verdict in shown:
        ours, theirs = verdict.divergence.observation.subject, (
            verdict.divergence.observation.upstream)
        assert isinstance(ours, Encoded) and isinstance(theirs, Encoded)
        differing = {i for i, (a, b) in enumerate(zip(ours.spans, theirs.spans, strict=True))
                     if a != b and ours.special_mask[i] == 0}
        ctx = Context(case, CaseReplayer())
        assert differing <= byte_level_trimmed_offsets(ctx, verdict.divergence)


def test_a_normalized_word_off_the_contract_is_flagged() -> None:
    """Our side: a span one character off in a word NFKD changed is a finding of the
    specification oracle, and the class no longer explains it."""
    doc = document(byte_level(False, use_regex=True), normalizer=NORMALIZERS["nfkd"],
                   post_processor=byte_level(True, trim_offsets=True))
    text = "a ①hi ﬁ  "
    case = Case(doc, texts=(text,))
    _, judgement = evaluate(case)
    verdict = next(v for v in judgement.verdicts if "byte-level-trimmed-offsets" in v.classes)
    div = verdict.divergence
    ours = div.observation.subject
    assert isinstance(ours, Encoded)
    changed = next(i for i, token in enumerate(ours.tokens) if token == "1")
    wrong = tuple((s + 1, e + 1) if i == changed else (s, e)
                  for i, (s, e) in enumerate(ours.spans))
    bad = dataclasses.replace(div, observation=dataclasses.replace(
        div.observation, subject=dataclasses.replace(ours, spans=wrong)))
    findings = check_case(case, [bad.observation], CaseReplayer())
    assert [d.tier for d in findings] == ["specification[oc-byte-fallback-spans]"]
    assert changed not in byte_level_trimmed_offsets(Context(case, CaseReplayer()), bad)
    assert not check_case(case, [div.observation], CaseReplayer())


# ---------------------------------------------------------------------------
# Trimming over words without a ByteLevel pre-tokenizer
# ---------------------------------------------------------------------------

CHARACTERS = "abt \t\n▁é"


def classic(pre_tokenizer: JSON | None, normalizer: JSON | None, suffix: str | None) -> JSON:
    """A character vocabulary (with suffixed forms), a couple of merges, an unk token, a
    raw added token ``Wo``, and a trimming ByteLevel post-processor."""
    forms = [c for c in CHARACTERS] + ([c + suffix for c in CHARACTERS] if suffix else [])
    vocab = {"<unk>": 0, "Wo": 1, **{form: i + 2 for i, form in enumerate(forms)}}
    merges = [("a", "b" + (suffix or "")), ("\t", "t")]
    for left, right in merges:
        vocab.setdefault(left + right, len(vocab))
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": 1, "content": "Wo", "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": False, "special": False}],
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer,
            "post_processor": byte_level(False, trim_offsets=True), "decoder": None,
            "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                      "continuing_subword_prefix": None, "end_of_word_suffix": suffix,
                      "fuse_unk": True, "byte_fallback": False, "ignore_merges": False,
                      "vocab": vocab, "merges": [list(m) for m in merges]}}


CLASSIC_PRE_TOKENIZERS: dict[str, JSON | None] = {
    "none": None,
    "metaspace": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always",
                  "split": True},
    "punctuation-removed": sequence({"type": "Digits", "individual_digits": False},
                                    {"type": "Punctuation", "behavior": "Removed"}),
    "whitespace-split": {"type": "WhitespaceSplit"},
}
LLAMA_NORMALIZER: JSON = {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "▁"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}
CLASSIC_TEXTS = ("ｶe\nWo\tt𠀀 ", " ab\t ab \t", "\tt x\t\n", "ab, \t!ab  ")


@pytest.mark.parametrize("suffix", [None, "_"])
@pytest.mark.parametrize("normalizer", [None, LLAMA_NORMALIZER], ids=["plain", "llama"])
@pytest.mark.parametrize("pre", list(CLASSIC_PRE_TOKENIZERS))
def test_trimmed_offsets_over_words_that_spell_their_text_are_explained(
        pre: str, normalizer: JSON | None, suffix: str | None) -> None:
    """A ByteLevel post-processor trimming a pipeline without a ByteLevel pre-tokenizer:
    each token spelling its characters (the suffix taken off, the unknown token between
    runs, Metaspace's replacement standing for a space) is proven at our span, so what
    upstream trims is the class and no case fails."""
    doc = classic(CLASSIC_PRE_TOKENIZERS[pre], normalizer, suffix)
    case = Case(doc, texts=CLASSIC_TEXTS)
    _, judgement = evaluate(case)
    assert not [v for v in judgement.verdicts if v.is_failure]
    for verdict in judgement.verdicts:
        if "byte-level-trimmed-offsets" not in verdict.classes:
            continue
        ours, theirs = verdict.divergence.observation.subject, (
            verdict.divergence.observation.upstream)
        assert isinstance(ours, Encoded) and isinstance(theirs, Encoded)
        differing = {i for i, (a, b) in enumerate(zip(ours.spans, theirs.spans, strict=True))
                     if a != b and ours.special_mask[i] == 0}
        ctx = Context(case, CaseReplayer())
        assert differing <= byte_level_trimmed_offsets(ctx, verdict.divergence)


def test_a_token_off_its_characters_is_not_explained() -> None:
    """Our side: a trimmed token whose span is moved off the characters it spells is not
    explained (upstream's trimming of the moved span would match: only the proof tells)."""
    doc = classic(None, None, "_")
    case = Case(doc, texts=("ab\t ab \t",))
    _, judgement = evaluate(case)
    verdict = next(v for v in judgement.verdicts if "byte-level-trimmed-offsets" in v.classes)
    div = verdict.divergence
    ours = div.observation.subject
    assert isinstance(ours, Encoded)
    spelled = byte_level_spans(ours, ("ab\t ab \t",), doc, plain=True)
    assert spelled and all(ours.spans[i] == span for i, span in spelled.items())
    moved = next(i for i, token in enumerate(ours.tokens) if token.startswith("\t"))
    wrong = tuple((s + 1, e + 1) if i == moved else (s, e)
                  for i, (s, e) in enumerate(ours.spans))
    bad = dataclasses.replace(div, observation=dataclasses.replace(
        div.observation, subject=dataclasses.replace(ours, spans=wrong)))
    assert moved not in byte_level_trimmed_offsets(Context(case, CaseReplayer()), bad)


@pytest.mark.parametrize("normalizer", [None, {"type": "Lowercase"}], ids=["plain", "lowercase"])
def test_an_added_token_with_the_whitespace_lstrip_took_is_read(normalizer: JSON | None
                                                                ) -> None:
    """An added token with ``lstrip`` comes with the space before it (`` Wo``): it ends the
    section before it and is judged at its slice, which upstream's trimming then moves."""
    doc = document(sequence({"type": "Split", "pattern": {"Regex": r" ?\p{P}+|\s+"},
                             "behavior": "Contiguous", "invert": False},
                            byte_level(True, use_regex=False)),
                   normalizer=normalizer, post_processor=byte_level(True, trim_offsets=True))
    doc["added_tokens"].append({"id": len(doc["model"]["vocab"]) + 2, "content": "Wo",
                                "single_word": False, "lstrip": True, "rstrip": False,
                                "normalized": False, "special": False})
    text = " !!  !! Wo hi"
    case = Case(doc, texts=(text,), pairs=((text, ""),))
    _, judgement = evaluate(case)
    assert not [v for v in judgement.verdicts if v.is_failure]
    ours, _ = encoded(doc, text)
    at = ours.tokens.index(" Wo")
    spec = Specification(case, CaseReplayer())
    assert byte_level_spans(ours, (text,), doc, spec.aligned)[at] == ours.spans[at] == (7, 10)
