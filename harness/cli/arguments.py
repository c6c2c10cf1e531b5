"""What every command shares: the usage error (one line, exit 2), the parser that raises
it, the argument types with their bounds, ``--cache``, and reading a report given on the
command line."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, NoReturn

from ..core.resources import (
    BUILD_VARIABLE,
    CACHE_NAME,
    CACHE_VARIABLE,
    platform_cache_root,
)

DEFAULT_REPORT = Path("reports/conformance.yaml")
#: ``--workers`` above this is refused: more processes only compete for the cores.
MAX_WORKERS_PER_CORE, MAX_WORKERS = 4, 64


class UsageError(Exception):
    """A mistake on the command line or in the environment: one line, exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def at_least(minimum: int, what: str) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be an integer, not {text!r:.40}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{what} must be at least {minimum}, not {value}")
        return value

    return parse


def shard(text: str) -> tuple[int, int]:
    from ..runs.workers import LOGICAL_SHARDS

    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)
            <= LOGICAL_SHARDS):
        raise argparse.ArgumentTypeError(
            f"--shard is I/N with 1 <= I <= N <= {LOGICAL_SHARDS}, not {text!r:.40}")
    return int(index), int(count)


def workers(text: str) -> int:
    value: int = at_least(1, "--workers")(text)
    bound = min(MAX_WORKERS, MAX_WORKERS_PER_CORE * (os.cpu_count() or 1))
    if value > bound:
        raise argparse.ArgumentTypeError(
            f"--workers {value} is more than {bound} ({MAX_WORKERS_PER_CORE} per core on "
            f"{os.cpu_count() or 1} cores, at most {MAX_WORKERS})")
    return value


def cache_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--cache", type=Path, default=None, metavar="DIR",
                        help="the cache folder of fixtures and subject packages (default: "
                        f"${CACHE_VARIABLE}, else ${BUILD_VARIABLE}, else "
                        f"{platform_cache_root() / CACHE_NAME})")


def read_report(path: Path) -> Any:
    from ..report.files import ReportError, read_report

    try:
        return read_report(path)
    except ReportError as exc:
        raise UsageError(str(exc)) from None
