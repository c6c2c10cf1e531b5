"""The one observation builder: what each input is put through, on two subjects.

For a text: encode (with specials or without, alone or with a pair) on both sides, and,
after an encode with specials, upstream's ids decoded by both sides with
``skip_special_tokens`` on and off. For an id run: decode both ways. For a generated case
(``observe_case``): load on both sides, then every input; the strict track is the
product, and where the strict reference refuses a file upstream accepts, the lenient
track runs the same inputs through the lenient reference, so what the strict rule hides
is still compared. Nothing is judged here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..core.case import Case
from ..core.observation import Observation, Track
from ..core.outcome import Crashed, Encoded, Loaded, Outcome, Refused
from ..subjects.protocol import Subject, failed
from ..subjects.reference import LENIENT, STRICT, ReferenceSubject

H = TypeVar("H")


@dataclass(frozen=True)
class Side(Generic[H]):
    """A subject with a loaded handle."""

    subject: Subject[H]
    handle: H

    def encode(self, text: str, pair: str | None, add_special_tokens: bool) -> Outcome:
        return self.subject.encode(self.handle, text, pair,
                                   add_special_tokens=add_special_tokens)

    def decode(self, ids: Sequence[int], skip_special_tokens: bool) -> Outcome:
        return self.subject.decode(self.handle, ids, skip_special_tokens=skip_special_tokens)


def needs_lenient(strict_load: object, upstream_load: object) -> bool:
    """The strict->lenient rule, declared once: the lenient track runs exactly where the
    strict reference refuses (or fails on) a file upstream loads, so that what the strict
    rule hides is still compared. Takes what each load gave (a handle or its failure)."""
    return failed(strict_load) and not failed(upstream_load)


def load_outcome(handle: object) -> Outcome:
    """What a load gave, as an Outcome (a handle becomes ``Loaded``)."""
    return handle if isinstance(handle, Refused | Crashed) else Loaded()


def observe_text(track: Track, ours: Side[Any], theirs: Side[Any], text: str, *,
                 add_special_tokens: bool = True, pair: str | None = None
                 ) -> Iterator[Observation]:
    """Encode ``text`` (and ``pair``) on both sides; after an encode with specials,
    decode upstream's ids on both sides, skipping specials and keeping them."""
    options: tuple[tuple[str, Any], ...] = (("add_special_tokens", add_special_tokens),)
    if pair is not None:
        options += (("pair", pair),)
    encoded = Observation(track, "encode", text, options,
                          ours.encode(text, pair, add_special_tokens),
                          theirs.encode(text, pair, add_special_tokens))
    yield encoded
    if add_special_tokens and isinstance(encoded.upstream, Encoded):
        yield from observe_decode(track, ours, theirs, encoded.upstream.ids)


def observe_decode(track: Track, ours: Side[Any], theirs: Side[Any], ids: Sequence[int]
                   ) -> Iterator[Observation]:
    for skip in (True, False):
        yield Observation(track, "decode", tuple(ids), (("skip_special_tokens", skip),),
                          ours.decode(ids, skip), theirs.decode(ids, skip))


def observe_inputs(case: Case, track: Track, ours: Side[Any], theirs: Side[Any], *,
                   all_without_specials: bool = False) -> Iterator[Observation]:
    """Every input of ``case`` through two loaded sides: each text with specials, the
    first (or, ``all_without_specials``, each) also without; each pair with specials and
    without; each id run."""
    for i, text in enumerate(case.texts):
        yield from observe_text(track, ours, theirs, text)
        if i == 0 or all_without_specials:
            yield from observe_text(track, ours, theirs, text, add_special_tokens=False)
    for first, second in case.pairs:
        yield from observe_text(track, ours, theirs, first, pair=second)
        yield from observe_text(track, ours, theirs, first, pair=second,
                                add_special_tokens=False)
    for run in case.id_runs:
        yield from observe_decode(track, ours, theirs, run)


def observe_case(case: Case, theirs: Subject[Any],
                 tracks: tuple[ReferenceSubject, ...] = (STRICT, LENIENT)
                 ) -> list[Observation]:
    """A generated case end to end: load on both sides, then every input, on the strict
    track, and on the lenient track only where ``needs_lenient``. ``theirs`` is any
    subject standing for upstream (upstream itself, or one answering from recorded rows)."""
    document = case.document_json()
    their_handle = theirs.load(document)
    observations: list[Observation] = []
    for ours in tracks:
        track: Track = "strict" if ours.strict else "lenient"
        our_handle = ours.load(document)
        observations.append(Observation(track, "load", None, (), load_outcome(our_handle),
                                        load_outcome(their_handle)))
        both_loaded = not failed(our_handle) and not failed(their_handle)
        if both_loaded:
            observations.extend(observe_inputs(case, track, Side(ours, our_handle),
                                               Side(theirs, their_handle)))
        if ours.strict and not needs_lenient(our_handle, their_handle):
            break
    return observations


def observe_subject_case(case: Case, ours: Subject[Any], theirs: Subject[Any]
                         ) -> list[Observation]:
    """A case through any two subjects (a third-party subject, or a recorded one, and
    upstream): load on both sides, then every input (pairs only if ``ours`` has the
    ``pairs`` capability). One track: the strict/lenient split is our reference's own."""
    document = case.document_json()
    their_handle = theirs.load(document)
    our_handle = ours.load(document)
    observations = [Observation("strict", "load", None, (), load_outcome(our_handle),
                                load_outcome(their_handle))]
    if not failed(our_handle) and not failed(their_handle):
        if "pairs" not in ours.capabilities:
            case = dataclasses.replace(case, pairs=())
        observations.extend(observe_inputs(case, "strict", Side(ours, our_handle),
                                           Side(theirs, their_handle)))
    return observations
