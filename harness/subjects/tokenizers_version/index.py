"""Is ``tokenizers==VERSION`` published? One line and a few seconds to say it is not.

Asks the package index pip is configured with (``pip index versions tokenizers --pre``,
a short timeout), so a private mirror answers as PyPI would. Standard library only: the
noxfile calls ``check`` before it installs anything, the harness before it builds a venv.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from typing import Final

PACKAGE: Final = "tokenizers"
#: Seconds pip may take to list the versions (the whole check stays under 5 s).
TIMEOUT: Final = 4.0
#: A version pip could install: PEP 440's public form, loosely (1.0.0rc3, 0.23.1, 0.20.0.post1).
_SHAPE: Final = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?$")
_AVAILABLE: Final = re.compile(r"^Available versions:\s*(.*)$", re.MULTILINE)

#: Runs a command line and returns (exit status, standard output); raises TimeoutError.
Runner = Callable[[Sequence[str], float], tuple[int, str]]


class VersionError(Exception):
    """The version cannot be used (the message is one line)."""


def _run(command: Sequence[str], timeout: float) -> tuple[int, str]:
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        raise TimeoutError from None
    return done.returncode, done.stdout


def published(runner: Runner = _run, python: str = sys.executable) -> list[str]:
    """Every version of tokenizers on the index, newest first (pre-releases included)."""
    command = [python, "-m", "pip", "index", "versions", PACKAGE, "--pre",
               "--disable-pip-version-check", "--timeout", "3", "--retries", "0"]
    try:
        status, out = runner(command, TIMEOUT)
    except TimeoutError:
        raise VersionError(f"the package index did not answer within {TIMEOUT:g} s "
                           "(offline?): cannot check the tokenizers version") from None
    found = _AVAILABLE.search(out)
    if status != 0 or found is None:
        raise VersionError("the package index cannot be reached (offline?): cannot check "
                           "the tokenizers version")
    return [v.strip() for v in found.group(1).split(",") if v.strip()]


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", version)[:3])


def nearest(version: str, versions: Sequence[str], count: int = 3) -> list[str]:
    """The published versions closest to ``version``: the longest run of equal release
    numbers first, then the smallest gap at the first number that differs; newest first
    among equals. For a string with no number, the newest ones."""
    target = _key(version)
    if not target:
        return list(versions[:count])

    def distance(candidate: str) -> tuple[int, int]:
        have = _key(candidate)
        same = 0
        while same < min(len(have), len(target)) and have[same] == target[same]:
            same += 1
        gap = (abs(have[same] - target[same])
               if same < min(len(have), len(target)) else 0)
        return -same, gap

    return sorted(versions, key=distance)[:count]


def check(version: str, runner: Runner = _run, python: str = sys.executable) -> str:
    """``version`` itself when the index has it; else ``VersionError`` in one line naming
    the nearest published versions."""
    text = version.strip()
    if not text:
        raise VersionError("empty tokenizers version (give one, e.g. --reference 0.23.3)")
    if not _SHAPE.match(text):
        hint = ", ".join(published(runner, python)[:3])
        raise VersionError(f"tokenizers version {version!r} is not a version number "
                           f"(newest published: {hint})")
    versions = published(runner, python)
    if text in versions:
        return text
    raise VersionError(f"tokenizers {text} is not on the package index (nearest: "
                       f"{', '.join(nearest(text, versions))})")
