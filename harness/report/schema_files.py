"""A typed model as a committed JSON Schema file: the schema generated from the model
(``serde.schema_of``), its canonical text, and the ``--check`` / rewrite command every
schema module runs (the conformance and drift reports here, the matrix in
``harness/matrix/schema.py``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.canonical import write_atomic
from .serde import schema_of

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def document_schema(root: type, title: str, description: str) -> dict[str, Any]:
    """The JSON Schema of a file whose content is ``root``."""
    definitions: dict[str, Any] = {}
    body = schema_of(root, definitions)
    return {"$schema": DRAFT, "title": title, "description": description, **body,
            "$defs": dict(sorted(definitions.items()))}


def schema_json(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def write_or_check(prog: str, files: Sequence[tuple[Path, Callable[[], str]]],
                   argv: list[str] | None) -> int:
    """``prog [--check]``: rewrite each committed schema file from its model, or (``--check``)
    say which differ; exit 1 when one is stale."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    stale = 0
    for target, text_of in files:
        text = text_of()
        if args.check:
            current = target.is_file() and target.read_text(encoding="utf-8") == text
            print(f"{target.name}: {'up to date' if current else 'stale'}")
            stale += not current
        else:
            write_atomic(target, text)
            print(f"wrote {target}")
    return 1 if stale else 0
