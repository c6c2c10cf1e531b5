"""A planted bug in a third-party subject (tests/data/subjects/broken_example.py: the
example subject with a wrong id) is caught, shrunk to a one-text case and reproduced from
the report (moved from tests/harness/test_subject_protocol.py: a run and a targeted search,
about 35 s).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.core.profiles import PROFILES
from harness.job import run
from harness.report.build import build_report
from harness.report.files import read_report, write_report
from harness.runs import third_party
from harness.runs.generated import default_strategy

ROOT = Path(__file__).resolve().parents[2]
BROKEN = f"cmd:{sys.executable} {ROOT / 'tests' / 'data' / 'subjects' / 'broken_example.py'}"


def short_run(spec: str, examples: int, profile: str = "dev", **options: Any) -> Any:
    settings: dict[str, Any] = {"real_examples": -1, "shrink": False, "check_pinned": False}
    settings.update(options)
    return run(profile_name=profile, seed_value=0, examples=examples, command="test",
               subject=spec, **settings)


def test_a_planted_bug_is_caught_shrunk_and_reproduced(tmp_path: Path) -> None:
    # The run with the smoke profile's search budgets (its class searches are the cost);
    # the targeted search below with dev's.
    result = short_run(BROKEN, examples=30, profile="smoke", shrink=True)
    assert result.tally.failures, "the wrong id went unnoticed"
    signature = next(iter(sorted(result.tally.failure_witness)))
    assert "/ids:" in signature
    assert result.tally.failure_witness[signature].shrunk
    # The targeted search shrinks the whole case: one text of one or two characters (the
    # report keeps whichever of it and the smallest explored case is smaller).
    shrunk = third_party.engine_for(BROKEN).engine.search(
        default_strategy(), ("failure", signature), PROFILES["dev"], 0)
    assert shrunk is not None and shrunk.shrunk
    assert len(shrunk.case.texts) == 1 and len(shrunk.case.texts[0]) <= 2, shrunk.case.texts
    report = tmp_path / "broken.yaml"
    write_report(build_report(result, report.as_posix()), report)
    assert read_report(report).subject is not None
    shown = subprocess.run([sys.executable, "-m", "harness", "reproduce", str(report),
                            "--failure", "F1"], capture_output=True, text=True, cwd=ROOT,
                           check=False, timeout=120)
    assert shown.returncode == 1, shown.stderr
    assert "FAILURE" in shown.stdout and "subject:" in shown.stdout
