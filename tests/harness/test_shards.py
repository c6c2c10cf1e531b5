"""The logical shards (docs/decisions/0030-logical-shards.md): a seed gives the same report,
timing fields aside, on one process, on two and on four; and the reports of
``--shard 1/4`` … ``--shard 4/4`` merged by ``python -m harness merge`` are the report one
process writes.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("tokenizers")

from harness.__main__ import main
from harness.core.canonical import canonical_yaml
from harness.report.files import read_report
from harness.report.merge import merge
from harness.report.model import TIMING_FIELDS, NotRun

#: One worker for this module: its module fixture (one_process) is built once, not once per worker
#: (nox runs -n auto --dist loadgroup; decision 0028).
pytestmark = [pytest.mark.upstream, pytest.mark.xdist_group("test_shards")]

#: A short run: every phase but the real models (their own test is in tests/exhaustive/);
#: 130 cases are two logical shards (harness.runs.workers.logical_shards), so job shards 3
#: and 4 of 4 explore nothing.
RUN = ["conformance", "--profile", "smoke", "--examples", "130", "--seed", "5",
       "--no-database", "--real-examples", "-1"]


def without_timing(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: without_timing(v) for k, v in node.items() if k not in TIMING_FIELDS}
    if isinstance(node, list):
        return [without_timing(v) for v in node]
    return node


def report_text(path: Path) -> str:
    return canonical_yaml(without_timing(yaml.safe_load(path.read_text(encoding="utf-8"))))


def conformance(folder: Path, *extra: str) -> str:
    """A run from ``folder`` writing ``report.yaml`` there: every report names itself by
    the same relative path, as the reproduce commands in it do."""
    folder.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        assert main([*RUN, *extra, "--report", "report.yaml"]) in (0, 1)
    return report_text(folder / "report.yaml")


@pytest.fixture(scope="module")
def one_process(tmp_path_factory: pytest.TempPathFactory) -> str:
    return conformance(tmp_path_factory.mktemp("one"), "--workers", "1")


@pytest.mark.parametrize("workers", [2, 4])
def test_the_report_does_not_depend_on_the_number_of_workers(
        one_process: str, workers: int, tmp_path: Path) -> None:
    many = conformance(tmp_path, "--workers", str(workers))
    assert many.splitlines() == one_process.splitlines()


def test_merged_shards_are_the_one_process_report(
        one_process: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    shards = [tmp_path / f"shard-{i}" for i in range(1, 5)]
    for i, folder in enumerate(shards, start=1):
        conformance(folder, "--workers", "1", "--shard", f"{i}/4")
        assert f"shard: {i}/4" in (folder / "report.yaml").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    paths = [str(folder / "report.yaml") for folder in reversed(shards)]
    assert main(["merge", *paths, "--report", "report.yaml"]) in (0, 1)
    assert "4 shard reports merged" in capsys.readouterr().out
    assert report_text(tmp_path / "report.yaml").splitlines() == one_process.splitlines()


def test_merge_refuses_what_is_not_every_shard_of_one_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conformance(tmp_path, "--workers", "1", "--shard", "1/2", "--examples", "4")
    capsys.readouterr()
    path = tmp_path / "report.yaml"
    assert main(["merge", str(path), "--report", str(tmp_path / "out.yaml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("merge: the shards of one run are 1/2 … 2/2") and "\n" not in err.strip()
    assert not (tmp_path / "out.yaml").exists()
    for bad in ("0/4", "5/4", "1/17", "x"):
        assert main(["conformance", "--shard", bad]) == 2
        assert "--shard is I/N" in capsys.readouterr().err


def test_fixtures_no_shard_could_run_stay_not_run_in_the_merge() -> None:
    """A fixture a shard could not run (an offline machine) is not run in the merged
    report too, in the run's order, and the merged verdict is incomplete, not pass."""
    base = read_report(Path(__file__).resolve().parents[2] / "reports/conformance.yaml")
    shards = []
    for index, names in ((1, ["mistral-v0.1", "gemma-3"]), (2, ["mistral-instruct-v2"])):
        shard = copy.deepcopy(base)
        shard.header.shard = f"{index}/2"
        shard.real_models.fixtures = []
        shard.real_models.not_run = [NotRun(name, "not in the cache") for name in names]
        shard.verdict = "incomplete"
        shards.append((f"shard-{index}.yaml", shard))
    merged = merge(shards, "report.yaml")
    assert [n.fixture for n in merged.real_models.not_run] == [
        "mistral-v0.1", "mistral-instruct-v2", "gemma-3"]
    assert merged.verdict == "incomplete"
    assert merged.summary.judge_replays == 2 * base.summary.judge_replays
