"""``python -m harness site``: render the static HTML site from conformance reports, and
what changed against an older set (decision [0032](../../docs/decisions/0032-site.md))."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .arguments import UsageError, read_report


def run(args: argparse.Namespace) -> int:
    from ..core.canonical import write_atomic
    from ..site.build import from_conformance
    from ..site.changes import SnapshotError, compare, markdown, parse_snapshot, snapshot
    from ..site.writer import OutputError, render, write_site

    if args.changes is not None and args.against is None:
        raise UsageError("python -m harness site: --changes needs --against")

    def load(paths: list[Path]) -> Any:
        from ..matrix.files import MatrixShapeError
        from ..matrix.site_input import expand
        from ..site.build import with_transplant

        try:
            reports, shown = expand(paths)  # a matrix summary: its subjects' reports
            return with_transplant(from_conformance(
                [(p.as_posix(), read_report(p)) for p in reports], Path(".")), shown)
        except (ValueError, MatrixShapeError) as exc:
            raise UsageError(f"python -m harness site: {exc}") from None

    site = load(args.reports)
    changes, against = None, ""
    if args.against is not None:
        against = " ".join(p.as_posix() for p in args.against)
        if len(args.against) == 1 and args.against[0].suffix == ".json":
            try:
                old = parse_snapshot(args.against[0].read_text(encoding="utf-8"), against)
            except (OSError, SnapshotError) as exc:
                raise UsageError(str(exc).splitlines()[0]) from None
        else:
            old = snapshot(load(args.against))
        changes = compare(snapshot(site), old)
    files = render(site, changes=changes, against=against, link_base=args.link_base)
    try:
        write_site(files, args.output)
    except OutputError as exc:
        raise UsageError(str(exc)) from None
    if args.changes is not None and changes is not None:
        write_atomic(args.changes, markdown(changes, against))
    print(f"site: {len(files) - 1} files in {args.output.as_posix()} ({len(site.subjects)} "
          f"subjects, {len(site.findings)} findings)", file=sys.stderr)
    return 0
