"""``reports/mutation-campaign.yaml``: each module's sampled mutants by outcome, every
survivor with its diff and its triage, the killer's cost; written atomically and
canonically, one module's section replaced at a time (decision 0046).

Categories: ``killed`` (the killer failed), ``timed_out`` (ran past the tool's timeout:
counted as caught), ``survived`` (a hole until triaged), ``equivalent`` (a survivor the
triage file shows equivalent), ``message_only`` (a survivor whose site is an error's
message), ``no_test`` / ``errors`` (the tool could not apply the mutant or its worker
failed). Score: (killed + timed out) / (sampled - equivalent - message only - no test).
``annotation_equivalents`` and ``api_only`` count the population's mutants never sampled:
inside type annotations, and in code only API calls outside the subject protocol reach
(upstream's constructor path, the API queries: decision 0050; the module's unit tests are
their killers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from harness.core.canonical import canonical_yaml, read_yaml, write_atomic
from harness.mutation.sites import Sites
from harness.mutation.tool import Campaign, Outcome
from harness.mutation.triage import Triage, change_of

#: The semantic modules the issue's acceptance names, in its order.
CAMPAIGN_MODULES: Final = ("bpe", "tokenizer", "added_vocabulary", "normalizers",
                           "unicode_forms", "pre_tokenizers", "split", "oniguruma",
                           "byte_level", "decoders", "post_processors", "alignment",
                           "encoding")
#: The score each module must reach (percent).
TARGET: Final = 90.0
#: Fields that measure time (the rest is a function of the source, the sample and seed).
TIMING_FIELDS: Final = ("baseline_seconds", "seconds", "seconds_per_mutant")
PREAMBLE: Final = ("Mutation campaign (python -m harness.mutation; nox -s mutation-campaign):\n"
                   "a seeded sample of Cosmic Ray's mutants of implementation/ per module,\n"
                   "each run by a short harness run. docs/decisions/0046-mutation-campaign.md")


def _category(outcome: Outcome, site: str, triage: Triage, module: str) -> str:
    if outcome.worker_outcome == "no-test":
        return "no_test"
    if outcome.worker_outcome != "normal":
        return "errors"
    if outcome.test_outcome == "killed":
        return "timed_out" if outcome.output == "timeout" else "killed"
    if outcome.test_outcome != "survived":
        return "errors"
    verdict = triage.verdict(module, outcome.diff)
    if verdict is not None and verdict.verdict == "equivalent":
        return "equivalent"
    if verdict is not None and verdict.verdict == "message-only":
        return "message_only"
    return "message_only" if site == "message" else "survived"


def module_section(root: Path, module: str, campaign: Campaign, triage: Triage, *,
                   sample: int, seed: int, killer: Mapping[str, Any]) -> dict[str, Any]:
    sites = Sites((root / "implementation" / f"{module}.py").read_text(encoding="utf-8"))
    counts = dict.fromkeys(("killed", "timed_out", "survived", "equivalent", "message_only",
                            "no_test", "errors"), 0)
    survivors: list[dict[str, Any]] = []
    killed: list[str] = []
    for outcome in campaign.outcomes:
        spec = outcome.spec
        site = sites.kind(spec.line, spec.column)
        category = _category(outcome, site, triage, module)
        counts[category] += 1
        where = f"{spec.line}:{spec.column} {spec.operator} in {spec.definition or '-'}"
        if category in ("killed", "timed_out"):
            killed.append(f"{where}: {outcome.output}")
            continue
        if category in ("no_test",):
            continue
        verdict = triage.verdict(module, outcome.diff)
        survivors.append({
            "site": where, "category": category, "diff": outcome.diff,
            "change": list(change_of(outcome.diff)),
            "triage": ({"verdict": verdict.verdict, "argument": verdict.argument}
                       if verdict is not None else
                       {"verdict": "message-only" if category == "message_only" else "open",
                        "argument": "the site is an error message's wording"
                        if category == "message_only" else "not triaged yet"}),
        })
    judged = len(campaign.outcomes) - counts["equivalent"] - counts["message_only"] \
        - counts["no_test"]
    caught = counts["killed"] + counts["timed_out"]
    score = 100.0 * caught / judged if judged else 100.0
    return {
        "population": campaign.population,
        "annotation_equivalents": campaign.annotations,
        "api_only": campaign.api_only,
        "sample": sample, "seed": seed, "sampled": len(campaign.outcomes),
        **counts,
        "score_percent": round(score, 1), "meets_target": score >= TARGET,
        "killer": dict(killer),
        "baseline_seconds": round(campaign.baseline_seconds, 1),
        "seconds": round(campaign.seconds, 1),
        "seconds_per_mutant": round(campaign.seconds / max(len(campaign.outcomes), 1), 1),
        "survivors": survivors,
        "killed_mutants": killed,
    }


def retriaged(section: Mapping[str, Any], triage: Triage, module: str) -> dict[str, Any]:
    """``section`` with each survivor triaged again by the current triage file (its
    category, the counts and the score follow), without running anything."""
    out = dict(section)
    survivors = []
    for survivor in section["survivors"]:
        entry = dict(survivor)
        if entry["category"] in ("survived", "equivalent", "message_only"):
            verdict = triage.verdict(module, entry["diff"])
            site_message = entry["category"] == "message_only" and (
                entry["triage"]["verdict"] == "message-only" and verdict is None)
            if verdict is not None:
                entry["triage"] = {"verdict": verdict.verdict, "argument": verdict.argument}
                entry["category"] = {"equivalent": "equivalent", "message-only":
                                     "message_only"}.get(verdict.verdict, "survived")
            elif not site_message:
                entry["triage"] = {"verdict": "open", "argument": "not triaged yet"}
                entry["category"] = "survived"
        survivors.append(entry)
    out["survivors"] = survivors
    for key in ("survived", "equivalent", "message_only"):
        out[key] = sum(1 for s in survivors if s["category"] == key)
    judged = out["sampled"] - out["equivalent"] - out["message_only"] - out["no_test"]
    caught = out["killed"] + out["timed_out"]
    score = 100.0 * caught / judged if judged else 100.0
    out["score_percent"], out["meets_target"] = round(score, 1), score >= TARGET
    return out


def write(path: Path, sections: Mapping[str, dict[str, Any]], tool: str) -> dict[str, Any]:
    """Merge ``sections`` into the report at ``path`` (other modules kept) and write it."""
    modules: dict[str, Any] = {}
    if path.is_file():
        previous = read_yaml(path)
        if isinstance(previous, dict) and isinstance(previous.get("modules"), dict):
            modules.update(previous["modules"])
    modules.update(sections)
    data = {
        "report": "mutation-campaign",
        "tool": tool,
        "target_percent": TARGET,
        "modules_run": [m for m in CAMPAIGN_MODULES if m in modules]
        + sorted(m for m in modules if m not in CAMPAIGN_MODULES),
        "modules_not_run": [m for m in CAMPAIGN_MODULES if m not in modules],
        "summary": _summary(modules),
        "modules": modules,
    }
    write_atomic(path, canonical_yaml(data, preamble=PREAMBLE))
    return data


def _summary(modules: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    keys = ("sampled", "killed", "timed_out", "survived", "equivalent", "message_only",
            "no_test", "errors", "annotation_equivalents", "api_only")
    total: dict[str, Any] = {k: sum(int(m.get(k, 0)) for m in modules.values()) for k in keys}
    seconds = sum(float(m["seconds"]) for m in modules.values())
    total["seconds_per_mutant"] = round(seconds / max(total["sampled"], 1), 1)
    total["below_target"] = sorted(name for name, m in modules.items() if not m["meets_target"])
    return total


def lines(sections: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """One line per module for the terminal."""
    return [f"{name:<17} {s['sampled']:>3} sampled: {s['killed']} killed, {s['timed_out']} "
            f"timed out, {s['survived']} survived, {s['equivalent']} equivalent, "
            f"{s['message_only']} message-only; {s['score_percent']}% "
            f"({s['seconds_per_mutant']} s/mutant)" for name, s in sections]
