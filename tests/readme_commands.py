"""The README's commands and code blocks, as tests/harness/test_readme.py and
tests/exhaustive/test_readme_venv.py read them (the README's placeholders with the real
names the tests give them).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PLACEHOLDERS = {"OLD.yaml": "reports/conformance.yaml", "FILE": "summary-against.md",
                "DIR": "../downloads"}


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def commands() -> list[str]:
    """Every shell command of the README (comments and continuation lines joined)."""
    out: list[str] = []
    for block in blocks("sh"):
        for raw in block.splitlines():
            line = raw.split("  #", 1)[0].strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def fresh_copy(target: Path) -> Path:
    """The tracked files of this checkout, committed in a new git work tree at ``target``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    for name in listed.stdout.decode().split("\0"):
        if name and (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    git = ["git", "-c", "user.name=readme", "-c", "user.email=readme@invalid"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "copy"]):
        subprocess.run([*git, *command], cwd=target, check=True, capture_output=True)
    return target


def untracked_or_changed(repo: Path) -> set[str]:
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"],
                            cwd=repo, capture_output=True, text=True, check=True).stdout
    return {line[3:] for line in status.splitlines() if line}


def named_outputs(script: list[str]) -> set[str]:
    """The files the README's commands name as what they write."""
    named: set[str] = set()
    for command in script:
        words = shlex.split(command)
        named |= {words[i + 1] for i, word in enumerate(words[:-1])
                  if word in ("--output", "--report", "--changes")}
    return named
