"""The repository stands alone: no tracked text file points outside it.

A clone must resolve every reference it makes. Three kinds of reference cannot resolve in
a clone and are reported as ``file:line``:

- a citation of the shared folder the project was founded from (its spec, reference and
  design documents, restated in ``docs/spec/``);
- an absolute path of one machine (a home directory, a work directory, a drive letter);
- a citation of private notes by section number (the reference notes, the design).

The needles are built from pieces so that this file does not match itself.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_SLASH = "/"
_SECTION = " \N{SECTION SIGN}"

#: kind -> (needles, case-insensitive?, what must not come right before a needle)
NEEDLES: dict[str, tuple[tuple[str, ...], bool, str]] = {
    "shared-folder citation": (
        (*("shared" + _SLASH + leaf for leaf in ("spec", "reference", "design")),
         ".." + _SLASH + "shared"),
        False,
        "",
    ),
    # An absolute path starts a word: the same letters inside a URL (a path segment after
    # a host) or after a drive letter of a file URL (a text of the real-model corpus) are
    # data, not a path of this machine.
    "absolute machine path": (
        (*(_SLASH + top + _SLASH for top in ("work", "root", "home", "Users")), "C:" + "\\"),
        False,
        r"(?<![\w:./-])",
    ),
    "private note citation": (("notes" + _SECTION, "design" + _SECTION), True, ""),
}

#: Folders never walked when the tree is not a git checkout.
SKIP_DIRS = {
    ".git", ".nox", ".venv", "venv", ".tox", "build", "dist", ".build", "node_modules",
    "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis",
}


def _patterns() -> dict[str, re.Pattern[str]]:
    return {
        kind: re.compile(before + "(?:" + "|".join(re.escape(n) for n in needles) + ")",
                         re.IGNORECASE if nocase else 0)
        for kind, (needles, nocase, before) in NEEDLES.items()
    }


def _files() -> list[Path]:
    if (ROOT / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, check=True, capture_output=True,
        ).stdout.decode("utf-8", "surrogateescape")
        return [ROOT / name for name in listed.split("\0") if name]
    found: list[Path] = []
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")]
        found.extend(Path(folder) / name for name in names)
    return found


def _text(path: Path) -> str | None:
    """The file's text, or None for a binary, missing or non-regular file."""
    try:
        data = path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def _hits() -> dict[str, list[str]]:
    patterns = _patterns()
    hits: dict[str, list[str]] = {kind: [] for kind in patterns}
    for path in sorted(_files()):
        text = _text(path)
        if text is None:
            continue
        rel = path.relative_to(ROOT).as_posix()
        for kind, pattern in patterns.items():
            for match in pattern.finditer(text):
                line_no = text.count("\n", 0, match.start()) + 1
                line_start = text.rfind("\n", 0, match.start()) + 1
                line_end = text.find("\n", match.end())
                line = text[line_start:line_end if line_end >= 0 else len(text)].strip()
                if len(line) > 160:
                    at = match.start() - line_start
                    line = "..." + text[line_start + max(0, at - 60):line_start + at + 80] + "..."
                hits[kind].append(f"{rel}:{line_no}: [{match.group(0)}] {line}")
    return hits


@pytest.fixture(scope="module")
def hits() -> dict[str, list[str]]:
    return _hits()


def test_the_scan_sees_the_repository() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in _files()}
    assert {"README.md", "pyproject.toml", "docs/spec/README.md"} <= names


def test_this_file_does_not_match_itself() -> None:
    text = Path(__file__).read_text(encoding="utf-8")
    for kind, pattern in _patterns().items():
        assert pattern.search(text) is None, kind


@pytest.mark.parametrize("kind", list(NEEDLES))
def test_no_reference_points_outside_the_repository(
    kind: str, hits: dict[str, list[str]],
) -> None:
    found = hits[kind]
    assert not found, (
        f"{len(found)} {kind}(s) in tracked files; restate the fact or point inside the "
        "repository (docs/spec/, docs/decisions/, oracles/, tests/):\n  " + "\n  ".join(found)
    )
