"""Reports go where the user says, and nowhere surprising; the command line's bounds.

- The committed ``reports/conformance.yaml`` is the default run's (profile ci, seed 0,
  the profile's budgets); every other run writes beside it under its own name, and git
  ignores those names (``.gitignore``), so they leave the work tree clean.
- A report path that cannot be written is one line and exit 2 before anything runs.
- ``--workers`` is bounded (and above the cores a note says so); ``--help`` describes
  the profiles and the exit statuses; excerpts of a child's output are bounded and marked
  where they were cut.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.__main__ import main
from harness.cli.arguments import MAX_WORKERS, MAX_WORKERS_PER_CORE
from harness.core.children import Finished, excerpt
from harness.core.profiles import PROFILES
from harness.report.paths import default_report, unwritable

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("options", "path"), [
    ({}, "reports/conformance.yaml"),
    ({"subject": "transformers-js"}, "reports/conformance-transformers-js.yaml"),
    ({"reach": True}, "reports/conformance-reach.yaml"),
    ({"profile": "smoke"}, "reports/conformance-smoke.yaml"),
    ({"profile": "nightly"}, "reports/conformance-nightly.yaml"),
    ({"seed": 7}, "reports/conformance-ci-seed-7.yaml"),
    ({"examples": 100, "real_examples": -1}, "reports/conformance-ci-examples-100-real--1.yaml"),
    ({"profile": "dev", "subject": "transformers-js"},
     "reports/conformance-transformers-js-dev.yaml"),
    ({"subject": "cmd"}, "reports/conformance-cmd.yaml"),
])
def test_only_the_default_run_names_the_committed_report(options: dict[str, object],
                                                         path: str) -> None:
    settings: dict[str, object] = {"profile": "ci", "seed": 0, "examples": None,
                                   "real_examples": None, **options}
    chosen = default_report(**settings)  # type: ignore[arg-type]
    assert chosen.as_posix() == path
    committed = subprocess.run(["git", "ls-files", "--error-unmatch", path], cwd=ROOT,
                               capture_output=True, check=False).returncode == 0
    ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT,
                             check=False).returncode == 0
    if (ROOT / ".git").exists():
        # A default run's report is committed and not ignored; every other one is ignored.
        default = not ({"profile", "seed", "examples", "real_examples"} & set(options)) \
            and options.get("subject") != "cmd"
        assert ignored != default, (path, ignored)
        if default:
            assert committed, path


@pytest.mark.parametrize("where", ["under-a-file", "proc", "a-folder"])
def test_an_unwritable_report_is_one_line_before_the_run(
        where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x", encoding="utf-8")
    report = {"under-a-file": blocker / "sub" / "report.yaml",
              "proc": Path("/proc/tokenizer-conformance/report.yaml"),
              "a-folder": tmp_path}[where]
    if where == "proc" and not Path("/proc").is_dir():
        pytest.skip("no /proc here")
    started = time.monotonic()
    assert main(["conformance", "--profile", "smoke", "--report", str(report)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"--report {report}: "), captured.err
    assert lines[0].endswith("nothing was run") and "Traceback" not in captured.err
    assert time.monotonic() - started < 5  # before the run, not after it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]  # no probe left


def test_a_writable_report_path_is_probed_without_a_trace(tmp_path: Path) -> None:
    assert unwritable(tmp_path / "new" / "folder" / "report.yaml") is None
    assert list(tmp_path.iterdir()) == []


def test_workers_are_bounded(capsys: pytest.CaptureFixture[str]) -> None:
    bound = min(MAX_WORKERS, MAX_WORKERS_PER_CORE * (os.cpu_count() or 1))
    assert main(["conformance", "--workers", str(bound + 1)]) == 2
    line = capsys.readouterr().err.strip()
    assert line == (f"python -m harness conformance: argument --workers: --workers {bound + 1}"
                    f" is more than {bound} ({MAX_WORKERS_PER_CORE} per core on "
                    f"{os.cpu_count() or 1} cores, at most {MAX_WORKERS})")


def test_workers_above_the_cores_get_a_note(tmp_path: Path) -> None:
    cores = os.cpu_count() or 1
    if cores + 1 > min(MAX_WORKERS, MAX_WORKERS_PER_CORE * cores):
        pytest.skip("no room above the cores")
    # The note comes before the run; an unknown subject then stops it at once (exit 2).
    done = subprocess.run([sys.executable, "-m", "harness", "conformance", "--workers",
                           str(cores + 1), "--subject", "cmd:", "--report",
                           str(tmp_path / "r.yaml")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[0] == (
        f"note: --workers {cores + 1} is more than the {cores} cores here: the processes "
        "share them")


def test_help_describes_the_profiles_and_exit_statuses() -> None:
    done = subprocess.run([sys.executable, "-m", "harness", "conformance", "--help"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    for profile in PROFILES.values():
        assert (f"{profile.name:8} {profile.examples} generated cases, "
                f"{profile.real_examples} texts per real model") in done.stdout
    assert "3 incomplete" in done.stdout and "--cache DIR" in done.stdout


@pytest.mark.parametrize(("stderr", "expected"), [
    ("ok\nERROR: No matching distribution found for x==1\n", "ERROR: No matching "
     "distribution found for x==1"),
    ("npm error code ECONNREFUSED\nnpm error FetchError: request failed\nnpm error \n"
     "npm error A complete log of this run can be found in: /x.log\n",
     "FetchError: request failed"),
    ("", "(no message)"),
    ("x" * 500, "x" * 239 + "…"),
])
def test_an_excerpt_of_a_child_is_one_bounded_line(stderr: str, expected: str) -> None:
    assert excerpt(Finished(1, "", stderr)) == expected


@pytest.mark.parametrize(("text", "cut", "expected"), [
    ("a short message", False, "a short message"),
    ("abc def", True, "…def"),
    ("x" * 500, False, "…" + "x" * 399),
    ("word " * 99 + "end", False, "…" + ("word " * 79 + "end")),
])
def test_a_subjects_stderr_is_cut_at_a_word_and_marked(text: str, cut: bool,
                                                       expected: str) -> None:
    from harness.subjects.process import STDERR_TAIL, cut_tail

    assert cut_tail(text, cut=cut) == expected and len(cut_tail(text, cut=cut)) <= STDERR_TAIL
