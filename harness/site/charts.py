"""Charts as inline SVG, drawn by this code (no library, no CDN): horizontal bars.

Each chart is an ``<svg role="img">`` with a ``<title>`` and a ``<desc>`` that says in
words what the bars say, and each bar carries its number as text, so nothing depends on
colour or on seeing the picture.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

ROW = 22
LABEL_WIDTH = 300
BAR_WIDTH = 360
VALUE_WIDTH = 90


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    #: A CSS class colouring the bar (e.g. ``sev-crash``); the symbol says it without colour.
    css: str = "bar"
    symbol: str = ""


def bars(ident: str, title: str, rows: list[Bar]) -> str:
    """A horizontal bar chart; bars scaled to the largest value."""
    top = max((r.value for r in rows), default=0) or 1
    height = ROW * max(len(rows), 1) + 8
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    desc = "; ".join(f"{r.label}: {r.value:,}" for r in rows) or "nothing to show"
    parts = [f'<svg class="chart" id="{escape(ident)}" role="img" '
             f'aria-labelledby="{escape(ident)}-title {escape(ident)}-desc" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f'<title id="{escape(ident)}-title">{escape(title)}</title>',
             f'<desc id="{escape(ident)}-desc">{escape(desc)}</desc>']
    for i, row in enumerate(rows):
        y = 4 + i * ROW
        length = round(BAR_WIDTH * row.value / top, 1)
        label = f"{row.symbol} {row.label}" if row.symbol else row.label
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end">'
                     f'{escape(_clip(label))}</text>')
        parts.append(f'<rect class="{escape(row.css)}" x="{LABEL_WIDTH}" y="{y + 3}" '
                     f'width="{length}" height="{ROW - 6}"/>')
        parts.append(f'<text x="{LABEL_WIDTH + length + 6}" y="{y + 15}">{row.value:,}</text>')
    parts.append("</svg>")
    return "".join(parts)


def diverging(ident: str, title: str, rows: list[tuple[str, int, int]]) -> str:
    """Per label, a bar left for what got worse (new) and right for what got better
    (fixed): ``rows`` is (label, new, fixed)."""
    top = max((max(n, f) for _l, n, f in rows), default=0) or 1
    half = BAR_WIDTH // 2
    height = ROW * max(len(rows), 1) + 26
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    desc = "; ".join(f"{label}: {new} new, {fixed} fixed" for label, new, fixed in rows) \
        or "no change"
    mid = LABEL_WIDTH + half
    parts = [f'<svg class="chart" id="{escape(ident)}" role="img" '
             f'aria-labelledby="{escape(ident)}-title {escape(ident)}-desc" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'xmlns="http://www.w3.org/2000/svg">',
             f'<title id="{escape(ident)}-title">{escape(title)}</title>',
             f'<desc id="{escape(ident)}-desc">{escape(desc)}</desc>',
             f'<text x="{mid - 6}" y="14" text-anchor="end">◀ new</text>',
             f'<text x="{mid + 6}" y="14">fixed ▶</text>']
    for i, (label, new, fixed) in enumerate(rows):
        y = 22 + i * ROW
        left = round((half - 30) * new / top, 1)
        right = round((half - 30) * fixed / top, 1)
        parts.append(f'<text x="{LABEL_WIDTH - 6}" y="{y + 15}" text-anchor="end">'
                     f'{escape(_clip(label))}</text>')
        parts.append(f'<rect class="worse" x="{mid - left}" y="{y + 3}" width="{left}" '
                     f'height="{ROW - 6}"/>')
        parts.append(f'<rect class="better" x="{mid}" y="{y + 3}" width="{right}" '
                     f'height="{ROW - 6}"/>')
        parts.append(f'<text x="{mid - left - 4}" y="{y + 15}" text-anchor="end">{new}</text>')
        parts.append(f'<text x="{mid + right + 4}" y="{y + 15}">{fixed}</text>')
    parts.append(f'<line x1="{mid}" y1="18" x2="{mid}" y2="{height}" class="axis"/></svg>')
    return "".join(parts)


def _clip(text: str, limit: int = 44) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
