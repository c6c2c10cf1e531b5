"""``python -m harness report --markdown``: render a conformance report as Markdown,
optionally against an older one (decision
[0020](../../docs/decisions/0020-harness-layers-and-report-v2.md))."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core import interrupts
from .arguments import read_report


def run(args: argparse.Namespace) -> int:
    from ..core.canonical import write_atomic
    from ..report.markdown import render
    from ..site.records import titles

    report = read_report(args.report)
    against = read_report(args.against) if args.against is not None else None
    text = render(report, against=against, against_name=(
        args.against.as_posix() if args.against is not None else None),
        link_base=args.link_base,
        titles=titles([c.decision for c in report.classes], Path(".")))
    interrupts.check()
    if args.output is not None:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
