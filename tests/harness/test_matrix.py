"""The conformance matrix (``python -m harness matrix``, harness/matrix/): every subject in
its own process, a subject that fails mid-run recorded under its severity without stopping
the matrix, a subject that cannot start recorded as not run, and the summary typed,
schema'd and canonical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

pytest.importorskip("tokenizers")

from harness.matrix import schema
from harness.matrix.files import matrix_text, parse_matrix, read_matrix
from harness.matrix.model import TIMING_FIELDS, Matrix
from harness.matrix.runner import NOT_RUN, Outcome, file_name
from harness.matrix.summary import build
from harness.matrix.witnesses import REFERENCE, all_witnesses
from harness.subjects import registry

#: One worker for this module: its module fixture (faulty_run) is built once, not once per worker
#: (nox runs -n auto --dist loadgroup; decision 0028).
pytestmark = pytest.mark.xdist_group("test_matrix")

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "data" / "subjects" / "faulty.py"


@pytest.fixture(scope="module")
def faulty_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, str, Path]:
    """One matrix of the deliberately faulty subject and one that cannot start."""
    folder = tmp_path_factory.mktemp("matrix")
    counter = folder / "counter"
    output = folder / "matrix.yaml"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "matrix",
         "--subject", f"cmd:{sys.executable} {FAULTY} {counter}",
         "--subject", f"cmd:{folder / 'no-such-subject'}",
         "--examples", "3", "--real-examples", "-1", "--output", str(output)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    return done.returncode, done.stdout + done.stderr, output


def _row(matrix: Matrix, name: str) -> Any:
    return next(row for row in matrix.subjects if row.name == name)


def test_a_subject_failing_mid_run_is_restarted_and_graded(
        faulty_run: tuple[int, str, Path]) -> None:
    status, said, output = faulty_run
    assert status == 1, said  # the faulty subject fails its (empty) expectations
    matrix = read_matrix(output)
    faulty = _row(matrix, "cmd-faulty-py-counter")
    assert faulty.verdict == "fail" and faulty.version == "1"
    assert faulty.restarts >= 3, faulty
    assert {"garbage", "crash", "hang"} <= set(faulty.severities), faulty.severities
    assert (output.with_suffix("") / "cmd-faulty-py-counter.yaml").is_file()
    assert faulty.report.endswith("matrix/cmd-faulty-py-counter.yaml")


def test_a_subject_that_cannot_start_is_not_run_with_its_reason(
        faulty_run: tuple[int, str, Path]) -> None:
    _, said, output = faulty_run
    missing = _row(read_matrix(output), "cmd-no-such-subject")
    assert missing.verdict == "not-run" and missing.report == "", missing
    assert "cannot start subject" in missing.reason and "\n" not in missing.reason
    assert not (output.with_suffix("") / "cmd-no-such-subject.yaml").exists()
    assert "cmd-no-such-subject: NOT RUN" in said


def test_the_transplant_replays_every_pinned_witness_on_every_subject(
        faulty_run: tuple[int, str, Path]) -> None:
    _, _, output = faulty_run
    matrix = read_matrix(output)
    assert [f.id for f in matrix.findings] == [p.id for p in all_witnesses()]
    for finding in matrix.findings:
        assert [c.subject for c in finding.cells] == ["cmd-faulty-py-counter",
                                                      "cmd-no-such-subject"]
        assert finding.shown_by == sorted(c.subject for c in finding.cells
                                          if c.result == "shown")
        assert next(c for c in finding.cells if c.subject == "cmd-no-such-subject"
                    ).result == "not-run"
    assert any(f.shown_by for f in matrix.findings)


def test_the_summary_validates_and_is_canonical(faulty_run: tuple[int, str, Path]) -> None:
    _, _, output = faulty_run
    text = output.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    jsonschema.validate(data, schema.matrix_schema())
    assert matrix_text(parse_matrix(data)) == text  # written canonically: it round-trips
    corrupt = json.loads(json.dumps(data))
    corrupt["subjects"][0]["verdict"] = "maybe"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(corrupt, schema.matrix_schema())


def test_the_summary_is_a_function_of_the_reports(tmp_path: Path,
                                                  faulty_run: tuple[int, str, Path]) -> None:
    """Built twice from the same subjects' reports: byte-identical once timing is aside."""
    _, _, output = faulty_run
    folder = output.with_suffix("")
    report = folder / "cmd-faulty-py-counter.yaml"
    outcomes = [Outcome("cmd-faulty-py-counter", "cmd:x", report, None, seconds=s)
                for s in (1.0, 2.0)]

    def text(outcome: Outcome, wall: float) -> str:
        return matrix_text(build(command="c", profile="smoke", seed=0, outcomes=[outcome],
                                 displays={}, witnesses=all_witnesses(), skipped=[],
                                 wall_seconds=wall))

    first, second = text(outcomes[0], 3.0), text(outcomes[1], 4.0)
    assert first != second  # the timing fields differ ...
    assert _untimed(yaml.safe_load(first)) == _untimed(yaml.safe_load(second))  # ... only


def _untimed(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items() if k not in TIMING_FIELDS}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


def test_the_committed_schema_is_current() -> None:
    assert schema.committed_schema() == schema.schema_text()


def test_the_default_matrix_is_every_registered_subject_but_the_comparators() -> None:
    from harness.matrix.command import default_specs

    specs, skipped = default_specs()
    assert set(specs) | set(skipped) == set(registry.names())
    assert set(skipped) == set(NOT_RUN) & set(registry.names())
    assert "tokenizers-npm" in specs and "transformers-js" in specs and REFERENCE in specs


@pytest.mark.parametrize(("spec", "name"), [
    ("transformers-js", "transformers-js"), ("tokenizers==0.20.3", "tokenizers-0.20.3"),
    ("cmd:python tests/data/subjects/faulty.py /tmp/c", "cmd-faulty-py-c"),
])
def test_file_names(spec: str, name: str) -> None:
    assert file_name(spec) == name


def test_the_site_reads_the_matrix_and_fills_cells_from_the_transplant(
        faulty_run: tuple[int, str, Path]) -> None:
    from harness.matrix.site_input import expand
    from harness.report.files import read_report
    from harness.site.build import from_conformance, with_transplant

    _, _, output = faulty_run
    matrix = read_matrix(output)
    reports, shown = expand([ROOT / "reports" / "conformance.yaml", output])
    assert reports == [ROOT / "reports" / "conformance.yaml",
                       output.with_suffix("") / "cmd-faulty-py-counter.yaml"]
    site = from_conformance([(p.as_posix(), read_report(p)) for p in reports], ROOT)
    before = {k: c.status for k, c in site.cells.items()}
    site = with_transplant(site, shown)
    assert [s.key for s in site.subjects] == ["reference", "faulty"]
    again, _ = expand([ROOT / "reports" / "conformance.yaml", output,
                       output.with_suffix("") / "cmd-faulty-py-counter.yaml"])
    assert again == reports  # a subject given on its own keeps its report
    filled = {k: c for k, c in site.cells.items() if before[k] == "unmeasured"
              and c.status != "unmeasured"}
    assert filled, "no cell came from the transplant"
    transplanted = {(f.source, f.entry): f for f in matrix.findings}
    for (finding_key, subject), cell in filled.items():
        assert subject == "faulty"
        finding = site.finding(finding_key)
        row = transplanted[("reference", finding.id)]
        assert (cell.status == "observed") == ("cmd-faulty-py-counter" in row.shown_by)


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if marker.encode() in words:
                found.append(int(entry.name))
    return found


def test_sigterm_stops_the_matrix_promptly_and_writes_no_summary(tmp_path: Path) -> None:
    import signal
    import time

    marker = str(tmp_path / "silent-marker")
    output = tmp_path / "matrix.yaml"
    misbehaving = ROOT / "tests" / "data" / "subjects" / "misbehaving.py"
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "matrix", "--subject",
         f"cmd:{sys.executable} {misbehaving} silent {marker}", "--examples", "2",
         "--real-examples", "-1", "--output", str(output)],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.2)  # the subject has started: the matrix is mid-run
    assert _processes_with(marker), "the subject never started"
    started = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    left = _processes_with(marker)
    for pid in left:  # never leave one behind, whatever the assertion says
        os.kill(pid, signal.SIGKILL)
    assert process.returncode == 143, err
    assert time.monotonic() - started < 15
    assert "interrupted by SIGTERM" in err and not output.exists()
    assert left == []


def _committed_outcomes() -> list[Outcome]:
    matrix = read_matrix(ROOT / "reports" / "matrix.yaml")
    return [Outcome(row.name, row.name, ROOT / row.report, None)
            for row in matrix.subjects if row.report]


def test_the_committed_real_file_rows_are_read_from_the_subjects_reports() -> None:
    """Every conformance fixture is a row; each cell is what that subject's committed
    report says of the file (its comparisons, what diverged, the findings it triggered);
    ``triggers`` is every finding some subject met there."""
    from harness.fixture_builders.real_models import CONFORMANCE_FIXTURES
    from harness.matrix.summary import real_files
    from harness.report.files import read_report

    committed = read_matrix(ROOT / "reports" / "matrix.yaml")
    outcomes = _committed_outcomes()
    reports = [read_report(o.report) for o in outcomes if o.report is not None]
    assert real_files(outcomes, reports) == committed.real_files
    assert [f.fixture for f in committed.real_files] == list(CONFORMANCE_FIXTURES)
    for row in committed.real_files:
        assert row.corpus_texts == 1429  # the matrix profile: the whole committed corpus
        assert row.triggers == sorted({f for c in row.cells for f in c.findings})
        assert all(c.result != "not-run" for c in row.cells)
        assert any(c.result == "diverges" for c in row.cells)


def test_a_class_is_the_subjects_own_finding_or_one_of_ours() -> None:
    """A third-party subject's class is its own entry; the example subject, which inherits
    our intended classes, meets ours (the transplant's ``reference/...`` findings)."""
    from harness.matrix.summary import finding_id
    from harness.report.files import read_report

    kitoken = read_report(ROOT / "reports" / "matrix" / "kitoken.yaml")
    example = read_report(ROOT / "reports" / "matrix" / "example.yaml")
    own = next(c.id for c in kitoken.classes)
    ours = next(c.id for c in example.classes)
    assert finding_id(kitoken, "kitoken", own) == f"kitoken/{own}"
    assert finding_id(example, "example", ours) == f"reference/{ours}"
    ids = {f.id for f in read_matrix(ROOT / "reports" / "matrix.yaml").findings}
    assert f"reference/{ours}" in ids  # the finding the transplant knows by that id
