"""Run one case through both subjects, producing Observations (nothing is judged here).

The strict track is the product: the reference as users load it. When the strict
reference refuses a file upstream accepts, the lenient track runs the same inputs through
the reference in lenient mode, so what the strict rule hides is still compared.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .case import Case
from .compare import Observation, Track
from .outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from .subjects import reference, upstream


def execute(case: Case) -> list[Observation]:
    document_json = case.document_json()
    up_handle = upstream.load(document_json)
    observations: list[Observation] = []
    for track in ("strict", "lenient"):
        strict = track == "strict"
        ref_handle = reference.load(document_json, strict=strict)
        observations.append(
            Observation(track, "load", None, (), _as_load(ref_handle), _as_load(up_handle))
        )
        both_loaded = not _failed(ref_handle) and not _failed(up_handle)
        if both_loaded:
            observations.extend(_run_inputs(case, track, ref_handle, up_handle))
        if strict and (both_loaded or _failed(up_handle)):
            break  # the lenient track only runs where a strict refusal hid something
    return observations


def _failed(handle: object) -> bool:
    return isinstance(handle, Refused | Crashed)


def _as_load(handle: object) -> Outcome:
    if isinstance(handle, Refused | Crashed):
        return handle
    return Loaded()


def _run_inputs(case: Case, track: Track, ref_h: Any, up_h: Any) -> Iterator[Observation]:
    for i, text in enumerate(case.texts):
        for add in ([True, False] if i == 0 else [True]):
            obs = Observation(
                track, "encode", text, (("add_special_tokens", add),),
                reference.encode(ref_h, text, add_special_tokens=add),
                upstream.encode(up_h, text, add_special_tokens=add),
            )
            yield obs
            if add and isinstance(obs.upstream, Encoded):
                yield from _decodes(track, obs.upstream.ids, ref_h, up_h)
    for first, second in case.pairs:
        yield Observation(
            track, "encode", first, (("add_special_tokens", True), ("pair", second)),
            reference.encode(ref_h, first, pair=second),
            upstream.encode(up_h, first, pair=second),
        )
    for run in case.id_runs:
        yield from _decodes(track, run, ref_h, up_h)


def _decodes(track: Track, ids: tuple[int, ...], ref_h: Any, up_h: Any) -> Iterator[Observation]:
    for skip in (True, False):
        ref_out: Outcome = reference.decode(ref_h, ids, skip_special_tokens=skip)
        up_out: Outcome = upstream.decode(up_h, ids, skip_special_tokens=skip)
        yield Observation(track, "decode", tuple(ids), (("skip_special_tokens", skip),),
                          ref_out, up_out)


__all__ = ["Decoded", "execute"]
