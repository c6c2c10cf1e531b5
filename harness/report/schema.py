"""The JSON Schemas of ``reports/conformance.yaml`` and of the oracle drift reports,
generated from their models (``model.py``, ``drift.py``).

``python -m harness.report.schema`` rewrites ``harness/report/conformance.schema.json`` and
``drift.schema.json``; ``--check`` fails when a committed file differs (a test runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.canonical import write_atomic
from . import drift, model
from .serde import schema_of

SCHEMA_FILE = "conformance.schema.json"
DRIFT_SCHEMA_FILE = "drift.schema.json"


def report_schema() -> dict[str, Any]:
    definitions: dict[str, Any] = {}
    root = schema_of(model.Report, definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tokenizer-conformance report",
        "description": f"reports/conformance.yaml, report_version {model.REPORT_VERSION} "
                       "(generated from harness/report/model.py)",
        **root,
        "$defs": dict(sorted(definitions.items())),
    }


def drift_schema() -> dict[str, Any]:
    definitions: dict[str, Any] = {}
    root = schema_of(drift.DriftReport, definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tokenizer-conformance oracle drift report",
        "description": "reports/oracle-drift-<from>-to-<to>.yaml, report_version "
                       f"{drift.DRIFT_REPORT_VERSION} (generated from harness/report/drift.py)",
        **root,
        "$defs": dict(sorted(definitions.items())),
    }


def _text(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def schema_text() -> str:
    return _text(report_schema())


def drift_schema_text() -> str:
    return _text(drift_schema())


def committed_schema() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.report.schema")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = 0
    for name, text in ((SCHEMA_FILE, schema_text()), (DRIFT_SCHEMA_FILE, drift_schema_text())):
        target = Path(__file__).with_name(name)
        if args.check:
            current = target.is_file() and target.read_text(encoding="utf-8") == text
            print(f"{name}: {'up to date' if current else 'stale'}")
            stale += not current
        else:
            write_atomic(target, text)
            print(f"wrote {target}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
