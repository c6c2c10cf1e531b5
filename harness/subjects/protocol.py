"""The ``Subject`` protocol: what any tokenizer implementation offers the harness.

A subject loads a tokenizer.json document into a handle (or refuses, or crashes), encodes
a text or a pair into an ``Encoded`` and decodes ids into a ``Decoded``. It never raises
for anything the implementation does: refusals are ``Refused``, everything else is
``Crashed``. ``capabilities`` names the tiers it can answer; the comparison of two
subjects skips (and counts) the tiers either one lacks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, TypeVar

from ..core.outcome import Crashed, Decoded, Encoded, Refused

#: Every tier a subject may answer (besides load, which every subject answers).
ALL_CAPABILITIES: Final = frozenset({
    "ids", "tokens", "spans", "special_mask", "type_ids", "attention_mask", "word_ids",
    "pairs", "decode",
})

H = TypeVar("H")


class Subject(Protocol[H]):
    """One implementation under comparison; ``H`` is its loaded-tokenizer handle."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[str]: ...

    def version(self) -> str: ...

    def load(self, document: str) -> H | Refused | Crashed: ...

    def encode(self, handle: H, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoded | Refused | Crashed: ...

    def decode(self, handle: H, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Decoded | Refused | Crashed: ...


def failed(handle: object) -> bool:
    """A load that gave no handle."""
    return isinstance(handle, Refused | Crashed)
