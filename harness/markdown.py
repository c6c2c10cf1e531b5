"""A conformance report (``reports/conformance.yaml``) as Markdown, for a pull-request
comment or a CI job summary: ``python -m harness report --markdown REPORT``.

Order, for a reviewer: the verdict; what changed against a previous report (``--against``);
the failures, each with its minimal reproducer (tokenizer.json in a collapsed block, the
input, both outcomes side by side, the command); the intended classes; the real models;
coverage. It reads only the report's data (never runs anything), so its output for a
given report is fixed, and is tested against expected files.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: Failures shown in full; the rest are listed by signature (a PR comment holds 65,536
#: characters).
MAX_FAILURES = 10
#: A witness tokenizer.json longer than this is left to the report artifact.
MAX_DOCUMENT_CHARS = 6000
#: An input this short, when not plain ASCII, is also spelled out in code points.
MAX_SPELLED_INPUT = 32
#: A rule's coverage "dropped" when its share of comparisons fell below this fraction of
#: its former share (or to zero).
COVERAGE_DROP = 0.5

Report = dict[str, Any]
_ENVIRONMENT = (("tokenizers", "tokenizers"), ("python", "Python"),
                ("hypothesis", "Hypothesis"), ("unicode", "Unicode"))


def render(report: Report, *, against: Report | None = None, against_name: str | None = None,
           link_base: str = "") -> str:
    sections = [_headline(report)]
    if against is not None:
        sections.append(_changes(report, against, against_name or "the previous report"))
    sections += [_failures(report), _classes(report, link_base), _real_models(report),
                 _coverage(report)]
    return "\n\n".join(s.strip("\n") for s in sections if s) + "\n"


# --- headline -----------------------------------------------------------------------------

def _headline(report: Report) -> str:
    summary = report.get("summary", {})
    header = report.get("header", {})
    env = header.get("environment", {})
    failed = report.get("verdict") == "fail"
    failures = summary.get("failures", 0)
    stale = summary.get("stale_pinned_witnesses") or []
    real = report.get("real_models", {})
    real_failures = real.get("failures", 0)
    if failed:
        signatures = _n(summary.get("failure_signatures", 0), "signature")
        reasons = [f"{_n(failures, 'failure')} ({signatures})"] if failures else []
        if stale:
            reasons.append(_n(len(stale), "stale pinned witness", "stale pinned witnesses"))
        if real_failures:
            reasons.append(_n(real_failures, "real-model failure"))
        if not reasons:
            reasons = ["see the report (its verdict counts a part this summary does not show)"]
        title = "## ❌ Conformance: fail — " + ", ".join(reasons)
    else:
        title = "## ✅ Conformance: pass"
    by_class = summary.get("by_class", {})
    observed = sum(1 for n in by_class.values() if n)
    agreed = sum(ops.get("agreed", 0) for ops in summary.get("by_operation", {}).values())
    fixtures = real.get("fixtures", [])
    real_line = (f"real models: {_n(len(fixtures), 'fixture')}, "
                 f"{_int(sum(f.get('comparisons', 0) for f in fixtures))} comparisons, "
                 f"{_n(real_failures, 'failure')}" if fixtures else "real models: not run")
    lines = [
        title,
        "",
        f"{_int(summary.get('examples', 0))} generated cases, "
        f"{_int(summary.get('comparisons', 0))} comparisons ({_int(agreed)} agreed); "
        f"{_int(summary.get('intended_divergences', 0))} intended divergences in "
        f"{observed} of {len(by_class)} classes; {real_line}.",
        "",
        " · ".join(p for p in (
            f"profile `{header.get('profile', '?')}`, seed `{header.get('seed', '?')}`",
            *(f"{label} {env[name]}" for name, label in _ENVIRONMENT if name in env),
            f"{summary.get('duration_seconds', 0)} s "
            f"(explore {summary.get('explore_seconds', 0)} s)",
        )),
        "",
        f"Command: {_code(header.get('command', ''))}",
    ]
    return "\n".join(lines)


# --- what changed -------------------------------------------------------------------------

def _changes(report: Report, old: Report, name: str) -> str:
    lines = [f"### Changes against {_code(name)}", ""]
    old_header = old.get("header", {})
    lines.append(f"Previous: verdict **{old.get('verdict', '?')}**, profile "
                 f"`{old_header.get('profile', '?')}`, seed `{old_header.get('seed', '?')}`, "
                 f"{_int(old.get('summary', {}).get('examples', 0))} cases.")
    lines.append("")
    changes: list[str] = []
    if old.get("verdict") != report.get("verdict"):
        changes.append(f"- Verdict: **{old.get('verdict', '?')} → {report.get('verdict', '?')}**")
    now_failures, was_failures = _failure_index(report), _failure_index(old)
    new = [key for key in now_failures if key not in was_failures]
    gone = [key for key in was_failures if key not in now_failures]
    if new:
        changes.append(f"- **New failures ({len(new)}):**")
        changes += [f"  - {now_failures[key]}" for key in new]
    if gone:
        changes.append(f"- Failures no longer seen ({len(gone)}):")
        changes += [f"  - {was_failures[key]}" for key in gone]
    now_classes, was_classes = _observed_classes(report), _observed_classes(old)
    appeared = [c for c in now_classes if c not in was_classes]
    vanished = [c for c in was_classes if c not in now_classes]
    if appeared:
        changes.append("- Classes that appeared: " + ", ".join(
            f"{_code(c)} ({_int(now_classes[c])})" for c in appeared))
    if vanished:
        changes.append("- **Classes that vanished:** " + ", ".join(
            f"{_code(c)} (was {_int(was_classes[c])})" for c in vanished))
    dropped = _coverage_drops(report, old)
    if dropped:
        changes.append(f"- **Coverage that dropped ({len(dropped)}):**")
        changes += [f"  - {line}" for line in dropped]
    if not changes:
        changes.append("No new failures, no class appeared or vanished, no coverage dropped.")
    return "\n".join(lines + changes)


def _failure_index(report: Report) -> dict[str, str]:
    """Every failure by a key stable across runs (its signature), with a display line."""
    index: dict[str, str] = {}
    for entry in report.get("failures", []):
        index[entry["signature"]] = (f"{entry['id']} {_code(entry['signature'])} "
                                     f"(×{_int(entry.get('count', 0))})")
    for fixture in report.get("real_models", {}).get("fixtures", []):
        for entry in fixture.get("failures", []):
            key = f"{fixture['fixture']}: {entry['signature']}"
            index[key] = (f"real model `{fixture['fixture']}`: {_code(entry['signature'])} "
                          f"(×{_int(entry.get('count', 0))})")
    for entry in report.get("summary", {}).get("stale_pinned_witnesses") or []:
        index[f"stale: {entry['id']}"] = (f"stale pinned witness {_code(entry['id'])} "
                                          f"({_code(entry['class'])})")
    return index


def _observed_classes(report: Report) -> dict[str, int]:
    return {cls: n for cls, n in report.get("summary", {}).get("by_class", {}).items() if n}


def _coverage_drops(report: Report, old: Report) -> list[str]:
    now_rules = report.get("coverage", {}).get("rules", {})
    was_rules = old.get("coverage", {}).get("rules", {})
    now_total = max(report.get("summary", {}).get("comparisons", 0), 1)
    was_total = max(old.get("summary", {}).get("comparisons", 0), 1)
    lines = []
    for rule, was in was_rules.items():
        before = was.get("comparisons", 0)
        after = now_rules.get(rule, {}).get("comparisons", 0)
        if not before:
            continue
        share_before, share_after = before / was_total, after / now_total
        if after == 0 or share_after < COVERAGE_DROP * share_before:
            what = "no longer exercised" if after == 0 else "less than half its former share"
            lines.append(f"{_code(rule)}: {_int(before)} → {_int(after)} comparisons "
                         f"({_pct(share_before)} → {_pct(share_after)} of all; {what})")
    return lines


# --- failures -----------------------------------------------------------------------------

def _failures(report: Report) -> str:
    failures = report.get("failures", [])
    stale = report.get("summary", {}).get("stale_pinned_witnesses") or []
    real = [(fixture, entry) for fixture in report.get("real_models", {}).get("fixtures", [])
            for entry in fixture.get("failures", [])]
    if not (failures or stale or real):
        return "### Failures\n\nNone: every divergence is explained by an intended class."
    blocks = ["### Failures"]
    for entry in failures[:MAX_FAILURES]:
        blocks.append(_failure(entry))
    if len(failures) > MAX_FAILURES:
        rest = failures[MAX_FAILURES:]
        blocks.append(f"{len(rest)} more in the report:\n\n" + "\n".join(
            f"- {e['id']} {_code(e['signature'])} (×{_int(e.get('count', 0))})" for e in rest))
    for fixture, entry in real:
        blocks.append(_real_failure(fixture, entry))
    if stale:
        blocks.append("#### Stale pinned witnesses\n\nA witness pinned in "
                      "`oracles/divergences.json` no longer shows its class:\n\n" + "\n".join(
                          f"- {_code(e['id'])} ({_code(e['class'])}): now "
                          f"{_code(_json(e['now']))}" for e in stale))
    return "\n\n".join(blocks)


def _failure(entry: Report) -> str:
    witness = entry["witness"]
    parts = [f"#### {entry['id']} · {_code(entry['signature'])} (×{_int(entry.get('count', 0))})",
             _observation(witness, witness.get("detail", ""))]
    case = witness.get("case") or {}
    document = json.dumps(case.get("document"), ensure_ascii=False, sort_keys=True,
                          separators=(",", ":"))
    label = "shrunk witness" if witness.get("shrunk") else "smallest explored case"
    if len(document) <= MAX_DOCUMENT_CHARS:
        parts.append(f"<details><summary>tokenizer.json ({label}, {_int(len(document))} "
                     f"characters)</summary>\n\n{_fence(document, 'json')}\n\n</details>")
    else:
        parts.append(f"tokenizer.json ({label}): {_int(len(document))} characters, too "
                     f"long for a comment; it is in the report artifact.")
    parts.append(f"Reproduce: {_code(entry.get('reproduce', ''))}")
    return "\n\n".join(parts)


def _real_failure(fixture: Report, entry: Report) -> str:
    witness = entry["witness"]
    observation = dict(witness.get("observation", {}))
    observation.setdefault("tier", witness.get("tier", ""))
    return "\n\n".join([
        f"#### Real model `{fixture['fixture']}` · {_code(entry['signature'])} "
        f"(×{_int(entry.get('count', 0))})",
        _observation(observation, witness.get("detail", "")),
        f"The tokenizer.json is the fixture (sha256 `{str(fixture.get('sha256', ''))[:16]}…`), "
        f"built by `python -m harness.real_models {fixture['fixture']}`.",
    ])


def _observation(obs: Report, detail: str) -> str:
    options = ", ".join(f"{k}={_json(v)}" for k, v in sorted(obs.get("options", {}).items()))
    where = (f"{obs.get('track', '?')} track, `{obs.get('operation', '?')}`, "
             f"tier `{obs.get('tier', '?')}`" + (f", {options}" if options else ""))
    lines = [_escape(detail), "", f"- **Where:** {where}",
             f"- **Input:** {_input(obs.get('input'))}", "",
             _side_by_side(obs.get("reference"), obs.get("upstream"))]
    return "\n".join(lines).lstrip("\n")


def _input(value: Any) -> str:
    if value is None:
        return "— (the file itself is loaded)"
    text = _code(_json(value))
    if isinstance(value, str) and len(value) <= MAX_SPELLED_INPUT and not value.isascii():
        text += " (" + " ".join(f"U+{ord(ch):04X}" for ch in value) + ")"
    return text


def _side_by_side(reference: Any, upstream: Any) -> str:
    mine = reference if isinstance(reference, dict) else {"value": reference}
    theirs = upstream if isinstance(upstream, dict) else {"value": upstream}
    keys = [k for k in ("outcome",) if k in mine or k in theirs]
    keys += sorted((set(mine) | set(theirs)) - {"outcome"})
    rows = ["| | reference | upstream |", "|---|---|---|"]
    for key in keys:
        left, right = mine.get(key), theirs.get(key)
        name = key if left == right else f"**{key}** ≠"
        rows.append(f"| {name} | {_cell(left, key in mine)} | {_cell(right, key in theirs)} |")
    return "\n".join(rows)


def _cell(value: Any, present: bool) -> str:
    if not present:
        return "—"
    return _code(value if isinstance(value, str) and _plain(value) else _json(value),
                 table=True)


def _plain(value: str) -> bool:
    return bool(re.fullmatch(r"[a-z_\-\[\]0-9]+", value))


# --- classes, real models, coverage -------------------------------------------------------

def _classes(report: Report, link_base: str) -> str:
    rows = ["### Intended divergence classes", "",
            "| class | kind | observed | witness | decision |", "|---|---|--:|---|---|"]
    for cls in report.get("classes", []):
        witness = cls.get("witness")
        seen = (f"{witness.get('track', '?')} `{witness.get('operation', '?')}` → "
                f"{witness.get('tier', '?')}" + (" (shrunk)" if witness.get("shrunk") else "")
                if witness else "—")
        decision = cls.get("decision", "")
        stem = decision.rsplit("/", 1)[-1].removesuffix(".md")
        link = f"[{stem.split('-', 1)[0]}]({link_base}{decision})" if decision else "—"
        rows.append(f"| {_code(cls['id'], table=True)} | {cls.get('kind', '?')} | "
                    f"{_int(cls.get('observed', 0))} | {seen} | {link} |")
    not_observed = report.get("summary", {}).get("classes_not_observed") or []
    if not_observed:
        rows += ["", f"Not observed in this run: {', '.join(_code(c) for c in not_observed)}."]
    return "\n".join(rows)


def _real_models(report: Report) -> str:
    real = report.get("real_models", {})
    fixtures = real.get("fixtures", [])
    if not fixtures:
        return "### Real models\n\nNot run in this report (`--real-examples -1`)."
    rows = ["### Real models", "",
            "| fixture | corpus texts | generated texts | comparisons | agreed | intended | "
            "failures | corpus encode time, reference / upstream |",
            "|---|--:|--:|--:|--:|--:|--:|---|"]
    for fixture in fixtures:
        timing = fixture.get("corpus_encode_seconds", {})
        ratio = timing.get("ratio")
        rows.append(
            f"| `{fixture['fixture']}` | {_int(fixture.get('corpus_texts', 0))} | "
            f"{_int(fixture.get('generated_texts', 0))} | "
            f"{_int(fixture.get('comparisons', 0))} | {_int(fixture.get('agreed', 0))} | "
            f"{_int(sum(fixture.get('by_class', {}).values()))} | "
            f"{_int(sum(e.get('count', 0) for e in fixture.get('failures', [])))} | "
            f"{timing.get('reference', '?')} s / {timing.get('upstream', '?')} s"
            + (f" (×{ratio})" if ratio is not None else "") + " |")
    rows += ["", f"{real.get('seconds', 0)} s in all."]
    return "\n".join(rows)


def _coverage(report: Report) -> str:
    rules = report.get("coverage", {}).get("rules", {})
    total = max(report.get("summary", {}).get("comparisons", 0), 1)
    rows = ["### Coverage of the byte-fallback rules", "",
            "| rule | comparisons | share | meaning |", "|---|--:|--:|---|"]
    for rule, entry in rules.items():
        count = entry.get("comparisons", 0)
        shown = _int(count) if count else "**0**"
        rows.append(f"| {_code(rule, table=True)} | {shown} | {_pct(count / total)} | "
                    f"{_escape(entry.get('meaning', ''))} |")
    unexercised = [rule for rule, entry in rules.items() if not entry.get("comparisons")]
    if unexercised:
        rows += ["", f"Not exercised: {', '.join(_code(r) for r in unexercised)}."]
    return "\n".join(rows)


# --- Markdown helpers ---------------------------------------------------------------------

def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _code(text: str, *, table: bool = False) -> str:
    """``text`` as inline code: a fence longer than any backtick run inside it."""
    if table:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fence(text: str, language: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def _escape(text: str) -> str:
    """Prose from the report, shown as written: Markdown and HTML syntax escaped."""
    return re.sub(r"([\\`*_\[\]<>|])", r"\\\1", text).replace("\n", " ")


def _int(value: int) -> str:
    return f"{value:,}"


def _pct(fraction: float) -> str:
    return f"{100 * fraction:.1f}%"


def _n(count: int, singular: str, plural: str | None = None) -> str:
    return f"{_int(count)} {singular if count == 1 else (plural or singular + 's')}"
