"""Oracle files (``oracles/*.json``): generation, replay, ``--check`` and drift.

An oracle file pins what ``tokenizers`` does on hand-chosen inputs
(``harness.oracles.cases``; ``oracles/mistral_v0_1.json``: the real Mistral v0.1 file over
the committed real-model corpus; ``oracles/divergences.json``: the witness of each intended
divergence class, adopted from a conformance report). Format (JSON Schema in
``oracles/schema/oracle.schema.json``)::

    {"name", "title", "description",
     "header": {"tokenizers", "python", "unicode", "generator", "inputs",
                "fixtures": {path: sha256},
                "built_fixtures": {name: sha256}},  # only when a tokenizer is built
     "flags": {flag: meaning},                  # every flag the rows use, declared once
     "tokenizers": {name: {"document": {...}} | {"fixture": path, "sha256": ...}
                          | {"built_fixture": name, "sha256": ...}},
     "cases": [row, ...]}

A ``built_fixture`` is a real-model tokenizer.json that ``harness.fixtures.real_models`` builds at
run time into the cache folder (never committed: it is megabytes); the file pins its name
and sha256. Generation builds it; the replay only reads the cached build (it has no
``tokenizers`` to build with) and reports its rows ``unavailable`` when it is not there.

Encode outcomes come in two spellings: the plain one (lists), and the *packed* one that
files with many rows use (``OracleSpec.packed``)::

    {"outcome": "encoded", "ids": "1 22557 1526", "spans": "0:0 0:5 5:11",
     "special_mask": "100", "tokens": [...]}    # tokens only when not derivable

``tokens`` is left out when upstream's tokens are the vocabulary strings of the ids (the
model vocabulary, overridden by the added tokens): checked against upstream's own tokens
at generation, derived again from the document at replay.

Rows (``cases``), each with a stable ``id`` and ``flags``:

- ``load``: ``upstream.load`` - what upstream made of the tokenizer (one per tokenizer);
- ``encode``: ``input`` {text, add_special_tokens, pair}; ``upstream.encode`` and the
  decode of upstream's ids in both skip modes (``decode_skip_special`` /
  ``decode_keep_special``);
- ``decode``: ``input`` {ids}, a raw id run (decode_runs), decoded in both skip modes;
- ``witness`` (divergences.json): ``class``, the ``case`` (harness.core.case.Case),
  the ``observation`` it diverges on and both outcomes; a ``shape`` row (id
  ``div-<class>.<shape>``, with ``why``) pins one more distinct way its class shows, from a
  case declared in ``shapes.py``.

Every output comes from running upstream (and, for witnesses, the reference); nothing is
written by hand. Generation is deterministic: the same inputs and library versions give
byte-identical files (canonical JSON, written atomically).

Replay (``replay_file``) needs no ``tokenizers``: it runs the reference on every row and
compares with the pinned upstream outcome through the divergence registry; a difference
passes only when a class named in the row's ``flags`` explains it, and every class flag
must still be observed. This module imports the upstream subject lazily, only to generate.
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.canonical import canonical_json, canonical_yaml, write_atomic
from ..core.case import Case
from ..core.observation import Observation, Track
from ..core.outcome import (
    Crashed,
    Encoded,
    Loaded,
    Outcome,
    Refused,
    outcome_from_json,
    outcome_to_json,
)
from ..core.pins import upstream_version
from ..core.resources import checkout_root
from ..fixtures import real_models
from ..judge.classify import classify
from ..judge.compare import compare
from ..judge.registry import load_registry
from ..report.files import ReportError, read_report
from ..runs.replay import CaseReplayer
from ..subjects.reference import LENIENT, STRICT, ReferenceSubject
from . import cases as oracle_cases
from .cases import OracleSpec, RowSpec, TokenizerSpec
from .shapes import SHAPES, Shape

#: The repository the oracle files are read from and written to, by default: the checkout
#: this harness runs from, else the working directory.
REPO_ROOT = checkout_root() or Path(".")
ORACLE_DIR = "oracles"
DIVERGENCES = "divergences"
SCHEMA = "oracles/schema/oracle.schema.json"
#: The tokenizers version the committed oracles are generated with (pyproject's pin).
PINNED_VERSION = upstream_version()

SKIP_LABELS = {True: "decode_skip_special", False: "decode_keep_special"}
Json = dict[str, Any]


def oracle_path(root: Path, name: str) -> Path:
    return root / ORACLE_DIR / f"{name}.json"


def generator_command(version: str) -> str:
    return f"nox -s oracles -- --reference {version} --accept"


def environment(version: str, fixtures: Mapping[str, str], *,
                inputs: str = "harness/oracles/cases.py",
                built_fixtures: Mapping[str, str] | None = None) -> Json:
    header: Json = {
        "tokenizers": version,
        "python": platform.python_version(),
        "unicode": unicodedata.unidata_version,
        "generator": generator_command(version),
        "inputs": inputs,
        "fixtures": dict(sorted(fixtures.items())),
    }
    if built_fixtures:
        header["built_fixtures"] = dict(sorted(built_fixtures.items()))
    return header


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def built_fixture_text(name: str, *, build: bool = False) -> str:
    """The text of built fixture ``name`` (``harness.fixtures.real_models``). ``build``: build it
    when it is not cached (needs network for pip and ``tokenizers``); otherwise only the
    cached, sha256-verified build is read. Raises ``real_models.FixtureError``."""
    if build:
        path = real_models.build_fixture(name)
    else:
        spec = real_models.SPECS.get(name)
        if spec is None:
            raise real_models.FixtureError(f"unknown built fixture {name!r}; known: "
                                           f"{', '.join(real_models.FIXTURES)}")
        path = real_models._output_path(real_models.fixtures_dir(), spec)
        if not path.is_file():
            raise real_models.FixtureError(
                f"built fixture {name} is not in {real_models.fixtures_dir()} "
                f"(python -m harness.fixtures.real_models {name} builds it)")
        real_models.verify_sha256(path, spec.output_sha256, what=f"built fixture {name}")
    return path.read_text(encoding="utf-8")


def build_fixtures(names: Iterable[str]) -> str | None:
    """Build (or find in the cache) every named built fixture: None when all are there,
    else why one cannot be built here (tests skip with it)."""
    for name in sorted(set(names)):
        try:
            real_models.build_fixture(name)
        except real_models.FixtureError as exc:
            return f"built fixture {name} cannot be built here: {exc}"
    return None


def built_fixtures_of(data: Mapping[str, Any]) -> list[str]:
    """The built fixtures an oracle file's tokenizers name."""
    return sorted({str(entry["built_fixture"])
                   for entry in (data.get("tokenizers") or {}).values()
                   if "built_fixture" in entry})


# ---------------------------------------------------------------------------
# Packed encode outcomes
# ---------------------------------------------------------------------------

_PACKED_IDS = re.compile(r"(?:0|[1-9][0-9]*)(?: (?:0|[1-9][0-9]*))*")
_PACKED_SPANS = re.compile(r"-?[0-9]+:-?[0-9]+(?: -?[0-9]+:-?[0-9]+)*")
_PACKED_MASK = re.compile(r"[01]*")


def token_strings(document: Mapping[str, Any]) -> dict[int, str]:
    """id -> token string: the model vocabulary, overridden by the added tokens (how
    upstream names the token of an id)."""
    model = document.get("model") or {}
    vocab = model.get("vocab") if isinstance(model, dict) else None
    out: dict[int, str] = {}
    if isinstance(vocab, dict):
        out.update({int(i): str(token) for token, i in vocab.items()})
    for added in document.get("added_tokens") or []:
        out[int(added["id"])] = str(added["content"])
    return out


def is_packed(outcome: Any) -> bool:
    return (isinstance(outcome, dict) and outcome.get("outcome") == "encoded"
            and isinstance(outcome.get("ids"), str))


def pack_encoded(outcome: Json, tokens_of: Mapping[int, str]) -> Json:
    """The packed spelling of an ``encoded`` outcome (others are returned as they are)."""
    if outcome.get("outcome") != "encoded":
        return outcome
    ids = [int(i) for i in outcome["ids"]]
    packed: Json = {
        "outcome": "encoded",
        "ids": " ".join(map(str, ids)),
        "spans": " ".join(f"{int(s)}:{int(e)}" for s, e in outcome["spans"]),
        "special_mask": "".join(str(int(m)) for m in outcome["special_mask"]),
    }
    if [tokens_of.get(i) for i in ids] != list(outcome["tokens"]):
        packed["tokens"] = list(outcome["tokens"])
    return packed


def unpack_encoded(outcome: Json, tokens_of: Mapping[int, str]) -> Json:
    """The plain spelling of a packed ``encoded`` outcome (others are returned as they
    are). Raises ValueError on a malformed or non-canonical packed outcome."""
    if not is_packed(outcome):
        return outcome
    extra = sorted(set(outcome) - {"outcome", "ids", "spans", "special_mask", "tokens"})
    if extra:
        raise ValueError(f"unknown keys {extra}")
    fields = {key: outcome.get(key) for key in ("ids", "spans", "special_mask")}
    for key, pattern in (("ids", _PACKED_IDS), ("spans", _PACKED_SPANS),
                         ("special_mask", _PACKED_MASK)):
        value = fields[key]
        if not isinstance(value, str) or (value and not pattern.fullmatch(value)):
            raise ValueError(f"{key} is not a packed {key} string: {str(value)[:80]!r}")
    ids = [int(i) for i in str(fields["ids"]).split()]
    spans = [[int(x) for x in pair.split(":")] for pair in str(fields["spans"]).split()]
    mask = [int(m) for m in str(fields["special_mask"])]
    if not len(ids) == len(spans) == len(mask):
        raise ValueError(f"{len(ids)} ids, {len(spans)} spans and {len(mask)} special-mask "
                         "entries")
    if "tokens" in outcome:
        tokens = outcome["tokens"]
        if not isinstance(tokens, list) or len(tokens) != len(ids):
            raise ValueError("tokens must be a list with one string per id")
    else:
        missing = [i for i in ids if i not in tokens_of]
        if missing:
            raise ValueError(f"id {missing[0]} names no token of the tokenizer")
        tokens = [tokens_of[i] for i in ids]
    plain: Json = {"outcome": "encoded", "ids": ids, "tokens": list(tokens), "spans": spans,
                   "special_mask": mask}
    if pack_encoded(plain, tokens_of) != outcome:
        raise ValueError("not in the canonical packed form (tokens are written only when "
                         "they are not the vocabulary strings of the ids)")
    return plain


def document_json(document: Json) -> str:
    """The tokenizer.json text both subjects receive for an oracle row: compact, sorted
    keys. Fixed here, not borrowed, because upstream's load errors quote a serde position
    (`` at line 1 column N``) that the pinned messages keep."""
    return json.dumps(document, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def flag_meanings(flags: Iterable[str]) -> Json:
    registry = {cls.id: cls for cls in load_registry()}
    out: Json = {}
    for flag in sorted(set(flags)):
        meaning = oracle_cases.FLAGS.get(flag)
        if meaning is None and flag in registry:
            meaning = f"Intended divergence class: {registry[flag].title}."
        if meaning is None:
            raise ValueError(f"flag {flag!r} has no declared meaning (harness/oracles/cases.py)")
        out[flag] = meaning
    return out


# ---------------------------------------------------------------------------
# Generation (needs tokenizers, through the upstream subject only)
# ---------------------------------------------------------------------------


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
    fixtures = fixture_texts()
    generated = Generated(version, dict(fixtures))
    for spec in oracle_cases.oracle_specs():
        data = generate_oracle(spec, fixtures, version)
        generated.files[f"{ORACLE_DIR}/{spec.name}.json"] = canonical_json(data)
    divergences = oracle_path(root, DIVERGENCES)
    if divergences.is_file():
        pinned = json.loads(divergences.read_text(encoding="utf-8"))
        data = regenerate_witnesses(pinned, version)
        generated.files[f"{ORACLE_DIR}/{DIVERGENCES}.json"] = canonical_json(data)
    return generated


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


# ---------------------------------------------------------------------------
# Witnesses (oracles/divergences.json)
# ---------------------------------------------------------------------------

DIVERGENCES_TITLE = "Intended divergences: pinned witnesses of each class"
DIVERGENCES_DESCRIPTION = (
    "For each intended divergence class of the registry (harness/judge/divergences.yaml),"
    " the shrunk witness adopted from a conformance report (python -m harness oracles "
    "--adopt-witnesses REPORT), re-run deterministically on every regeneration (the "
    "fuzzer is not). Each row holds the case, the observation it diverges on and both "
    "outcomes; every conformance run re-checks them, and a witness that stops diverging "
    "fails it. Rows with a shape pin one more distinct way their class shows, from a "
    "hand-built case declared in harness/oracles/shapes.py (outcomes produced by "
    "running it).")


def _selector(observation: Observation) -> Json:
    return {
        "track": observation.track,
        "operation": observation.operation,
        "input": list(observation.input) if isinstance(observation.input, tuple)
        else observation.input,
        "options": dict(observation.options),
    }


def _matches(observation: Observation, selector: Mapping[str, Any]) -> bool:
    return _selector(observation) == dict(selector)


def witness_row(class_id: str, case: Case, selector: Mapping[str, Any],
                source: Json, shape: Shape | None = None) -> Json:
    """Re-run ``case`` on both subjects and pin the observation showing ``class_id``:
    the one at ``selector`` when it still shows the class, else the first that does.
    When none does, the row keeps ``selector`` with the outcomes seen now and no class
    (a stale witness: the drift report and every conformance run name it). A ``shape``
    row is named after its shape and says what it pins."""
    from ..runs.generated import evaluate  # runs upstream: never imported by the replay

    observations, judgement = evaluate(case)
    verdicts = judgement.verdicts
    showing = [v for v in verdicts if class_id in v.classes]
    chosen = next((v for v in showing if _matches(v.divergence.observation, selector)),
                  showing[0] if showing else None)
    row: Json = {"id": f"div-{class_id}", "kind": "witness", "class": class_id,
                 "flags": [class_id], "case": case.to_json(), "source": source}
    if shape is not None:
        row.update({"id": shape.row_id, "shape": shape.name, "why": shape.why})
    if chosen is not None:
        obs = chosen.divergence.observation
        row.update({"observation": _selector(obs), "tier": chosen.divergence.tier,
                    "classes": sorted(chosen.classes),
                    # Every class explaining it: the replay accepts a difference only when
                    # a flagged class explains it (two classes may meet on one witness).
                    "flags": sorted({class_id, *chosen.classes}),
                    "reference": outcome_to_json(obs.subject, masks=False),
                    "upstream": outcome_to_json(obs.upstream, masks=False)})
        return row
    same = next((o for o in observations if _matches(o, selector)), None)
    diverging = {id(v.divergence.observation): v for v in verdicts}
    now = diverging.get(id(same)) if same is not None else None
    row.update({"observation": dict(selector), "tier": now.divergence.tier if now else None,
                "classes": sorted(now.classes) if now else [],
                "reference": outcome_to_json(same.subject, masks=False) if same else None,
                "upstream": outcome_to_json(same.upstream, masks=False) if same else None})
    return row


def regenerate_witnesses(pinned: Json, version: str) -> Json:
    """Re-run every adopted witness, and build one row for each declared shape (a shape
    row whose declaration is gone is dropped)."""
    rows = [witness_row(row["class"], Case.from_json(row["case"]), row["observation"],
                        row.get("source", {}))
            for row in pinned.get("cases", []) if "shape" not in row]
    return witnesses_file(rows + shape_rows(), version)


#: Where a shape row comes from (in place of the report an adopted row names).
SHAPE_SOURCE: Json = {"declared": "harness/oracles/shapes.py"}


def shape_rows() -> list[Json]:
    """The row of each shape of ``harness/oracles/shapes.py``."""
    return [witness_row(shape.class_id, shape.case, {}, SHAPE_SOURCE, shape)
            for shape in SHAPES]


def witnesses_file(rows: list[Json], version: str) -> Json:
    rows = sorted(rows, key=lambda r: str(r["id"]))
    return {
        "name": DIVERGENCES,
        "title": DIVERGENCES_TITLE,
        "description": DIVERGENCES_DESCRIPTION,
        "header": environment(version, {}),
        "flags": flag_meanings(f for r in rows for f in r["flags"]),
        "tokenizers": {},
        "cases": rows,
    }


def _minimal_case(case: Case, selector: Mapping[str, Any]) -> Case:
    """The witness case cut down to the one input its observation needs."""
    operation, value = selector["operation"], selector["input"]
    options = dict(selector.get("options") or {})
    if operation == "load":
        return Case(case.document)
    if operation == "decode" and isinstance(value, list):
        return Case(case.document, id_runs=(tuple(int(i) for i in value),))
    if operation == "encode" and isinstance(value, str):
        pair = options.get("pair")
        if isinstance(pair, str):
            return Case(case.document, pairs=((value, pair),))
        return Case(case.document, texts=(value,))
    return case


def adopt_witnesses(report_path: Path, root: Path, display_path: str | None = None
                    ) -> tuple[Json, list[str]]:
    """Pin each class witness of a conformance report (replacing that class's pinned
    row; classes the report has no witness for keep theirs). Returns the new
    divergences.json data and one line per class adopted or skipped."""
    from ..runs.generated import evaluate  # runs upstream: never imported by the replay
    from ..subjects import upstream

    try:
        report = read_report(report_path)
    except ReportError as exc:
        raise ValueError(str(exc)) from None
    target = oracle_path(root, DIVERGENCES)
    current = json.loads(target.read_text(encoding="utf-8")) if target.is_file() else {}
    rows = {row["id"]: row for row in current.get("cases", []) if "shape" not in row}
    known = {cls.id for cls in load_registry()}
    notes: list[str] = []
    for entry in report.classes:
        class_id, witness = entry.id, entry.witness
        if witness is None or witness.case is None:
            continue
        if class_id not in known:
            notes.append(f"skipped {class_id}: not a class of the registry")
            continue
        case = Case.from_json(witness.case)
        selector = {"track": witness.track, "operation": witness.operation,
                    "input": witness.input, "options": witness.options}
        minimal = _minimal_case(case, selector)
        if minimal != case:
            _, judgement = evaluate(minimal)
            if not any(class_id in v.classes for v in judgement.verdicts):
                minimal = case
        source = {"report": display_path or str(report_path),
                  "command": report.header.command,
                  "shrunk": witness.shrunk}
        row = witness_row(class_id, minimal, selector, source)
        if class_id not in row["classes"]:
            notes.append(f"skipped {class_id}: its witness no longer shows the class")
            continue
        rows[row["id"]] = row
        notes.append(f"adopted {class_id} ({row['observation']['operation']}, "
                     f"tier {row['tier']})")
    return witnesses_file(list(rows.values()) + shape_rows(), upstream.version()), notes


# ---------------------------------------------------------------------------
# Replay (no tokenizers: the reference against pinned upstream outcomes)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One replay finding on one row. ``kind``: ``unexplained`` (no class explains the
    difference), ``unflagged`` (a class explains it but the row does not name it),
    ``not-observed`` (a class the row names no longer shows), ``input`` (the row's
    inputs are inconsistent, e.g. a fixture changed since generation, or a malformed
    packed outcome), ``unavailable`` (the built fixture its tokenizer names is not built
    here: the row was not replayed)."""

    file: str
    case_id: str
    kind: str
    message: str
    class_id: str = ""

    def __str__(self) -> str:
        return f"{self.file}: case {self.case_id}: {self.message}"


def _as_load(handle: object) -> Outcome:
    return handle if isinstance(handle, Refused | Crashed) else Loaded()


def _failed(handle: object) -> bool:
    return isinstance(handle, Refused | Crashed)


def _subject(strict: bool) -> ReferenceSubject:
    return STRICT if strict else LENIENT


@dataclass(frozen=True)
class TokenizerFile:
    """A tokenizer of an oracle file: its document and the text both subjects load (the
    built fixture's own text; otherwise ``document_json`` of the document)."""

    document: Json
    text: str


def resolve_documents(data: Json, root: Path, fixtures: Mapping[str, str] | None = None
                      ) -> tuple[dict[str, TokenizerFile], list[tuple[str, str, str]]]:
    """The tokenizers of a file, and (tokenizer, problem kind, message) for each fixture
    whose content no longer matches the sha256 pinned with it (``input``) or that is
    not built here (``unavailable``). ``fixtures`` (path -> text) stands in for the
    files under ``root`` (a regeneration not yet written). Built fixtures are read from
    the build cache, never built."""
    documents: dict[str, TokenizerFile] = {}
    problems: list[tuple[str, str, str]] = []
    for name, entry in (data.get("tokenizers") or {}).items():
        if "document" in entry:
            documents[name] = TokenizerFile(entry["document"],
                                            document_json(entry["document"]))
            continue
        if "built_fixture" in entry:
            built = str(entry["built_fixture"])
            try:
                text = built_fixture_text(built)
            except real_models.FixtureError as exc:
                problems.append((name, "unavailable", f"not replayed: {exc}"))
                continue
            if sha256_text(text) != entry["sha256"]:
                problems.append((name, "input", f"built fixture {built} is not the one the "
                                                "oracle was generated with (sha256 "
                                                "differs): regenerate"))
            documents[name] = TokenizerFile(json.loads(text), text)
            continue
        path = root / entry["fixture"]
        if fixtures is not None and entry["fixture"] in fixtures:
            text = fixtures[entry["fixture"]]
        elif path.is_file():
            text = path.read_text(encoding="utf-8")
        else:
            problems.append((name, "input", f"fixture {entry['fixture']} is missing"))
            continue
        if sha256_text(text) != entry["sha256"]:
            problems.append((name, "input", f"fixture {entry['fixture']} changed since the "
                                            "oracle was generated (sha256 differs): "
                                            "regenerate"))
        document = json.loads(text)
        documents[name] = TokenizerFile(document, document_json(document))
    return documents, problems


class _Judge:
    def __init__(self, file: str) -> None:
        self.file = file
        self.classes = {cls.id for cls in load_registry()}
        self.problems: list[Problem] = []

    def row(self, row: Json, case: Case, observations: Sequence[tuple[str, Observation]],
            flags: Iterable[str]) -> None:
        case_id = str(row["id"])
        flagged = set(flags)
        seen: set[str] = set()
        for label, obs in observations:
            divergence = compare(obs)
            if divergence is None:
                continue
            verdict = classify(case, [divergence], replay=CaseReplayer())[0]
            where = f"{label} ({obs.track} track)"
            if verdict.is_failure:
                self.problems.append(Problem(
                    self.file, case_id, "unexplained",
                    f"{where}: the reference differs from the pinned upstream outcome at "
                    f"tier {divergence.tier} and no intended class explains it: "
                    f"{divergence.detail}"))
                continue
            seen.update(verdict.classes)
            for class_id in sorted(set(verdict.classes) - flagged):
                self.problems.append(Problem(
                    self.file, case_id, "unflagged",
                    f"{where}: the difference at tier {divergence.tier} is explained by "
                    f"class {class_id}, which the row's flags do not name", class_id))
        for class_id in sorted((flagged & self.classes) - seen):
            self.problems.append(Problem(
                self.file, case_id, "not-observed",
                f"the row names intended class {class_id} but no longer shows it "
                "(the reference and the pinned upstream outcome agree there)", class_id))


def replay_file(data: Json, root: Path = REPO_ROOT, file: str = "",
                fixtures: Mapping[str, str] | None = None) -> list[Problem]:
    """Every problem of one oracle file (any kind of rows), without tokenizers.
    ``fixtures`` (path -> text) overrides fixture files under ``root``."""
    file = file or f"{ORACLE_DIR}/{data.get('name', '?')}.json"
    judge = _Judge(file)
    witnesses = [row for row in data.get("cases", []) if row.get("kind") == "witness"]
    for row in witnesses:
        _replay_witness(judge, row)
    rows = [row for row in data.get("cases", []) if row.get("kind") != "witness"]
    if not rows:
        return judge.problems
    documents, fixture_problems = resolve_documents(data, root, fixtures)
    broken = {name: (kind, message) for name, kind, message in fixture_problems}
    by_tokenizer: dict[str, list[Json]] = {}
    for row in rows:
        by_tokenizer.setdefault(str(row["tokenizer"]), []).append(row)
    for name, tok_rows in by_tokenizer.items():
        if name in broken or name not in documents:
            kind, message = broken.get(name, ("input", f"tokenizer {name!r} is not declared"))
            judge.problems.extend(Problem(file, str(r["id"]), kind, message)
                                  for r in tok_rows)
            continue
        _replay_tokenizer(judge, documents[name], tok_rows)
    return judge.problems


def _replay_tokenizer(judge: _Judge, tokenizer: TokenizerFile, rows: list[Json]) -> None:
    document, text = tokenizer.document, tokenizer.text
    tokens_of = (token_strings(document)
                 if any(is_packed(r["upstream"].get("encode")) for r in rows) else {})
    load_rows = [r for r in rows if r["kind"] == "load"]
    if len(load_rows) != 1:
        for r in rows:
            judge.problems.append(Problem(judge.file, str(r["id"]), "input",
                                          "its tokenizer needs exactly one load row"))
        return
    up_load = outcome_from_json(load_rows[0]["upstream"]["load"])
    strict = STRICT.load(text)
    track: Track = "strict"
    handle: Any = strict
    if _failed(strict) and isinstance(up_load, Loaded):
        track, handle = "lenient", LENIENT.load(text)
    ours = _subject(track == "strict")
    load_obs = Observation("strict", "load", None, (), _as_load(strict), up_load)
    judge.row(load_rows[0], Case(document, text=text), [("load", load_obs)],
              load_rows[0]["flags"])
    for row in rows:
        if row["kind"] == "load":
            continue
        observations: list[tuple[str, Observation]] = []
        observed = row["upstream"]
        inp = row["input"]
        if row["kind"] == "encode":
            text_in, add, pair = inp["text"], bool(inp["add_special_tokens"]), inp["pair"]
            case = Case(document, texts=(text_in,) if pair is None else (),
                        pairs=((text_in, pair),) if pair is not None else (), text=text)
            try:
                up_enc = outcome_from_json(unpack_encoded(observed["encode"], tokens_of))
            except (ValueError, KeyError, TypeError) as exc:
                judge.problems.append(Problem(judge.file, str(row["id"]), "input",
                                              f"encode: malformed packed outcome: {exc}"))
                continue
            ref_enc = handle if _failed(handle) else ours.encode(
                handle, text_in, pair, add_special_tokens=add)
            options: tuple[tuple[str, Any], ...] = (("add_special_tokens", add),)
            if pair is not None:
                options += (("pair", pair),)
            observations.append(("encode", Observation(track, "encode", text_in, options,
                                                       ref_enc, up_enc)))
            ids: tuple[int, ...] | None = up_enc.ids if isinstance(up_enc, Encoded) else None
        else:
            ids = tuple(int(i) for i in inp["ids"])
            case = Case(document, id_runs=(ids,), text=text)
        if ids is not None:
            for skip, label in SKIP_LABELS.items():
                if label not in observed:
                    judge.problems.append(Problem(judge.file, str(row["id"]), "input",
                                                  f"{label} is missing"))
                    continue
                ref_dec = handle if _failed(handle) else ours.decode(
                    handle, ids, skip_special_tokens=skip)
                observations.append((label, Observation(
                    track, "decode", ids, (("skip_special_tokens", skip),), ref_dec,
                    outcome_from_json(observed[label]))))
        judge.row(row, case, observations, row["flags"])


def _reference_outcome(case: Case, selector: Mapping[str, Any]) -> Outcome:
    ours = _subject(selector["track"] == "strict")
    handle = ours.load(case.document_json())
    operation, value = selector["operation"], selector["input"]
    options = dict(selector.get("options") or {})
    if isinstance(handle, Refused | Crashed) or operation == "load":
        return _as_load(handle)
    outcome: Outcome
    if operation == "encode":
        outcome = ours.encode(handle, str(value), options.get("pair"),
                           add_special_tokens=bool(options.get("add_special_tokens", True)))
    else:
        outcome = ours.decode(handle, [int(i) for i in value],
                              skip_special_tokens=bool(options.get("skip_special_tokens", True)))
    return outcome


def _replay_witness(judge: _Judge, row: Json) -> None:
    case_id, class_id = str(row["id"]), str(row["class"])
    selector = row["observation"]
    if row.get("upstream") is None:
        judge.problems.append(Problem(judge.file, case_id, "not-observed",
                                      f"the witness of {class_id} no longer has the "
                                      "observation it pinned", class_id))
        return
    case = Case.from_json(row["case"])
    value = selector["input"]
    obs = Observation(selector["track"], selector["operation"],
                      tuple(value) if isinstance(value, list) else value,
                      tuple(sorted(dict(selector.get("options") or {}).items())),
                      _reference_outcome(case, selector), outcome_from_json(row["upstream"]))
    judge.row(row, case, [(str(selector["operation"]), obs)], row.get("flags", [class_id]))


# ---------------------------------------------------------------------------
# Reading the committed files; --check; drift
# ---------------------------------------------------------------------------


def committed_files(root: Path, paths: Iterable[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for rel in paths:
        path = root / rel
        out[rel] = path.read_text(encoding="utf-8") if path.is_file() else None
    return out


def committed_version(root: Path) -> str | None:
    versions = set()
    for path in sorted((root / ORACLE_DIR).glob("*.json")):
        header = json.loads(path.read_text(encoding="utf-8")).get("header") or {}
        if header.get("tokenizers"):
            versions.add(str(header["tokenizers"]))
    if len(versions) > 1:
        raise ValueError(f"committed oracles disagree on the tokenizers version: "
                         f"{sorted(versions)}")
    return versions.pop() if versions else None


def _rows_by_id(text: str | None) -> dict[str, Json]:
    if text is None:
        return {}
    return {str(row["id"]): row for row in json.loads(text).get("cases", [])}


def describe_difference(path: str, old: str | None, new: str) -> list[str]:
    """Why a committed file is not byte-identical to its regeneration, naming case ids."""
    if old is None:
        return [f"{path}: missing (a regeneration writes it)"]
    if not path.startswith(f"{ORACLE_DIR}/"):
        return [f"{path}: differs from its builder in harness/oracles/cases.py"]
    lines: list[str] = []
    try:
        old_data = json.loads(old)
    except json.JSONDecodeError as exc:
        return [f"{path}: not valid JSON ({exc})"]
    new_data = json.loads(new)
    old_rows, new_rows = _rows_by_id(old), _rows_by_id(new)
    for case_id in sorted(old_rows.keys() | new_rows.keys()):
        if case_id not in new_rows:
            lines.append(f"{path}: case {case_id}: not generated any more")
        elif case_id not in old_rows:
            lines.append(f"{path}: case {case_id}: missing from the committed file")
        elif old_rows[case_id] != new_rows[case_id]:
            keys = sorted(k for k in old_rows[case_id].keys() | new_rows[case_id].keys()
                          if old_rows[case_id].get(k) != new_rows[case_id].get(k))
            lines.append(f"{path}: case {case_id}: differs in {', '.join(keys)}")
    for key in sorted(old_data.keys() | new_data.keys()):
        if key != "cases" and old_data.get(key) != new_data.get(key):
            lines.append(f"{path}: {key} differs")
    if not lines:
        lines.append(f"{path}: same content, not in canonical form (sorted keys, 2-space "
                     "indent, LF, trailing newline)")
    return lines


def check(root: Path, generated: Generated) -> list[str]:
    """Differences between the committed files and a regeneration (empty: up to date)."""
    committed = committed_files(root, generated.files)
    problems: list[str] = []
    for path, text in sorted(generated.files.items()):
        if committed[path] != text:
            problems.extend(describe_difference(path, committed[path], text))
    return problems


def _upstream_of(row: Json) -> Any:
    if row.get("kind") == "witness":  # upstream's side of the witness (and what it shows)
        return {"classes": row.get("classes"), "upstream": row.get("upstream"),
                "observation": row.get("observation"), "tier": row.get("tier")}
    return row.get("upstream")


def _same_input(old: Json, new: Json, old_data: Json, new_data: Json) -> bool:
    if old.get("kind") == "witness":
        return bool(old.get("case") == new.get("case"))
    if old.get("input") != new.get("input") or old.get("tokenizer") != new.get("tokenizer"):
        return False
    name = str(old.get("tokenizer"))
    return bool((old_data.get("tokenizers") or {}).get(name)
                == (new_data.get("tokenizers") or {}).get(name))


def drift(root: Path, generated: Generated) -> Json:
    """What changed between the committed oracles and a regeneration (drift report)."""
    old_version = committed_version(root) or "none"
    committed = committed_files(root, generated.files)
    changed: list[Json] = []
    acceptance: list[Json] = []
    added: list[str] = []
    removed: list[str] = []
    edited: list[str] = []
    stale: list[Json] = []
    new_divergences: list[Json] = []
    for path, text in sorted(generated.files.items()):
        if not path.startswith(f"{ORACLE_DIR}/"):
            continue
        new_data = json.loads(text)
        old_text = committed[path]
        old_data = json.loads(old_text) if old_text is not None else {}
        old_rows, new_rows = _rows_by_id(old_text), _rows_by_id(text)
        added += [f"{path}: {i}" for i in sorted(new_rows.keys() - old_rows.keys())]
        removed += [f"{path}: {i}" for i in sorted(old_rows.keys() - new_rows.keys())]
        for case_id in sorted(old_rows.keys() & new_rows.keys()):
            old, new = old_rows[case_id], new_rows[case_id]
            if not _same_input(old, new, old_data, new_data):
                edited.append(f"{path}: {case_id}")
                continue
            before, after = _upstream_of(old), _upstream_of(new)
            if before == after:
                continue
            if old.get("kind") == "load":
                acceptance.append({
                    "file": path, "id": case_id, "tokenizer": old.get("tokenizer"),
                    "before": before["load"], "after": after["load"],
                    "change": f"{before['load']['outcome']} -> {after['load']['outcome']}"})
                continue
            entry: Json = {"file": path, "id": case_id, "flags": new.get("flags", [])}
            if old.get("kind") == "witness":
                entry.update({"class": new.get("class"), "before": before, "after": after})
            else:
                entry["input"] = new.get("input")
                entry["changes"] = {label: {"before": before.get(label),
                                            "after": after.get(label)}
                                    for label in sorted(before.keys() | after.keys())
                                    if before.get(label) != after.get(label)}
            changed.append(entry)
        old_problems = ({(p.case_id, p.kind, p.class_id, p.message)
                         for p in replay_file(old_data, root, path)} if old_data else set())
        for problem in replay_file(new_data, root, path, fixtures=generated.files):
            key = (problem.case_id, problem.kind, problem.class_id, problem.message)
            if key in old_problems:
                continue
            if problem.kind == "not-observed":
                stale.append({"file": path, "id": problem.case_id, "class": problem.class_id,
                              "detail": problem.message})
            else:
                new_divergences.append({"file": path, "id": problem.case_id,
                                        "kind": problem.kind, "detail": problem.message})
    drifted = bool(changed or acceptance or stale or new_divergences)
    return {
        "verdict": "drift" if drifted else "no drift",
        "header": {
            "from": old_version,
            "to": generated.version,
            "command": f"nox -s oracles -- --reference {generated.version}",
            "python": platform.python_version(),
            "unicode": unicodedata.unidata_version,
        },
        "summary": {
            "rows_changed": len(changed),
            "acceptance_changed": len(acceptance),
            "stale_intended_classes": len(stale),
            "new_divergences": len(new_divergences),
            "cases_added": len(added),
            "cases_removed": len(removed),
            "cases_edited": len(edited),
        },
        "rows_changed": changed,
        "acceptance_changed": acceptance,
        "stale_intended_classes": stale,
        "new_divergences": new_divergences,
        "cases_added": added,
        "cases_removed": removed,
        "cases_edited": edited,
    }


DRIFT_PREAMBLE = """\
Oracle drift report: what changes in the pinned oracles (oracles/*.json) when they are
regenerated against another tokenizers version. Review it before accepting an upgrade
(nox -s oracles -- --reference VERSION --accept).
  verdict                 drift when any of the four sections below is non-empty
  rows_changed            rows whose upstream result changed: before and after, per column
  acceptance_changed      tokenizer files upstream now loads, refuses or panics on differently
  stale_intended_classes  rows and witnesses whose intended divergence class no longer shows
                          (upstream fixed it, or changed around it)
  new_divergences         rows where the reference now differs from upstream and no class
                          named by the row explains it
  cases_added/removed/edited  inputs that changed (not drift: a change of the cases)
To upgrade: --accept writes the regenerated oracles; then move the pin (pyproject.toml's
harness extra: noxfile.py and the harness read it from there) so that
`nox -s oracles -- --check` regenerates with the new version.
"""


def drift_report_path(root: Path, report: Json) -> Path:
    header = report["header"]
    return root / "reports" / f"oracle-drift-{header['from']}-to-{header['to']}.yaml"


def write_drift_report(root: Path, report: Json) -> Path:
    path = drift_report_path(root, report)
    write_atomic(path, canonical_yaml(report, preamble=DRIFT_PREAMBLE))
    return path


def write_generated(root: Path, generated: Generated) -> list[str]:
    """Write every regenerated file that differs (atomically); returns their paths."""
    committed = committed_files(root, generated.files)
    written = []
    for path, text in sorted(generated.files.items()):
        if committed[path] != text:
            write_atomic(root / path, text)
            written.append(path)
    return written


def oracle_files(root: Path) -> list[Path]:
    return sorted((root / ORACLE_DIR).glob("*.json"))
