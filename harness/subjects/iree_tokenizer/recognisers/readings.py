"""iree-tokenizer's encodes, each recognised by upstream replayed on the document as the
library reads it (Prepend once, cuts before added-token characters, dropout ignored,
Metaspace first) or by the answer's own structure checked against the document (tokens no
merge builds, unk per byte)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Encoded, Outcome
from ....judge.compare import Divergence
from ....judge.predicates import NONE, Context
from ...transformers_js.recognisers.replay import (
    MARKER,
    document_ids,
    metaspace_first_as,
    replay_on,
    same_tiers,
    unmarked,
    yes,
)
from .merge_order import reordered_as


def unk_per_byte(ctx: Context, div: Divergence) -> frozenset[int]:
    """A character missing from a byte-fallback vocabulary that lacks a ``<0x..>`` token
    for one of its bytes: upstream gives one unk token for the character, the library
    falls back byte by byte, each byte its ``<0x..>`` token where the vocabulary has one
    and the unk token where not ("▁" with no byte tokens is three unk tokens; "Ñ" with
    "<0x91>" but no "<0xC3>" is unk, ``<0x91>``). Checked: upstream replayed on the
    document (as the library reads it: ``library_reading``) with every missing byte
    token added under a fresh id, each such token then read as the unk token (a run of
    them as one with ``fuse_unk``), answers exactly the subject's ids and tokens."""
    obs = div.observation
    subject = obs.subject
    unk = ctx.doc.unk_token
    vocab = ctx.doc.model.get("vocab")
    unk_id = ctx.doc.vocab.get(unk) if unk is not None else None
    if not (obs.operation == "encode" and ctx.doc.byte_fallback and isinstance(subject, Encoded)
            and isinstance(vocab, dict) and isinstance(unk_id, int)):
        return NONE
    missing = [f"<0x{b:02X}>" for b in range(256) if f"<0x{b:02X}>" not in vocab]
    if not missing:
        return NONE
    reading = library_reading(ctx, obs)
    read, document = (obs, ctx.doc.raw) if reading is None else reading
    fresh = max(document_ids(document), default=0) + 1
    added = {name: fresh + k for k, name in enumerate(missing)}
    model = {**document["model"], "vocab": {**vocab, **added}}
    replayed = replay_on({**document, "model": model}, read)
    if not isinstance(replayed, Encoded):
        return NONE
    ids: list[int] = []
    tokens: list[str] = []
    fuse = ctx.doc.model.get("fuse_unk") is True
    for number, token in zip(replayed.ids, replayed.tokens, strict=True):
        if token not in added:
            ids.append(number)
            tokens.append(token)
        elif not (fuse and tokens and tokens[-1] == unk and ids[-1] == unk_id):
            ids.append(unk_id)
            tokens.append(str(unk))
    upstream = obs.upstream
    return yes(isinstance(upstream, Encoded) and tuple(ids) != upstream.ids
               and tuple(ids) == subject.ids and tuple(tokens) == subject.tokens)
_BYTE_TOKEN: Final = re.compile(r"^<0x[0-9A-F]{2}>$")
#: A token the ByteFallback decoder reads as a byte (its hexadecimal digits in either case).
_DECODED_BYTE: Final = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")


def unreachable_token_produced(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE vocabulary token is produced though no merge builds it: the library's BPE
    runs on UTF-8 bytes and joins the bytes of a vocabulary entry by merges of its own
    wherever a byte of it is no token on its own: a character outside ASCII ("añ" is one
    token), or a character the vocabulary lacks ("qq" with no "q", "<s>" in a
    byte-fallback vocabulary without "<"); "ab" with "a" and "b" stays two. Upstream's
    BPE only ever joins symbols through the file's merges. Checked (against upstream
    replayed on the document as the library reads it where that differs:
    ``library_reading``): both sides cover the same bytes (upstream's tokens joined, a
    byte-fallback token as its byte, an unk token as the library falls back on the text
    it spans, ``unk_per_byte``, a character no token of upstream spans as one the
    library may cover or drop too; the subject's, a byte-fallback token as its byte or
    as its own text: "<0x41>" in the text is such a token too), every subject token is a
    vocabulary entry or an added token, and one of the subject's tokens standing as its
    own text is longer than one character, is the result of no merge, and holds a
    non-ASCII character or one that is not a vocabulary token."""
    obs = div.observation
    subject = obs.subject
    upstream: Outcome | None = obs.upstream
    read, upstream, fallen = with_every_byte_token(ctx, obs)
    if not (obs.operation == "encode" and isinstance(subject, Encoded)
            and isinstance(upstream, Encoded) and ctx.doc.model.get("type") == "BPE"
            and subject.tokens and all(isinstance(t, str) for t in subject.tokens)):
        return NONE
    built = ctx.doc.merge_results
    added = ctx.doc.memo("added contents", lambda: frozenset(
        entry.get("content") for entry in ctx.doc.added_tokens))
    vocab = ctx.doc.vocab

    def unreachable(token: str) -> bool:
        return token not in added and len(token) > 1 and token not in built and (
            not token.isascii() or any(c not in vocab for c in token))

    units = _units(ctx, upstream, read.input, fallen)
    return yes(all(t in vocab or t in added for t in subject.tokens) and _covers_with(
        subject.tokens, units, ctx.doc.unk_token, ctx.doc.model.get("fuse_unk") is True,
        unreachable))


def with_every_byte_token(ctx: Context, obs: Observation
                          ) -> tuple[Observation, Outcome | None, frozenset[str]]:
    """Upstream's answer to ``obs`` as the library reads it (``library_reading``); with
    byte fallback and byte tokens missing, replayed with them added under fresh ids
    (then no character is an unk token: each byte the library falls back to the unk
    token for, ``unk_per_byte``, is a byte token of those, whose names come back too).
    Without, upstream's own unk ordering bug kept out (``upstream_as_read``)."""
    vocab = ctx.doc.model.get("vocab")
    missing = [f"<0x{b:02X}>" for b in range(256)
               if isinstance(vocab, dict) and f"<0x{b:02X}>" not in vocab]
    if not (ctx.doc.byte_fallback and missing and isinstance(vocab, dict)):
        read, upstream = upstream_as_read(ctx, obs)
        return read, upstream, frozenset()
    reading = library_reading(ctx, obs)
    read, document = (obs, ctx.doc.raw) if reading is None else reading
    fresh = max(document_ids(document), default=0) + 1
    added = {name: fresh + k for k, name in enumerate(missing)}
    model = {**document["model"], "vocab": {**vocab, **added}}
    return read, replay_on({**document, "model": model}, read), frozenset(added)


def _units(ctx: Context, upstream: Encoded, text: Any, fallen: frozenset[str] = frozenset()
           ) -> tuple[tuple[int, bool, bool], ...]:
    """The bytes upstream's tokens cover, a byte-fallback token as its byte, an unk
    token (with byte_fallback on, where upstream has its span) as the bytes of the text
    it spans; each with whether upstream dropped it (a character of the text no token
    of upstream spans, which the library may cover or drop too) and whether the library
    falls back to the unk token for it (a byte of an unk's text with no ``<0x..>``
    token: ``unk_per_byte``; or a byte token of ``fallen``, one the document lacks,
    replayed by ``with_every_byte_token``)."""
    unk = ctx.doc.unk_token
    spans = upstream.spans if len(upstream.spans) == len(upstream.tokens) \
        and isinstance(text, str) else None
    units: list[tuple[int, bool, bool]] = []
    cursor = 0

    def dropped(upto: int) -> None:
        if isinstance(text, str) and upto > cursor:
            units.extend((b, True, False) for b in text[cursor:upto].encode(
                "utf-8", "surrogatepass"))

    for index, token in enumerate(upstream.tokens):
        if spans is not None:
            start, end = spans[index]
            dropped(start)
            cursor = max(cursor, end)
        if token == unk and ctx.doc.byte_fallback and spans is not None \
                and isinstance(text, str):
            start, end = spans[index]
            units.extend((b, False, f"<0x{b:02X}>" not in ctx.doc.vocab)
                         for b in text[start:end].encode("utf-8", "surrogatepass"))
        elif _BYTE_TOKEN.match(token):
            units.append((int(token[3:5], 16), False, token in fallen))
        else:
            units.extend((b, False, False) for b in token.encode("utf-8", "surrogatepass"))
    if spans is not None and isinstance(text, str):
        dropped(len(text))
    return tuple(units)


def _covers_with(tokens: tuple[str, ...], target: tuple[tuple[int, bool, bool], ...],
                 unk: str | None, fuse: bool, unreachable: Callable[[str], bool]) -> bool:
    """``tokens`` joined cover exactly ``target`` (``_units``; a unit upstream dropped
    may be left out), each byte-fallback token (``<0x41>``) as its byte or as its own
    text (the library also produces one from its text, like any vocabulary entry), the
    unk token as its text or one byte the library falls back to it for (a run of them
    with ``fuse_unk``), and at least one token that ``unreachable`` names stands as its
    own text."""
    values = tuple(value for value, _, _ in target)

    def closed(states: set[tuple[int, bool]]) -> set[tuple[int, bool]]:
        grown = set(states)
        for start, found in states:
            at = start
            while at < len(target) and target[at][1]:
                at += 1
                grown.add((at, found))
        return grown

    states = closed({(0, False)})  # (units covered, an unreachable token used as its text)
    for token in tokens:
        text = tuple(token.encode("utf-8", "surrogatepass"))
        following = set()
        for at, found in states:
            if values[at:at + len(text)] == text:
                following.add((at + len(text), found or unreachable(token)))
            if _BYTE_TOKEN.match(token) and at < len(target) \
                    and values[at] == int(token[3:5], 16):
                following.add((at + 1, found))
            end = at
            while token == unk and end < len(target) and target[end][2]:
                end += 1
                following.add((end, found))
                if not fuse:
                    break
        states = closed(following)
    return (len(target), True) in states


def without_prepend(value: Any) -> tuple[Any, str]:
    """The normalizer ``value`` without its Prepend steps (nested Sequences too), and
    what they prepended, in order."""
    if not isinstance(value, dict):
        return value, ""
    if value.get("type") == "Prepend" and isinstance(value.get("prepend"), str):
        return None, value["prepend"]
    if value.get("type") == "Sequence" and isinstance(value.get("normalizers"), list):
        kept, prepended = [], ""
        for step in value["normalizers"]:
            rest, text = without_prepend(step)
            prepended = text + prepended  # a later Prepend goes in front
            if rest is not None:
                kept.append(rest)
        return {**value, "normalizers": kept}, prepended
    return value, ""


class Contents:
    """The added tokens' contents, longest first, by their first character (what a scan
    of a text tries at each position: Gemma 3 has 6,415)."""

    def __init__(self, contents: list[str]) -> None:
        self.by_first: dict[str, list[str]] = {}
        for content in sorted(contents, key=lambda c: -len(c)):
            self.by_first.setdefault(content[0], []).append(content)

    def __bool__(self) -> bool:
        return bool(self.by_first)

    def whole(self, text: str, at: int) -> str | None:
        """The longest content ``text`` holds at ``at``."""
        return next((c for c in self.by_first.get(text[at], ()) if text.startswith(c, at)),
                    None)

    def starts_with(self, text: str) -> bool:
        return bool(text) and self.whole(text, 0) is not None

    def occurs_in(self, text: str) -> bool:
        """Whether some content is anywhere in ``text``."""
        return any(c in text for first in set(text) & self.by_first.keys()
                   for c in self.by_first[first])


def _contents(ctx: Context) -> Contents:
    return ctx.doc.memo("added token contents", lambda: Contents(sorted(
        {entry["content"] for entry in ctx.doc.added_tokens
         if isinstance(entry.get("content"), str) and entry["content"]})))


def first_character_cuts(text: str, contents: Contents) -> list[int]:
    """Positions outside every whole match of an added token (longest first, left to
    right) where a character that begins some added token stands."""
    cuts, at = [], 0
    while at < len(text):
        whole = contents.whole(text, at)
        if whole is not None:
            at += len(whole)
            continue
        if text[at] in contents.by_first:
            cuts.append(at)
        at += 1
    return cuts


def after_leading_matches(text: str, contents: Contents) -> int:
    """Where ``text`` goes on after the whole added tokens (longest first) it starts with."""
    at = 0
    while True:
        whole = contents.whole(text, at) if at < len(text) else None
        if whole is None:
            return at
        at += len(whole)


def _segmented(ctx: Context, div: Divergence, *, cut: bool) -> frozenset[int]:
    """Upstream replayed with the library's segmentation: the Prepend normalizer applied
    once, to the first piece of text (after the added tokens the text starts with, not
    again after a later added token), and, with ``cut``,
    the text cut before every character that begins an added token (a marker added
    token there, dropped from the answer); its answer as it is or with each word
    tokenized again by the library's encoder (``backtracking_merge_order``), or cut
    short after at least 32 tokens (``end_dropped_without_byte_fallback``)."""
    obs = div.observation
    if not (obs.operation == "encode" and isinstance(obs.input, str) and obs.input
            and isinstance(obs.subject, Encoded)):
        return NONE
    contents = _contents(ctx)
    if not contents:
        return NONE
    normalizer, prepended = without_prepend(ctx.doc.raw.get("normalizer"))
    cuts = first_character_cuts(obs.input, contents) if cut else []
    if not prepended and not cuts:
        return NONE
    first = after_leading_matches(obs.input, contents)
    # a cut where the first piece begins cuts nothing: the Prepend joins what follows
    inserts = [(at, 1, MARKER) for at in cuts if at != first]
    if prepended and first < len(obs.input):
        inserts.append((first, 0, prepended))
    text = obs.input
    for at, _, inserted in sorted(inserts, reverse=True):
        text = text[:at] + inserted + text[at:]
    fresh = max(document_ids(ctx.doc.raw), default=0) + 1
    marker = {"id": fresh, "content": MARKER, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": False}
    document = {**ctx.doc.raw, "normalizer": normalizer,
                "added_tokens": [*ctx.doc.added_tokens, marker]}
    marked = replay_on(document, dataclasses.replace(obs, input=text))
    return yes(same_tiers(obs.subject, unmarked(marked))
               or reordered_as(ctx, obs.subject, marked, MARKER))


def prepend_once(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Prepend normalizer and an added token in the text: the library prepends once,
    to the first piece of text (after the added tokens the text starts with); upstream
    normalizes each piece between added tokens on its own, so the piece after a later
    ``<s>`` gets a ``▁`` too. Checked: upstream replayed with the Prepend removed from
    the normalizer and its text put before the first piece of the input by hand answers
    exactly the subject's ids, tokens and type ids."""
    return _segmented(ctx, div, cut=False)


def cut_before_added_token_character(ctx: Context, div: Divergence) -> frozenset[int]:
    """A character that begins an added token cuts the text though no added token
    matches there: "Hello <s world" is cut before "<" (as if "<s>" might follow), so
    "▁<" cannot merge and is "▁", "<". Checked: upstream replayed with a marker token
    before every such character (outside whole matches), and the Prepend applied once
    as the library does (``prepend_once``), answers exactly the subject's ids, tokens
    and type ids once the markers are dropped."""
    return _segmented(ctx, div, cut=True)


def _token_count(ctx: Context) -> int:
    """The library's ``vocab_size``: the document's distinct ids (vocabulary and added
    tokens), measured to be where its ``id_to_token`` stops naming (FINDINGS.md)."""
    return len(document_ids(ctx.doc.raw))


def _names(ctx: Context) -> dict[int, str]:
    """Each id's name (a vocabulary entry, an added token's content over it); computed
    once per document and never changed by a caller."""
    def named() -> dict[int, str]:
        names = {v: k for k, v in ctx.doc.vocab.items() if isinstance(v, int)}
        names.update({e["id"]: e["content"] for e in ctx.doc.added_tokens
                      if isinstance(e.get("id"), int) and isinstance(e.get("content"), str)})
        return names

    return ctx.doc.memo("names", named)


def renamed(ctx: Context, subject: Encoded) -> Encoded | None:
    """The subject's answer with each token ``id_to_token`` left unnamed (None) at an id
    at or past the document's token count given its name in the document; None where
    there is no such token."""
    count = _token_count(ctx)
    unnamed = [at for at, (number, token) in enumerate(zip(subject.ids, subject.tokens,
                                                            strict=False))
               if token is None and number >= count]
    if not unnamed:
        return None
    names = _names(ctx)
    if any(subject.ids[at] not in names for at in unnamed):
        return None
    tokens = list(subject.tokens)
    for at in unnamed:
        tokens[at] = names[subject.ids[at]]
    return dataclasses.replace(subject, tokens=tuple(tokens))


def id_to_token_none_past_count(ctx: Context, div: Divergence) -> frozenset[int]:
    """``id_to_token`` (which the adapter names each id with) answers None for an id at
    or past the number of tokens the document gives (its ids have gaps: "b" with id 5
    in a vocabulary of four): the library keeps a table of that many names. Checked:
    the ids agree, and the subject's tokens with every None at such an id replaced by
    the document's name of the id are exactly upstream's."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if not (obs.operation == "encode" and isinstance(subject, Encoded)
            and isinstance(upstream, Encoded) and subject.ids == upstream.ids):
        return NONE
    named = renamed(ctx, subject)
    return yes(named is not None and named.tokens == upstream.tokens)


def with_unnamed_tokens_named(recogniser: Callable[[Context, Divergence], frozenset[int]]
                              ) -> Callable[[Context, Divergence], frozenset[int]]:
    """``recogniser`` judging the subject's answer with the tokens ``id_to_token`` left
    unnamed (``id_to_token_none_past_count``, a mechanism of its own) given their names,
    so a divergence that shows another mechanism too is judged by that one."""
    def judged(ctx: Context, div: Divergence) -> frozenset[int]:
        subject = div.observation.subject
        named = renamed(ctx, subject) if isinstance(subject, Encoded) else None
        if named is None:
            return recogniser(ctx, div)
        observation = dataclasses.replace(div.observation, subject=named)
        return recogniser(ctx, dataclasses.replace(div, observation=observation))

    judged.__name__ = recogniser.__name__
    return judged


def dropout_ignored(ctx: Context, div: Divergence) -> frozenset[int]:
    """BPE ``dropout``: the library never drops a merge (a dropout of 1.0, which drops
    every merge upstream, still merges). Checked: the model's dropout is in (0, 1], and
    upstream replayed without dropout answers exactly the subject's ids, tokens and type
    ids."""
    obs = div.observation
    dropout = ctx.doc.dropout
    if not (obs.operation == "encode" and isinstance(obs.subject, Encoded)
            and isinstance(dropout, int | float) and not isinstance(dropout, bool)
            and 0.0 < float(dropout) <= 1.0):
        return NONE
    return yes(same_tiers(obs.subject, replay_on(without_dropout(ctx), obs)))


def _has_dropout(ctx: Context) -> bool:
    dropout = ctx.doc.dropout
    return isinstance(dropout, int | float) and not isinstance(dropout, bool) and dropout > 0


def without_dropout(ctx: Context) -> dict[str, Any]:
    return {**ctx.doc.raw, "model": {**ctx.doc.model, "dropout": None}}


def without_prefix_space(value: Any) -> Any:
    """The pre-tokenizer ``value`` with every ByteLevel step's ``add_prefix_space`` off
    (nested Sequences too)."""
    if not isinstance(value, dict):
        return value
    if value.get("type") == "ByteLevel" and value.get("add_prefix_space") is True:
        return {**value, "add_prefix_space": False}
    if value.get("type") == "Sequence" and isinstance(value.get("pretokenizers"), list):
        return {**value, "pretokenizers": [without_prefix_space(s)
                                           for s in value["pretokenizers"]]}
    return value


def byte_level_prefix_space_once(ctx: Context, div: Divergence) -> frozenset[int]:
    """A ByteLevel pre-tokenizer with ``add_prefix_space`` and an added token in the
    text: upstream adds the space to every piece between added tokens that does not
    start with whitespace ("<s>v" is <s>, Ġ, v); the library adds it once, at the
    text's start, and not after an added token (<s>, v). Checked: upstream replayed
    with add_prefix_space off and a space put at the start of the input by hand (unless
    it starts with an added token or whitespace; and without dropout, which the library
    ignores too) answers exactly the subject's ids, tokens and type ids."""
    obs = div.observation
    pre = ctx.doc.raw.get("pre_tokenizer")
    off = without_prefix_space(pre)
    contents = _contents(ctx)
    if not (obs.operation == "encode" and isinstance(obs.input, str)
            and isinstance(obs.subject, Encoded) and off != pre
            and contents.occurs_in(obs.input)):
        return NONE
    text = obs.input
    if text and not text[0].isspace() and not contents.starts_with(text):
        text = " " + text
    document = without_dropout(ctx) if _has_dropout(ctx) else ctx.doc.raw
    replayed = replay_on({**document, "pre_tokenizer": off},
                         dataclasses.replace(obs, input=text))
    return yes(same_tiers(obs.subject, replayed))
#: The largest id the bindings convert (their ``int`` is 32-bit signed).
_INT32_MAX: Final = 2**31 - 1


def _starts_at(upstream: Encoded) -> int | None:
    """Where upstream's first token with text begins in the input (None: no spans)."""
    return next((start for start, end in upstream.spans if end > start), None)


def _stripped_start(ctx: Context, obs: Observation) -> int:
    """Where upstream's first token begins in the input when the pre-tokenizer has a
    Metaspace "first" and that is past offset 0 (a normalizer took the text's start
    off: upstream's "first" then prepends nothing); else 0."""
    pre = ctx.doc.raw.get("pre_tokenizer")
    upstream = obs.upstream
    if not (obs.operation == "encode" and isinstance(obs.input, str)
            and isinstance(upstream, Encoded) and metaspace_first_as(pre, "always") != pre):
        return 0
    return _starts_at(upstream) or 0


def library_reading(ctx: Context, obs: Observation
                    ) -> tuple[Observation, dict[str, Any]] | None:
    """``obs`` as the library reads it, where upstream can be made to read it so: the
    document without dropout (``dropout_ignored``), and the input without the
    characters a normalizer strips off its start where the pre-tokenizer is a Metaspace
    "first" (``metaspace_first_after_stripped_start``: the first piece then begins at
    offset 0 and upstream prepends too); None where neither applies."""
    document, text = ctx.doc.raw, obs.input
    if _has_dropout(ctx):
        document = without_dropout(ctx)
    start = _stripped_start(ctx, obs)
    if start > 0 and isinstance(text, str):
        text = text[start:]
    if document is ctx.doc.raw and text == obs.input:
        return None
    return dataclasses.replace(obs, input=text), document


def _resolves(ctx: Context, char: str) -> bool:
    """``char`` is a vocabulary entry, or byte fallback covers it with byte tokens."""
    vocab = ctx.doc.vocab
    return char in vocab or (ctx.doc.byte_fallback and all(
        f"<0x{b:02X}>" in vocab for b in char.encode("utf-8", "surrogatepass")))


def upstream_as_read(ctx: Context, obs: Observation) -> tuple[Observation, Outcome | None]:
    """Upstream's answer to ``obs`` on the document as the library reads it
    (``library_reading``), and the observation it answers. With byte fallback and an
    unk token, upstream's own ordering bug (a pending unk flushed after the byte tokens
    of the next character: our registry's ``unk-byte-fallback-ordering``) is kept out:
    a marker token (dropped from the answer) after each character that has neither a
    token nor all its byte tokens and is followed by one byte fallback covers (a
    Prepend normalizer then applied once, by hand, as the library does:
    ``prepend_once``)."""
    reading = library_reading(ctx, obs)
    read, document = (obs, ctx.doc.raw) if reading is None else reading
    text = read.input
    unk = ctx.doc.unk_token
    if not (isinstance(text, str) and ctx.doc.byte_fallback and unk is not None):
        return read, obs.upstream if reading is None else replay_on(document, read)
    cuts = [at + 1 for at in range(len(text) - 1)
            if not _resolves(ctx, text[at]) and text[at + 1] not in ctx.doc.vocab
            and _resolves(ctx, text[at + 1])]
    if not cuts:
        return read, obs.upstream if reading is None else replay_on(document, read)
    normalizer, prepended = without_prepend(document.get("normalizer"))
    if prepended:  # markers cut the text into pieces: a Prepend once, as the library does
        first = after_leading_matches(text, _contents(ctx))
        text = text[:first] + prepended + text[first:] if first < len(text) else text
        document = {**document, "normalizer": normalizer}
        read = dataclasses.replace(read, input=text)
        cuts = [at + 1 for at in range(len(text) - 1)
                if not _resolves(ctx, text[at]) and text[at + 1] not in ctx.doc.vocab
                and _resolves(ctx, text[at + 1])]
    for at in reversed(cuts):
        text = text[:at] + MARKER + text[at:]
    fresh = max(document_ids(document), default=0) + 1
    marker = {"id": fresh, "content": MARKER, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": False}
    marked = dataclasses.replace(read, input=text)
    replayed = replay_on({**document, "added_tokens": [*ctx.doc.added_tokens, marker]},
                         marked)
    if not isinstance(replayed, Encoded):
        return read, None
    keep = [i for i, token in enumerate(replayed.tokens) if token != MARKER]
    spans = replayed.spans
    placed = [at + k * len(MARKER) for k, at in enumerate(cuts)]  # in the marked text
    shift = [sum(1 for m in placed if m < start) * len(MARKER) for start, _ in spans]
    unmarked_answer = dataclasses.replace(
        replayed, ids=tuple(replayed.ids[i] for i in keep),
        tokens=tuple(replayed.tokens[i] for i in keep),
        spans=tuple((spans[i][0] - shift[i], spans[i][1] - shift[i]) for i in keep)
        if len(spans) == len(replayed.ids) else spans,
        type_ids=tuple(replayed.type_ids[i] for i in keep)
        if len(replayed.type_ids) == len(replayed.ids) else replayed.type_ids)
    return read, unmarked_answer


def metaspace_first_after_stripped_start(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Metaspace pre-tokenizer with ``prepend_scheme: first`` after a normalizer that
    removed the start of the text (a Strip of leading whitespace): upstream prepends
    only to a piece that begins at offset 0 of the original text, so it prepends
    nothing; the library prepends to the first piece whatever the normalizer took off.
    Checked: upstream's first token begins past offset 0, and upstream replayed on the
    input without the characters before it (the first piece then begins at offset 0;
    and without dropout, which the library ignores too) answers exactly the subject's
    ids, tokens and type ids."""
    obs = div.observation
    if not (isinstance(obs.subject, Encoded) and _stripped_start(ctx, obs) > 0):
        return NONE
    reading = library_reading(ctx, obs)
    if reading is None:
        return NONE
    read, document = reading
    return yes(same_tiers(obs.subject, replay_on(document, read)))
