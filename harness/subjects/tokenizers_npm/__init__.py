"""The control subject: ``tokenizers`` on npm, the same Rust core as the PyPI package
behind N-API, pinned by version and integrity and driven by ``subject.mjs`` beside this
module through the subject protocol. Any divergence from ``tokenizers`` 0.23.1 is a
binding or adapter bug (FINDINGS.md beside this module).

npm has no 0.23.1 (its 0.23.x release is 0.23.2, the next patch of the same core, with
every platform's prebuilt ``.node`` inside the one tarball and no dependencies); that is
the pin. Installed once into ``<cache>/npm/`` (``npm_tarball``); without ``node`` (or,
before the first install, without ``npm``) the subject is unavailable with one line.
``node_modules()`` gives a folder where ``import ... from "tokenizers"`` resolves to it (the
findings' ``js`` blocks, ``harness.subjects.reproducers``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ..npm_tarball import Pinned, node_command
from ..npm_tarball import node_modules as npm_node_modules

NAME: Final = "tokenizers-npm"
PIN: Final = Pinned(
    NAME, "tokenizers", "0.23.2",
    "sha512-OS99VXTXuGuyUncICcS0hEawgKQlrFVKNU+UlzRsTN03RpOeJiCmcai5nKg3JrdIvUDo7/RC5puVEjlJd2e5oA==")
SCRIPT: Final = "subject.mjs"


def package_dir(root: Path | None = None) -> Path:
    return PIN.folder(root)


def command(root: Path | None = None) -> list[str]:
    """The command that runs the subject (installing the package first if needed)."""
    return node_command(PIN, __package__, root, SCRIPT)


def node_modules(root: Path | None = None) -> Path:
    """A ``node_modules`` folder holding the package as ``tokenizers``, for the findings'
    ``js`` blocks (``harness.subjects.reproducers``)."""
    return npm_node_modules(PIN, root)
