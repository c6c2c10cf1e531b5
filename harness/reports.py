"""The YAML divergence report (``reports/conformance.yaml``), written for a reviewer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .canonical import canonical_yaml, read_yaml, write_atomic
from .case import Case
from .classify import load_registry
from .conformance import RunResult, Witness
from .coverage import RULES

PREAMBLE = """\
Conformance report: the reference tokenizer (implementation/) against HuggingFace
tokenizers, over generated tokenizer.json files and texts.
How to read it:
  verdict      pass, or fail when any divergence is unexplained or a pinned witness is stale
  summary      how many cases and comparisons ran, what agreed, what diverged at which tier
  classes      every INTENDED divergence class: why it is intended (decision record), how
               often it was seen, and one minimal witness (tokenizer.json, input, both outcomes)
  failures     every divergence no class explains, with a minimal witness and the command
               that reproduces it
  real_models  the real Mistral tokenizer files: corpus + generated texts, compared the same
               way (and the reference's encode time against upstream's on the corpus)
  unified_morph_track
               the unified tokenizer's MorphBPE track against its upstream tokenizer.json
               (per Mongolian run; whole one-run texts with specials), same registry
  coverage     how many comparisons exercised each rule of the byte-fallback decision
Tiers, in order: load, encode, ids, tokens, spans, special_mask, decode.
Tracks: strict = the reference as users load it; lenient = the same inputs through the
reference's lenient mode, run only where a strict refusal would otherwise hide them.
"""


def build_report(result: RunResult) -> dict[str, Any]:
    stats = result.stats
    registry = load_registry()
    explore = max(result.explore_seconds, 1e-9)
    failures = [
        _failure_entry(f"F{i}", sig, stats.failures[sig], stats.failure_witness[sig])
        for i, sig in enumerate(sorted(stats.failures), start=1)
    ]
    classes = []
    for cls in registry:
        witness = stats.class_witness.get(cls.id)
        entry = cls.to_json()
        entry["observed"] = stats.by_class.get(cls.id, 0)
        entry["witness"] = _witness(witness) if witness else None
        entry["reproduce"] = (
            f"python -m harness reproduce reports/conformance.yaml --class {cls.id}")
        classes.append(entry)
    return {
        "verdict": "fail" if result.failed else "pass",
        "header": {
            "command": result.command,
            "profile": result.profile.name,
            "seed": result.seed,
            "environment": result.environment,
            "reference": "implementation/ (strict; lenient track where strict refuses)",
        },
        "summary": {
            "examples": stats.examples,
            "comparisons": stats.comparisons,
            "duration_seconds": round(result.duration, 1),
            "explore_seconds": round(result.explore_seconds, 1),
            "shrink_and_pinned_seconds": round(result.duration - result.explore_seconds, 1),
            "cases_per_second": round(stats.examples / explore, 1),
            "comparisons_per_second": round(stats.comparisons / explore, 1),
            "failures": sum(stats.failures.values()),
            "failure_signatures": len(stats.failures),
            "intended_divergences": sum(stats.by_class.values()),
            "by_operation": {op: dict(sorted(c.items())) for op, c in stats.by_tier.items()},
            "by_class": {cls.id: stats.by_class.get(cls.id, 0) for cls in registry},
            "classes_not_observed": [c.id for c in registry if c.id not in stats.by_class],
            "upstream_load_outcomes": dict(stats.upstream_outcomes),
            "stale_pinned_witnesses": result.stale,
        },
        "classes": classes,
        "failures": failures,
        "real_models": {
            "seconds": round(result.real_seconds, 1),
            "failures": result.real_failures,
            "fixtures": [r.to_json() for r in result.real_models],
        },
        "unified_morph_track": (result.unified.to_json() if result.unified is not None
                                else {"skipped": "harness.unified is not importable"}),
        "coverage": {
            "rules": {rule: {"meaning": meaning,
                             "comparisons": stats.rule_comparisons.get(rule, 0)}
                      for rule, meaning in RULES.items()},
            "classes": {cls.id: stats.class_comparisons.get(cls.id, 0) for cls in registry},
        },
    }


def _witness(witness: Witness) -> dict[str, Any]:
    obs = witness.divergence.observation
    return {
        "shrunk": witness.shrunk,
        "classes": list(witness.classes),
        "tier": witness.divergence.tier,
        "detail": witness.divergence.detail,
        "track": obs.track,
        "operation": obs.operation,
        "input": list(obs.input) if isinstance(obs.input, tuple) else obs.input,
        "options": dict(obs.options),
        "reference": obs.to_json()["reference"],
        "upstream": obs.to_json()["upstream"],
        "case": witness.case.to_json(),
        "case_size": witness.size,
    }


def _failure_entry(fid: str, signature: str, count: int, witness: Witness) -> dict[str, Any]:
    return {
        "id": fid,
        "signature": signature,
        "count": count,
        "reproduce": f"python -m harness reproduce reports/conformance.yaml --failure {fid}",
        "witness": _witness(witness),
    }


def write_report(result: RunResult, path: Path) -> None:
    write_atomic(path, canonical_yaml(build_report(result), preamble=PREAMBLE))


def case_from_report(path: Path, *, failure: str | None = None,
                     class_id: str | None = None) -> Case:
    """The witness case of one failure (``F1``...) or one class, read back from a report."""
    report = read_yaml(path)
    if failure is not None:
        for entry in report.get("failures", []):
            if entry["id"] == failure:
                return Case.from_json(entry["witness"]["case"])
        raise KeyError(f"{path} has no failure {failure!r}")
    for entry in report.get("classes", []):
        if entry["id"] == class_id and entry.get("witness"):
            return Case.from_json(entry["witness"]["case"])
    raise KeyError(f"{path} has no witness for class {class_id!r}")
