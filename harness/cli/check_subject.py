"""``python -m harness check-subject SUBJECT``: calibrate an adapter before a run
(``subjects/check.py``); a mis-mapped adapter is one line on standard error and exit 1
(decision [0034](../../docs/decisions/0034-subject-folders-and-registry.md))."""

from __future__ import annotations

import argparse
import sys

from .arguments import UsageError


def run(args: argparse.Namespace) -> int:
    """Calibrate an adapter (harness/subjects/check.py): one line per calibration; a
    mis-mapped adapter is one line on standard error and exit 1."""
    from ..runs import third_party
    from ..subjects.check import calibrate
    from ..subjects.process import SubjectStartError
    from ..subjects.upstream import UPSTREAM

    try:
        subject = third_party.subject_to_check(args.spec)
        lines = calibrate(subject, UPSTREAM)
    except (third_party.SubjectUnavailableError, SubjectStartError) as exc:
        raise UsageError(f"python -m harness check-subject: {exc}") from None
    print(f"subject {subject.name} ({subject.version()}); capabilities "
          f"{', '.join(sorted(subject.capabilities))}")
    for line in lines:
        mark = "ok        " if line.problem is None else "MIS-MAPPED"
        print(f"  {mark} {line.check}: {line.answer}"
              + (f"\n             {line.problem}" if line.problem else ""))
    problems = [line for line in lines if line.problem is not None]
    if problems:
        more = f" (and {len(problems) - 1} more above)" if len(problems) > 1 else ""
        print(f"python -m harness check-subject: the adapter of {subject.name} is mis-mapped: "
              f"{problems[0].problem}{more}", file=sys.stderr)
        return 1
    print(f"the adapter of {subject.name} is calibrated: a run judges the implementation")
    return 0
