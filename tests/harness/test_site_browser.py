"""The site in a real browser: Debian's Chromium, headless, loading pages from file://.

It fails on a console error or a broken local link, follows a matrix cell's link to its
finding page and checks the witness there is the report's, and saves screenshots (the
committed ones are docs/site-matrix.png and docs/site-finding.png). Skips, naming the
reason, where /usr/bin/chromium is missing (.ci/run installs chromium and chromium-driver).
"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from harness.__main__ import main
from harness.report.files import read_report

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
REPORTS = [ROOT / "reports/conformance.yaml", ROOT / "reports/conformance-transformers-js.yaml"]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0", "--window-size=1400,1100"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="no /usr/bin/chromium (apt-get install chromium "
                                       "chromium-driver)")


def _chromium(tmp: Path, page: Path, *action: str) -> tuple[str, str]:
    profile = tmp / f"profile-{page.stem}-{len(action)}"
    done = subprocess.run([str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", *action,
                           page.as_uri()], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, done.stderr


def _load(tmp: Path, page: Path) -> str:
    """The page's DOM after its scripts ran; fails on any console message of level error."""
    dom, log = _chromium(tmp, page, "--dump-dom")
    console = [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, f"{page.name}: {console}"
    assert "</html>" in dom
    return dom


def _local_links(dom: str, page: Path) -> list[Path]:
    found = []
    for raw in re.findall(r'(?:href|src)="([^"]+)"', dom):
        target = html.unescape(raw)
        parsed = urlparse(target)
        if parsed.scheme in ("http", "https", "data", "mailto") or target.startswith("#"):
            continue
        found.append((page.parent / unquote(parsed.path)).resolve())
    return found


def test_the_site_in_chromium(tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert main(["site", *map(str, REPORTS), "--output", str(site)]) == 0
    pages = sorted(site.rglob("*.html"))
    # every link of every page points at a file of the site
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in _local_links(text, page):
            assert target.is_file(), f"{page.relative_to(site)}: broken link {target}"
    # a few pages in the browser (the machine is shared): the matrix with its filter script,
    # a subject, a real file, the changes; then a matrix cell followed to its finding page
    matrix = site / "index.html"
    dom = _load(tmp_path, matrix)
    assert re.search(r'<span id="shown">\d+</span>', dom)  # the filter script ran
    for page in (site / "subjects/transformers-js.html", site / "files/llama-3.html",
                 site / "changes.html"):
        _load(tmp_path, page)
    cell = re.search(r'<td class="cell observed[^"]*" data-subject="transformers-js">'
                     r'<a href="([^"]+)"', dom)
    assert cell is not None
    finding = (matrix.parent / cell.group(1)).resolve()
    shown = _load(tmp_path, finding)
    report = read_report(REPORTS[1])
    entry = next(c for c in report.classes if f"findings/{c.id}.html" == cell.group(1))
    assert entry.witness is not None
    text = html.unescape(shown)
    assert json.dumps(entry.witness.input, ensure_ascii=False) in text
    for side in (entry.witness.reference or {}, entry.witness.upstream or {}):
        for value in side.get("ids", [])[:3]:
            assert str(value) in text
    # screenshots
    out = tmp_path / "screenshots"
    out.mkdir()
    _chromium(tmp_path, matrix, f"--screenshot={out / 'site-matrix.png'}")
    _chromium(tmp_path, finding, f"--screenshot={out / 'site-finding.png'}")
    assert (out / "site-matrix.png").stat().st_size > 10_000
    assert (out / "site-finding.png").stat().st_size > 10_000
