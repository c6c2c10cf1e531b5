"""The merge of job shards with the real models in them: each shard runs the fixtures of its
positions, and ``harness.report.merge`` puts them back in the run's order (the short test
without real models is tests/harness/test_shards.py; docs/decisions/0030-logical-shards.md).
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.fixture_builders.real_models import CONFORMANCE_FIXTURES
from harness.job import run
from harness.report.build import build_report
from harness.report.merge import merge
from harness.report.model import TIMING_FIELDS
from harness.report.serde import to_data

pytestmark = pytest.mark.upstream

FIXTURES = CONFORMANCE_FIXTURES[:3]
PATH = "reports/conformance.yaml"


def without_timing(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: without_timing(v) for k, v in node.items() if k not in TIMING_FIELDS}
    if isinstance(node, list):
        return [without_timing(v) for v in node]
    return node


def _report(shard: tuple[int, int] | None) -> Any:
    result = run(profile_name="smoke", seed_value=2, examples=24, command="t",
                 real_examples=2, real_fixtures=FIXTURES, shard=shard)
    return build_report(result, PATH)


def test_merged_shards_with_real_models_are_the_one_process_report() -> None:
    whole = _report(None)
    assert [f.fixture for f in whole.real_models.fixtures] == list(FIXTURES)
    parts = [(f"shard-{i}.yaml", _report((i, 2))) for i in (2, 1)]
    assert [len(r.real_models.fixtures) for _, r in parts] == [1, 2]
    merged = merge(parts, PATH)
    assert without_timing(to_data(merged)) == without_timing(to_data(whole))
