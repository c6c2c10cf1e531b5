"""``python -m harness conformance``: one run (``job.run``), its report and its summary
lines; ``--reach`` starts its measure before ``implementation/`` is imported. Exit status:
0 pass, 1 fail, 3 incomplete (decision
[0033](../../docs/decisions/0033-user-cache-and-offline-fixtures.md))."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any

from ..core import interrupts
from ..core.profiles import PROFILES
from ..core.progress import ProgressLine
from .arguments import UsageError
from .subject import file_name, start_subject

#: The exit status of a run that could not run every part here (``incomplete``).
INCOMPLETE = 3


#: Below this many generated cases the default is one process: starting the pool (each
#: worker importing both subjects) costs more than it saves (smoke: 19.3 s -> 10.1 s).
SMALL_RUN = 100


def default_workers(args: argparse.Namespace) -> int:
    """Every core, but one process for ``--reach`` and for a run under ``SMALL_RUN``
    generated cases (the report is the same whatever the number)."""
    from ..core.profiles import PROFILES

    examples = args.examples if args.examples is not None else PROFILES[args.profile].examples
    return 1 if args.reach or examples < SMALL_RUN else (os.cpu_count() or 1)


def run(args: argparse.Namespace) -> int:
    meter = reach_meter(args)
    if meter is not None:
        meter.start()  # first: implementation/ must be imported under the measure
    from ..job import run as run_job
    from ..report.build import build_report
    from ..report.files import write_report
    from ..report.paths import unwritable
    from ..runs import database as example_db
    from ..runs import reach as reaches

    args.report = report_path(args)
    problem = unwritable(args.report)
    if problem is not None:
        raise UsageError(f"--report {args.report}: {problem}; nothing was run")
    if args.workers is None:
        args.workers = default_workers(args)
    elif args.workers > (os.cpu_count() or 1):
        print(f"note: --workers {args.workers} is more than the {os.cpu_count() or 1} "
              "cores here: the processes share them", file=sys.stderr)
    if args.expectations is not None:
        if args.subject is None:
            raise UsageError("--expectations judges a third-party subject: give --subject")
        if not args.expectations.is_file():
            raise UsageError(f"--expectations {args.expectations}: no such file")
    subject = start_subject(args.subject, args.expectations)
    if subject == "":
        return 0  # unavailable here: said in one line
    command = "python -m harness conformance " + shlex.join(
        (["--subject", args.subject] if subject is not None else [])
        + (["--expectations", args.expectations.as_posix()]
           if args.expectations is not None else [])
        + ["--profile", args.profile, "--seed", str(args.seed)]
        + (["--examples", str(args.examples)] if args.examples is not None else [])
        + (["--real-examples", str(args.real_examples)]
           if args.real_examples is not None else [])
        + (["--reach"] if args.reach else []))
    try:
        database = (None if args.no_database or subject is not None
                    else example_db.example_database())
    except example_db.DatabaseError as exc:
        raise UsageError(str(exc)) from None
    budget = args.examples if args.examples is not None else PROFILES[args.profile].examples
    line = ProgressLine(budget, log_phases=args.log_phases)
    try:
        result = run_job(profile_name=args.profile, seed_value=args.seed, examples=args.examples,
                     command=command, real_examples=args.real_examples,
                     workers=args.workers, database=database,
                     progress=line if line.enabled else None, phase=line.phase,
                     subject=subject, shard=args.shard)
    finally:
        line.close()
    interrupts.check()  # a signal whose first raise was swallowed: still nothing written
    reach = None
    if meter is not None:
        meter.stop()
        reach = meter.reach
    write_report(build_report(result, args.report.as_posix(), reach=reach), args.report)
    tally = result.tally
    if result.subject is not None:
        info = result.subject
        print(f"subject {info.name} ({info.version}); capabilities "
              f"{', '.join(info.capabilities)}; expectations {info.expectations}; "
              f"{info.restarts} restart(s)")
        from ..runs.third_party import expectations_at

        narrowing = expectations_at(info.expectations).generator
        if narrowing:
            print("generated cases narrowed by the expectations' generator: "
                  + "; ".join(f"{key} {', '.join(options)}" for key, options in narrowing))
    rate = tally.comparisons / max(result.explore_seconds, 1e-9)
    workers = f" by {result.workers} workers" if result.workers > 1 else ""
    declared = f" (and {tally.declared} declared probes)" if tally.declared else ""
    print(f"{tally.examples} cases{declared}, {tally.comparisons} comparisons explored{workers} in "
          f"{result.explore_seconds:.1f}s ({rate:.0f} comparisons/s); "
          f"{len(result.searched)} witness searches in {result.search_seconds:.1f}s, pinned "
          f"witnesses {result.pinned_seconds:.1f}s, real models {result.real_seconds:.1f}s, "
          f"morph track {result.morph_seconds:.1f}s; {result.duration:.1f}s in all")
    if database is not None:
        print(f"example database: {example_db.describe_database(database)}; "
              f"{result.replayed} stored failing case(s) replayed, "
              f"{len(tally.failure_witness)} failure witness(es) stored")
    print(f"intended divergences: {sum(tally.by_class.values())} "
          f"in {len(tally.by_class)} classes; failures: {tally.failure_count}")
    for sig, count in sorted(tally.failures.items()):
        print(f"  FAILURE x{count}: {sig}")
    for error in tally.errors:
        print(f"  HARNESS ERROR: {error.splitlines()[0]}")
    for fixture in result.real_models:
        if fixture.not_run is not None:
            print(f"  real model {fixture.name}: NOT RUN: {fixture.not_run}")
            continue
        print(f"  real model {fixture.name}: {fixture.corpus_texts} corpus + "
              f"{fixture.generated_texts} generated texts, {fixture.tally.comparisons} "
              f"comparisons, failures {fixture.tally.failure_count + len(fixture.tally.errors)}")
    morph = result.morph_track
    if morph is not None:
        print(f"  morph track: {morph.tally.comparisons} comparisons, failures "
              f"{morph.tally.failure_count + len(morph.tally.errors)}")
    for stale in result.stale:
        print(f"  STALE pinned witness {stale.id} ({stale.class_id}): now "
              f"{list(stale.now) or 'no divergence'}")
    short = False
    if reach is not None:
        for row in reaches.table(reach):
            print(row)
        short = bool(reaches.missing(reach)) or not all(r.meets_target for r in reach)
    if result.not_run and not (result.failed or short):
        print(f"verdict: incomplete ({len(result.not_run)} real model(s) not run here; "
              "python -m harness fetch fills the cache)")
    print(f"report: {args.report}")
    return 1 if result.failed or short else INCOMPLETE if result.not_run else 0


def reach_meter(args: argparse.Namespace) -> Any:
    """The coverage measure of ``--reach`` (started by the caller), or None."""
    if not args.reach:
        return None
    if args.subject is not None:
        raise UsageError("--reach measures our reference's code: leave out --subject")
    if args.workers not in (None, 1):
        raise UsageError("--reach measures one process: leave out --workers")
    from ..runs.reach import ReachMeter, ReachUnavailableError

    try:
        return ReachMeter()
    except ReachUnavailableError as exc:
        raise UsageError(str(exc)) from None


def report_path(args: argparse.Namespace) -> Path:
    """``--report``, else the run's default (``report.paths``)."""
    if args.report is not None:
        return Path(args.report)
    from ..report.paths import default_report

    named = args.subject not in (None, "reference")
    return default_report(profile=args.profile, seed=args.seed, examples=args.examples,
                          real_examples=args.real_examples, reach=args.reach,
                          subject=file_name(args.subject) if named else None)
