"""Scale-out of the conformance job: worker processes, and the shared example database.

Workers (``--workers N``, docs/decisions/0016-scale-out.md)
    Hypothesis-native sharding by seed: shard ``i`` of ``N`` runs the same exploration
    test (``conformance.explore``) in its own process, with ``shard_seed(seed, i)`` and its
    share of the budget, and returns its ``Stats``; the parent merges them in shard order
    (``merge_stats``), so the report has exactly the structure of a one-process run. The
    witness searches (one per class and per failure signature) and the real-model
    fixtures are independent jobs, mapped over the same pool in a fixed order. With
    ``N == 1`` nothing leaves this process and the run is what it always was.

The example database (``example_database``)
    ``.hypothesis/conformance`` (a ``DirectoryBasedExampleDatabase``) by default, or
    ``RedisExampleDatabase`` when ``HYPOTHESIS_REDIS_URL`` is set. The exploration never
    raises (its counts must be complete), so Hypothesis would never save anything from it;
    instead the minimal witness of every failure signature is saved explicitly, through
    the public ``ExampleDatabase`` interface, under ``FAILING_CASES_KEY`` as the case's
    canonical JSON. Every run first replays each stored case (``replay_failures``) and
    records it like an explored one; a stored case that no longer fails is deleted, as
    Hypothesis deletes a saved example that stopped failing. A case, unlike Hypothesis'
    choice sequences, stays meaningful when the strategies or Hypothesis change.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import queue as queue_module
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from functools import cache
from itertools import repeat
from multiprocessing import get_context
from pathlib import Path
from types import TracebackType
from typing import Any

from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from .case import Case
from .conformance import (
    Found,
    Stats,
    Target,
    Witness,
    _keep_smaller,
    evaluate,
    explore,
    search_target,
)
from .profiles import Profile

#: Where the failing cases live in the example database (the value: the case's JSON).
FAILING_CASES_KEY = b"tokenizer-conformance/failing-cases/v1"
DEFAULT_DATABASE = Path(".hypothesis") / "conformance"
REDIS_URL_VARIABLE = "HYPOTHESIS_REDIS_URL"
#: Shard i > 0 explores with seed + i * SHARD_STRIDE; shard 0 keeps the run's seed.
SHARD_STRIDE = 2**32
#: A worker reports its counts to the progress line at most this often (seconds).
REPORT_INTERVAL = 0.25


# --- the example database ------------------------------------------------------------

def example_database(directory: Path = DEFAULT_DATABASE,
                     environ: Mapping[str, str] | None = None) -> ExampleDatabase:
    """Redis when ``HYPOTHESIS_REDIS_URL`` is set (and not empty), else ``directory``."""
    env = os.environ if environ is None else environ
    url = env.get(REDIS_URL_VARIABLE, "").strip()
    if url:
        import redis
        from hypothesis.extra.redis import RedisExampleDatabase

        return RedisExampleDatabase(redis.Redis.from_url(url))
    return DirectoryBasedExampleDatabase(directory)


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


def replay_failures(database: ExampleDatabase, stats: Stats) -> int:
    """Run every stored failing case, recording it in ``stats``; drop those that pass.

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
        observations, verdicts = evaluate(case)
        stats.record(case, observations, verdicts)
        replayed += 1
        if not any(v.is_failure for v in verdicts):
            database.delete(FAILING_CASES_KEY, value)
    return replayed


def save_failures(database: ExampleDatabase, stats: Stats) -> int:
    """Store the witness of every failure signature (after shrinking: the smallest)."""
    for signature in sorted(stats.failure_witness):
        database.save(FAILING_CASES_KEY, encode_case(stats.failure_witness[signature].case))
    return len(stats.failure_witness)


# --- sharding and merging --------------------------------------------------------------

def shard_seed(seed_value: int, shard: int) -> int:
    return seed_value + shard * SHARD_STRIDE


def split_budget(budget: int, shards: int) -> list[int]:
    """``budget`` cases over ``shards``, as evenly as possible, the first ones larger."""
    base, extra = divmod(budget, shards)
    return [base + (1 if i < extra else 0) for i in range(shards)]


def merge_stats(into: Stats, part: Stats) -> Stats:
    """Add ``part``'s counts to ``into``; keep the smaller witness of each key.

    Every field of ``Stats`` is merged by its type, so a field added later without a
    rule here fails loudly instead of being dropped from a merged report.
    """
    for spec in dataclasses.fields(Stats):
        mine, theirs = getattr(into, spec.name), getattr(part, spec.name)
        if isinstance(theirs, Counter):
            mine.update(theirs)
        elif isinstance(theirs, dict):
            for key, value in theirs.items():
                if isinstance(value, Counter):
                    mine.setdefault(key, Counter()).update(value)
                elif isinstance(value, Witness):
                    _keep_smaller(mine, key, value)
                else:
                    raise TypeError(f"Stats.{spec.name}[{key!r}]: no merge rule for "
                                    f"{type(value).__name__}")
        elif isinstance(theirs, int):
            setattr(into, spec.name, mine + theirs)
        else:
            raise TypeError(f"Stats.{spec.name}: no merge rule for {type(theirs).__name__}")
    return into


# --- what runs in a worker process ------------------------------------------------------

_progress_queue: Any = None


def _init_worker(progress_queue: Any) -> None:
    global _progress_queue  # noqa: PLW0603 - the one per-process handle, set at start
    _progress_queue = progress_queue


@cache
def _default_strategy() -> Any:
    from .strategies import cases

    return cases()


class _ShardReporter:
    """Posts (shard, examples, comparisons, failures) to the parent, throttled."""

    def __init__(self, shard: int, sink: Any) -> None:
        self.shard = shard
        self.sink = sink
        self.last = 0.0

    def __call__(self, stats: Stats) -> None:
        now = time.monotonic()
        if now - self.last >= REPORT_INTERVAL:
            self.last = now
            self.post(stats)

    def post(self, stats: Stats) -> None:
        self.sink.put((self.shard, stats.examples, stats.comparisons, dict(stats.failures)))


def _explore_shard(shard: int, budget: int, seed_value: int, report: bool) -> Stats:
    stats = Stats()
    reporter = _ShardReporter(shard, _progress_queue) if report else None
    explore(_default_strategy(), budget=budget, seed_value=seed_value, stats=stats,
            progress=reporter)
    if reporter is not None:
        reporter.post(stats)
    return stats


def _search(target: Target, profile: Profile, seed_value: int) -> Found | None:
    return search_target(_default_strategy(), target, profile, seed_value)


def _real_fixture(name: str, examples: int, seed_value: int) -> list[Any]:
    from . import real_conformance

    return list(real_conformance.run(examples=examples, seed_value=seed_value,
                                     fixtures=(name,)))


# --- the pool --------------------------------------------------------------------------

class Workers:
    """The phases of one run, in this process (``count == 1``) or over a process pool."""

    def __init__(self, count: int, profile: Profile, seed_value: int,
                 strategy: Any = None) -> None:
        if count < 1:
            raise ValueError(f"--workers must be at least 1, not {count}")
        if count > 1 and strategy is not None:
            raise ValueError("several workers explore the default cases() strategy only "
                             "(a strategy object does not cross processes)")
        self.count = count
        self.profile = profile
        self.seed = seed_value
        self._strategy = strategy
        self._pool: Executor | None = None
        self._queue: Any = None

    @property
    def strategy(self) -> Any:
        return self._strategy if self._strategy is not None else _default_strategy()

    def __enter__(self) -> Workers:
        if self.count > 1:
            context = get_context("spawn")  # no fork of a process holding Rust threads
            self._queue = context.Queue()
            self._pool = ProcessPoolExecutor(max_workers=self.count, mp_context=context,
                                             initializer=_init_worker,
                                             initargs=(self._queue,))
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=error is not None)
            self._pool = None
        if self._queue is not None:
            self._queue.close()
            self._queue.join_thread()
            self._queue = None

    def explore(self, stats: Stats, budget: int,
                progress: Callable[[Stats], None] | None = None) -> Stats:
        if self._pool is None:
            return explore(self.strategy, budget=budget, seed_value=self.seed, stats=stats,
                           progress=progress)
        futures = [self._pool.submit(_explore_shard, shard, share,
                                     shard_seed(self.seed, shard), progress is not None)
                   for shard, share in enumerate(split_budget(budget, self.count))
                   if share > 0]
        with self._relay(stats, progress):
            parts = [future.result() for future in futures]
        for part in parts:
            merge_stats(stats, part)
        if progress is not None:
            progress(stats)
        return stats

    def search(self, targets: list[Target]) -> list[Found | None]:
        if self._pool is None:
            return [search_target(self.strategy, t, self.profile, self.seed) for t in targets]
        return list(self._pool.map(_search, targets, repeat(self.profile),
                                   repeat(self.seed)))

    def real_models(self, examples: int,
                    phase: Callable[[str], None] | None = None) -> list[Any]:
        from . import real_conformance
        from .real_models import FIXTURES, build_fixture

        if phase is not None:
            phase(f"real models: {len(FIXTURES)} fixtures")
        if self._pool is None:
            return list(real_conformance.run(examples=examples, seed_value=self.seed))
        for name in FIXTURES:  # built (or found cached) here, once, before any worker
            build_fixture(name)
        results = self._pool.map(_real_fixture, FIXTURES, repeat(examples),
                                 repeat(self.seed))
        return [fixture for chunk in results for fixture in chunk]

    @contextlib.contextmanager
    def _relay(self, base: Stats,
               progress: Callable[[Stats], None] | None) -> Iterator[None]:
        """While the shards run, feed their summed counts to ``progress``."""
        if progress is None:
            yield
            return
        stop = threading.Event()
        latest: dict[int, tuple[int, int, dict[str, int]]] = {}

        def relay() -> None:
            while not stop.is_set():
                try:
                    shard, examples, comparisons, failures = self._queue.get(timeout=0.1)
                except queue_module.Empty:
                    continue
                latest[shard] = (examples, comparisons, failures)
                snapshot = Stats(examples=base.examples, comparisons=base.comparisons,
                                 failures=Counter(base.failures))
                for done, compared, failed in latest.values():
                    snapshot.examples += done
                    snapshot.comparisons += compared
                    snapshot.failures.update(failed)
                progress(snapshot)

        thread = threading.Thread(target=relay, name="progress-relay", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            with contextlib.suppress(queue_module.Empty):  # the last posts, left unread
                while True:
                    self._queue.get_nowait()
