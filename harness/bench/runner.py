"""Benchmarks: the reference against ``tokenizers`` 0.23.1, side by side, in one process.

    python -m harness bench [--scale full|tiny] [--repeats N] [--only SECTION,...]
                            [--output FILE | --write]

(``nox -s bench`` installs ``.[harness]`` and runs it). The figures are printed; ``--output``
writes them to a file, and only ``--write`` (a full run of every section) rewrites the
committed ``reports/bench.yaml``.
Every figure is measured several times and reported as min / median / max over the
repeats; ratios are reference time over upstream time, measured back to back on the same
inputs, so a busy machine slows both sides of one pair alike.

Each section is a module of this package; this one runs them and writes the report
(``reports/bench.yaml``; harness layers: decision
[0020](../../docs/decisions/0020-harness-layers-and-report-v2.md)). Benchmarks are not
tests: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from .acceptance import acceptance
from .decode import section_decode
from .encode import section_encode
from .environment import environment
from .figures import load_average, round_figure
from .growth import section_growth
from .jobs import section_jobs
from .long_words import section_long_words
from .memory import memory_child, section_memory
from .real_model_phase import section_real_models
from .scales import SCALES, Scale
from .stages import section_harness

#: The committed figures; written only with ``--write`` (else ``--output`` or stdout).
COMMITTED_OUTPUT = Path("reports") / "bench.yaml"
SECTIONS = ("encode", "growth", "long_words", "harness", "real_models", "decode", "memory",
            "jobs")

PREAMBLE = """\
Benchmarks: the reference tokenizer (implementation/) against HuggingFace tokenizers,
in one process, on the same inputs; written by `python -m harness bench` (nox -s bench).
Every figure: min / median / max over `repeats` runs. Times are wall-clock seconds
(time.perf_counter); ratio = reference time / upstream time, the two measured back to
back (so a busy machine slows both sides of a pair alike); rates per repeat (their max is
the fastest repeat, the one least disturbed by other work on the machine).
The machine's load average is recorded at the start and end of every section: figures
taken under load are slower, ratios much less so.
"""


SECTION_FUNCTIONS: dict[str, Callable[[Scale, list[str]], dict[str, Any]]] = {
    "encode": section_encode,
    "growth": section_growth,
    "long_words": section_long_words,
    "harness": section_harness,
    "real_models": section_real_models,
    "decode": section_decode,
    "memory": section_memory,
    "jobs": section_jobs,
}


def run(scale: Scale, sections: Sequence[str], command: str,
        progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    notes: list[str] = []
    report: dict[str, Any] = {"environment": environment(scale, command)}
    loads: dict[str, Any] = {"start": load_average()}
    for name in sections:
        if progress is not None:
            progress(name)
        before = load_average()
        started = time.perf_counter()
        report[name] = SECTION_FUNCTIONS[name](scale, notes)
        report[name]["section_seconds"] = round_figure(time.perf_counter() - started)
        loads[name] = {"start": before, "end": load_average()}
    loads["end"] = load_average()
    report["environment"]["load_average_1_5_15_min"] = loads
    report["acceptance"] = acceptance(report)
    report["notes"] = notes
    return report


def write(report: Mapping[str, Any], output: Path) -> None:
    from ..core.canonical import canonical_yaml, write_atomic

    write_atomic(output, canonical_yaml(dict(report), preamble=PREAMBLE))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scale", choices=sorted(SCALES), default="full",
                        help="how much work (tiny: seconds, for the smoke test)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="repeats of every timed figure (default: the scale's)")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections (default all: {','.join(SECTIONS)})")
    parser.add_argument("--output", type=Path, default=None,
                        help="write the figures here (default: print them)")
    parser.add_argument("--write", action="store_true",
                        help=f"write the committed figures, {COMMITTED_OUTPUT} (only a full-"
                             "scale run of every section may)")
    parser.add_argument("--harness-examples", type=int, default=None,
                        help="cases per harness exploration (default: the scale's; full: "
                             "the default profile's budget)")
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--memory-examples", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--memory-real-examples", type=int, default=-1,
                        help=argparse.SUPPRESS)


def run_cli(args: argparse.Namespace) -> int:
    if args.memory_child:
        print(json.dumps(memory_child(args.memory_examples, args.memory_real_examples, 0)))
        return 0
    scale = SCALES[args.scale]
    if args.repeats is not None:
        scale = replace(scale, repeats=args.repeats)
    if args.harness_examples is not None:
        scale = replace(scale, harness_examples=args.harness_examples)
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = [s for s in sections if s not in SECTIONS]
    if unknown:
        print(f"unknown section(s) {unknown}; expected some of {list(SECTIONS)}",
              file=sys.stderr)
        return 2
    command = "python -m harness bench " + " ".join(
        ["--scale", scale.name]
        + (["--repeats", str(args.repeats)] if args.repeats is not None else [])
        + (["--harness-examples", str(args.harness_examples)]
           if args.harness_examples is not None else [])
        + (["--only", ",".join(sections)] if tuple(sections) != SECTIONS else []))

    def progress(section: str) -> None:
        print(f"bench: {section} ...", file=sys.stderr, flush=True)

    if args.write and (scale.name != "full" or tuple(sections) != SECTIONS
                       or args.output is not None):
        print("--write rewrites the committed reports/bench.yaml: only with the full scale, "
              "every section and no --output", file=sys.stderr)
        return 2
    report = run(scale, sections, command, progress)
    output = COMMITTED_OUTPUT if args.write else args.output
    if output is not None:
        write(report, output)
    else:
        from ..core.canonical import canonical_yaml

        sys.stdout.write(canonical_yaml(dict(report), preamble=PREAMBLE))
    for line in headline(report):
        print(line, file=sys.stderr if output is None else sys.stdout)
    if output is not None:
        print(f"report: {output}")
    return 0


def headline(report: Mapping[str, Any]) -> list[str]:
    """One line per acceptance figure, and the load."""
    lines = [f"{name}: {entry['value']} (limit {entry['limit']}: "
             f"{'met' if entry['met'] else 'NOT met'})"
             for name, entry in report.get("acceptance", {}).items()]
    loads = report["environment"]["load_average_1_5_15_min"]
    lines.append(f"load average: start {loads['start']}, end {loads['end']}")
    lines.extend(f"note: {note}" for note in report.get("notes", []))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness bench",
                                     description=__doc__.split("\n")[0] if __doc__ else None)
    add_arguments(parser)
    return run_cli(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
