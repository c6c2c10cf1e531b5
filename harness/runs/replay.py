"""The replayer the judge is handed (``harness.judge.replay.Replayer``): our reference in
both modes and upstream, each document loaded once per case, every execution counted
(``executions``, added to the tally's ``replays``). Upstream is imported on first use, so
a replay without tokenizers (the oracle replay) still judges what needs no upstream.

A large document (a real model's, or a recogniser's rewrite of one) stays loaded across
cases in a small process-wide cache (``SharedLoads``): every text of a real file is a case
of its own, and loading Gemma 3 again for each would cost a second a text. The count is
unchanged by it — a case's first use of a document counts as a load whether or not the
cache had it — so reports do not depend on which cases a process ran before.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Final

from ..core.outcome import Crashed, Loaded, Outcome, Refused
from ..judge.replay import Alignment, Side
from ..subjects.protocol import Subject
from ..subjects.reference import LENIENT, STRICT

#: A timing hook (``Engine.timing.stage``): a context around each execution.
Stage = Callable[[str], AbstractContextManager[None]]


class SharedLoads:
    """The handles of the last ``size`` large documents loaded, by side and text (least
    recently used first out). Handles are stateless between calls: an encode or a decode
    on one never changes the next one's answer."""

    #: Documents shorter than this are loaded per case as before (generated ones are
    #: small and seldom met twice).
    LARGE: Final = 1 << 20

    def __init__(self, size: int = 12) -> None:
        self.size = size
        self._handles: OrderedDict[tuple[Side, str], Any] = OrderedDict()

    def get(self, side: Side, document: str, load: Callable[[], Any]) -> Any:
        if len(document) < self.LARGE:
            return load()
        key = (side, document)
        if key in self._handles:
            self._handles.move_to_end(key)
            return self._handles[key]
        handle = self._handles[key] = load()
        while len(self._handles) > self.size:
            self._handles.popitem(last=False)
        return handle


SHARED_LOADS: Final = SharedLoads()


class CaseReplayer:
    """Everything the judge has run again for one case; create one per case."""

    def __init__(self, stage: Stage | None = None) -> None:
        self.executions = 0
        self._stage = stage
        self._handles: dict[tuple[Side, str], Any] = {}
        self._aligned: dict[tuple[str, str], Alignment | None] = {}

    def _run(self, operation: Callable[[], Any]) -> Any:
        self.executions += 1
        with self._stage("replay") if self._stage is not None else nullcontext():
            return operation()

    def _subject(self, side: Side) -> Subject[Any]:
        if side == "strict":
            return STRICT
        if side == "lenient":
            return LENIENT
        from ..subjects.upstream import UPSTREAM

        return UPSTREAM

    def available(self, side: Side) -> bool:
        if side != "upstream":
            return True
        try:
            from ..subjects import upstream  # noqa: F401
        except ImportError:
            return False
        return True

    def _handle(self, side: Side, document: str) -> Any:
        key = (side, document)
        if key not in self._handles:
            subject = self._subject(side)
            self._handles[key] = self._run(lambda: SHARED_LOADS.get(
                side, document, lambda: subject.load(document)))
        return self._handles[key]

    def _loaded(self, side: Side, document: str) -> Any:
        handle = self._handle(side, document)
        if isinstance(handle, Refused | Crashed):
            raise ValueError(f"the {side} side does not load this document: {handle}")
        return handle

    def load(self, side: Side, document: str) -> Outcome:
        handle = self._handle(side, document)
        return handle if isinstance(handle, Refused | Crashed) else Loaded()

    def encode(self, side: Side, document: str, text: str, pair: str | None, *,
               add_special_tokens: bool) -> Outcome:
        handle, subject = self._loaded(side, document), self._subject(side)
        result: Outcome = self._run(lambda: subject.encode(
            handle, text, pair, add_special_tokens=add_special_tokens))
        return result

    def decode(self, side: Side, document: str, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Outcome:
        handle, subject = self._loaded(side, document), self._subject(side)
        result: Outcome = self._run(lambda: subject.decode(
            handle, ids, skip_special_tokens=skip_special_tokens))
        return result

    def words(self, side: Side, document: str, text: str) -> list[str]:
        handle = self._loaded(side, document)
        return self._run(lambda: [word for word, _ in handle.pre_tokenize(text)])  # type: ignore[no-any-return]

    def tokens(self, side: Side, document: str, ids: Sequence[int], *,
               skip_special_tokens: bool) -> list[str]:
        handle = self._loaded(side, document)

        def look_up() -> list[str]:
            found = (handle.id_to_token(i) for i in ids if isinstance(i, int) and i >= 0)
            return [t for t in found if t is not None
                    and not (skip_special_tokens and handle.is_special(t))]

        return self._run(look_up)  # type: ignore[no-any-return]

    def token_id(self, side: Side, document: str, token: str) -> int | None:
        handle = self._loaded(side, document)
        if side == "upstream":
            from ..subjects.upstream import guarded  # a panic there is an answer, not a crash

            found = self._run(lambda: guarded(lambda: handle.tokenizer.token_to_id(token)))
        else:
            found = self._run(lambda: handle.token_to_id(token))
        return found if isinstance(found, int) else None

    def decode_step(self, side: Side, document: str, path: Sequence[int],
                    tokens: list[str]) -> list[str]:
        step = self._loaded(side, document).decoder
        for index in path:
            step = step.decoders[index]
        return self._run(lambda: step.decode_chain(list(tokens)))  # type: ignore[no-any-return]

    def aligned(self, document: str, text: str) -> Alignment | None:
        key = (document, text)
        if key not in self._aligned:
            if not self.available("upstream"):
                return None
            from ..subjects import upstream

            handle = self._handle("upstream", document)
            result = (self._run(lambda: upstream.aligned(handle, text))
                      if isinstance(handle, upstream.Handle) else None)
            self._aligned[key] = result if isinstance(result, list) else None
        return self._aligned[key]
