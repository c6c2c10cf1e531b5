"""Where the harness finds the data it reads.

The registry's decision records, the pinned oracles and their schema, the real-model
corpus and the unified tokenizer's fixture live in the repository (``docs/decisions``,
``oracles``, ``fixtures/corpus``, ``fixtures/unified``). A built distribution carries them
as package data (``pyproject.toml`` maps each folder onto a ``harness.*`` data package), so
``pip install .`` works from any directory; a source checkout (editable install, nox)
reads them in place. Outputs (reports, regenerated oracles) are never written here: they
go where the command line says, relative to the working directory; downloaded and built
fixtures go to the user's cache folder (``cache_dir``).
"""

from __future__ import annotations

import importlib.resources
import os
import sys
from pathlib import Path
from typing import Final, Literal

DataKind = Literal["decisions", "oracles", "corpus", "unified"]

#: Each kind of data: its folder in the repository and its package when installed.
_LOCATIONS: Final[dict[str, tuple[str, str]]] = {
    "decisions": ("docs/decisions", "harness.data_decisions"),
    "oracles": ("oracles", "harness.data_oracles"),
    "corpus": ("fixtures/corpus", "harness.data_fixtures.corpus"),
    "unified": ("fixtures/unified", "harness.data_fixtures.unified"),
}


def checkout_root() -> Path | None:
    """The repository this harness runs from, or None for an installed distribution."""
    root = Path(__file__).resolve().parents[2]
    if (root / "pyproject.toml").is_file() and (root / "harness").is_dir():
        return root
    return None


def data_dir(kind: DataKind) -> Path:
    """The folder holding ``kind``: in the checkout, else in the installed package."""
    folder, package = _LOCATIONS[kind]
    root = checkout_root()
    if root is not None and (root / folder).is_dir():
        return root / folder
    # The data packages are folders without __init__.py inside the installed harness
    # package; found through it (a namespace package's files() is no plain path).
    installed = Path(str(importlib.resources.files("harness")))
    return installed.joinpath(*package.split(".")[1:])


def data_file(kind: DataKind, name: str) -> Path:
    return data_dir(kind) / name


def repository_path(kind: DataKind, name: str = "") -> str:
    """How a report names a data file: its path inside the repository."""
    folder, _ = _LOCATIONS[kind]
    return f"{folder}/{name}" if name else folder


#: The cache folder, one per user, where fixtures and third-party subjects are built on
#: first use (or ahead of time by ``python -m harness fetch``): ``--cache DIR`` (which sets
#: ``CACHE_VARIABLE`` for the run and its workers), else ``TOKENIZER_CONFORMANCE_CACHE``,
#: else ``TOKENIZER_CONFORMANCE_BUILD`` (its older name), else the platform's cache folder.
#: Never relative to the working directory (decision 0033).
CACHE_VARIABLE: Final = "TOKENIZER_CONFORMANCE_CACHE"
BUILD_VARIABLE: Final = "TOKENIZER_CONFORMANCE_BUILD"
CACHE_NAME: Final = "tokenizer-conformance"


def platform_cache_root() -> Path:
    """The platform's per-user cache folder: ``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux,
    ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows."""
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return Path(local) if local else Path.home() / "AppData" / "Local"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    xdg = os.environ.get("XDG_CACHE_HOME")
    return Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"


def cache_dir() -> Path:
    """The cache folder, absolute (see ``CACHE_VARIABLE``)."""
    chosen = os.environ.get(CACHE_VARIABLE) or os.environ.get(BUILD_VARIABLE)
    folder = Path(chosen).expanduser() if chosen else platform_cache_root() / CACHE_NAME
    return folder.absolute()


def use_cache_dir(folder: Path) -> None:
    """Make ``folder`` the cache of this process and of the processes it starts."""
    os.environ[CACHE_VARIABLE] = str(folder.expanduser().absolute())
