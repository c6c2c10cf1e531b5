"""TemplateProcessing against values observed from tokenizers 0.23.1.

Expected ids, strings and type ids were printed by tokenizers 0.23.1
from ``Tokenizer.from_str(...).encode(a, b, add_special_tokens=...)`` over a
vocabulary where ``<s>``=1, ``</s>``=2, ``a``=3, ``b``=4, ``c``=5, with
``a="ab"`` and ``b="c"`` and no normalizer or pre-tokenizer. Upstream reports
template specials at offsets ``(0, 0)``; this reference gives ``-1, -1`` on
purpose (offset contract).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from implementation.encoding import EncodedToken
from implementation.errors import LoadError
from implementation.jsonfields import Node
from implementation.post_processors import (
    SequencePiece,
    SpecialTokenPiece,
    TemplateProcessing,
    post_processor_from_json,
)

ST = {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}
LLAMA: dict[str, Any] = {
    "type": "TemplateProcessing",
    "single": [
        {"SpecialToken": {"id": "<s>", "type_id": 0}},
        {"Sequence": {"id": "A", "type_id": 0}},
    ],
    "pair": [
        {"SpecialToken": {"id": "<s>", "type_id": 0}},
        {"Sequence": {"id": "A", "type_id": 0}},
        {"SpecialToken": {"id": "<s>", "type_id": 1}},
        {"Sequence": {"id": "B", "type_id": 1}},
    ],
    "special_tokens": ST,
}

A = [EncodedToken(3, "a", 0, 1), EncodedToken(4, "b", 1, 2)]
B = [EncodedToken(5, "c", 0, 1)]
BOS = EncodedToken(1, "<s>", -1, -1, track="special")


def variant(**fields: Any) -> dict[str, Any]:
    processor = copy.deepcopy(LLAMA)
    processor.update(fields)
    return processor


def load(processor: Any) -> TemplateProcessing:
    loaded = post_processor_from_json(Node(processor, "$.post_processor"))
    assert isinstance(loaded, TemplateProcessing)
    return loaded


def refusal(processor: Any) -> LoadError:
    with pytest.raises(LoadError) as info:
        post_processor_from_json(Node(processor, "$.post_processor"))
    return info.value


def seq(id_: str, type_id: int) -> dict[str, Any]:
    return {"Sequence": {"id": id_, "type_id": type_id}}


def special(id_: str, type_id: int) -> dict[str, Any]:
    return {"SpecialToken": {"id": id_, "type_id": type_id}}


def ids_and_types(
    processor: TemplateProcessing, b: list[EncodedToken] | None, add: bool
) -> list[tuple[int, str, int]]:
    tokens, type_ids = processor.apply(list(A), None if b is None else list(b), add)
    assert len(tokens) == len(type_ids)
    return [(t.id, t.token, type_id) for t, type_id in zip(tokens, type_ids, strict=True)]


# ---------------------------------------------------------------------------
# Llama's template
# ---------------------------------------------------------------------------


def test_llama_single() -> None:
    # observed: [(1,'<s>',(0,0),type 0), (3,'a',(0,1),0), (4,'b',(1,2),0)]
    tokens, type_ids = load(LLAMA).apply(list(A), None, True)
    assert tokens == [BOS, *A]
    assert type_ids == [0, 0, 0]


def test_llama_single_without_special_tokens() -> None:
    # observed: [(3,'a',(0,1),0), (4,'b',(1,2),0)]
    tokens, type_ids = load(LLAMA).apply(list(A), None, False)
    assert tokens == A
    assert type_ids == [0, 0]


def test_llama_pair() -> None:
    # observed: <s>(0,0) t0, a(0,1) t0, b(1,2) t0, <s>(0,0) t1, c(0,1) t1
    tokens, type_ids = load(LLAMA).apply(list(A), list(B), True)
    assert tokens == [BOS, *A, BOS, *B]
    assert type_ids == [0, 0, 0, 1, 1]


def test_llama_pair_without_special_tokens() -> None:
    # observed: a(0,1) t0, b(1,2) t0, c(0,1) t1
    tokens, type_ids = load(LLAMA).apply(list(A), list(B), False)
    assert tokens == [*A, *B]
    assert type_ids == [0, 0, 1]


def test_specials_are_synthetic_and_sequences_keep_spans_and_tracks() -> None:
    added = EncodedToken(9, "<x>", 1, 4, track="added", metadata={"word": 0})
    tokens, _ = load(LLAMA).apply([added], None, True)
    assert (tokens[0].start, tokens[0].end, tokens[0].track) == (-1, -1, "special")
    assert tokens[1] is added


# ---------------------------------------------------------------------------
# Other templates upstream loads from JSON
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "b", "add", "observed"),
    [
        # pair [B:3, A:2], add_special_tokens=False: c t3, a t2, b t2
        ({"pair": [seq("B", 3), seq("A", 2)]}, B, False, [(5, "c", 3), (3, "a", 2), (4, "b", 2)]),
        # single [A:0, <s>:5, A:1]: the sequence twice, each with its own type id
        (
            {"single": [seq("A", 0), special("<s>", 5), seq("A", 1)]},
            None,
            True,
            [(3, "a", 0), (4, "b", 0), (1, "<s>", 5), (3, "a", 1), (4, "b", 1)],
        ),
        # a special token expanding to two ids
        (
            {"special_tokens": {"<s>": {"id": "<s>", "ids": [1, 2], "tokens": ["<s>", "</s>"]}}},
            None,
            True,
            [(1, "<s>", 0), (2, "</s>", 0), (3, "a", 0), (4, "b", 0)],
        ),
        # looked up by the map's key; the strings come from "tokens", not "id"
        (
            {"special_tokens": {"<s>": {"id": "XX", "ids": [1], "tokens": ["tok"]}}},
            None,
            True,
            [(1, "tok", 0), (3, "a", 0), (4, "b", 0)],
        ),
        # an id outside the vocabulary is emitted as declared
        (
            {"special_tokens": {"<s>": {"id": "<s>", "ids": [999], "tokens": ["zzz"]}}},
            None,
            True,
            [(999, "zzz", 0), (3, "a", 0), (4, "b", 0)],
        ),
        # an empty single template drops everything
        ({"single": []}, None, True, []),
        # a pair template without B drops B
        ({"pair": [seq("A", 0)]}, B, True, [(3, "a", 0), (4, "b", 0)]),
        # extra keys are ignored
        ({"foo": 1}, None, True, [(1, "<s>", 0), (3, "a", 0), (4, "b", 0)]),
    ],
)
def test_templates(
    fields: dict[str, Any],
    b: list[EncodedToken] | None,
    add: bool,
    observed: list[tuple[int, str, int]],
) -> None:
    assert ids_and_types(load(variant(**fields)), b, add) == observed


def test_added_tokens() -> None:
    processor = load(LLAMA)
    assert processor.added_tokens(is_pair=False) == 1
    assert processor.added_tokens(is_pair=True) == 2


def test_null_is_none() -> None:
    assert post_processor_from_json(Node(None, "$.post_processor")) is None


# ---------------------------------------------------------------------------
# Refusals
# ---------------------------------------------------------------------------


def test_missing_special_token_is_refused_by_name() -> None:
    # observed: upstream LOADS it, then panics at encode ("no entry found for key") with
    # add_special_tokens=True, and encodes [(3,'a'), (4,'b')] with add_special_tokens=False.
    error = refusal(variant(single=[special("</s>", 0), seq("A", 0)]))
    assert (error.rule, error.path) == ("template-incoherent", "$.post_processor.single[0]")
    assert "'</s>'" in error.message


def test_missing_special_token_in_pair_is_refused() -> None:
    # observed: upstream loads it and encodes a single sequence fine; the pair would panic.
    error = refusal(variant(pair=[special("</s>", 0), seq("A", 0), seq("B", 0)]))
    assert (error.rule, error.path) == ("template-incoherent", "$.post_processor.pair[0]")


def test_single_template_using_b_is_refused() -> None:
    # observed: upstream loads it and panics at encode ("index out of bounds: the len is 1 but the
    # index is 1").
    error = refusal(variant(single=[seq("B", 0)]))
    assert (error.rule, error.path) == ("template-incoherent", "$.post_processor.single[0]")


def test_ids_and_tokens_of_different_lengths_are_refused() -> None:
    # observed: upstream loads ids [1, 2] with tokens ["<s>"] and misaligns the encoding:
    # [(1,'<s>'), (2,'a'), (3,'b')].
    error = refusal(
        variant(special_tokens={"<s>": {"id": "<s>", "ids": [1, 2], "tokens": ["<s>"]}})
    )
    assert (error.rule, error.path) == ("template-incoherent",
                                        "$.post_processor.special_tokens['<s>']")


# Each of these fails to load upstream: "data did not match any variant of untagged enum
# PostProcessorWrapper".
@pytest.mark.parametrize(
    ("fields", "rule", "path"),
    [
        ({"single": "<s> $A"}, "invalid-type", "$.post_processor.single"),
        ({"single": "$0"}, "invalid-type", "$.post_processor.single"),
        ({"pair": "<s> $A <s>:1 $B:1"}, "invalid-type", "$.post_processor.pair"),
        ({"single": ["$A"]}, "invalid-type", "$.post_processor.single[0]"),
        ({"single": None}, "missing-field", "$.post_processor.single"),
        ({"pair": None}, "missing-field", "$.post_processor.pair"),
        ({"special_tokens": None}, "missing-field", "$.post_processor.special_tokens"),
        (
            {"special_tokens": [{"id": "<s>", "ids": [1], "tokens": ["<s>"]}]},
            "invalid-type",
            "$.post_processor.special_tokens",
        ),
        ({"single": [seq("C", 0)]}, "invalid-value", "$.post_processor.single[0].Sequence.id"),
        ({"single": [seq("a", 0)]}, "invalid-value", "$.post_processor.single[0].Sequence.id"),
        (
            {"single": [seq("A", -1)]},
            "invalid-value",
            "$.post_processor.single[0].Sequence.type_id",
        ),
        (
            {"single": [seq("A", 2**32)]},
            "invalid-value",
            "$.post_processor.single[0].Sequence.type_id",
        ),
        (
            {"single": [{"Sequence": {"id": "A"}}]},
            "missing-field",
            "$.post_processor.single[0].Sequence.type_id",
        ),
        (
            {"single": [{**seq("A", 0), **special("<s>", 0)}]},
            "invalid-value",
            "$.post_processor.single[0]",
        ),
        (
            {"special_tokens": {"<s>": {"id": "<s>", "ids": [-1], "tokens": ["<s>"]}}},
            "invalid-value",
            "$.post_processor.special_tokens['<s>'].ids[0]",
        ),
    ],
)
def test_json_refusals(fields: dict[str, Any], rule: str, path: str) -> None:
    error = refusal(variant(**fields))
    assert (error.rule, error.path) == (rule, path)


def test_missing_fields_are_refused() -> None:
    for field in ("single", "pair", "special_tokens"):
        processor = {k: v for k, v in LLAMA.items() if k != field}
        assert refusal(processor).rule == "missing-field"


def test_other_types_are_unsupported() -> None:
    # observed: upstream loads and applies BertProcessing; this reference does not reproduce it.
    error = refusal({"type": "BertProcessing", "sep": ["</s>", 2], "cls": ["<s>", 1]})
    assert (error.rule, error.path) == ("unsupported-component", "$.post_processor.type")
    assert "BertProcessing" in error.message
    assert refusal({"type": "Foo"}).rule == "unsupported-component"


def test_type_less_post_processor_is_refused_although_upstream_accepts_it() -> None:
    # observed: without "type", upstream's untagged fallback loads the Llama template.
    processor = {k: v for k, v in LLAMA.items() if k != "type"}
    assert (refusal(processor).rule, refusal(processor).path) == (
        "missing-field",
        "$.post_processor.type",
    )


# ---------------------------------------------------------------------------
# The string form: upstream's constructor only
# ---------------------------------------------------------------------------

SPECIALS = [("<s>", 1), ("</s>", 2)]


# (single, observed processors.TemplateProcessing(single=..., special_tokens=SPECIALS) "single")
@pytest.mark.parametrize(
    ("single", "observed"),
    [
        ("<s> $A", (SpecialTokenPiece("<s>", 0), SequencePiece("A", 0))),
        ("$0", (SequencePiece("A", 0),)),
        ("$", (SequencePiece("A", 0),)),
        ("$1", (SequencePiece("A", 1),)),
        ("$:1", (SequencePiece("A", 1),)),
        ("$a", (SequencePiece("A", 0),)),
        ("<s>:1 $A:2", (SpecialTokenPiece("<s>", 1), SequencePiece("A", 2))),
        ("$+1", (SequencePiece("A", 1),)),
        ("<s>:+1 $A", (SpecialTokenPiece("<s>", 1), SequencePiece("A", 0))),
        ("$01", (SequencePiece("A", 1),)),
        ("$A:01", (SequencePiece("A", 1),)),
    ],
)
def test_string_templates(single: str, observed: tuple[object, ...]) -> None:
    processor = TemplateProcessing.from_strings(single=single, special_tokens=SPECIALS)
    assert processor.single == observed
    # observed default pair: [A:0, B:1]
    assert processor.pair == (SequencePiece("A", 0), SequencePiece("B", 1))


# Each raised ValueError in upstream's constructor (message in the comment).
@pytest.mark.parametrize(
    ("single", "message"),
    [
        ("$C:1", 'Cannot build Piece from string "$C:1"'),
        ("$A:", 'Cannot build Piece from string "$A:"'),
        ("<s>:1:2 $A", 'Cannot build Piece from string "<s>:1:2"'),
        ("a:b $A", 'Cannot build Piece from string "a:b"'),
        ("$A:-1", 'Cannot build Piece from string "$A:-1"'),
        ("$A:4294967296", 'Cannot build Piece from string "$A:4294967296"'),
        ("$ab", 'Cannot build Piece from string "$ab"'),
        ("<s>:0x1 $A", 'Cannot build Piece from string "<s>:0x1"'),
        ("$A:١", 'Cannot build Piece from string "$A:١"'),
        ("<s>  $A", "Missing SpecialToken(s) with id(s) ``"),
        ("", "Missing SpecialToken(s) with id(s) ``"),
        ("<s>\t$A", "Missing SpecialToken(s) with id(s) `<s>\t$A`"),
        ("<x> $A", "Missing SpecialToken(s) with id(s) `<x>`"),
    ],
)
def test_string_template_errors(single: str, message: str) -> None:
    with pytest.raises(LoadError) as info:
        TemplateProcessing.from_strings(single=single, special_tokens=SPECIALS)
    assert info.value.rule == "invalid-value"
    assert info.value.message == message


@pytest.mark.parametrize("pair", ["$A", "$B"])
def test_string_pair_must_use_both_sequences(pair: str) -> None:
    # observed: ValueError "Template for `pair` must use both sequences"
    with pytest.raises(LoadError) as info:
        TemplateProcessing.from_strings(single="$A", pair=pair, special_tokens=SPECIALS)
    assert info.value.message == "Template for `pair` must use both sequences"
