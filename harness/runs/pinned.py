"""The pinned witnesses (``oracles/divergences.json``): each is re-run, and a class whose
witness no longer shows it is stale (upstream fixed it, or our rule changed)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..core import interrupts
from ..core.case import Case
from ..core.resources import data_file
from .generated import evaluate

PINNED_WITNESSES_NAME = "divergences.json"


@dataclass(frozen=True)
class Stale:
    id: str
    class_id: str
    now: tuple[str, ...]  # the classes the witness shows today (empty: no divergence)


def check_pinned_witnesses(path: Path | None = None) -> list[Stale]:
    path = path if path is not None else data_file("oracles", PINNED_WITNESSES_NAME)
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    stale: list[Stale] = []
    for row in data.get("cases", []):
        interrupts.check()
        _, judgement = evaluate(Case.from_json(row["case"]))
        classes = {c for v in judgement.verdicts for c in v.classes}
        if row["class"] not in classes:
            stale.append(Stale(row["id"], row["class"], tuple(sorted(classes))))
    return stale
