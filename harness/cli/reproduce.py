"""``python -m harness reproduce REPORT``: re-run one witness of a report (a failure, a
class, or a subject's pinned witness) and print both sides (decision
[0029](../../docs/decisions/0029-pinned-witnesses-first.md))."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from .arguments import UsageError, read_report
from .subject import start_subject


def run(args: argparse.Namespace) -> int:
    from ..report.reproduce import print_document
    from ..runs.generated import evaluate

    report = read_report(args.report)
    if args.pinned:
        case = pinned_case(report, args.report, args.class_id)
    else:
        case = witness_case(report, args.report, failure=args.failure,
                             class_id=args.class_id)
    print_document(case.document)
    if report.subject is not None:
        from ..runs.third_party import engine_for, run_of, split_spec

        info = report.subject
        run = start_subject(*split_spec(run_of(info.spec, info.name, info.expectations)))
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


def witness_case(report: Any, path: Path, *, failure: str | None,
                  class_id: str | None) -> Any:
    """The witness case of one failure (``F1``...) or one class of a report."""
    from ..core.case import Case

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


def pinned_case(report: Any, path: Path, class_id: str | None) -> Any:
    """The pinned witness of one entry of the report's subject."""
    from ..core.case import Case
    from ..runs.third_party import read_named, witnesses_beside

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
