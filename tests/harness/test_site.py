"""The static site (harness/site): built from the committed reports, a failure shown on the
matrix and on its own page, byte-identical rebuilds, an interrupted build leaving the
previous site intact, changes against an older report set, severity from witnesses."""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.__main__ import main
from harness.core import interrupts
from harness.report.files import read_report
from harness.site import writer
from harness.site.build import from_conformance
from harness.site.changes import compare, markdown, snapshot
from harness.site.severity import derive

ROOT = Path(__file__).resolve().parents[2]
REPORTS = [ROOT / "reports/conformance.yaml", ROOT / "reports/conformance-transformers-js.yaml"]
DATA = ROOT / "tests/data/markdown"


def _site(*paths: Path):  # type: ignore[no-untyped-def]
    return from_conformance([(p.name, read_report(p)) for p in paths], ROOT)


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_committed_reports_give_a_page_per_finding_subject_and_file(tmp_path: Path) -> None:
    site = _site(*REPORTS)
    assert [s.key for s in site.subjects] == ["reference", "transformers-js"]
    files = writer.render(site)
    for finding in site.findings:
        assert f"findings/{finding.key}.html" in files
        assert f'href="findings/{finding.key}.html"' in files["index.html"] or \
            all(c.status == "unmeasured" for c in site.row(finding))
    for row in site.real_files:
        assert f"files/{row.fixture}.html" in files
    # the witness shown is the report's: input and both outcomes
    report = read_report(REPORTS[1])
    entry = next(c for c in report.classes if c.id == "dropout-ignored")
    assert entry.witness is not None
    page = files["findings/dropout-ignored.html"]
    assert str(entry.observed) in files["index.html"].replace(",", "")
    assert json.dumps(entry.witness.input, ensure_ascii=False) in html.unescape(page)
    assert json.loads(files["findings/dropout-ignored.tokenizer.json"]) == \
        (entry.witness.case or {})["document"]


def test_a_failure_is_on_the_matrix_and_on_its_own_page() -> None:
    site = _site(DATA / "with-failure.yaml")
    failures = [f for f in site.findings if f.role == "failure"]
    assert failures
    files = writer.render(site)
    failure = failures[0]
    row = re.search(rf'<tr[^>]*id="row-{failure.key}".*?</tr>', files["index.html"], re.S)
    assert row is not None and "cell failure" in row.group(0) and "✗" in row.group(0)
    page = files[f"findings/{failure.key}.html"]
    assert "FAILURE" in page and "lenient/encode/tokens" in page
    assert "reproduce reports/conformance.yaml --failure F1" in page
    assert site.clustered()[0].role == "failure"  # failing rows first


def test_two_builds_are_byte_identical(tmp_path: Path) -> None:
    args = ["site", *map(str, REPORTS), "--output"]
    assert main([*args, str(tmp_path / "a")]) == 0
    assert main([*args, str(tmp_path / "b")]) == 0
    assert main([*args, str(tmp_path / "a")]) == 0  # a rebuild over the old site
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")


def test_an_interrupted_build_leaves_the_previous_site(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    output = tmp_path / "site"
    writer.write_site(writer.render(_site(DATA / "without-failure.yaml")), output)
    before = _tree(output)
    calls = {"n": 0}

    def check() -> None:
        calls["n"] += 1
        if calls["n"] > 20:
            raise interrupts.Interrupted(15)

    files = writer.render(_site(*REPORTS))
    monkeypatch.setattr(interrupts, "check", check)
    with pytest.raises(interrupts.Interrupted):  # a SIGTERM half-way through the writing
        writer.write_site(files, output)
    assert calls["n"] > 20
    assert _tree(output) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no staging left


def test_an_output_that_is_not_a_site_is_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    assert main(["site", str(REPORTS[0]), "--output", str(tmp_path)]) == 2
    assert "is not a site written by this command" in capsys.readouterr().err
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "mine"


def test_changes_name_new_and_fixed_findings(tmp_path: Path) -> None:
    now, old = _site(DATA / "with-failure.yaml"), _site(DATA / "without-failure.yaml")
    changes = compare(snapshot(now), snapshot(old))
    assert any(c.finding.startswith("reference--f1") for c in changes.new)
    back = compare(snapshot(old), snapshot(now))
    assert any(c.finding.startswith("reference--f1") for c in back.fixed)
    assert "Fixed (trophy case)" in markdown(back, "old")
    out = tmp_path / "changes.md"
    assert main(["site", str(DATA / "with-failure.yaml"), "--output", str(tmp_path / "s"),
                 "--against", str(tmp_path / "s-old" / "matrix.json"),
                 "--changes", str(out)]) == 2  # no such snapshot: one line, exit 2
    assert main(["site", str(DATA / "without-failure.yaml"), "--output",
                 str(tmp_path / "s-old")]) == 0
    assert main(["site", str(DATA / "with-failure.yaml"), "--output", str(tmp_path / "s"),
                 "--against", str(tmp_path / "s-old" / "matrix.json"),
                 "--changes", str(out)]) == 0
    assert "New findings" in out.read_text(encoding="utf-8")
    assert "New findings" in (tmp_path / "s" / "changes.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(("subject", "upstream", "grade"), [
    ({"outcome": "refused", "rule": "x"}, {"outcome": "loaded"}, "refusal"),
    ({"outcome": "crashed", "kind": "timeout"}, {"outcome": "loaded"}, "hang"),
    ({"outcome": "crashed", "kind": "protocol"}, {"outcome": "decoded"}, "garbage"),
    ({"outcome": "crashed", "kind": "panic"}, {"outcome": "decoded"}, "crash"),
    ({"outcome": "decoded", "text": ""}, {"outcome": "decoded", "text": "ab"}, "empty"),
    ({"outcome": "decoded", "text": "a"}, {"outcome": "decoded", "text": "ab"}, "empty"),
    ({"outcome": "decoded", "text": "ba"}, {"outcome": "decoded", "text": "ab"}, "text"),
    ({"outcome": "encoded", "ids": [1], "tokens": ["ab"]},
     {"outcome": "encoded", "ids": [2, 3], "tokens": ["a", "b"]}, "segmentation"),
    ({"outcome": "encoded", "ids": [1, 2]}, {"outcome": "encoded", "ids": [1, 2]},
     "segmentation"),
    ({"outcome": "encoded", "ids": [4], "tokens": ["x"]},
     {"outcome": "encoded", "ids": [5], "tokens": ["y"]}, "text"),
])
def test_severity_is_derived_from_the_two_outcomes(subject: dict[str, object],
                                                   upstream: dict[str, object],
                                                   grade: str) -> None:
    assert derive("encode", "ids", subject, upstream)[0] == grade


def test_a_real_sigterm_during_a_build_leaves_a_whole_site(tmp_path: Path) -> None:
    """SIGTERM sent to ``python -m harness site`` at spread moments of a build: each time
    the output is the previous site or the complete new one, never a mixture, and no
    staging folder is left; at least one signal lands while it works and says so."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "harness", "site", *map(str, REPORTS), "--output"]
    complete = tmp_path / "complete"
    started = time.monotonic()
    subprocess.run([*command, str(complete)], env=env, check=True, capture_output=True,
                   timeout=300)
    duration = time.monotonic() - started
    new = _tree(complete)
    output = tmp_path / "site"
    interrupted = 0
    for k in range(1, 8):
        writer.write_site(writer.render(_site(DATA / "without-failure.yaml")), output)
        before = _tree(output)
        run = subprocess.Popen([*command, str(output)], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        time.sleep(duration * k / 8)
        run.send_signal(signal.SIGTERM)
        _, stderr = run.communicate(timeout=30)
        assert "Traceback" not in stderr
        if "interrupted by SIGTERM" in stderr:
            interrupted += 1
            assert run.returncode != 0
        assert _tree(output) in (before, new)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["complete", "site"]
    assert interrupted >= 1
