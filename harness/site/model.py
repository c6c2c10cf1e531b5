"""The site's own view-model: subjects, findings, cells, real files, built from N reports.

Every page and the Markdown summary's titles read these classes only. A builder turns
reports into a ``Site``: ``harness.site.build.from_conformance`` for conformance reports
(one per subject) today; a matrix report (``reports/matrix.yaml``) adds another builder,
not another page. See docs/decisions/0032-site.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .severity import BY_GRADE, Grade

#: observed: the subject shows it (count > 0); failure: an unexplained divergence; absent:
#: measured on the subject and not seen; unmeasured: the subject was not run on it.
CellStatus = Literal["observed", "failure", "absent", "unmeasured"]
Lineage = Literal["sentencepiece", "byte-level", "other"]


@dataclass(frozen=True)
class Output:
    """One side of a witness: who answered and what (an outcome mapping of the report)."""

    who: str
    outcome: dict[str, Any]


@dataclass(frozen=True)
class WitnessView:
    detail: str
    operation: str
    tier: str
    track: str
    input: Any
    options: dict[str, Any]
    #: The tokenizer.json (canonical JSON text) of a generated witness; None for a fixture.
    document: str | None
    fixture: str | None
    shrunk: bool
    #: Upstream first, then each subject that answered this witness.
    outputs: tuple[Output, ...]


@dataclass(frozen=True)
class FindingView:
    """One intended class, expectation entry or failure, as the site shows it."""

    key: str
    id: str
    #: intended (our registry), expectation (a subject's entry), failure (unexplained).
    role: Literal["intended", "expectation", "failure"]
    kind: str
    title: str
    sentence: str
    why: str
    #: A path in the repository (a decision record or a findings document, with anchor).
    record: str
    record_title: str
    upstream_links: tuple[str, ...]
    severity: Grade
    severity_reason: str
    lineage: Lineage
    origin: str
    reproduce: str
    witness: WitnessView | None


@dataclass(frozen=True)
class Cell:
    status: CellStatus
    count: int = 0


@dataclass(frozen=True)
class SubjectView:
    key: str
    name: str
    version: str
    install: str
    report: str
    verdict: str
    failing_parts: tuple[str, ...]
    command: str
    upstream_version: str
    capabilities: tuple[str, ...]
    restarts: int
    examples: int
    comparisons: int


@dataclass(frozen=True)
class RealFileView:
    """One real tokenizer file: per subject, the findings its corpus and generated texts
    triggered (finding key → count) and its failures."""

    fixture: str
    sha256: str
    corpus_texts: int
    generated_texts: int
    lineage: Lineage
    by_subject: dict[str, dict[str, int]]
    failures: dict[str, int]
    comparisons: dict[str, int]


@dataclass
class Site:
    subjects: list[SubjectView]
    findings: list[FindingView]
    #: (finding key, subject key) → cell; every pair is present.
    cells: dict[tuple[str, str], Cell]
    real_files: list[RealFileView]
    sources: list[str] = field(default_factory=list)

    def finding(self, key: str) -> FindingView:
        return next(f for f in self.findings if f.key == key)

    def row(self, finding: FindingView) -> tuple[Cell, ...]:
        return tuple(self.cells[(finding.key, s.key)] for s in self.subjects)

    def shown(self, finding: FindingView) -> bool:
        """Whether a row has anything to show (observed or failing somewhere)."""
        return any(c.status in ("observed", "failure") for c in self.row(finding))

    def clustered(self) -> list[FindingView]:
        """Rows ordered so identical result vectors sit together: failing and graver
        vectors first, then by vector, then by id."""
        def vector(f: FindingView) -> tuple[str, ...]:
            return tuple(f"{c.status}:{f.severity if c.status in ('observed', 'failure') else ''}"
                         for c in self.row(f))
        groups: dict[tuple[str, ...], list[FindingView]] = {}
        for f in self.findings:
            groups.setdefault(vector(f), []).append(f)

        def gravity(item: tuple[tuple[str, ...], list[FindingView]]) -> tuple[Any, ...]:
            vec, members = item
            failing = sum(1 for v in vec if v.startswith("failure"))
            seen = sum(1 for v in vec if v.startswith(("failure", "observed")))
            worst = max(BY_GRADE[f.severity].rank for f in members)
            return (-failing, -(seen > 0), -worst, vec)
        ordered: list[FindingView] = []
        for _vec, members in sorted(groups.items(), key=gravity):
            ordered += sorted(members, key=lambda f: (-BY_GRADE[f.severity].rank, f.key))
        return ordered
