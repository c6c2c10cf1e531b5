"""Replay every pinned witness (``witnesses``) against one subject, in this process:
``python -m harness.matrix.transplant SPEC OUT.json`` writes, per witness, whether the
subject diverges from upstream there, the grade of its first divergence and the subject's
own entries that explain it. The matrix runs it once per subject, in the subject's own
child (decision 0037); a subject that crashes on a witness is restarted by its process
handle and the witness is graded by the crash.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.canonical import canonical_json, write_atomic
from ..core.case import Case
from ..core.outcome import outcome_to_json
from ..judge.classify import Judgement
from ..judge.compare import DECLINED
from ..site.severity import derive
from .witnesses import REFERENCE, all_witnesses


def evaluator(spec: str) -> tuple[Callable[[Case], tuple[Any, Judgement]], str, str]:
    """The case evaluator of ``spec``, its name and its version."""
    if spec == REFERENCE:
        from ..runs.generated import evaluate
        from ..subjects.reference import subject

        return evaluate, REFERENCE, subject().version()
    from ..runs.third_party import engine_for

    wired = engine_for(spec)
    return wired.engine.evaluate, wired.subject.name, wired.subject.version()


def replay(spec: str) -> dict[str, Any]:
    """What the subject ``spec`` shows on every pinned witness."""
    evaluate, name, version = evaluator(spec)
    rows: dict[str, Any] = {}
    for pinned in all_witnesses():
        try:
            _, judgement = evaluate(Case.from_json(pinned.case))
        except Exception as exc:  # a harness error on a foreign witness: not judged here
            rows[pinned.id] = {"result": "not-run", "why": f"{type(exc).__name__}: {exc}"[:200]}
            continue
        declined = sum(tier == DECLINED for _, tier in judgement.skipped)
        if not judgement.verdicts and declined:  # a lineage oracle cannot say it: no answer
            rows[pinned.id] = {"result": "not-run", "why": f"the subject declined {declined}"
                               " operation(s) as not expressible in its format (decision "
                               "0040)"}
            continue
        if not judgement.verdicts:
            rows[pinned.id] = {"result": "agrees"}
            continue
        first = judgement.verdicts[0].divergence
        obs = first.observation
        grade, _ = derive(obs.operation, first.tier, outcome_to_json(obs.subject),
                          outcome_to_json(obs.upstream))
        explained = sorted({c for v in judgement.verdicts for c in v.classes})
        rows[pinned.id] = {"result": "shown", "grade": grade, "explained_by": explained}
    return {"subject": name, "version": version, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.matrix.transplant")
    parser.add_argument("spec")
    parser.add_argument("output", type=Path)
    args = parser.parse_args(argv)
    write_atomic(args.output, canonical_json(replay(args.spec)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
