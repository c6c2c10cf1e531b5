"""The subject ``tokenizers==VERSION``: any published ``tokenizers`` (0.x or 1.x) in its own
virtual environment, speaking the subject protocol (``program.py``), judged against the
pinned version: the upgrade preview (docs/upgrading.md, decision 0035).

The environment lives under the cache folder (``subjects/tokenizers-VERSION/``), built by
the PyPI installer (``harness.subjects.pypi``): the wheel alone (``--no-deps``: the
bindings import nothing else), its sha256 checked against ``hashes.json`` where the
version is recorded there (recorded on first download otherwise, and said), installed
with ``--require-hashes``. Expectations are per family of versions
(``generations.FAMILIES``): ``expectations-0.x.yaml`` (0.23 on),
``expectations-0.20-0.22.yaml``, ``expectations-1.x.yaml`` (named recognisers in
``recognisers.py``), each with its pinned witnesses (``witnesses-<family>.json``);
findings: ``FINDINGS.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from .. import pypi
from ..registry import SubjectUnavailableError as SubjectUnavailableError
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
RUNTIME: Final = {"0.x": (), "0.20-0.22": (), "1.x": ("numpy==2.4.6",)}


def is_spec(spec: str) -> bool:
    return spec.startswith(PREFIX)


def version_of(spec: str) -> str:
    return spec.removeprefix(PREFIX)


def environment(version: str) -> Path:
    return pypi.environment(f"tokenizers-{version}")


def recorded_hashes() -> dict[str, dict[str, str]]:
    """``{version: {wheel file name: sha256}}`` of the versions this repository ran."""
    data: dict[str, dict[str, str]] = json.loads(HASHES.read_text(encoding="utf-8"))
    return data


def install(version: str) -> Path:
    """The interpreter of the environment holding ``tokenizers==version`` (built on first
    use by the PyPI installer, ``harness.subjects.pypi``)."""
    folder = f"tokenizers-{version}"
    ready = pypi.installed(folder)
    if ready is not None:
        return ready
    try:
        check(version)
    except VersionError as exc:
        raise SubjectUnavailableError(str(exc)) from None
    hashes = recorded_hashes().get(version, {})
    wheels = []
    for requirement in (f"tokenizers=={version}", *RUNTIME[family(version)]):
        name, _, exact = requirement.partition("==")
        wheels.append(pypi.Wheel(name, exact, {
            wheel: digest for wheel, digest in hashes.items() if wheel.startswith(f"{name}-")}))
    return pypi.install(folder, wheels, label=f"tokenizers {version}")


def command_for(spec: str) -> list[str]:
    """The command line of the subject process of ``tokenizers==VERSION``."""
    python = install(version_of(spec))
    return [str(python), str(PROGRAM)]


def expectations_display(hello_name: str) -> str:
    """The expectations file of the family a hello names, as a repository path."""
    return (f"harness/subjects/tokenizers_version/expectations-"
            f"{hello_name.removeprefix(HELLO_PREFIX)}.yaml")
