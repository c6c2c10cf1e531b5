"""Recognisers of known divergences of third-party subjects, named by the expectations
files (``<subject>.yaml``). Like the predicates of our own registry, each checks one
specific mechanism: it recomputes what the subject is known to do (with ``tokenizers``
on a changed document, or from the document itself) and says yes only when the
subject's answer is exactly that, and upstream's is what it is known to be.

Terms: *subject* is ``observation.reference`` (the implementation under test),
*upstream* is ``observation.upstream`` (``tokenizers``).
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Final

from ..core.observation import Observation
from ..core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from ..subjects.upstream import UPSTREAM
from .compare import Divergence
from .predicates import ALL, NONE, Context, Predicate
from .predicates import REGISTRY as PREDICATES

#: Upstream handles of changed documents, by document text (a few at a time).
_REPLAYS: OrderedDict[str, Any] = OrderedDict()
_REPLAY_CACHE: Final = 16
#: The id an absent unk token is given in a replay.
_FRESH_ID: Final = 2**31 - 2


def _yes(condition: bool) -> frozenset[int]:
    return ALL if condition else NONE


def _upstream_handle(document: dict[str, Any]) -> Any:
    """``tokenizers`` loaded with ``document`` (a Refused/Crashed if it does not load)."""
    text = json.dumps(document, ensure_ascii=False, sort_keys=True)
    if text in _REPLAYS:
        _REPLAYS.move_to_end(text)
        return _REPLAYS[text]
    handle = UPSTREAM.load(text)
    _REPLAYS[text] = handle
    while len(_REPLAYS) > _REPLAY_CACHE:
        _REPLAYS.popitem(last=False)
    return handle


def _replay(document: dict[str, Any], obs: Observation) -> Outcome | None:
    """``obs`` run again by ``tokenizers`` on ``document``."""
    handle = _upstream_handle(document)
    if isinstance(handle, Refused | Crashed):
        return None
    if obs.operation == "encode":
        assert isinstance(obs.input, str)
        return UPSTREAM.encode(handle, obs.input, obs.option("pair"),
                               add_special_tokens=bool(obs.option("add_special_tokens")))
    if obs.operation == "decode":
        assert isinstance(obs.input, tuple)
        return UPSTREAM.decode(handle, obs.input,
                               skip_special_tokens=bool(obs.option("skip_special_tokens")))
    return None


def _unmarked(outcome: Outcome | None) -> Outcome | None:
    """``outcome`` without the marker tokens of a replay (``_marking_dropped``)."""
    if not isinstance(outcome, Encoded) or _MARKER not in outcome.tokens:
        return outcome
    keep = [i for i, token in enumerate(outcome.tokens) if token != _MARKER]

    def pick(values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(values[i] for i in keep) if values else values

    return Encoded(ids=pick(outcome.ids), tokens=pick(outcome.tokens),
                   spans=pick(outcome.spans), special_mask=pick(outcome.special_mask),
                   type_ids=pick(outcome.type_ids),
                   attention_mask=pick(outcome.attention_mask))


def _same_tiers(subject: Outcome, replayed: Outcome | None) -> bool:
    """The subject's answer equals a replayed upstream answer on every tier the subject
    exposes (ids, tokens, masks; decoded text)."""
    replayed = _unmarked(replayed)
    if isinstance(subject, Decoded) and isinstance(replayed, Decoded):
        return subject.text == replayed.text
    if not (isinstance(subject, Encoded) and isinstance(replayed, Encoded)):
        return False
    if subject.ids != replayed.ids or subject.tokens != replayed.tokens:
        return False
    if subject.attention_mask and subject.attention_mask != replayed.attention_mask:
        return False
    return not subject.type_ids or subject.type_ids == replayed.type_ids


def _model(document: dict[str, Any]) -> dict[str, Any]:
    model = document.get("model")
    return model if isinstance(model, dict) else {}


def _with_model(document: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**document, "model": {**_model(document), **changes}}


def _known_ids(ctx: Context) -> set[int]:
    ids = {i for i in ctx.vocab.values() if isinstance(i, int)}
    for entry in ctx.document.get("added_tokens") or ():
        if isinstance(entry, dict) and isinstance(entry.get("id"), int):
            ids.add(entry["id"])
    return ids


def _unk_id(ctx: Context) -> int | None:
    unk = ctx.unk_token
    if unk is None:
        return None
    found = ctx.vocab.get(unk)
    if isinstance(found, int):
        return found
    for entry in ctx.document.get("added_tokens") or ():
        if isinstance(entry, dict) and entry.get("content") == unk:
            return entry.get("id") if isinstance(entry.get("id"), int) else None
    return None


# -- fields the subject ignores ------------------------------------------------------------
# Each change rewrites the document as the subject reads it (a field it ignores set to
# its neutral value); None where the field is not in use. A divergence is recognised as
# "the subject ignores F" when upstream, run on the document with every applicable change,
# answers exactly what the subject answered, and F is needed for that (without F's
# change, the replay does not match) or is the first applicable one.
Change = Callable[[dict[str, Any]], dict[str, Any] | None]


def _without_dropout(document: dict[str, Any]) -> dict[str, Any] | None:
    dropout = _model(document).get("dropout")
    if not isinstance(dropout, int | float) or isinstance(dropout, bool) or dropout <= 0:
        return None
    return _with_model(document, dropout=None)


def _without_prefix(document: dict[str, Any]) -> dict[str, Any] | None:
    """No continuing-subword prefix; merges whose right side carries it are left out
    (the subject never forms such a side, so they never fire for it)."""
    model = _model(document)
    prefix = model.get("continuing_subword_prefix")
    if not isinstance(prefix, str) or not prefix:
        return None
    merges = [m for m in model.get("merges") or ()
              if not any(side.startswith(prefix) for side in _merge_sides(m))]
    return _with_model(document, continuing_subword_prefix=None, merges=merges)


def _without_fuse_unk(document: dict[str, Any]) -> dict[str, Any] | None:
    if _model(document).get("fuse_unk") is not True:
        return None
    return _with_model(document, fuse_unk=False)


def _metaspace_unsplit(step: Any) -> Any:
    if not isinstance(step, dict):
        return step
    if step.get("type") == "Metaspace" and step.get("split") is not False:
        return {**step, "split": False}
    if step.get("type") == "Sequence" and isinstance(step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [_metaspace_unsplit(s) for s in step["pretokenizers"]]}
    return step


def _without_metaspace_split(document: dict[str, Any]) -> dict[str, Any] | None:
    changed = _metaspace_unsplit(document.get("pre_tokenizer"))
    if changed == document.get("pre_tokenizer"):
        return None
    return {**document, "pre_tokenizer": changed}


def _without_single_word(document: dict[str, Any]) -> dict[str, Any] | None:
    added = document.get("added_tokens")
    if not isinstance(added, list) or not any(
            isinstance(e, dict) and e.get("single_word") is True for e in added):
        return None
    return {**document, "added_tokens": [
        {**e, "single_word": False} if isinstance(e, dict) else e for e in added]}


#: The token a replay gives characters upstream would drop (never in a generated text).
_MARKER: Final = "\ue000dropped\ue000"


def _marking_dropped(document: dict[str, Any]) -> dict[str, Any] | None:
    """Where no unk token is set, a character with no piece (and no byte pieces) is
    dropped by upstream before merging, by the subject after: the replay gives such a
    character a marker unk token (so it blocks merges, as in the subject), and the
    marker's tokens are removed from the replayed answer."""
    if _model(document).get("unk_token") is not None:
        return None
    vocab = _model(document).get("vocab")
    if not isinstance(vocab, dict):
        return None
    return _with_model(document, unk_token=_MARKER, fuse_unk=False,
                       vocab={**vocab, _MARKER: _FRESH_ID})


CHANGES: Final[dict[str, Change]] = {
    "dropout": _without_dropout,
    "continuing_subword_prefix": _without_prefix,
    "fuse_unk": _without_fuse_unk,
    "metaspace_split": _without_metaspace_split,
    "single_word": _without_single_word,
    "dropped_characters": _marking_dropped,
}


def _applicable(document: dict[str, Any]) -> list[str]:
    return [name for name, change in CHANGES.items() if change(document) is not None]


def _changed(document: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    for name in names:
        document = CHANGES[name](document) or document
    return document


def _ignores(field: str) -> Predicate:
    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        if obs.operation not in ("encode", "decode"):
            return NONE
        applicable = _applicable(ctx.document)
        if field not in applicable:
            return NONE
        if not _same_tiers(obs.reference, _replay(_changed(ctx.document, applicable), obs)):
            return NONE
        others = [name for name in applicable if name != field]
        needed = not _same_tiers(obs.reference, _replay(_changed(ctx.document, others), obs))
        return _yes(needed or applicable[0] == field)

    recognise.__name__ = f"ignores_{field}"
    recognise.__doc__ = (f"The subject ignores {field}: upstream on the document as the "
                         "subject reads it answers exactly the subject's answer.")
    return recognise


# -- decode ----------------------------------------------------------------------------
_EMPTY_IDS: Final = re.compile(r"non-empty array")


def empty_ids_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Decoding an empty id list throws in the subject (upstream decodes it to "", or
    panics in its Strip decoder)."""
    obs = div.observation
    subject = obs.reference
    return _yes(obs.operation == "decode" and obs.input == () and isinstance(subject, Refused)
                and _EMPTY_IDS.search(subject.message) is not None)


def _unknown_positions(ctx: Context, ids: Sequence[int]) -> list[int]:
    known = _known_ids(ctx)
    return [i for i, token_id in enumerate(ids) if token_id not in known]


def unknown_id_decoded_as_unk(ctx: Context, div: Divergence) -> frozenset[int]:
    """An id naming no token is decoded as the unk token's string, even when that token
    is not in the vocabulary (upstream drops the id). Replayed: upstream decoding the ids
    with each unknown one replaced by the unk token's id (added to the vocabulary under a
    fresh id where it is missing) answers exactly the subject's text."""
    obs = div.observation
    unk = ctx.unk_token
    if obs.operation != "decode" or unk is None or not isinstance(obs.input, tuple):
        return NONE
    unknown = _unknown_positions(ctx, obs.input)
    if not unknown or not isinstance(obs.reference, Decoded):
        return NONE
    document, unk_id = ctx.document, _unk_id(ctx)
    if unk_id is None:
        unk_id = _FRESH_ID  # far from every id upstream may give the added tokens
        document = _with_model(document, vocab={**ctx.vocab, unk: unk_id})
    ids = tuple(unk_id if i in unknown else token_id for i, token_id in enumerate(obs.input))
    return _yes(_same_tiers(obs.reference, _replay(document, _with_input(obs, ids))))


def unknown_id_without_unk_breaks_decoder(ctx: Context, div: Divergence) -> frozenset[int]:
    """Without an unk token in the vocabulary, an id naming no token becomes a null token
    that the subject's decoder steps cannot handle: a TypeError (upstream drops the id)."""
    obs = div.observation
    subject = obs.reference
    if obs.operation != "decode" or ctx.unk_token is not None:
        return NONE
    if not isinstance(obs.input, tuple) or not _unknown_positions(ctx, obs.input):
        return NONE
    return _yes(isinstance(subject, Refused) and subject.rule == "TypeError"
                and "of null" in subject.message)


def unknown_id_without_unk_joined_empty(ctx: Context, div: Divergence) -> frozenset[int]:
    """Without an unk token, an id naming no token becomes an empty token: the subject's
    text is upstream's decode of the ids with the unknown ones removed, when no decoder
    step sees the null piece (a decoder-less join keeps a separator for it)."""
    obs = div.observation
    if obs.operation != "decode" or ctx.unk_token is not None:
        return NONE
    if not isinstance(obs.input, tuple) or not isinstance(obs.reference, Decoded):
        return NONE
    unknown = _unknown_positions(ctx, obs.input)
    if not unknown or ctx.document.get("decoder") is not None:
        return NONE
    known = tuple(t for i, t in enumerate(obs.input) if i not in unknown)
    replayed = _replay(ctx.document, _with_input(obs, known))
    if not isinstance(replayed, Decoded):
        return NONE
    return _yes(obs.reference.text.replace(" ", "") == replayed.text.replace(" ", ""))


#: What JavaScript's String.prototype.trim removes (WhiteSpace and LineTerminator).
_JS_WHITESPACE: Final = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                         "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def end_of_word_suffix_spaced(ctx: Context, div: Divergence) -> frozenset[int]:
    """After its decoder, the subject replaces every end-of-word suffix in the text by a
    space (and trims the text when skipping specials), as for a BPEDecoder, whatever the
    file's decoder is; upstream keeps what the decoder gave."""
    obs = div.observation
    suffix = ctx.model.get("end_of_word_suffix")
    if obs.operation != "decode" or not isinstance(suffix, str) or not suffix:
        return NONE
    if ctx.document.get("decoder") is None:
        return NONE
    subject, upstream = obs.reference, obs.upstream
    if not (isinstance(subject, Decoded) and isinstance(upstream, Decoded)):
        return NONE
    expected = upstream.text.replace(suffix, " ")
    if obs.option("skip_special_tokens"):
        expected = expected.strip(_JS_WHITESPACE)
    return _yes(subject.text == expected)


def _with_input(obs: Observation, ids: tuple[int, ...]) -> Observation:
    return Observation(obs.track, obs.operation, ids, obs.options, obs.reference,
                       obs.upstream)


# -- the unk token -----------------------------------------------------------------------
_UNK_MISSING: Final = re.compile(r"Unk token `(.*)` not found in the vocabulary", re.S)


def missing_unk_gives_null_id(ctx: Context, div: Divergence) -> frozenset[int]:
    """An unk_token absent from the vocabulary: upstream refuses the encode that needs
    it; the subject emits the unk token with a null id."""
    obs = div.observation
    subject, upstream = obs.reference, obs.upstream
    if obs.operation != "encode" or not isinstance(upstream, Refused):
        return NONE
    named = _UNK_MISSING.fullmatch(upstream.message)
    if named is None or named.group(1) != ctx.unk_token or _unk_id(ctx) is not None:
        return NONE
    if not isinstance(subject, Encoded):
        return NONE
    nulls = [i for i, token_id in enumerate(subject.ids) if token_id is None]
    return _yes(bool(nulls) and all(subject.tokens[i] == ctx.unk_token for i in nulls))


# -- load ------------------------------------------------------------------------------
_OUT_OF_VOCABULARY: Final = re.compile(r"Token `(.*)` out of vocabulary( at line.*)?", re.S)


def _merge_sides(merge: Any) -> tuple[str, ...]:
    if isinstance(merge, str):
        return tuple(merge.split(" ", 1))
    if isinstance(merge, list):
        return tuple(str(side) for side in merge)
    return ()


def _merge_pairs(merges: Any) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for merge in merges if isinstance(merges, list) else ():
        if isinstance(merge, str) and merge.count(" ") == 1:
            left, right = merge.split(" ")
            pairs.append((left, right))
        elif isinstance(merge, list) and len(merge) == 2:
            pairs.append((str(merge[0]), str(merge[1])))
    return pairs


def merge_result_unchecked(ctx: Context, div: Divergence) -> frozenset[int]:
    """A merge whose result is not in the vocabulary: upstream refuses the file, the
    subject loads it. Checked: the token upstream names is the result of one of the
    file's merges (the right side without the continuing-subword prefix) and is absent
    from the vocabulary."""
    obs = div.observation
    upstream = obs.upstream
    if obs.operation != "load" or not isinstance(obs.reference, Loaded):
        return NONE
    if not isinstance(upstream, Refused):
        return NONE
    named = _OUT_OF_VOCABULARY.fullmatch(upstream.message)
    if named is None or named.group(1) in ctx.vocab:
        return NONE
    prefix = ctx.model.get("continuing_subword_prefix") or ""
    results = {left + (right[len(prefix):] if prefix and right.startswith(prefix) else right)
               for left, right in _merge_pairs(ctx.model.get("merges"))}
    return _yes(named.group(1) in results)


def upstream_load_panic(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream panics while building the model (a merge result longer than every entry,
    a prefix that underflows a merge side); the subject loads the file. Recognised by our
    own registry's mechanism: our strict reference refuses this file naming the very
    merge upstream panics on (``upstream-panic-refused``)."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.reference, Loaded):
        return NONE
    ours = ctx.strict if isinstance(ctx.strict, Refused | Crashed) else Loaded()
    mirrored = Observation("strict", "load", None, (), ours, obs.upstream)
    return PREDICATES["upstream_panic_refused"](ctx, Divergence("load", "", mirrored))


RECOGNISERS: dict[str, Predicate] = {function.__name__: function for function in (
    *(_ignores(field) for field in CHANGES),
    end_of_word_suffix_spaced,
    empty_ids_refused,
    unknown_id_decoded_as_unk,
    unknown_id_without_unk_breaks_decoder,
    unknown_id_without_unk_joined_empty,
    missing_unk_gives_null_id,
    merge_result_unchecked,
    upstream_load_panic,
)}
