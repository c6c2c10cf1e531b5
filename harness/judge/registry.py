"""The registry of intended divergence classes (``divergences.yaml`` beside this module):
each class's kind, title, decision record, upstream links, predicate and the tiers it may
explain. Declared once there; read and checked here."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

import yaml

from ..core.resources import data_dir
from .predicates import REGISTRY, Predicate

REGISTRY_FILE = "divergences.yaml"
Kind = Literal["strictness", "upstream-bug", "contract"]
KINDS: tuple[Kind, ...] = ("strictness", "upstream-bug", "contract")


@dataclass(frozen=True)
class DivergenceClass:
    id: str
    kind: Kind
    title: str
    #: The decision record, as a repository path (``docs/decisions/NNNN-....md``).
    decision: str
    upstream: tuple[str, ...]
    predicate_name: str
    explains: tuple[str, ...]
    why: str

    @property
    def predicate(self) -> Predicate:
        return REGISTRY[self.predicate_name]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "title": self.title,
                "decision": self.decision, "upstream": list(self.upstream), "why": self.why}


class RegistryError(Exception):
    """The registry file is inconsistent (a missing predicate or decision record)."""


def registry_text() -> str:
    return resources.files(__package__).joinpath(REGISTRY_FILE).read_text(encoding="utf-8")


@cache
def load_registry() -> tuple[DivergenceClass, ...]:
    where = f"harness/judge/{REGISTRY_FILE}"
    data = yaml.safe_load(registry_text())
    decisions = data_dir("decisions")
    classes: list[DivergenceClass] = []
    seen: set[str] = set()
    for entry in data["classes"]:
        cls = DivergenceClass(
            id=entry["id"], kind=entry["kind"], title=entry["title"],
            decision=entry["decision"], upstream=tuple(entry.get("upstream") or ()),
            predicate_name=entry["predicate"], explains=tuple(entry["explains"]),
            why=" ".join(str(entry["why"]).split()),
        )
        if cls.id in seen:
            raise RegistryError(f"{where}: class id {cls.id!r} appears twice")
        if cls.kind not in KINDS:
            raise RegistryError(f"{where}: class {cls.id!r} has unknown kind {cls.kind!r}")
        if cls.predicate_name not in REGISTRY:
            raise RegistryError(f"{where}: class {cls.id!r} names unknown predicate "
                                f"{cls.predicate_name!r} (define it in "
                                "harness/judge/predicates.py)")
        if not cls.decision.startswith("docs/decisions/") or not (
                decisions / cls.decision.removeprefix("docs/decisions/")).is_file():
            raise RegistryError(f"{where}: class {cls.id!r} cites missing decision record "
                                f"{cls.decision}")
        seen.add(cls.id)
        classes.append(cls)
    return tuple(classes)


def class_ids() -> tuple[str, ...]:
    return tuple(cls.id for cls in load_registry())
