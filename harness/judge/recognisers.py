"""Recognisers of known divergences of third-party subjects, named by the expectations
files (``<subject>.yaml``). Like the predicates of our own registry, each checks one
specific mechanism: it recomputes what the subject is known to do (with ``tokenizers``
on a changed document, or from the document itself) and says yes only when the
subject's answer is exactly that, and upstream's is what it is known to be.

Terms: *subject* is ``observation.reference`` (the implementation under test),
*upstream* is ``observation.upstream`` (``tokenizers``).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from ..core.case import Case
from ..core.observation import Observation, Track
from ..core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from ..subjects.reference import LENIENT
from ..subjects.upstream import UPSTREAM, normalize
from .compare import Divergence
from .predicates import ALL, NONE, Context, Predicate
from .predicates import REGISTRY as PREDICATES
from .replay import NothingReplayed

#: Upstream handles of changed documents, by document text (a few at a time).
_REPLAYS: OrderedDict[str, Any] = OrderedDict()
_REPLAY_CACHE: Final = 16
#: What JavaScript's String.prototype.trim removes (WhiteSpace and LineTerminator).
_JS_WHITESPACE: Final = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                         "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")
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


def _normalized(handle: Any, text: str) -> str | None:
    """Upstream's normalizer on ``text`` (None where it panics or fails)."""
    result = normalize(handle, text)
    return None if isinstance(result, Refused | Crashed) else result


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
    return _picked(outcome, [i for i, token in enumerate(outcome.tokens) if token != _MARKER])


def _picked(outcome: Encoded, keep: Sequence[int]) -> Encoded:
    def pick(values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(values[i] for i in keep) if values else values

    return Encoded(ids=pick(outcome.ids), tokens=pick(outcome.tokens),
                   spans=pick(outcome.spans), special_mask=pick(outcome.special_mask),
                   type_ids=pick(outcome.type_ids),
                   attention_mask=pick(outcome.attention_mask))


def _same_tiers(subject: Outcome, replayed: Outcome | None) -> bool:
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


def _model(document: dict[str, Any]) -> dict[str, Any]:
    model = document.get("model")
    return model if isinstance(model, dict) else {}


def _with_model(document: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**document, "model": {**_model(document), **changes}}


def _document_ids(document: dict[str, Any]) -> set[int]:
    """Every id the document gives a token (vocabulary and added tokens)."""
    vocab = _model(document).get("vocab")
    ids = {i for i in vocab.values() if isinstance(i, int)} if isinstance(vocab, dict) else set()
    for entry in document.get("added_tokens") or ():
        if isinstance(entry, dict) and isinstance(entry.get("id"), int):
            ids.add(entry["id"])
    return ids


def _known_ids(ctx: Context) -> set[int]:
    return _document_ids(ctx.document)


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


# -- how the subject reads a document -------------------------------------------------------
# Each reading rewrites the document as the subject reads it (a field it ignores set to
# its neutral value; None where the field is not in use), and may rewrite upstream's
# answer (what the subject does after the model). A divergence is recognised as reading R
# when upstream, replaying it on the document read every applicable way, answers exactly
# what the subject answered, and R is needed for that (without R the replay does not
# match) or is the first applicable one.
Change = Callable[[dict[str, Any]], dict[str, Any] | None]


def _without_dropout(document: dict[str, Any]) -> dict[str, Any] | None:
    dropout = _model(document).get("dropout")
    if not isinstance(dropout, int | float) or isinstance(dropout, bool) or dropout <= 0:
        return None
    return _with_model(document, dropout=None)


def _without_prefix(document: dict[str, Any]) -> dict[str, Any] | None:
    """No continuing-subword prefix; every merge kept as the subject reads it, literally:
    its result is the plain concatenation of its sides. A side or result the vocabulary
    lacks (upstream cuts the prefix's length off every right side, so such a file loads
    only with the prefix) is added as a ghost token with a fresh id, and
    ``_ghosts_fallen_back`` turns each ghost the replay gives into what the subject emits
    for a merged token it cannot find: its byte pieces, the unk token, or nothing."""
    model = _model(document)
    prefix = model.get("continuing_subword_prefix")
    vocab = model.get("vocab")
    if not isinstance(prefix, str) or not prefix or not isinstance(vocab, dict):
        return None
    ghosts: dict[str, int] = {}
    for merge in model.get("merges") or ():
        sides = _merge_sides(merge)
        for token in (*sides, "".join(sides)):
            if token and token not in vocab and token not in ghosts:
                ghosts[token] = _GHOST_ID - len(ghosts)
    return _with_model(document, continuing_subword_prefix=None, vocab={**vocab, **ghosts})


#: Ids of ghost tokens count down from here (below the fresh unk id, above any real id).
_GHOST_ID: Final = 2**30


def _ghosts_fallen_back(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                        ) -> Outcome | None:
    """Each ghost token (``_without_prefix``) of a replayed answer as the subject's BPE
    model emits a merged token that is not in its vocabulary: its UTF-8 bytes as byte
    pieces where byte_fallback is set and every piece exists, else the unk token (its id
    that of an added token or vocabulary entry of that content, else null), else
    nothing."""
    changed = _without_prefix(document)
    if not isinstance(outcome, Encoded) or changed is None:
        return outcome
    model = _model(document)
    ghosts = set(_model(changed)["vocab"]) - set(model.get("vocab") or {})
    if not ghosts.intersection(outcome.tokens):
        return outcome
    known: dict[str, int] = dict(model.get("vocab") or {})
    for entry in document.get("added_tokens") or ():
        if isinstance(entry, dict) and isinstance(entry.get("id"), int):
            known[str(entry.get("content"))] = entry["id"]
    unk = model.get("unk_token")
    ids: list[int | None] = []
    tokens: list[str] = []
    type_ids: list[int] = []
    for i, (token_id, token) in enumerate(zip(outcome.ids, outcome.tokens, strict=True)):
        emitted: list[tuple[int | None, str]] = [(token_id, token)]
        if token in ghosts and _GHOST_ID - len(ghosts) < token_id <= _GHOST_ID:
            pieces = [f"<0x{byte:02X}>" for byte in token.encode("utf-8")]
            if model.get("byte_fallback") is True and all(piece in known for piece in pieces):
                emitted = [(known[piece], piece) for piece in pieces]
            else:
                emitted = [(known.get(unk), unk)] if isinstance(unk, str) else []
        ids.extend(new_id for new_id, _ in emitted)
        tokens.extend(new_token for _, new_token in emitted)
        if outcome.type_ids:
            type_ids.extend(outcome.type_ids[i] for _ in emitted)
    # A subject's id may be null (JSON); the model types it as an int.
    return Encoded(ids=cast(tuple[int, ...], tuple(ids)), tokens=tuple(tokens), spans=(),
                   special_mask=(), type_ids=tuple(type_ids),
                   attention_mask=(1,) * len(ids) if outcome.attention_mask else ())


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


def _byte_merges_dropped(document: dict[str, Any]) -> dict[str, Any] | None:
    """Merges a side of which is made of byte pieces left out: the subject falls back to
    bytes after merging, so byte pieces never merge."""
    model = _model(document)
    if model.get("byte_fallback") is not True:
        return None
    merges = model.get("merges") or []
    kept = [m for m in merges
            if not any(_BYTE_RUN.fullmatch(side) for side in _merge_sides(m))]
    return _with_model(document, merges=kept) if len(kept) != len(merges) else None


_BYTE_RUN: Final = re.compile(r"(<0x[0-9A-F]{2}>)+")


def _fusing(document: dict[str, Any]) -> dict[str, Any] | None:
    return document if _model(document).get("fuse_unk") is True else None


def _fuse_unk_runs(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                   ) -> Outcome | None:
    """Consecutive unk tokens the model gave for one input fused into the first, across
    word boundaries (upstream fuses only inside a word); an added token matched in the
    text (its span holds its content) is a barrier, as it splits the subject's sections."""
    unk = _model(document).get("unk_token")
    vocab = _model(document).get("vocab")
    if not isinstance(outcome, Encoded) or not isinstance(vocab, dict) or unk not in vocab:
        return outcome
    unk_id = vocab[unk]
    texts = (obs.input if isinstance(obs.input, str) else "", obs.option("pair") or "")
    added = {e["id"]: e.get("content") for e in document.get("added_tokens") or ()
             if isinstance(e, dict) and isinstance(e.get("id"), int)}

    def from_model(i: int) -> bool:
        if outcome.ids[i] != unk_id:
            return False
        if outcome.ids[i] not in added or not outcome.spans:
            return True
        start, end = outcome.spans[i]
        which = outcome.type_ids[i] if outcome.type_ids and outcome.type_ids[i] in (0, 1) else 0
        return texts[which][start:end] != added[outcome.ids[i]]

    keep = [i for i in range(len(outcome.ids))
            if not (i > 0 and from_model(i) and from_model(i - 1)
                    and (not outcome.type_ids
                         or outcome.type_ids[i] == outcome.type_ids[i - 1]))]
    return _picked(outcome, keep)


def _normalized_added_plain(document: dict[str, Any]) -> dict[str, Any] | None:
    added = document.get("added_tokens")
    if document.get("normalizer") is None or not isinstance(added, list) or not any(
            isinstance(e, dict) and e.get("normalized") is True for e in added):
        return None
    return {**document, "added_tokens": [
        {**e, "normalized": False} if isinstance(e, dict) else e for e in added]}


def _stripping(document: dict[str, Any]) -> dict[str, Any] | None:
    added = document.get("added_tokens")
    if not isinstance(added, list) or not any(
            isinstance(e, dict) and (e.get("lstrip") is True or e.get("rstrip") is True)
            for e in added):
        return None
    return document


def _content_as_token(document: dict[str, Any], outcome: Outcome | None) -> Outcome | None:
    """The token string of an lstrip/rstrip added token without the whitespace it
    stripped (upstream's is the matched text, that whitespace included)."""
    if not isinstance(outcome, Encoded):
        return outcome
    sides = {e["id"]: (e.get("lstrip") is True, e.get("rstrip") is True)
             for e in document.get("added_tokens") or ()
             if isinstance(e, dict) and isinstance(e.get("id"), int)
             and (e.get("lstrip") is True or e.get("rstrip") is True)}

    def trimmed(token_id: int, token: str) -> str:
        left, right = sides[token_id]
        token = token.lstrip() if left else token
        return token.rstrip() if right else token

    tokens = tuple(trimmed(i, token) if i in sides else token
                   for i, token in zip(outcome.ids, outcome.tokens, strict=True))
    return dataclasses.replace(outcome, tokens=tokens)


Answer = Callable[[dict[str, Any], Observation, Outcome | None], Outcome | None]
Input = Callable[[dict[str, Any], Observation], Observation]


def _unknown_ids(document: dict[str, Any]) -> dict[str, Any] | None:
    """An unknown id decodes as the unk token's string: the replay's document has the
    unk token (a fresh id where the vocabulary lacks it)."""
    unk = _model(document).get("unk_token")
    vocab = _model(document).get("vocab")
    if not isinstance(unk, str) or not isinstance(vocab, dict):
        return None
    if unk in vocab or _added_id(document, unk) is not None:
        return document
    return _with_model(document, vocab={**vocab, unk: _FRESH_ID})


def _added_id(document: dict[str, Any], content: str) -> int | None:
    for entry in document.get("added_tokens") or ():
        if isinstance(entry, dict) and entry.get("content") == content and isinstance(
                entry.get("id"), int):
            return int(entry["id"])
    return None


def _unknown_as_unk(document: dict[str, Any], obs: Observation) -> Observation:
    """The ids with each unknown one (of the original document) replaced by the unk's."""
    unk = _model(document).get("unk_token")
    if not isinstance(obs.input, tuple) or not isinstance(unk, str):
        return obs
    known = _document_ids(document)
    unk_id = _model(document).get("vocab", {}).get(unk)
    if unk_id is None:
        unk_id = _added_id(document, unk)
    if unk_id is None:
        unk_id = _FRESH_ID
    return _with_input(obs, tuple(i if i in known else unk_id for i in obs.input))


def _spacing_suffix(document: dict[str, Any]) -> dict[str, Any] | None:
    suffix = _model(document).get("end_of_word_suffix")
    if not isinstance(suffix, str) or not suffix or document.get("decoder") is None:
        return None
    return document


def _suffix_spaced(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                   ) -> Outcome | None:
    """After the decoder, every end-of-word suffix becomes a space, and the text is
    trimmed (JavaScript's trim) when specials are skipped."""
    if not isinstance(outcome, Decoded):
        return outcome
    text = outcome.text.replace(str(_model(document)["end_of_word_suffix"]), " ")
    if obs.option("skip_special_tokens"):
        text = text.strip(_JS_WHITESPACE)
    return Decoded(text)


def _metaspace_as_replace(document: dict[str, Any]) -> dict[str, Any] | None:
    """A Metaspace decoder (alone or as a step of a Sequence) read as: every replacement
    character a space (then one leading space removed, ``_first_space_removed``)."""
    def replaced(step: Any) -> Any:
        if not isinstance(step, dict) or step.get("type") != "Metaspace":
            return step
        replacement = step.get("replacement")
        if not isinstance(replacement, str):
            return step
        return {"type": "Replace", "pattern": {"String": replacement}, "content": " "}

    decoder = document.get("decoder")
    if not isinstance(decoder, dict):
        return None
    steps = decoder.get("decoders")
    if decoder.get("type") == "Sequence" and isinstance(steps, list):
        changed = {**decoder, "decoders": [replaced(step) for step in steps]}
    else:
        changed = replaced(decoder)
    return None if changed == decoder else {**document, "decoder": changed}


def _first_space_removed(document: dict[str, Any], obs: Observation,
                         outcome: Outcome | None) -> Outcome | None:
    if isinstance(outcome, Decoded) and outcome.text.startswith(" "):
        return Decoded(outcome.text[1:])
    return outcome


def _picked_answer(rewrite: Callable[[dict[str, Any], Outcome | None], Outcome | None]
                   ) -> Answer:
    return lambda document, obs, outcome: rewrite(document, outcome)


_BYTE_PIECE_RUN: Final = re.compile(r"(?:<0x[0-9A-Fa-f]{2}>)+")


def _byte_fallback_kept(document: dict[str, Any]) -> dict[str, Any] | None:
    """Where the decoder has a ByteFallback step with no Fuse before it, the subject
    decodes each run of byte pieces itself (``_byte_runs_as_text``)."""
    decoder = document.get("decoder")
    steps = decoder.get("decoders") if isinstance(decoder, dict) else None
    types = ([d.get("type") if isinstance(d, dict) else None for d in steps]
             if isinstance(steps, list) else [decoder.get("type")
                                              if isinstance(decoder, dict) else None])
    if "ByteFallback" not in types or "Fuse" in types[:types.index("ByteFallback")]:
        return None
    return document


def _byte_runs_as_text(document: dict[str, Any], obs: Observation
                       ) -> tuple[dict[str, Any], Observation]:
    """Each run of ids naming byte pieces (after the skipped specials are left out) read
    as one token: the run decoded as UTF-8 with one U+FFFD per maximal invalid
    subsequence (a WHATWG TextDecoder); upstream gives one U+FFFD per byte of a run
    that is not valid as a whole. The replay's vocabulary gains those tokens."""
    if not isinstance(obs.input, tuple):
        return document, obs
    vocab = dict(_model(document).get("vocab") or {})
    by_id = {i: token for token, i in vocab.items() if isinstance(i, int)}
    specials = {e.get("id") for e in document.get("added_tokens") or ()
                if isinstance(e, dict) and e.get("special") is True}
    ids = [i for i in obs.input
           if not (obs.option("skip_special_tokens") and i in specials)]
    out: list[int] = []
    run: list[int] = []
    unreadable: list[str] = []
    earlier = _replaced_before_fallback(document)

    def flush() -> None:
        if run:
            text = _marked(bytes(run).decode("utf-8", errors="replace"), earlier)
            if text is None:
                unreadable.append("")
                return
            if text not in vocab:
                vocab[text] = _FRESH_ID - 1 - len(vocab)
            out.append(vocab[text])
            run.clear()

    for token_id in ids:
        token = by_id.get(token_id)
        if token is not None and token_id not in specials and re.fullmatch(
                r"<0x[0-9A-Fa-f]{2}>", token):
            run.append(int(token[3:5], 16))
            continue
        flush()
        out.append(token_id)
    flush()
    if unreadable:
        return document, obs  # not expressible: the replay differs, the failure stays
    return _with_model(document, vocab=vocab), _with_input(obs, tuple(out))


#: Stand-ins for the patterns of Replace steps inside decoded byte runs (private use).
_PATTERN_MARKS: Final = tuple(chr(0xF0000 + k) for k in range(16))
#: Stand-in for the "<" of decoded text that spells a byte piece.
_BYTE_SHAPE_MARK: Final = chr(0xF00FF)


def _marked(text: str, patterns: Sequence[tuple[str, str]]) -> str | None:
    """``text`` with each String pattern of an earlier Replace step swapped for its
    stand-in (the subject's Replace saw byte pieces, not this text; ``_marks_restored``
    swaps them back in the replayed answer); None where a Regex pattern may match it or
    there are too many patterns."""
    if len(patterns) > len(_PATTERN_MARKS):
        return None
    if re.fullmatch(r"<0x[0-9A-Fa-f]{2}>", text):
        # Decoded text spelling a byte piece: upstream's ByteFallback would decode it again.
        text = _BYTE_SHAPE_MARK + text[1:]
    for k, (kind, pattern) in enumerate(patterns):
        if kind == "Regex":
            try:
                if re.search(pattern, text):
                    return None
            except re.error:
                return None
        else:
            text = text.replace(pattern, _PATTERN_MARKS[k])
    return text


def _marks_restored(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                    ) -> Outcome | None:
    if not isinstance(outcome, Decoded):
        return outcome
    text = outcome.text.replace(_BYTE_SHAPE_MARK, "<")
    for k, (kind, pattern) in enumerate(_replaced_before_fallback(document)[:16]):
        if kind == "String":
            text = text.replace(_PATTERN_MARKS[k], pattern)
    return Decoded(text)


def _replaced_before_fallback(document: dict[str, Any]) -> list[tuple[str, str]]:
    """The patterns ("String" or "Regex", text) of the Replace steps before the
    ByteFallback step."""
    decoder = document.get("decoder")
    steps = decoder.get("decoders") if isinstance(decoder, dict) else None
    found: list[tuple[str, str]] = []
    for step in steps if isinstance(steps, list) else ():
        if not isinstance(step, dict) or step.get("type") == "ByteFallback":
            break
        pattern = step.get("pattern")
        if step.get("type") == "Replace" and isinstance(pattern, dict):
            for kind in ("String", "Regex"):
                if isinstance(pattern.get(kind), str) and pattern[kind]:
                    found.append((kind, pattern[kind]))
    return found


def _metaspace_first_as(step: Any, scheme: str) -> Any:
    if not isinstance(step, dict):
        return step
    if step.get("type") == "Metaspace" and step.get("prepend_scheme") == "first":
        return {**step, "prepend_scheme": scheme}
    if step.get("type") == "Sequence" and isinstance(step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [_metaspace_first_as(s, scheme)
                                          for s in step["pretokenizers"]]}
    return step


def _first_scheme(document: dict[str, Any]) -> dict[str, Any] | None:
    changed = _metaspace_first_as(document.get("pre_tokenizer"), "always")
    return document if changed != document.get("pre_tokenizer") else None


def _plain_contents(document: dict[str, Any]) -> list[str]:
    """The contents of the added tokens matched on the raw text, longest first."""
    return sorted({e["content"] for e in document.get("added_tokens") or ()
                   if isinstance(e, dict) and e.get("normalized") is not True
                   and isinstance(e.get("content"), str) and e["content"]},
                  key=len, reverse=True)


def _first_scheme_as_subject(document: dict[str, Any], obs: Observation) -> str | None:
    """How the subject's "first" scheme acts on this input, as a scheme upstream has:
    it prepends to every piece of the text's first section (the text before any added
    token matched before normalization), normalized added tokens cutting it or not,
    and to no other. So "never" where a text starts with such a token, "always" where
    nothing but the first section has text left after normalization; None (not
    expressible) otherwise, or where the two texts of a pair disagree."""
    plain = _plain_contents(document)
    handle = _upstream_handle(document)
    if isinstance(handle, Refused | Crashed):
        return None
    splitter = re.compile("|".join(re.escape(c) for c in plain)) if plain else None
    schemes: set[str] = set()
    for text in (obs.input, obs.option("pair")):
        if not isinstance(text, str) or not text:
            continue
        sections = splitter.split(text) if splitter is not None else [text]
        if sections[0] == "":
            schemes.add("never")
            continue
        later = [_normalized(handle, piece) for piece in sections[1:] if piece]
        if any(piece != "" for piece in later):  # text left, or not normalizable
            return None
        schemes.add("always")
    return schemes.pop() if len(schemes) == 1 else None


def _first_sections(document: dict[str, Any], obs: Observation) -> int | None:
    """Where ``_first_scheme_as_subject`` cannot say (a single text whose first section
    is followed by more text after an added token matched before normalization): the
    end of that first section."""
    if obs.operation != "encode" or obs.option("pair") is not None:
        return None
    if not isinstance(obs.input, str) or _first_scheme_as_subject(document, obs) is not None:
        return None
    if _first_scheme(document) is None:
        return None
    plain = _plain_contents(document)
    found = re.search("|".join(re.escape(c) for c in plain), obs.input) if plain else None
    return found.start() if found is not None and found.start() > 0 else None


def _first_spliced(document: dict[str, Any], obs: Observation) -> Outcome | None:
    """The subject's "first" scheme on a text of several sections, from two replays:
    the tokens of the first section as upstream gives them with "always", the rest as
    with "never" (upstream encodes the sections between such added tokens apart, so
    each replay's tokens of a section are that section's), inside the template tokens
    (special, with an empty span) of the first."""
    cut = _first_sections(document, obs)
    if cut is None:
        return None
    pre = document.get("pre_tokenizer")
    always = _replay({**document, "pre_tokenizer": _metaspace_first_as(pre, "always")}, obs)
    never = _replay({**document, "pre_tokenizer": _metaspace_first_as(pre, "never")}, obs)
    if not isinstance(always, Encoded) or not isinstance(never, Encoded):
        return None

    def template(outcome: Encoded, i: int) -> bool:
        return outcome.special_mask[i] == 1 and outcome.spans[i] == (0, 0)

    inner = [i for i in range(len(always.ids)) if not template(always, i)]
    if not inner or not all(template(always, i) for i in range(inner[0], inner[-1] + 1)
                            if i not in inner):
        return None
    head = list(range(inner[0]))
    tail = list(range(inner[-1] + 1, len(always.ids)))
    first = [i for i in inner if always.spans[i][1] <= cut]
    rest = [i for i in range(len(never.ids))
            if not template(never, i) and never.spans[i][0] >= cut]
    parts = [(always, i) for i in head + first] + [(never, i) for i in rest] + [
        (always, i) for i in tail]

    def take(tier: str) -> tuple[Any, ...]:
        return tuple(getattr(outcome, tier)[i] for outcome, i in parts
                     if getattr(outcome, tier))

    return Encoded(ids=take("ids"), tokens=take("tokens"), spans=take("spans"),
                   special_mask=take("special_mask"), type_ids=take("type_ids"),
                   attention_mask=take("attention_mask"))


def _first_scheme_replaced(document: dict[str, Any], obs: Observation
                           ) -> tuple[dict[str, Any], Observation]:
    scheme = _first_scheme_as_subject(document, obs)
    if scheme is None:
        return document, obs
    changed = _metaspace_first_as(document.get("pre_tokenizer"), scheme)
    return {**document, "pre_tokenizer": changed}, obs


def _last_string_per_id(document: dict[str, Any]) -> dict[str, Any] | None:
    """Where several vocabulary strings share an id, the subject decodes the id as the
    last of them in the document it receives (canonical JSON: keys sorted, then ordered
    as a JavaScript object orders them); upstream as whichever its hash map yields,
    which varies from process to process. The replay's vocabulary gives the others
    fresh ids."""
    vocab = _model(document).get("vocab")
    if not isinstance(vocab, dict):
        return None
    last: dict[Any, str] = {}
    for token in _js_key_order(dict.fromkeys(sorted(vocab))):
        last[vocab[token]] = token
    if len(last) == len(vocab):
        return None
    fresh = iter(range(_GHOST_ID // 2, _GHOST_ID // 2 - len(vocab), -1))
    return _with_model(document, vocab={
        token: token_id if last[token_id] == token else next(fresh)
        for token, token_id in vocab.items()})


def _js_key_order(mapping: dict[str, Any]) -> list[str]:
    """The keys as a JavaScript object parsed from JSON orders them: array-index keys
    ("0", "17": canonical, below 2**32 - 1) first, ascending, then the rest as written."""
    def index(key: str) -> int | None:
        if key == "0" or (key.isascii() and key.isdigit() and key[0] != "0"):
            return int(key) if int(key) < 2**32 - 1 else None
        return None

    indexed = sorted((k for k in mapping if index(k) is not None), key=int)
    return indexed + [k for k in mapping if index(k) is None]


def _unknown_ids_empty(document: dict[str, Any]) -> dict[str, Any] | None:
    """Without an unk token or decoder, an unknown id is a null token that joins as an
    empty piece: the replay gives it an empty-string token."""
    vocab = _model(document).get("vocab")
    if _model(document).get("unk_token") is not None or document.get("decoder") is not None:
        return None
    if not isinstance(vocab, dict) or "" in vocab:
        return None
    return _with_model(document, vocab={**vocab, "": _FRESH_ID})


def _unknown_as_empty(document: dict[str, Any], obs: Observation) -> Observation:
    if not isinstance(obs.input, tuple):
        return obs
    known = _document_ids(document)
    return _with_input(obs, tuple(i if i in known else _FRESH_ID for i in obs.input))


def _every_document(document: dict[str, Any]) -> dict[str, Any] | None:
    return document


def _empty_pair(document: dict[str, Any], obs: Observation) -> bool:
    return bool(obs.option("pair") == "")


def _pair_dropped(document: dict[str, Any], obs: Observation) -> Observation:
    return Observation(obs.track, obs.operation, obs.input,
                       tuple((k, v) for k, v in obs.options if k != "pair"), obs.reference,
                       obs.upstream)


# -- the subject's own added-token sections ------------------------------------------------
#: The reading under which a replay runs section by section (``_sectioned``).
_SECTIONS: Final = "added_token_sections"


def _has_added_tokens(document: dict[str, Any]) -> dict[str, Any] | None:
    return document if document.get("added_tokens") else None


def _js_split(text: str, contents: Sequence[str]) -> list[str]:
    """The subject's DictionarySplitter: leftmost-longest matches of ``contents``, each
    its own element, the text between them as elements (never empty)."""
    if not contents:
        return [text] if text else []
    pattern = re.compile("|".join(re.escape(c) for c in sorted(contents, key=len,
                                                                reverse=True)))
    parts: list[str] = []
    start = 0
    for found in pattern.finditer(text):
        if found.start() > start:
            parts.append(text[start:found.start()])
        parts.append(found.group())
        start = found.end()
    if start < len(text):
        parts.append(text[start:])
    return parts


def _js_trimmed(parts: list[str], added: dict[str, dict[str, Any]]) -> list[str]:
    """lstrip/rstrip as the subject applies them: an element naming an added token with
    lstrip trims the end of the element before it, rstrip the start of the one after."""
    parts = list(parts)
    for o, part in enumerate(parts):
        entry = added.get(part)
        if entry is None:
            continue
        if entry.get("lstrip") is True and o > 0:
            parts[o - 1] = parts[o - 1].rstrip(_JS_WHITESPACE)
        if entry.get("rstrip") is True and o < len(parts) - 1:
            parts[o + 1] = parts[o + 1].lstrip(_JS_WHITESPACE)
    return parts


#: The reading under which the section replay normalizes as the subject does, Prepend
#: steps applied to an empty text too.
_PREPEND_ON_EMPTY: Final = "prepend_on_empty"


def _normalizer_steps(step: Any) -> list[Any]:
    if isinstance(step, dict) and step.get("type") == "Sequence":
        return [s for child in step.get("normalizers") or () for s in _normalizer_steps(child)]
    return [step]


def _prepends(document: dict[str, Any]) -> dict[str, Any] | None:
    """Documents whose normalizer has a Prepend step."""
    steps = _normalizer_steps(document.get("normalizer"))
    return document if any(isinstance(s, dict) and s.get("type") == "Prepend"
                           for s in steps) else None


def _js_normalized(document: dict[str, Any], text: str) -> str | None:
    """``text`` through the normalizer step by step as the subject runs it: upstream does
    each step but Prepend, which the subject applies to an empty text too."""
    for step in _normalizer_steps(document.get("normalizer")):
        if not isinstance(step, dict):
            return None
        if step.get("type") == "Prepend" and isinstance(step.get("prepend"), str):
            text = step["prepend"] + text
            continue
        handle = _upstream_handle({**document, "normalizer": step, "added_tokens": []})
        if isinstance(handle, Refused | Crashed):
            return None
        normalized = _normalized(handle, text)
        if normalized is None:
            return None
        text = normalized
    return text


def _sectionable(document: dict[str, Any]) -> dict[str, Any] | None:
    return _has_added_tokens(document) or _prepends(document)


def _text_sections(document: dict[str, Any], obs: Observation) -> bool:
    """A text (or a pair of texts) to encode: what ``_sectioned`` replays."""
    return isinstance(obs.input, str) and (obs.option("pair") is None
                                           or isinstance(obs.option("pair"), str))


_Body = tuple[list[int], list[str]]


def _section_body(document: dict[str, Any], handle: Any, text: str,
                  obs: Observation, prepend_on_empty: bool = False) -> _Body | None:
    """The ids and tokens of one text (no template) split the way the subject splits it:
    at the added tokens matched on the raw text (leftmost-longest), lstrip/rstrip trimming
    the neighbours; an element equal to any added token's content (or a normalized form)
    is that token; the others normalized, split at the normalized forms of the normalized
    added tokens the same way, and each remaining piece pre-tokenized with its element's
    index (Metaspace "first" prepends only in element 0) and run through upstream's model."""
    has_normalizer = handle.tokenizer.normalizer is not None
    entries = [e for e in document.get("added_tokens") or () if isinstance(e, dict)
               and isinstance(e.get("id"), int) and isinstance(e.get("content"), str)]
    added: dict[str, dict[str, Any]] = {}
    plain: list[str] = []
    forms: list[str] = []
    for entry in entries:
        added[entry["content"]] = entry
        if entry.get("normalized") is True and has_normalizer:
            form = _normalized(handle, entry["content"])
            if form is None:
                return None
            forms.append(form)
            added[form] = entry
        else:
            plain.append(entry["content"])
    bare = {**document, "normalizer": None, "added_tokens": [], "post_processor": None}
    pre = document.get("pre_tokenizer")
    ids: list[int] = []
    tokens: list[str] = []
    for o, element in enumerate(_js_trimmed(_js_split(text, plain), added)):
        pieces: list[str]
        if not element:
            continue
        if element in added:
            pieces = [element]
        else:
            normalized = (_js_normalized(document, element) if prepend_on_empty
                          else _normalized(handle, element))
            if normalized is None:
                return None
            pieces = _js_trimmed(_js_split(normalized, forms), added) if normalized else []
        scheme = "always" if o == 0 else "never"
        piece_document = {**bare, "pre_tokenizer": _metaspace_first_as(pre, scheme)}
        for piece in pieces:
            if not piece:
                continue
            if piece in added:
                ids.append(added[piece]["id"])
                tokens.append(piece)
                continue
            part = _replay(piece_document, Observation(
                obs.track, "encode", piece, (("add_special_tokens", False),),
                obs.reference, obs.upstream))
            if not isinstance(part, Encoded):
                return None
            ids.extend(part.ids)
            tokens.extend(part.tokens)
    return ids, tokens


def _sectioned(document: dict[str, Any], obs: Observation, prepend_on_empty: bool = False
               ) -> Outcome | None:
    """``obs`` (a text or a pair) encoded the way the subject splits each text at added
    tokens (``_section_body``), upstream doing each piece's pre-tokenization and model;
    the template tokens around the bodies those of upstream's own answer, found by
    replacing, in that answer, the run of each text's own tokens by its sectioned body
    (the subject gives no offsets: spans are not compared)."""
    if not _text_sections(document, obs):
        return None
    handle = _upstream_handle(document)
    if isinstance(handle, Refused | Crashed):
        return None
    assert isinstance(obs.input, str)
    pair = obs.option("pair")
    texts = [obs.input] if pair is None else [obs.input, pair]
    bodies: list[_Body] = []
    lengths: list[int] = []
    for text in texts:
        body = _section_body(document, handle, text, obs, prepend_on_empty)
        alone = _replay(document, Observation(
            obs.track, "encode", text, (("add_special_tokens", False),),
            obs.reference, obs.upstream))
        if body is None or not isinstance(alone, Encoded):
            return None
        bodies.append(body)
        lengths.append(len(alone.ids))
    whole = _replay(document, obs)
    if not isinstance(whole, Encoded):
        return None
    inner = [i for i in range(len(whole.ids))
             if not (whole.special_mask[i] == 1 and whole.spans[i] == (0, 0))]
    if len(inner) != sum(lengths):
        return None
    # Where each text's run of tokens starts in upstream's answer, and its type id.
    owner: dict[int, int] = {}
    first: dict[int, int] = {}
    at = 0
    for t, length in enumerate(lengths):
        for i in inner[at:at + length]:
            owner[i] = t
        if length:
            first[inner[at]] = t
        at += length
    # A text upstream gives no token of: its body goes where the template puts it.
    empty = {t: _template_slot(document, obs, lengths, t) for t, length in enumerate(lengths)
             if not length and bodies[t][0]}
    if any(slot is None for slot in empty.values()):
        return None  # nowhere to put a body upstream has no token of
    ids: list[int] = []
    tokens: list[str] = []
    type_ids: list[int] = []

    def put(t: int, type_id: int) -> None:
        body_ids, body_tokens = bodies[t]
        ids.extend(body_ids)
        tokens.extend(body_tokens)
        type_ids.extend([type_id] * len(body_ids))

    for i in range(len(whole.ids) + 1):
        for t, slot in empty.items():
            if slot is not None and slot[0] == i:
                put(t, slot[1])
        if i == len(whole.ids):
            break
        if i not in owner:
            ids.append(whole.ids[i])
            tokens.append(whole.tokens[i])
            type_ids.append(whole.type_ids[i] if whole.type_ids else 0)
        elif i in first:
            put(first[i], whole.type_ids[i] if whole.type_ids else 0)
    return Encoded(ids=tuple(ids), tokens=tuple(tokens), spans=((0, 0),) * len(ids),
                   special_mask=(),
                   type_ids=tuple(type_ids) if whole.type_ids else (),
                   attention_mask=(1,) * len(ids))


def _template_slot(document: dict[str, Any], obs: Observation, lengths: Sequence[int],
                   text: int) -> tuple[int, int] | None:
    """Where text ``text``'s tokens start in upstream's answer and their type id, read from
    the document's TemplateProcessing (list form; its special tokens only where added) and
    the token count of each text; None where the post-processor is anything else."""
    post = document.get("post_processor")
    if post is None:
        return sum(lengths[:text]), 0 if text == 0 else 1
    if not isinstance(post, dict) or post.get("type") != "TemplateProcessing":
        return None
    specials_too = bool(obs.option("add_special_tokens"))
    template = post.get("single" if len(lengths) == 1 else "pair")
    specials = post.get("special_tokens")
    if not isinstance(template, list) or not isinstance(specials, dict):
        return None
    at = 0
    for piece in template:
        if not isinstance(piece, dict) or len(piece) != 1:
            return None
        (kind, body), = piece.items()
        if not isinstance(body, dict):
            return None
        if kind == "SpecialToken":
            entry = specials.get(body.get("id"))
            if not isinstance(entry, dict) or not isinstance(entry.get("ids"), list):
                return None
            at += len(entry["ids"]) if specials_too else 0
        elif kind == "Sequence" and body.get("id") in ("A", "B"):
            which = 0 if body["id"] == "A" else 1
            if which == text:
                type_id = body.get("type_id", 0)
                return at, type_id if isinstance(type_id, int) else 0
            if which < len(lengths):
                at += lengths[which]
        else:
            return None
    return None


# -- how the subject turns token strings into ids ---------------------------------------
def _added_by_string(document: dict[str, Any]) -> dict[str, Any] | None:
    """Documents with added tokens: the subject looks every token string up in its map
    of added tokens (raw contents and normalized forms) before the model vocabulary."""
    return document if document.get("added_tokens") else None


def _ids_by_string(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                   ) -> Outcome | None:
    """Each token whose string is an added token's content, or the normalized form of a
    normalized one, gets that token's id (later entries win, as in the subject's map)."""
    if not isinstance(outcome, Encoded):
        return outcome
    handle = _upstream_handle(document)
    if isinstance(handle, Refused | Crashed):
        return None
    has_normalizer = handle.tokenizer.normalizer is not None
    by_string: dict[str, int] = {}
    for entry in document.get("added_tokens") or ():
        if not (isinstance(entry, dict) and isinstance(entry.get("id"), int)
                and isinstance(entry.get("content"), str)):
            continue
        by_string[entry["content"]] = entry["id"]
        if entry.get("normalized") is True and has_normalizer:
            form = _normalized(handle, entry["content"])
            if form is None:
                return None
            by_string[form] = entry["id"]
    ids = tuple(by_string.get(token, token_id)
                for token, token_id in zip(outcome.tokens, outcome.ids, strict=True))
    return dataclasses.replace(outcome, ids=ids)


def _shared_ids(document: dict[str, Any]) -> dict[str, int]:
    """The vocabulary strings that share an id with an earlier string, each given a
    fresh id past every id of the document (in vocabulary order)."""
    vocab = _model(document).get("vocab")
    if not isinstance(vocab, dict):
        return {}
    seen: set[int] = set()
    fresh = max(_document_ids(document) | {-1}) + 1
    moved: dict[str, int] = {}
    for string, token_id in vocab.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            continue
        if token_id in seen:
            moved[string] = fresh
            fresh += 1
        seen.add(token_id)
    return moved


def _distinct_ids(document: dict[str, Any]) -> dict[str, Any] | None:
    """Every vocabulary string with an id of its own (``_shared_ids``)."""
    moved = _shared_ids(document)
    if not moved:
        return None
    vocab = {string: moved.get(string, token_id)
             for string, token_id in _model(document)["vocab"].items()}
    return _with_model(document, vocab=vocab)


def _shared_ids_folded(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                       ) -> Outcome | None:
    """The fresh ids of ``_distinct_ids`` folded back onto the id their string shares."""
    if not isinstance(outcome, Encoded):
        return outcome
    vocab = _model(document)["vocab"]
    back = {fresh: vocab[string] for string, fresh in _shared_ids(document).items()}
    return dataclasses.replace(outcome, ids=tuple(back.get(i, i) for i in outcome.ids))


@dataclass(frozen=True)
class Reading:
    """One way the subject reads a document differently: a change of the document for
    the replay (None where it does not apply), optionally a rewrite of the observation's
    input and of the replayed answer; for the operations listed."""

    document: Change
    answer: Answer | None = None
    operations: frozenset[str] = frozenset({"encode", "decode"})
    input: Input | None = None
    #: A change of the document and the observation together (after ``document``).
    prepare: Callable[[dict[str, Any], Observation],
                      tuple[dict[str, Any], Observation]] | None = None
    #: Where the reading applies to some observations only.
    when: Callable[[dict[str, Any], Observation], bool] | None = None


_ENCODE: Final = frozenset({"encode"})
_DECODE: Final = frozenset({"decode"})
READINGS: Final[dict[str, Reading]] = {
    # The model's own strings as tokens, whatever id they share: first, so that its fresh
    # ids are folded back before any other reading reads the answer (a fresh id is no
    # ghost of the prefix reading).
    "model_strings_for_shared_ids": Reading(_distinct_ids, _shared_ids_folded, _ENCODE),
    "dropout": Reading(_without_dropout, operations=_ENCODE),
    "continuing_subword_prefix": Reading(_without_prefix, _ghosts_fallen_back, _ENCODE),
    "metaspace_split": Reading(_without_metaspace_split, operations=_ENCODE),
    "metaspace_first_per_section": Reading(
        _first_scheme, operations=_ENCODE, prepare=_first_scheme_replaced,
        when=lambda document, obs: (_first_scheme_as_subject(document, obs) is not None
                                    or _first_sections(document, obs) is not None)),
    "single_word": Reading(_without_single_word, operations=_ENCODE),
    "byte_pieces_unmerged": Reading(_byte_merges_dropped, operations=_ENCODE),
    "dropped_characters": Reading(_marking_dropped,
                                  _picked_answer(lambda _, outcome: _unmarked(outcome)),
                                  _ENCODE),
    "unk_fused_across_words": Reading(_fusing, _fuse_unk_runs, _ENCODE),
    "stripped_added_token_string": Reading(_stripping, _picked_answer(_content_as_token),
                                           _ENCODE),
    "normalized_added_tokens_in_decode": Reading(_normalized_added_plain,
                                                 operations=_DECODE),
    "last_string_per_id": Reading(_last_string_per_id, operations=_DECODE),
    "unknown_ids_as_unk": Reading(_unknown_ids, operations=_DECODE, input=_unknown_as_unk),
    "unknown_ids_as_empty_pieces": Reading(_unknown_ids_empty, operations=_DECODE,
                                           input=_unknown_as_empty),
    # Replays run section by section where nothing else explains the answer (``_reads``).
    _SECTIONS: Reading(_sectionable, operations=_ENCODE, when=_text_sections),
    # Inside the section replay only: Prepend applied to a text normalized to nothing.
    _PREPEND_ON_EMPTY: Reading(_prepends, operations=_ENCODE, when=_text_sections),
    # Last among encode readings: ids looked up by token string, added tokens first.
    "added_ids_by_string": Reading(_added_by_string, _ids_by_string, _ENCODE),
    "empty_pair_as_none": Reading(_every_document, operations=_ENCODE, input=_pair_dropped,
                                  when=_empty_pair),
    # After the byte pieces are decoded: the subject replaces the suffix in the text its
    # decoder gave, bytes decoded included.
    "byte_fallback_decoded_leniently": Reading(_byte_fallback_kept, _marks_restored,
                                               _DECODE, prepare=_byte_runs_as_text),
    "metaspace_decoder_first_space": Reading(_metaspace_as_replace, _first_space_removed,
                                             _DECODE),
    # After the decoder chain (the first space removed inside it): the suffix replaced.
    "end_of_word_suffix_spaced": Reading(_spacing_suffix, _suffix_spaced, _DECODE),
}


def _applicable(document: dict[str, Any], obs: Observation) -> list[str]:
    return [name for name, reading in READINGS.items()
            if obs.operation in reading.operations and reading.document(document) is not None
            and (reading.when is None or reading.when(document, obs))]


def _as_subject_reads(document: dict[str, Any], names: Sequence[str], obs: Observation,
                      *, fixed: bool = False, empty_strip: bool = True) -> Outcome | None:
    """``obs`` replayed by upstream on ``document`` read the ways ``names`` say. With
    ``fixed``, upstream's answer with its unk/byte-fallback misordering put right: our
    lenient reference's answer on the changed document, taken only where our registry's
    class ``unk-byte-fallback-ordering`` explains every way it differs from upstream's
    (the upstream bug is all that separates them)."""
    changed, replayed = document, obs
    if _SECTIONS in names:
        # The section replay prepends per section itself: "first" must reach it as is.
        names = [name for name in names if name != "metaspace_first_per_section"]
    for name in names:
        reading = READINGS[name]
        changed = reading.document(changed) or changed
        if reading.input is not None:
            replayed = reading.input(document, replayed)
    for name in names:
        prepare = READINGS[name].prepare
        if prepare is not None:
            changed, replayed = prepare(changed, replayed)
    changed = _added_ids_pinned(document, changed)
    moved = _moved_added_ids(document, changed)
    if moved:
        changed = {**changed, "post_processor": _template_ids_moved(
            changed.get("post_processor"), moved)}
        if isinstance(replayed.input, tuple):
            replayed = _with_input(replayed, tuple(moved.get(i, i) for i in replayed.input))
    if _SECTIONS in names:
        outcome = _sectioned(changed, replayed, _PREPEND_ON_EMPTY in names)
    elif "metaspace_first_per_section" in names and _first_sections(changed, replayed):
        outcome = _first_spliced(changed, replayed)
    else:
        outcome = _replay(changed, replayed)
        if empty_strip:
            outcome = _strip_panic_as_nothing(changed, outcome)
    if fixed:
        outcome = _ordering_fixed(changed, replayed, outcome)
    if moved and isinstance(outcome, Encoded):
        back = {new: old for old, new in moved.items()}
        outcome = dataclasses.replace(outcome, ids=tuple(back.get(i, i) for i in outcome.ids))
    for name in names:
        rewrite = READINGS[name].answer
        if rewrite is not None:
            outcome = rewrite(document, obs, outcome)
    return outcome


def _ordering_fixed(document: dict[str, Any], obs: Observation, upstream: Outcome | None
                    ) -> Outcome | None:
    if not isinstance(upstream, Encoded) or not isinstance(obs.input, str):
        return None
    handle = LENIENT.load(json.dumps(document, ensure_ascii=False))
    if isinstance(handle, Refused):
        handle = _without_idle_step(document, handle, obs)
    if isinstance(handle, Refused | Crashed):
        return None
    ours = LENIENT.encode(handle, obs.input, obs.option("pair"),
                          add_special_tokens=bool(obs.option("add_special_tokens")))
    if not isinstance(ours, Encoded):
        return None
    ctx = Context(Case(document=document, texts=(), id_runs=(), pairs=()), NothingReplayed())
    mirrored = Observation("lenient", obs.operation, obs.input, obs.options, ours, upstream)
    for tier in ("ids", "tokens", "special_mask", "type_ids", "attention_mask"):
        if getattr(ours, tier) != getattr(upstream, tier) and not PREDICATES[
                "unk_byte_fallback_ordering"](ctx, Divergence(tier, "", mirrored)):
            return None
    return ours  # (upstream's answer where nothing was misordered)


_NORMALIZER_STEP: Final = re.compile(r"\$\.normalizer((?:\.normalizers\[\d+\])*)")


def _without_idle_step(document: dict[str, Any], refused: Refused, obs: Observation
                       ) -> Any:
    """Our reference loaded without the normalizer step it refuses (a Replace regex it
    cannot bound, say), where that step changes nothing in this observation's texts
    (upstream normalizes them alike with and without it); else ``refused``."""
    found = _NORMALIZER_STEP.match(refused.path)
    if found is None:
        return refused
    indices = [int(i) for i in re.findall(r"\d+", found.group(1))]

    def without(step: Any, path: list[int]) -> Any:
        if not path:
            return {"type": "Sequence", "normalizers": []}
        if not isinstance(step, dict) or not isinstance(step.get("normalizers"), list):
            return step
        steps = list(step["normalizers"])
        if path[0] >= len(steps):
            return step
        steps[path[0]] = without(steps[path[0]], path[1:])
        return {**step, "normalizers": steps}

    changed = {**document, "normalizer": without(document.get("normalizer"), indices)}
    before, after = _upstream_handle(document), _upstream_handle(changed)
    if isinstance(before, Refused | Crashed) or isinstance(after, Refused | Crashed):
        return refused
    for text in (obs.input, obs.option("pair")):
        if isinstance(text, str):
            alike = _normalized(before, text)
            if alike is None or alike != _normalized(after, text):
                return refused
    return LENIENT.load(json.dumps(changed, ensure_ascii=False))


def _strip_panic_as_nothing(document: dict[str, Any], outcome: Outcome | None
                            ) -> Outcome | None:
    """A replay's decode that panics in upstream's Strip decoder because nothing is left
    to decode (``strip_panic_on_nothing``, an upstream bug) read as the empty text."""
    if (isinstance(outcome, Crashed) and outcome.kind == "panic"
            and "the len is 0" in outcome.message and _has_strip_step(document)):
        return Decoded("")
    return outcome


def _has_strip_step(document: dict[str, Any]) -> bool:
    decoder = document.get("decoder")
    steps = decoder.get("decoders") if isinstance(decoder, dict) else None
    return isinstance(steps, list) and any(
        isinstance(d, dict) and d.get("type") == "Strip" for d in steps)


def _added_ids_pinned(document: dict[str, Any], changed: dict[str, Any]) -> dict[str, Any]:
    """Where the replay's vocabulary grew, upstream would number the added tokens it does
    not find there after it (moving them, even onto ids of the vocabulary where that has
    holes): such tokens enter the replay's vocabulary with their own ids instead, as the
    subject's model knows them too."""
    vocab = _model(changed).get("vocab")
    if not isinstance(vocab, dict) or len(vocab) == len(_model(document).get("vocab") or {}):
        return changed
    pinned = {str(e["content"]): e["id"] for e in document.get("added_tokens") or ()
              if isinstance(e, dict) and isinstance(e.get("id"), int)
              and str(e.get("content")) not in vocab}
    return _with_model(changed, vocab={**vocab, **pinned}) if pinned else changed


def _moved_added_ids(document: dict[str, Any], changed: dict[str, Any]) -> dict[int, int]:
    """Upstream numbers added tokens it does not find in the model's vocabulary after
    that vocabulary when it loads a file, so a replay whose vocabulary grew, or whose
    added tokens changed content, moves them: each original added id -> its replay id
    (entries matched by position)."""
    before = [e for e in document.get("added_tokens") or () if isinstance(e, dict)]
    after = [e for e in changed.get("added_tokens") or () if isinstance(e, dict)]
    same_vocab = (len(_model(changed).get("vocab") or {})
                  == len(_model(document).get("vocab") or {}))
    if same_vocab and before == after:
        return {}
    handle = _upstream_handle(changed)
    if isinstance(handle, Refused | Crashed) or len(before) != len(after):
        return {}
    moved: dict[int, int] = {}
    for old, new in zip(before, after, strict=True):
        if isinstance(old.get("id"), int):
            now = handle.tokenizer.token_to_id(str(new.get("content")))
            if isinstance(now, int) and now != old["id"]:
                moved[old["id"]] = now
    return moved


def _template_ids_moved(value: Any, moved: dict[int, int]) -> Any:
    """The post-processor with every id list of its special tokens moved as the added
    tokens were, so its template emits ids that map back like the rest."""
    if isinstance(value, dict):
        return {key: ([moved.get(i, i) if isinstance(i, int) else i for i in item]
                      if key == "ids" and isinstance(item, list)
                      else _template_ids_moved(item, moved))
                for key, item in value.items()}
    if isinstance(value, list):
        return [_template_ids_moved(item, moved) for item in value]
    return value


def _replays_match(ctx: Context, obs: Observation, names: Sequence[str]) -> bool | None:
    """Whether upstream's replay under ``names`` answers the subject's answer: False
    (as is), True (with upstream's misordering put right, where that entry is in
    force), None (it does not)."""
    if _same_tiers(obs.reference, _replayed(ctx, obs, names)):
        return False
    ordering = "like_reference_unk_byte_fallback_ordering"
    if ctx.in_force is not None and ordering not in ctx.in_force:
        return None
    if obs.operation == "encode" and _same_tiers(
            obs.reference, _replayed(ctx, obs, names, fixed=True)):
        return True
    return None


def _replayed(ctx: Context, obs: Observation, names: Sequence[str], *, fixed: bool = False
              ) -> Outcome | None:
    """``_as_subject_reads`` with the upstream bugs put right only where their entries
    are in force."""
    empty_strip = ctx.in_force is None or "strip_panic_on_nothing" in ctx.in_force
    return _as_subject_reads(ctx.document, names, obs, fixed=fixed, empty_strip=empty_strip)


def _reads(name: str) -> Predicate:
    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        # Only readings whose entries are in force compose (a deleted entry explains
        # nothing, not even as another reading's helper).
        applicable = [other for other in _applicable(ctx.document, obs)
                      if ctx.in_force is None or f"reads_{other}" in ctx.in_force]
        if name not in applicable:
            return NONE
        # Section by section only where the whole-text replay does not explain it.
        used = [other for other in applicable if other != _SECTIONS]
        fixed = _replays_match(ctx, obs, used)
        if fixed is None and _SECTIONS in applicable:
            used = applicable
            fixed = _replays_match(ctx, obs, used)
        if fixed is None or name not in used:
            return NONE
        if fixed and _same_tiers(obs.reference, _replayed(ctx, obs, [], fixed=True)):
            return NONE  # upstream's misordering is all there is: not a reading's
        # (Without the fix, the replay with no reading is upstream's own answer, which
        # differs; re-running it would only compare against a fresh draw where upstream
        # is random, i.e. under dropout.)
        others = [other for other in used if other != name]
        if not _same_tiers(obs.reference, _replayed(ctx, obs, others, fixed=fixed)):
            return ALL  # this reading is needed
        # Not needed: credited only where no reading is (then the first one is).
        for other in others:
            rest = [o for o in used if o != other]
            if not _same_tiers(obs.reference, _replayed(ctx, obs, rest, fixed=fixed)):
                return NONE
        return _yes(used[0] == name)

    recognise.__name__ = f"reads_{name}"
    recognise.__doc__ = (f"The subject's reading {name!r}: upstream replaying the "
                         "observation on the document as the subject reads it answers "
                         "exactly the subject's answer, and this reading is needed for it.")
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


def strip_panic_on_nothing(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream's Strip decoder panics on an empty token list (every id skipped as
    special or naming no token, or none given); the subject decodes it to "". Checked: a
    Strip step in the decoder, the panic's message, and nothing left to decode."""
    obs = div.observation
    upstream = obs.upstream
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    if not (isinstance(upstream, Crashed) and upstream.kind == "panic"
            and "the len is 0" in upstream.message):
        return NONE
    if not _has_strip_step(ctx.document):
        return NONE
    specials = {e.get("id") for e in ctx.document.get("added_tokens") or ()
                if isinstance(e, dict) and e.get("special") is True}
    known = _known_ids(ctx)
    skip = bool(obs.option("skip_special_tokens"))
    nothing = all((i in specials and skip) or i not in known for i in obs.input)
    return _yes(isinstance(obs.reference, Decoded) and obs.reference.text == "" and nothing)


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


def _with_input(obs: Observation, ids: tuple[int, ...]) -> Observation:
    return Observation(obs.track, obs.operation, ids, obs.options, obs.reference,
                       obs.upstream)


# -- the unk token -----------------------------------------------------------------------
_UNK_MISSING: Final = re.compile(r"Unk token `(.*)` not found in the vocabulary", re.S)


def missing_unk_gives_null_id(ctx: Context, div: Divergence) -> frozenset[int]:
    """An unk_token absent from the model's vocabulary: upstream refuses the encode that
    needs it; the subject emits the unk token anyway, with a null id (or the id of an
    added token of that content). Checked: every token the subject could not give a
    vocabulary id is the unk token."""
    obs = div.observation
    subject, upstream = obs.reference, obs.upstream
    if obs.operation != "encode" or not isinstance(upstream, Refused):
        return NONE
    named = _UNK_MISSING.fullmatch(upstream.message)
    unk = ctx.unk_token
    if named is None or unk is None or named.group(1) != unk or unk in ctx.vocab:
        return NONE
    if not isinstance(subject, Encoded):
        return NONE
    added = {e.get("id") for e in ctx.document.get("added_tokens") or ()
             if isinstance(e, dict) and e.get("content") == unk}
    unk_positions = [i for i, token in enumerate(subject.tokens)
                     if token is not None and token.replace(unk, "") == "" and token]
    ids_ok = all(subject.ids[i] is None or subject.ids[i] in added for i in unk_positions)
    nulls = [i for i, token_id in enumerate(subject.ids) if token_id is None]
    return _yes(bool(unk_positions) and ids_ok and set(nulls) <= set(unk_positions))


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
    """A merge naming a token that is not in the vocabulary (a side, or the result):
    upstream refuses the file, the subject loads it. Checked: the token upstream names is
    a side or the result (the right side without the continuing-subword prefix) of one of
    the file's merges, and is absent from the vocabulary."""
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
    tokens: set[str] = set()
    for left, right in _merge_pairs(ctx.model.get("merges")):
        cut = right[len(prefix):] if prefix else right
        tokens |= {left, right, left + cut}
    return _yes(named.group(1) in tokens)


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


_MALFORMED_POST_PROCESSOR: Final = re.compile(r"untagged enum PostProcessorWrapper")


def post_processor_unchecked(ctx: Context, div: Divergence) -> frozenset[int]:
    """A post-processor upstream cannot read (it names no variant it knows): upstream
    refuses the file, the subject loads it. Checked: our lenient reference (which keeps
    only the rules both modes share) refuses the same file at the post-processor."""
    obs = div.observation
    upstream = obs.upstream
    if obs.operation != "load" or not isinstance(obs.reference, Loaded):
        return NONE
    if not (isinstance(upstream, Refused)
            and _MALFORMED_POST_PROCESSOR.search(upstream.message)):
        return NONE
    ours = ctx.lenient
    return _yes(isinstance(ours, Refused) and ours.path.startswith("$.post_processor"))


_EMPTY_PATTERN: Final = re.compile(r"pattern\.len\(\) must be >= 1")


def empty_normalized_added_token_accepted(ctx: Context, div: Divergence) -> frozenset[int]:
    """A normalized added token whose content the normalizer turns into the empty string:
    upstream refuses the file (its matcher gets an empty pattern), the subject loads it.
    Checked: our lenient reference refuses the same file at that added token's content,
    naming the empty normalized form."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.reference, Loaded):
        return NONE
    if not (isinstance(obs.upstream, Refused) and _EMPTY_PATTERN.search(obs.upstream.message)):
        return NONE
    ours = ctx.lenient
    return _yes(isinstance(ours, Refused) and ours.path.startswith("$.added_tokens[")
                and "normalized to the empty" in ours.message)


_INVALID_REGEX: Final = re.compile(r"^SyntaxError: Invalid regular expression: /(.*)/[a-z]*: ",
                                   re.S)


def _regex_patterns(value: Any) -> list[str]:
    """Every ``{"Regex": ...}`` pattern anywhere in the document."""
    if isinstance(value, dict):
        found = [value["Regex"]] if isinstance(value.get("Regex"), str) else []
        return found + [p for v in value.values() for p in _regex_patterns(v)]
    if isinstance(value, list):
        return [p for v in value for p in _regex_patterns(v)]
    return []


_ONIGURUMA_ERROR: Final = re.compile(r"Oniguruma error")
_DUPLICATE_PATTERN: Final = re.compile(r"DuplicatePatternError")


def _loaded_where_upstream_refuses(obs: Observation, error: re.Pattern[str]) -> bool:
    """A load the subject made where upstream refused the file with ``error``."""
    return (obs.operation == "load" and isinstance(obs.reference, Loaded)
            and isinstance(obs.upstream, Refused) and error.search(obs.upstream.message)
            is not None)


def oniguruma_refusal_unchecked(ctx: Context, div: Divergence) -> frozenset[int]:
    """A regular expression Oniguruma refuses (a repeat count above its limit, say):
    upstream refuses the file, the subject's JavaScript RegExp takes it and loads the
    file. Checked: our lenient reference refuses the same file at a ``Regex`` pattern."""
    if not _loaded_where_upstream_refuses(div.observation, _ONIGURUMA_ERROR):
        return NONE
    ours = ctx.lenient
    return _yes(isinstance(ours, Refused) and ours.path.endswith(".Regex"))


def duplicate_normalized_added_tokens_accepted(ctx: Context, div: Divergence
                                               ) -> frozenset[int]:
    """Two normalized added tokens whose normalized forms coincide: upstream refuses the
    file (its matcher holds one pattern twice), the subject loads it. Checked by replay:
    upstream's own normalizer (the file without its added tokens) gives two of the
    normalized contents one form."""
    if not _loaded_where_upstream_refuses(div.observation, _DUPLICATE_PATTERN):
        return NONE
    handle = _upstream_handle({**ctx.document, "added_tokens": []})
    if isinstance(handle, Refused | Crashed):
        return NONE
    contents = [entry.get("content") for entry in ctx.document.get("added_tokens") or ()
                if isinstance(entry, dict) and entry.get("normalized") is True]
    forms = [_normalized(handle, content) for content in set(contents)
             if isinstance(content, str)]
    known = [form for form in forms if form is not None]
    return _yes(len(known) != len(set(known)))


def regex_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A regular expression Oniguruma (upstream) compiles and the subject's translation to
    JavaScript refuses: the subject refuses the file with a SyntaxError quoting a pattern
    of the document; upstream loads it."""
    obs = div.observation
    subject = obs.reference
    if obs.operation != "load" or not isinstance(obs.upstream, Loaded):
        return NONE
    if not isinstance(subject, Refused):
        return NONE
    quoted = _INVALID_REGEX.match(subject.message)
    return _yes(quoted is not None and quoted.group(1) in _regex_patterns(ctx.document))


# -- where the subject does what our reference does -----------------------------------------
def _like_reference(class_id: str, predicate: str) -> Predicate:
    """The subject answers exactly what our reference answers (strict, or lenient where
    strict refuses the file), and our registry's class ``class_id`` explains our
    reference's divergence from upstream: an upstream bug neither reproduces."""
    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        track, ours = _reference_replay(ctx, obs)
        if ours is None or not _same_tiers(obs.reference, ours):
            return NONE
        mirrored = Observation(track, obs.operation, obs.input, obs.options, ours,
                               obs.upstream)
        tier = div.tier if div.tier in ("encode", "decode", "load") else _first_tier(
            ours, obs.upstream)
        if tier is None:
            return NONE
        found = PREDICATES[predicate](ctx, Divergence(tier, "", mirrored))
        return _yes(bool(found))

    recognise.__name__ = f"like_reference_{predicate}"
    recognise.__doc__ = (f"The subject agrees with our reference where our class "
                         f"{class_id} explains the reference's divergence from upstream.")
    return recognise


def _reference_replay(ctx: Context, obs: Observation) -> tuple[Track, Outcome | None]:
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


def _first_tier(ours: Outcome, upstream: Outcome) -> str | None:
    if isinstance(ours, Encoded) and isinstance(upstream, Encoded):
        for tier in ("ids", "tokens", "spans"):
            if getattr(ours, tier) != getattr(upstream, tier):
                return tier
    return None


RECOGNISERS: dict[str, Predicate] = {function.__name__: function for function in (
    *(_reads(name) for name in READINGS),
    _like_reference("unk-byte-fallback-ordering", "unk_byte_fallback_ordering"),
    _like_reference("strip-decoder-panic", "strip_decoder_panic"),
    empty_ids_refused,
    strip_panic_on_nothing,
    unknown_id_without_unk_breaks_decoder,
    missing_unk_gives_null_id,
    merge_result_unchecked,
    post_processor_unchecked,
    empty_normalized_added_token_accepted,
    regex_refused,
    oniguruma_refusal_unchecked,
    duplicate_normalized_added_tokens_accepted,
    upstream_load_panic,
)}
