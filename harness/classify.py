"""Classification: every divergence is intended (by named classes) or a failure.

The registry is ``harness/divergences.yaml``; each class names its predicate in
``harness/predicates.py`` and its decision record. For the ``spans`` tier a divergence may
need several classes at once (template specials and decorated byte pieces in one
sequence): it is intended only when the union of the positions the classes explain
covers every differing position.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml

from .case import Case
from .compare import Divergence
from .outcome import Encoded
from .predicates import ALL, REGISTRY, Context, Predicate

REGISTRY_FILE = Path(__file__).with_name("divergences.yaml")
REPO_ROOT = Path(__file__).resolve().parent.parent
Kind = Literal["strictness", "upstream-bug", "contract"]


@dataclass(frozen=True)
class DivergenceClass:
    id: str
    kind: Kind
    title: str
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


@dataclass(frozen=True)
class Verdict:
    """``classes`` empty means failure."""

    divergence: Divergence
    classes: tuple[str, ...]

    @property
    def is_failure(self) -> bool:
        return not self.classes


class RegistryError(Exception):
    """The registry file is inconsistent (a missing predicate or decision record)."""


@cache
def load_registry(path: Path = REGISTRY_FILE) -> tuple[DivergenceClass, ...]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
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
            raise RegistryError(f"{path}: class id {cls.id!r} appears twice")
        if cls.kind not in ("strictness", "upstream-bug", "contract"):
            raise RegistryError(f"{path}: class {cls.id!r} has unknown kind {cls.kind!r}")
        if cls.predicate_name not in REGISTRY:
            raise RegistryError(f"{path}: class {cls.id!r} names unknown predicate "
                                f"{cls.predicate_name!r} (define it in harness/predicates.py)")
        if not (REPO_ROOT / cls.decision).is_file():
            raise RegistryError(f"{path}: class {cls.id!r} cites missing decision record "
                                f"{cls.decision}")
        seen.add(cls.id)
        classes.append(cls)
    return tuple(classes)


def classify(case: Case, divergences: list[Divergence],
             registry: tuple[DivergenceClass, ...] | None = None) -> list[Verdict]:
    classes = registry if registry is not None else load_registry()
    ctx = Context(case)
    return [_classify_one(ctx, div, classes) for div in divergences]


def _classify_one(ctx: Context, div: Divergence,
                  classes: tuple[DivergenceClass, ...]) -> Verdict:
    candidates = [c for c in classes if div.tier in c.explains]
    if div.tier == "spans":
        return _classify_positions(ctx, div, candidates)
    for cls in candidates:
        if cls.predicate(ctx, div):
            return Verdict(div, (cls.id,))
    return Verdict(div, ())


def _classify_positions(ctx: Context, div: Divergence,
                        candidates: list[DivergenceClass]) -> Verdict:
    ref, up = div.observation.reference, div.observation.upstream
    assert isinstance(ref, Encoded) and isinstance(up, Encoded)
    differing = {i for i, (a, b) in enumerate(zip(ref.spans, up.spans, strict=True)) if a != b}
    explained: set[int] = set()
    used: list[str] = []
    for cls in candidates:
        positions = cls.predicate(ctx, div)
        if positions == ALL:
            positions = frozenset(differing)
        if positions:
            explained |= positions
            used.append(cls.id)
    if differing <= explained:
        return Verdict(div, tuple(used))
    return Verdict(div, ())
