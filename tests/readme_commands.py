"""The README's commands and code blocks, as tests/harness/test_readme.py and
tests/exhaustive/test_readme_venv.py read them (the README's placeholders with the real
names the tests give them).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PLACEHOLDERS = {"OLD.yaml": "reports/conformance.yaml", "FILE": "summary-against.md"}


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
