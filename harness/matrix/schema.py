"""The JSON Schema of ``reports/matrix.yaml``, generated from ``harness.matrix.model``.

``python -m harness.matrix.schema`` rewrites ``matrix.schema.json`` beside this module;
``--check`` fails when the committed file differs (a test runs it).
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Any

from ..report.schema_files import document_schema, schema_json, write_or_check
from . import model

SCHEMA_FILE = "matrix.schema.json"


def matrix_schema() -> dict[str, Any]:
    return document_schema(
        model.Matrix, "tokenizer-conformance matrix",
        f"reports/matrix.yaml, matrix_version {model.MATRIX_VERSION} "
        "(generated from harness/matrix/model.py)")


def schema_text() -> str:
    return schema_json(matrix_schema())


def committed_schema() -> str:
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    return write_or_check("python -m harness.matrix.schema",
                          [(Path(__file__).with_name(SCHEMA_FILE), schema_text)], argv)


if __name__ == "__main__":
    sys.exit(main())
