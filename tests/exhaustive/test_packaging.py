"""The harness installs and runs as a package: ``pip install .`` (not editable) into a
fresh virtual environment, then the conformance job from a folder outside the checkout.

Everything it reads (the registry, the decision records, the pinned witnesses, the
real-model corpus, the unified fixture, the schemas) must come from the installed
package. The real-model fixtures are taken from this checkout's build folder
(``TOKENIZER_CONFORMANCE_BUILD``) so that nothing is built twice.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml

from harness.core.profiles import PROFILES
from harness.fixture_builders.real_models import CONFORMANCE_FIXTURES

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.upstream
def test_installed_harness_runs_the_job_from_another_folder(tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(environment)
    python = environment / "bin" / "python"
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         f"{ROOT}[harness]"], capture_output=True, text=True, timeout=900, check=False)
    if install.returncode != 0 and "Could not find a version" in install.stderr:
        pytest.skip(f"no package index here: {install.stderr.strip().splitlines()[-1]}")
    assert install.returncode == 0, install.stderr[-3000:]
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "HYPOTHESIS_REDIS_URL")}
    env["TOKENIZER_CONFORMANCE_BUILD"] = str(ROOT / ".build")
    located = subprocess.run([str(python), "-c", "import harness, implementation; "
                              "print(harness.__file__); print(implementation.__file__)"],
                             cwd=work, env=env, capture_output=True, text=True, check=True)
    for line in located.stdout.splitlines():
        assert "site-packages" in line and not line.startswith(str(ROOT)), line
    # A smoke run writes beside the committed report, under its own name (report/paths.py).
    report = work / "reports" / "conformance-smoke.yaml"
    done = subprocess.run([str(python), "-m", "harness", "conformance", "--profile", "smoke",
                           "--no-database"], cwd=work, env=env, capture_output=True,
                          text=True, timeout=1200, check=False)
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    data = yaml.safe_load(report.read_text(encoding="utf-8"))
    assert data["verdict"] == "pass"
    assert data["summary"]["stale_pinned_witnesses"] == []
    names = [entry["fixture"] for entry in data["real_models"]["fixtures"]]
    assert names == list(CONFORMANCE_FIXTURES[:PROFILES["smoke"].real_fixtures]), names
    assert data["unified_morph_track"]["upstream_document"]["committed_copy_current"]
    markdown = subprocess.run([str(python), "-m", "harness", "report", "--markdown",
                               str(report)], cwd=work, env=env, capture_output=True,
                              text=True, check=False)
    assert markdown.returncode == 0, markdown.stderr
    assert markdown.stdout.startswith("## ✅ Conformance: pass")
    assert sys.executable  # the test's own interpreter is untouched
