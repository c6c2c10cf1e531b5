"""Weighted choices: the one building block every share in this package rests on.

``weighted({"simple": 60, "rare": 5})`` draws a key with probability proportional
to its weight and *shrinks towards the first key*, so every weight table lists its
simplest option first.  It draws a uniform index into the cumulative weights
(``uniform_index``; plain ``st.integers`` favours small values and bounds and would
inflate the first option's share).  Strategies over the same table are cached: they
are drawn from thousands of times per run.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar

from hypothesis import strategies as st

K = TypeVar("K")
T = TypeVar("T")


#: Hypothesis draws integers uniformly only within [-256, 256] (a heavy-tailed
#: distribution beyond, favouring small values), so an index over a larger range is drawn
#: as two uniform "digits" of at most this base.
UNIFORM_SPAN: Final = 256


def uniform_index(total: int) -> st.SearchStrategy[int]:
    """An integer in ``range(total)``, uniform to within 1/256; shrinks towards 0.

    Up to ``UNIFORM_SPAN`` it is one draw; a total that factors into two such spans is two
    exact "digits"; any other total is drawn as base-256 digits covering 256 times the
    range and scaled down (every value then gets within 1/256 of its fair share).
    """
    if total <= UNIFORM_SPAN:
        return st.sampled_from(range(total))
    base = next((b for b in range(UNIFORM_SPAN, 1, -1)
                 if total % b == 0 and total // b <= UNIFORM_SPAN), None)
    if base is not None:
        high = st.sampled_from(range(total // base))
        low = st.sampled_from(range(base))
        return st.tuples(high, low).map(lambda hl: hl[0] * base + hl[1])
    digits = 1
    while UNIFORM_SPAN**digits < UNIFORM_SPAN * total:
        digits += 1
    span = int(UNIFORM_SPAN**digits)

    def scaled(ds: tuple[int, ...]) -> int:
        n = 0
        for d in ds:
            n = n * UNIFORM_SPAN + d
        return n * total // span

    return st.tuples(*[st.sampled_from(range(UNIFORM_SPAN))] * digits).map(scaled)


def weighted_items(items: Sequence[tuple[T, int]]) -> st.SearchStrategy[T]:
    """The first element of one of ``items``, drawn in proportion to the second.

    Small tables become one ``st.sampled_from`` over the values repeated by weight (one
    choice, no wrapper strategy: the cheapest draw Hypothesis has); tables whose total
    exceeds ``UNIFORM_SPAN`` are first rescaled to it (each positive weight keeps at least
    1, so a per-thousand share is kept to within 0.4%).  Tables with too many values to
    rescale draw a uniform index into the cumulative weights.
    """
    options = [(value, weight) for value, weight in items if weight > 0]
    if not options:
        raise ValueError("a weighted choice needs at least one positive weight")
    if len(options) == 1:
        return st.just(options[0][0])
    total = sum(weight for _, weight in options)
    if total > UNIFORM_SPAN and len(options) <= UNIFORM_SPAN // 2:
        options = _rescaled(options, UNIFORM_SPAN)
        total = UNIFORM_SPAN
    if total <= UNIFORM_SPAN:
        return st.sampled_from(tuple(value for value, weight in options for _ in range(weight)))
    values = tuple(value for value, _ in options)
    bounds = tuple(itertools.accumulate(weight for _, weight in options))

    def pick(n: int) -> T:
        return values[bisect.bisect_right(bounds, n)]

    return uniform_index(total).map(pick)


def _rescaled(options: list[tuple[T, int]], span: int) -> list[tuple[T, int]]:
    """Weights scaled to sum to ``span`` (largest remainders; every option keeps >= 1)."""
    total = sum(weight for _, weight in options)
    exact = [weight * span / total for _, weight in options]
    scaled = [max(1, int(x)) for x in exact]
    order = sorted(range(len(options)), key=lambda i: exact[i] - int(exact[i]), reverse=True)
    k = 0
    while sum(scaled) < span:
        scaled[order[k % len(order)]] += 1
        k += 1
    while sum(scaled) > span:
        i = max(range(len(scaled)), key=lambda j: scaled[j])
        scaled[i] -= 1
    return [(value, w) for (value, _), w in zip(options, scaled, strict=True)]


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
