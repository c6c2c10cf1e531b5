"""Weighted choices: the one building block every share in this package rests on.

``weighted({"simple": 60, "rare": 5})`` draws a key with probability proportional
to its weight and *shrinks towards the first key*, so every weight table lists its
simplest option first.  It draws from ``st.sampled_from(range(total))``, which
Hypothesis samples uniformly (``st.integers`` favours its bounds and would
inflate the first option's share).  Strategies over the same table are cached:
they are drawn from thousands of times per run.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

K = TypeVar("K")
T = TypeVar("T")


def weighted_items(items: Sequence[tuple[T, int]]) -> st.SearchStrategy[T]:
    """The first element of one of ``items``, drawn in proportion to the second."""
    options = [(value, weight) for value, weight in items if weight > 0]
    if not options:
        raise ValueError("a weighted choice needs at least one positive weight")
    if len(options) == 1:
        return st.just(options[0][0])
    values = tuple(value for value, _ in options)
    bounds = tuple(itertools.accumulate(weight for _, weight in options))

    def pick(n: int) -> T:
        return values[bisect.bisect_right(bounds, n)]

    return st.sampled_from(range(bounds[-1])).map(pick)


@functools.lru_cache(maxsize=512)
def _cached(items: tuple[tuple[Hashable, int], ...]) -> st.SearchStrategy[Any]:
    return weighted_items(items)


def weighted(weights: Mapping[K, int]) -> st.SearchStrategy[K]:
    """A key of ``weights``, drawn in proportion to its weight; shrinks to the first."""
    strategy: st.SearchStrategy[K] = _cached(tuple(weights.items()))
    return strategy


def chance(permille: int) -> st.SearchStrategy[bool]:
    """True with probability ``permille / 1000``; shrinks to False."""
    return weighted({False: 1000 - permille, True: permille})


def restrict(weights: Mapping[K, int], chosen: Iterable[K]) -> dict[K, int]:
    """``weights`` narrowed to ``chosen``; an option weighted 0 by default gets weight 1."""
    wanted = list(dict.fromkeys(chosen))
    unknown = [key for key in wanted if key not in weights]
    if unknown:
        raise ValueError(f"unknown option(s) {unknown!r}; expected some of {list(weights)!r}")
    return {key: max(weights[key], 1) for key in weights if key in wanted}


def one_of_weighted(options: Iterable[tuple[int, st.SearchStrategy[T]]]) -> st.SearchStrategy[T]:
    """One of several strategies, chosen by weight; shrinks towards the first listed."""
    table = [(weight, strategy) for weight, strategy in options if weight > 0]
    if not table:
        raise ValueError("one_of_weighted() needs at least one positive weight")
    if len(table) == 1:
        return table[0][1]
    strategies = [strategy for _, strategy in table]
    return weighted_items([(i, weight) for i, (weight, _) in enumerate(table)]).flatmap(
        lambda i: strategies[i])
