"""The recognisers of the control's expectations (``../expectations.yaml``), by name.

A plugin of the judge (decision 0034). The control is the Rust core of ``tokenizers``
behind N-API: the only divergences it may show are the binding's, each recognised here by
its mechanism.
"""

from __future__ import annotations

from typing import Any

from ....core.outcome import Crashed
from ....judge.compare import Divergence
from ....judge.predicates import ALL, NONE, Context, Predicate

#: What Rust prints when a panic cannot unwind out of an ``extern "C"`` frame.
_ABORT_MARKS = ("panicked at", "aborting")


def _subject_side(observation: Any) -> Any:
    """The subject's outcome (``Observation.subject``; ``reference`` before the rename)."""
    return getattr(observation, "subject", getattr(observation, "reference", None))


def panic_aborts_process(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream panics (Python turns the Rust panic into ``PanicException``); the npm
    binding's process dies of the very same panic: its stderr carries Rust's
    "panicked at ...: <upstream's panic message>" and the abort a panic that cannot unwind
    through N-API ends in. Same core, same bug, a different way to die."""
    del ctx
    obs = div.observation
    upstream, mine = obs.upstream, _subject_side(obs)
    if not (isinstance(upstream, Crashed) and upstream.kind == "panic"
            and isinstance(mine, Crashed) and mine.kind == "died"):
        return NONE
    message = upstream.message.strip()
    said = mine.message
    return ALL if message and message in said and all(m in said for m in _ABORT_MARKS) \
        else NONE


RECOGNISERS: dict[str, Predicate] = {function.__name__: function for function in (
    panic_aborts_process,
)}
