"""The site in a real browser: Debian's Chromium, headless, driven through Debian's
chromium-driver (W3C WebDriver, tests/webdriver.py), pages from file://.

Every generated page is loaded; the test fails on a console error or a broken local link,
clicks a filter box and sees the row count change, clicks a matrix cell and lands on its
finding page, checks the witness there is the report's, and saves screenshots (the
committed ones are docs/site-matrix.png and docs/site-finding.png). Skips, naming the
reason, where chromium or chromedriver is missing (.ci/run installs both).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from webdriver import CHROMEDRIVER, CHROMIUM_BINARY, ELEMENT, Browser

from harness.__main__ import main
from harness.report.files import read_report

ROOT = Path(__file__).resolve().parents[2]
REPORTS = [ROOT / "reports/conformance.yaml", ROOT / "reports/conformance-transformers-js.yaml"]

pytestmark = pytest.mark.skipif(
    not (CHROMIUM_BINARY.exists() and CHROMEDRIVER.exists()),
    reason="no Chromium or chromedriver (apt-get install chromium chromium-driver)")


def _local_links(dom: str, page: Path) -> list[Path]:
    found = []
    for raw in re.findall(r'(?:href|src)="([^"]+)"', dom):
        target = html.unescape(raw)
        parsed = urlparse(target)
        if parsed.scheme in ("http", "https", "data", "mailto") or target.startswith("#"):
            continue
        found.append((page.parent / unquote(parsed.path)).resolve())
    return found


def _errors(browser: Browser) -> list[str]:
    return [str(entry.get("message"))[:300] for entry in browser.console()
            if entry.get("level") == "SEVERE"]


def test_the_site_in_chromium(tmp_path: Path) -> None:
    site = tmp_path / "site"
    assert main(["site", *map(str, REPORTS), "--output", str(site)]) == 0
    pages = sorted(site.rglob("*.html"))
    # every link of every page points at a file of the site
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in _local_links(text, page):
            assert target.is_file(), f"{page.relative_to(site)}: broken link {target}"
    with Browser(tmp_path / "profile") as browser:
        # every page in the browser, none with a console error
        for page in pages:
            browser.open(page)
            assert "</html>" in browser.source() or "<body" in browser.source()
            assert not _errors(browser), f"{page.relative_to(site)}: {_errors(browser)}"
        matrix = site / "index.html"
        browser.open(matrix)
        shown = int(browser.text("#shown"))
        assert shown > 0  # the filter script ran
        # unticking every severity box hides every row; ticking them back shows them again
        boxes = [box[ELEMENT] for box in browser.command("POST", "/elements", {
            "using": "css selector", "value": 'input[name="severity"]'})]
        for box in boxes:
            browser.click(box)
        assert int(browser.text("#shown")) == 0
        for box in boxes:
            browser.click(box)
        assert int(browser.text("#shown")) == shown
        # unticking a subject hides its column
        column = 'td.cell[data-subject="transformers-js"]'
        assert browser.command("GET", f"/element/{browser.find(column)}/displayed") is True
        subject = browser.find('input[name="subject"][value="transformers-js"]')
        browser.click(subject)
        assert browser.command("GET", f"/element/{browser.find(column)}/displayed") is False
        browser.click(subject)
        # a click on a matrix cell of transformers.js lands on that finding's page
        cell = browser.find('td.cell.observed[data-subject="transformers-js"] a')
        href = browser.command("GET", f"/element/{cell}/attribute/href")
        browser.click(cell)
        landed = Path(unquote(urlparse(browser.url()).path))
        assert landed == (matrix.parent / href).resolve(), (landed, href)
        text = html.unescape(browser.source())
        report = read_report(REPORTS[1])
        entry = next(c for c in report.classes if f"findings/{c.id}.html" == href)
        assert entry.witness is not None
        assert json.dumps(entry.witness.input, ensure_ascii=False) in text
        for side in (entry.witness.outcome or {}, entry.witness.upstream or {}):
            for value in side.get("ids", [])[:3]:
                assert str(value) in text
        assert not _errors(browser)
        # screenshots
        out = tmp_path / "screenshots"
        out.mkdir()
        browser.screenshot(out / "site-finding.png")
        browser.open(matrix)
        browser.screenshot(out / "site-matrix.png")
    assert (out / "site-matrix.png").stat().st_size > 10_000
    assert (out / "site-finding.png").stat().st_size > 10_000
