"""The matrix as files: ``reports/matrix/<subject>.yaml`` (each subject's conformance
report, as its run wrote it) and ``reports/matrix.yaml`` (the summary: canonical YAML,
written atomically, read back through the model and its schema)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from ..core.canonical import canonical_yaml, write_atomic
from ..report.serde import ShapeError, from_data, to_data
from .model import MATRIX_VERSION, Matrix

PREAMBLE = """\
The conformance matrix: every registered subject run side by side (python -m harness
matrix), each judged by its own expectations, and every pinned witness replayed on every
subject (the transplant).
  subjects   name, exact version, verdict (pass / fail / incomplete / not-run) and why
  findings   one per pinned witness (source/entry): its severity grade, the subjects that
             show it (shown_by) and every subject's cell
  real_files one per real tokenizer.json over the whole corpus: every subject's
             comparisons, divergences, failures and the findings it triggered (how often)
Each subject's own report: reports/matrix/<subject>.yaml.
"""


class MatrixShapeError(Exception):
    """A matrix file that is not one this version writes (the message says where)."""


def matrix_text(matrix: Matrix) -> str:
    data = to_data(matrix)  # the model's order at the top (subjects first), sorted below
    body = "".join(canonical_yaml({key: value}) for key, value in data.items())
    return "".join(f"# {line}\n".replace(" \n", "\n") for line in PREAMBLE.splitlines()) \
        + body


def write_matrix(matrix: Matrix, path: Path) -> None:
    write_atomic(path, matrix_text(matrix))


def parse_matrix(data: Any, where: str = "the matrix") -> Matrix:
    if not isinstance(data, dict) or data.get("matrix_version") != MATRIX_VERSION:
        raise MatrixShapeError(f"{where}: $.matrix_version: expected {MATRIX_VERSION}")
    try:
        return from_data(Matrix, data)
    except ShapeError as exc:
        raise MatrixShapeError(f"{where}: {exc}") from None


def read_matrix(path: Path) -> Matrix:
    return parse_matrix(yaml.safe_load(path.read_text(encoding="utf-8")), path.as_posix())
