"""Where a conformance run writes its report, when the command line does not say.

The committed report, ``reports/conformance.yaml`` (``reports/conformance-<subject>.yaml``
for a named subject), is the default CI run's: profile ``ci``, seed 0, the profile's
budgets. Any other run writes beside it under a name that says how it differs
(``reports/conformance-smoke.yaml``, ``reports/conformance-ci-seed-7.yaml``,
``reports/conformance-reach.yaml``); those names are ignored by git (``.gitignore``), so
such a run leaves the work tree clean. ``--report`` writes anywhere. The chosen path is
checked before the run starts (``unwritable``), so no work is lost at the end to a
folder that cannot be written. Decision 0033.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Final

from ..core.profiles import DEFAULT_PROFILE

REPORTS: Final = Path("reports")


def default_report(*, profile: str, seed: int, examples: int | None,
                   real_examples: int | None, subject: str | None = None,
                   reach: bool = False) -> Path:
    """The report path of a run given no ``--report``."""
    stem = "conformance" + (f"-{subject}" if subject else "")
    if reach:
        stem += "-reach"
    variant = [
        *([f"seed-{seed}"] if seed != 0 else []),
        *([f"examples-{examples}"] if examples is not None else []),
        *([f"real-{real_examples}"] if real_examples is not None else []),
    ]
    if profile != DEFAULT_PROFILE or variant:
        stem += "-" + "-".join([profile, *variant])
    return REPORTS / f"{stem}.yaml"


def unwritable(path: Path) -> str | None:
    """Why a report cannot be written at ``path`` (None when it can): tried by creating
    and removing a temporary file in the nearest folder that exists."""
    if path.is_dir():
        return f"{path} is a folder"
    if path.exists() and not os.access(path, os.W_OK):
        return f"{path} is not writable"
    folder = path.parent
    while not folder.exists():
        if folder.parent == folder:
            break
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=folder)
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror or exc})"
    os.close(fd)
    os.unlink(probe)
    return None
