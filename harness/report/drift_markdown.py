"""An oracle drift report (``harness.report.drift``) as Markdown, for a reviewer: the
verdict and counts first, then one table per section, long values cut short
(``python -m harness report --markdown reports/oracle-drift-....yaml``).

Deterministic: the same report gives the same text. Decision record
docs/decisions/0035-tokenizers-api-generations.md; how to review: docs/upgrading.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, Final

from .drift import ColumnChange, DriftReport

#: Characters of a value shown in a table cell.
CELL: Final = 120
#: Characters of the last column (a detail, an "after" value).
DETAIL: Final = 320
#: Rows of a section shown before "... and N more".
ROWS: Final = 60

_SECTIONS: Final = (
    ("rows_changed", "Rows whose upstream answer changed"),
    ("not_reproducible", "Rows the new version cannot answer (kept, pinned)"),
    ("acceptance_changed", "Files loaded, refused or panicked on differently"),
    ("stale_intended_classes", "Intended classes whose witness stopped diverging"),
    ("new_divergences", "New divergences of the reference"),
)


def _cell(value: Any, width: int = CELL) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                          sort_keys=True)
    text = " ".join(text.split())
    if len(text) > width:
        text = text[:width - 1] + "…"
    return text.replace("|", "\\|").replace("`", "'")


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    shown = 0
    total = 0
    for row in rows:
        total += 1
        if shown < ROWS:
            lines.append("| " + " | ".join(_cell(v, DETAIL if i == len(row) - 1 else CELL)
                                           for i, v in enumerate(row)) + " |")
            shown += 1
    if total > shown:
        lines.append(f"\n… and {total - shown} more (see the YAML file).")
    return lines


def _changes(changes: dict[str, ColumnChange]) -> list[tuple[str, Any, Any]]:
    return [(column, change.before, change.after)
            for column, change in sorted(changes.items())]


def render_drift(report: DriftReport) -> str:
    """The whole report as GitHub-flavoured Markdown."""
    header = report.header
    summary = report.summary
    icon = "✅" if report.verdict == "no drift" else "⚠️"
    out = [f"## {icon} Oracle drift: tokenizers {header.from_version} → "
           f"{header.to_version}: {report.verdict}", "",
           f"`{header.command}` (Python {header.python}, Unicode {header.unicode}; "
           f"drift report version {report.report_version})", ""]
    out += _table(["section", "entries"], [
        (title, getattr(summary, key)) for key, title in _SECTIONS])
    out += ["", f"Inputs: {summary.cases_added} case(s) added, {summary.cases_removed} "
            f"removed, {summary.cases_edited} edited (not drift).", ""]
    if report.rows_changed:
        out += [f"### {_SECTIONS[0][1]}", ""]
        out += _table(["file", "row", "column", "before", "after"], (
            (row.file, row.id, column, before, after)
            for row in report.rows_changed for column, before, after in _changes(row.changes)))
        out.append("")
    if report.not_reproducible:
        out += [f"### {_SECTIONS[1][1]}", ""]
        out += _not_reproducible(report)
    if report.acceptance_changed:
        out += [f"### {_SECTIONS[2][1]}", ""]
        out += _table(["file", "tokenizer", "change", "before", "after"], (
            (row.file, row.tokenizer, row.change, _message(row.before), _message(row.after))
            for row in report.acceptance_changed))
        out.append("")
    if report.stale_intended_classes:
        out += [f"### {_SECTIONS[3][1]}", ""]
        out += _table(["file", "row", "class", "detail"], (
            (row.file, row.id, row.class_id, row.detail)
            for row in report.stale_intended_classes))
        out.append("")
    if report.new_divergences:
        out += [f"### {_SECTIONS[4][1]}", ""]
        out += _table(["file", "row", "kind", "detail"], (
            (row.file, row.id, row.kind, row.detail) for row in report.new_divergences))
        out.append("")
    out += ["Review and accept: docs/upgrading.md (`nox -s oracles -- --reference "
            f"{header.to_version} --accept`, then move the pin in pyproject.toml)."]
    return "\n".join(out).rstrip() + "\n"


def _not_reproducible(report: DriftReport) -> list[str]:
    """Per file, how many rows keep which tiers pinned to which version; then each row
    kept whole or with other columns changed."""
    per_file: dict[tuple[str, str, str], list[int]] = {}
    for row in report.not_reproducible:
        key = (row.file, ", ".join(row.tiers_gone), row.produced_by)
        counts = per_file.setdefault(key, [0, 0, 0])
        counts[0] += 1
        counts[1] += row.whole_row
        counts[2] += bool(row.changes)
    out = _table(["file", "tiers gone", "pinned to", "rows", "kept whole",
                  "other columns changed"],
                 ((*key, *counts) for key, counts in sorted(per_file.items())))
    out.append("")
    notable = [row for row in report.not_reproducible if row.whole_row or row.changes]
    if notable:
        out += _table(["file", "row", "kept", "column", "before", "after"], (
            (row.file, row.id, "whole row" if row.whole_row else "those tiers", column,
             before, after)
            for row in notable
            for column, before, after in (_changes(row.changes) or [("", "", "")])))
        out.append("")
    return out


def _message(outcome: Any) -> Any:
    """A load outcome in a few words: ``loaded``, ``refused: <message>``."""
    if not isinstance(outcome, dict):
        return outcome
    kind = outcome.get("outcome")
    message = outcome.get("message")
    return f"{kind}: {message}" if message else kind
