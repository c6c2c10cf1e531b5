"""The reproducers of a subject's findings document, run as a reader would paste them.

A finding is a section of ``FINDINGS.md`` (``## N. title``) with a line ``Entry: `id```:
its document as a ```` ```json ```` block, then ```` ```python ```` (and, for a Node
subject, ```` ```js ````) blocks that read it as ``tokenizer.json`` and print both
libraries' answers, then what they print, pasted into the section. ``check`` runs every
block of every section, in order, in a fresh folder holding the document, and says where
a printed line is not in the section's text (the code blocks left out): a reproducer
that no longer reproduces, or a document whose outputs were typed by hand.

Where the blocks run: Python blocks with the subject's own interpreter (its environment
in the cache, ``harness.subjects.pypi``) or this one, with this environment's packages
(``tokenizers``) and the repository after the subject's own on ``PYTHONPATH``; JavaScript
blocks with ``node``, as ES modules, the folder's ``node_modules`` the subject package's
``node_modules()`` (a Node subject's installed packages). Decision 0037.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from .registry import FINDINGS, Registered, SubjectUnavailableError

#: Seconds one block may run.
BLOCK_TIMEOUT: Final = 120.0
_SECTION: Final = re.compile(r"^## ", re.M)
_ENTRY: Final = re.compile(r"^Entry: `([^`]+)`", re.M)
_FENCE: Final = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_RUNNABLE: Final = ("python", "js")
#: A qualified exception type (``pyo3_runtime.PanicException: ...``) read as its last name.
_QUALIFIED: Final = re.compile(r"^(?:[A-Za-z_][\w]*\.)+(?=[A-Za-z_]\w*: )")


@dataclass(frozen=True)
class Section:
    """One finding of a findings document."""

    entry: str
    title: str
    document: str
    blocks: tuple[tuple[str, str], ...]
    #: The section without its runnable blocks and its document: where outputs are read.
    prose: str


@dataclass
class Checked:
    """What running one section's blocks gave."""

    section: Section
    printed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def sections(text: str) -> list[Section]:
    """The findings of a document (sections with an ``Entry:`` line), in order."""
    found: list[Section] = []
    for chunk in _SECTION.split(text)[1:]:
        entry = _ENTRY.search(chunk)
        if entry is None:
            continue
        fences = list(_FENCE.finditer(chunk))
        document = next((m.group(2) for m in fences if m.group(1) == "json"), "")
        blocks = tuple((m.group(1), m.group(2)) for m in fences if m.group(1) in _RUNNABLE)
        prose = _FENCE.sub(lambda m: "" if m.group(1) in (*_RUNNABLE, "json") else m.group(0),
                           chunk)
        found.append(Section(entry.group(1), chunk.splitlines()[0].strip(), document.strip(),
                             blocks, prose))
    return found


def _folded(text: str) -> str:
    return " ".join(text.split())


def printed_lines(stdout: str, stderr: str, status: int) -> list[str]:
    """What a block printed: its standard output's lines and, when it failed, the last
    line of its standard error (the exception, its type unqualified)."""
    lines = [line.rstrip() for line in stdout.splitlines() if line.strip()]
    if status != 0:
        last = next((line for line in reversed(stderr.splitlines()) if line.strip()), "")
        lines.append(_QUALIFIED.sub("", last.strip()) or f"exit status {status}")
    return lines


@dataclass(frozen=True)
class Runtime:
    """How a subject's blocks run: the Python interpreter, and the ``node_modules`` folder
    of a Node subject (None: it has none)."""

    python: str
    node_modules: Path | None


def runtime(entry: Registered) -> Runtime:
    """The subject's interpreter (its PyPI environment's, installed on first use) and its
    Node packages. Raises ``SubjectUnavailableError`` where it cannot be had here."""
    python = sys.executable
    command = entry.command()
    if command and Path(command[0]).name.startswith("python"):
        python = command[0]
    made = getattr(entry.module(), "node_modules", None)
    modules = made() if made is not None else None
    return Runtime(python, Path(modules) if modules is not None else None)


def _python_path() -> str:
    """This environment's packages and the repository, after the subject's own."""
    root = Path(__file__).resolve().parents[2]
    paths = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], str(root)]
    return os.pathsep.join(dict.fromkeys(paths))


def run_section(section: Section, where: Runtime) -> Checked:
    """Every block of ``section`` in a fresh folder; the lines they printed that its
    prose does not hold are problems."""
    checked = Checked(section)
    if not section.blocks:
        checked.problems.append("no python or js block to run")
        return checked
    try:
        json.loads(section.document)
    except ValueError as exc:
        checked.problems.append(f"its json block is not a document ({exc})")
        return checked
    with tempfile.TemporaryDirectory(prefix="reproducer-") as folder:
        place = Path(folder)
        (place / "tokenizer.json").write_text(section.document + "\n", encoding="utf-8")
        if where.node_modules is not None:
            (place / "node_modules").symlink_to(where.node_modules, target_is_directory=True)
        env = {**os.environ, "PYTHONPATH": _python_path(), "PYTHONDONTWRITEBYTECODE": "1"}
        for number, (language, code) in enumerate(section.blocks, 1):
            script = place / f"block{number}.{'py' if language == 'python' else 'mjs'}"
            script.write_text(code, encoding="utf-8")
            node = shutil.which("node")
            if language == "js" and node is None:
                checked.problems.append("a js block and no node here")
                continue
            command = [where.python, str(script)] if language == "python" else [
                str(node), str(script)]
            try:
                done = subprocess.run(command, cwd=place, env=env, capture_output=True,
                                      text=True, timeout=BLOCK_TIMEOUT, check=False,
                                      stdin=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                checked.problems.append(f"block {number} ran past {BLOCK_TIMEOUT:g} s")
                continue
            checked.printed += printed_lines(done.stdout, done.stderr, done.returncode)
    prose = _folded(section.prose)
    for line in checked.printed:
        if _folded(line) not in prose:
            checked.problems.append(f"printed {line[:160]!r}, which the section does not say")
    if not checked.printed:
        checked.problems.append("its blocks printed nothing")
    return checked


def check(entry: Registered, only: Sequence[str] = ()) -> list[Checked]:
    """Every finding of ``entry``'s findings document (``only``: these entries)."""
    file = next((f for f in map(entry.file, FINDINGS) if f is not None), None)
    if file is None:
        return []
    text = file.read_text(encoding="utf-8")
    where = runtime(entry)
    return [run_section(s, where) for s in sections(text) if not only or s.entry in only]


__all__ = ["Checked", "Runtime", "Section", "SubjectUnavailableError", "check",
           "printed_lines", "run_section", "runtime", "sections"]
