"""Worker processes (``--workers N``, docs/decisions/0016-scale-out.md,
docs/decisions/0030-logical-shards.md).

The exploration is cut into ``logical_shards(budget)`` logical shards (at most
``LOGICAL_SHARDS``, one per ``SHARD_CASES`` cases), a number fixed whatever the machine:
shard ``k`` explores its share of the budget with ``shard_seed(seed, k)`` and
returns its ``Tally``; the parent merges them in shard order. So a seed gives the same
report on one process, on two or on sixteen: ``--workers`` only says how many processes
run the shards. A run may take a subset of the shards (``--shard I/N``: shards ``k`` with
``k % N == I - 1``), whose reports ``python -m harness merge`` joins. The witness searches
(one per target) and the real-model fixtures are independent jobs, mapped over the same
pool in a fixed order. With ``N == 1`` nothing leaves this process.

Workers ignore SIGINT (a Ctrl-C reaches the whole process group; the parent decides),
and each watches its parent: when the parent is gone, the worker exits at once. When the
parent is interrupted it kills its workers before it exits, so no process is left.
"""

from __future__ import annotations

import contextlib
import os
import queue as queue_module
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from multiprocessing import get_context
from types import TracebackType
from typing import Any

from ..core import interrupts
from ..core.case import Case
from ..core.profiles import RunProfile
from . import real_models
from .engine import Engine, Target
from .generated import ENGINE, default_strategy
from .real_models import FixtureRun
from .tally import Tally, Witness
from .third_party import engine_for

#: Shard i > 0 explores with seed + i * SHARD_STRIDE; shard 0 keeps the run's seed.
SHARD_STRIDE = 2**32
#: The most logical shards of an exploration, whatever the number of processes...
LOGICAL_SHARDS = 16
#: ...and the fewest cases a shard explores (each Hypothesis run opens with its simplest
#: cases: many tiny shards would draw little else).
SHARD_CASES = 64


def logical_shards(budget: int) -> int:
    """How many logical shards explore ``budget`` cases: a function of the budget alone."""
    return max(1, min(LOGICAL_SHARDS, budget // SHARD_CASES))
#: A worker reports its counts to the progress line at most this often (seconds).
REPORT_INTERVAL = 0.25
#: How often a worker looks whether its parent is still there (seconds).
PARENT_WATCH_INTERVAL = 0.2


def shard_seed(seed_value: int, shard: int) -> int:
    return seed_value + shard * SHARD_STRIDE


def split_budget(budget: int, shards: int) -> list[int]:
    """``budget`` cases over ``shards``, as evenly as possible, the first ones larger."""
    base, extra = divmod(budget, shards)
    return [base + (1 if i < extra else 0) for i in range(shards)]


# --- what runs in a worker process ------------------------------------------------------

_progress_queue: Any = None


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(PARENT_WATCH_INTERVAL)
        if os.getppid() != parent:
            os._exit(143)


#: Blocked in the parent while it starts workers (a started process inherits the mask),
#: so a Ctrl-C during a worker's start-up never reaches it before it ignores SIGINT.
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _init_worker(progress_queue: Any, parent: int) -> None:
    global _progress_queue  # noqa: PLW0603 - the one per-process handle, set at start
    _progress_queue = progress_queue
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)
    threading.Thread(target=_watch_parent, args=(parent,), name="parent-watch",
                     daemon=True).start()


def _ready() -> int:
    return os.getpid()


class _ShardReporter:
    """Posts (shard, examples, comparisons, failures) to the parent, throttled."""

    def __init__(self, shard: int, sink: Any) -> None:
        self.shard = shard
        self.sink = sink
        self.last = 0.0

    def __call__(self, tally: Tally) -> None:
        now = time.monotonic()
        if now - self.last >= REPORT_INTERVAL:
            self.last = now
            self.post(tally)

    def post(self, tally: Tally) -> None:
        self.sink.put((self.shard, tally.examples, tally.comparisons, dict(tally.failures)))


def engine_of(subject: str | None) -> Engine:
    """The engine of a run: our reference's, or a third-party subject's (by its spec)."""
    return ENGINE if subject is None else engine_for(subject).engine


def strategy_of(subject: str | None, sampled: tuple[int, int] = (0, 0)) -> Any:
    """The generated cases of a run: the default ones, narrowed for a subject whose
    expectations say what they have been triaged over (``generator``); ``sampled``: the
    texts and id runs each case gets besides its drawn ones (an exploration's, from its
    profile; a witness search draws without them)."""
    narrowing: dict[str, Any] = {} if subject is None else dict(
        engine_for(subject).expectations.generator or {})
    if not narrowing and sampled == (0, 0):
        return default_strategy()
    from ..strategies import cases

    if sampled != (0, 0):
        narrowing.update(sampled_texts=sampled[0], sampled_id_runs=sampled[1])
    return cases(**narrowing)


def exploration_sampled(profile: RunProfile) -> tuple[int, int]:
    """The sampled inputs each explored case of ``profile`` gets (decision 0054)."""
    return profile.sampled_texts, profile.sampled_id_runs


def _explore_shard(shard: int, budget: int, seed_value: int, report: bool,
                   subject: str | None, *, sampled: tuple[int, int]) -> Tally:
    tally = Tally()
    reporter = _ShardReporter(shard, _progress_queue) if report else None
    engine_of(subject).explore(strategy_of(subject, sampled), budget=budget,
                               seed_value=seed_value, tally=tally, progress=reporter)
    if reporter is not None:
        reporter.post(tally)
    return tally


def _search(target: Target, profile: RunProfile, seed_value: int, subject: str | None,
            start: Case | None = None) -> Witness | None:
    return engine_of(subject).search(strategy_of(subject), target, profile, seed_value,
                                     start)


def _real_fixture(name: str, examples: int, seed_value: int, subject: str | None,
                  corpus_size: int | None) -> list[FixtureRun]:
    return real_models.run(examples=examples, seed_value=seed_value, fixtures=(name,),
                           subject=subject, corpus_size=corpus_size)


# --- the pool --------------------------------------------------------------------------

class Workers:
    """The phases of one run, in this process (``count == 1``) or over a process pool."""

    def __init__(self, count: int, profile: RunProfile, seed_value: int,
                 strategy: Any = None, subject: str | None = None, *,
                 shards: Sequence[int] = tuple(range(LOGICAL_SHARDS))) -> None:
        if count < 1:
            raise ValueError(f"--workers must be at least 1, not {count}")
        if count > 1 and strategy is not None:
            raise ValueError("several workers explore the default cases() strategy only "
                             "(a strategy object does not cross processes)")
        self.count = count
        #: The logical shards this run explores (all of them, or one ``--shard``'s).
        self.shards = tuple(shards)
        self.profile = profile
        self.seed = seed_value
        self._strategy = strategy
        #: A third-party subject's spec (None: our reference).
        self.subject = subject
        self.engine = engine_of(subject)
        self._pool: ProcessPoolExecutor | None = None
        self._queue: Any = None

    @property
    def strategy(self) -> Any:
        """What witness searches draw from."""
        return self._strategy if self._strategy is not None else strategy_of(self.subject)

    @property
    def exploration(self) -> Any:
        """What the exploration draws from: with the profile's sampled inputs."""
        if self._strategy is not None:
            return self._strategy
        return strategy_of(self.subject, exploration_sampled(self.profile))

    def __enter__(self) -> Workers:
        if self.count > 1:
            context = get_context("spawn")  # no fork of a process holding Rust threads
            self._queue = context.Queue()
            self._pool = ProcessPoolExecutor(max_workers=self.count, mp_context=context,
                                             initializer=_init_worker,
                                             initargs=(self._queue, os.getpid()))
            # Start every worker now, with the stop signals blocked (they are delivered
            # here as soon as the mask is restored), so none starts later unprotected.
            previous = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
            try:
                started = [self._pool.submit(_ready) for _ in range(self.count)]
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, previous)
            for future in started:
                _result(future)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._pool is not None:
            if error is not None:
                self.kill()
            self._pool.shutdown(wait=error is None, cancel_futures=error is not None)
            self._pool = None
        if self._queue is not None:
            self._queue.close()
            if error is None:
                self._queue.join_thread()
            else:
                self._queue.cancel_join_thread()
            self._queue = None

    def kill(self) -> None:
        """End every worker process now (an interrupted or failed run)."""
        processes = getattr(self._pool, "_processes", None) or {}
        for process in list(processes.values()):
            with contextlib.suppress(Exception):
                process.kill()
        for process in list(processes.values()):
            with contextlib.suppress(Exception):
                process.join(timeout=2)

    def explore(self, tally: Tally, budget: int,
                progress: Callable[[Tally], None] | None = None) -> Tally:
        """This run's logical shards of ``budget`` cases, merged in shard order."""
        shares = split_budget(budget, logical_shards(budget))
        jobs = [(shard, shares[shard]) for shard in self.shards
                if shard < len(shares) and shares[shard] > 0]
        if self._pool is None:
            for shard, share in jobs:
                part = Tally()
                self.engine.explore(self.exploration, budget=share,
                                    seed_value=shard_seed(self.seed, shard), tally=part,
                                    progress=_offset(tally, progress))
                tally.merge(part)
            return tally
        futures = [self._pool.submit(_explore_shard, shard, share,
                                     shard_seed(self.seed, shard), progress is not None,
                                     self.subject, sampled=exploration_sampled(self.profile))
                   for shard, share in jobs]
        with self._relay(tally, progress):
            parts = [_result(future) for future in futures]
        for part in parts:
            tally.merge(part)
        if progress is not None:
            progress(tally)
        return tally

    def search(self, targets: list[Target],
               done: Callable[[int], None] | None = None,
               starts: Sequence[Case | None] | None = None) -> list[Witness | None]:
        """One witness search per target, in order; ``done(k)`` after the k-th.
        ``starts``: each target's explored witness (a failure's is then reduced)."""
        found: list[Witness | None] = []
        begin = list(starts) if starts is not None else [None] * len(targets)
        if self._pool is None:
            for target, start in zip(targets, begin, strict=True):
                found.append(self.engine.search(self.strategy, target, self.profile,
                                                self.seed, start))
                if done is not None:
                    done(len(found))
            return found
        futures = [self._pool.submit(_search, t, self.profile, self.seed, self.subject, s)
                   for t, s in zip(targets, begin, strict=True)]
        for future in futures:
            found.append(_result(future))
            if done is not None:
                done(len(found))
        return found

    def real_models(self, examples: int, fixtures: tuple[str, ...]) -> list[FixtureRun]:
        corpus_size = self.profile.real_corpus
        if self._pool is None:
            return real_models.run(examples=examples, seed_value=self.seed, fixtures=fixtures,
                                   subject=self.subject, corpus_size=corpus_size)
        # Built (or found cached) here, once, before any worker; one line for each that
        # cannot be had here, which is then recorded as not run.
        ready, not_run = real_models.prepare(fixtures)
        futures = [self._pool.submit(_real_fixture, name, examples, self.seed, self.subject,
                                     corpus_size)
                   for name in ready]
        return [*not_run, *(fixture for future in futures for fixture in _result(future))]

    @contextlib.contextmanager
    def _relay(self, base: Tally, progress: Callable[[Tally], None] | None) -> Iterator[None]:
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
                except (OSError, ValueError, EOFError):
                    return  # the queue was closed under us (an interrupted run)
                latest[shard] = (examples, comparisons, failures)
                snapshot = Tally(examples=base.examples, comparisons=base.comparisons,
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
            thread.join(timeout=1)
            with contextlib.suppress(queue_module.Empty, OSError, ValueError):
                while True:  # the last posts, left unread
                    self._queue.get_nowait()


def _offset(base: Tally, progress: Callable[[Tally], None] | None
            ) -> Callable[[Tally], None] | None:
    """``progress`` told of ``base`` plus the shard under way (the counts it shows)."""
    if progress is None:
        return None

    def told(part: Tally) -> None:
        progress(Tally(examples=base.examples + part.examples,
                       comparisons=base.comparisons + part.comparisons,
                       failures=base.failures + part.failures))

    return told


def _result(future: Future[Any]) -> Any:
    """A worker's result, waiting in short slices so a signal is handled at once."""
    while True:
        interrupts.check()
        with contextlib.suppress(TimeoutError):
            return future.result(timeout=0.2)
