"""The README's block that sets up "the harness from your own environment" runs literally,
line by line, in a copy of the repository: a virtual environment, ``pip install -e
'.[harness]'``, then every ``python -m harness`` command of the README in it (with the
README's placeholders given real names: DIR a folder of the pinned downloads from this
machine's cache), in a fresh git copy whose ``git status`` afterwards shows nothing but the
files the commands name (``--output``/``--report``). Without network the test skips,
naming what could not be had. The README's other commands are checked by
tests/harness/test_readme.py.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from readme_commands import (
    PLACEHOLDERS,
    blocks,
    commands,
    fresh_copy,
    named_outputs,
    untracked_or_changed,
)


def _downloads(folder: Path) -> None:
    """The pinned wheel and tarballs the builders keep in this machine's cache, for the
    README's ``fetch --from DIR``."""
    from harness.fixture_builders.sources import fixtures_dir

    folder.mkdir()
    for kept in [*(fixtures_dir() / "wheels").glob("*.whl"),
                 *(fixtures_dir() / "npm").glob("*.tgz")]:
        shutil.copyfile(kept, folder / kept.name)


@pytest.mark.upstream
def test_the_own_environment_block_runs_literally(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    repo = fresh_copy(tmp_path / "repo")
    _downloads(tmp_path / "downloads")
    setup = next(b for b in blocks("sh") if "pip install -e '.[harness]'" in b)
    script = [line.split("  #", 1)[0].strip() for line in setup.splitlines()]
    script += [c for c in commands() if c.startswith("python -m harness") and c not in script]
    for placeholder, name in PLACEHOLDERS.items():
        script = [re.sub(rf"(?<![\w.]){re.escape(placeholder)}(?![\w.])", name, c)
                  for c in script]
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "HYPOTHESIS_REDIS_URL")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    lines = "\n".join(f"echo {shlex.quote('README$ ' + c)} >&2\n{c}" for c in script)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", lines], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=2400, check=False)
    if done.returncode != 0 and "Could not find a version" in done.stderr:
        pytest.skip("no package index here")
    if done.returncode == 3 and "is not in the cache" in done.stdout + done.stderr:
        pytest.skip("the pinned fixtures cannot be had here (no network, nothing cached)")
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    assert (repo / "reports" / "conformance-smoke.yaml").is_file()
    assert (repo / "reports" / "smoke.md").read_text(encoding="utf-8").startswith("## ")
    assert (repo / "summary-against.md").read_text(encoding="utf-8").startswith("## ")
    assert "[template-special-spans]" in done.stdout  # reproduce showed the class
    assert untracked_or_changed(repo) <= named_outputs(script) - {
        "reports/smoke.md", "reports/conformance-smoke.yaml"}  # those are ignored by git
