"""The ways the subject reads a document differently, each as a change of the document
for the replay (None where it does not apply) and, where needed, a rewrite of the
observation's input or of upstream's replayed answer. ``readings.READINGS`` names them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, Final, cast

from ....core.observation import Observation
from ....core.outcome import Crashed, Decoded, Encoded, Outcome, Refused
from .javascript import JS_WHITESPACE, js_key_order
from .replay import (
    FRESH_ID,
    GHOST_ID,
    MARKER,
    document_ids,
    merge_sides,
    metaspace_first_as,
    model_of,
    normalized_by,
    picked,
    replay_on,
    upstream_handle,
    with_input,
    with_model,
)

# -- how the subject reads a document -------------------------------------------------------
# Each reading rewrites the document as the subject reads it (a field it ignores set to
# its neutral value; None where the field is not in use), and may rewrite upstream's
# answer (what the subject does after the model). A divergence is recognised as reading R
# when upstream, replaying it on the document read every applicable way, answers exactly
# what the subject answered, and R is needed for that (without R the replay does not
# match) or is the first applicable one.
Change = Callable[[dict[str, Any]], dict[str, Any] | None]


def without_dropout(document: dict[str, Any]) -> dict[str, Any] | None:
    dropout = model_of(document).get("dropout")
    if not isinstance(dropout, int | float) or isinstance(dropout, bool) or dropout <= 0:
        return None
    return with_model(document, dropout=None)


def without_prefix(document: dict[str, Any]) -> dict[str, Any] | None:
    """No continuing-subword prefix; every merge kept as the subject reads it, literally:
    its result is the plain concatenation of its sides. A side or result the vocabulary
    lacks (upstream cuts the prefix's length off every right side, so such a file loads
    only with the prefix) is added as a ghost token with a fresh id, and
    ``ghosts_fallen_back`` turns each ghost the replay gives into what the subject emits
    for a merged token it cannot find: its byte pieces, the unk token, or nothing."""
    model = model_of(document)
    prefix = model.get("continuing_subword_prefix")
    vocab = model.get("vocab")
    if not isinstance(prefix, str) or not prefix or not isinstance(vocab, dict):
        return None
    ghosts: dict[str, int] = {}
    for merge in model.get("merges") or ():
        sides = merge_sides(merge)
        for token in (*sides, "".join(sides)):
            if token and token not in vocab and token not in ghosts:
                ghosts[token] = GHOST_ID - len(ghosts)
    return with_model(document, continuing_subword_prefix=None, vocab={**vocab, **ghosts})


def ghosts_fallen_back(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                        ) -> Outcome | None:
    """Each ghost token (``without_prefix``) of a replayed answer as the subject's BPE
    model emits a merged token that is not in its vocabulary: its UTF-8 bytes as byte
    pieces where byte_fallback is set and every piece exists, else the unk token (its id
    that of an added token or vocabulary entry of that content, else null), else
    nothing."""
    changed = without_prefix(document)
    if not isinstance(outcome, Encoded) or changed is None:
        return outcome
    model = model_of(document)
    ghosts = set(model_of(changed)["vocab"]) - set(model.get("vocab") or {})
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
        if token in ghosts and GHOST_ID - len(ghosts) < token_id <= GHOST_ID:
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


def without_metaspace_split(document: dict[str, Any]) -> dict[str, Any] | None:
    changed = _metaspace_unsplit(document.get("pre_tokenizer"))
    if changed == document.get("pre_tokenizer"):
        return None
    return {**document, "pre_tokenizer": changed}


def without_single_word(document: dict[str, Any]) -> dict[str, Any] | None:
    added = document.get("added_tokens")
    if not isinstance(added, list) or not any(
            isinstance(e, dict) and e.get("single_word") is True for e in added):
        return None
    return {**document, "added_tokens": [
        {**e, "single_word": False} if isinstance(e, dict) else e for e in added]}


def marking_dropped(document: dict[str, Any]) -> dict[str, Any] | None:
    """Where no unk token is set, a character with no piece (and no byte pieces) is
    dropped by upstream before merging, by the subject after: the replay gives such a
    character a marker unk token (so it blocks merges, as in the subject), and the
    marker's tokens are removed from the replayed answer."""
    if model_of(document).get("unk_token") is not None:
        return None
    vocab = model_of(document).get("vocab")
    if not isinstance(vocab, dict):
        return None
    return with_model(document, unk_token=MARKER, fuse_unk=False,
                       vocab={**vocab, MARKER: FRESH_ID})


def byte_merges_dropped(document: dict[str, Any]) -> dict[str, Any] | None:
    """Merges a side of which is made of byte pieces left out: the subject falls back to
    bytes after merging, so byte pieces never merge."""
    model = model_of(document)
    if model.get("byte_fallback") is not True:
        return None
    merges = model.get("merges") or []
    kept = [m for m in merges
            if not any(_BYTE_RUN.fullmatch(side) for side in merge_sides(m))]
    return with_model(document, merges=kept) if len(kept) != len(merges) else None


_BYTE_RUN: Final = re.compile(r"(<0x[0-9A-F]{2}>)+")


def fusing(document: dict[str, Any]) -> dict[str, Any] | None:
    return document if model_of(document).get("fuse_unk") is True else None


def fuse_unk_runs(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                   ) -> Outcome | None:
    """Consecutive unk tokens the model gave for one input fused into the first, across
    word boundaries (upstream fuses only inside a word); an added token matched in the
    text (its span holds its content) is a barrier, as it splits the subject's sections."""
    unk = model_of(document).get("unk_token")
    vocab = model_of(document).get("vocab")
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
    return picked(outcome, keep)


def normalized_added_plain(document: dict[str, Any]) -> dict[str, Any] | None:
    added = document.get("added_tokens")
    if document.get("normalizer") is None or not isinstance(added, list) or not any(
            isinstance(e, dict) and e.get("normalized") is True for e in added):
        return None
    return {**document, "added_tokens": [
        {**e, "normalized": False} if isinstance(e, dict) else e for e in added]}


def stripping(document: dict[str, Any]) -> dict[str, Any] | None:
    added = document.get("added_tokens")
    if not isinstance(added, list) or not any(
            isinstance(e, dict) and (e.get("lstrip") is True or e.get("rstrip") is True)
            for e in added):
        return None
    return document


def content_as_token(document: dict[str, Any], outcome: Outcome | None) -> Outcome | None:
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


def unknown_ids(document: dict[str, Any]) -> dict[str, Any] | None:
    """An unknown id decodes as the unk token's string: the replay's document has the
    unk token (a fresh id where the vocabulary lacks it)."""
    unk = model_of(document).get("unk_token")
    vocab = model_of(document).get("vocab")
    if not isinstance(unk, str) or not isinstance(vocab, dict):
        return None
    if unk in vocab or _added_id(document, unk) is not None:
        return document
    return with_model(document, vocab={**vocab, unk: FRESH_ID})


def _added_id(document: dict[str, Any], content: str) -> int | None:
    for entry in document.get("added_tokens") or ():
        if isinstance(entry, dict) and entry.get("content") == content and isinstance(
                entry.get("id"), int):
            return int(entry["id"])
    return None


def unknown_as_unk(document: dict[str, Any], obs: Observation) -> Observation:
    """The ids with each unknown one (of the original document) replaced by the unk's."""
    unk = model_of(document).get("unk_token")
    if not isinstance(obs.input, tuple) or not isinstance(unk, str):
        return obs
    known = document_ids(document)
    unk_id = model_of(document).get("vocab", {}).get(unk)
    if unk_id is None:
        unk_id = _added_id(document, unk)
    if unk_id is None:
        unk_id = FRESH_ID
    return with_input(obs, tuple(i if i in known else unk_id for i in obs.input))


def spacing_suffix(document: dict[str, Any]) -> dict[str, Any] | None:
    suffix = model_of(document).get("end_of_word_suffix")
    if not isinstance(suffix, str) or not suffix or document.get("decoder") is None:
        return None
    return document


def suffix_spaced(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                   ) -> Outcome | None:
    """After the decoder, every end-of-word suffix becomes a space, and the text is
    trimmed (JavaScript's trim) when specials are skipped."""
    if not isinstance(outcome, Decoded):
        return outcome
    text = outcome.text.replace(str(model_of(document)["end_of_word_suffix"]), " ")
    if obs.option("skip_special_tokens"):
        text = text.strip(JS_WHITESPACE)
    return Decoded(text)


def metaspace_as_replace(document: dict[str, Any]) -> dict[str, Any] | None:
    """A Metaspace decoder (alone or as a step of a Sequence) read as: every replacement
    character a space (then one leading space removed, ``first_space_removed``)."""
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


def first_space_removed(document: dict[str, Any], obs: Observation,
                         outcome: Outcome | None) -> Outcome | None:
    if isinstance(outcome, Decoded) and outcome.text.startswith(" "):
        return Decoded(outcome.text[1:])
    return outcome


def picked_answer(rewrite: Callable[[dict[str, Any], Outcome | None], Outcome | None]
                   ) -> Answer:
    return lambda document, obs, outcome: rewrite(document, outcome)


def byte_fallback_kept(document: dict[str, Any]) -> dict[str, Any] | None:
    """Where the decoder has a ByteFallback step with no Fuse before it, the subject
    decodes each run of byte pieces itself (``byte_runs_as_text``)."""
    decoder = document.get("decoder")
    steps = decoder.get("decoders") if isinstance(decoder, dict) else None
    types = ([d.get("type") if isinstance(d, dict) else None for d in steps]
             if isinstance(steps, list) else [decoder.get("type")
                                              if isinstance(decoder, dict) else None])
    if "ByteFallback" not in types or "Fuse" in types[:types.index("ByteFallback")]:
        return None
    return document


def first_scheme(document: dict[str, Any]) -> dict[str, Any] | None:
    changed = metaspace_first_as(document.get("pre_tokenizer"), "always")
    return document if changed != document.get("pre_tokenizer") else None


def _plain_contents(document: dict[str, Any]) -> list[str]:
    """The contents of the added tokens matched on the raw text, longest first."""
    return sorted({e["content"] for e in document.get("added_tokens") or ()
                   if isinstance(e, dict) and e.get("normalized") is not True
                   and isinstance(e.get("content"), str) and e["content"]},
                  key=len, reverse=True)


def first_scheme_as_subject(document: dict[str, Any], obs: Observation) -> str | None:
    """How the subject's "first" scheme acts on this input, as a scheme upstream has:
    it prepends to every piece of the text's first section (the text before any added
    token matched before normalization), normalized added tokens cutting it or not,
    and to no other. So "never" where a text starts with such a token, "always" where
    nothing but the first section has text left after normalization; None (not
    expressible) otherwise, or where the two texts of a pair disagree."""
    plain = _plain_contents(document)
    handle = upstream_handle(document)
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
        later = [normalized_by(handle, piece) for piece in sections[1:] if piece]
        if any(piece != "" for piece in later):  # text left, or not normalizable
            return None
        schemes.add("always")
    return schemes.pop() if len(schemes) == 1 else None


def first_sections(document: dict[str, Any], obs: Observation) -> int | None:
    """Where ``first_scheme_as_subject`` cannot say (a single text whose first section
    is followed by more text after an added token matched before normalization): the
    end of that first section."""
    if obs.operation != "encode" or obs.option("pair") is not None:
        return None
    if not isinstance(obs.input, str) or first_scheme_as_subject(document, obs) is not None:
        return None
    if first_scheme(document) is None:
        return None
    plain = _plain_contents(document)
    found = re.search("|".join(re.escape(c) for c in plain), obs.input) if plain else None
    return found.start() if found is not None and found.start() > 0 else None


def first_spliced(document: dict[str, Any], obs: Observation) -> Outcome | None:
    """The subject's "first" scheme on a text of several sections, from two replays:
    the tokens of the first section as upstream gives them with "always", the rest as
    with "never" (upstream encodes the sections between such added tokens apart, so
    each replay's tokens of a section are that section's), inside the template tokens
    (special, with an empty span) of the first."""
    cut = first_sections(document, obs)
    if cut is None:
        return None
    pre = document.get("pre_tokenizer")
    always = replay_on({**document, "pre_tokenizer": metaspace_first_as(pre, "always")}, obs)
    never = replay_on({**document, "pre_tokenizer": metaspace_first_as(pre, "never")}, obs)
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


def first_scheme_replaced(document: dict[str, Any], obs: Observation
                           ) -> tuple[dict[str, Any], Observation]:
    scheme = first_scheme_as_subject(document, obs)
    if scheme is None:
        return document, obs
    changed = metaspace_first_as(document.get("pre_tokenizer"), scheme)
    return {**document, "pre_tokenizer": changed}, obs


def last_string_per_id(document: dict[str, Any]) -> dict[str, Any] | None:
    """Where several vocabulary strings share an id, the subject decodes the id as the
    last of them in the document it receives (canonical JSON: keys sorted, then ordered
    as a JavaScript object orders them); upstream as whichever its hash map yields,
    which varies from process to process. The replay's vocabulary gives the others
    fresh ids."""
    vocab = model_of(document).get("vocab")
    if not isinstance(vocab, dict):
        return None
    last: dict[Any, str] = {}
    for token in js_key_order(dict.fromkeys(sorted(vocab))):
        last[vocab[token]] = token
    if len(last) == len(vocab):
        return None
    fresh = iter(range(GHOST_ID // 2, GHOST_ID // 2 - len(vocab), -1))
    return with_model(document, vocab={
        token: token_id if last[token_id] == token else next(fresh)
        for token, token_id in vocab.items()})


def unknown_ids_empty(document: dict[str, Any]) -> dict[str, Any] | None:
    """Without an unk token or decoder, an unknown id is a null token that joins as an
    empty piece: the replay gives it an empty-string token."""
    vocab = model_of(document).get("vocab")
    if model_of(document).get("unk_token") is not None or document.get("decoder") is not None:
        return None
    if not isinstance(vocab, dict) or "" in vocab:
        return None
    return with_model(document, vocab={**vocab, "": FRESH_ID})


def unknown_as_empty(document: dict[str, Any], obs: Observation) -> Observation:
    if not isinstance(obs.input, tuple):
        return obs
    known = document_ids(document)
    return with_input(obs, tuple(i if i in known else FRESH_ID for i in obs.input))


def every_document(document: dict[str, Any]) -> dict[str, Any] | None:
    return document


def empty_pair(document: dict[str, Any], obs: Observation) -> bool:
    return bool(obs.option("pair") == "")


def pair_dropped(document: dict[str, Any], obs: Observation) -> Observation:
    return Observation(obs.track, obs.operation, obs.input,
                       tuple((k, v) for k, v in obs.options if k != "pair"), obs.subject,
                       obs.upstream)


# -- how the subject turns token strings into ids ---------------------------------------
def added_by_string(document: dict[str, Any]) -> dict[str, Any] | None:
    """Documents with added tokens: the subject looks every token string up in its map
    of added tokens (raw contents and normalized forms) before the model vocabulary."""
    return document if document.get("added_tokens") else None


def ids_by_string(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                   ) -> Outcome | None:
    """Each token whose string is an added token's content, or the normalized form of a
    normalized one, gets that token's id (later entries win, as in the subject's map)."""
    if not isinstance(outcome, Encoded):
        return outcome
    handle = upstream_handle(document)
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
            form = normalized_by(handle, entry["content"])
            if form is None:
                return None
            by_string[form] = entry["id"]
    ids = tuple(by_string.get(token, token_id)
                for token, token_id in zip(outcome.tokens, outcome.ids, strict=True))
    return dataclasses.replace(outcome, ids=ids)


def _shared_ids(document: dict[str, Any]) -> dict[str, int]:
    """The vocabulary strings that share an id with an earlier string, each given a
    fresh id past every id of the document (in vocabulary order)."""
    vocab = model_of(document).get("vocab")
    if not isinstance(vocab, dict):
        return {}
    seen: set[int] = set()
    fresh = max(document_ids(document) | {-1}) + 1
    moved: dict[str, int] = {}
    for string, token_id in vocab.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool):
            continue
        if token_id in seen:
            moved[string] = fresh
            fresh += 1
        seen.add(token_id)
    return moved


def distinct_ids(document: dict[str, Any]) -> dict[str, Any] | None:
    """Every vocabulary string with an id of its own (``_shared_ids``)."""
    moved = _shared_ids(document)
    if not moved:
        return None
    vocab = {string: moved.get(string, token_id)
             for string, token_id in model_of(document)["vocab"].items()}
    return with_model(document, vocab=vocab)


def shared_ids_folded(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                       ) -> Outcome | None:
    """The fresh ids of ``distinct_ids`` folded back onto the id their string shares."""
    if not isinstance(outcome, Encoded):
        return outcome
    vocab = model_of(document)["vocab"]
    back = {fresh: vocab[string] for string, fresh in _shared_ids(document).items()}
    return dataclasses.replace(outcome, ids=tuple(back.get(i, i) for i in outcome.ids))
