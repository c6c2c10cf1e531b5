"""What the site reads of a matrix summary (``reports/matrix.yaml``): the subjects'
reports it names (each becomes a column) and the transplant (which fills the cells no
report measured: ``harness.site.build.with_transplant``). Decision 0037."""

from __future__ import annotations

from pathlib import Path

import yaml

from ..report.files import read_report
from .files import parse_matrix


def _site_key(report: Path) -> str:
    """The site's key of the subject a report judges (its hello name, slugged as the
    site slugs it; ``reference`` for our reference's)."""
    from ..site.build import slug

    subject = read_report(report).subject
    return "reference" if subject is None else slug(subject.name)


def is_matrix(path: Path) -> bool:
    """Whether ``path`` is a matrix summary (it has ``matrix_version`` at the top)."""
    try:
        with path.open(encoding="utf-8") as handle:
            head = handle.read(4096)
    except (OSError, UnicodeDecodeError):
        return False
    return any(line.startswith("matrix_version:") for line in head.splitlines())


def expand(paths: list[Path]) -> tuple[list[Path], dict[tuple[str, str], dict[str, bool]]]:
    """The reports to render and the transplant of every matrix summary among ``paths``.
    A summary brings its subjects' reports, but a subject a report given on its own
    already judges keeps that report (a fuller run, say), in the order given."""
    given = [p for p in paths if not is_matrix(p)]
    taken = {_site_key(p) for p in given}
    reports = list(given)
    shown: dict[tuple[str, str], dict[str, bool]] = {}
    for path in (p for p in paths if is_matrix(p)):
        matrix = parse_matrix(yaml.safe_load(path.read_text(encoding="utf-8")),
                              path.as_posix())
        keys = {row.name: _site_key(Path(row.report)) for row in matrix.subjects
                if row.report}
        for row in matrix.subjects:
            if row.report and keys[row.name] not in taken:
                taken.add(keys[row.name])
                reports.append(Path(row.report))
        for finding in matrix.findings:
            source = keys.get(finding.source, finding.source)
            shown[(source, finding.entry)] = {
                keys[cell.subject]: cell.result == "shown" for cell in finding.cells
                if cell.result != "not-run" and cell.subject in keys}
    return list(dict.fromkeys(reports)), shown
