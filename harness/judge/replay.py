"""The one door through which the judge has anything run again: the ``Replayer``.

A predicate or the specification oracle sometimes needs an outcome no observation holds
(the lenient reference's encode of a text the strict one refused, upstream's normalizer
alignment, a document with one step taken out). The judge runs nothing itself: it asks
the replayer it was handed (``harness.runs.replay.CaseReplayer``, cached per case and
counted in the tally). Documents are named by their JSON text; sides by ``Side``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from ..core.outcome import Outcome

#: ``strict`` and ``lenient``: our reference in its two modes; ``upstream``: tokenizers.
Side = Literal["strict", "lenient", "upstream"]
#: Each normalized character with the original span it is aligned to.
Alignment = list[tuple[str, tuple[int, int]]]


class Replayer(Protocol):
    """What the judge may have run again, one case at a time."""

    def available(self, side: Side) -> bool:
        """Whether ``side`` can run here (upstream cannot where tokenizers is missing)."""
        ...

    def load(self, side: Side, document: str) -> Outcome:
        """``Loaded``, or the ``Refused``/``Crashed`` the load gave."""
        ...

    def encode(self, side: Side, document: str, text: str, pair: str | None, *,
               add_special_tokens: bool) -> Outcome: ...

    def decode(self, side: Side, document: str, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Outcome: ...

    def words(self, side: Side, document: str, text: str) -> list[str]:
        """The words the reference's model sees in ``text`` (normalized, pre-tokenized,
        added tokens left out); the document must load on ``side``."""
        ...

    def tokens(self, side: Side, document: str, ids: Sequence[int], *,
               skip_special_tokens: bool) -> list[str]:
        """The token strings the non-negative ``ids`` name on ``side`` (ids that name none
        left out; specials left out when skipping them); the document must load."""
        ...

    def decode_step(self, side: Side, document: str, path: Sequence[int],
                    tokens: list[str]) -> list[str]:
        """The reference's decoder step at ``path`` (indices into nested ``Sequence``
        steps; ``()`` is the whole decoder) applied to ``tokens``; the document must load
        on ``side`` and have that step."""
        ...

    def aligned(self, document: str, text: str) -> Alignment | None:
        """How upstream's normalizer of ``document`` aligns ``text``; None where upstream
        does not load the document, its normalizer fails, or upstream cannot run here."""
        ...

    def token_id(self, side: Side, document: str, token: str) -> int | None:
        """The id ``side`` gives the token string ``token`` (added tokens first, then the
        model's vocabulary); None where it has none. The document must load on ``side``."""
        ...


class ReplayRefusedError(Exception):
    """A judgement that promised to need nothing run asked its replayer to run something."""


class NothingReplayed:
    """The replayer of a judgement that needs nothing run (a predicate applied to a
    rebuilt observation by a recogniser): every request is a bug, raised."""

    def _refuse(self, what: str) -> ReplayRefusedError:
        return ReplayRefusedError(f"{what}: this judgement was given nothing to replay")

    def available(self, side: Side) -> bool:
        return False

    def load(self, side: Side, document: str) -> Outcome:
        raise self._refuse(f"load on {side}")

    def encode(self, side: Side, document: str, text: str, pair: str | None, *,
               add_special_tokens: bool) -> Outcome:
        raise self._refuse(f"encode on {side}")

    def decode(self, side: Side, document: str, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Outcome:
        raise self._refuse(f"decode on {side}")

    def words(self, side: Side, document: str, text: str) -> list[str]:
        raise self._refuse(f"words on {side}")

    def tokens(self, side: Side, document: str, ids: Sequence[int], *,
               skip_special_tokens: bool) -> list[str]:
        raise self._refuse(f"tokens on {side}")

    def decode_step(self, side: Side, document: str, path: Sequence[int],
                    tokens: list[str]) -> list[str]:
        raise self._refuse(f"decode_step on {side}")

    def aligned(self, document: str, text: str) -> Alignment | None:
        raise self._refuse("aligned on upstream")

    def token_id(self, side: Side, document: str, token: str) -> int | None:
        raise self._refuse(f"token_id on {side}")
