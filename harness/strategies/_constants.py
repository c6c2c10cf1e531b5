"""Draws that depend only on the strategies and the seed.

Hypothesis mixes literals of the modules it finds loaded from the working tree into what
it draws, so which harness modules happen to be imported (and whether the package is
installed or run from a checkout) would change the cases a seed explores, and a report or
a share measured in one process would differ from another's. Importing
``harness.strategies`` empties that pool of local constants: the harness draws from its
own strategies only. (Hypothesis has no setting for it; ``providers._get_local_constants``
is replaced, and nothing happens if a later Hypothesis no longer has it.)
"""

from __future__ import annotations

from typing import Any


def draw_from_strategies_only() -> None:
    from hypothesis.internal.conjecture import providers

    constants: Any = getattr(providers, "Constants", None)
    if not hasattr(providers, "_get_local_constants") or constants is None:
        return
    empty = constants()
    providers._get_local_constants = lambda: empty
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None and hasattr(cache, "cache"):
        cache.cache.clear()
