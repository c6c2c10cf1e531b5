"""``python -m harness report --markdown``: render a conformance report as Markdown,
optionally against an older one, or an oracle drift report (decision
[0020](../../docs/decisions/0020-harness-layers-and-report-v2.md))."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core import interrupts
from .arguments import UsageError, read_report


def run(args: argparse.Namespace) -> int:
    from ..core.canonical import write_atomic
    from ..report.drift import DriftReportError, drift_or_none
    from ..report.drift_markdown import render_drift
    from ..report.markdown import render
    from ..site.records import titles

    try:
        drifted = drift_or_none(args.report)
    except DriftReportError as exc:
        raise UsageError(str(exc)) from None
    if drifted is not None:  # an oracle drift report (decision 0035)
        if args.against is not None:
            raise UsageError("--against compares conformance reports, not drift reports")
        text = render_drift(drifted)
    else:
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
