"""Upgrading the pinned tokenizers (decision 0035): rows of tiers a version does not expose
stay pinned to the version that produced them; the drift report is typed, schema'd and
renders as Markdown; the 1.x preview's recognisers check the document; upstream without
offsets is skipped and counted; versions in pip's spelling. No tokenizers 1.x needed."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from harness.core.case import Case
from harness.core.observation import Observation
from harness.core.outcome import Encoded, Loaded, Refused
from harness.judge.compare import Divergence, judge_tiers
from harness.judge.context import Context
from harness.judge.replay import NothingReplayed
from harness.oracles.pinned_tiers import carry_file, carry_row
from harness.report import schema
from harness.report.drift import DriftReport, drift_text, parse_drift, read_drift
from harness.report.drift_markdown import render_drift
from harness.subjects.tokenizers_version import recognisers
from harness.subjects.tokenizers_version.generations import canonical_version

ROOT = Path(__file__).parents[2]
GONE = ("spans", "special_mask")
DRIFTS = sorted((ROOT / "reports").glob("oracle-drift-*.yaml"))


def _encode_row(ids: Any, spans: Any, mask: Any) -> dict[str, Any]:
    return {"id": "r", "kind": "encode", "tokenizer": "t", "flags": [],
            "input": {"text": "ab", "add_special_tokens": True, "pair": None},
            "upstream": {"encode": {"outcome": "encoded", "ids": ids, "tokens": ["a", "b"],
                                    "spans": spans, "special_mask": mask},
                         "decode_skip_special": {"outcome": "decoded", "text": "ab"}}}


def test_gone_tiers_are_carried_from_the_committed_row_and_say_who_produced_them() -> None:
    old = _encode_row([1, 2], [[0, 1], [1, 2]], [0, 0])
    new = _encode_row([1, 2], [], [])
    row = carry_row(copy.deepcopy(new), old, GONE, "0.23.1")
    assert row["upstream"]["encode"]["spans"] == [[0, 1], [1, 2]]
    assert row["upstream"]["encode"]["special_mask"] == [0, 0]
    assert row["produced_by"] == {"version": "0.23.1", "tiers": list(GONE),
                                  "whole_row": False}
    # packed rows (ids "1 2", spans "0:1 1:2") carry the same way
    packed = carry_row(_encode_row("1 2", "", ""), _encode_row("1 2", "0:1 1:2", "00"),
                       GONE, "0.23.1")
    assert packed["upstream"]["encode"]["spans"] == "0:1 1:2"
    # a row pinned earlier keeps the version that answered it last
    again = carry_row(copy.deepcopy(new), row, GONE, "1.0.0rc3")
    assert again["produced_by"]["version"] == "0.23.1"


def test_a_row_whose_token_count_changed_is_kept_whole() -> None:
    old = _encode_row([1, 2], [[0, 1], [1, 2]], [0, 0])
    row = carry_row(_encode_row([7], [], []), old, GONE, "0.23.1")
    assert row["upstream"] == old["upstream"]
    assert row["produced_by"]["whole_row"] is True


def test_a_witness_on_a_gone_tier_is_kept_whole_and_nothing_changes_under_0x() -> None:
    witness = {"id": "div-x", "kind": "witness", "class": "x", "flags": ["x"],
               "case": {"document": {}}, "tier": "spans",
               "upstream": {"outcome": "encoded", "ids": [1], "spans": [[0, 1]]}}
    regenerated = {**witness, "tier": None, "upstream": {"outcome": "encoded", "ids": [1],
                                                         "spans": []}}
    kept = carry_row(copy.deepcopy(regenerated), witness, GONE, "0.23.1")
    assert kept["upstream"] == witness["upstream"] and kept["produced_by"]["whole_row"]
    new = _encode_row([1, 2], [], [])
    assert carry_file({"cases": [copy.deepcopy(new)]}, {"cases": [new]}, ()) == {
        "cases": [new]}


def test_refusals_carry_nothing() -> None:
    old = _encode_row([1, 2], [[0, 1], [1, 2]], [0, 0])
    refused = copy.deepcopy(old)
    refused["upstream"] = {"encode": {"outcome": "refused", "rule": "r", "message": "m",
                                      "path": ""}}
    assert "produced_by" not in carry_row(copy.deepcopy(refused), old, GONE, "0.23.1")


@pytest.mark.parametrize("path", DRIFTS, ids=[p.name for p in DRIFTS])
def test_committed_drift_reports_are_typed_schema_valid_canonical_and_render(path: Path
                                                                             ) -> None:
    report = read_drift(path)
    assert drift_text(report) == path.read_text(encoding="utf-8"), "regenerate it"
    jsonschema.validate(json.loads(json.dumps(
        yaml.safe_load(path.read_text(encoding="utf-8")))),
        schema.drift_schema())
    text = render_drift(report)
    assert text.startswith("## ") and report.header.to_version in text
    assert "nox -s conformance" not in text
    assert list(yaml.safe_load(path.read_text(encoding="utf-8")))[:3] == [
        "report_version", "verdict", "summary"]


def test_the_1_0_drift_report_keeps_gone_tiers_pinned_to_0_23_1() -> None:
    report: DriftReport = read_drift(ROOT / "reports/oracle-drift-0.23.1-to-1.0.0rc3.yaml")
    assert report.summary.not_reproducible == len(report.not_reproducible) > 0
    assert {row.produced_by for row in report.not_reproducible} == {"0.23.1"}
    assert {tuple(row.tiers_gone) for row in report.not_reproducible} == {GONE}


def test_a_drift_report_of_another_version_is_refused_in_one_line() -> None:
    data = yaml.safe_load(DRIFTS[0].read_text(encoding="utf-8"))
    data["report_version"] = 0
    with pytest.raises(Exception, match="report_version 0") as caught:
        parse_drift(data, "x.yaml")
    assert "\n" not in str(caught.value)


def test_upstream_without_offsets_is_skipped_and_counted() -> None:
    ours = Encoded((1, 2), ("a", "b"), ((0, 1), (1, 2)), (0, 0))
    theirs = Encoded((1, 2), ("a", "b"), (), ())
    comparison = judge_tiers(Observation("strict", "encode", "ab", (), ours, theirs))
    assert comparison.divergence is None
    assert set(comparison.skipped) == {"spans", "special_mask"}
    # ...but a span that differs where upstream has spans is still a divergence
    other = Encoded((1, 2), ("a", "b"), ((0, 2), (2, 2)), (0, 0))
    assert judge_tiers(Observation("strict", "encode", "ab", (), ours, other)).divergence


def _load_divergence(document: dict[str, Any], message: str) -> tuple[Context, Divergence]:
    case = Case(document, ("a",))
    observation = Observation("strict", "load", None, (), Refused(message, message),
                              Loaded())
    return Context(case, NothingReplayed()), Divergence("load", "", observation)


def test_the_byte_fallback_recogniser_checks_the_first_missing_piece() -> None:
    vocab = {f"<0x{b:02X}>": b for b in range(256)}
    del vocab["<0x0A>"]
    document = {"model": {"type": "BPE", "byte_fallback": True, "vocab": vocab}}
    ctx, div = _load_divergence(document, "Byte fallback `<0x0A>` not found in the vocabulary")
    assert recognisers.byte_fallback_alphabet_required(ctx, div)
    ctx, div = _load_divergence(document, "Byte fallback `<0x0B>` not found in the vocabulary")
    assert not recognisers.byte_fallback_alphabet_required(ctx, div)
    document["model"]["byte_fallback"] = False
    ctx, div = _load_divergence(document, "Byte fallback `<0x0A>` not found in the vocabulary")
    assert not recognisers.byte_fallback_alphabet_required(ctx, div)


def test_the_load_recognisers_need_their_mechanism_in_the_document() -> None:
    dropout = {"model": {"type": "BPE", "dropout": 0.5, "vocab": {}}}
    message = "BPE models with dropout not supported yet"
    assert recognisers.dropout_unsupported(*_load_divergence(dropout, message))
    dropout["model"]["dropout"] = 0.0
    assert not recognisers.dropout_unsupported(*_load_divergence(dropout, message))
    slim = ("the slim JSON reader does not support a `Metaspace` pre-tokenizer. Convert the "
            "config offline (tk-convert)")
    inside = {"model": {}, "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Metaspace"}]}}
    alone = {"model": {}, "pre_tokenizer": {"type": "Metaspace"}}
    assert recognisers.metaspace_in_sequence_unsupported(*_load_divergence(inside, slim))
    assert not recognisers.metaspace_in_sequence_unsupported(*_load_divergence(alone, slim))
    unk: dict[str, Any] = {"model": {"unk_token": "<unk>", "vocab": {"a": 0}}}
    missing = "Unk token `<unk>` not found in the vocabulary"
    assert recognisers.unk_token_required(*_load_divergence(unk, missing))
    unk["model"]["vocab"]["<unk>"] = 1
    assert not recognisers.unk_token_required(*_load_divergence(unk, missing))
    space = "This byte-level vocabulary has no token for bytes 0x00, 0x41"
    level: dict[str, Any] = {"model": {"vocab": {"A": 0}},
                             "pre_tokenizer": {"type": "ByteLevel"}}
    assert not recognisers.byte_level_alphabet_required(*_load_divergence(level, space))
    level["model"]["vocab"] = {"B": 0}
    assert recognisers.byte_level_alphabet_required(*_load_divergence(level, space))


def test_versions_in_pips_spelling() -> None:
    assert canonical_version("1.0.0-rc.3") == "1.0.0rc3"
    assert canonical_version("0.23.1") == "0.23.1"


def test_dropout_sampling_is_recognised_only_for_one_text_segmented_twice() -> None:
    document: dict[str, Any] = {"model": {"type": "BPE", "dropout": 0.5, "vocab": {}}}
    ours = Encoded((0, 2), ("a", "aa"), ((0, 1), (1, 3)), (0, 0))
    theirs = Encoded((2, 0), ("aa", "a"), ((0, 2), (2, 3)), (0, 0))
    observation = Observation("strict", "encode", "aaa", (), ours, theirs)
    ctx = Context(Case(document, ("aaa",)), NothingReplayed())
    assert recognisers.dropout_sampled_differently(ctx, Divergence("ids", "", observation))
    other = Encoded((0,), ("b",), ((0, 1),), (0,))
    differs = Observation("strict", "encode", "aaa", (), ours, other)
    assert not recognisers.dropout_sampled_differently(ctx, Divergence("ids", "", differs))
    document["model"]["dropout"] = 1.0
    ctx = Context(Case(document, ("aaa",)), NothingReplayed())
    assert not recognisers.dropout_sampled_differently(ctx, Divergence("ids", "", observation))
