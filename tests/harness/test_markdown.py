"""``python -m harness report --markdown``: the rendering of committed report fixtures
against committed expected files.

The two reports in ``tests/data/markdown/`` are small, hand-made YAML files of the report
model (one with a generated failure, a real-model failure and a stale pinned witness; one
that passes); the ``.md`` files next to them were rendered once and reviewed. After a
deliberate change to the renderer, ``UPDATE_MARKDOWN_EXPECTED=1 pytest
tests/harness/test_markdown.py`` rewrites them: review the diff before committing it.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest

from harness.__main__ import main
from harness.report.files import read_report
from harness.report.markdown import render
from harness.report.model import Failure, Report, WitnessRecord
from harness.site.records import titles

DATA = Path(__file__).resolve().parents[1] / "data" / "markdown"
UPDATE = bool(os.environ.get("UPDATE_MARKDOWN_EXPECTED"))

#: expected file -> (report, report given as --against or None)
CASES = {
    "with-failure.md": ("with-failure.yaml", None),
    "without-failure.md": ("without-failure.yaml", None),
    "with-failure-against-without.md": ("with-failure.yaml", "without-failure.yaml"),
    "without-failure-against-itself.md": ("without-failure.yaml", "without-failure.yaml"),
}


def _render(report: str, against: str | None) -> str:
    read = read_report(DATA / report)
    return render(read, against=read_report(DATA / against) if against else None,
                  against_name=against,
                  titles=titles([c.decision for c in read.classes], DATA.parent.parent.parent))


@pytest.mark.parametrize("expected", sorted(CASES))
def test_rendering_matches_the_expected_file(expected: str) -> None:
    text = _render(*CASES[expected])
    path = DATA / expected
    if UPDATE:
        path.write_text(text, encoding="utf-8", newline="\n")
    assert text == path.read_text(encoding="utf-8")


def test_failures_come_first_with_their_reproducer() -> None:
    text = _render("with-failure.yaml", None)
    assert text.startswith("## ❌ Conformance: fail")
    order = [text.index(h) for h in ("### Failures", "### Intended divergence classes",
                                     "### Real models", "### Coverage")]
    assert order == sorted(order)
    failure = text[text.index("#### F1"):text.index("#### Real model")]
    assert "<details><summary>tokenizer.json" in failure
    assert "```json\n{" in failure
    assert "| | reference | upstream |" in failure
    assert "`python -m harness reproduce reports/conformance.yaml --failure F1`" in failure


def test_a_passing_report_says_so() -> None:
    text = _render("without-failure.yaml", None)
    assert text.startswith("## ✅ Conformance: pass")
    assert "None: every divergence is explained by an intended class." in text
    assert "<details><summary>tokenizer.json" not in text  # no failure witness to show


def test_changes_name_new_failures_classes_and_dropped_coverage() -> None:
    text = _render("with-failure.yaml", "without-failure.yaml")
    changes = text[text.index("### Changes"):text.index("### Failures")]
    assert "**pass → fail**" in changes
    assert "F1 `lenient/encode/tokens" in changes
    assert "real model `mistral-v0.1`" in changes
    assert "Classes that appeared: `template-special-spans`" in changes
    assert "vanished:** `strict-byte-alphabet-incomplete`" in changes
    assert "`bf-ordering`: 5 → 0" in changes
    assert "`bf-fact-2-all-or-nothing`: 60 → 20" in changes
    # Nothing new the other way round but the failures that went away.
    back = _render("without-failure.yaml", "with-failure.yaml")
    assert "Failures no longer seen (3)" in back
    assert "New failures" not in back


def test_table_cells_and_inline_code_survive_pipes_and_backticks() -> None:
    text = _render("with-failure.yaml", None)
    # A pipe inside a table cell is escaped; an input holding a backtick gets a longer fence.
    assert '`["a\\|", "<unk>", "<unk>"]`' in text
    assert '``"a|`é"`` (U+0061 U+007C U+0060 U+00E9)' in text
    # Prose from the report is escaped, so "<unk>" is not taken for an HTML tag.
    assert "position 1: '\\<unk\\>' vs upstream '\\`'" in text


def test_link_base_prefixes_the_decision_links() -> None:
    base = "https://example.invalid/repo/blob/abc/"
    text = render(read_report(DATA / "without-failure.yaml"), link_base=base)
    assert f"[0007]({base}docs/decisions/0007-decode-unknown-ids.md)" in text


def test_cli_writes_the_same_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    out = tmp_path / "summary.md"
    assert main(["report", "--markdown", str(DATA / "with-failure.yaml"), "--output",
                 str(out)]) == 0
    assert out.read_text(encoding="utf-8") == (DATA / "with-failure.md").read_text(
        encoding="utf-8")
    assert main(["report", "--markdown", str(DATA / "without-failure.yaml")]) == 0
    assert capsys.readouterr().out == (DATA / "without-failure.md").read_text(encoding="utf-8")


def test_the_headline_names_only_what_failed() -> None:
    report = read_report(DATA / "with-failure.yaml")
    report.failures = []
    report.real_models.failures = 0
    assert render(report).startswith("## ❌ Conformance: fail — 1 stale pinned witness\n")
    report.summary.stale_pinned_witnesses = []
    assert render(report).startswith("## ❌ Conformance: fail — see the report")


def _morph_track_failing(report: Report) -> Report:
    """``report`` whose only failing part is the unified tokenizer's morph track."""
    failing = copy.deepcopy(report)
    assert failing.unified_morph_track is not None
    failing.verdict = "fail"
    failing.unified_morph_track.tally.failures = [Failure(
        id="morph:F1", signature="segmentation: a morph token outside every Mongolian run",
        count=3, witness=WitnessRecord(detail="'ᠮᠣ' at 0:2", classes=[], shrunk=False, case_size=2,
                                 input="ᠮᠣ x", fixture="unified-morph-track"))]
    return failing


def test_a_morph_track_failure_is_named_in_the_headline_and_the_failures() -> None:
    report = _morph_track_failing(read_report(DATA / "without-failure.yaml"))
    text = render(report)
    assert text.startswith("## ❌ Conformance: fail — 3 morph-track failures\n")
    failures = text[text.index("### Failures"):text.index("### Intended divergence classes")]
    assert "#### Morph track · `segmentation: a morph token outside every Mongolian run`" \
        in failures
    assert "'ᠮᠣ' at 0:2" in failures and "None: every divergence" not in failures
    changes = render(report, against=read_report(DATA / "without-failure.yaml"))
    assert "morph track: `segmentation: a morph token outside every Mongolian run`" in changes


def test_a_harness_error_fails_and_is_shown() -> None:
    report = read_report(DATA / "without-failure.yaml")
    report.verdict = "fail"
    report.harness_errors = ["KeyError: 'x'\n  File \"predicates.py\", line 1"]
    text = render(report)
    assert text.startswith("## ❌ Conformance: fail — 1 harness error\n")
    assert "#### Harness errors" in text and "KeyError: 'x'" in text


def test_a_file_that_is_not_a_complete_report_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, text in (("empty.yaml", "{}\n"), ("list.yaml", "- 1\n"),
                       ("old.yaml", "verdict: pass\n"),
                       ("cut.yaml", (DATA / "with-failure.yaml").read_text(
                           encoding="utf-8")[:3000].rsplit("\n", 1)[0] + "\n")):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        assert main(["report", "--markdown", str(path)]) == 2
        err = capsys.readouterr()
        assert err.out == ""
        assert len(err.err.strip().splitlines()) == 1 and "report" in err.err
    assert main(["report", "--markdown", str(tmp_path / "missing.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_reach_is_shown_when_measured_and_short_modules_stand_out() -> None:
    from harness.report.model import ModuleReach, ReachRecord

    report = read_report(DATA / "without-failure.yaml")
    assert "Reach of implementation/" not in render(report)
    report.coverage.reach = ReachRecord(95.0, {
        "bpe": ModuleReach(400, 392, 148, 140, 96.4),
        "patterns": ModuleReach(289, 253, 112, 85, 84.3)}, ["patterns", "oniguruma"])
    shown = render(report)
    assert "### Reach of implementation/" in shown
    assert "| `bpe` | 392/400 | 140/148 | 96.4% | ok |" in shown
    assert "| `patterns` | 253/289 | 85/112 | 84.3% | **short** |" in shown
    assert "Not measured: `oniguruma`." in shown
