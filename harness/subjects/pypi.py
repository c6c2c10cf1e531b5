"""The installer of PyPI subjects: pinned wheels into a virtual environment of their own
under the cache folder (``<cache>/subjects/<folder>/``), built once, offline after that.

A subject names each wheel by distribution, exact version and, where recorded, the wheel
file name and its sha256. The environment is created with the running interpreter's
``venv``; each wheel is downloaded alone (``--no-deps --only-binary :all:``, seconds of
time limit, no retries), its digest checked against the pin (a wheel that is not the pinned
file — another platform — is refused; an unpinned one is pinned from this first download
and said on standard error), then installed with ``--no-index --require-hashes
--no-deps``. Every failure (no network, no such wheel, a digest that differs, pip failing)
is ``SubjectUnavailableError`` in one line: the run records the subject as not run.
An ``installed.json`` written last marks the environment whole. Decision 0034 (subjects
as folders).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ..core.resources import cache_dir
from .registry import SubjectUnavailableError

#: Seconds for pip to download or install one set of wheels; creating the venv.
PIP_TIMEOUT: Final = 300
#: pip's own per-connection time limit and retries: an unreachable index is told fast.
NETWORK_OPTIONS: Final = ("--timeout", "10", "--retries", "1")
MARKER: Final = "installed.json"


@dataclass(frozen=True)
class Wheel:
    """One pinned wheel: ``name==version``, and the file with its sha256 where recorded
    (``hashes`` maps wheel file names to digests; empty: pinned from the first download)."""

    name: str
    version: str
    hashes: Mapping[str, str] = field(default_factory=dict)

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def environment(folder: str) -> Path:
    """The folder of the environment ``folder`` in the cache."""
    return cache_dir() / "subjects" / folder


def python_of(folder: Path) -> Path:
    return folder / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def installed(folder: str) -> Path | None:
    """The interpreter of the environment when it is whole (no network), else None."""
    place = environment(folder)
    python = python_of(place)
    return python if (place / MARKER).is_file() and python.is_file() else None


def install(folder: str, wheels: Sequence[Wheel], *, label: str | None = None) -> Path:
    """The interpreter of the environment ``folder`` holding ``wheels`` (built on first
    use); ``label`` names the subject in messages (default: the folder)."""
    said = label or folder
    ready = installed(folder)
    if ready is not None:
        return ready
    place = environment(folder)
    try:
        place.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SubjectUnavailableError(f"{said}: cannot create {place} ({exc})") from None
    with _lock(place):
        ready = installed(folder)
        if ready is not None:
            return ready
        return _build(place, wheels, said)


def _build(place: Path, wheels: Sequence[Wheel], said: str) -> Path:
    python = python_of(place)
    if not python.is_file():
        shutil.rmtree(place / "venv", ignore_errors=True)
        try:
            subprocess.run([sys.executable, "-m", "venv", str(place / "venv")], check=True,
                           capture_output=True, timeout=PIP_TIMEOUT)
        except (OSError, subprocess.SubprocessError) as exc:
            raise SubjectUnavailableError(f"{said}: cannot create a virtual environment "
                                          f"({type(exc).__name__})") from None
    downloads = place / "wheels"
    downloads.mkdir(exist_ok=True)
    missing = [w for w in wheels if not any((downloads / n).is_file() for n in w.hashes)]
    if missing:
        _pip(python, said, "download", *(w.requirement for w in missing), "--no-deps",
             "--only-binary", ":all:", *NETWORK_OPTIONS, "-d", str(downloads))
    pinned = [_checked(w, downloads, said) for w in wheels]
    listing = place / "requirements.txt"
    listing.write_text("".join(f"{w.requirement} --hash=sha256:{digest}\n"
                               for w, _, digest in pinned), encoding="utf-8")
    _pip(python, said, "install", "--no-deps", "--no-index", "--find-links", str(downloads),
         "--require-hashes", "-r", str(listing))
    marker = place / MARKER
    temporary = marker.with_suffix(".tmp")
    temporary.write_text(json.dumps({"wheels": {wheel: digest for _, wheel, digest in pinned}},
                                    indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(temporary, marker)
    return python


def _pip(python: Path, said: str, *args: str) -> None:
    try:
        done = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "-q",
                               *args], capture_output=True, text=True, timeout=PIP_TIMEOUT,
                              check=False)
    except subprocess.TimeoutExpired:
        raise SubjectUnavailableError(f"{said}: pip {args[0]} took over {PIP_TIMEOUT} s "
                                      "(offline?)") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        tail = lines[-1].strip() if lines else "(no output)"
        raise SubjectUnavailableError(f"{said}: pip {args[0]} failed: {tail}")


def _normalised(name: str) -> str:
    return name.replace("-", "_").lower()


def _checked(wheel: Wheel, downloads: Path, said: str) -> tuple[Wheel, str, str]:
    """(wheel, file name, sha256) of a downloaded wheel, checked against its pin."""
    prefix = f"{_normalised(wheel.name)}-{wheel.version}-"
    found = sorted(p for p in downloads.glob("*.whl") if p.name.lower().startswith(prefix))
    if not found:
        raise SubjectUnavailableError(f"{said}: pip downloaded no wheel of "
                                      f"{wheel.requirement}")
    if wheel.hashes:
        chosen = [p for p in found if p.name in wheel.hashes]
        if not chosen:
            raise SubjectUnavailableError(
                f"{said}: the wheel of {wheel.requirement} for this machine, {found[-1].name},"
                f" is not the pinned one ({', '.join(sorted(wheel.hashes))})")
        path = chosen[0]
    else:
        path = found[-1]
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    expected = wheel.hashes.get(path.name)
    if expected is not None and expected != digest:
        raise SubjectUnavailableError(f"{said}: {path.name} has sha256 {digest}, not the "
                                      f"pinned {expected}")
    if expected is None:
        print(f"{said}: {path.name} sha256 {digest} (not pinned: pinned in the environment "
              "from this first download)", file=sys.stderr)
    return wheel, path.name, digest


@contextlib.contextmanager
def _lock(folder: Path) -> Iterator[None]:
    """Serialise installs of one environment across processes (POSIX advisory lock)."""
    with (folder / ".lock").open("a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def program_command(folder: str, wheels: Sequence[Wheel], program: Path, *,
                    label: str) -> list[str]:
    """The command line of a PyPI subject: its environment's interpreter (installed on
    first use) running ``program`` (a file beside the subject's adapter) isolated (``-I``:
    no script folder on ``sys.path`` to shadow the package, no user site)."""
    return [str(install(folder, wheels, label=label)), "-I", str(program)]
