"""``Case``: one generated tokenizer.json with the inputs to run through it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


def canonical_json(value: Any) -> str:
    """Sorted keys, non-ASCII kept, no whitespace."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Case:
    document: dict[str, Any]                 # a whole tokenizer.json
    texts: tuple[str, ...]                   # 1..6 texts to encode
    id_runs: tuple[tuple[int, ...], ...]     # raw id sequences to decode
    pairs: tuple[tuple[str, str], ...] = ()  # pair inputs for the template's pair form

    def document_json(self) -> str:
        """The tokenizer.json text (canonical), what a subject's ``load`` takes."""
        return canonical_json(self.document)

    def to_dict(self) -> dict[str, Any]:
        """The whole case as a JSON-ready dict."""
        return {
            "document": self.document,
            "texts": list(self.texts),
            "id_runs": [list(run) for run in self.id_runs],
            "pairs": [list(pair) for pair in self.pairs],
        }

    def to_json(self) -> str:
        """The whole case, canonical: sort_keys, ensure_ascii=False, compact."""
        return canonical_json(self.to_dict())

    @classmethod
    def from_json(cls, source: str | dict[str, Any]) -> Case:
        """From ``to_json()`` text or a ``to_dict()`` dict."""
        data = json.loads(source) if isinstance(source, str) else source
        return cls(
            document=data["document"],
            texts=tuple(data["texts"]),
            id_runs=tuple(tuple(run) for run in data["id_runs"]),
            pairs=tuple((a, b) for a, b in data.get("pairs", [])),
        )
