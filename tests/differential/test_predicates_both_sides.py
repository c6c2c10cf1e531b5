"""Every predicate proves both sides: given a reference that is wrong on OUR side (and
upstream exactly as recorded), it explains nothing.

Each class's pinned witness (``oracles/divergences.json``, found and shrunk by the
conformance run) is evaluated afresh; then our side of the divergence is made wrong the
way a buggy reference would be (a refusal at another path, a decode with another text,
a span off the contract, a stream in another order), and the class's predicate must no
longer explain it.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.core.case import Case
from harness.core.outcome import Decoded, Encoded, Refused
from harness.judge.compare import Divergence
from harness.judge.predicates import ALL, Context
from harness.judge.registry import load_registry
from harness.judge.specification import check_case
from harness.runs.generated import evaluate
from harness.runs.replay import CaseReplayer
from harness.subjects.upstream import UPSTREAM

pytestmark = pytest.mark.upstream

ORACLE = Path(__file__).resolve().parents[2] / "oracles" / "divergences.json"
#: Each class's adopted witness (shape rows pin further shapes; tests/harness/test_oracles.py).
WITNESSES: dict[str, dict[str, Any]] = {
    row["class"]: row for row in json.loads(ORACLE.read_text(encoding="utf-8"))["cases"]
    if "shape" not in row}
CLASSES = {cls.id: cls for cls in load_registry()}
#: Classes the strategies do not draw yet, so that no conformance run has found a witness to
#: pin (``python -m harness oracles --adopt-witnesses REPORT`` once one has): skipped by name
#: until then; any other class without a witness fails. tests/differential/test_byte_level.py proves
#: both sides of these on witnesses it builds.
AWAITING_WITNESS: frozenset[str] = frozenset()


def _witness(class_id: str) -> tuple[Case, Divergence]:
    if class_id not in WITNESSES and class_id in AWAITING_WITNESS:
        pytest.skip(f"{class_id}: no pinned witness yet")
    case = Case.from_json(WITNESSES[class_id]["case"])
    _, judgement = evaluate(case)
    assert not [v for v in judgement.verdicts if v.is_failure]
    for verdict in judgement.verdicts:
        if class_id in verdict.classes:
            return case, verdict.divergence
    raise AssertionError(f"{class_id}: the pinned witness does not show the class")


def _explains(class_id: str, case: Case, div: Divergence) -> frozenset[int]:
    return CLASSES[class_id].predicate(Context(case, CaseReplayer()), div)


def _with_reference(div: Divergence, reference: Any, **changes: Any) -> Divergence:
    observation = dataclasses.replace(div.observation, subject=reference, **changes)
    return dataclasses.replace(div, observation=observation)


def _elsewhere(div: Divergence) -> Divergence:
    ref = div.observation.subject
    assert isinstance(ref, Refused)
    return _with_reference(div, dataclasses.replace(ref, path="$.model.elsewhere"))


def _other_text(div: Divergence) -> Divergence:
    ref = div.observation.subject
    assert isinstance(ref, Decoded)
    return _with_reference(div, Decoded(ref.text + "x"))


def _next_id_path(div: Divergence) -> Divergence:
    ref = div.observation.subject
    assert isinstance(ref, Refused)
    index = int(ref.path.removeprefix("ids[").removesuffix("]"))
    return _with_reference(div, dataclasses.replace(ref, path=f"ids[{index + 1}]"))


def _special_from_text(div: Divergence) -> Divergence:
    """The template special claimed to come from the text (yet still at -1,-1)."""
    ref = div.observation.subject
    assert isinstance(ref, Encoded)
    sequences = [0 if s is None else s for s in ref.sequence_ids]
    return _with_reference(div, dataclasses.replace(ref, sequence_ids=tuple(sequences)))


def _empty_byte_spans(div: Divergence) -> Divergence:
    """Every byte piece at an empty span where its character starts."""
    ref = div.observation.subject
    assert isinstance(ref, Encoded)
    spans = tuple((s, s) if t.startswith("<0x") else (s, e)
                  for t, (s, e) in zip(ref.tokens, ref.spans, strict=True))
    return _with_reference(div, dataclasses.replace(ref, spans=spans))


def _past_the_text(div: Divergence) -> Divergence:
    ref = div.observation.subject
    assert isinstance(ref, Encoded)
    spans = tuple((s + 100, e + 100) if s >= 0 else (s, e) for s, e in ref.spans)
    return _with_reference(div, dataclasses.replace(ref, spans=spans))


def _reversed_words(div: Divergence) -> Divergence:
    """Our stream in the reverse order (a word's pieces no longer in text order)."""
    ref = div.observation.subject
    assert isinstance(ref, Encoded)
    order = list(range(len(ref.ids)))[::-1]

    def pick(values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(values[i] for i in order) if values else values
    return _with_reference(div, Encoded(
        pick(ref.ids), pick(ref.tokens), pick(ref.spans), pick(ref.special_mask),
        pick(ref.word_ids), pick(ref.sequence_ids), pick(ref.type_ids),
        pick(ref.attention_mask), pick(ref.model_word_ids)))


def _short_space_runs(div: Divergence) -> Divergence:
    """Every token of two or more space symbols one character short at the front (upstream's
    trimming leaves such a token at the same zero-width span either way, so only our side's
    proof can tell); without such a token, every span one character on."""
    ref = div.observation.subject
    assert isinstance(ref, Encoded)
    spans = tuple((s + 1, e) if set(t) == {"\u0120"} and e - s >= 2 else (s, e)
                  for t, (s, e) in zip(ref.tokens, ref.spans, strict=True))
    if spans == ref.spans:
        spans = tuple((s + 1, e + 1) if s >= 0 else (s, e) for s, e in ref.spans)
    return _with_reference(div, dataclasses.replace(ref, spans=spans))


def _nothing_to_drop(case: Case, div: Divergence) -> Divergence:
    """Refused character-dropped on the empty text (nothing to drop)."""
    text = ""
    handle = UPSTREAM.load(case.document_json())
    upstream = UPSTREAM.encode(handle, text)  # type: ignore[arg-type]
    return _with_reference(div, div.observation.subject, input=text, upstream=upstream)


WRONG: dict[str, Callable[[Case, Divergence], Divergence]] = {
    "strict-byte-alphabet-incomplete": lambda _, d: _elsewhere(d),
    "strict-byte-piece-lowercase": lambda _, d: _elsewhere(d),
    "strict-decoder-shape": lambda _, d: _elsewhere(d),
    "strict-unk-token-not-in-vocabulary": lambda _, d: _elsewhere(d),
    "strict-dropout-nondeterministic": lambda _, d: _elsewhere(d),
    "strict-duplicate-id": lambda _, d: _elsewhere(d),
    "strict-template-incoherent": lambda _, d: _elsewhere(d),
    "strict-unreproducible-regex": lambda _, d: _elsewhere(d),
    "strict-unreproduced-component": lambda _, d: _elsewhere(d),
    "strict-regex-backtracking": lambda _, d: _elsewhere(d),
    "upstream-panic-refused": lambda _, d: _elsewhere(d),
    "upstream-normalizer-insertion-panic": lambda _, d: _elsewhere(d),
    "strict-decode-unknown-id": lambda _, d: _next_id_path(d),
    "metaspace-decoder-not-applied": lambda _, d: _other_text(d),
    "strip-decoder-panic": lambda _, d: _other_text(d),
    "template-special-spans": lambda _, d: _special_from_text(d),
    "decorated-byte-fallback-spans": lambda _, d: _empty_byte_spans(d),
    "dropped-character-offsets": lambda _, d: _past_the_text(d),
    "byte-level-trimmed-offsets": lambda _, d: _short_space_runs(d),
    "unk-byte-fallback-ordering": lambda _, d: _reversed_words(d),
    "strict-character-dropped": _nothing_to_drop,
}


def test_every_class_has_a_wrong_reference() -> None:
    assert set(WRONG) == set(CLASSES)


@pytest.mark.parametrize("class_id", sorted(WRONG))
def test_the_predicate_refuses_a_reference_wrong_on_our_side(class_id: str) -> None:
    case, div = _witness(class_id)
    assert _explains(class_id, case, div), "the witness itself is explained"
    wrong = WRONG[class_id](case, div)
    explained = _explains(class_id, case, wrong)
    if div.tier == "spans" and explained != ALL:
        ref, up = wrong.observation.subject, wrong.observation.upstream
        assert isinstance(ref, Encoded) and isinstance(up, Encoded)
        changed = {i for i, (a, b) in enumerate(zip(ref.spans, up.spans, strict=False))
                   if a != b}
        assert not changed <= explained, f"{class_id} still explains {sorted(explained)}"
    else:
        assert not explained, f"{class_id} explains a reference wrong on our side"


@pytest.mark.parametrize("class_id", ["template-special-spans", "decorated-byte-fallback-spans",
                                      "strict-decode-unknown-id"])
def test_the_specification_oracle_flags_the_same_wrong_reference(class_id: str) -> None:
    case, div = _witness(class_id)
    wrong = WRONG[class_id](case, div)
    assert check_case(case, [wrong.observation], CaseReplayer()), class_id


def test_two_classes_explain_one_divergence_together() -> None:
    """An unknown id decoded through [Replace, ByteFallback, Fuse, Strip(" ", 1, 1)]: the
    strict reference refuses it (decode-unknown-id), and upstream, which drops the id,
    panics in Strip on what is left. The lenient reference drops the id too and decodes,
    so what remains between it and upstream is the Strip panic: both classes, together."""
    vocab = {"<unk>": 0, **{f"<0x{b:02X}>": b + 1 for b in range(256)}, "\u2581": 257}
    decoder = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
        {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 1}]}
    case = Case({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None,
        "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": []}}, id_runs=((257, 9999),))
    _, judgement = evaluate(case)
    decode = [v for v in judgement.verdicts if v.divergence.observation.operation == "decode"]
    assert decode and not [v for v in judgement.verdicts if v.is_failure]
    assert {v.classes for v in decode} == {("strict-decode-unknown-id", "strip-decoder-panic")}


def _unknowns_case(fuse: bool) -> Case:
    """`<unk>`, one byte piece (`X` is 0x58) and two letters: `Y` is uncovered."""
    return Case({
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": fuse, "byte_fallback": True, "ignore_merges": False,
                  "vocab": {"<unk>": 0, "<0x58>": 1, "a": 2, "b": 3}, "merges": []}},
        texts=("aYXYYb",))


def _ordering_divergences(case: Case) -> list[Divergence]:
    _, judgement = evaluate(case)
    assert not [v for v in judgement.verdicts if v.is_failure]
    found = [v.divergence for v in judgement.verdicts
             if "unk-byte-fallback-ordering" in v.classes]
    assert {d.tier for d in found} >= {"ids", "tokens"}
    return found


def _stream(div: Divergence, tokens: list[str], spans: list[tuple[int, int]]) -> Divergence:
    """Our side replaced by another stream of the same one word."""
    ids = {"<unk>": 0, "<0x58>": 1, "a": 2, "b": 3}
    n = len(tokens)
    return _with_reference(div, Encoded(
        tuple(ids[t] for t in tokens), tuple(tokens), tuple(spans), (0,) * n, (0,) * n,
        (0,) * n, (0,) * n, (1,) * n, (0,) * n))


@pytest.mark.parametrize(("fuse", "tokens", "spans"), [
    # fuse_unk fusing across the byte piece (upstream's misordering of it is upstream's stream)
    (True, ["a", "<unk>", "<0x58>", "b"], [(0, 1), (1, 5), (2, 3), (5, 6)]),
    # the fused unknown one character short
    (True, ["a", "<unk>", "<0x58>", "<unk>", "b"], [(0, 1), (1, 2), (2, 3), (3, 4), (5, 6)]),
    # fuse_unk off, yet the last two unknowns as one token's span... and a third one
    (False, ["a", "<unk>", "<0x58>", "<unk>", "<unk>", "b"],
     [(0, 1), (1, 2), (2, 3), (3, 5), (4, 5), (5, 6)]),
])
def test_the_ordering_class_proves_our_unknowns_token_by_token(
        fuse: bool, tokens: list[str], spans: list[tuple[int, int]]) -> None:
    """The misordering replayed on our stream equals upstream's for each wrong stream here,
    and every word's pieces are in text order: only the unknowns our rule makes from the
    document (bf-fact-6-no-fuse: fusing never crosses byte pieces; each unknown spans its
    characters) tell them from ours."""
    case = _unknowns_case(fuse)
    for div in _ordering_divergences(case):
        assert _explains("unk-byte-fallback-ordering", case, div), div.tier
        assert not _explains("unk-byte-fallback-ordering", case, _stream(div, tokens, spans)), \
            div.tier


def test_the_dropped_character_class_proves_our_spans_spell_the_tokens() -> None:
    """A span one character too long stays inside the text and right of upstream's (what the
    class asked before): only the characters it covers, which no longer spell the token,
    tell it from ours."""
    case, div = _witness("dropped-character-offsets")
    ref = div.observation.subject
    assert isinstance(ref, Encoded) and _explains("dropped-character-offsets", case, div)
    text = div.observation.input
    assert isinstance(text, str) and ref.spans[0][1] < len(text)
    longer = ((ref.spans[0][0], ref.spans[0][1] + 1), *ref.spans[1:])
    wrong = _with_reference(div, dataclasses.replace(ref, spans=longer))
    assert 0 not in _explains("dropped-character-offsets", case, wrong)
