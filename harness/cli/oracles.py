"""``python -m harness oracles``: regenerate ``oracles/*.json``, ``--check`` them, adopt
witnesses, write the drift report (``harness/oracles/``; decision
[0013](../../docs/decisions/0013-tests-session-installs-tokenizers.md))."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core import interrupts
from .arguments import UsageError, read_report


def run(args: argparse.Namespace) -> int:
    root: Path = args.root
    if not (root / "oracles").is_dir():
        raise UsageError(f"--root {root}: no oracles/ folder there (run from the repository)")
    if args.reference is not None:  # before anything costly (tokenizers' import included)
        from ..subjects.tokenizers_version import index

        try:
            index.check(args.reference)
        except index.VersionError as exc:
            raise UsageError(str(exc)) from None
    from ..core.canonical import canonical_json, write_atomic
    from ..oracles import drift, generation, layout, witnesses
    from ..subjects import upstream

    installed = upstream.version()
    if args.reference is not None and args.reference.strip() != installed:
        raise UsageError(f"tokenizers {installed} is installed, not {args.reference}: run "
                         f"nox -s oracles -- --reference {args.reference}")
    if args.check:
        if installed != layout.PINNED_VERSION:
            raise UsageError(f"--check regenerates with the pinned tokenizers "
                             f"{layout.PINNED_VERSION}; {installed} is installed (run nox "
                             "-s oracles -- --check)")
        problems = drift.check(root, generation.generate_all(root))
        for line in problems:
            print(f"  STALE {line}")
        print(f"oracles: {'stale' if problems else 'up to date'} "
              f"(regenerated with tokenizers {installed})")
        if problems:
            print(f"regenerate: {layout.generator_command(installed)}")
        return 1 if problems else 0
    if args.adopt_witnesses is not None:
        from ..oracles.subjects import adopt_subject_witnesses

        try:
            if read_report(args.adopt_witnesses).subject is not None:
                target, data, notes = adopt_subject_witnesses(
                    args.adopt_witnesses, root, args.adopt_witnesses.as_posix())
            else:
                data, notes = witnesses.adopt_witnesses(
                    args.adopt_witnesses, root, args.adopt_witnesses.as_posix(),
                    new_classes_only=args.new_classes_only)
                target = layout.oracle_path(root, layout.DIVERGENCES)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        interrupts.check()
        write_atomic(target, canonical_json(data))
        for note in notes:
            print(f"  {note}")
        print(f"{len(data['cases'])} pinned witnesses: {target}")
        return 0
    generated = generation.generate_all(root)
    report = drift.drift(root, generated)
    old = report.header.from_version
    upgrade = old not in ("none", installed)
    drifted = report.verdict == "drift"
    interrupts.check()
    if upgrade or drifted:
        path = drift.write_drift_report(root, report)
        counts = ", ".join(f"{k.replace('_', ' ')}: {v}"
                           for k, v in vars(report.summary).items())
        print(f"tokenizers {old} -> {installed}: {report.verdict} ({counts})")
        print(f"drift report: {path}")
    if args.accept or not (upgrade or drifted):
        written = generation.write_generated(root, generated)
        print(f"oracles regenerated with tokenizers {installed}: "
              f"{len(written)} file(s) written" + "".join(f"\n  {p}" for p in written))
    else:
        print("the committed oracles are left as they are (--accept writes them)")
    return 1 if drifted and not args.accept else 0
