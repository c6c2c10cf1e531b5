"""kitoken on npm as a subject: the package ``kitoken`` 0.10.1, the same Rust engine as
the PyPI subject ``kitoken`` (0.11.1) a version apart, compiled to WebAssembly
(``kitoken/node``: the wasm-bindgen build for Node), pinned by version and integrity and
driven by ``subject.mjs`` beside this module through the subject protocol. The folder
holds its expectations (most of them kitoken's own, recognised by kitoken's recognisers),
its recognisers, pinned witnesses and findings (decision 0034).

The tarball has no dependencies (its ``package.json`` lists devDependencies only, for the
build); it is installed once into ``<cache>/npm/`` (``npm_tarball``) and used offline
afterwards. Without ``node`` (or, before the first install, without ``npm``) the subject
is unavailable with one line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ..npm_tarball import Pinned, node_command
from ..npm_tarball import node_modules as npm_node_modules

NAME: Final = "kitoken-npm"
PIN: Final = Pinned(
    NAME, "kitoken", "0.10.1",
    "sha512-4igfi0lg6AJSUR7zH5Q/TQVVmyDK+4E8/KSXxP7WKQxDxELUa4W73lyMANEBCyT0QMJjPOH4U12RF+mWi0PwVg==")
SCRIPT: Final = "subject.mjs"


def package_dir(root: Path | None = None) -> Path:
    return PIN.folder(root)


def command(root: Path | None = None) -> list[str]:
    """The command that runs the subject (installing the package first if needed)."""
    return node_command(PIN, __package__, root, SCRIPT)


def node_modules(root: Path | None = None) -> Path:
    """A ``node_modules`` folder holding the package as ``kitoken``, for the findings'
    ``js`` blocks (``harness.subjects.reproducers``)."""
    return npm_node_modules(PIN, root)
