"""The report's coverage counts what the generated cases exercised: every case explored by
the generated run adds its feature labels (``harness.strategies.describe``) to the tally,
tallies of workers merge them, and the report keeps them sorted."""

from __future__ import annotations

from collections import Counter
from typing import Any

from harness.runs.generated import ENGINE
from harness.runs.tally import Tally
from harness.strategies import cases, features
from harness.strategies.measure import draw_cases


def test_each_explored_case_adds_its_labels_and_tallies_merge_them() -> None:
    drawn, _ = draw_cases(cases(), 12, 5)
    first, second = Tally(), Tally()
    ENGINE.run_items(drawn[:5], first)
    ENGINE.run_items(drawn[5:], second)
    expected = Counter(label for case in drawn for label in features(case))
    assert first.merge(second).features == expected
    assert first.examples == len(drawn)


def test_the_report_counts_the_labels_of_the_explored_cases(monkeypatch: Any) -> None:
    from harness.core.profiles import PROFILES, RunProfile
    from harness.job import run
    from harness.report.build import build_report

    monkeypatch.setitem(PROFILES, "tiny", RunProfile("tiny", 8, 2, 4, 0, "test"))
    result = run(profile_name="tiny", seed_value=3, examples=8, command="t", shrink=False,
                 real_examples=-1, with_morph_track=False, check_pinned=False)
    features = build_report(result).coverage.features
    assert features == dict(sorted(result.tally.features.items()))
    assert features["dropout:null"] + features.get("dropout:zero", 0) + features.get(
        "dropout:one", 0) + features.get("dropout:other", 0) + features.get(
        "malformed", 0) == 8  # a malformed document is labelled by its malformation only
