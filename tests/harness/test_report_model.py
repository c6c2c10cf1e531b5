"""The report model: one typed, versioned model read and written by everything; its JSON
Schema generated from it and committed; harness errors surface in the report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from harness.report import schema
from harness.report.files import ReportError, parse_report, read_report, report_text
from harness.report.model import REPORT_VERSION, TIMING_FIELDS, Report
from harness.report.serde import to_data

ROOT = Path(__file__).resolve().parents[2]
REPORTS = [ROOT / "tests" / "data" / "markdown" / name
           for name in ("with-failure.yaml", "without-failure.yaml")]


def test_the_committed_schema_is_generated_from_the_model() -> None:
    assert schema.committed_schema() == schema.schema_text(), (
        "run: python -m harness.report.schema")
    assert schema.main(["--check"]) == 0


@pytest.mark.parametrize("path", [*REPORTS, ROOT / "reports" / "conformance.yaml"],
                         ids=lambda p: p.name)
def test_reports_validate_against_the_schema_and_round_trip(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.validate(data, schema.report_schema())
    report = read_report(path)
    assert isinstance(report, Report) and report.report_version == REPORT_VERSION
    assert to_data(report) == data
    text = report_text(report)
    assert yaml.safe_load(text) == data
    first = [line for line in text.splitlines() if not line.startswith("#")][:3]
    assert first == [f"report_version: {REPORT_VERSION}", f"verdict: {report.verdict}",
                     "summary:"]


def test_every_timing_field_is_a_field_of_the_model() -> None:
    names: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties":
                    names.update(value)
                walk(value)

    walk(schema.report_schema())
    assert names >= TIMING_FIELDS


@pytest.mark.parametrize(("mutation", "says"), [
    (lambda d: d.pop("summary"), "missing 'summary'"),
    (lambda d: d.update(report_version=1), "report_version 1"),
    (lambda d: d["summary"].update(examples="many"), "$.summary.examples: expected int"),
    (lambda d: d.update(verdict="maybe"), "expected one of ['pass', 'fail', 'incomplete']"),
])
def test_a_malformed_report_is_refused_by_path(mutation: Any, says: str) -> None:
    data = yaml.safe_load(REPORTS[0].read_text(encoding="utf-8"))
    mutation(data)
    with pytest.raises(ReportError) as refused:
        parse_report(data)
    assert says in str(refused.value)


@pytest.mark.upstream
def test_a_harness_bug_is_a_harness_error_and_fails_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("tokenizers")
    from harness.core.profiles import PROFILES, RunProfile
    from harness.job import run
    from harness.judge import predicates
    from harness.report.build import build_report

    monkeypatch.setitem(PROFILES, "tiny", RunProfile("tiny", 15, 2, 4, 0, "test"))

    def broken(ctx: Any, div: Any) -> frozenset[int]:
        raise KeyError("a predicate bug")

    for name in list(predicates.REGISTRY):  # whichever class the first cases meet
        monkeypatch.setitem(predicates.REGISTRY, name, broken)
    result = run(profile_name="tiny", seed_value=0, examples=15, command="t",
                 real_examples=-1, with_morph_track=False, check_pinned=False)
    assert result.failed and result.tally.errors
    assert "KeyError: 'a predicate bug'" in result.tally.errors[0]
    report = build_report(result)
    assert report.verdict == "fail" and report.harness_errors
    assert "harness error" in report.failing_parts()[-1]
