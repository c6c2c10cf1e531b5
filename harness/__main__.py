"""``python -m harness conformance | merge | fetch | findings | reproduce | report | oracles |
bench | site | check-subject``: the parser and the dispatch; each command is a module of
``harness/cli/``.

Every user error is one line on standard error and exit status 2; Ctrl-C and SIGTERM stop
any command within a moment, say what was interrupted, write nothing, and exit 130 / 143.
A conformance run that could not run a part here (a real-model fixture whose source could
not be had) writes its report with the verdict ``incomplete`` and exits 3.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .cli import (
    check_subject,
    conformance,
    fetch,
    findings,
    matrix,
    merge,
    oracles,
    report,
    reproduce,
    site,
)
from .cli.arguments import (
    DEFAULT_REPORT,
    MAX_WORKERS,
    MAX_WORKERS_PER_CORE,
    Parser,
    UsageError,
    at_least,
    cache_argument,
    shard,
    workers,
)
from .cli.conformance import report_path
from .core import interrupts
from .core.profiles import DEFAULT_PROFILE, PROFILES, profiles_help
from .core.resources import (
    use_cache_dir,
)


def _parser() -> Parser:
    parser = Parser(prog="python -m harness")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    conf = sub.add_parser("conformance", help="fuzz the reference against tokenizers",
                          epilog=profiles_help() + "\n\nexit status: 0 pass, 1 fail, 2 usage "
                          "error, 3 incomplete (a real model not run here:\n  its source "
                          "could not be had; python -m harness fetch), 130/143 interrupted",
                          formatter_class=argparse.RawDescriptionHelpFormatter)
    conf.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE,
                      help=f"the run's budgets (default {DEFAULT_PROFILE}; listed below)")
    conf.add_argument("--examples", type=at_least(1, "--examples"), default=None,
                      help="number of generated cases (default: the profile's)")
    conf.add_argument("--seed", type=at_least(0, "--seed"), default=0)
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
    conf.add_argument("--real-examples", type=at_least(-1, "--real-examples"), default=None,
                      help="Hypothesis texts per real-model fixture (default: the profile's; "
                      "-1 skips the real models)")
    conf.add_argument("--workers", type=workers, default=None,
                      help="processes running the run's fixed logical shards, witness "
                      "searches and real models (default: every core, one for a run of "
                      "under 100 generated cases; the report is the same whatever the number;"
                      f" at most {MAX_WORKERS_PER_CORE} per core and "
                      f"{MAX_WORKERS})")
    conf.add_argument("--shard", type=shard, default=None, metavar="I/N",
                      help="run job shard I of N only (N at most 16): its logical shards of "
                      "the exploration and its real models; `python -m harness merge` joins "
                      "the N reports into the whole run's")
    cache_argument(conf)
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
    cache_argument(fetch)

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
    orc.add_argument("--new-classes-only", action="store_true",
                     help="with --adopt-witnesses: pin only classes without a pinned "
                          "witness (the others keep theirs)")
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

    fnd = sub.add_parser("findings", help="run every reproducer of the subjects' findings "
                         "documents as written; exit 1 where one does not print what its "
                         "document says")
    fnd.add_argument("subjects", nargs="*", metavar="SUBJECT",
                     help="subjects whose FINDINGS.md to check (default: every one that has "
                     "one)")
    fnd.add_argument("--entry", action="append", default=None, metavar="ID",
                     help="only the findings of this entry (repeatable)")
    cache_argument(fnd)

    from .matrix.command import add_arguments as matrix_arguments

    matrix_command = sub.add_parser("matrix", help="run every registered subject side by side: "
                            "reports/matrix/<subject>.yaml and reports/matrix.yaml")
    matrix_arguments(matrix_command)
    cache_argument(matrix_command)
    # Listed for --help only: `bench` is dispatched before parsing (see main).
    sub.add_parser("bench", add_help=False,
                   help="benchmarks: the reference against tokenizers (encode, cost growth, "
                        "decode), the harness' throughput and peak memory "
                        "(python -m harness bench --help)")
    return parser


#: The command -> its function (``harness/cli/``); ``bench`` is dispatched before parsing.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "conformance": conformance.run, "merge": merge.run, "fetch": fetch.run,
    "findings": findings.run,
    "report": report.run, "reproduce": reproduce.run, "oracles": oracles.run,
    "site": site.run, "check-subject": check_subject.run, "matrix": matrix.run,
}

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
            report = report_path(_parser().parse_args(arguments))
        except UsageError:
            report = DEFAULT_REPORT
        return f"{report.as_posix()} was not written"
    if arguments[:1] == ["site"]:
        return "nothing was written (a previous site is left as it was)"
    return "nothing was written"


def _dispatch(arguments: list[str]) -> int:
    if arguments[:1] == ["bench"]:
        from .bench.runner import main as bench_main

        return bench_main(arguments[1:])
    args = _parser().parse_args(arguments)
    if getattr(args, "cache", None) is not None:
        use_cache_dir(args.cache)
    return COMMANDS[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
