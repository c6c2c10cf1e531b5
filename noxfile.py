"""Sessions: tests, lint, conformance (the main job), oracles, bench.

Every session installs what it needs itself; nothing downloads from a model hub.
"""

from __future__ import annotations

import os

import nox

nox.options.sessions = ["tests", "lint"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

PYTHON = "3.11"
UPSTREAM = "tokenizers==0.23.1"


def _profile() -> str:
    return os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Unit, replay, property and harness self-tests.

    The reference side never needs `tokenizers`; the upstream-marked tests and the harness
    self-tests do, so the pinned version is installed beside it (replay tests block it).
    """
    session.install("-e", ".[dev]", UPSTREAM)
    session.run("pytest", *session.posargs, env={"HYPOTHESIS_PROFILE": _profile()})


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff and mypy --strict on implementation/ and harness/."""
    session.install("-e", ".[dev]", UPSTREAM)
    session.run("ruff", "check", "implementation", "harness", "tests", "noxfile.py")
    session.run("mypy", "--strict", "implementation", "harness")


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """Fuzz the reference against tokenizers 0.23.1 and write reports/conformance.yaml.

    Arguments after `--` go to `python -m harness conformance` (--examples, --seed,
    --profile, ...).
    """
    session.install("-e", ".[harness]")
    session.run("python", "-m", "harness", "conformance", *session.posargs)
