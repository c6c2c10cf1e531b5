"""Reach: how much of each semantic module of ``implementation/`` one harness run
exercises, as coverage.py measures it under ``--branch`` (statements and branches
together, its usual figure; ``nox -s coverage``).

``python -m harness.runs.reach COVERAGE_JSON`` reads the JSON report of ``coverage json``
taken over a run of the harness alone (no unit tests) and prints, per module, the branches
taken, the branch coverage and whether it meets the target; it exits non-zero when a module
falls short. Lines no generated input can reach are excluded in the source with a
``# pragma: no cover`` comment saying why.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The modules of implementation/ that carry the tokenizer's behaviour.
SEMANTIC_MODULES = ("bpe", "tokenizer", "added_vocabulary", "normalizers", "pre_tokenizers",
                    "decoders", "post_processors", "patterns", "alignment", "encoding",
                    "byte_level", "unicode_forms", "split", "oniguruma")
#: Branch coverage each must reach, in percent.
TARGET = 95.0


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


def reach_from_json(data: dict[str, Any]) -> list[Reach]:
    """Each semantic module's reach from coverage.py's JSON report."""
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="branch coverage of implementation/'s "
                                                 "semantic modules from one harness run")
    parser.add_argument("coverage_json", type=Path)
    parser.add_argument("--target", type=float, default=TARGET)
    args = parser.parse_args(argv)
    reach = reach_from_json(json.loads(args.coverage_json.read_text(encoding="utf-8")))
    short = 0
    print(f"{'module':<18} {'statements':>11} {'branches':>11} {'cover':>7}  "
          f"target {args.target:.0f}%")
    for r in reach:
        ok = r.percent >= args.target
        short += not ok
        print(f"{r.module:<18} {r.covered_statements:>5}/{r.statements:<5} "
              f"{r.covered_branches:>5}/{r.branches:<5} {r.percent:>6.1f}%  "
              f"{'ok' if ok else 'SHORT'}")
    missing = [m for m in SEMANTIC_MODULES if m not in {r.module for r in reach}]
    if missing:
        print(f"not measured: {', '.join(missing)}")
    return 1 if short or missing else 0


if __name__ == "__main__":
    sys.exit(main())
