"""transformers.js as a subject: the npm package ``@huggingface/tokenizers`` (the tokenizer
library of ``@huggingface/transformers`` v4), pinned by version and integrity, driven by
``subject.mjs`` beside this module through the subject protocol. The folder also holds its
expectations, their recognisers, its pinned witnesses and its findings (decision 0030).

On first use the package is fetched with ``npm pack`` into the build folder
(``.build/npm/``), its sha512 checked against the pinned integrity, and unpacked (it has
no dependencies). Nothing else touches the network. Without ``node`` (or, before the
first install, without ``npm``) the subject is unavailable with one clear line.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Final

from ...core.resources import build_dir
from ..registry import SubjectUnavailableError

NAME: Final = "transformers-js"
PACKAGE: Final = "@huggingface/tokenizers"
VERSION: Final = "0.2.0"
#: The npm registry's ``dist.integrity`` of that version (sha512 of the tarball).
INTEGRITY: Final = ("sha512-LidMHe1FpcSYH4vcSjXooda34pC0M8m1gmDOv7SQi6Iv+ib1zX7J3sHBCC9/"
                    "3FPCkn2k1b55FneVqMRxrr99pg==")
SCRIPT: Final = "subject.mjs"
#: npm's own time limit for the one install.
NPM_TIMEOUT: Final = 300


def package_dir(root: Path | None = None) -> Path:
    base = root if root is not None else build_dir() / "npm"
    return base / f"huggingface-tokenizers-{VERSION}" / "package"


def integrity_of(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def install(root: Path | None = None) -> Path:
    """The unpacked, verified package folder (fetched once)."""
    target = package_dir(root)
    if (target / "package.json").is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise SubjectUnavailableError(f"{NAME}: npm not found; it is needed once to fetch "
                                 f"{PACKAGE}@{VERSION}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with _lock(target.parent), tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        if (target / "package.json").is_file():
            return target
        try:
            done = subprocess.run(
                [npm, "pack", f"{PACKAGE}@{VERSION}", "--json", "--pack-destination", tmp],
                capture_output=True, text=True, timeout=NPM_TIMEOUT, check=False)
        except subprocess.TimeoutExpired:
            raise SubjectUnavailableError(f"{NAME}: npm pack {PACKAGE}@{VERSION} took more "
                                     f"than {NPM_TIMEOUT} s") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise SubjectUnavailableError(f"{NAME}: npm pack {PACKAGE}@{VERSION} failed: "
                                     f"{last[:200]}")
        tarballs = list(Path(tmp).glob("*.tgz"))
        if len(tarballs) != 1:
            raise SubjectUnavailableError(f"{NAME}: npm pack left {len(tarballs)} tarballs")
        data = tarballs[0].read_bytes()
        if integrity_of(data) != INTEGRITY:
            raise SubjectUnavailableError(f"{NAME}: {tarballs[0].name} does not have the pinned "
                                     f"integrity {INTEGRITY[:24]}... (got "
                                     f"{integrity_of(data)[:24]}...)")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tarballs[0]) as archive:
            archive.extractall(unpacked, filter="data")
        manifest = json.loads((unpacked / "package" / "package.json").read_text("utf-8"))
        if manifest.get("version") != VERSION or manifest.get("dependencies"):
            raise SubjectUnavailableError(f"{NAME}: unexpected package.json in the tarball")
        os.replace(unpacked / "package", target)
    return target


def command(root: Path | None = None) -> list[str]:
    """The command that runs the subject (installing the package first if needed)."""
    node = shutil.which("node")
    if node is None:
        raise SubjectUnavailableError(f"{NAME}: node not found; the subject is skipped")
    package = install(root)
    script = resources.files(__package__).joinpath(SCRIPT)
    with resources.as_file(script) as path:
        return [node, str(path), str(package.resolve())]


@contextlib.contextmanager
def _lock(folder: Path) -> Iterator[None]:
    """Serialise installs across processes (POSIX advisory lock)."""
    import fcntl

    with (folder / ".lock").open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
