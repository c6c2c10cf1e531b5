"""Reach: how much of each semantic module of ``implementation/`` one harness run
exercises, as coverage.py measures it under ``--branch`` (statements and branches
together, its usual figure).

``python -m harness conformance --reach`` measures the run it makes (one process: the
harness alone, no unit tests) with ``ReachMeter``, prints the table and records it in the
report (``coverage.reach``); ``nox -s coverage`` runs exactly that. Lines no generated
input can reach are excluded in the source with a ``# pragma: no cover`` comment saying
why.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

#: The modules of implementation/ that carry the tokenizer's behaviour.
SEMANTIC_MODULES = ("bpe", "bpe_loader", "tokenizer", "added_vocabulary", "normalizers",
                    "pre_tokenizers", "decoders", "post_processors", "patterns", "alignment",
                    "encoding", "byte_level", "unicode_forms", "split", "oniguruma",
                    "metaspace")
#: Branch coverage each must reach, in percent.
TARGET = 95.0


class ReachUnavailableError(RuntimeError):
    """coverage.py is not installed here."""


@dataclass(frozen=True)
class Reach:
    module: str
    branches: int
    covered_branches: int
    statements: int
    covered_statements: int

    @property
    def percent(self) -> float:
        """coverage.py's figure under ``--branch``: statements and branches together."""
        total = self.statements + self.branches
        covered = self.covered_statements + self.covered_branches
        return 100.0 * covered / total if total else 100.0

    @property
    def meets_target(self) -> bool:
        return self.percent >= TARGET


def reach_from_json(data: dict[str, Any]) -> list[Reach]:
    """Each semantic module's reach from coverage.py's JSON report (a module the run never
    imported counts as reached nowhere only if coverage.py lists it; see ``missing``)."""
    found: dict[str, Reach] = {}
    for path, entry in data.get("files", {}).items():
        name = Path(path).stem
        if Path(path).parent.name != "implementation" or name not in SEMANTIC_MODULES:
            continue
        summary = entry["summary"]
        found[name] = Reach(name, summary.get("num_branches", 0),
                            summary.get("covered_branches", 0), summary["num_statements"],
                            summary["covered_lines"])
    return [found[m] for m in SEMANTIC_MODULES if m in found]


def missing(reach: list[Reach]) -> list[str]:
    """Semantic modules the measure does not name (never imported by the run)."""
    named = {r.module for r in reach}
    return [m for m in SEMANTIC_MODULES if m not in named]


def table(reach: list[Reach]) -> list[str]:
    """The printed table: one line per module against the target."""
    lines = [f"{'module':<18} {'statements':>11} {'branches':>11} {'cover':>7}  "
             f"target {TARGET:.0f}%"]
    for r in reach:
        lines.append(f"{r.module:<18} {r.covered_statements:>5}/{r.statements:<5} "
                     f"{r.covered_branches:>5}/{r.branches:<5} {r.percent:>6.1f}%  "
                     f"{'ok' if r.meets_target else 'SHORT'}")
    absent = missing(reach)
    if absent:
        lines.append(f"not measured: {', '.join(absent)}")
    return lines


class ReachMeter:
    """coverage.py over ``implementation/`` from ``start`` (or a ``with`` block) to ``stop``;
    ``reach`` then holds each semantic module's figure. Measures this process only, and
    must start before ``implementation`` is imported (its module-level lines count)."""

    def __init__(self) -> None:
        try:
            import coverage
        except ImportError:
            raise ReachUnavailableError("--reach needs coverage.py: pip install coverage (nox -s "
                                   "coverage installs it)") from None
        import importlib.util
        import sys

        # Imported under the measure, or its module-level lines would count as missed.
        if any(name == "implementation" or name.startswith("implementation.")
               for name in sys.modules):
            raise RuntimeError("ReachMeter must start before implementation/ is imported")
        spec = importlib.util.find_spec("implementation")
        assert spec is not None and spec.origin is not None
        source = str(Path(spec.origin).resolve().parent)
        self._coverage = coverage.Coverage(data_file=None, branch=True, source=[source])
        self.reach: list[Reach] = []

    def start(self) -> None:
        self._coverage.start()

    def stop(self) -> None:
        """Stop measuring and compute ``reach``."""
        self._coverage.stop()
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "reach.json"
            self._coverage.json_report(outfile=str(out))
            self.reach = reach_from_json(json.loads(out.read_text(encoding="utf-8")))

    def __enter__(self) -> ReachMeter:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if kind is not None:
            self._coverage.stop()
            return
        self.stop()
