"""The pages other than a finding's: the matrix (index.html, with the charts), the
subjects and their pages, the real files and their pages, the changes against an older
report set, and the severity legend."""

from __future__ import annotations

from .changes import Changes
from .charts import Bar, bars, diverging
from .html import badge, e, legend, page, table
from .model import Cell, FindingView, Site
from .severity import BY_GRADE, GRADES

_FAILURE = ' <span class="fail">✗ failure</span>'
_LINEAGES = ("sentencepiece", "byte-level", "other")


def matrix_page(site: Site) -> str:
    ordered = site.clustered()
    head = ['finding']
    head += [f'<span data-subject="{e(s.key)}"><a href="subjects/{e(s.key)}.html">'
             f"{e(s.name)}</a><br><small>{e(s.version)}</small></span>" for s in site.subjects]
    rows, previous = [], None
    for finding in ordered:
        vector = tuple(c.status for c in site.row(finding))
        first = previous is not None and vector != previous
        previous = vector
        cells = [f'<th scope="row"><a href="findings/{e(finding.key)}.html">'
                 f"<code>{e(finding.id)}</code></a><br><small>{e(finding.title)}</small></th>"]
        cells += [_cell(site, finding, s.key, site.cells[(finding.key, s.key)])
                  for s in site.subjects]
        rows.append((finding, first, cells))
    body = [f"<h1>Conformance matrix: {len(site.subjects)} subjects × "
            f"{len(site.findings)} findings</h1>",
            "<p>Each row is an intended class of our reference, a known divergence of a "
            "subject, or a failure; each column a subject at its exact version, judged "
            "against upstream <code>tokenizers</code>. A cell gives the severity (colour "
            "<em>and</em> symbol) and how many comparisons showed it. Rows with the same "
            "result vector sit together.</p>", legend(), _filters(site),
            f'<p><span id="shown">{len(rows)}</span> of {len(rows)} rows shown.</p>',
            '<table id="matrix"><caption>Findings (rows) × subjects (columns)</caption>'
            "<thead><tr>" + "".join(
                f'<th scope="col"{_subject_attr(site, i)}>{h}</th>' for i, h in enumerate(head))
            + "</tr></thead><tbody>"]
    for finding, first, cells in rows:
        css = ' class="cluster"' if first else ""
        body.append(f'<tr{css} data-lineage="{e(finding.lineage)}" '
                    f'data-severity="{e(finding.severity)}" id="row-{e(finding.key)}">'
                    + "".join(cells) + "</tr>")
    body.append("</tbody></table>")
    body += ["<h2>Counts</h2>", _severity_chart(site), _class_chart(site)]
    body += ["<h2>Reports</h2>", "<ul>" + "".join(
        f"<li><code>{e(path)}</code></li>" for path in site.sources) + "</ul>"]
    return page("Matrix", "\n".join(body), script=True)


def _subject_attr(site: Site, index: int) -> str:
    return f' data-subject="{e(site.subjects[index - 1].key)}"' if index else ""


def _cell(site: Site, finding: FindingView, subject: str, cell: Cell) -> str:
    link = f"findings/{e(finding.key)}.html"
    info = BY_GRADE[finding.severity]
    if cell.status == "unmeasured":
        return (f'<td class="cell unmeasured" data-subject="{e(subject)}" '
                f'title="not measured on this subject">·<span class="sr"> not measured</span>'
                "</td>")
    if cell.status == "absent":
        return (f'<td class="cell absent" data-subject="{e(subject)}">'
                f'<a href="{link}" title="measured, not seen">○ 0</a></td>')
    prefix = "✗ " if cell.status == "failure" else ""
    word = "failure, " if cell.status == "failure" else ""
    return (f'<td class="cell {e(cell.status)} sev-{e(info.grade)}" data-subject="{e(subject)}">'
            f'<a href="{link}" title="{e(word + info.label)}">{prefix}'
            f'<span aria-label="{e(info.grade)}">{info.symbol}</span> {cell.count:,}</a></td>')


def _filters(site: Site) -> str:
    def boxes(name: str, values: list[tuple[str, str]]) -> str:
        return "".join(f'<label><input type="checkbox" name="{name}" value="{e(v)}" checked> '
                       f"{label}</label> " for v, label in values)
    return ('<form id="filters" aria-label="filters">'
            f"<fieldset><legend>Lineage</legend>{boxes('lineage', [(x, e(x)) for x in _LINEAGES])}"
            "</fieldset><fieldset><legend>Severity</legend>"
            f"{boxes('severity', [(g.grade, g.symbol + ' ' + e(g.grade)) for g in GRADES])}"
            "</fieldset><fieldset><legend>Subject</legend>"
            f"{boxes('subject', [(s.key, e(s.name)) for s in site.subjects])}"
            "</fieldset></form>")


def _severity_chart(site: Site) -> str:
    counts = {g.grade: 0 for g in GRADES}
    for finding in site.findings:
        if site.shown(finding):
            counts[finding.severity] += 1
    return bars("by-severity", "Findings shown by some subject, per severity",
                [Bar(g.label, counts[g.grade], f"sev-{g.grade}", g.symbol) for g in GRADES])


def _class_chart(site: Site) -> str:
    rows = []
    for finding in sorted(site.findings, key=lambda f: f.key):
        total = sum(c.count for c in site.row(finding) if c.status in ("observed", "failure"))
        if total:
            info = BY_GRADE[finding.severity]
            rows.append(Bar(finding.id, total, f"sev-{info.grade}", info.symbol))
    return bars("by-class", "Comparisons each finding explained (all subjects)", rows)


def subjects_page(site: Site) -> str:
    rows = [[f'<th scope="row"><a href="subjects/{e(s.key)}.html">{e(s.name)}</a></th>',
             f"<td>{e(s.version)}</td>", f"<td>{_verdict(s.verdict)}</td>",
             f'<td class="num">{s.examples:,}</td>', f'<td class="num">{s.comparisons:,}</td>',
             f"<td><code>{e(s.report)}</code></td>"] for s in site.subjects]
    body = "<h1>Subjects</h1>" + table(
        ["subject", "version", "verdict", "cases", "comparisons", "report"], rows,
        "Every subject judged")
    return page("Subjects", body)


def _verdict(verdict: str) -> str:
    if verdict == "pass":
        return '<span class="pass">✓ pass</span>'
    if verdict == "incomplete":
        return '<span class="incomplete">⚠ incomplete</span>'
    return '<span class="fail">✗ fail</span>'


def subject_page(site: Site, key: str) -> str:
    subject = next(s for s in site.subjects if s.key == key)
    parts = [f"<h1>{e(subject.name)}</h1>", "<dl>",
             f"<dt>Version</dt><dd><code>{e(subject.version)}</code></dd>",
             f"<dt>Installed</dt><dd>{e(subject.install)}</dd>",
             f"<dt>Judged against</dt><dd>{e(subject.upstream_version)}</dd>",
             f"<dt>Verdict</dt><dd>{_verdict(subject.verdict)}"
             + (" — " + e(", ".join(subject.failing_parts)) if subject.failing_parts else "")
             + "</dd>",
             f"<dt>Run</dt><dd><code>{e(subject.command)}</code>: {subject.examples:,} cases, "
             f"{subject.comparisons:,} comparisons</dd>"]
    if subject.capabilities:
        parts.append("<dt>Calibration</dt><dd>answers "
                     + ", ".join(f"<code>{e(c)}</code>" for c in subject.capabilities)
                     + f"; process restarts: {subject.restarts}</dd>")
    parts.append("</dl>")
    for grade in reversed(GRADES):
        mine = [f for f in site.findings
                if f.severity == grade.grade and site.cells[(f.key, key)].status
                in ("observed", "failure")]
        if not mine:
            continue
        rows = [[f'<th scope="row"><a href="../findings/{e(f.key)}.html"><code>{e(f.id)}</code>'
                 f"</a>{_FAILURE if f.role == 'failure' else ''}"
                 f"</th>", f"<td>{e(f.title)}</td>",
                 f'<td class="num">{site.cells[(f.key, key)].count:,}</td>'] for f in mine]
        parts.append(f"<h2>{badge(grade.grade)} {e(grade.label)}</h2>")
        parts.append(table(["finding", "title", "count"], rows,
                           f"{e(subject.name)}: {e(grade.label)}"))
    unseen = [f for f in site.findings if site.cells[(f.key, key)].status == "absent"]
    if unseen:
        parts.append("<h2>Measured, not seen</h2><p>" + ", ".join(
            f'<a href="../findings/{e(f.key)}.html"><code>{e(f.id)}</code></a>'
            for f in unseen) + "</p>")
    return page(subject.name, "\n".join(parts), depth=1)


def files_page(site: Site) -> str:
    rows = [[f'<th scope="row"><a href="files/{e(r.fixture)}.html">{e(r.fixture)}</a></th>',
             f"<td>{e(r.lineage)}</td>", f'<td class="num">{r.corpus_texts:,}</td>',
             f'<td class="num">{r.generated_texts:,}</td>',
             "<td>" + "; ".join(
                 f"{e(s)}: {len(r.by_subject.get(s, {}))} findings, {r.failures.get(s, 0)} "
                 "failures" for s in sorted(r.by_subject)) + "</td>"]
            for r in site.real_files]
    body = "<h1>Real files</h1>" + table(
        ["file", "lineage", "corpus texts", "generated texts", "per subject"], rows,
        "Real tokenizer files through every subject")
    return page("Real files", body)


def file_page(site: Site, fixture: str) -> str:
    row = next(r for r in site.real_files if r.fixture == fixture)
    keys = {f.key for f in site.findings}
    parts = [f"<h1>{e(row.fixture)}</h1>",
             f"<p>sha256 <code>{e(row.sha256)}</code>; {e(row.lineage)}; "
             f"{row.corpus_texts:,} corpus texts and {row.generated_texts:,} generated "
             "texts per subject.</p>"]
    for subject in site.subjects:
        if subject.key not in row.by_subject:
            parts.append(f"<h2>{e(subject.name)}</h2><p>Not run on this file.</p>")
            continue
        found = row.by_subject[subject.key]
        body_rows = [['<th scope="row">' + (f'<a href="../findings/{e(k)}.html"><code>{e(k)}'
                      "</code></a>" if k in keys else f"<code>{e(k)}</code>") + "</th>",
                      f'<td class="num">{n:,}</td>'] for k, n in found.items()]
        total = row.comparisons.get(subject.key, 0)
        parts.append(f"<h2>{e(subject.name)} {e(subject.version)}</h2>"
                     f"<p>{total:,} comparisons, {row.failures.get(subject.key, 0):,} "
                     "failures.</p>")
        parts.append(table(["finding", "comparisons it explained"], body_rows,
                           f"Findings {e(row.fixture)} triggers on {e(subject.name)}")
                     if body_rows else "<p>No divergence at all on this file.</p>")
    return page(row.fixture, "\n".join(parts), depth=1)


def changes_page(changes: Changes | None, against: str) -> str:
    if changes is None:
        return page("Changes", "<h1>Changes</h1><p>No older report set was given (<code>"
                    "python -m harness site REPORTS --against OLD...</code>).</p>")
    parts = [f"<h1>Changes against <code>{e(against)}</code></h1>"]
    per: dict[str, list[int]] = {}
    for change in changes.new:
        per.setdefault(change.subject, [0, 0])[0] += 1
    for change in changes.fixed:
        per.setdefault(change.subject, [0, 0])[1] += 1
    parts.append(diverging("changes", "New and fixed findings per subject",
                           [(s, n, f) for s, (n, f) in sorted(per.items())]))
    for title, rows in (("Trophy case: fixed", changes.fixed), ("New findings", changes.new)):
        parts.append(f"<h2>{e(title)} ({len(rows)})</h2>")
        if rows:
            parts.append(table(["subject", "finding", "severity", "before", "now"], [[
                f'<td>{e(c.subject)}</td>', f"<th scope=\"row\"><code>{e(c.finding)}</code> "
                f"{e(c.title)}</th>", _grade(c.severity),
                f"<td>{e(c.before)} ({c.count_before:,})</td>",
                f"<td>{e(c.after)} ({c.count_after:,})</td>"] for c in rows], e(title)))
    moved = [(s, b, a) for s, (b, a) in changes.by_subject.items()]
    parts.append(table(["subject", "findings before", "now", "direction"], [[
        f'<th scope="row">{e(s)}</th>', f'<td class="num">{b}</td>', f'<td class="num">{a}</td>',
        f"<td>{'better ▲' if a < b else 'worse ▼' if a > b else 'same ='}</td>"]
        for s, b, a in moved], "Subjects that got better or worse"))
    return page("Changes", "\n".join(parts))


def _grade(grade: str) -> str:
    return f"<td>{badge(BY_GRADE[grade].grade) if grade in BY_GRADE else e(grade)}</td>"


def legend_page() -> str:
    rows = [[f'<th scope="row">{badge(g.grade)}</th>', f"<td>{g.rank}</td>",
             f"<td>{e(g.label)}</td>"] for g in GRADES]
    body = ("<h1>Severity</h1><p>Mildest first. A finding's grade is derived from its "
            "witness (the subject's outcome against upstream's) or, without a witness, "
            "declared once for its entry.</p>"
            + table(["grade", "rank", "meaning"], rows, "Severity grades"))
    return page("Severity", body)
