"""Scale-out: ``--workers N`` (the exploration sharded by seed, results merged) and the
shared example database (a directory, or Redis when ``HYPOTHESIS_REDIS_URL`` is set) that
replays a failure found by any run in every later run; the progress line.

Runs use a tiny profile (no targeted shrinking), so the whole file takes seconds.
"""

from __future__ import annotations

import io
import json
import shutil
import socket
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from harness import job
from harness.__main__ import main
from harness.core.canonical import read_yaml
from harness.core.case import Case
from harness.core.profiles import PROFILES, Profile
from harness.core.progress import ProgressLine
from harness.judge import classify as classify_module
from harness.judge.classify import Verdict
from harness.runs import database as example_db
from harness.runs import workers as parallel
from harness.runs.generated import ENGINE, evaluate
from harness.runs.tally import Tally

PINNED = Path(__file__).resolve().parents[2] / "oracles" / "divergences.json"
#: 40 cases, one draw per witness search and no time to shrink: the smallest explored
#: case is each witness.
TINY = Profile("tiny", 40, 1, 1, 0, "tests: a two-worker run in seconds")


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> Profile:
    monkeypatch.setitem(PROFILES, TINY.name, TINY)
    return TINY


# --- sharding and merging ----------------------------------------------------------------

def test_budget_split_and_shard_seeds() -> None:
    assert parallel.split_budget(40, 2) == [20, 20]
    assert parallel.split_budget(7, 3) == [3, 2, 2]
    assert parallel.split_budget(1, 3) == [1, 0, 0]
    assert parallel.shard_seed(5, 0) == 5  # shard 0 explores as a one-process run would
    assert len({parallel.shard_seed(5, i) for i in range(8)}) == 8


def test_merge_adds_counts_and_keeps_the_smaller_witness() -> None:
    from harness.strategies import cases

    parts = [ENGINE.explore(cases(), budget=12, seed_value=s, tally=Tally()) for s in (1, 2)]
    merged = Tally()
    for part in parts:
        merged.merge(part)
    assert merged.examples == 24
    assert merged.comparisons == sum(p.comparisons for p in parts)
    assert merged.by_class == parts[0].by_class + parts[1].by_class
    assert merged.upstream_outcomes == parts[0].upstream_outcomes + parts[1].upstream_outcomes
    for op in set(parts[0].by_operation) | set(parts[1].by_operation):
        assert merged.by_operation[op] == (parts[0].by_operation.get(op, Counter())
                                           + parts[1].by_operation.get(op, Counter()))
    for cls, witness in merged.class_witness.items():
        sizes = [p.class_witness[cls].size for p in parts if cls in p.class_witness]
        assert witness.size == min(sizes)


def test_workers_refuse_what_cannot_cross_processes() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        parallel.Workers(0, TINY, 0)
    with pytest.raises(ValueError, match="default cases"):
        parallel.Workers(2, TINY, 0, strategy=st.nothing())


def _shape(value: Any) -> Any:
    """The structure of a report: keys (recursively), never the values."""
    if isinstance(value, dict):
        return {key: _shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_shape(item) for item in value[:1]]
    return type(value).__name__ if value is not None else None


def test_two_workers_write_a_report_of_the_same_structure(
        tiny: Profile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)  # the default example database lands in tmp_path
    reports = {}
    for workers, examples in ((1, 20), (2, 128)):  # 128 cases: two logical shards
        path = tmp_path / f"workers-{workers}.yaml"
        code = main(["conformance", "--profile", tiny.name, "--examples", str(examples),
                     "--real-examples", "-1", "--workers", str(workers),
                     "--report", str(path)])
        reports[workers] = read_yaml(path)
        assert next(iter(reports[workers])) == "report_version"  # verdict and summary next
        assert code == (1 if reports[workers]["verdict"] == "fail" else 0)
    captured = capsys.readouterr()
    assert captured.err == ""  # standard error is no terminal here: no progress line
    assert "explored by 2 workers" in captured.out
    one, two = reports[1], reports[2]
    assert two["summary"]["examples"] == 128
    assert one["summary"]["examples"] == 20
    operations = two["summary"]["by_operation"]
    assert sum(c["compared"] for c in operations.values()) == two["summary"]["comparisons"]
    assert [c["id"] for c in two["classes"]] == [c["id"] for c in one["classes"]]
    observed = {c["id"]: c["observed"] for c in two["classes"]}
    assert observed == two["summary"]["by_class"]
    assert all((c["witness"] is None) == (c["observed"] == 0) for c in two["classes"])
    for key in ("header", "summary", "real_models", "coverage", "unified_morph_track"):
        assert _shape(two[key]).keys() == _shape(one[key]).keys(), key
    assert set(two) == set(one)
    # The Markdown rendering reads a merged report like any other.
    assert main(["report", "--markdown", str(tmp_path / "workers-2.yaml"),
                 "--against", str(tmp_path / "workers-1.yaml")]) == 0
    assert "### Changes against" in capsys.readouterr().out


def test_progress_reaches_the_caller_from_the_workers(tiny: Profile) -> None:
    seen: list[tuple[int, int]] = []
    result = job.run(profile_name=tiny.name, seed_value=3, examples=128, command="t",
                     check_pinned=False, real_examples=-1, workers=2, with_morph_track=False,
                     progress=lambda s: seen.append((s.examples, s.comparisons)))
    assert seen, "no progress was reported"
    assert seen[-1] == (128, result.tally.comparisons)
    assert all(done <= 128 for done, _ in seen)


# --- the progress line -------------------------------------------------------------------

class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_on_a_terminal_and_silence_elsewhere() -> None:
    stats = Tally(examples=40, comparisons=600)
    stats.failures["sig"] += 2
    terminal = _Terminal()
    line = ProgressLine(40, stream=terminal)
    line(stats)
    line.phase("shrinking 3 witnesses")
    line.close()
    shown = terminal.getvalue()
    assert shown.startswith("\rexplore: 40/40 cases, 600 comparisons, ")
    assert "comparisons/s, 2 failures so far" in shown
    assert "\n\rshrinking 3 witnesses ..." in shown and shown.endswith("\n")
    log = io.StringIO()
    quiet = ProgressLine(40, stream=log)
    quiet(stats)
    quiet.phase("shrinking")
    quiet.close()
    assert log.getvalue() == ""


# --- the shared example database ---------------------------------------------------------

def _pinned_cases() -> dict[str, Case]:
    rows = json.loads(PINNED.read_text(encoding="utf-8"))["cases"]
    return {row["class"]: Case.from_json(row["case"]) for row in rows if "shape" not in row}


def _treat_as_failure(monkeypatch: pytest.MonkeyPatch, cls: str) -> None:
    """Make the intended class ``cls`` unexplained, as if its predicate were gone."""
    real = classify_module.classify

    def classify(case: Case, divergences: list[Any], registry: Any = None, *,
                 replay: Any) -> list[Verdict]:
        return [Verdict(v.divergence, tuple(c for c in v.classes if c != cls))
                for v in real(case, divergences, registry, replay=replay)]

    monkeypatch.setattr(classify_module, "classify", classify)


def _scenario(tiny: Profile, databases: Callable[[], ExampleDatabase]) -> None:
    """Machine A finds a failure; machine B, exploring elsewhere, replays it from the
    shared database; once fixed, the next run drops it from the database."""
    pinned = _pinned_cases()
    cls, failing = "strict-decode-unknown-id", pinned["strict-decode-unknown-id"]

    def run(case: Case, database: ExampleDatabase) -> job.JobResult:
        return job.run(profile_name=tiny.name, seed_value=0, examples=1, command="t",
                       strategy=st.just(case), check_pinned=False, real_examples=-1,
                       database=database, with_morph_track=False)

    with pytest.MonkeyPatch.context() as patch:
        _treat_as_failure(patch, cls)
        elsewhere = next(case for _, case in sorted(pinned.items())
                         if not any(v.is_failure for v in evaluate(case)[1].verdicts))
        found = run(failing, databases())  # machine A
        assert found.tally.failures and found.replayed == 0
        # What is stored is the run's witness: the failing case, reduced while it still
        # fails (harness/runs/reduce.py).
        [shown] = found.tally.failure_witness.values()
        machine_b = databases()
        assert example_db.stored_cases(machine_b) == [example_db.encode_case(shown.case)]
        replayed = run(elsewhere, machine_b)  # machine B never draws the failing case
        assert replayed.replayed == 1
        assert replayed.tally.failures == found.tally.failures
        assert replayed.failed
        [witness] = replayed.tally.failure_witness.values()
        assert witness.size <= shown.size  # the replayed case, or smaller (reduced again)
    # The class is intended again: the stored case stops failing and is dropped.
    # (each run stored its witness: machine B's may be a further reduction of A's)
    stored = len(example_db.stored_cases(databases()))
    fixed = run(elsewhere, databases())
    assert 1 <= stored <= 2 and fixed.replayed == stored and not fixed.tally.failures
    assert example_db.stored_cases(databases()) == []


def test_directory_database_replays_a_failure_found_by_another_run(
        tiny: Profile, tmp_path: Path) -> None:
    _scenario(tiny, lambda: example_db.example_database(
        tmp_path / "conformance", environ={}))


def test_example_database_choice() -> None:
    directory = example_db.example_database(Path("db"), environ={})
    assert isinstance(directory, DirectoryBasedExampleDatabase)
    assert example_db.describe_database(directory) == "directory db"
    blank = example_db.example_database(Path("db"), environ={"HYPOTHESIS_REDIS_URL": " "})
    assert isinstance(blank, DirectoryBasedExampleDatabase)
    pytest.importorskip("redis")
    for url in ("redis://user:secret@127.0.0.1:1/0", "not a url secret"):
        with pytest.raises(example_db.DatabaseError) as refused:
            example_db.example_database(Path("db"), environ={"HYPOTHESIS_REDIS_URL": url})
        message = str(refused.value)
        assert message.startswith("$HYPOTHESIS_REDIS_URL names no usable Redis database")
        assert "secret" not in message and "\n" not in message


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A throwaway redis-server on loopback, stopped afterwards."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not on PATH (Debian: apt-get install redis-server; "
                    ".ci/run installs it)")
    redis = pytest.importorskip("redis", reason="the redis package (harness/dev extras)")
    port = _free_port()
    process = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--dir", str(tmp_path)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        client = redis.Redis.from_url(url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.05)
        client.close()
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_redis_database_replays_a_failure_found_by_another_run(
        tiny: Profile, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HYPOTHESIS_REDIS_URL", redis_url)

    def database() -> ExampleDatabase:  # a new client each time: another machine
        db = example_db.example_database()
        assert example_db.describe_database(db) == "Redis ($HYPOTHESIS_REDIS_URL)"
        return db

    _scenario(tiny, database)
