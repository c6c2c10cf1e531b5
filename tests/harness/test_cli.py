"""The command line: every user error is one line on standard error and exit status 2,
never a traceback; the valid choices are named where there are some."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
PASSING = ROOT / "tests" / "data" / "markdown" / "without-failure.yaml"
FAILING = ROOT / "tests" / "data" / "markdown" / "with-failure.yaml"


def _error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert "Traceback" not in captured.err
    return lines[0]


@pytest.mark.parametrize(("option", "value", "says"), [
    ("--workers", "0", "--workers must be at least 1, not 0"),
    ("--workers", "two", "--workers must be an integer, not 'two'"),
    ("--examples", "0", "--examples must be at least 1, not 0"),
    ("--seed", "-3", "--seed must be at least 0, not -3"),
    ("--real-examples", "-2", "--real-examples must be at least -1, not -2"),
    ("--profile", "weekly", "invalid choice: 'weekly'"),
])
def test_a_bad_option_value_is_one_line(capsys: pytest.CaptureFixture[str], option: str,
                                         value: str, says: str) -> None:
    line = _error(capsys, "conformance", option, value)
    assert says in line and line.startswith("python -m harness conformance:")


def test_a_bad_database_url_names_the_variable(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    pytest.importorskip("redis")
    report = tmp_path / "conformance.yaml"
    for url in ("redis://user:hunter2@127.0.0.1:1/0", "postgres://nope"):
        monkeypatch.setenv("HYPOTHESIS_REDIS_URL", url)
        line = _error(capsys, "conformance", "--report", str(report))
        assert line.startswith("$HYPOTHESIS_REDIS_URL names no usable Redis database")
        assert "hunter2" not in line
    assert not report.exists()


def test_reproduce_names_what_exists(capsys: pytest.CaptureFixture[str],
                                     tmp_path: Path) -> None:
    assert "no such file" in _error(capsys, "reproduce", str(tmp_path / "missing.yaml"),
                                    "--failure", "F1")
    line = _error(capsys, "reproduce", str(PASSING), "--failure", "F1")
    assert "has no failure 'F1' (failures: none: the report has no failure)" in line
    line = _error(capsys, "reproduce", str(FAILING), "--failure", "F7")
    assert "(failures: F1)" in line
    line = _error(capsys, "reproduce", str(PASSING), "--class", "no-such-class")
    assert "has no class 'no-such-class' (classes: " in line
    assert "strict-decode-unknown-id" in line
    line = _error(capsys, "reproduce", str(PASSING), "--class", "template-special-spans")
    assert "was not observed in that run (classes with a witness: " in line
    (tmp_path / "dir.yaml").mkdir()
    assert "cannot be read" in _error(capsys, "reproduce", str(tmp_path / "dir.yaml"),
                                      "--failure", "F1")
    line = _error(capsys, "reproduce", str(PASSING), "--class", "template-special-spans",
                  "--pinned")
    assert "--pinned needs --class and a report of a subject" in line
    subject_report = ROOT / "reports" / "conformance-transformers-js.yaml"
    line = _error(capsys, "reproduce", str(subject_report), "--class", "no-such-entry",
                  "--pinned")
    assert "transformers-js has no pinned witness for 'no-such-entry' (pinned: " in line
    assert "continuing-subword-prefix-ignored" in line


def test_report_needs_a_report(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("verdict: [unclosed\n", encoding="utf-8")
    assert "is not YAML" in _error(capsys, "report", "--markdown", str(bad))
    assert "the following arguments are required: --markdown" in _error(
        capsys, "report", str(PASSING))


def test_unknown_command_and_oracles_root(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    assert "invalid choice: 'conform'" in _error(capsys, "conform")
    pytest.importorskip("tokenizers")
    assert "no oracles/ folder there" in _error(capsys, "oracles", "--check", "--root",
                                                str(tmp_path))


def test_a_closed_pipe_is_no_traceback() -> None:
    pytest.importorskip("tokenizers")
    done = subprocess.run(
        f"{sys.executable} -m harness reproduce {FAILING} --failure F1 | true",
        shell=True, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr


@pytest.mark.parametrize(("extra", "says"), [
    (["--subject", "example"], "--reach measures our reference's code: leave out --subject"),
    (["--workers", "2"], "--reach measures one process: leave out --workers"),
])
def test_reach_refuses_what_it_cannot_measure(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path, extra: list[str],
                                              says: str) -> None:
    report = tmp_path / "conformance.yaml"
    line = _error(capsys, "conformance", "--reach", "--report", str(report), *extra)
    assert line == says
    assert not report.exists()


def _measured(work: str) -> dict[str, list[int]]:
    """(covered statements, covered branches) per semantic module, measured in a fresh
    process over ``import implementation`` then ``work``."""
    script = ("import json\n"
              "from harness.runs.reach import ReachMeter\n"
              "meter = ReachMeter()\n"
              "meter.start()\n"
              "import implementation\n"
              f"{work}\n"
              "meter.stop()\n"
              "print(json.dumps({r.module: [r.covered_statements, r.covered_branches]"
              " for r in meter.reach}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    counts: dict[str, list[int]] = json.loads(done.stdout)
    return counts


def test_reach_counts_module_level_lines_and_what_a_run_takes() -> None:
    """The meter starts before implementation/ is imported, so import-time lines count;
    an encode then shows up as branches taken in the BPE model."""
    pytest.importorskip("coverage")
    import implementation  # noqa: F401  (this process has it: the meter must refuse)
    from harness.runs.reach import SEMANTIC_MODULES, ReachMeter

    with pytest.raises(RuntimeError, match="before implementation/ is imported"):
        ReachMeter()
    imported = _measured("pass")
    assert set(imported) == set(SEMANTIC_MODULES)
    assert all(statements > 0 for statements, _ in imported.values())
    encoded = _measured(
        "from implementation.loader import load_tokenizer\n"
        "doc = {'model': {'type': 'BPE', 'vocab': {'a': 0, 'b': 1, 'ab': 2},"
        " 'merges': [['a', 'b']]}}\n"
        "load_tokenizer(json.dumps(doc), strict=False).encode('abab')")
    assert encoded["bpe"][1] > imported["bpe"][1]


@pytest.mark.parametrize(("argv", "expected"), [
    (["--profile", "smoke"], 1),                       # 20 cases: the pool costs more
    (["--profile", "ci", "--examples", "99"], 1),
    (["--profile", "smoke", "--examples", "100"], None),  # None: every core
    (["--profile", "ci"], None),
    (["--profile", "ci", "--reach"], 1),
])
def test_default_workers_follow_the_size_of_the_run(argv: list[str], expected: int | None
                                                    ) -> None:
    import os

    from harness.__main__ import _parser
    from harness.cli.conformance import default_workers

    args = _parser().parse_args(["conformance", *argv])
    assert default_workers(args) == (expected or os.cpu_count() or 1)
