"""``python -m harness.mutation --module M --sample N [--seed S]``: the mutation campaign.

Runs a seeded sample of Cosmic Ray's mutants of each named module of implementation/
(``--module all``: every module of ``report.CAMPAIGN_MODULES``), up to ``--jobs`` modules
at a time, each killed by a short harness run (``killer.py``), and merges their sections
into ``--report`` (reports/mutation-campaign.yaml) as each completes. A usage error is
one line, exit 2; Ctrl-C/SIGTERM end every child and write nothing more (the sections of
modules already complete stay written). Decision 0046.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness.core import interrupts
from harness.mutation import killer, report, tool
from harness.mutation.triage import Triage, TriageError

ROOT = Path(__file__).resolve().parents[2]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m harness.mutation",
                                     description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--retriage", action="store_true",
                        help="apply the current triage file to --report's survivors "
                             "and rewrite it (runs nothing)")
    parser.add_argument("--module", action="append", default=[],
                        help="a module of implementation/ (repeatable), or 'all'")
    parser.add_argument("--sample", type=int, default=40, help="mutants per module (40)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (0)")
    parser.add_argument("--examples", type=int, default=killer.EXAMPLES,
                        help=f"generated cases per killer run ({killer.EXAMPLES})")
    parser.add_argument("--jobs", type=int, default=1, help="modules at a time (1)")
    parser.add_argument("--report", type=Path, default=Path("reports/mutation-campaign.yaml"))
    return parser


def _usage(message: str) -> int:
    sys.stderr.write(f"python -m harness.mutation: {message}\n")
    return 2


def _retriage(path: Path) -> int:
    from harness.core.canonical import read_yaml

    try:
        triage = Triage()
        data = read_yaml(path)
        modules = data["modules"]
        tool_name = data["tool"]
    except (OSError, TriageError, KeyError, TypeError) as exc:
        return _usage(f"--retriage {path}: {exc}")
    sections = {name: report.retriaged(section, triage, name)
                for name, section in modules.items()}
    report.write(path, sections, tool_name)
    print("\n".join(report.lines(list(sections.items()))))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.retriage:
        return _retriage(args.report)
    if not args.module:
        return _usage("--module M is required (or --retriage)")
    modules = list(report.CAMPAIGN_MODULES) if "all" in args.module else args.module
    unknown = [m for m in modules if m not in killer.NARROWING]
    if unknown:
        return _usage(f"--module {unknown[0]}: not a module the killer narrows to "
                      f"(one of {', '.join(sorted(killer.NARROWING))}, or all)")
    if args.sample < 1 or args.jobs < 1 or args.examples < 1:
        return _usage("--sample, --examples and --jobs take a positive number")
    if not (ROOT / "implementation").is_dir():
        return _usage(f"no implementation/ beside the harness at {ROOT} (run from a checkout)")
    try:
        triage = Triage()
        command = tool.cosmic_ray_command()
    except (TriageError, tool.ToolError) as exc:
        return _usage(str(exc))
    interrupts.install()
    sections: dict[str, dict[str, Any]] = {}
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    try:
        futures: dict[str, Future[tool.Campaign]] = {
            module: pool.submit(tool.run_module, ROOT, module, size=args.sample, seed=args.seed,
                                killer=[sys.executable, "-m", "harness.mutation.killer",
                                 "--module", module, "--examples", str(args.examples)],
                                tool=command)
            for module in modules}
        for module, future in futures.items():
            campaign = future.result()
            settings = {"profile": killer.PROFILE, "seed": killer.SEED,
                        "examples": args.examples, "real_models": False, "shrink": False,
                        "morph_track": module in killer.MORPH_TRACK,
                        "narrowing": {k: list(v) if isinstance(v, tuple) else v
                                      for k, v in killer.NARROWING[module].items()}}
            sections[module] = report.module_section(
                ROOT, module, campaign, triage, sample=args.sample, seed=args.seed,
                killer=settings)
            report.write(args.report, {module: sections[module]}, tool.COSMIC_RAY)
            print(report.lines([(module, sections[module])])[0], flush=True)
    except interrupts.Interrupted as stop:
        tool.end_children()
        pool.shutdown(wait=True, cancel_futures=True)
        sys.stderr.write(f"python -m harness.mutation: stopped by {stop}; nothing written\n")
        return stop.exit_status
    except tool.ToolError as exc:
        tool.end_children()
        pool.shutdown(wait=True, cancel_futures=True)
        sys.stderr.write(f"python -m harness.mutation: {exc}\n")
        return 1
    pool.shutdown(wait=True)
    print(f"wrote {args.report} ({len(sections)} module(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
