"""The README's unified-tokenizer example runs as written, from the repository root, and
prints what the README shows."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## The unified dual-track tokenizer"


def _blocks() -> tuple[str, str]:
    readme = ROOT.joinpath("README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION):]
    section = section[:section.find("\n## ", len(SECTION))]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    output = re.search(r"```text\n(.*?)```", section, re.S)
    assert code is not None and output is not None
    return code.group(1), output.group(1)


def test_readme_example_runs_as_written() -> None:
    code, shown = _blocks()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                            text=True, encoding="utf-8", env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown
    tracks = {line.split()[1] for line in result.stdout.splitlines()}
    assert {"special", "bpe", "morph", "image"} <= tracks
