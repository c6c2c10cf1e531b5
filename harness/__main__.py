"""``python -m harness conformance | reproduce | oracles | report | bench``."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from .profiles import DEFAULT_PROFILE, PROFILES

DEFAULT_REPORT = Path("reports/conformance.yaml")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness")
    sub = parser.add_subparsers(dest="command", required=True)

    conf = sub.add_parser("conformance", help="fuzz the reference against tokenizers")
    conf.add_argument("--profile", choices=sorted(PROFILES), default=DEFAULT_PROFILE)
    conf.add_argument("--examples", type=int, default=None,
                      help="number of generated cases (default: the profile's)")
    conf.add_argument("--seed", type=int, default=0)
    conf.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    conf.add_argument("--real-examples", type=int, default=None,
                      help="Hypothesis texts per real-model fixture (default: the profile's; "
                      "-1 skips the real models)")
    conf.add_argument("--workers", type=int, default=1,
                      help="processes: the exploration is sharded by seed across them, the "
                      "witness searches and real models spread over them (default 1)")
    conf.add_argument("--no-database", action="store_true",
                      help="neither replay nor store failing cases in the example database "
                      "(.hypothesis/conformance, or Redis when HYPOTHESIS_REDIS_URL is set)")

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

    # Listed for --help only: `bench` is dispatched before parsing (see below).
    sub.add_parser("bench", add_help=False,
                   help="benchmarks: the reference against tokenizers (encode, cost growth, "
                        "decode), the harness' throughput and peak memory -> "
                        "reports/bench.yaml (python -m harness bench --help)")

    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["bench"]:
        # harness.bench is imported for this command only: Hypothesis mixes constants from
        # every loaded module of this repository into what it generates, so loading it in
        # a conformance run would change the cases a seed explores.
        from .bench import main as bench_main

        return bench_main(arguments[1:])
    args = parser.parse_args(arguments)
    if args.command == "conformance":
        return _conformance(args)
    if args.command == "oracles":
        return _oracles(args)
    if args.command == "report":
        return _report(args)
    return _reproduce(args)


def _conformance(args: argparse.Namespace) -> int:
    from . import parallel
    from .conformance import run
    from .reports import write_report

    command = "python -m harness conformance " + shlex.join(
        ["--profile", args.profile, "--seed", str(args.seed)]
        + (["--examples", str(args.examples)] if args.examples is not None else [])
        + (["--real-examples", str(args.real_examples)]
           if args.real_examples is not None else [])
        + (["--workers", str(args.workers)] if args.workers != 1 else []))
    database = None if args.no_database else parallel.example_database()
    budget = args.examples if args.examples is not None else PROFILES[args.profile].examples
    line = ProgressLine(budget)
    try:
        result = run(profile_name=args.profile, seed_value=args.seed, examples=args.examples,
                     command=command, real_examples=args.real_examples,
                     workers=args.workers, database=database,
                     progress=line if line.enabled else None,
                     phase=line.phase)
    finally:
        line.close()
    write_report(result, args.report)
    stats = result.stats
    rate = stats.comparisons / max(result.explore_seconds, 1e-9)
    workers = f" by {args.workers} workers" if args.workers > 1 else ""
    print(f"{stats.examples} cases, {stats.comparisons} comparisons explored{workers} in "
          f"{result.explore_seconds:.1f}s ({rate:.0f} comparisons/s); "
          f"{result.duration:.1f}s in all with shrinking")
    if database is not None:
        print(f"example database: {parallel.describe_database(database)}; "
              f"{result.replayed} stored failing case(s) replayed, "
              f"{len(stats.failure_witness)} failure witness(es) stored")
    print(f"intended divergences: {sum(stats.by_class.values())} "
          f"in {len(stats.by_class)} classes; failures: {sum(stats.failures.values())}")
    for sig, count in sorted(stats.failures.items()):
        print(f"  FAILURE x{count}: {sig}")
    for fixture in result.real_models:
        print(f"  real model {fixture.name}: {fixture.corpus_texts} corpus + "
              f"{fixture.generated_texts} generated texts, {fixture.comparisons} comparisons, "
              f"failures {sum(fixture.failures.values())}")
    for stale in result.stale:
        print(f"  STALE pinned witness {stale['id']} ({stale['class']}): now {stale['now']}")
    print(f"report: {args.report}")
    return 1 if result.failed else 0


class ProgressLine:
    """One self-rewriting status line on a terminal; nothing at all anywhere else.

    Called with the running ``Stats`` (examples done, comparisons/s, failures so far) and
    told of later phases by ``phase``. In CI logs (standard error not a terminal) it stays
    silent and the summary printed at the end is all there is.
    """

    def __init__(self, total: int, stream: TextIO | None = None,
                 interval: float = 0.2) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty()
        self.total = total
        self.interval = interval
        self.started = time.monotonic()
        self.last = float("-inf")
        self.dirty = False

    def __call__(self, stats: Any) -> None:
        now = time.monotonic()
        if not self.enabled or (now - self.last < self.interval
                                and stats.examples < self.total):
            return
        self.last = now
        rate = stats.comparisons / max(now - self.started, 1e-9)
        self._write(f"explore: {stats.examples}/{self.total} cases, {stats.comparisons} "
                    f"comparisons, {rate:.0f} comparisons/s, "
                    f"{sum(stats.failures.values())} failures so far")

    def phase(self, text: str) -> None:
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


def _report(args: argparse.Namespace) -> int:
    from .canonical import read_yaml, write_atomic
    from .markdown import render

    report = read_yaml(args.report)
    against = read_yaml(args.against) if args.against is not None else None
    text = render(report, against=against, against_name=(
        args.against.as_posix() if args.against is not None else None),
        link_base=args.link_base)
    if args.output is not None:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


def _oracles(args: argparse.Namespace) -> int:
    from . import oracles
    from .canonical import canonical_json, write_atomic
    from .subjects import upstream

    root: Path = args.root
    installed = upstream.version()
    if args.reference is not None and args.reference != installed:
        print(f"tokenizers {installed} is installed, not {args.reference}: run "
              f"nox -s oracles -- --reference {args.reference}", file=sys.stderr)
        return 2
    if args.check:
        if installed != oracles.PINNED_VERSION:
            print(f"--check regenerates with the pinned tokenizers {oracles.PINNED_VERSION}; "
                  f"{installed} is installed (run nox -s oracles -- --check)", file=sys.stderr)
            return 2
        problems = oracles.check(root, oracles.generate_all(root))
        for line in problems:
            print(f"  STALE {line}")
        print(f"oracles: {'stale' if problems else 'up to date'} "
              f"(regenerated with tokenizers {installed})")
        if problems:
            print(f"regenerate: {oracles.generator_command(installed)}")
        return 1 if problems else 0
    if args.adopt_witnesses is not None:
        data, notes = oracles.adopt_witnesses(args.adopt_witnesses, root,
                                              args.adopt_witnesses.as_posix())
        target = oracles.oracle_path(root, oracles.DIVERGENCES)
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


def _reproduce(args: argparse.Namespace) -> int:
    from .conformance import evaluate
    from .reports import case_from_report

    case = case_from_report(args.report, failure=args.failure, class_id=args.class_id)
    print("tokenizer.json:")
    print(case.document_json())
    observations, verdicts = evaluate(case)
    for verdict in verdicts:
        obs = verdict.divergence.observation
        label = ", ".join(verdict.classes) if verdict.classes else "FAILURE"
        print(f"\n[{label}] {obs.track} {obs.operation} tier={verdict.divergence.tier}")
        print(f"  input:     {json.dumps(obs.input, ensure_ascii=False)} {dict(obs.options)}")
        data = obs.to_json()
        print(f"  reference: {json.dumps(data['reference'], ensure_ascii=False)}")
        print(f"  upstream:  {json.dumps(data['upstream'], ensure_ascii=False)}")
    print(f"\n{len(observations)} comparisons, {len(verdicts)} divergences, "
          f"{sum(v.is_failure for v in verdicts)} failures")
    return 1 if any(v.is_failure for v in verdicts) else 0


if __name__ == "__main__":
    sys.exit(main())
