"""Replaying an oracle file without ``tokenizers``: the reference on every row against the
pinned upstream outcome, through the divergence registry; a difference passes only when a
class the row flags explains it, and every flagged class must still show. Decision
[0013](../../docs/decisions/0013-tests-session-installs-tokenizers.md)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.case import Case
from ..core.observation import Observation, Track
from ..core.outcome import (
    Crashed,
    Encoded,
    Loaded,
    Outcome,
    Refused,
    outcome_from_json,
)
from ..fixtures import real_models
from ..judge.classify import classify
from ..judge.compare import compare
from ..judge.registry import load_registry
from ..runs.replay import CaseReplayer
from ..subjects.reference import LENIENT, STRICT, ReferenceSubject
from .layout import (
    ORACLE_DIR,
    REPO_ROOT,
    SKIP_LABELS,
    Json,
    built_fixture_text,
    document_json,
    sha256_text,
)
from .packing import is_packed, token_strings, unpack_encoded


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
