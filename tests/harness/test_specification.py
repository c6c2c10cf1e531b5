"""The specification oracle: what it derives from a document, and that it flags a
reference which breaks a rule even where upstream would agree with it."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from harness.core.case import Case
from harness.core.observation import Observation
from harness.core.outcome import Decoded, Encoded, Loaded, Refused
from harness.judge.byte_pieces import byte_piece_violations
from harness.judge.specification import (
    UNREPRODUCED_TYPES,
    Specification,
    broken_rules,
    decoder_shape_path,
    template_layout,
    unreproduced_component_paths,
    without_metaspace,
)
from harness.runs.replay import CaseReplayer
from harness.strategies.declared import UNREPRODUCED_COMPONENTS, unreproduced_probe
from harness.subjects.reference import LENIENT, STRICT

BYTES = {f"<0x{b:02X}>": b + 3 for b in range(256)}
LLAMA = {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"},
    {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}


def document(**changes: Any) -> dict[str, Any]:
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, **BYTES, "a": 259, "b": 260, "##a": 261}
    doc: dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 1, "content": "<s>", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None,
        "decoder": {"type": "ByteFallback"},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": []},
    }
    model = changes.pop("model", {})
    doc["model"].update(model)
    doc.update(changes)
    return doc


def test_a_document_keeping_every_rule_breaks_none() -> None:
    assert broken_rules(document()) == {}
    assert decoder_shape_path({"type": "ByteFallback"}) is None
    assert decoder_shape_path(LLAMA) is None


@pytest.mark.parametrize(("decoder", "path"), [
    (None, "$.decoder"),
    ({"type": "Fuse"}, "$.decoder"),
    ({"type": "Sequence", "decoders": LLAMA["decoders"][:3]}, "$.decoder.decoders"),
    ({"type": "Sequence", "decoders": [*LLAMA["decoders"], {"type": "Fuse"}]},
     "$.decoder.decoders[4]"),
    ({"type": "Sequence", "decoders": LLAMA["decoders"][::-1]}, "$.decoder.decoders[0]"),
])
def test_the_decoder_shape_rule_names_the_path_decision_0001_names(decoder: Any,
                                                                   path: str) -> None:
    assert decoder_shape_path(decoder) == path
    assert broken_rules(document(decoder=decoder))["decoder-shape"] == {path}
    refused = STRICT.load(Case(document(decoder=decoder)).document_json())
    assert isinstance(refused, Refused) and refused.path == path


def test_each_founding_rule_is_found_with_its_path() -> None:
    vocab = dict(document()["model"]["vocab"])
    del vocab["<0x41>"]
    vocab["<0xc3>"] = 999
    broken = broken_rules(document(model={"vocab": vocab, "unk_token": "<nope>",
                                          "dropout": 0.5}))
    assert broken["byte-alphabet-incomplete"] == {"$.model.vocab"}
    assert broken["byte-piece-lowercase"] == {"$.model.vocab['<0xc3>']"}
    assert broken["unk-token-not-in-vocabulary"] == {"$.model.unk_token"}
    assert broken["dropout-nondeterministic"] == {"$.model.dropout"}


def _load(case: Case, reference: Any, track: str = "strict") -> Observation:
    return Observation(track, "load", None, (), reference, Loaded())  # type: ignore[arg-type]


def test_a_reference_that_loads_a_refused_shape_is_flagged() -> None:
    case = Case(document(decoder={"type": "Sequence", "decoders": [*LLAMA["decoders"],
                                                                   {"type": "Fuse"}]}))
    assert Specification(case, CaseReplayer()).check(_load(case, Loaded()))
    right = Refused("decoder-shape", "", "$.decoder.decoders[4]")
    assert not Specification(case, CaseReplayer()).check(_load(case, right))
    elsewhere = Refused("decoder-shape", "", "$.decoder")
    assert Specification(case, CaseReplayer()).check(_load(case, elsewhere))


def test_a_reference_that_refuses_a_reproduced_shape_is_flagged() -> None:
    case = Case(document())
    found = Specification(case, CaseReplayer()).check(
        _load(case, Refused("decoder-shape", "", "$.decoder")))
    assert found and found[0].tier == "specification[decoder-shape]"


def test_the_lenient_reference_never_refuses_by_a_strict_only_rule() -> None:
    case = Case(document(decoder=None))
    refused = Refused("decoder-shape", "", "$.decoder")
    assert Specification(case, CaseReplayer()).check(_load(case, refused, "lenient"))


def test_metaspace_steps_are_taken_out() -> None:
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
            "split": True}
    assert without_metaspace(meta) == ({"type": "Sequence", "decoders": []}, True)
    chain = {"type": "Sequence", "decoders": [meta, {"type": "Fuse"}]}
    assert without_metaspace(chain) == ({"type": "Sequence", "decoders": [{"type": "Fuse"}]},
                                        True)
    assert without_metaspace({"type": "Fuse"}) == ({"type": "Fuse"}, False)


def test_a_reference_that_applies_the_metaspace_decoder_is_flagged() -> None:
    meta = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always",
            "split": True}
    doc = document(decoder=meta, model={"byte_fallback": False,
                                        "vocab": {"<unk>": 0, "\u2581a": 1, "b": 2}})
    case = Case(doc)
    ids = (1, 2)
    kept = Observation("lenient", "decode", ids, (("skip_special_tokens", True),),
                       Decoded("\u2581ab"), Decoded("ab"))
    applied = replace(kept, subject=Decoded("ab"))
    assert not Specification(case, CaseReplayer()).check(kept)
    assert Specification(case, CaseReplayer()).check(applied)


def test_unknown_ids_are_refused_at_the_first() -> None:
    case = Case(document())
    obs = Observation("strict", "decode", (259, 5000, 6000), (("skip_special_tokens", True),),
                      Refused("decode-unknown-id", "", "ids[1]"), Decoded("a"))
    assert not Specification(case, CaseReplayer()).check(obs)
    assert Specification(case, CaseReplayer()).check(replace(obs, subject=Decoded("a")))
    wrong = replace(obs, subject=Refused("decode-unknown-id", "", "ids[2]"))
    assert Specification(case, CaseReplayer()).check(wrong)


def test_an_added_token_with_empty_content_names_no_id() -> None:
    """Upstream skips an ``added_tokens`` entry whose content is empty (it takes no id), so
    its JSON id names no token: the strict reference refuses to decode it."""
    empty = {"id": 262, "content": "", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": False}
    doc = document()
    doc["added_tokens"] = [*doc["added_tokens"], empty]
    obs = Observation("strict", "decode", (259, 262), (("skip_special_tokens", True),),
                      Refused("decode-unknown-id", "", "ids[1]"), Decoded("a"))
    assert not Specification(Case(doc), CaseReplayer()).check(obs)


def test_the_template_layout() -> None:
    template = {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                           {"Sequence": {"id": "A", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                         {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": "<s>", "type_id": 1}},
                         {"Sequence": {"id": "B", "type_id": 1}}],
                "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}}
    doc = document(post_processor=template)
    layout = template_layout(doc, [2, 1], True, True)
    assert layout is not None
    assert [(s.special_id, s.sequence, s.type_id) for s in layout] == [
        (1, None, 0), (None, 0, 0), (None, 0, 0), (1, None, 1), (None, 1, 1)]
    without = template_layout(doc, [2, 1], True, False)
    assert without is not None and [s.sequence for s in without] == [0, 0, 1]


def _encoded(tokens: list[str], spans: list[tuple[int, int]]) -> Encoded:
    n = len(tokens)
    return Encoded(tuple(range(n)), tuple(tokens), tuple(spans), (0,) * n,
                   word_ids=(0,) * n, sequence_ids=(0,) * n, type_ids=(0,) * n,
                   attention_mask=(1,) * n, model_word_ids=(0,) * n)


def test_byte_pieces_of_a_decorated_symbol_share_its_span() -> None:
    model = copy.deepcopy(document()["model"])
    model["continuing_subword_prefix"] = "##"
    # "aé": "a", then "##é" = 23 23 C3 A9, all four on the span of "é"
    good = _encoded(["a", "<0x23>", "<0x23>", "<0xC3>", "<0xA9>"],
                    [(0, 1), (1, 2), (1, 2), (1, 2), (1, 2)])
    assert byte_piece_violations(good, ("aé",), model, plain=True) == {}
    empty = _encoded(["a", "<0x23>", "<0x23>", "<0xC3>", "<0xA9>"],
                     [(0, 1), (1, 1), (1, 1), (1, 2), (1, 2)])
    assert set(byte_piece_violations(empty, ("aé",), model, plain=True)) == {1, 2, 3, 4}
    drifting = _encoded(["a", "<0x23>", "<0x23>", "<0xC3>", "<0xA9>"],
                        [(0, 1), (1, 2), (1, 2), (1, 2), (2, 3)])
    assert byte_piece_violations(drifting, ("aé",), model, plain=True)


def test_a_literal_byte_spelling_in_the_text_is_no_byte_piece() -> None:
    model = copy.deepcopy(document()["model"])
    literal = _encoded(["<0x58>"], [(0, 6)])
    assert byte_piece_violations(literal, ("<0x58>",), model, plain=True) == {}


def _template(**changes: Any) -> dict[str, Any]:
    template: dict[str, Any] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}}
    template.update(changes)
    return template


S, A, B = ({"SpecialToken": {"id": "</s>", "type_id": 0}},
           {"Sequence": {"id": "A", "type_id": 0}},
           {"Sequence": {"id": "B", "type_id": 0}})


@pytest.mark.parametrize(("template", "path"), [
    (_template(single=[A, S]), "$.post_processor.single[1]"),
    (_template(pair=[A, B, S]), "$.post_processor.pair[2]"),
    (_template(single=[A, B]), "$.post_processor.single[1]"),
    (_template(special_tokens={"<s>": {"id": "<s>", "ids": [1, 1], "tokens": ["<s>"]}}),
     "$.post_processor.special_tokens['<s>']"),
    ({"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": False,
                                          "trim_offsets": False, "use_regex": True},
                                         _template(pair=[S, A, B])]},
     "$.post_processor.processors[1].pair[0]"),
])
def test_an_incoherent_template_is_found_where_the_reference_refuses_it(
        template: dict[str, Any], path: str) -> None:
    """Decision 0047: each incoherent place, with the path the reference's refusal names."""
    doc = document(post_processor=template)
    assert broken_rules(doc) == {"template-incoherent": {path}}
    for side in (STRICT, LENIENT):
        refused = side.load(Case(doc).document_json())
        assert isinstance(refused, Refused)
        assert (refused.rule, refused.path) == ("template-incoherent", path)
    case = Case(doc)
    assert Specification(case, CaseReplayer()).check(_load(case, Loaded()))
    elsewhere = Refused("template-incoherent", "", "$.post_processor.single[0]")
    assert Specification(case, CaseReplayer()).check(_load(case, elsewhere))
    assert not Specification(case, CaseReplayer()).check(
        _load(case, Refused("template-incoherent", "", path)))


def test_a_coherent_template_breaks_no_template_rule() -> None:
    assert broken_rules(document(post_processor=_template())) == {}


@pytest.mark.parametrize(("field", "component"), UNREPRODUCED_COMPONENTS,
                         ids=[f"{f}-{c['type']}" for f, c in UNREPRODUCED_COMPONENTS])
def test_an_unreproduced_component_is_found_where_the_reference_refuses_it(
        field: str, component: dict[str, Any]) -> None:
    """Decision 0012: each declared probe's component is found at the ``type`` path both
    modes of the reference refuse, and a refusal elsewhere or a load is a finding."""
    case = unreproduced_probe(field, component)
    paths = unreproduced_component_paths(case.document)
    assert len(paths) == 1
    for side in (STRICT, LENIENT):
        refused = side.load(case.document_json())
        assert isinstance(refused, Refused)
        assert (refused.rule, {refused.path}) == ("unsupported-component", paths)
    assert Specification(case, CaseReplayer()).check(_load(case, Loaded()))


def test_every_unreproduced_type_has_a_declared_probe() -> None:
    probed = {(field, step["type"]) for field, component in UNREPRODUCED_COMPONENTS
              for step in [component, *component.get(UNREPRODUCED_TYPES[field][0], [])]}
    assert {(field, kind) for field, (_, kinds) in UNREPRODUCED_TYPES.items()
            for kind in kinds} <= probed


@pytest.mark.parametrize("changes", [
    {"decoder": {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "Strip",
                                                  "content": " ", "start": 1, "stop": 0}]}},
    {"post_processor": {"type": "Sequence", "processors": [
        {"type": "TemplateProcessing", "single": [], "pair": [], "special_tokens": {}},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False}]}},
    {"normalizer": {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Nmtx"}]}},
])
def test_reproduced_and_unknown_types_are_not_unreproduced(changes: dict[str, Any]) -> None:
    """Reproduced types, one template, and a type upstream does not know either: none of
    them is a component upstream builds and the reference leaves out."""
    assert unreproduced_component_paths(document(**changes)) == set()


def test_the_template_after_a_template_is_found_in_nested_sequences() -> None:
    plain = {"type": "TemplateProcessing", "single": [], "pair": [], "special_tokens": {}}
    post = {"type": "Sequence", "processors": [
        {"type": "Sequence", "processors": [plain]}, {"type": "ByteLevel"}, plain, plain]}
    assert unreproduced_component_paths(document(post_processor=post)) == {
        "$.post_processor.processors[2].type", "$.post_processor.processors[3].type"}
