"""transformers.js as a subject: installed from npm (pinned), judged by its expectations.

Needs ``node`` and the package (installed with ``npm`` on first use, or already in the
build folder); skipped, naming the reason, where either is missing. Every pinned witness
of ``harness/subjects/transformers_js/witnesses.json`` must show exactly its entry and nothing
unexplained; with that entry deleted from the expectations, the same witness fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.core.case import Case
from harness.judge.classify import judge
from harness.judge.expectations import Expectations
from harness.runs import third_party
from harness.runs.replay import CaseReplayer
from harness.subjects import transformers_js

ROOT = Path(__file__).resolve().parents[2]
PINNED = ROOT / "harness" / "subjects" / "transformers_js" / "witnesses.json"


def _engine() -> third_party.SubjectEngine:
    try:
        return third_party.engine_for(transformers_js.NAME)
    except third_party.SubjectUnavailableError as exc:
        pytest.skip(str(exc))


def _rows() -> list[dict[str, Any]]:
    if not PINNED.is_file():
        return []
    return list(json.loads(PINNED.read_text(encoding="utf-8"))["cases"])


def test_the_package_is_pinned_by_integrity() -> None:
    _engine()
    package = transformers_js.package_dir()
    manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    assert manifest["name"] == transformers_js.PACKAGE
    assert manifest["version"] == transformers_js.VERSION


def test_every_entry_has_a_pinned_witness() -> None:
    own = third_party.expectations_path(transformers_js.NAME, None)
    entries = {entry.id for entry in third_party.expectations_at(own).entries}
    pinned = {row["class"] for row in _rows()}
    assert len(pinned) >= 10
    assert pinned <= entries


@pytest.mark.parametrize("row", _rows(), ids=lambda row: row["class"])
def test_a_pinned_witness_is_green_and_turns_red_without_its_entry(
        row: dict[str, Any]) -> None:
    wired = _engine()
    case = Case.from_json(row["case"])
    observations = wired.engine.observe(case)
    known = judge(case, observations, wired.subject.capabilities,
                  wired.expectations.classes, replay=CaseReplayer())
    assert any(row["class"] in v.classes for v in known.verdicts)
    assert not [v for v in known.verdicts if v.is_failure], [
        v.divergence.detail for v in known.verdicts if v.is_failure]
    fewer = Expectations(wired.expectations.subject, wired.expectations.path,
                         tuple(e for e in wired.expectations.entries if e.id != row["class"]),
                         inherit_reference=False)
    without = judge(case, observations, wired.subject.capabilities, fewer.classes,
                    replay=CaseReplayer())
    assert any(v.is_failure for v in without.verdicts), (
        f"deleting {row['class']} left its witness green")
