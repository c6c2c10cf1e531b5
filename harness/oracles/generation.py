"""Generating the oracle files from upstream (``tokenizers``, through the upstream subject
only, imported lazily): every row's upstream outcomes, in memory (``Generated``); writing
them. Format: ``oracles/README.md``; decision
[0013](../../docs/decisions/0013-tests-session-installs-tokenizers.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.canonical import canonical_json, write_atomic
from ..core.outcome import (
    Crashed,
    Encoded,
    Loaded,
    Refused,
    outcome_to_json,
)
from ..fixture_builders import real_models
from . import cases as oracle_cases
from .layout import (
    DIVERGENCES,
    ORACLE_DIR,
    SKIP_LABELS,
    Json,
    built_fixture_text,
    committed_files,
    document_json,
    environment,
    flag_meanings,
    oracle_path,
    sha256_text,
)
from .packing import pack_encoded, token_strings
from .pinned_tiers import carry_file, gone_tiers
from .spec import OracleSpec, RowSpec, TokenizerSpec
from .witnesses import regenerate_witnesses


def fixture_texts() -> dict[str, str]:
    """Every fixture file's canonical text, from its builder."""
    return {path: canonical_json(build()) for path, build in oracle_cases.FIXTURES.items()}


@dataclass
class Generated:
    """Every file a regeneration produces, path (from the root) -> canonical text."""

    version: str
    files: dict[str, str] = field(default_factory=dict)


def generate_all(root: Path) -> Generated:
    """Regenerate every oracle file (and fixture) in memory from the installed upstream."""
    from ..subjects import upstream

    version = upstream.version()
    gone = gone_tiers()  # what this version does not answer stays pinned (decision 0035)
    fixtures = fixture_texts()
    generated = Generated(version, dict(fixtures))
    for spec in oracle_cases.oracle_specs():
        data = generate_oracle(spec, fixtures, version)
        data = carry_file(data, _committed(oracle_path(root, spec.name)), gone)
        generated.files[f"{ORACLE_DIR}/{spec.name}.json"] = canonical_json(data)
    pinned = _committed(oracle_path(root, DIVERGENCES))
    if pinned is not None:
        data = carry_file(regenerate_witnesses(pinned, version), pinned, gone)
        generated.files[f"{ORACLE_DIR}/{DIVERGENCES}.json"] = canonical_json(data)
    return generated


def _committed(path: Path) -> Json | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _tokenizer_entry(spec: TokenizerSpec, fixtures: Mapping[str, str]
                     ) -> tuple[Json, Json, str]:
    """(the file's ``tokenizers`` entry, the document, the text both subjects load)."""
    entry: Json = {"comment": spec.comment} if spec.comment else {}
    if spec.built_fixture is not None:
        try:
            text = built_fixture_text(spec.built_fixture, build=True)
        except real_models.FixtureError as exc:
            raise real_models.FixtureError(
                f"tokenizer {spec.name} needs the built fixture {spec.built_fixture}, "
                f"which could not be built: {exc}") from exc
        entry.update({"built_fixture": spec.built_fixture, "sha256": sha256_text(text)})
        return entry, json.loads(text), text
    if spec.fixture is not None:
        text = fixtures[spec.fixture]
        entry.update({"fixture": spec.fixture, "sha256": sha256_text(text)})
        document = json.loads(text)
        return entry, document, document_json(document)
    assert spec.document is not None, spec.name
    entry["document"] = spec.document
    return entry, spec.document, document_json(spec.document)


def _row_input(row: RowSpec) -> Json:
    if row.kind == "encode":
        return {"text": row.text, "add_special_tokens": row.add_special_tokens,
                "pair": row.pair}
    return {"ids": list(row.ids)}


def generate_oracle(spec: OracleSpec, fixtures: Mapping[str, str], version: str) -> Json:
    from ..subjects import upstream

    tokenizers: Json = {}
    handles: dict[str, Any] = {}
    tokens_of: dict[str, dict[int, str]] = {}
    cases: list[Json] = []
    used_fixtures: dict[str, str] = {}
    built: dict[str, str] = {}
    names = [t.name for t in spec.tokenizers]
    if len(set(names)) != len(names):
        raise ValueError(f"{spec.name}: duplicate tokenizer names")
    for tok in spec.tokenizers:
        entry, document, text = _tokenizer_entry(tok, fixtures)
        tokenizers[tok.name] = entry
        if tok.fixture is not None:
            used_fixtures[tok.fixture] = entry["sha256"]
        if tok.built_fixture is not None:
            built[tok.built_fixture] = entry["sha256"]
        if spec.packed:
            tokens_of[tok.name] = token_strings(document)
        handle = upstream.load(text)
        handles[tok.name] = handle
        load = handle if isinstance(handle, Refused | Crashed) else Loaded()
        cases.append(_row(f"{tok.name}-load", "load", tok.name, tok.flags,
                          comment=tok.comment, row_input=None,
                          observed={"load": outcome_to_json(load, masks=False)}))
    for row in spec.rows:
        handle = handles[row.tokenizer]
        observed: Json = {}
        if row.kind == "encode":
            enc = handle if isinstance(handle, Refused | Crashed) else upstream.encode(
                handle, row.text, add_special_tokens=row.add_special_tokens, pair=row.pair)
            observed["encode"] = outcome_to_json(enc, masks=False)
            if spec.packed:
                observed["encode"] = pack_encoded(observed["encode"], tokens_of[row.tokenizer])
            ids: tuple[int, ...] | None = enc.ids if isinstance(enc, Encoded) else None
        else:
            ids = row.ids
        if ids is not None:
            for skip, label in SKIP_LABELS.items():
                out = handle if isinstance(handle, Refused | Crashed) else upstream.decode(
                    handle, ids, skip_special_tokens=skip)
                observed[label] = outcome_to_json(out, masks=False)
        cases.append(_row(row.id, row.kind, row.tokenizer, row.flags, comment=row.comment,
                          row_input=_row_input(row), observed=observed))
    ids_seen = [c["id"] for c in cases]
    duplicates = sorted({i for i in ids_seen if ids_seen.count(i) > 1})
    if duplicates:
        raise ValueError(f"{spec.name}: duplicate case ids {duplicates}")
    return {
        "name": spec.name,
        "title": spec.title,
        "description": spec.description,
        "header": environment(version, used_fixtures, inputs=spec.inputs,
                              built_fixtures=built),
        "flags": flag_meanings(f for c in cases for f in c["flags"]),
        "tokenizers": tokenizers,
        "cases": cases,
    }


def _row(case_id: str, kind: str, tokenizer: str, flags: Sequence[str], *, comment: str,
         row_input: Json | None, observed: Json) -> Json:
    row: Json = {"id": case_id, "kind": kind, "tokenizer": tokenizer,
                 "flags": sorted(set(flags)), "upstream": observed}
    if row_input is not None:
        row["input"] = row_input
    if comment:
        row["comment"] = comment
    return row


def write_generated(root: Path, generated: Generated) -> list[str]:
    """Write every regenerated file that differs (atomically); returns their paths."""
    committed = committed_files(root, generated.files)
    written = []
    for path, text in sorted(generated.files.items()):
        if committed[path] != text:
            write_atomic(root / path, text)
            written.append(path)
    return written
