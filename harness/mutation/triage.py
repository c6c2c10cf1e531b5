"""The triage of surviving mutants (``triage.yaml`` beside this module): each entry names a
module and the lines the mutant changes (its diff's ``-``/``+`` lines, stripped), and says
``equivalent`` (with the argument that no input tells the two apart), ``message-only`` (it
changes an error message's wording and nothing else, where the site detector of
``sites.py`` cannot tell) or ``hole`` (what the harness lacks; such a mutant stays counted
as survived). A survivor matching no entry is
``open``. Decision 0046.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from harness.core.canonical import read_yaml

TRIAGE_FILE: Final = Path(__file__).with_name("triage.yaml")
VERDICTS: Final = ("equivalent", "message-only", "hole")


class TriageError(ValueError):
    """``triage.yaml`` is malformed (the message names the entry and field)."""


@dataclass(frozen=True)
class Verdict:
    verdict: str
    argument: str


def change_of(diff: str) -> Iterator[str]:
    """The changed lines of a unified diff, stripped, without the file headers."""
    for line in diff.splitlines():
        if line.startswith(("---", "+++")):
            continue
        if line.startswith(("-", "+")):
            yield line[0] + line[1:].strip()


class Triage:
    def __init__(self, path: Path = TRIAGE_FILE) -> None:
        self._entries: dict[tuple[str, tuple[str, ...]], Verdict] = {}
        data = read_yaml(path) if path.is_file() else []
        if not isinstance(data, list):
            raise TriageError(f"{path.name}: a list of entries expected")
        for i, entry in enumerate(data):
            if not isinstance(entry, dict):
                raise TriageError(f"{path.name}[{i}]: a mapping expected")
            for key in ("module", "change", "verdict", "argument"):
                if key not in entry:
                    raise TriageError(f"{path.name}[{i}].{key}: missing")
            if entry["verdict"] not in VERDICTS:
                raise TriageError(f"{path.name}[{i}].verdict: one of {VERDICTS}")
            change = entry["change"]
            if not isinstance(change, list) or not all(isinstance(c, str) for c in change):
                raise TriageError(f"{path.name}[{i}].change: a list of lines expected")
            self._entries[(str(entry["module"]), tuple(change))] = Verdict(
                str(entry["verdict"]), str(entry["argument"]).strip())

    def verdict(self, module: str, diff: str) -> Verdict | None:
        return self._entries.get((module, tuple(change_of(diff))))
