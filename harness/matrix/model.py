"""The matrix summary (``reports/matrix.yaml``): one typed model, versioned; its JSON
Schema (``matrix.schema.json`` beside this module) is generated from it
(``harness.matrix.schema``). ``TIMING_FIELDS`` measure time; everything else is a
function of the code, the seed and the profile (decision 0037).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Literal

MATRIX_VERSION: Final = 2
TIMING_FIELDS: Final = frozenset({"seconds", "wall_seconds"})

#: ``not-run``: the subject cannot run here (no node, a package not installable) or its
#: run ended without a report; ``reason`` says why in one line.
Verdict = Literal["pass", "fail", "incomplete", "not-run"]
#: The severity scale of harness/site/severity.py, mildest first.
Grade = Literal["segmentation", "text", "empty", "refusal", "crash", "hang", "garbage"]


@dataclass
class SubjectRow:
    """One subject of the matrix: what it is, how its run ended, where its report is."""

    name: str
    #: The exact version the subject's hello gave (empty when it never started).
    version: str
    verdict: Verdict
    #: One line: why a subject was not run or failed (empty for a pass).
    reason: str
    #: ``reports/matrix/<subject>.yaml`` (empty when no report was written).
    report: str
    expectations: str
    restarts: int
    cases: int
    comparisons: int
    failures: int
    #: Entries of its expectations (or intended classes) the run observed.
    findings_observed: int
    stale_witnesses: int
    seconds: float
    #: Divergences of its run by severity grade: its failures' and its observed entries'
    #: (each counted as often as the run met it), graded by their witness.
    severities: dict[str, int] = field(default_factory=dict)


@dataclass
class Cell:
    """What one subject shows on one transplanted witness."""

    subject: str
    #: ``shown``: it diverges from upstream there; ``agrees``: it does not; ``not-run``:
    #: the subject did not run, or cannot answer the witness' operations.
    result: Literal["shown", "agrees", "not-run"]
    grade: Grade | None = None
    #: The subject's own entries that explain it (empty: a failure, or no divergence).
    explained_by: list[str] = field(default_factory=list)


@dataclass
class Finding:
    """One pinned witness of one source (our intended classes: ``reference``; else the
    subject whose witnesses.json holds it), graded on its own subject, replayed on all."""

    id: str
    source: str
    entry: str
    witness: str
    grade: Grade
    #: Every subject that shows it (the transplant), sorted.
    shown_by: list[str]
    cells: list[Cell]


@dataclass
class FileCell:
    """What one subject did on one real file over the committed corpus."""

    subject: str
    #: ``agrees``: no divergence on any comparison; ``diverges``: some (each explained by
    #: ``findings`` or counted in ``failures``); ``not-run``: the subject did not run this
    #: file (it did not run, its profile leaves the file out, or the file is not here).
    result: Literal["agrees", "diverges", "not-run"]
    comparisons: int = 0
    #: Comparisons whose outcomes differ.
    diverged: int = 0
    #: Divergences no entry explains.
    failures: int = 0
    #: Each finding (``source/entry``, as ``Finding.id``) the file triggered on this
    #: subject, and how often.
    findings: dict[str, int] = field(default_factory=dict)


@dataclass
class RealFile:
    """One real tokenizer.json through every subject: which findings it can trigger, and
    how often on the corpus."""

    fixture: str
    sha256: str
    #: Corpus texts each subject ran on it (the profile's: the whole committed corpus by
    #: default).
    corpus_texts: int
    #: Every finding some subject met on this file, sorted.
    triggers: list[str]
    cells: list[FileCell]


@dataclass
class Matrix:
    matrix_version: int
    command: str
    profile: str
    seed: int
    subjects: list[SubjectRow]
    #: Verdict counts, by verdict.
    verdicts: dict[str, int]
    #: Findings by grade.
    grades: dict[str, int]
    findings: list[Finding]
    #: The real files, one row each (conformance fixtures, in their order).
    real_files: list[RealFile]
    wall_seconds: float
