"""Builders of the site's view-model (``harness.site.model.Site``).

``from_conformance``: N conformance reports, one per subject (our reference's and each
third-party subject's). A finding is measured only on the subject whose report holds it;
the other cells say "not measured" until a matrix report (transplant table) fills them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..report.model import ClassEntry, Failure, Report, WitnessRecord
from . import severity
from .model import Cell, FindingView, Lineage, Output, RealFileView, Site, SubjectView, WitnessView
from .records import record_of

#: Real files by name prefix → lineage (the fixtures of harness/fixture_builders/real_models.py).
FIXTURE_LINEAGE: dict[str, Lineage] = {"mistral": "sentencepiece", "gemma": "sentencepiece",
                                       "llama-2": "sentencepiece", "llama-3": "byte-level",
                                       "gpt": "byte-level", "qwen": "byte-level"}


def from_conformance(reports: list[tuple[str, Report]], root: Path) -> Site:
    """``reports``: (the path to show, the report) per subject, in the order given."""
    subjects = [_subject(path, report) for path, report in reports]
    keys = [s.key for s in subjects]
    if len(set(keys)) != len(keys):
        duplicate = next(k for k in keys if keys.count(k) > 1)
        raise ValueError(f"two reports judge the same subject ({duplicate})")
    findings: list[FindingView] = []
    cells: dict[tuple[str, str], Cell] = {}
    by_class: dict[tuple[str, str], str] = {}
    upstream = {s.key: s.upstream_version for s in subjects}
    for (_path, report), subject in zip(reports, subjects, strict=True):
        taken = {f.key for f in findings}
        for cls in report.classes:
            key = cls.id if cls.id not in taken else f"{subject.key}--{cls.id}"
            by_class[(subject.key, cls.id)] = key
            findings.append(_class_finding(key, cls, report, subject, root))
            cells[(key, subject.key)] = Cell("observed" if cls.observed else "absent",
                                             cls.observed)
        for where, entry in _failures(report):
            key = f"{subject.key}--{_slug(where + entry.id)}"
            findings.append(_failure_finding(key, entry, subject, upstream[subject.key]))
            cells[(key, subject.key)] = Cell("failure", entry.count)
    for finding in findings:
        for subject in subjects:
            cells.setdefault((finding.key, subject.key), Cell("unmeasured"))
    return Site(subjects=subjects, findings=sorted(findings, key=lambda f: f.key),
                cells=cells, real_files=_real_files(reports, subjects, by_class),
                sources=[path for path, _ in reports])


def _subject(path: str, report: Report) -> SubjectView:
    header, subject = report.header, report.subject
    upstream = f"tokenizers {header.environment.get('tokenizers', '?')}"
    common: dict[str, Any] = dict(
        report=path, verdict=report.verdict, failing_parts=tuple(report.failing_parts()),
        command=header.command, upstream_version=upstream,
        examples=report.summary.examples, comparisons=report.summary.comparisons)
    if subject is None:
        return SubjectView(key="reference", name="reference", version="implementation/",
                           install="this repository's pure-Python reference (implementation/,"
                           " its one dependency regex); strict, with a lenient track where "
                           "strict refuses", capabilities=(), restarts=0, **common)
    return SubjectView(key=_slug(subject.name), name=subject.name, version=subject.version,
                       install=f"installed by the harness (python -m harness conformance "
                       f"--subject {subject.spec}), pinned at {subject.version}; judged "
                       f"against {subject.expectations}",
                       capabilities=tuple(subject.capabilities), restarts=subject.restarts,
                       **common)


def _class_finding(key: str, cls: ClassEntry, report: Report, subject: SubjectView,
                   root: Path) -> FindingView:
    record, record_title = record_of(cls.decision, root)
    witness = cls.witness
    if witness is not None:
        grade, reason = severity.derive(witness.operation, witness.tier, witness.outcome,
                                        witness.upstream)
    else:
        grade = severity.DECLARED.get(cls.id, "text")
        reason = ("declared for this entry (no witness in the report)"
                  if cls.id in severity.DECLARED else "no witness in the report; assumed")
    return FindingView(
        key=key, id=cls.id, role="intended" if report.subject is None else "expectation",
        kind=cls.kind, title=cls.title, sentence=_sentence(cls.why), why=cls.why,
        record=record, record_title=record_title, upstream_links=tuple(cls.upstream),
        severity=grade, severity_reason=reason, lineage=_lineage(witness),
        origin=subject.key, reproduce=cls.reproduce,
        witness=_witness(witness, subject, subject.upstream_version))


def _failure_finding(key: str, entry: Failure, subject: SubjectView, upstream: str
                     ) -> FindingView:
    witness = entry.witness
    grade, reason = severity.derive(witness.operation, witness.tier, witness.outcome,
                                    witness.upstream)
    where = f" on {witness.fixture}" if witness.fixture else ""
    return FindingView(
        key=key, id=entry.id, role="failure", kind="failure", title=entry.signature,
        sentence=f"An unexplained divergence{where}: {witness.detail}", why="",
        record="", record_title="", upstream_links=(), severity=grade,
        severity_reason=reason, lineage=_lineage(witness), origin=subject.key,
        reproduce=entry.reproduce or "", witness=_witness(witness, subject, upstream))


def _failures(report: Report) -> list[tuple[str, Failure]]:
    found = [("", f) for f in report.failures]
    for fixture in report.real_models.fixtures:
        found += [("" if f.id.startswith(fixture.fixture) else f"{fixture.fixture}-", f)
                  for f in fixture.tally.failures]
    if report.unified_morph_track is not None:
        found += [("morph-", f) for f in report.unified_morph_track.tally.failures]
    return found


def _witness(witness: WitnessRecord | None, subject: SubjectView, upstream: str
             ) -> WitnessView | None:
    if witness is None:
        return None
    document = None
    if witness.case is not None and witness.case.get("document") is not None:
        document = json.dumps(witness.case["document"], ensure_ascii=False, sort_keys=True,
                              indent=2)
    outputs = [Output(upstream, witness.upstream or {})]
    outputs.append(Output(f"{subject.name} {subject.version}", witness.outcome or {}))
    return WitnessView(detail=witness.detail, operation=witness.operation or "?",
                       tier=witness.tier or "?", track=witness.track or "?",
                       input=witness.input, options=dict(witness.options),
                       document=document, fixture=witness.fixture, shrunk=witness.shrunk,
                       outputs=tuple(outputs))


def _real_files(reports: list[tuple[str, Report]], subjects: list[SubjectView],
                by_class: dict[tuple[str, str], str]) -> list[RealFileView]:
    rows: dict[str, RealFileView] = {}
    for (_path, report), subject in zip(reports, subjects, strict=True):
        for fixture in report.real_models.fixtures:
            row = rows.setdefault(fixture.fixture, RealFileView(
                fixture=fixture.fixture, sha256=fixture.sha256,
                corpus_texts=fixture.corpus_texts, generated_texts=fixture.generated_texts,
                lineage=fixture_lineage(fixture.fixture), by_subject={}, failures={},
                comparisons={}))
            row.by_subject[subject.key] = {
                by_class.get((subject.key, cls), cls): n
                for cls, n in sorted(fixture.tally.by_class.items()) if n}
            row.failures[subject.key] = sum(f.count for f in fixture.tally.failures) \
                + len(fixture.tally.harness_errors)
            row.comparisons[subject.key] = fixture.tally.comparisons
    return [rows[name] for name in sorted(rows)]


def fixture_lineage(name: str) -> Lineage:
    return next((lineage for prefix, lineage in FIXTURE_LINEAGE.items()
                 if name.startswith(prefix)), "other")


def _lineage(witness: WitnessRecord | None) -> Lineage:
    if witness is None:
        return "other"
    if witness.case is None or witness.case.get("document") is None:
        return fixture_lineage(witness.fixture or "")
    text = json.dumps(witness.case["document"], sort_keys=True)
    if '"ByteLevel"' in text:
        return "byte-level"
    if '"Metaspace"' in text or '"byte_fallback": true' in text or '"ByteFallback"' in text:
        return "sentencepiece"
    return "other"


def _sentence(text: str) -> str:
    match = re.match(r"(.+?[.!?])(\s|$)", text.strip(), re.S)
    return (match.group(1) if match else text.strip()).replace("\n", " ")


def slug(text: str) -> str:
    """A subject's or finding's key in the site (file names, anchors)."""
    return _slug(text)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def with_transplant(site: Site, shown: dict[tuple[str, str], dict[str, bool]]) -> Site:
    """``site`` with the cells no report measured filled from a matrix' transplant:
    ``shown[(origin subject, finding id)][subject]`` says whether that subject shows the
    finding's pinned witness (a cell then counts that one witness). Measured cells stay."""
    for finding in site.findings:
        row = shown.get((finding.origin, finding.id), {})
        for subject in site.subjects:
            key = (finding.key, subject.key)
            if site.cells[key].status == "unmeasured" and subject.key in row:
                site.cells[key] = Cell("observed", 1) if row[subject.key] else Cell("absent")
    return site
