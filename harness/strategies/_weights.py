"""Weighted choices: the one building block every share in this package rests on.

``weighted({"simple": 60, "rare": 5})`` draws a key with probability proportional
to its weight and *shrinks towards the first key*, so every weight table lists its
simplest option first.  It draws from ``st.sampled_from(range(total))``, which
Hypothesis samples uniformly (``st.integers`` favours its bounds and would
inflate the first option's share).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Mapping
from typing import TypeVar

from hypothesis import strategies as st

K = TypeVar("K")


def weighted(weights: Mapping[K, int]) -> st.SearchStrategy[K]:
    """A key of ``weights``, drawn in proportion to its weight; shrinks to the first."""
    options = [(key, weight) for key, weight in weights.items() if weight > 0]
    if not options:
        raise ValueError("weighted() needs at least one positive weight")
    if len(options) == 1:
        return st.just(options[0][0])
    keys = tuple(key for key, _ in options)
    bounds = tuple(itertools.accumulate(weight for _, weight in options))

    def pick(n: int) -> K:
        return keys[bisect.bisect_right(bounds, n)]

    return st.sampled_from(range(bounds[-1])).map(pick)


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
