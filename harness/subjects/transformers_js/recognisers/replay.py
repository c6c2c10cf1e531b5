"""Replays for the recognisers: a changed document run again through upstream (or our
reference), the document helpers they share, and the comparison of a replayed answer
with the subject's (on the tiers the subject exposes).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

from ....core.observation import Observation, Track
from ....core.outcome import Crashed, Decoded, Encoded, Outcome, Refused
from ....judge.compare import Divergence
from ....judge.predicates import ALL, NONE, Context, Predicate
from ....judge.replay import Replayer, Side

#: The id an absent unk token is given in a replay.
FRESH_ID: Final = 2**31 - 2


def yes(condition: bool) -> frozenset[int]:
    return ALL if condition else NONE


#: The judge's replayer for the recogniser call in progress (bound by ``replaying``, one
#: call at a time; a helper called outside one raises): the helpers below are reached
#: through the reading tables' ``(document, obs)`` functions, which do not carry it.
_REPLAYER: ContextVar[Replayer] = ContextVar("transformers_js_replayer")


def replaying(recogniser: Predicate) -> Predicate:
    """``recogniser`` with the replayer of its ``Context`` bound while it runs: every
    execution it needs goes through the judge's replayer (cached per case, counted)."""

    def bound(ctx: Context, div: Divergence) -> frozenset[int]:
        token = _REPLAYER.set(ctx.replay)
        try:
            return recogniser(ctx, div)
        finally:
            _REPLAYER.reset(token)

    bound.__name__ = recogniser.__name__
    bound.__doc__ = recogniser.__doc__
    return bound


def _replayer() -> Replayer:
    try:
        return _REPLAYER.get()
    except LookupError:
        raise RuntimeError("a transformers.js replay helper ran outside a recogniser call "
                           "(bind the judge's replayer with replaying())") from None


@dataclass(frozen=True)
class Replayed:
    """A changed document upstream loads, named by its text for the judge's replayer."""

    text: str
    #: Whether the document has a normalizer at all.
    has_normalizer: bool


def document_text(document: dict[str, Any]) -> str:
    """``document`` as the text the replayer loads (keys sorted). A rewrite of a real
    model's document shares its big tables (vocabulary, merges, added tokens) with the
    original, so it is written once per shape (``_TEXTS``), not once per text of the
    corpus: Gemma 3's takes 0.75 s to write."""
    keep: list[object] = []
    key = _shape(document, keep)
    found = _TEXTS.get(key)
    if found is not None:
        _TEXTS.move_to_end(key)
        return found[0]
    text = json.dumps(document, ensure_ascii=False, sort_keys=True)
    if keep:  # a document with no big table is cheap to write: not kept
        _TEXTS[key] = (text, keep)
        while len(_TEXTS) > _TEXTS_KEPT:
            _TEXTS.popitem(last=False)
    return text


#: A table longer than this is named by its identity in a document's shape, and kept
#: alive beside the text so that the identity cannot be reused. Documents are values: the
#: harness never changes one in place (a rewrite copies what it changes), so the same
#: tables under the same small parts write the same text.
_BIG: Final = 256
_TEXTS_KEPT: Final = 12
#: A longer list of objects is named by its identity too (a vocabulary's worth of them).
_WALKED: Final = 16384
_TEXTS: OrderedDict[Hashable, tuple[str, list[object]]] = OrderedDict()


_SCALARS: Final = (str, int, bool, float, type(None))


def _flat(value: Any, keep: list[object]) -> Hashable:
    """``_shape`` of an object of scalars in one step (each value with its type: ``1`` and
    ``true`` write differently), else ``_shape``."""
    if isinstance(value, dict) and all(type(v) in _SCALARS for v in value.values()):
        return ("flat", tuple((k, type(v), v) for k, v in value.items()))
    return _shape(value, keep)


def _shape(value: Any, keep: list[object]) -> Hashable:
    if isinstance(value, list) and _BIG < len(value) <= _WALKED and value \
            and isinstance(value[0], dict):
        # A list of objects (added tokens) a rewrite copies to append one: by content.
        return ("list", tuple(_flat(v, keep) for v in value))
    if isinstance(value, dict | list) and len(value) > _BIG:
        keep.append(value)
        return (type(value).__name__, id(value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _shape(v, keep)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(_shape(v, keep) for v in value))
    return (type(value).__name__, value)


def upstream_handle(document: dict[str, Any]) -> Replayed | Refused | Crashed:
    """``tokenizers`` loaded with ``document`` (a Refused/Crashed if it does not load)."""
    text = document_text(document)
    loaded = _replayer().load("upstream", text)
    return loaded if isinstance(loaded, Refused | Crashed) else Replayed(
        text, document.get("normalizer") is not None)


def normalized_by(handle: Replayed | Refused | Crashed, text: str) -> str | None:
    """Upstream's normalizer on ``text`` (None where it panics or fails)."""
    if not isinstance(handle, Replayed):
        return None
    aligned = _replayer().aligned(handle.text, text)
    return None if aligned is None else "".join(char for char, _ in aligned)


def token_id(handle: Replayed, token: str) -> int | None:
    """Upstream's id of ``token`` in the loaded document."""
    return _replayer().token_id("upstream", handle.text, token)


def load_on(side: Side, document: dict[str, Any]) -> dict[str, Any] | Refused | Crashed:
    """``document`` itself where ``side`` loads it, else how it refuses or crashes."""
    loaded = _replayer().load(side, document_text(document))
    return loaded if isinstance(loaded, Refused | Crashed) else document


def replay_on(document: dict[str, Any], obs: Observation, side: Side = "upstream"
              ) -> Outcome | None:
    """``obs`` run again on ``document`` by ``tokenizers`` (or our reference: ``side``);
    None where the document does not load there."""
    text = document_text(document)
    replay = _replayer()
    if isinstance(replay.load(side, text), Refused | Crashed):
        return None
    if obs.operation == "encode":
        assert isinstance(obs.input, str)
        return replay.encode(side, text, obs.input, obs.option("pair"),
                             add_special_tokens=bool(obs.option("add_special_tokens")))
    if obs.operation == "decode":
        assert isinstance(obs.input, tuple)
        return replay.decode(side, text, obs.input,
                             skip_special_tokens=bool(obs.option("skip_special_tokens")))
    return None


def unmarked(outcome: Outcome | None) -> Outcome | None:
    """``outcome`` without the marker tokens of a replay (``marking_dropped``)."""
    if not isinstance(outcome, Encoded) or MARKER not in outcome.tokens:
        return outcome
    return picked(outcome, [i for i, token in enumerate(outcome.tokens) if token != MARKER])


def picked(outcome: Encoded, keep: Sequence[int]) -> Encoded:
    def pick(values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(values[i] for i in keep) if values else values

    return Encoded(ids=pick(outcome.ids), tokens=pick(outcome.tokens),
                   spans=pick(outcome.spans), special_mask=pick(outcome.special_mask),
                   type_ids=pick(outcome.type_ids),
                   attention_mask=pick(outcome.attention_mask))


def same_tiers(subject: Outcome, replayed: Outcome | None) -> bool:
    """The subject's answer equals a replayed upstream answer on every tier the subject
    exposes (ids, tokens, masks; decoded text)."""
    if isinstance(subject, Decoded) and isinstance(replayed, Decoded):
        return subject.text == replayed.text
    if not (isinstance(subject, Encoded) and isinstance(replayed, Encoded)):
        return False
    if subject.ids != replayed.ids or subject.tokens != replayed.tokens:
        return False
    if subject.attention_mask and subject.attention_mask != replayed.attention_mask:
        return False
    return not subject.type_ids or subject.type_ids == replayed.type_ids


def model_of(document: dict[str, Any]) -> dict[str, Any]:
    model = document.get("model")
    return model if isinstance(model, dict) else {}


def with_model(document: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**document, "model": {**model_of(document), **changes}}


def document_ids(document: dict[str, Any]) -> frozenset[int]:
    """Every id the document gives a token (vocabulary and added tokens); computed once
    per large vocabulary and added-token list (a real file's, and its rewrites')."""
    vocab = model_of(document).get("vocab")
    added = document.get("added_tokens")
    key = (id(vocab), id(added))
    found = _IDS.get(key)
    if found is not None and found[0] is vocab and found[1] is added:
        return found[2]
    ids = {i for i in vocab.values() if isinstance(i, int)} if isinstance(vocab, dict) else set()
    for entry in added if isinstance(added, list) else ():
        if isinstance(entry, dict) and isinstance(entry.get("id"), int):
            ids.add(entry["id"])
    known = frozenset(ids)
    if isinstance(vocab, dict) and len(vocab) > _BIG:  # kept with what names it
        _IDS[key] = (vocab, added, known)
        while len(_IDS) > _TEXTS_KEPT:
            _IDS.popitem(last=False)
    return known


_IDS: OrderedDict[tuple[int, int], tuple[object, object, frozenset[int]]] = OrderedDict()


def known_ids(ctx: Context) -> frozenset[int]:
    return document_ids(ctx.doc.raw)


def _unk_id(ctx: Context) -> int | None:
    unk = ctx.doc.unk_token
    if unk is None:
        return None
    found = ctx.doc.vocab.get(unk)
    if isinstance(found, int):
        return found
    for entry in ctx.doc.added_tokens:
        if isinstance(entry, dict) and entry.get("content") == unk:
            return entry.get("id") if isinstance(entry.get("id"), int) else None
    return None


#: Ids of ghost tokens count down from here (below the fresh unk id, above any real id).
GHOST_ID: Final = 2**30


#: The token a replay gives characters upstream would drop (never in a generated text).
MARKER: Final = "\ue000dropped\ue000"


def metaspace_first_as(step: Any, scheme: str) -> Any:
    if not isinstance(step, dict):
        return step
    if step.get("type") == "Metaspace" and step.get("prepend_scheme") == "first":
        return {**step, "prepend_scheme": scheme}
    if step.get("type") == "Sequence" and isinstance(step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [metaspace_first_as(s, scheme)
                                          for s in step["pretokenizers"]]}
    return step


def strip_panic_as_nothing(document: dict[str, Any], outcome: Outcome | None
                            ) -> Outcome | None:
    """A replay's decode that panics in upstream's Strip decoder because nothing is left
    to decode (``strip_panic_on_nothing``, an upstream bug) read as the empty text."""
    if (isinstance(outcome, Crashed) and outcome.kind == "panic"
            and "the len is 0" in outcome.message and has_strip_step(document)):
        return Decoded("")
    return outcome


def has_strip_step(document: dict[str, Any]) -> bool:
    decoder = document.get("decoder")
    steps = decoder.get("decoders") if isinstance(decoder, dict) else None
    return isinstance(steps, list) and any(
        isinstance(d, dict) and d.get("type") == "Strip" for d in steps)


def with_input(obs: Observation, ids: tuple[int, ...]) -> Observation:
    return Observation(obs.track, obs.operation, ids, obs.options, obs.subject,
                       obs.upstream)


def merge_sides(merge: Any) -> tuple[str, ...]:
    if isinstance(merge, str):
        return tuple(merge.split(" ", 1))
    if isinstance(merge, list):
        return tuple(str(side) for side in merge)
    return ()


def reference_replay(ctx: Context, obs: Observation) -> tuple[Track, Outcome | None]:
    """``obs`` on our reference: strict, or lenient where strict refuses the file."""
    track: Track = "strict" if not isinstance(ctx.strict, Refused | Crashed) else "lenient"
    if isinstance(ctx.strict if track == "strict" else ctx.lenient, Refused | Crashed):
        return track, None
    if obs.operation == "encode" and isinstance(obs.input, str):
        return track, ctx.replay.encode(
            track, ctx.json, obs.input, obs.option("pair"),
            add_special_tokens=bool(obs.option("add_special_tokens")))
    if obs.operation == "decode" and isinstance(obs.input, tuple):
        return track, ctx.replay.decode(
            track, ctx.json, obs.input,
            skip_special_tokens=bool(obs.option("skip_special_tokens")))
    return track, None


def first_tier(ours: Outcome, upstream: Outcome) -> str | None:
    if isinstance(ours, Encoded) and isinstance(upstream, Encoded):
        for tier in ("ids", "tokens", "spans"):
            if getattr(ours, tier) != getattr(upstream, tier):
                return tier
    return None
