"""``python -m harness matrix``: run every registered subject (or those given with
``--subject``) side by side and write ``reports/matrix/<subject>.yaml`` and
``reports/matrix.yaml`` (decision 0037). Each subject's report is written (atomically) when
its run ends, the summary when every job has ended; an interrupt ends every child and
writes no summary.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

from ..core.profiles import PROFILES
from ..subjects import registry
from .files import write_matrix
from .runner import NOT_RUN, Options, Outcome, file_name, run_all
from .summary import build
from .witnesses import REFERENCE, all_witnesses

DEFAULT_OUTPUT: Final = Path("reports/matrix.yaml")
DEFAULT_PROFILE: Final = "matrix"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--subject", action="append", default=None, metavar="SPEC",
                        help="a subject to run (repeatable; default: every registered "
                        "subject, our reference included)")
    parser.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE,
                        help=f"each subject's run budget (default {DEFAULT_PROFILE})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--examples", type=int, default=None)
    parser.add_argument("--real-examples", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=None,
                        help="subjects run at once (default: every core)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT,
                        help="the summary (default reports/matrix.yaml); each subject's "
                        "report goes to the folder of its name beside it")


def default_specs() -> tuple[list[str], list[str]]:
    """The specs the matrix runs and the registered names it does not (``NOT_RUN``)."""
    names = registry.names()
    return ([n for n in names if n not in NOT_RUN], [n for n in names if n in NOT_RUN])


def main(args: argparse.Namespace) -> int:
    started = time.monotonic()
    specs, skipped = (list(args.subject), []) if args.subject else default_specs()
    if not args.subject and REFERENCE not in specs:
        specs.insert(0, REFERENCE)
    jobs = args.jobs or os.cpu_count() or 1
    options = Options(args.profile, args.seed, args.examples, args.real_examples)
    output: Path = args.output
    folder = output.with_suffix("")
    command = "python -m harness matrix " + shlex.join(
        [w for s in (args.subject or []) for w in ("--subject", s)]
        + ["--profile", args.profile, "--seed", str(args.seed)]
        + (["--examples", str(args.examples)] if args.examples is not None else [])
        + (["--real-examples", str(args.real_examples)]
           if args.real_examples is not None else []))

    def said(outcome: Outcome) -> None:
        what = (f"report written, exit status {outcome.exit_status}"
                if outcome.report is not None else f"NOT RUN: {outcome.reason}")
        print(f"  {outcome.name}: {what} ({outcome.seconds:.0f} s)"
              + "".join(f"; {note}" for note in outcome.notes), flush=True)

    print(f"matrix: {len(specs)} subject(s), {min(jobs, len(specs))} at once, profile "
          f"{args.profile}", flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="matrix-") as tmp:
        outcomes = run_all(specs, folder, Path(tmp), options, jobs=jobs, progress=said)
    displays = {o.name: (folder / f"{o.name}.yaml").as_posix()
                for o in outcomes if o.report is not None}
    matrix = build(command=command, profile=args.profile, seed=args.seed,
                   outcomes=outcomes, displays=displays, witnesses=all_witnesses(),
                   skipped=skipped, wall_seconds=time.monotonic() - started)
    write_matrix(matrix, output)
    for row in matrix.subjects:
        print(f"  {row.name} {row.version or '-'}: {row.verdict}"
              + (f" ({row.reason})" if row.reason else ""))
    shown = sum(1 for f in matrix.findings if f.shown_by)
    print(f"{len(matrix.subjects)} subjects: "
          + ", ".join(f"{count} {verdict}" for verdict, count in matrix.verdicts.items())
          + f"; {len(matrix.findings)} pinned witnesses transplanted, {shown} shown by some "
          f"subject; {matrix.wall_seconds:.0f} s wall")
    print(f"matrix: {output.as_posix()} and {folder.as_posix()}/", file=sys.stdout)
    return 1 if any(row.verdict == "fail" for row in matrix.subjects) else 0


__all__ = ["add_arguments", "file_name", "main"]
