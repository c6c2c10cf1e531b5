"""Titles of the documents a finding points to: a decision record's first heading, or the
heading of an entry in a subject's findings document (``docs/findings/<subject>.md``).

Read from the repository the site is built in; a document that is not there keeps its path
as its title (so a report from elsewhere still renders).
"""

from __future__ import annotations

import re
from pathlib import Path

#: ``harness/expectations/<subject>.yaml#<id>`` and the folder form of the subjects issue.
_EXPECTATION = re.compile(r"^harness/(?:expectations/(?P<a>[^/#]+)\.yaml|subjects/(?P<b>[^/#]+)"
                          r"/expectations\.yaml)#(?P<id>.+)$")


def record_of(decision: str, root: Path) -> tuple[str, str]:
    """(the path to link, with anchor, and its title) for a class's ``decision`` field."""
    match = _EXPECTATION.match(decision)
    if match:
        subject = (match.group("a") or match.group("b") or "").replace("_", "-")
        entry = match.group("id")
        findings = f"docs/findings/{subject}.md"
        heading = _heading(root / findings, entry)
        if heading is not None:
            return f"{findings}#{anchor(heading)}", heading
        return decision, decision
    path = decision.split("#", 1)[0]
    title = _first_heading(root / path)
    return decision, title if title is not None else decision


def titles(decisions: list[str], root: Path) -> dict[str, str]:
    """Each decision field → its record's title (for the Markdown summary)."""
    return {d: record_of(d, root)[1] for d in sorted(set(decisions)) if d}


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _first_heading(path: Path) -> str | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        if line.startswith("# "):
            return line[2:].strip()
    return None


def _heading(path: Path, entry: str) -> str | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in lines:
        stripped = line.lstrip("#").strip()
        if line.startswith("#") and (stripped == entry or stripped.startswith(entry + " ")):
            return stripped
    return None
