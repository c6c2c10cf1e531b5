"""``python -m harness merge``: join the reports of ``--shard 1/N ... N/N`` into the report
of the whole run (decision [0030](../../docs/decisions/0030-logical-shards.md))."""

from __future__ import annotations

import argparse

from ..core import interrupts
from .arguments import UsageError, read_report


def run(args: argparse.Namespace) -> int:
    from ..report.files import write_report
    from ..report.merge import MergeError, merge

    parts = [(path.as_posix(), read_report(path)) for path in args.shards]
    try:
        report = merge(parts, args.report.as_posix())
    except MergeError as exc:
        raise UsageError(f"merge: {exc}") from None
    interrupts.check()
    write_report(report, args.report)
    print(f"{len(parts)} shard reports merged: {report.summary.examples} cases, "
          f"{report.summary.comparisons} comparisons, verdict {report.verdict}; "
          f"report: {args.report}")
    return 1 if report.verdict == "fail" else 0
