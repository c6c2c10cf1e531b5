"""``python -m harness conformance | reproduce | report | oracles | check-subject | bench``.

Every user error is one line on standard error and exit status 2; Ctrl-C and SIGTERM stop
any command within a moment, say what was interrupted, write nothing, and exit 130 / 143.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .core import interrupts
from .core.profiles import DEFAULT_PROFILE, PROFILES

DEFAULT_REPORT = Path("reports/conformance.yaml")


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


def _parser() -> _Parser:
    parser = _Parser(prog="python -m harness")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    conf = sub.add_parser("conformance", help="fuzz the reference against tokenizers")
    conf.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE)
    conf.add_argument("--examples", type=_at_least(1, "--examples"), default=None,
                      help="number of generated cases (default: the profile's)")
    conf.add_argument("--seed", type=_at_least(0, "--seed"), default=0)
    conf.add_argument("--report", type=Path, default=None,
                      help=f"where to write the report (default: {DEFAULT_REPORT}, or "
                      "reports/conformance-<subject>.yaml for --subject)")
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
    conf.add_argument("--workers", type=_at_least(1, "--workers"), default=1,
                      help="processes: the exploration is sharded by seed across them, the "
                      "witness searches and real models spread over them (default 1)")
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
        report = DEFAULT_REPORT
        for i, arg in enumerate(arguments):
            if arg == "--report" and i + 1 < len(arguments):
                report = Path(arguments[i + 1])
            elif arg.startswith("--report="):
                report = Path(arg.split("=", 1)[1])
        return f"{report.as_posix()} was not written"
    return "nothing was written"


def _dispatch(arguments: list[str]) -> int:
    if arguments[:1] == ["bench"]:
        from .bench.bench import main as bench_main

        return bench_main(arguments[1:])
    args = _parser().parse_args(arguments)
    if args.command == "conformance":
        return _conformance(args)
    if args.command == "oracles":
        return _oracles(args)
    if args.command == "report":
        return _report(args)
    if args.command == "check-subject":
        return _check_subject(args)
    return _reproduce(args)


def _conformance(args: argparse.Namespace) -> int:
    meter = _reach_meter(args)
    if meter is not None:
        meter.start()  # first: implementation/ must be imported under the measure
    from .job import run
    from .report.build import build_report
    from .report.files import write_report
    from .runs import database as example_db
    from .runs import reach as reaches

    if args.expectations is not None:
        if args.subject is None:
            raise UsageError("--expectations judges a third-party subject: give --subject")
        if not args.expectations.is_file():
            raise UsageError(f"--expectations {args.expectations}: no such file")
    subject = _subject(args.subject, args.expectations)
    if subject == "":
        return 0  # unavailable here: said in one line
    if args.report is None:
        args.report = (Path(DEFAULT_REPORT) if subject is None
                       else Path(f"reports/conformance-{_file_name(args.subject)}.yaml"))
    command = "python -m harness conformance " + shlex.join(
        (["--subject", args.subject] if subject is not None else [])
        + (["--expectations", args.expectations.as_posix()]
           if args.expectations is not None else [])
        + ["--profile", args.profile, "--seed", str(args.seed)]
        + (["--examples", str(args.examples)] if args.examples is not None else [])
        + (["--real-examples", str(args.real_examples)]
           if args.real_examples is not None else [])
        + (["--workers", str(args.workers)] if args.workers != 1 else [])
        + (["--reach"] if args.reach else []))
    report_dir = args.report.parent
    if report_dir.exists() and not report_dir.is_dir():
        raise UsageError(f"--report {args.report}: {report_dir} is not a folder")
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
                     subject=subject)
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
    workers = f" by {args.workers} workers" if args.workers > 1 else ""
    declared = f" (and {tally.declared} declared probes)" if tally.declared else ""
    print(f"{tally.examples} cases{declared}, {tally.comparisons} comparisons explored{workers} in "
          f"{result.explore_seconds:.1f}s ({rate:.0f} comparisons/s); "
          f"{result.duration:.1f}s in all with shrinking")
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
    print(f"report: {args.report}")
    return 1 if result.failed or short else 0


def _reach_meter(args: argparse.Namespace) -> Any:
    """The coverage measure of ``--reach`` (started by the caller), or None."""
    if not args.reach:
        return None
    if args.subject is not None:
        raise UsageError("--reach measures our reference's code: leave out --subject")
    if args.workers != 1:
        raise UsageError("--reach measures one process: leave out --workers")
    from .runs.reach import ReachMeter, ReachUnavailableError

    try:
        return ReachMeter()
    except ReachUnavailableError as exc:
        raise UsageError(str(exc)) from None


class ProgressLine:
    """One self-rewriting status line on a terminal; nothing at all anywhere else.

    Called with the running ``Tally`` (examples done, comparisons/s, failures so far) and
    told of later phases by ``phase``. In CI logs (standard error not a terminal) it stays
    silent and the summary printed at the end is all there is.
    """

    def __init__(self, total: int, stream: TextIO | None = None,
                 interval: float = 0.2, *, log_phases: bool = False) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty()
        self.log_phases = log_phases and not self.enabled
        self.total = total
        self.interval = interval
        self.started = time.monotonic()
        self.last = float("-inf")
        self.dirty = False

    def __call__(self, tally: Any) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < self.interval
                                and tally.examples < self.total):
            return
        self.last = now
        rate = tally.comparisons / max(now - self.started, 1e-9)
        self._write(f"explore: {tally.examples}/{self.total} cases, {tally.comparisons} "
                    f"comparisons, {rate:.0f} comparisons/s, "
                    f"{sum(tally.failures.values())} failures so far")

    def phase(self, text: str) -> None:
        if self.log_phases:
            self.stream.write(f"phase: {text}\n")
            self.stream.flush()
        if not self.enabled:
            return
        if self.dirty:
            self.stream.write("\n")
        self._write(f"{text} ...")

    def close(self) -> None:
        if self.enabled and self.dirty:
            self.stream.write("\n")
            self.stream.flush()
            self.dirty = False

    def _write(self, text: str) -> None:
        self.stream.write(f"\r{text}\x1b[K")
        self.stream.flush()
        self.dirty = True


def _read_report(path: Path) -> Any:
    from .report.files import ReportError, read_report

    try:
        return read_report(path)
    except ReportError as exc:
        raise UsageError(str(exc)) from None


def _report(args: argparse.Namespace) -> int:
    from .core.canonical import write_atomic
    from .report.markdown import render

    report = _read_report(args.report)
    against = _read_report(args.against) if args.against is not None else None
    text = render(report, against=against, against_name=(
        args.against.as_posix() if args.against is not None else None),
        link_base=args.link_base)
    interrupts.check()
    if args.output is not None:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
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
    """A report file name for a subject spec (``cmd:...`` becomes ``cmd``)."""
    return "cmd" if spec.startswith("cmd:") else spec


def _reproduce(args: argparse.Namespace) -> int:
    from .runs.generated import evaluate

    report = _read_report(args.report)
    if args.pinned:
        case = _pinned_case(report, args.report, args.class_id)
    else:
        case = _witness_case(report, args.report, failure=args.failure,
                             class_id=args.class_id)
    print("tokenizer.json:")
    print(case.document_json())
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
        print(f"  {side} {json.dumps(data['reference'], ensure_ascii=False)}")
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
