"""How every benchmark figure is taken and written: timed with the cyclic GC off, reported
as min / median / max over the repeats (``summary``), as rates and as ratios (reference
time over upstream time, measured back to back); the machine's load average."""

from __future__ import annotations

import cProfile
import gc
import math
import os
import pstats
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .environment import REPO_ROOT


def round_figure(value: float, digits: int = 4) -> float:
    """``value`` to ``digits`` significant figures (the YAML stays readable)."""
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def summary(values: Sequence[float]) -> dict[str, Any]:
    """min / median / max of the repeats, and how many there were."""
    if not values:
        raise ValueError("a figure needs at least one repeat")
    return {"min": round_figure(min(values)), "median": round_figure(statistics.median(values)),
            "max": round_figure(max(values)), "repeats": len(values)}


def rates(amount: float, seconds: Sequence[float]) -> dict[str, Any]:
    """``amount`` per second for each repeat's time."""
    return summary([amount / max(s, 1e-12) for s in seconds])


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> dict[str, Any]:
    """Pairwise ratios of repeats measured back to back."""
    return summary([a / max(b, 1e-12) for a, b in zip(numerators, denominators, strict=True)])


@contextmanager
def _no_gc() -> Iterator[None]:
    """Like ``timeit``: the cyclic collector off while a pass is timed."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def timed(action: Callable[[], object]) -> float:
    with _no_gc():
        started = time.perf_counter()
        action()
        return time.perf_counter() - started


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not available on this platform
        return []


def profile_top(action: Callable[[], object], top: int = 8) -> list[dict[str, Any]]:
    """The functions with the largest share of internal time while ``action`` runs."""
    profiler = cProfile.Profile()
    profiler.enable()
    action()
    profiler.disable()
    stats = pstats.Stats(profiler)
    rows: dict[tuple[str, int, str], tuple[Any, ...]] = stats.stats  # type: ignore[attr-defined]
    total = sum(row[2] for row in rows.values()) or 1e-12
    ordered = sorted(rows.items(), key=lambda item: item[1][2], reverse=True)[:top]
    out = []
    for (filename, line, name), row in ordered:
        where = Path(filename)
        label = (f"{where.relative_to(REPO_ROOT)}:{line}({name})"
                 if where.is_relative_to(REPO_ROOT) else f"{where.name}:{line}({name})"
                 if line else name)
        out.append({"function": label, "calls": row[1], "share": round_figure(row[2] / total, 3)})
    return out
