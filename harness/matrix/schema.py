"""The JSON Schema of ``reports/matrix.yaml``, generated from ``harness.matrix.model``.

``python -m harness.matrix.schema`` rewrites ``matrix.schema.json`` beside this module;
``--check`` fails when the committed file differs (a test runs it).
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from ..core.canonical import write_atomic
from ..report.serde import schema_of
from . import model

SCHEMA_FILE = "matrix.schema.json"


def matrix_schema() -> dict[str, Any]:
    definitions: dict[str, Any] = {}
    root = schema_of(model.Matrix, definitions)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "tokenizer-conformance matrix",
        "description": f"reports/matrix.yaml, matrix_version {model.MATRIX_VERSION} "
                       "(generated from harness/matrix/model.py)",
        **root,
        "$defs": dict(sorted(definitions.items())),
    }


def schema_text() -> str:
    return json.dumps(matrix_schema(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def committed_schema() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.matrix.schema")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    text = schema_text()
    target = Path(__file__).with_name(SCHEMA_FILE)
    if args.check:
        current = target.is_file() and target.read_text(encoding="utf-8") == text
        print(f"{SCHEMA_FILE}: {'up to date' if current else 'stale'}")
        return 0 if current else 1
    write_atomic(target, text)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
