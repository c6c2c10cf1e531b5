"""The subject ``tokenizers==VERSION``: any published ``tokenizers`` (0.x or 1.x) in its own
virtual environment, speaking the subject protocol (``program.py``), judged against the
pinned version: the upgrade preview (docs/upgrading.md, decision 0035).

The environment lives under the cache folder (``subjects/tokenizers-VERSION/``): created
once with the running interpreter's ``venv``, the wheel downloaded alone (``--no-deps``:
the bindings import nothing else), its sha256 checked against ``hashes.json`` where the
version is recorded there (recorded on first download otherwise, and said), then
installed with ``--require-hashes``. Expectations are per API family:
``expectations-0.x.yaml``, ``expectations-1.x.yaml`` (named recognisers in
``recognisers.py``); findings: ``FINDINGS.md``.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Final

from ...core.resources import cache_dir
from .generations import family
from .index import VersionError, check

PREFIX: Final = "tokenizers=="
#: The hello name of the program: ``tokenizers-0.x`` or ``tokenizers-1.x``.
HELLO_PREFIX: Final = "tokenizers-"
#: This folder's name in the subject registry (its recognisers serve both families).
REGISTERED: Final = "tokenizers-version"
FOLDER: Final = Path(__file__).resolve().parent
PROGRAM: Final = FOLDER / "program.py"
HASHES: Final = FOLDER / "hashes.json"
#: What a family's bindings import at run time besides themselves (1.x: numpy, for the
#: ids it takes and gives; huggingface-hub only for from_pretrained, never used here).
RUNTIME: Final = {"0.x": (), "1.x": ("numpy==2.4.6",)}
#: Seconds for pip to download or install the wheel.
PIP_TIMEOUT: Final = 300


class SubjectUnavailableError(Exception):
    """The version cannot be installed here (one line)."""


def is_spec(spec: str) -> bool:
    return spec.startswith(PREFIX)


def version_of(spec: str) -> str:
    return spec.removeprefix(PREFIX)


def environment(version: str) -> Path:
    return cache_dir() / "subjects" / f"tokenizers-{version}"


def _python(folder: Path) -> Path:
    return folder / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def recorded_hashes() -> dict[str, dict[str, str]]:
    """``{version: {wheel file name: sha256}}`` of the versions this repository ran."""
    data: dict[str, dict[str, str]] = json.loads(HASHES.read_text(encoding="utf-8"))
    return data


def _pip(python: Path, *args: str) -> None:
    done = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "-q",
                           *args], capture_output=True, text=True, timeout=PIP_TIMEOUT,
                          check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise SubjectUnavailableError(f"pip {args[0]} failed: {tail}")


def install(version: str) -> Path:
    """The interpreter of the environment holding ``tokenizers==version`` (built on first
    use)."""
    folder = environment(version)
    python = _python(folder)
    marker = folder / "installed.json"
    if marker.is_file() and python.is_file():
        return python
    try:
        check(version)
    except VersionError as exc:
        raise SubjectUnavailableError(str(exc)) from None
    wheels = folder / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    if not python.is_file():
        subprocess.run([sys.executable, "-m", "venv", str(folder / "venv")], check=True,
                       capture_output=True, timeout=PIP_TIMEOUT)
    requirements = [f"tokenizers=={version}", *RUNTIME[family(version)]]
    _pip(python, "download", *requirements, "--no-deps", "--only-binary", ":all:",
         "-d", str(wheels))
    pinned = [_hashed(requirement, wheels, version) for requirement in requirements]
    listing = folder / "requirements.txt"
    listing.write_text("".join(f"{r} --hash=sha256:{d}\n" for r, _, d in pinned),
                       encoding="utf-8")
    _pip(python, "install", "--no-deps", "--no-index", "--find-links", str(wheels),
         "--require-hashes", "-r", str(listing))
    temporary = marker.with_suffix(".tmp")
    temporary.write_text(json.dumps({"version": version, "wheels": {
        wheel: digest for _, wheel, digest in pinned}}, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, marker)
    return python


def _hashed(requirement: str, wheels: Path, version: str) -> tuple[str, str, str]:
    """(requirement, wheel name, sha256) of a downloaded wheel, checked against the record
    of ``version`` in hashes.json where there is one."""
    name, _, exact = requirement.partition("==")
    found = sorted(wheels.glob(f"{name}-{exact}-*.whl"))
    if not found:
        raise SubjectUnavailableError(f"pip downloaded no wheel of {requirement}")
    wheel = found[-1]
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    expected = recorded_hashes().get(version, {}).get(wheel.name)
    if expected is not None and expected != digest:
        raise SubjectUnavailableError(f"{wheel.name}: sha256 {digest} is not the recorded "
                                      f"{expected} (harness/subjects/tokenizers_version/"
                                      "hashes.json)")
    if expected is None:
        print(f"tokenizers {version}: {wheel.name} sha256 {digest} (not in hashes.json: "
              "pinned in the environment from this first download)", file=sys.stderr)
    return requirement, wheel.name, digest


def command_for(spec: str) -> list[str]:
    """The command line of the subject process of ``tokenizers==VERSION``."""
    python = install(version_of(spec))
    return [str(python), str(PROGRAM)]


def expectations_display(hello_name: str) -> str:
    """The expectations file of the API family a hello names, as a repository path."""
    return (f"harness/subjects/tokenizers_version/expectations-"
            f"{hello_name.removeprefix(HELLO_PREFIX)}.yaml")
