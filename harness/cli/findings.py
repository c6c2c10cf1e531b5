"""``python -m harness findings [SUBJECT ...]``: run every reproducer of the subjects'
findings documents as a reader would paste it (``subjects/reproducers.py``) and say, per
finding, whether what it prints is what the document says; exit 1 when one is not."""

from __future__ import annotations

import argparse
import sys

from .arguments import UsageError


def run(args: argparse.Namespace) -> int:
    from ..subjects import registry, reproducers

    known = registry.registered()
    names = args.subjects or sorted(n for n, e in known.items() if e.findings is not None)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"python -m harness findings: unknown subject(s) {', '.join(unknown)}"
                         f"; known: {', '.join(sorted(known))}")
    failed = 0
    for name in names:
        try:
            results = reproducers.check(known[name], args.entry or ())
        except registry.SubjectUnavailableError as exc:
            print(f"{name}: not run: {exc}", flush=True)
            continue
        for result in results:
            mark = "ok   " if not result.problems else "FAILS"
            print(f"{mark} {name} {result.section.entry}", flush=True)
            for problem in result.problems:
                print(f"        {problem}", flush=True)
        failed += sum(1 for r in results if r.problems)
        print(f"{name}: {len(results)} finding(s), {sum(not r.problems for r in results)} "
              "reproduce as written", flush=True)
    if failed:
        print(f"python -m harness findings: {failed} reproducer(s) do not print what their "
              "document says", file=sys.stderr)
    return 1 if failed else 0
