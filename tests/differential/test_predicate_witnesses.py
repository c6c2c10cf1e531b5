"""Witnesses conformance runs found that a class should have explained, kept as tests.

Each was a failure until its predicate learnt the mechanism: upstream's unk/byte
misordering and decorated byte pieces in a pair's second text (a token's source text is
found through its sequence id); a decorated symbol whose character a normalizer inserted
(its span is a neighbour's, so its byte count says nothing: the bytes are decoded); byte
pieces merged under a continuing-subword prefix (``<0x9D>x95>x8F>``: each right part cut
by the prefix's length in bytes, as upstream merges); two decorated symbols sharing one
span (two inserted characters).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("tokenizers")

from harness.core.case import Case
from harness.runs.generated import evaluate

pytestmark = pytest.mark.upstream

WITNESSES = json.loads((Path(__file__).resolve().parents[1] / "data" / "predicate_witnesses.json")
                       .read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(WITNESSES))
def test_the_witness_is_explained(name: str) -> None:
    entry = WITNESSES[name]
    _, judgement = evaluate(Case.from_json(entry["case"]))
    assert not [v for v in judgement.verdicts if v.is_failure]
    shown = [v for v in judgement.verdicts if entry["class"] in v.classes]
    assert shown, f"{entry['class']} does not show"
    if entry["pair"]:
        assert any(v.divergence.observation.option("pair") is not None for v in shown)
