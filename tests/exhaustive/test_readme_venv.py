"""The README's block that sets up "the harness from your own environment" runs literally,
line by line, in a copy of the repository: a virtual environment, ``pip install -e
'.[harness]'``, then every ``python -m harness`` command of the README in it (with the
README's placeholders given real names). The README's other commands are checked by
tests/harness/test_readme.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from readme_commands import PLACEHOLDERS, ROOT, blocks, commands


@pytest.mark.upstream
def test_the_own_environment_block_runs_literally(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    repo = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    setup = next(b for b in blocks("sh") if "pip install -e '.[harness]'" in b)
    script = [line.split("  #", 1)[0].strip() for line in setup.splitlines()]
    script += [c for c in commands() if c.startswith("python -m harness") and c not in script]
    for placeholder, name in PLACEHOLDERS.items():
        script = [c.replace(placeholder, name) for c in script]
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "HYPOTHESIS_REDIS_URL")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["TOKENIZER_CONFORMANCE_BUILD"] = str(ROOT / ".build")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(script)], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=1500, check=False)
    if done.returncode != 0 and "Could not find a version" in done.stderr:
        pytest.skip("no package index here")
    assert done.returncode == 0, (script, done.stdout[-3000:], done.stderr[-3000:])
    assert (repo / "smoke.yaml").is_file()
    assert (repo / "summary.md").read_text(encoding="utf-8").startswith("## ")
    assert (repo / "summary-against.md").read_text(encoding="utf-8").startswith("## ")
    assert "[template-special-spans]" in done.stdout  # reproduce showed the class
