"""The command line: every user error is one line on standard error and exit status 2,
never a traceback; the valid choices are named where there are some."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.__main__ import main

ROOT = Path(__file__).resolve().parent.parent
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
