"""The registry of subjects: every folder of this package, and every package outside it
that declares the entry point group ``tokenizer_conformance.subjects`` (decision 0034).

A subject is a Python package (its folder) named by the registry: ``harness/subjects/
transformers_js/`` is ``transformers-js`` (underscores read as hyphens), an entry point
``name = "package"`` (or ``"module:object"``, a ``Subject`` object) is ``name``.
Discovery imports nothing; a subject's package is imported when it is used. The package
is the adapter — ``command()`` (the command line of a child process speaking
docs/subject-protocol.md) or ``subject()`` (a ``Subject`` in this process) — and its
folder may hold ``expectations.yaml``, ``witnesses.json``, a findings document
(``FINDINGS.md``) and a ``recognisers`` module or package whose ``RECOGNISERS`` maps
recogniser names to predicates (loaded by the run, never by the judge).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from dataclasses import dataclass
from functools import cache
from importlib import metadata, resources
from importlib.abc import Traversable
from pathlib import Path
from types import ModuleType
from typing import Any, Final

#: The entry point group through which packages outside this one register subjects.
ENTRY_POINT_GROUP: Final = "tokenizer_conformance.subjects"
#: Subjects of this package that are a module, not a folder (they hold no files): the
#: module and the ``Subject`` object in it.
MODULES: Final = {"upstream": (f"{__package__}.upstream", "UPSTREAM")}
EXPECTATIONS: Final = "expectations.yaml"
WITNESSES: Final = "witnesses.json"
FINDINGS: Final = ("FINDINGS.md", "findings.md")


class SubjectUnavailableError(Exception):
    """The subject cannot run on this machine (the message says why, in one line)."""


@dataclass(frozen=True)
class Registered:
    """One subject the registry knows: its name, its package and where it came from."""

    name: str
    package: str
    #: ``harness`` for this package's own subjects, else the entry point's distribution.
    origin: str
    #: The ``Subject`` object of a module subject (``module:attribute``); None for a
    #: package whose ``command()`` or ``subject()`` is the adapter.
    attribute: str | None = None

    def module(self) -> ModuleType:
        return importlib.import_module(self.package)

    @property
    def folder(self) -> Traversable | None:
        """The package's folder (None for a subject that is a module)."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or spec.submodule_search_locations is None:
            return None
        return resources.files(self.package)

    def file(self, name: str) -> Traversable | None:
        """A file of the subject's folder (None where it has none of that name)."""
        folder = self.folder
        found = folder.joinpath(name) if folder is not None else None
        return found if found is not None and found.is_file() else None

    @property
    def display_folder(self) -> str:
        """The folder as a reader finds it: a repository path for this package's own."""
        if self.origin == "harness":
            return f"harness/subjects/{self.package.rsplit('.', 1)[-1]}/"
        folder = self.folder
        return f"{folder}/" if folder is not None else self.package

    def display(self, name: str) -> str:
        return f"{self.display_folder}{name}"

    @property
    def findings(self) -> str | None:
        found = next((name for name in FINDINGS if self.file(name) is not None), None)
        return self.display(found) if found is not None else None

    def recognisers_module(self) -> str | None:
        """The module holding the subject's ``RECOGNISERS``, by name (not imported)."""
        name = f"{self.package}.recognisers"
        try:
            return name if importlib.util.find_spec(name) is not None else None
        except ModuleNotFoundError:
            return None

    def command(self) -> list[str] | None:
        """The command line of a subject that runs as a child process (None otherwise)."""
        made = getattr(self.module(), "command", None)
        if made is None or self.attribute is not None:
            return None
        words: Any = made()
        if not (isinstance(words, list) and words and all(isinstance(w, str) for w in words)):
            raise SubjectUnavailableError(f"{self.name}: {self.package}.command() must return "
                                          "a non-empty list of strings")
        return words

    def in_process(self) -> Any:
        """The ``Subject`` of a subject that runs in this process (None otherwise)."""
        if self.attribute is not None:
            return getattr(self.module(), self.attribute)
        made = getattr(self.module(), "subject", None)
        return made() if made is not None else None


@cache
def registered() -> dict[str, Registered]:
    """Every subject the registry knows, by name (this package's first: an entry point may
    not take one of their names)."""
    found: dict[str, Registered] = {}
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if info.ispkg:
            name = info.name.replace("_", "-")
            found[name] = Registered(name, f"{__package__}.{info.name}", "harness")
    for name, (module, attribute) in MODULES.items():
        found[name] = Registered(name, module, "harness", attribute)
    for point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in found:
            distribution = point.dist.name if point.dist is not None else "an entry point"
            module, _, attribute = point.value.partition(":")
            found[point.name] = Registered(point.name, module.strip(), distribution,
                                           attribute.strip() or None)
    return found


def lookup(name: str) -> Registered | None:
    return registered().get(name)


def names() -> tuple[str, ...]:
    return tuple(sorted(registered()))


def folder_in(root: Path, entry: Registered) -> Path:
    """The subject's folder in the checkout ``root`` (this package's subjects), or the
    installed package's own folder (another package's)."""
    if entry.origin == "harness":
        return root / entry.display_folder
    folder = entry.folder
    if folder is None:
        raise SubjectUnavailableError(f"{entry.name} is a module: it has no folder")
    return Path(str(folder))
