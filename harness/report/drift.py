"""The oracle drift report (``reports/oracle-drift-<from>-to-<to>.yaml``): one typed model,
versioned, laid out like the conformance report (``report_version``, ``verdict``,
``summary`` first); read and written here, its JSON Schema (``drift.schema.json``)
generated from it by ``harness.report.schema``, rendered by ``drift_markdown``.

``harness.oracles`` builds it; docs/upgrading.md says how to read it (decision 0035).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import yaml

from ..core.canonical import canonical_yaml, write_atomic
from .serde import ShapeError, from_data, to_data

#: Bumped whenever a field changes meaning or shape (1: the first typed version).
DRIFT_REPORT_VERSION: Final = 1
DriftVerdict = Literal["no drift", "drift"]


@dataclass
class DriftSummary:
    """How many entries each section holds; the verdict is ``drift`` when any of the first
    five is not 0."""

    rows_changed: int
    not_reproducible: int
    acceptance_changed: int
    stale_intended_classes: int
    new_divergences: int
    cases_added: int
    cases_removed: int
    cases_edited: int


@dataclass
class DriftHeader:
    """The versions compared and the command that wrote the report."""

    from_version: str
    to_version: str
    command: str
    python: str
    unicode: str


@dataclass
class ColumnChange:
    """One column of a row (``encode``, ``decode_skip_special``, a witness' ``upstream``),
    as the committed oracle has it and as the new version answers it."""

    before: Any
    after: Any


@dataclass
class RowChange:
    """A row whose upstream answer changed."""

    file: str
    id: str
    kind: str
    flags: list[str]
    changes: dict[str, ColumnChange]
    #: The row's input (encode and decode rows).
    input: Any = None
    #: The intended divergence class a witness row pins.
    class_id: str | None = None


@dataclass
class NotReproducible:
    """A row (or part of one) the new version cannot answer: a tier it does not expose.
    Its committed values are kept, pinned to the version that produced them."""

    file: str
    id: str
    kind: str
    tiers_gone: list[str]
    produced_by: str
    #: Whether the whole row is kept (a witness on a gone tier) or only the gone tiers.
    whole_row: bool
    #: Other columns of the row that changed as well (compared as in ``rows_changed``).
    changes: dict[str, ColumnChange] = field(default_factory=dict)


@dataclass
class LoadChange:
    """A tokenizer file the new version loads, refuses or panics on differently."""

    file: str
    id: str
    tokenizer: str
    change: str
    before: Any
    after: Any


@dataclass
class StaleClass:
    """A row or witness whose intended divergence class no longer shows."""

    file: str
    id: str
    class_id: str
    detail: str


@dataclass
class NewDivergence:
    """A row where our reference now differs from upstream and no class it names
    explains it."""

    file: str
    id: str
    kind: str
    detail: str


@dataclass
class DriftReport:
    """``reports/oracle-drift-<from>-to-<to>.yaml``. The verdict and the summary first."""

    report_version: int
    verdict: DriftVerdict
    summary: DriftSummary
    header: DriftHeader
    rows_changed: list[RowChange]
    not_reproducible: list[NotReproducible]
    acceptance_changed: list[LoadChange]
    stale_intended_classes: list[StaleClass]
    new_divergences: list[NewDivergence]
    cases_added: list[str]
    cases_removed: list[str]
    cases_edited: list[str]


PREAMBLE: Final = """\
Oracle drift report: what changes in the pinned oracles (oracles/*.json) when they are
regenerated against another tokenizers version (docs/upgrading.md). Review it before
accepting an upgrade (nox -s oracles -- --reference VERSION --accept); render it with
python -m harness report --markdown FILE.
  verdict                 drift when any of the five sections below is non-empty
  rows_changed            rows whose upstream answer changed: before and after, per column
  not_reproducible        rows the new version cannot answer (a tier it does not expose):
                          kept, pinned to the version that produced them (produced_by)
  acceptance_changed      tokenizer files upstream now loads, refuses or panics on differently
  stale_intended_classes  rows and witnesses whose intended divergence class no longer shows
                          (upstream fixed it, or changed around it)
  new_divergences         rows where the reference now differs from upstream and no class
                          named by the row explains it
  cases_added/removed/edited  inputs that changed (not drift: a change of the cases)
Schema: harness/report/drift.schema.json (report_version below).
"""


class DriftReportError(Exception):
    """A file that is not a complete drift report (one line)."""


def is_drift_data(data: Any) -> bool:
    """Whether parsed YAML is (meant to be) a drift report rather than a conformance one."""
    return isinstance(data, dict) and "stale_intended_classes" in data


def drift_text(report: DriftReport) -> str:
    data = to_data(report)
    body = "".join(canonical_yaml({key: value}) for key, value in data.items())
    return "\n".join(f"# {line}".rstrip() for line in PREAMBLE.strip().splitlines()) + "\n" \
        + body


def drift_path(root: Path, report: DriftReport) -> Path:
    header = report.header
    return root / "reports" / f"oracle-drift-{header.from_version}-to-{header.to_version}.yaml"


def write_drift(root: Path, report: DriftReport) -> Path:
    path = drift_path(root, report)
    write_atomic(path, drift_text(report))
    return path


def parse_drift(data: Any, where: str = "the drift report") -> DriftReport:
    if not is_drift_data(data):
        raise DriftReportError(f"{where} is not an oracle drift report")
    version = data.get("report_version")
    if version != DRIFT_REPORT_VERSION:
        raise DriftReportError(f"{where} has report_version {version!r}; this harness reads "
                               f"drift reports of version {DRIFT_REPORT_VERSION} (regenerate "
                               "it with nox -s oracles -- --reference VERSION)")
    try:
        return from_data(DriftReport, data)
    except ShapeError as exc:
        raise DriftReportError(f"{where} is not a complete drift report: {exc}") from None


def drift_or_none(path: Path) -> DriftReport | None:
    """The drift report at ``path``; None when the file is not meant to be one (a
    conformance report, or unreadable: its reader says what is wrong). Raises
    ``DriftReportError`` for a drift report of the wrong version or shape."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    return parse_drift(data, str(path)) if is_drift_data(data) else None


def read_drift(path: Path) -> DriftReport:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DriftReportError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DriftReportError(f"{path}: cannot be read ({exc})") from None
    except yaml.YAMLError as exc:
        raise DriftReportError(f"{path} is not YAML: {str(exc).splitlines()[0]}") from None
    return parse_drift(data, str(path))
