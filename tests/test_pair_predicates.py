"""Classes explain the second text of a pair too: a predicate reads each token's source
text through its sequence id, not the first text alone.

The two cases are witnesses a conformance run found (seed 0, profile ci) while the
predicates still looked at the first text only: upstream's unk/byte misordering inside a
pair's second text, and byte pieces of a decorated symbol in it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("tokenizers")

from harness.core.case import Case
from harness.runs.generated import evaluate

pytestmark = pytest.mark.upstream

WITNESSES = json.loads((Path(__file__).parent / "data" / "pair_witnesses.json").read_text(
    encoding="utf-8"))
EXPECTED = {"F1-ordering-in-pair": "unk-byte-fallback-ordering",
            "F2-decorated-bytes-in-pair": "decorated-byte-fallback-spans"}


@pytest.mark.parametrize("name", sorted(WITNESSES))
def test_a_pair_divergence_is_explained(name: str) -> None:
    _, judgement = evaluate(Case.from_json(WITNESSES[name]))
    assert not [v for v in judgement.verdicts if v.is_failure]
    pairs = [v for v in judgement.verdicts if v.divergence.observation.option("pair")]
    assert any(EXPECTED[name] in v.classes for v in pairs)
