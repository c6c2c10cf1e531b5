"""A conformance report as Markdown, for a pull-request comment or a CI job summary:
``python -m harness report --markdown REPORT``.

Order, for a reviewer: the verdict; what changed against a previous report (``--against``);
the failures (generated, real-model and morph-track, harness errors, stale pinned
witnesses), each with its minimal reproducer (tokenizer.json in a collapsed block, the
input, both outcomes side by side, the command); the intended classes; the real models;
the morph track; coverage. It reads only the report model (never runs anything), so its
output for a given report is fixed, and is tested against expected files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from ..runs.pinned import PINNED_WITNESSES_NAME
from ..runs.third_party import witnesses_beside
from .model import Failure, Fixture, MorphTrack, Report, WitnessRecord

#: Our reference's pinned witnesses (a third-party subject's are beside its expectations).
PINNED_FILE = f"oracles/{PINNED_WITNESSES_NAME}"

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

_ENVIRONMENT = (("tokenizers", "tokenizers"), ("python", "Python"),
                ("hypothesis", "Hypothesis"), ("unicode", "Unicode"))


def render(report: Report, *, against: Report | None = None, against_name: str | None = None,
           link_base: str = "", titles: Mapping[str, str] | None = None) -> str:
    """``titles``: each class's decision field → its record's title (the site's
    ``harness.site.records.titles``); without it the record's number is shown."""
    sections = [_headline(report)]
    if against is not None:
        sections.append(_changes(report, against, against_name or "the previous report"))
    if report.subject is not None:
        sections += [_subject(report), _failures(report), _known(report, link_base),
                     _real_models(report), _coverage(report)]
    else:
        sections += [_failures(report), _classes(report, link_base, titles or {}),
                     _real_models(report),
                     _morph_track(report), _coverage(report)]
    return "\n\n".join(s.strip("\n") for s in sections if s) + "\n"


# --- headline -----------------------------------------------------------------------------

def _headline(report: Report) -> str:
    summary, header = report.summary, report.header
    env = header.environment
    if report.verdict == "fail":
        reasons = report.failing_parts() or [
            "see the report (its verdict counts a part this summary does not show)"]
        title = "## ❌ Conformance: fail — " + ", ".join(reasons)
    elif report.verdict == "incomplete":
        title = ("## ⚠️ Conformance: incomplete — "
                 f"{_n(len(report.real_models.not_run), 'real model')} not run")
    else:
        title = "## ✅ Conformance: pass"
    observed = sum(1 for n in summary.by_class.values() if n)
    agreed = sum(ops.get("agreed", 0) for ops in summary.by_operation.values())
    fixtures = report.real_models.fixtures
    real_line = (f"real models: {_n(len(fixtures), 'fixture')}, "
                 f"{_int(sum(f.tally.comparisons for f in fixtures))} comparisons, "
                 f"{_n(report.real_models.failures, 'failure')}" if fixtures
                 else "real models: not run")
    if report.real_models.not_run:
        real_line += f" ({len(report.real_models.not_run)} not run here)"
    lines = [
        title,
        "",
        f"{_int(summary.examples)} generated cases, "
        f"{_int(summary.comparisons)} comparisons ({_int(agreed)} agreed); "
        f"{_int(summary.intended_divergences)} intended divergences in "
        f"{observed} of {len(summary.by_class)} classes; {real_line}.",
        "",
        " · ".join(p for p in (
            f"subject {header.subject}",
            f"profile `{header.profile}`, seed `{header.seed}`",
            *(f"{label} {env[name]}" for name, label in _ENVIRONMENT if name in env),
            f"{summary.duration_seconds} s (explore {summary.explore_seconds} s)",
        )),
        "",
        f"Command: {_code(header.command)}",
    ]
    return "\n".join(lines)


# --- what changed -------------------------------------------------------------------------

def _changes(report: Report, old: Report, name: str) -> str:
    lines = [f"### Changes against {_code(name)}", ""]
    lines.append(f"Previous: verdict **{old.verdict}**, profile `{old.header.profile}`, "
                 f"seed `{old.header.seed}`, {_int(old.summary.examples)} cases.")
    lines.append("")
    changes: list[str] = []
    if old.verdict != report.verdict:
        changes.append(f"- Verdict: **{old.verdict} → {report.verdict}**")
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
    for entry in report.failures:
        index[entry.signature] = (f"{entry.id} {_code(entry.signature)} "
                                  f"(×{_int(entry.count)})")
    for fixture in report.real_models.fixtures:
        for entry in fixture.tally.failures:
            index[f"{fixture.fixture}: {entry.signature}"] = (
                f"real model `{fixture.fixture}`: {_code(entry.signature)} "
                f"(×{_int(entry.count)})")
    morph = report.unified_morph_track
    for entry in (morph.tally.failures if morph is not None else []):
        index[f"morph track: {entry.signature}"] = (
            f"morph track: {_code(entry.signature)} (×{_int(entry.count)})")
    for stale in report.summary.stale_pinned_witnesses:
        index[f"stale: {stale.id}"] = (f"stale pinned witness {_code(stale.id)} "
                                       f"({_code(stale.class_id)})")
    for i, error in enumerate(_harness_errors(report)):
        index[f"harness error: {error[:200]}"] = f"harness error {i + 1}: " \
            f"{_code(error.splitlines()[0][:200] if error else '')}"
    return index


def _harness_errors(report: Report) -> list[str]:
    errors = list(report.harness_errors)
    for fixture in report.real_models.fixtures:
        errors += [f"{fixture.fixture}: {e}" for e in fixture.tally.harness_errors]
    morph = report.unified_morph_track
    if morph is not None:
        errors += [f"morph track: {e}" for e in morph.tally.harness_errors]
    return errors


def _observed_classes(report: Report) -> dict[str, int]:
    return {cls: n for cls, n in report.summary.by_class.items() if n}


def _coverage_drops(report: Report, old: Report) -> list[str]:
    now_rules, was_rules = report.coverage.rules, old.coverage.rules
    now_total = max(report.summary.comparisons, 1)
    was_total = max(old.summary.comparisons, 1)
    lines = []
    for rule, was in was_rules.items():
        before = was.comparisons
        after = now_rules[rule].comparisons if rule in now_rules else 0
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
    failures = report.failures
    stale = report.summary.stale_pinned_witnesses
    real = [(fixture, entry) for fixture in report.real_models.fixtures
            for entry in fixture.tally.failures]
    morph = report.unified_morph_track
    morph_failures = morph.tally.failures if morph is not None else []
    errors = _harness_errors(report)
    if not (failures or stale or real or morph_failures or errors):
        return "### Failures\n\nNone: every divergence is explained by an intended class."
    blocks = ["### Failures"]
    side = "subject" if report.subject is not None else None
    for entry in failures[:MAX_FAILURES]:
        blocks.append(_failure(entry, side))
    if len(failures) > MAX_FAILURES:
        rest = failures[MAX_FAILURES:]
        blocks.append(f"{len(rest)} more in the report:\n\n" + "\n".join(
            f"- {e.id} {_code(e.signature)} (×{_int(e.count)})" for e in rest))
    for fixture, entry in real:
        blocks.append(_fixture_failure(f"Real model `{fixture.fixture}`", entry, side,
                                       f"The tokenizer.json is the fixture (sha256 "
                                       f"`{fixture.sha256[:16]}…`), built by `python -m "
                                       f"harness.fixture_builders.real_models {fixture.fixture}`."))
    for entry in morph_failures:
        assert morph is not None
        blocks.append(_fixture_failure(
            "Morph track", entry, None, f"The unified config is `{morph.config}`; upstream runs "
            f"`{morph.upstream_document.path}`."))
    if errors:
        blocks.append("#### Harness errors\n\nThe harness itself failed (a bug of ours, "
                      "not a finding):\n\n" + "\n\n".join(_fence(e, "text") for e in errors))
    if stale:
        blocks.append("#### Stale pinned witnesses\n\nA witness pinned in "
                      f"{_code(_pinned_file(report))} no longer shows its class:\n\n"
                      + "\n".join(
                          f"- {_code(e.id)} ({_code(e.class_id)}): now "
                          f"{_code(_json(e.now or 'no divergence'))}" for e in stale))
    return "\n\n".join(blocks)


def _pinned_file(report: Report) -> str:
    """The file the run's pinned witnesses come from: ours, or the subject's own."""
    if report.subject is None:
        return PINNED_FILE
    return witnesses_beside(report.subject.expectations) or "(none)"


def _failure(entry: Failure, left: str | None = None) -> str:
    witness = entry.witness
    parts = [f"#### {entry.id} · {_code(entry.signature)} (×{_int(entry.count)})",
             _observation(witness, left), *_witness_files(witness),
             f"Reproduce: {_code(entry.reproduce or '')}"]
    return "\n\n".join(parts)


def _witness_files(witness: WitnessRecord) -> list[str]:
    """The witness' tokenizer.json, folded (or a line saying it is in the report)."""
    case = witness.case or {}
    if witness.case is None:
        return []
    document = json.dumps(case.get("document"), ensure_ascii=False, sort_keys=True,
                          separators=(",", ":"))
    label = "shrunk witness" if witness.shrunk else "smallest explored case"
    parts: list[str] = []
    if len(document) <= MAX_DOCUMENT_CHARS:
        parts.append(f"<details><summary>tokenizer.json ({label}, {_int(len(document))} "
                     f"characters)</summary>\n\n{_fence(document, 'json')}\n\n</details>")
    else:
        parts.append(f"tokenizer.json ({label}): {_int(len(document))} characters, too "
                     f"long for a comment; it is in the report artifact.")
    return parts


def _fixture_failure(where: str, entry: Failure, left: str | None, source: str) -> str:
    return "\n\n".join([
        f"#### {where} · {_code(entry.signature)} (×{_int(entry.count)})",
        _observation(entry.witness, left),
        source,
    ])


def _observation(witness: WitnessRecord, left: str | None = None) -> str:
    """The witness in words and a table; ``left`` names the subject's column (None: the
    name the report gives it, ``reference`` or ``subject``)."""
    options = ", ".join(f"{k}={_json(v)}" for k, v in sorted(witness.options.items()))
    where = (f"{witness.track or '?'} track, `{witness.operation or '?'}`, "
             f"tier `{witness.tier or '?'}`" + (f", {options}" if options else ""))
    lines = [_escape(witness.detail), "", f"- **Where:** {where}",
             f"- **Input:** {_input(witness.input)}", ""]
    if witness.outcome is not None or witness.upstream is not None:
        lines.append(_side_by_side(witness.outcome, witness.upstream, left or witness.side))
    return "\n".join(lines).strip("\n")


def _input(value: Any) -> str:
    if value is None:
        return "— (the file itself is loaded)"
    text = _code(_json(value))
    if isinstance(value, str) and len(value) <= MAX_SPELLED_INPUT and not value.isascii():
        text += " (" + " ".join(f"U+{ord(ch):04X}" for ch in value) + ")"
    return text


def _side_by_side(subject: Any, upstream: Any, label: str) -> str:
    mine = subject if isinstance(subject, dict) else {"value": subject}
    theirs = upstream if isinstance(upstream, dict) else {"value": upstream}
    keys = [k for k in ("outcome",) if k in mine or k in theirs]
    keys += sorted((set(mine) | set(theirs)) - {"outcome"})
    rows = [f"| | {label} | upstream |", "|---|---|---|"]
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


# --- a third-party subject ---------------------------------------------------------------

def _subject(report: Report) -> str:
    subject = report.subject
    assert subject is not None
    return "\n".join([
        f"### Subject: {subject.name}",
        "",
        f"- **Version:** {_code(subject.version)} (run as {_code(subject.spec)})",
        f"- **Capabilities:** {', '.join(_code(c) for c in subject.capabilities)} (tiers it "
        "does not answer are skipped and counted)",
        f"- **Expectations:** {_code(subject.expectations)}: "
        f"{_n(sum(1 for c in report.classes if c.observed), 'entry', 'entries')} observed of "
        f"{len(report.classes)}",
        f"- **Restarts** of its process after a crash, a timeout or garbage: "
        f"{_int(subject.restarts)}",
    ])


def _known(report: Report, link_base: str) -> str:
    """The subject's divergences grouped by the expectation that recognised them, each
    with its minimal witness: the subject's answer and upstream's side by side."""
    blocks = ["### Known divergences, by expectation"]
    for cls in report.classes:
        if not cls.observed or cls.witness is None:
            continue
        links = ", ".join(f"<{u}>" for u in cls.upstream)
        parts = [f"#### {_code(cls.id)} · {cls.kind} (×{_int(cls.observed)})",
                 _escape(cls.title) + (f" ({links})" if links else ""),
                 _observation(cls.witness, "subject"), *_witness_files(cls.witness),
                 f"Reproduce: {_code(cls.reproduce)}"]
        blocks.append("\n\n".join(parts))
    missing = [c.id for c in report.classes if not c.observed]
    if missing:
        blocks.append(f"Not observed in this run: {', '.join(_code(c) for c in missing)}.")
    return "\n\n".join(blocks)


# --- classes, real models, morph track, coverage ------------------------------------------

def _classes(report: Report, link_base: str, titles: Mapping[str, str]) -> str:
    rows = ["### Intended divergence classes", "",
            "| class | what | kind | observed | witness | decision |",
            "|---|---|---|--:|---|---|"]
    for cls in report.classes:
        witness = cls.witness
        seen = (f"{witness.track or '?'} `{witness.operation or '?'}` → "
                f"{witness.tier or '?'}" + (" (shrunk)" if witness.shrunk else "")
                if witness is not None else "—")
        stem = cls.decision.rsplit("/", 1)[-1].removesuffix(".md")
        number = stem.split('-', 1)[0]
        shown = _escape(titles[cls.decision]) if cls.decision in titles else number
        link = f"[{shown}]({link_base}{cls.decision})" if cls.decision else "—"
        rows.append(f"| {_code(cls.id, table=True)} | {_escape(cls.title)} | {cls.kind} | "
                    f"{_int(cls.observed)} | {seen} | {link} |")
    not_observed = report.summary.classes_not_observed
    if not_observed:
        rows += ["", f"Not observed in this run: {', '.join(_code(c) for c in not_observed)}."]
    return "\n".join(rows)


def _real_models(report: Report) -> str:
    fixtures = report.real_models.fixtures
    missing = [f"- **not run**: `{entry.fixture}` — {entry.reason}"
               for entry in report.real_models.not_run]
    if not fixtures:
        return "\n".join(["### Real models", "", *(missing or [
            "Not run in this report (`--real-examples -1`)."])])
    rows = ["### Real models", "", *missing, *([""] if missing else []),
            "| fixture | corpus texts | generated texts | comparisons | agreed | intended "
            "(by class) | failures | corpus encode time, reference / upstream |",
            "|---|--:|--:|--:|--:|---|--:|---|"]
    for fixture in fixtures:
        rows.append(_fixture_row(fixture))
    rows += ["", f"{report.real_models.seconds} s in all."]
    return "\n".join(rows)


def _fixture_row(fixture: Fixture) -> str:
    timing = fixture.corpus_encode_seconds
    ratio = timing.get("ratio")
    tally = fixture.tally
    return (f"| `{fixture.fixture}` | {_int(fixture.corpus_texts)} | "
            f"{_int(fixture.generated_texts)} | {_int(tally.comparisons)} | "
            f"{_int(tally.agreed)} | {_by_class(tally.by_class)} | "
            f"{_int(sum(e.count for e in tally.failures) + len(tally.harness_errors))} | "
            f"{timing.get('reference', '?')} s / {timing.get('upstream', '?')} s"
            + (f" (×{ratio})" if ratio is not None else "") + " |")


def _by_class(by_class: dict[str, int]) -> str:
    """The intended total and the classes it counts."""
    seen = [(c, n) for c, n in sorted(by_class.items()) if n]
    total = _int(sum(n for _c, n in seen))
    if not seen:
        return total
    return total + ": " + ", ".join(f"{_code(c, table=True)} {_int(n)}" for c, n in seen)


def _morph_track(report: Report) -> str:
    morph: MorphTrack | None = report.unified_morph_track
    if morph is None:
        return "### Unified tokenizer: morph track\n\nNot run in this report."
    tally = morph.tally
    failures = sum(e.count for e in tally.failures) + len(tally.harness_errors)
    classes = ", ".join(f"{_code(c)} {_int(n)}" for c, n in tally.by_class.items()) or "none"
    return "\n".join([
        "### Unified tokenizer: morph track", "",
        f"{_int(morph.corpus_texts)} corpus + {_int(morph.generated_texts)} generated texts, "
        f"{_int(morph.runs_compared)} Mongolian runs and {_int(morph.whole_texts_compared)} "
        f"whole texts compared: {_int(tally.comparisons)} comparisons, "
        f"{_int(tally.agreed)} agreed, {_n(failures, 'failure')}; intended: {classes}.",
        "",
        f"Upstream document `{morph.upstream_document.path}`"
        + ("" if morph.upstream_document.committed_copy_current
           else " (**the committed copy is stale**)") + "."])


def _coverage(report: Report) -> str:
    rules = report.coverage.rules
    total = max(report.summary.comparisons, 1)
    rows = ["### Coverage of the byte-fallback rules", "",
            "| rule | comparisons | share | meaning |", "|---|--:|--:|---|"]
    for rule, entry in rules.items():
        count = entry.comparisons
        shown = _int(count) if count else "**0**"
        rows.append(f"| {_code(rule, table=True)} | {shown} | {_pct(count / total)} | "
                    f"{_escape(entry.meaning)} |")
    unexercised = [rule for rule, entry in rules.items() if not entry.comparisons]
    if unexercised:
        rows += ["", f"Not exercised: {', '.join(_code(r) for r in unexercised)}."]
    return "\n".join(rows + _features(report) + _reach(report))


def _reach(report: Report) -> list[str]:
    """Branch coverage of implementation/ over the run, when it was measured."""
    reach = report.coverage.reach
    if reach is None:
        return []
    rows = ["", "### Reach of implementation/", "",
            f"coverage.py under `--branch` over this run alone (no unit tests); target "
            f"{reach.target:.0f}% per module.", "",
            "| module | statements | branches | cover | |", "|---|--:|--:|--:|---|"]
    for module, entry in reach.modules.items():
        rows.append(f"| {_code(module, table=True)} | "
                    f"{_int(entry.covered_statements)}/{_int(entry.statements)} | "
                    f"{_int(entry.covered_branches)}/{_int(entry.branches)} | "
                    f"{entry.percent:.1f}% | "
                    f"{'**short**' if module in reach.short else 'ok'} |")
    absent = [m for m in reach.short if m not in reach.modules]
    if absent:
        rows += ["", f"Not measured: {', '.join(_code(m) for m in absent)}."]
    return rows


def _features(report: Report) -> list[str]:
    """The generated cases' feature labels, one row per dimension (the label's first part)."""
    features = report.coverage.features
    if not features:
        return []
    examples = max(report.summary.examples, 1)
    by_dimension: dict[str, list[str]] = {}
    for label, count in features.items():
        dimension, _, option = label.partition(":")
        shown = f"{_code(option or dimension, table=True)} {_int(count)} ({_pct(count / examples)})"
        by_dimension.setdefault(dimension, []).append(shown)
    rows = ["", "### What the generated cases exercised", "",
            "<details><summary>Cases each feature label of "
            "<code>harness.strategies.describe</code> applies to</summary>", "",
            "| dimension | labels: cases (share) |", "|---|---|"]
    rows += [f"| {_code(d, table=True)} | {', '.join(shown)} |"
             for d, shown in sorted(by_dimension.items())]
    return [*rows, "", "</details>"]


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
