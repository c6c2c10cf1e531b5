"""llama.cpp's tokenizer as a subject, through the npm package ``node-llama-cpp`` with its
CPU build ``@node-llama-cpp/linux-x64`` (prebuilt llama.cpp binaries inside the package),
the whole npm tree pinned by exact version and integrity in ``npm/package-lock.json``
beside this module, installed by ``npm ci --ignore-scripts --omit=optional`` into the
cache folder (no install script runs: node-llama-cpp's would download or build
llama.cpp), offline afterwards. ``subject.mjs`` drives it through the subject protocol.

llama.cpp reads GGUF, not tokenizer.json: each document is converted once into a
vocabulary-only GGUF by ``convert.py`` (the ``gguf`` PyPI package, pinned by wheel and
sha256 with numpy and PyYAML, in an environment of its own: ``harness.subjects.pypi``),
cached per document; a document the GGUF cannot express is declined as not expressible
(decisions 0040 and 0053). Without ``node`` (or, before the first install, ``npm``) the
subject is unavailable with one clear line.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from ...core import children, interrupts
from ...core.resources import cache_dir
from .. import pypi
from ..registry import SubjectUnavailableError

NAME: Final = "llama-cpp"
PACKAGE: Final = "node-llama-cpp"
VERSION: Final = "3.21.1"
#: The CPU platform package (the only one installed: no GPU variant).
PLATFORM: Final = "@node-llama-cpp/linux-x64"
HERE: Final = Path(__file__).resolve().parent
LOCK: Final = HERE / "npm" / "package-lock.json"
MANIFEST: Final = HERE / "npm" / "package.json"
SCRIPT: Final = HERE / "subject.mjs"
CONVERT: Final = HERE / "convert.py"
GGUF_VERSION: Final = "0.19.0"
WHEELS: Final = (
    pypi.Wheel("gguf", GGUF_VERSION, {
        "gguf-0.19.0-py3-none-any.whl":
            "70bcd10edfe697fb2dad6e40af2234b9d8ece9a41a99761405121ebda1c3c1cd"}),
    pypi.Wheel("numpy", "2.2.6", {
        "numpy-2.2.6-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl":
            "ba10f8411898fc418a521833e014a77d3ca01c15b0c6cdcce6a0d2897e6dbbdf"}),
    pypi.Wheel("PyYAML", "6.0.2", {
        "PyYAML-6.0.2-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl":
            "3ad2a3decf9aaba3d29c8f537ac4b243e36bef957511b4766cb0057d32b0be85"}),
)
ENVIRONMENT: Final = f"llama-cpp-gguf-{GGUF_VERSION}"
NPM_TIMEOUT: Final = 600
FETCH_OPTIONS: Final = ("--fetch-timeout", "10000", "--fetch-retries", "0")
#: node-llama-cpp must neither download nor build llama.cpp: its prebuilt binary only.
ENVIRONMENT_VARIABLES: Final = {"NODE_LLAMA_CPP_SKIP_DOWNLOAD": "true",
                                "NODE_LLAMA_CPP_GPU": "false"}


def npm_dir(root: Path | None = None) -> Path:
    base = root if root is not None else cache_dir() / "npm"
    return base / f"{PACKAGE}-{VERSION}"


def installed(folder: Path) -> bool:
    return (folder / "installed.json").is_file()


def install(root: Path | None = None) -> Path:
    """The folder holding ``node_modules`` of the pinned tree (installed once)."""
    target = npm_dir(root)
    if installed(target):
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise SubjectUnavailableError(f"{NAME}: npm not found; it is needed once to install "
                                      f"{PACKAGE}@{VERSION}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with _lock(target.parent):
        if installed(target):
            return target
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            work = Path(tmp) / "tree"
            work.mkdir()
            shutil.copy(MANIFEST, work / "package.json")
            shutil.copy(LOCK, work / "package-lock.json")
            _npm_ci(npm, work)
            found = json.loads((work / "node_modules" / PACKAGE / "package.json")
                               .read_text("utf-8"))
            if found.get("version") != VERSION or not (
                    work / "node_modules" / PLATFORM / "package.json").is_file():
                raise SubjectUnavailableError(f"{NAME}: npm ci did not install "
                                              f"{PACKAGE}@{VERSION} with {PLATFORM}")
            (work / "installed.json").write_text(json.dumps(
                {"package": PACKAGE, "version": VERSION}) + "\n", encoding="utf-8")
            shutil.rmtree(target, ignore_errors=True)
            os.replace(work, target)
    return target


def _npm_ci(npm: str, folder: Path) -> None:
    """``npm ci``: exactly the lockfile's tree, each tarball checked against its
    integrity, no install script, no optional (GPU and other platform) package."""
    before = interrupts.phase()
    interrupts.set_phase(f"installing {NAME}: npm ci {PACKAGE}@{VERSION}")
    try:
        done = children.run([npm, "ci", "--ignore-scripts", "--omit=optional", "--no-audit",
                             "--no-fund", *FETCH_OPTIONS], cwd=folder, timeout=NPM_TIMEOUT)
    except (OSError, children.ChildTimeoutError) as exc:
        raise SubjectUnavailableError(f"{NAME}: npm ci did not run ({exc}); install it with "
                                      "`python -m harness fetch` where the registry is "
                                      "reachable") from None
    finally:
        if interrupts.received() is None:
            interrupts.set_phase(before)
    if done.returncode != 0:
        raise SubjectUnavailableError(f"{NAME}: npm ci failed ({children.excerpt(done)})")


def node_modules(root: Path | None = None) -> Path:
    """The installed tree's ``node_modules`` (installed first if needed): where a findings
    reproducer's ``import "node-llama-cpp"`` resolves."""
    return install(root) / "node_modules"


def gguf_cache() -> Path:
    """Where converted GGUFs are kept, one per document (named by its sha256)."""
    return cache_dir() / "subjects" / ENVIRONMENT / "gguf"


def converter_command() -> list[str]:
    """The command that converts a document (standard input) into a GGUF (its argument)."""
    python = pypi.install(ENVIRONMENT, WHEELS, label=NAME)
    return [str(python), "-I", str(CONVERT)]


def command(root: Path | None = None) -> list[str]:
    """The command that runs the subject (installing what it needs first)."""
    node = shutil.which("node")
    if node is None:
        raise SubjectUnavailableError(f"{NAME}: node not found; the subject is skipped")
    folder = install(root)
    converter = converter_command()
    cache = gguf_cache()
    cache.mkdir(parents=True, exist_ok=True)
    return ["env", *(f"{k}={v}" for k, v in ENVIRONMENT_VARIABLES.items()), node,
            str(SCRIPT), str(folder), str(cache), json.dumps(converter)]


@contextlib.contextmanager
def _lock(folder: Path) -> Iterator[None]:
    """Serialise installs across processes (POSIX advisory lock)."""
    with (folder / ".lock-llama-cpp").open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
