"""The pinned witnesses (``oracles/divergences.json``): each is re-run, and a class whose
witness no longer shows it is stale (upstream fixed it, or our rule changed). A pinned
witness that still shows its class is that class's witness in the report unless the run
met a smaller one, so the run searches no fresh witness for it
(docs/decisions/0029-pinned-witnesses-first.md)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core import interrupts
from ..core.case import Case
from ..core.resources import data_file
from ..judge.classify import Judgement
from .generated import evaluate
from .tally import Witness, case_size

PINNED_WITNESSES_NAME = "divergences.json"


@dataclass(frozen=True)
class Stale:
    id: str
    class_id: str
    now: tuple[str, ...]  # the classes the witness shows today (empty: no divergence)


@dataclass
class PinnedCheck:
    """What re-running the pinned witnesses found: the stale rows, and for every class whose
    pinned witness still shows it, the smallest such witness."""

    stale: list[Stale] = field(default_factory=list)
    witnesses: dict[str, Witness] = field(default_factory=dict)


def recheck(rows: Iterable[dict[str, Any]],
            evaluate_case: Callable[[Case], tuple[Any, Judgement]],
            keep: Callable[[str], bool] = lambda _: True) -> PinnedCheck:
    """Re-run each pinned row (``{"id", "class", "case"}``) with ``evaluate_case``; rows
    whose class ``keep`` refuses are skipped."""
    check = PinnedCheck()
    for row in rows:
        interrupts.check()
        cls = row["class"]
        if not keep(cls):
            continue
        case = Case.from_json(row["case"])
        _, judgement = evaluate_case(case)
        showing = [v for v in judgement.verdicts if cls in v.classes]
        if not showing:
            classes = {c for v in judgement.verdicts for c in v.classes}
            check.stale.append(Stale(row["id"], cls, tuple(sorted(classes))))
            continue
        verdict = showing[0]
        size = case_size(case)
        held = check.witnesses.get(cls)
        if held is None or size < held.size:
            check.witnesses[cls] = Witness(case, verdict.divergence, verdict.classes, size,
                                           shrunk=True, detail=verdict.divergence.detail)
    return check


def pinned_rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8")).get("cases", [])
    return rows


def check_pinned(path: Path | None = None) -> PinnedCheck:
    """Our reference's pinned witnesses, re-run."""
    path = path if path is not None else data_file("oracles", PINNED_WITNESSES_NAME)
    return recheck(pinned_rows(path), evaluate)


def check_pinned_witnesses(path: Path | None = None) -> list[Stale]:
    return check_pinned(path).stale
