"""One page per finding (intended class, expectation entry or failure): what it is, its
record, its minimal witness (tokenizer.json downloadable and shown collapsed, the input,
every output side by side with the differing positions marked), the command that
reproduces it, and which subjects share it."""

from __future__ import annotations

import json
from typing import Any

from .html import badge, e, page, pre, table
from .model import FindingView, Output, Site, WitnessView

_FAIL = '<span class="fail">✗ </span>'
_ORDER = ("outcome", "text", "ids", "tokens", "spans", "special_mask", "type_ids",
          "attention_mask", "rule", "kind", "message", "path")


def finding_page(site: Site, finding: FindingView, link_base: str) -> str:
    role = {"intended": "intended divergence class of our reference",
            "expectation": "known divergence of a subject (an entry of its expectations)",
            "failure": "FAILURE: a divergence no class or expectation explains"}[finding.role]
    origin = next(s for s in site.subjects if s.key == finding.origin)
    parts = [f"<h1><code>{e(finding.id)}</code></h1>",
             f"<p class=\"lede\">{e(finding.title)}</p>",
             f"<p>{e(finding.sentence)}</p>",
             "<dl>",
             f"<dt>What</dt><dd>{_FAIL if finding.role == 'failure' else ''}{e(role)} "
             f"({e(finding.kind)}), from the report of "
             f"<a href=\"../subjects/{e(origin.key)}.html\">{e(origin.name)}</a></dd>",
             f"<dt>Severity</dt><dd>{badge(finding.severity)} — {e(finding.severity_reason)}"
             "</dd>",
             f"<dt>Lineage</dt><dd>{e(finding.lineage)}</dd>"]
    if finding.record:
        parts.append(f"<dt>Record</dt><dd>{_record(finding, link_base)}</dd>")
    for link in finding.upstream_links:
        parts.append(f"<dt>Upstream</dt><dd><a href=\"{e(link)}\">{e(link)}</a></dd>")
    parts.append("</dl>")
    if finding.why:
        parts += ["<h2>Why</h2>", f"<p>{e(finding.why)}</p>"]
    parts.append(_shared(site, finding))
    parts.append("<h2>Minimal witness</h2>")
    if finding.witness is None:
        parts.append("<p>No witness in the reports: this run did not observe it.</p>")
    else:
        parts.append(_witness(finding, finding.witness))
    if finding.reproduce:
        parts += ["<h2>Reproduce</h2>", pre(finding.reproduce, "reproduce")]
    return page(finding.id, "\n".join(parts), depth=1)


def document_file(finding: FindingView) -> str | None:
    witness = finding.witness
    return witness.document + "\n" if witness is not None and witness.document else None


def _record(finding: FindingView, link_base: str) -> str:
    title = f"{e(finding.record_title)} (<code>{e(finding.record)}</code>)"
    if not link_base:
        return title
    return f'<a href="{e(link_base + finding.record)}">{title}</a>'


def _shared(site: Site, finding: FindingView) -> str:
    rows = []
    for subject in site.subjects:
        cell = site.cells[(finding.key, subject.key)]
        said = {"observed": f"shows it ({cell.count:,} times)",
                "failure": f"✗ fails ({cell.count:,} times)",
                "absent": "○ measured, not seen", "unmeasured": "· not measured"}[cell.status]
        rows.append([f'<th scope="row"><a href="../subjects/{e(subject.key)}.html">'
                     f"{e(subject.name)}</a> {e(subject.version)}</th>",
                     f'<td class="cell {e(cell.status)}">{e(said)}</td>'])
    note = ("<p>Only the subject whose report holds a finding is measured on it until a "
            "matrix report replays every witness on every subject (the transplant).</p>")
    return "<h2>Who shares it</h2>" + table(["subject", "this finding"], rows,
                                            "Subjects and this finding", "shared") + note


def _witness(finding: FindingView, witness: WitnessView) -> str:
    options = ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(witness.options.items()))
    parts = [f"<p>{e(witness.detail)}</p>",
             "<dl>", f"<dt>Where</dt><dd>{e(witness.track)} track, <code>"
             f"{e(witness.operation)}</code>, tier <code>{e(witness.tier)}</code>"
             f"{', ' + e(options) if options else ''}"
             f"{' (shrunk)' if witness.shrunk else ''}</dd>"]
    if witness.fixture:
        parts.append(f"<dt>File</dt><dd>the real file <a href=\"../files/{e(witness.fixture)}"
                     f".html\">{e(witness.fixture)}</a></dd>")
    parts.append("</dl>")
    if witness.document is not None:
        parts.append(f"<details><summary>tokenizer.json ({len(witness.document):,} "
                     f"characters) — <a href=\"{e(finding.key)}.tokenizer.json\" download>"
                     f"download</a></summary>{pre(witness.document, 'document')}</details>")
    parts += ["<h3>Input</h3>", _input(witness.input)]
    parts += ["<h3>Outputs, side by side</h3>",
              "<p>Positions that differ from upstream's are <mark>marked</mark> (and the "
              "row is named with ≠).</p>", _side_by_side(witness.outputs)]
    return "\n".join(parts)


def _input(value: Any) -> str:
    if value is None:
        return "<p>None: the file itself is loaded.</p>"
    text = pre(value if not isinstance(value, str) else json.dumps(value, ensure_ascii=False),
               "witness-input")
    if isinstance(value, str) and value and not value.isascii() and len(value) <= 64:
        text += "<p>Code points: " + " ".join(f"U+{ord(c):04X}" for c in value) + "</p>"
    return text


def _side_by_side(outputs: tuple[Output, ...]) -> str:
    base = outputs[0].outcome
    keys = [k for k in _ORDER if any(k in o.outcome for o in outputs)]
    keys += sorted({k for o in outputs for k in o.outcome} - set(keys))
    rows = []
    for key in keys:
        values = [o.outcome.get(key) for o in outputs]
        same = all(v == values[0] for v in values)
        name = e(key) if same else f"{e(key)} ≠"
        row = [f'<th scope="row">{name}</th>']
        for i, output in enumerate(outputs):
            if key not in output.outcome:
                row.append("<td>—</td>")
                continue
            marked = _marked(output.outcome[key], base.get(key)) if i else _plain(base[key])
            row.append(f'<td data-key="{e(key)}">{marked}</td>')
        rows.append(row)
    head = ["tier"] + [e(o.who) for o in outputs]
    return table(head, rows, "Every subject's output for the witness", "side")


def _plain(value: Any) -> str:
    return e(value) if isinstance(value, str) and value else e(json.dumps(value,
                                                                          ensure_ascii=False))


def _marked(value: Any, base: Any) -> str:
    if isinstance(value, list) and isinstance(base, list):
        items = []
        for i, item in enumerate(value):
            text = e(json.dumps(item, ensure_ascii=False))
            items.append(text if i < len(base) and base[i] == item else f"<mark>{text}</mark>")
        extra = "" if len(value) >= len(base) else \
            f' <mark title="missing">(−{len(base) - len(value)})</mark>'
        return "[" + ", ".join(items) + "]" + extra
    if isinstance(value, str) and isinstance(base, str) and value != base:
        start = 0
        while start < min(len(value), len(base)) and value[start] == base[start]:
            start += 1
        end = 0
        while end < min(len(value), len(base)) - start and value[-1 - end] == base[-1 - end]:
            end += 1
        middle = value[start:len(value) - end]
        return (e(value[:start]) + f"<mark>{e(middle) or '⌫'}</mark>"
                + e(value[len(value) - end:]))
    return _plain(value) if value == base else f"<mark>{_plain(value)}</mark>"
