"""Install one pinned npm package (a tarball without dependencies) into the cache folder:
``npm pack`` fetches it once (or ``fetch --from DIR`` hands it over), its sha512 is
checked against the pinned npm integrity, and it is unpacked in a temporary folder renamed
into place when whole, under a lock. Used by npm subjects that hold no code of their own
for this (decision 0034: a subject is a folder; its installer is its own business).
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from ..core import children, interrupts
from ..core.resources import cache_dir
from .registry import SubjectUnavailableError

#: npm's limits per request (milliseconds) and no retries.
FETCH_OPTIONS: Final = ("--fetch-timeout", "10000", "--fetch-retries", "0")
NPM_TIMEOUT: Final = 300


@dataclass(frozen=True)
class Pinned:
    """An npm package pinned by exact version and ``dist.integrity``."""

    subject: str
    package: str
    version: str
    integrity: str

    @property
    def tarball(self) -> str:
        """The file name ``npm pack`` writes."""
        return f"{self.package.lstrip('@').replace('/', '-')}-{self.version}.tgz"

    def folder(self, root: Path | None = None) -> Path:
        base = root if root is not None else cache_dir() / "npm"
        return base / self.tarball.removesuffix(".tgz") / "package"


def node_command(pin: Pinned, package: str, root: Path | None = None,
                 script: str = "subject.mjs") -> list[str]:
    """The command line of an npm subject: ``node`` running ``script`` (a file of the
    Python package ``package``, the subject's folder) on the installed package folder
    (installed first if needed). Without ``node``: unavailable, in one line."""
    node = shutil.which("node")
    if node is None:
        raise SubjectUnavailableError(f"{pin.subject}: node not found; the subject is skipped")
    folder = install(pin, root)
    with resources.as_file(resources.files(package).joinpath(script)) as path:
        return [node, str(path), str(folder.resolve())]


def node_modules(pin: Pinned, root: Path | None = None) -> Path:
    """A ``node_modules`` folder holding the installed package under its own name (a
    relative symlink beside the package folder in the cache, made once, atomically), so
    that ``import ... from "<package>"`` resolves: the findings' ``js`` blocks
    (``harness.subjects.reproducers``)."""
    package = install(pin, root)
    folder = package.parent / "node_modules"
    link = folder / pin.package
    if not link.is_dir():
        link.parent.mkdir(parents=True, exist_ok=True)
        made = link.parent / f".{link.name}.{os.getpid()}"
        made.unlink(missing_ok=True)
        made.symlink_to(os.path.relpath(package, link.parent), target_is_directory=True)
        os.replace(made, link)
    return folder


def integrity_of(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode("ascii")


def install(pin: Pinned, root: Path | None = None, tarball: Path | None = None) -> Path:
    """The unpacked, verified package folder (fetched once, or taken from ``tarball``)."""
    target = pin.folder(root)
    if (target / "package.json").is_file():
        return target
    npm = shutil.which("npm")
    if npm is None and tarball is None:
        raise SubjectUnavailableError(f"{pin.subject}: npm not found; it is needed once to "
                                      f"fetch {pin.package}@{pin.version}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with _lock(target.parent), tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        if (target / "package.json").is_file():
            return target
        packed = tarball if tarball is not None else _pack(pin, str(npm), Path(tmp))
        data = packed.read_bytes()
        if integrity_of(data) != pin.integrity:
            raise SubjectUnavailableError(
                f"{pin.subject}: {packed} does not have the pinned integrity "
                f"{pin.integrity[:24]}... (got {integrity_of(data)[:24]}...)")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(packed) as archive:
            archive.extractall(unpacked, filter="data")
        manifest = json.loads((unpacked / "package" / "package.json").read_text("utf-8"))
        if manifest.get("version") != pin.version or manifest.get("dependencies"):
            raise SubjectUnavailableError(f"{pin.subject}: unexpected package.json in the "
                                          "tarball")
        os.replace(unpacked / "package", target)
    return target


def _pack(pin: Pinned, npm: str, folder: Path) -> Path:
    spec = f"{pin.package}@{pin.version}"
    how = (f"get it with `python -m harness fetch` where the registry is reachable, or "
           f"`python -m harness fetch --from DIR` with DIR holding {pin.tarball}")
    before = interrupts.phase()
    interrupts.set_phase(f"installing {pin.subject}: npm pack {spec}")
    try:
        done = children.run([npm, "pack", spec, "--json", "--ignore-scripts", *FETCH_OPTIONS,
                             "--pack-destination", str(folder)], cwd=folder,
                            timeout=NPM_TIMEOUT)
    except (OSError, children.ChildTimeoutError) as exc:
        raise SubjectUnavailableError(f"{pin.subject}: npm pack {spec} did not run ({exc}); "
                                      f"{how}") from None
    finally:
        if interrupts.received() is None:
            interrupts.set_phase(before)
    if done.returncode != 0:
        raise SubjectUnavailableError(f"{pin.subject}: npm pack {spec} failed "
                                      f"({children.excerpt(done)}); {how}")
    tarballs = list(folder.glob("*.tgz"))
    if len(tarballs) != 1:
        raise SubjectUnavailableError(f"{pin.subject}: npm pack left {len(tarballs)} tarballs")
    return tarballs[0]


@contextlib.contextmanager
def _lock(folder: Path) -> Iterator[None]:
    """Serialise installs across processes (POSIX advisory lock)."""
    with (folder / ".lock").open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
