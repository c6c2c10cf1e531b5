"""transformers.js as a subject: the npm package ``@huggingface/tokenizers`` (the tokenizer
library of ``@huggingface/transformers`` v4), pinned by version and integrity, driven by
``subject.mjs`` beside this module through the subject protocol. The folder also holds its
expectations, their recognisers, its pinned witnesses and its findings (decision 0034).

On first use (or ahead of time: ``python -m harness fetch``) the package is fetched with
``npm pack`` into the user's cache folder (``<cache>/npm/``, ``core.resources``), or taken
from a downloaded tarball (``fetch --from DIR``), its sha512 checked against the pinned
integrity, and unpacked (it has no dependencies) in a temporary folder renamed into place
when whole. Nothing else touches the network; npm's time limits are seconds and a signal
ends npm with its process group (``core.children``). Without ``node`` (or, before the
first install, without ``npm``) the subject is unavailable with one clear line.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Final

from ...core import children, interrupts
from ...core.resources import cache_dir
from ..registry import SubjectUnavailableError as SubjectUnavailableError

NAME: Final = "transformers-js"
PACKAGE: Final = "@huggingface/tokenizers"
VERSION: Final = "0.2.0"
#: The npm registry's ``dist.integrity`` of that version (sha512 of the tarball).
INTEGRITY: Final = ("sha512-LidMHe1FpcSYH4vcSjXooda34pC0M8m1gmDOv7SQi6Iv+ib1zX7J3sHBCC9/"
                    "3FPCkn2k1b55FneVqMRxrr99pg==")
SCRIPT: Final = "subject.mjs"
#: npm's own time limit for the one install.
NPM_TIMEOUT: Final = 300
#: The file ``npm pack`` writes (what ``fetch --from DIR`` looks for).
TARBALL: Final = f"huggingface-tokenizers-{VERSION}.tgz"
#: npm's limits per request (milliseconds) and no retries: an unreachable registry is
#: told in seconds.
FETCH_OPTIONS: Final = ("--fetch-timeout", "10000", "--fetch-retries", "0")


def package_dir(root: Path | None = None) -> Path:
    base = root if root is not None else cache_dir() / "npm"
    return base / f"huggingface-tokenizers-{VERSION}" / "package"


def integrity_of(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def install(root: Path | None = None, tarball: Path | None = None) -> Path:
    """The unpacked, verified package folder (fetched once, or taken from ``tarball``)."""
    target = package_dir(root)
    if (target / "package.json").is_file():
        return target
    npm = shutil.which("npm")
    if npm is None and tarball is None:
        raise SubjectUnavailableError(f"{NAME}: npm not found; it is needed once to fetch "
                                      f"{PACKAGE}@{VERSION}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with _lock(target.parent), tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        if (target / "package.json").is_file():
            return target
        if tarball is not None:
            packed = tarball
        else:
            assert npm is not None
            packed = _pack(npm, Path(tmp))
        data = packed.read_bytes()
        if integrity_of(data) != INTEGRITY:
            raise SubjectUnavailableError(f"{NAME}: {packed} does not have the pinned "
                                          f"integrity {INTEGRITY[:24]}... (got "
                                          f"{integrity_of(data)[:24]}...)")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(packed) as archive:
            archive.extractall(unpacked, filter="data")
        manifest = json.loads((unpacked / "package" / "package.json").read_text("utf-8"))
        if manifest.get("version") != VERSION or manifest.get("dependencies"):
            raise SubjectUnavailableError(f"{NAME}: unexpected package.json in the tarball")
        os.replace(unpacked / "package", target)
    return target


def _pack(npm: str, folder: Path) -> Path:
    """``npm pack`` the pinned version into ``folder``; the tarball it wrote."""
    how = (f"get it with `python -m harness fetch` where the registry is reachable, or "
           f"`python -m harness fetch --from DIR` with DIR holding {TARBALL}")
    before = interrupts.phase()
    interrupts.set_phase(f"installing {NAME}: npm pack {PACKAGE}@{VERSION}")
    try:
        done = children.run([npm, "pack", f"{PACKAGE}@{VERSION}", "--json", "--ignore-scripts",
                             *FETCH_OPTIONS, "--pack-destination", str(folder)],
                            cwd=folder, timeout=NPM_TIMEOUT)
    except (OSError, children.ChildTimeoutError) as exc:
        raise SubjectUnavailableError(f"{NAME}: npm pack {PACKAGE}@{VERSION} did not run "
                                      f"({exc}); {how}") from None
    finally:
        if interrupts.received() is None:  # an interrupt names what it stopped
            interrupts.set_phase(before)
    if done.returncode != 0:
        raise SubjectUnavailableError(f"{NAME}: npm pack {PACKAGE}@{VERSION} failed "
                                      f"({children.excerpt(done)}); {how}")
    tarballs = list(folder.glob("*.tgz"))
    if len(tarballs) != 1:
        raise SubjectUnavailableError(f"{NAME}: npm pack left {len(tarballs)} tarballs")
    return tarballs[0]


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
