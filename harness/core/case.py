"""A generated case: one whole tokenizer.json and the inputs to run through it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    document: dict[str, Any]
    texts: tuple[str, ...] = ()
    id_runs: tuple[tuple[int, ...], ...] = ()
    pairs: tuple[tuple[str, str], ...] = field(default=())
    #: The document's canonical text when the caller has it already (a real file's
    #: document is megabytes: serialized once per file, not once per row).
    text: str | None = field(default=None, compare=False, repr=False)

    def document_json(self) -> str:
        """The tokenizer.json exactly as both subjects receive it (canonical, compact);
        serialized once per case."""
        if self.text is None:
            object.__setattr__(self, "text", json.dumps(
                self.document, ensure_ascii=False, sort_keys=True, separators=(",", ":")))
        assert self.text is not None
        return self.text

    def to_json(self) -> dict[str, Any]:
        return {
            "document": self.document,
            "texts": list(self.texts),
            "id_runs": [list(r) for r in self.id_runs],
            "pairs": [list(p) for p in self.pairs],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | str) -> Case:
        """From ``to_json()``'s dict, or that dict as JSON text."""
        if isinstance(data, str):
            data = json.loads(data)
            assert isinstance(data, dict)
        return cls(
            document=data["document"],
            texts=tuple(data.get("texts", ())),
            id_runs=tuple(tuple(r) for r in data.get("id_runs", ())),
            pairs=tuple((a, b) for a, b in data.get("pairs", ())),
        )
