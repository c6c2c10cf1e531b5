"""Readings that compose: a subject's ways of reading a document differently, each a
change of the document (and optionally of the request and of the replayed answer) that
upstream replays; a divergence is recognised as reading R when upstream, replaying it
with every applicable reading in force, answers exactly what the subject answered, and R
is needed for that (without R the replay differs) or is the first applicable one where
none is needed. The same scheme as transformers.js' readings, kept small; kitoken's and
tokie's recognisers build on it (decision 0034).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Decoded, Encoded, Outcome
from ....judge.compare import Divergence
from ....judge.predicates import ALL, NONE, Context, Predicate
from ...transformers_js.recognisers.replay import replay_on, yes

#: A change of the document (None: the reading does not apply to it).
Change = Callable[[dict[str, Any]], dict[str, Any] | None]
#: A rewrite of the request before the replay.
Request = Callable[[dict[str, Any], Observation], Observation]
#: A rewrite of the replayed answer (the original document, the request, the answer).
Answer = Callable[[dict[str, Any], Observation, Outcome | None], Outcome | None]
#: Where a reading applies to some observations only.
When = Callable[[dict[str, Any], Observation], bool]

ENCODE: Final = frozenset({"encode"})
DECODE: Final = frozenset({"decode"})


@dataclass(frozen=True)
class Reading:
    document: Change
    operations: frozenset[str]
    request: Request | None = None
    answer: Answer | None = None
    when: When | None = None


def with_option(obs: Observation, name: str, value: Any) -> Observation:
    options = (*((k, v) for k, v in obs.options if k != name), (name, value))
    return Observation(obs.track, obs.operation, obs.input, options, obs.subject,
                       obs.upstream)


def same_answer(subject: Outcome, replayed: Outcome | None, tiers: Sequence[str]) -> bool:
    """The subject's answer equals the replayed one on the tiers the subject exposes."""
    if isinstance(subject, Decoded):
        return isinstance(replayed, Decoded) and subject.text == replayed.text
    if not (isinstance(subject, Encoded) and isinstance(replayed, Encoded)):
        return False
    return all(getattr(subject, tier) == getattr(replayed, tier) for tier in tiers)


class Readings:
    """A subject's readings (applied in the order given) and the recogniser of each."""

    def __init__(self, readings: Mapping[str, Reading], tiers: Sequence[str]) -> None:
        self.readings = dict(readings)
        self.tiers = tuple(tiers)
        self._cache: dict[tuple[str, int], tuple[dict[str, Any], dict[str, Any] | None]] = {}
        self._replays: dict[tuple[int, tuple[str, ...], Observation],
                            tuple[dict[str, Any], Outcome | None]] = {}

    def _changed(self, name: str, document: dict[str, Any]) -> dict[str, Any] | None:
        """``name``'s change of ``document``, computed once per document object (the
        recognisers of one case share it; a vocabulary of 32,000 entries is costly)."""
        key = (name, id(document))
        held = self._cache.get(key)
        if held is None or held[0] is not document:
            if len(self._cache) > 4096:
                self._cache.clear()
            held = (document, self.readings[name].document(document))
            self._cache[key] = held
        return held[1]

    def applicable(self, document: dict[str, Any], obs: Observation) -> list[str]:
        return [name for name, reading in self.readings.items()
                if obs.operation in reading.operations
                and self._changed(name, document) is not None
                and (reading.when is None or reading.when(document, obs))]

    def replayed(self, document: dict[str, Any], obs: Observation, names: Sequence[str]
                 ) -> Outcome | None:
        """``obs`` replayed by upstream on ``document`` read the ways ``names`` say (once
        per document object, observation and readings: each recogniser of a divergence
        asks for the same few)."""
        key = (id(document), tuple(names), obs)
        held = self._replays.get(key)
        if held is None or held[0] is not document:
            if len(self._replays) > 4096:
                self._replays.clear()
            held = (document, self._replay(document, obs, names))
            self._replays[key] = held
        return held[1]

    def _replay(self, document: dict[str, Any], obs: Observation, names: Sequence[str]
                ) -> Outcome | None:
        changed, request = document, obs
        for name in names:
            reading = self.readings[name]
            changed = self._changed(name, changed) or changed
            if reading.request is not None:
                request = reading.request(document, request)
        outcome = replay_on(changed, request)
        for name in names:
            rewrite = self.readings[name].answer
            if rewrite is not None:
                outcome = rewrite(document, obs, outcome)
        return outcome

    def matches(self, ctx: Context, obs: Observation, names: Sequence[str]) -> bool:
        return same_answer(obs.subject, self.replayed(ctx.doc.raw, obs, names), self.tiers)

    def reads(self, name: str) -> Predicate:
        def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
            obs = div.observation
            used = [other for other in self.applicable(ctx.doc.raw, obs)
                    if ctx.in_force is None or f"reads_{other}" in ctx.in_force]
            if name not in used or not self.matches(ctx, obs, used):
                return NONE
            others = [other for other in used if other != name]
            if not self.matches(ctx, obs, others):
                return ALL  # this reading is needed
            for other in others:  # not needed: credited only where none is
                if not self.matches(ctx, obs, [o for o in used if o != other]):
                    return NONE
            return yes(used[0] == name)

        recognise.__name__ = f"reads_{name}"
        recognise.__doc__ = (f"The subject's reading {name!r}: upstream replaying the "
                             "observation on the document as the subject reads it answers "
                             "exactly the subject's answer, and this reading is needed.")
        return recognise

    def recognisers(self) -> dict[str, Predicate]:
        return {f"reads_{name}": self.reads(name) for name in self.readings}
