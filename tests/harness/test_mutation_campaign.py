"""The mutation campaign's own parts (harness/mutation, decision 0046): the seeded sample,
the site kinds, the triage file, the categories and score of a module's section, the
command line's usage errors. The campaign itself needs Cosmic Ray (``nox -s
mutation-campaign``); these run without it."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.canonical import read_yaml
from harness.mutation import __main__ as campaign
from harness.mutation import report, tool
from harness.mutation.sites import Sites
from harness.mutation.triage import Triage, TriageError, change_of

ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''from __future__ import annotations

def f(x: int = 1) -> list[int]:
    if x > 2:
        raise LoadError("invalid-value", "$.a", f"x is {x + 1}")
    return [x * 2]
'''
DIFF = """--- a/implementation/m.py
+++ b/implementation/m.py
@@ -4,3 +4,3 @@
-    return [x * 2]
+    return [x / 2]
"""


def _spec(operator: str, occurrence: int, line: int = 1, column: int = 0) -> tool.Spec:
    return tool.Spec(operator, occurrence, line, column, line, column + 1, None)


def test_the_sample_is_a_function_of_the_mutants_and_the_seed() -> None:
    specs = {f"job{i}": _spec("op" + "ab"[i % 2], i) for i in range(30)}
    shuffled = dict(reversed(list(specs.items())))
    first = tool.sample_of(specs, 10, 3)
    assert first == tool.sample_of(shuffled, 10, 3)
    assert len(set(first)) == 10
    assert first != tool.sample_of(specs, 10, 4)
    assert sorted(tool.sample_of(specs, 99, 0)) == sorted(specs)


def test_sites_tell_annotations_and_messages_from_code() -> None:
    sites = Sites(SOURCE)
    assert sites.kind(3, 9) == "annotation"    # the int of x: int
    assert sites.kind(3, 25) == "annotation"   # the return annotation
    assert sites.kind(5, 58) == "message"      # x + 1 inside the message
    assert sites.kind(5, 24) == "code"         # the rule id is no message
    assert sites.kind(4, 9) == "code"          # x > 2
    assert Sites(SOURCE.replace("from __future__ import annotations\n", "\n")).kind(
        3, 9) == "code"                        # evaluated annotations are code


API_SOURCE = '''from __future__ import annotations

def parse(text: str) -> int:  # pragma: no cover - constructor only
    return helper(text) + 1

def helper(text: str) -> int:  # pragma: no cover - constructor only
    return len(text)

class T:
    @classmethod
    def build(  # pragma: no cover - constructor only
        cls, text: str
    ) -> T:
        return cls()

    def size(self) -> int:  # pragma: no cover - an API query the run never makes
        return 2

    def count(self) -> int:  # pragma: no cover - API query
        return 3

    def encode(self) -> int:
        return self.count() + 1
'''


def test_sites_set_apart_only_unreferenced_api_only_code() -> None:
    sites = Sites(API_SOURCE)
    assert sites.kind(4, 11) == "api_only"     # inside a marked function
    assert sites.kind(7, 11) == "api_only"     # marked, named only by a marked function
    assert sites.kind(10, 4) == "api_only"     # the decorator of a marked method
    assert sites.kind(14, 15) == "api_only"    # the body after a multi-line heading
    assert sites.kind(17, 15) == "api_only"    # an API query
    assert sites.kind(20, 15) == "code"        # marked, but encode calls it
    assert sites.kind(23, 15) == "code"        # unmarked


def test_triage_matches_by_module_and_changed_lines(tmp_path: Path) -> None:
    path = tmp_path / "triage.yaml"
    path.write_text("- module: m\n  change: ['-return [x * 2]', '+return [x / 2]']\n"
                    "  verdict: equivalent\n  argument: because\n", encoding="utf-8")
    assert list(change_of(DIFF)) == ["-return [x * 2]", "+return [x / 2]"]
    verdict = Triage(path).verdict("m", DIFF)
    assert verdict is not None and (verdict.verdict, verdict.argument) == ("equivalent",
                                                                           "because")
    assert Triage(path).verdict("other", DIFF) is None
    path.write_text("- module: m\n  change: []\n  verdict: maybe\n  argument: x\n",
                    encoding="utf-8")
    with pytest.raises(TriageError, match=r"triage.yaml\[0\].verdict"):
        Triage(path)


def test_the_committed_triage_file_loads() -> None:
    Triage()


def test_a_section_counts_each_category_and_scores_without_the_equivalents(
        tmp_path: Path) -> None:
    module = tmp_path / "implementation" / "m.py"
    module.parent.mkdir()
    module.write_text(SOURCE, encoding="utf-8")
    triage = tmp_path / "triage.yaml"
    triage.write_text("- module: m\n  change: ['-return [x * 2]', '+return [x / 2]']\n"
                      "  verdict: equivalent\n  argument: because\n", encoding="utf-8")
    outcomes = [
        tool.Outcome(_spec("a", 0, 4, 9), "normal", "killed", DIFF, "failure: x"),
        tool.Outcome(_spec("a", 1, 4, 9), "normal", "killed", DIFF, "timeout"),
        tool.Outcome(_spec("a", 2, 6, 12), "normal", "survived", DIFF, ""),
        tool.Outcome(_spec("a", 3, 5, 58), "normal", "survived", "-a\n+b\n", ""),
        tool.Outcome(_spec("a", 4, 4, 9), "normal", "survived", "-c\n+d\n", ""),
        tool.Outcome(_spec("a", 5, 4, 9), "no-test", None, "", ""),
    ]
    section = report.module_section(
        tmp_path, "m", tool.Campaign(9, 3, outcomes, 1.0, 12.0, 2), Triage(triage),
        sample=6, seed=0, killer={})
    assert (section["annotation_equivalents"], section["api_only"]) == (3, 2)
    assert {k: section[k] for k in ("killed", "timed_out", "equivalent", "message_only",
                                    "survived", "no_test")} == {
        "killed": 1, "timed_out": 1, "equivalent": 1, "message_only": 1, "survived": 1,
        "no_test": 1}
    assert section["score_percent"] == round(100 * 2 / 3, 1)  # 2 caught of 6 - 1 - 1 - 1
    assert [s["triage"]["verdict"] for s in section["survivors"]] == [
        "equivalent", "message-only", "open"]
    written = tmp_path / "campaign.yaml"
    report.write(written, {"m": section}, tool.COSMIC_RAY)
    first = written.read_bytes()
    report.write(written, {"m": section}, tool.COSMIC_RAY)
    assert written.read_bytes() == first
    data = read_yaml(written)
    assert data["modules_not_run"] == list(report.CAMPAIGN_MODULES)
    assert data["modules_run"] == ["m"] and data["summary"]["below_target"] == ["m"]


def test_usage_errors_are_one_line_with_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert campaign.main(["--module", "nope"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert campaign.main(["--module", "bpe", "--sample", "0"]) == 2


def test_every_campaign_module_has_a_narrowing_that_draws() -> None:
    from harness.mutation.killer import NARROWING
    from harness.strategies import cases

    assert set(report.CAMPAIGN_MODULES) <= set(NARROWING)
    for narrowing in NARROWING.values():
        cases(**narrowing)  # a dimension or option that does not exist raises here
    assert (ROOT / "implementation" / "oniguruma.py").is_file()


def test_retriage_applies_a_new_verdict_without_running(tmp_path: Path) -> None:
    module = tmp_path / "implementation" / "m.py"
    module.parent.mkdir()
    module.write_text(SOURCE, encoding="utf-8")
    outcomes = [tool.Outcome(_spec("a", 0, 4, 9), "normal", "killed", DIFF, "failure: x"),
                tool.Outcome(_spec("a", 1, 6, 12), "normal", "survived", DIFF, "")]
    empty = tmp_path / "none.yaml"
    section = report.module_section(tmp_path, "m", tool.Campaign(2, 0, outcomes, 1.0, 2.0),
                                    Triage(empty), sample=2, seed=0, killer={})
    assert (section["survived"], section["score_percent"]) == (1, 50.0)
    triage = tmp_path / "triage.yaml"
    triage.write_text("- module: m\n  change: ['-return [x * 2]', '+return [x / 2]']\n"
                      "  verdict: equivalent\n  argument: because\n", encoding="utf-8")
    again = report.retriaged(section, Triage(triage), "m")
    assert (again["survived"], again["equivalent"], again["score_percent"]) == (0, 1, 100.0)
    assert again["survivors"][0]["triage"] == {"verdict": "equivalent", "argument": "because"}
