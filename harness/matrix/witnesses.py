"""Every pinned witness the matrix transplants: our intended classes'
(``oracles/divergences.json``, source ``reference``) and each registered subject's
``witnesses.json``, in one stable order (decision 0037)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..core.resources import data_file
from ..runs.pinned import PINNED_WITNESSES_NAME, pinned_rows
from ..subjects import registry

REFERENCE = "reference"


@dataclass(frozen=True)
class Pinned:
    """One pinned witness: where it comes from, the entry it pins, its case."""

    source: str
    entry: str
    witness: str
    case: dict[str, Any]

    @property
    def id(self) -> str:
        return f"{self.source}/{self.entry}"


def all_witnesses() -> list[Pinned]:
    """Every pinned witness, by source then witness id (one per source and entry: the
    first the file lists)."""
    found: dict[str, Pinned] = {}
    sources: list[tuple[str, list[dict[str, Any]]]] = [
        (REFERENCE, pinned_rows(data_file("oracles", PINNED_WITNESSES_NAME)))]
    for name, entry in sorted(registry.registered().items()):
        file = entry.file(registry.WITNESSES)
        if file is not None:
            sources.append((name, list(json.loads(file.read_text("utf-8")).get("cases", []))))
    for source, rows in sources:
        for row in rows:
            pinned = Pinned(source, str(row["class"]), str(row["id"]), row["case"])
            found.setdefault(pinned.id, pinned)
    return sorted(found.values(), key=lambda p: (p.source != REFERENCE, p.source, p.entry))
