"""The JSON Schemas of ``reports/conformance.yaml`` and of the oracle drift reports,
generated from their models (``model.py``, ``drift.py``).

``python -m harness.report.schema`` rewrites ``harness/report/conformance.schema.json`` and
``drift.schema.json``; ``--check`` fails when a committed file differs (a test runs it).
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Any

from . import drift, model
from .schema_files import document_schema, schema_json, write_or_check

SCHEMA_FILE = "conformance.schema.json"
DRIFT_SCHEMA_FILE = "drift.schema.json"


def report_schema() -> dict[str, Any]:
    return document_schema(
        model.Report, "tokenizer-conformance report",
        f"reports/conformance.yaml, report_version {model.REPORT_VERSION} "
        "(generated from harness/report/model.py)")


def drift_schema() -> dict[str, Any]:
    return document_schema(
        drift.DriftReport, "tokenizer-conformance oracle drift report",
        "reports/oracle-drift-<from>-to-<to>.yaml, report_version "
        f"{drift.DRIFT_REPORT_VERSION} (generated from harness/report/drift.py)")


def schema_text() -> str:
    return schema_json(report_schema())


def drift_schema_text() -> str:
    return schema_json(drift_schema())


def committed_schema() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).parent
    return write_or_check("python -m harness.report.schema",
                          [(here / SCHEMA_FILE, schema_text),
                           (here / DRIFT_SCHEMA_FILE, drift_schema_text)], argv)


if __name__ == "__main__":
    sys.exit(main())
