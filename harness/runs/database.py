"""The shared example database: failing cases found by any run, replayed by every later one.

``.hypothesis/conformance`` (a ``DirectoryBasedExampleDatabase``) by default, or Redis
(``RedisExampleDatabase``) when ``HYPOTHESIS_REDIS_URL`` is set. The exploration never
raises (its counts must be complete), so Hypothesis would never save anything from it;
instead the minimal witness of every failure signature is saved explicitly, through the
public ``ExampleDatabase`` interface, under ``FAILING_CASES_KEY`` as the case's canonical
JSON. Every run first replays each stored case and records it like an explored one; a
stored case that no longer fails is deleted, as Hypothesis deletes a saved example that
stopped failing. A case, unlike Hypothesis' choice sequences, stays meaningful when the
strategies or Hypothesis change.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from ..core.case import Case
from .engine import Engine
from .tally import Tally

FAILING_CASES_KEY = b"tokenizer-conformance/failing-cases/v1"
DEFAULT_DATABASE = Path(".hypothesis") / "conformance"
REDIS_URL_VARIABLE = "HYPOTHESIS_REDIS_URL"


class DatabaseError(Exception):
    """The example database named by the environment cannot be used."""


def example_database(directory: Path = DEFAULT_DATABASE,
                     environ: Mapping[str, str] | None = None) -> ExampleDatabase:
    """Redis when ``HYPOTHESIS_REDIS_URL`` is set (and not empty), else ``directory``.
    Raises ``DatabaseError`` naming the variable when its URL is unusable."""
    env = os.environ if environ is None else environ
    url = env.get(REDIS_URL_VARIABLE, "").strip()
    if not url:
        return DirectoryBasedExampleDatabase(directory)
    try:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase

        client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=10)
        client.ping()
    except ImportError as exc:
        raise DatabaseError(f"${REDIS_URL_VARIABLE} is set but the redis package is "
                            f"missing ({exc.name}); pip install redis") from None
    except Exception as exc:  # a malformed URL (ValueError) or an unreachable server
        reason = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        raise DatabaseError(f"${REDIS_URL_VARIABLE} names no usable Redis database: "
                            f"{reason}") from None
    return RedisExampleDatabase(client)


def describe_database(database: ExampleDatabase) -> str:
    """For a log line: never the Redis URL itself (it may carry a password)."""
    if isinstance(database, DirectoryBasedExampleDatabase):
        return f"directory {database.path}"
    if type(database).__name__ == "RedisExampleDatabase":
        return f"Redis (${REDIS_URL_VARIABLE})"
    return type(database).__name__


def encode_case(case: Case) -> bytes:
    return json.dumps(case.to_json(), ensure_ascii=False, sort_keys=True,
                      separators=(",", ":")).encode("utf-8")


def stored_cases(database: ExampleDatabase) -> list[bytes]:
    return sorted(database.fetch(FAILING_CASES_KEY))


def replay_failures(database: ExampleDatabase, engine: Engine, tally: Tally) -> int:
    """Run every stored failing case, recording it in ``tally``; drop those that pass.

    Returns how many were replayed. An entry that cannot be read back as a case (written
    by a different format) is dropped too.
    """
    replayed = 0
    for value in stored_cases(database):
        try:
            case = Case.from_json(value.decode("utf-8"))
        except (ValueError, KeyError, TypeError, AssertionError):
            database.delete(FAILING_CASES_KEY, value)
            continue
        judgement = engine.record(tally, case)
        replayed += 1
        if not any(v.is_failure for v in judgement.verdicts):
            database.delete(FAILING_CASES_KEY, value)
    return replayed


def save_failures(database: ExampleDatabase, tally: Tally) -> int:
    """Store the witness of every failure signature (after shrinking: the smallest)."""
    for signature in sorted(tally.failure_witness):
        database.save(FAILING_CASES_KEY, encode_case(tally.failure_witness[signature].case))
    return len(tally.failure_witness)
