"""The recognisers of iree-tokenizer's expectations (``expectations.yaml`` beside this
module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is iree-tokenizer, *upstream*
is ``tokenizers``. A refusal is recognised by its IREE status (program.py) and a document
that really has what it names; an answer by upstream replayed with the mechanism applied
giving exactly the subject's answer, or, where upstream cannot be made to apply it, by the
answer's own structure checked against the document.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from typing import Any, Final

from ...core.observation import Observation
from ...core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..fastokens.recognisers import (
    component_types,
    decodes_normalized_added_token_as_content,
    token_of_normalized_added_token_is_content,
)
from ..transformers_js.recognisers.replay import (
    MARKER,
    document_ids,
    metaspace_first_as,
    replay_on,
    replaying,
    same_tiers,
    unmarked,
    yes,
)


def _refused_load(div: Divergence) -> str | None:
    """The rule of the subject's refused load where upstream loaded (or panicked: its own
    finding, judged by our intended classes), else None."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return None
    upstream = obs.upstream
    loaded = isinstance(upstream, Loaded) or (isinstance(upstream, Crashed)
                                              and upstream.kind == "panic")
    return obs.subject.rule if loaded else None


_PREFIX: Final = re.compile(r"^UNIMPLEMENTED; BPE continuing_subword_prefix is not "
                            r"supported \(value: (.*)\)$", re.DOTALL)


def continuing_subword_prefix_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE with a ``continuing_subword_prefix``: refused as UNIMPLEMENTED, naming the
    value. Checked: the value named (digits read as N by the adapter's rule) is the
    model's prefix."""
    rule = _refused_load(div)
    named = _PREFIX.match(rule) if rule is not None else None
    prefix = ctx.doc.continuing_subword_prefix
    return yes(named is not None and isinstance(prefix, str) and prefix != ""
               and named.group(1) == re.sub(r"\d+", "N", prefix))


_UNSUPPORTED_TYPE: Final = re.compile(r"^UNIMPLEMENTED; (\w+) type not (?:yet )?supported: "
                                      r"'(\w+)'$")
_UNSUPPORTED_MODEL: Final = re.compile(r"^UNIMPLEMENTED; unsupported model type: '(\w+)'$")
_SLOTS: Final = {"decoder": "decoder", "normalizer": "normalizer",
                 "pre_tokenizer": "pre_tokenizer", "post_processor": "post_processor",
                 "pre-tokenizer": "pre_tokenizer", "post-processor": "post_processor"}


def component_type_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A component or model type the library does not implement: refused as
    UNIMPLEMENTED ("decoder type not supported: 'BPEDecoder'", "unsupported model type:
    'WordLevel'"). Checked: the slot the rule names (or a Sequence in it) really holds a
    component of that type, or the model is of that type."""
    rule = _refused_load(div)
    if rule is None:
        return NONE
    model = _UNSUPPORTED_MODEL.match(rule)
    if model is not None:
        return yes(ctx.doc.model.get("type") == model.group(1))
    named = _UNSUPPORTED_TYPE.match(rule)
    if named is None or named.group(1) not in _SLOTS:
        return NONE
    return yes(named.group(2) in component_types(ctx.doc.raw.get(_SLOTS[named.group(1)])))


_UNK_MISSING: Final = re.compile(r"^NOT_FOUND; unk_token '(.*)' not found in vocabulary$",
                                 re.DOTALL)


def unk_token_missing_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A model whose ``unk_token`` is not in its vocabulary: refused (NOT_FOUND), where
    upstream loads it (an unknown piece then fails at encode). Checked: the token named
    is the model's unk token and the vocabulary has no such entry."""
    rule = _refused_load(div)
    named = _UNK_MISSING.match(rule) if rule is not None else None
    unk = ctx.doc.unk_token
    return yes(named is not None and unk is not None and unk not in ctx.doc.vocab
               and named.group(1) == re.sub(r"\d+", "N", unk))


_UNKNOWN_MERGE_TOKEN: Final = re.compile(r"^NOT_FOUND; merge at index N references unknown "
                                         r"left token '(.*)'$", re.DOTALL)
_MERGE_INDEX: Final = re.compile(r"NOT_FOUND; merge at index (\d+) references")


def version_header_merge_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A merges list holding the ``#version: 0.2`` header line of a merges.txt: upstream
    skips every merge line starting with "#version" (wherever it stands), the library
    reads it as a merge of "#version:" and "0.2" and refuses the file for the unknown
    token. Checked: the token named is "#version:", upstream loaded, and the merge at the
    index the message names is a string starting with "#version"."""
    rule = _refused_load(div)
    named = _UNKNOWN_MERGE_TOKEN.match(rule) if rule is not None else None
    subject = div.observation.subject
    index = _MERGE_INDEX.search(subject.message) if isinstance(subject, Refused) else None
    merges = ctx.doc.merges
    at = int(index.group(1)) if index is not None else -1
    merge = merges[at] if isinstance(merges, list) and 0 <= at < len(merges) else None
    return yes(named is not None and named.group(1) == "#version:"
               and isinstance(div.observation.upstream, Loaded)
               and isinstance(merge, str) and merge.startswith("#version"))


def without_fuse(value: Any) -> Any:
    """The decoder ``value`` without its Fuse steps (nested Sequences too)."""
    if isinstance(value, dict) and value.get("type") == "Sequence" \
            and isinstance(value.get("decoders"), list):
        return {**value, "decoders": [without_fuse(step) for step in value["decoders"]
                                      if not (isinstance(step, dict)
                                              and step.get("type") == "Fuse")]}
    return value


def strip_per_token(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decoder Sequence with Fuse before Strip (Llama/Mistral: Replace, ByteFallback,
    Fuse, Strip one leading space): the library's Fuse does not join the tokens, so the
    Strip takes a leading space off every token ("a", "▁" decodes as "a"; "<s>", "▁", "a"
    as "<s>a"); upstream strips the fused text once. Checked: the decoder has a Fuse
    step and a Strip step after it, and upstream replayed with the Fuse steps removed
    answers exactly the subject's text."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.subject, Decoded)):
        return NONE
    kinds = ctx.doc.step_types("decoder")
    if "Fuse" not in kinds or "Strip" not in kinds[kinds.index("Fuse"):]:
        return NONE
    replayed = replay_on({**ctx.doc.raw, "decoder": without_fuse(ctx.doc.raw["decoder"])}, obs)
    return yes(isinstance(replayed, Decoded) and replayed.text == obs.subject.text)


#: The most tokens an answer held where the library was measured to keep them all
#: (FINDINGS.md): no loss at or below.
_TOKENS_KEPT: Final = 32


def byte_tokens_dropped(ctx: Context, div: Divergence) -> frozenset[int]:
    """Byte fallback over a long run of characters missing from the vocabulary: the
    library silently loses tokens (a run of 36 bytes gives 34 tokens, 300 give 166):
    byte tokens, or the end of the text after them. Checked: byte_fallback is on,
    upstream's answer holds more than 32 tokens, some of them byte tokens (``<0x..>``),
    and the subject's ids are upstream's with their end cut off after at least 32
    tokens kept, or with some removed, in order, every one removed a byte token."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if not (obs.operation == "encode" and ctx.doc.byte_fallback
            and isinstance(subject, Encoded) and isinstance(upstream, Encoded)
            and len(subject.ids) < len(upstream.ids) and len(upstream.ids) > _TOKENS_KEPT
            and any(_BYTE_TOKEN.match(t) for t in upstream.tokens)):
        return NONE
    if len(subject.ids) >= _TOKENS_KEPT and upstream.ids[:len(subject.ids)] == subject.ids:
        return yes(upstream.tokens[:len(subject.ids)] == subject.tokens)
    names = {v: k for k, v in ctx.doc.vocab.items() if isinstance(v, int)}
    at = 0
    for number in upstream.ids:
        if at < len(subject.ids) and subject.ids[at] == number:
            at += 1
        elif not _BYTE_TOKEN.match(names.get(number, "")):
            return NONE
    return yes(at == len(subject.ids))


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


_BYTE_SPAN: Final = re.compile(r"^INVALID_ARGUMENT; byte token ID range too wide: ")
_BYTE_TOKEN: Final = re.compile(r"^<0x[0-9A-F]{2}>$")
#: A token the ByteFallback decoder reads as a byte (its hexadecimal digits in either case).
_DECODED_BYTE: Final = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")


def byte_token_span_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Byte-fallback tokens (``<0x00>`` ... ``<0xFF>``) whose ids do not lie within one
    run of 256: the library keeps them as one id range and refuses a file where they
    spread wider ("byte token ID range too wide"); upstream looks each one up by name.
    Checked: that rule, and the ids of the document's byte tokens span more than 256."""
    rule = _refused_load(div)
    if rule is None or not _BYTE_SPAN.match(rule):
        return NONE
    ids = [v for k, v in ctx.doc.vocab.items() if _BYTE_TOKEN.match(k) and isinstance(v, int)]
    return yes(bool(ids) and max(ids) - min(ids) + 1 > 256)


_BUFFER_FULL: Final = "RESOURCE_EXHAUSTED; decode output buffer full"
#: Decoder steps that change no text, measured (FINDINGS.md): a chain of only these, or
#: none at all, leaves the library's decode with no output stage.
_PASSTHROUGH: Final = frozenset({"Fuse"})


def passthrough_decode_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A document with no decoder, or one of only Fuse steps (an empty Sequence too):
    every decode is refused as "decode output buffer full", whatever the ids. Checked:
    that rule, upstream decoded, and the decoder's steps are all passthrough ones."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.subject, Refused)
            and obs.subject.rule == _BUFFER_FULL and isinstance(obs.upstream, Decoded)):
        return NONE
    return yes(all(kind in _PASSTHROUGH for kind in ctx.doc.step_types("decoder")))


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
    built = set()
    for merge in ctx.doc.merges or ():
        sides = merge.split(" ") if isinstance(merge, str) else merge
        if isinstance(sides, list) and len(sides) == 2 and all(isinstance(s, str)
                                                               for s in sides):
            built.add(sides[0] + sides[1])
    added = {entry.get("content") for entry in ctx.doc.added_tokens}
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


def _contents(ctx: Context) -> list[str]:
    return sorted({entry["content"] for entry in ctx.doc.added_tokens
                   if isinstance(entry.get("content"), str) and entry["content"]},
                  key=lambda c: -len(c))


def first_character_cuts(text: str, contents: list[str]) -> list[int]:
    """Positions outside every whole match of an added token (longest first, left to
    right) where a character that begins some added token stands."""
    starts = {c[0] for c in contents}
    cuts, at = [], 0
    while at < len(text):
        whole = next((c for c in contents if text.startswith(c, at)), None)
        if whole is not None:
            at += len(whole)
            continue
        if text[at] in starts:
            cuts.append(at)
        at += 1
    return cuts


def after_leading_matches(text: str, contents: list[str]) -> int:
    """Where ``text`` goes on after the whole added tokens (longest first) it starts with."""
    at = 0
    while True:
        whole = next((c for c in contents if text.startswith(c, at)), None)
        if whole is None:
            return at
        at += len(whole)


def _segmented(ctx: Context, div: Divergence, *, cut: bool) -> frozenset[int]:
    """Upstream replayed with the library's segmentation: the Prepend normalizer applied
    once, to the first piece of text (after the added tokens the text starts with, not
    again after a later added token), and, with ``cut``,
    the text cut before every character that begins an added token (a marker added
    token there, dropped from the answer)."""
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
    inserts = [(at, 1, MARKER) for at in cuts]
    if prepended and first < len(obs.input):
        inserts.append((first, 0, prepended))  # inserted after a cut there: in front of it
    text = obs.input
    for at, _, inserted in sorted(inserts, reverse=True):
        text = text[:at] + inserted + text[at:]
    fresh = max(document_ids(ctx.doc.raw), default=0) + 1
    marker = {"id": fresh, "content": MARKER, "single_word": False, "lstrip": False,
              "rstrip": False, "normalized": False, "special": False}
    document = {**ctx.doc.raw, "normalizer": normalizer,
                "added_tokens": [*ctx.doc.added_tokens, marker]}
    replayed = unmarked(replay_on(document, dataclasses.replace(obs, input=text)))
    return yes(same_tiers(obs.subject, replayed))


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


_ZERO_ALLOCATION: Final = "INVALID_ARGUMENT; allocations must be >N bytes"


def no_token_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A document that gives no token at all (an empty vocabulary and no added token):
    the library allocates its token table of zero bytes and its allocator refuses
    ("allocations must be >0 bytes"); upstream loads it. Checked: that rule, and the
    model's vocabulary and the added tokens are both empty."""
    rule = _refused_load(div)
    vocab = ctx.doc.model.get("vocab")
    return yes(rule == _ZERO_ALLOCATION and isinstance(vocab, dict | list) and not vocab
               and not ctx.doc.added_tokens)


_SPLIT_BEHAVIOR: Final = re.compile(r"^INVALID_ARGUMENT; unknown Split behavior: '(.*)'$",
                                    re.DOTALL)


def _split_steps(value: Any) -> list[dict[str, Any]]:
    """The Split pre-tokenizers of ``value`` (nested Sequences too)."""
    if not isinstance(value, dict):
        return []
    if value.get("type") == "Sequence" and isinstance(value.get("pretokenizers"), list):
        return [s for step in value["pretokenizers"] for s in _split_steps(step)]
    return [value] if value.get("type") == "Split" else []


def split_behavior_object_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split whose ``behavior`` is written as an object (``{"Isolated": null}``, the
    externally tagged form of the enum, which upstream reads like "Isolated"): the
    library reads only a string and refuses the file, quoting the value. Checked: that
    rule, upstream loaded, and a Split of the pre-tokenizer has a behavior that is not a
    string and equals the value quoted."""
    rule = _refused_load(div)
    named = _SPLIT_BEHAVIOR.match(rule) if rule is not None else None
    if named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    try:
        quoted = json.loads(named.group(1))
    except ValueError:
        return NONE
    return yes(any(not isinstance(s.get("behavior"), str) and s.get("behavior") == quoted
                   for s in _split_steps(ctx.doc.raw.get("pre_tokenizer"))))


def _token_count(ctx: Context) -> int:
    """The library's ``vocab_size``: the document's distinct ids (vocabulary and added
    tokens), measured to be where its ``id_to_token`` stops naming (FINDINGS.md)."""
    return len(document_ids(ctx.doc.raw))


def _names(ctx: Context) -> dict[int, str]:
    names = {v: k for k, v in ctx.doc.vocab.items() if isinstance(v, int)}
    names.update({e["id"]: e["content"] for e in ctx.doc.added_tokens
                  if isinstance(e.get("id"), int) and isinstance(e.get("content"), str)})
    return names


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


_SPLIT_REGEX: Final = re.compile(r"failed to compile Split regex at position (\d+): "
                                 r"unexpected token$")
_QUANTIFIERS: Final = frozenset("*+?")


def stacked_quantifier_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split regex with a quantifier right after another (``a**``, ``a+?*``; Oniguruma,
    upstream's engine, reads the second as applying to the first): the library's regex
    compiler refuses it ("unexpected token at position N; failed to compile Split regex
    at position N"). Checked: that rule, upstream loaded, and a Split regex of the
    pre-tokenizer has a quantifier at the position the message names with a quantifier
    (or a closing ``}``) just before it."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _SPLIT_REGEX.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not rule.startswith("INVALID_ARGUMENT; unexpected "
                                                            "token at position N"):
        return NONE
    at = int(named.group(1))
    patterns = [s["pattern"]["Regex"] for s in _split_steps(ctx.doc.raw.get("pre_tokenizer"))
                if isinstance(s.get("pattern"), dict)
                and isinstance(s["pattern"].get("Regex"), str)]
    return yes(any(0 < at < len(p) and p[at] in _QUANTIFIERS
                   and (p[at - 1] in _QUANTIFIERS or p[at - 1] == "}") for p in patterns))


def byte_level_decoded_per_token(ctx: Context, div: Divergence) -> frozenset[int]:
    """A ByteLevel decoder: the library turns each token back into its bytes and into
    text on its own, so a character whose bytes two tokens share is lost ("Ã", "¸",
    the two bytes of "ø", decode as two U+FFFD); upstream joins the bytes of all the
    tokens first. Checked: the decoder has a ByteLevel step, and upstream's decodes of
    each id alone, joined, are exactly the subject's text."""
    obs = div.observation
    ids = obs.input
    if not (obs.operation == "decode" and isinstance(obs.subject, Decoded)
            and isinstance(ids, tuple) and "ByteLevel" in ctx.doc.step_types("decoder")):
        return NONE
    pieces = [replay_on(ctx.doc.raw, dataclasses.replace(obs, input=(number,)))
              for number in ids]
    return yes(all(isinstance(p, Decoded) for p in pieces) and "".join(
        p.text for p in pieces if isinstance(p, Decoded)) == obs.subject.text)


_CLASS_RANGES: Final = "character class has too many Unicode ranges"
#: The most items outside ASCII (characters or ranges) a bracket class of the library's
#: regex compiler holds, measured (FINDINGS.md).
_CLASS_ITEMS: Final = 10


def class_items_outside_ascii(pattern: str) -> list[int]:
    """For each bracket class of ``pattern`` (``[...]``, escapes skipped), how many of
    its items (a character, an escape or a range) reach outside ASCII."""
    counts: list[int] = []
    at = 0
    while at < len(pattern):
        if pattern[at] == "\\":
            at += 2
            continue
        if pattern[at] != "[":
            at += 1
            continue
        at += 1
        if at < len(pattern) and pattern[at] == "^":
            at += 1
        count, first = 0, True
        while at < len(pattern) and (pattern[at] != "]" or first):
            first = False
            item = pattern[at:at + 2] if pattern[at] == "\\" else pattern[at]
            at += len(item)
            if at + 1 < len(pattern) and pattern[at] == "-" and pattern[at + 1] != "]":
                end = pattern[at + 1:at + 3] if pattern[at + 1] == "\\" else pattern[at + 1]
                item += end
                at += 1 + len(end)
            count += not item.isascii()
        counts.append(count)
        at += 1
    return counts


def regex_class_too_wide_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split regex with a bracket class of more than ten items outside ASCII
    (characters or ranges): the library's regex compiler refuses it ("character class
    has too many Unicode ranges; use \\p{L} for broad matching"); upstream compiles it.
    Checked: that rule, upstream loaded, and a Split regex of the pre-tokenizer has a
    bracket class of more than ten such items."""
    rule = _refused_load(div)
    if rule is None or _CLASS_RANGES not in rule \
            or not isinstance(div.observation.upstream, Loaded):
        return NONE
    patterns = [s["pattern"]["Regex"] for s in _split_steps(ctx.doc.raw.get("pre_tokenizer"))
                if isinstance(s.get("pattern"), dict)
                and isinstance(s["pattern"].get("Regex"), str)]
    return yes(any(n > _CLASS_ITEMS for p in patterns for n in class_items_outside_ascii(p)))


def _utf8_groups(data: bytes) -> list[bytes]:
    """``data`` cut the way the library's byte fallback decodes it: each complete UTF-8
    character a group, every other byte a group of its own (one U+FFFD each)."""
    groups, at = [], 0
    while at < len(data):
        for size in (1, 2, 3, 4):
            try:
                data[at:at + size].decode("utf-8")
            except UnicodeDecodeError:
                continue
            break
        else:
            size = 1
        groups.append(data[at:at + size])
        at += size
    return groups


def byte_fallback_decoded_lossy(ctx: Context, div: Divergence) -> frozenset[int]:
    """A ByteFallback decoder over byte tokens that are not valid UTF-8: upstream turns
    every byte token of such a run into U+FFFD (``<0x42>``, ``<0x98>``, ``<0x1F>`` is
    three); the library keeps each complete character and makes every other byte one
    U+FFFD ("B\\ufffd\\x1f"). Checked: the decoder has a ByteFallback step, and
    upstream replayed on the ids with a token of empty text (a fresh vocabulary entry)
    between the library's groups of each run of byte tokens (a complete character, or
    one byte; and without a Fuse before a Strip, which the library ignores:
    ``strip_per_token``) answers exactly the subject's text."""
    obs = div.observation
    ids = obs.input
    if not (obs.operation == "decode" and isinstance(obs.subject, Decoded)
            and isinstance(ids, tuple) and "ByteFallback" in ctx.doc.step_types("decoder")):
        return NONE
    names = _names(ctx)
    special = {e["id"] for e in ctx.doc.added_tokens
               if e.get("special") is True and isinstance(e.get("id"), int)}
    kept = [i for i in ids if i in names
            and not (obs.option("skip_special_tokens") and i in special)]
    fresh = max(document_ids(ctx.doc.raw), default=0) + 1
    cut: list[int] = []
    at = 0
    while at < len(kept):
        if not _DECODED_BYTE.match(names[kept[at]]):
            cut.append(kept[at])
            at += 1
            continue
        end = at
        while end < len(kept) and _DECODED_BYTE.match(names[kept[end]]):
            end += 1
        run = kept[at:end]
        for group in _utf8_groups(bytes(int(names[i][3:5], 16) for i in run)):
            cut.extend([*run[:len(group)], fresh])
            run = run[len(group):]
        at = end
    if fresh not in cut:  # no byte token
        return NONE
    vocab = ctx.doc.model.get("vocab")
    if not isinstance(vocab, dict) or "" in vocab:
        return NONE
    document = {**ctx.doc.raw, "model": {**ctx.doc.model, "vocab": {**vocab, "": fresh}}}
    kinds = ctx.doc.step_types("decoder")
    if "Fuse" in kinds and "Strip" in kinds[kinds.index("Fuse"):]:  # strip_per_token
        document = {**document, "decoder": without_fuse(document["decoder"])}
    replayed = replay_on(document, dataclasses.replace(obs, input=tuple(cut)))
    return yes(isinstance(replayed, Decoded) and replayed.text == obs.subject.text)


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
            and any(c in obs.input for c in contents)):
        return NONE
    text = obs.input
    if text and not text[0].isspace() and not any(text.startswith(c) for c in contents):
        text = " " + text
    document = without_dropout(ctx) if _has_dropout(ctx) else ctx.doc.raw
    replayed = replay_on({**document, "pre_tokenizer": off},
                         dataclasses.replace(obs, input=text))
    return yes(same_tiers(obs.subject, replayed))


_GROUP_TYPE: Final = re.compile(r"parse error at position (\d+): unknown group type \(\?;")
#: The group kinds after "(?" the library's regex compiler lacks, measured (FINDINGS.md):
#: look-behind and look-ahead, atomic, named and comment groups.
_UNKNOWN_GROUPS: Final = frozenset("<>=!P#")


def _split_patterns(ctx: Context) -> list[str]:
    return [s["pattern"]["Regex"] for s in _split_steps(ctx.doc.raw.get("pre_tokenizer"))
            if isinstance(s.get("pattern"), dict) and isinstance(s["pattern"].get("Regex"), str)]


def _at_position(pattern: str, position: int) -> list[int]:
    """The character indices ``position`` may name in ``pattern``: a character index,
    or a UTF-8 byte offset."""
    head = pattern.encode("utf-8", "surrogatepass")[:position]
    return sorted({position, len(head.decode("utf-8", "ignore"))})


def regex_group_kind_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Split regex with a group kind the library's regex compiler lacks (look-behind
    ``(?<=``, look-ahead ``(?=``, atomic ``(?>``, named ``(?<n>``/``(?P<n>``, comment
    ``(?#``): refused ("unknown group type (?"); upstream's Oniguruma compiles them.
    Checked: that rule, upstream loaded, and a Split regex of the pre-tokenizer has
    "(?" and one of those kinds at the position the message names."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _GROUP_TYPE.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    position = int(named.group(1))
    return yes(any(p[at:at + 2] == "(?" and p[at + 2:at + 3] in _UNKNOWN_GROUPS
                   and p[at + 2:at + 3] != "" for p in _split_patterns(ctx)
                   for at in _at_position(p, position)))


_CLASS_ESCAPE: Final = re.compile(r"parse error at position (\d+): unknown escape sequence "
                                  r"in character class;")
#: The escapes the library's regex compiler reads in a bracket class, measured
#: (FINDINGS.md); any other letter after a backslash there is refused.
_CLASS_ESCAPES: Final = frozenset("rntfvpdDsSwWu")


def regex_class_escape_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A bracket class of a Split regex holding an escape the library's regex compiler
    does not read there (``[\\x41-\\x43]``): refused ("unknown escape sequence in
    character class"); upstream's Oniguruma compiles it. Checked: that rule, upstream
    loaded, and a Split regex has, at the position the message names, a backslash and
    a letter outside the escapes the library reads."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _CLASS_ESCAPE.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    position = int(named.group(1))
    return yes(any(p[at:at + 1] == "\\" and p[at + 1:at + 2].isalpha()
                   and p[at + 1:at + 2] not in _CLASS_ESCAPES
                   for p in _split_patterns(ctx) for at in _at_position(p, position)))


_INLINE_FLAG: Final = re.compile(r"parse error at position (\d+): expected ':' after \(\?i;")


def _regexes(value: Any) -> list[str]:
    """Every ``{"Regex": ...}`` pattern in ``value`` (a component, nested Sequences too)."""
    if isinstance(value, dict):
        pattern = value.get("pattern")
        found = [pattern["Regex"]] if isinstance(pattern, dict) \
            and isinstance(pattern.get("Regex"), str) else []
        return found + [r for key, v in value.items() if key != "pattern"
                        for r in _regexes(v)]
    if isinstance(value, list):
        return [r for v in value for r in _regexes(v)]
    return []


def inline_flag_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A regex (of a Split, a Replace normalizer or decoder) with the inline flag
    ``(?i)`` setting case-insensitivity for the rest of the pattern: the library's
    regex compiler knows only the group form ``(?i:...)`` and refuses the file
    ("expected ':' after (?i"); upstream's Oniguruma compiles it. Checked: that rule,
    upstream loaded, and a regex of the document has "(?i)" at the position the message
    names."""
    rule = _refused_load(div)
    subject = div.observation.subject
    named = _INLINE_FLAG.search(subject.message) if isinstance(subject, Refused) else None
    if rule is None or named is None or not isinstance(div.observation.upstream, Loaded):
        return NONE
    position = int(named.group(1))
    patterns = [r for key in ("normalizer", "pre_tokenizer", "decoder")
                for r in _regexes(ctx.doc.raw.get(key))]
    return yes(any(p[at:at + 4] == "(?i)" for p in patterns
                   for at in _at_position(p, position)))


_DROPOUT_RANGE: Final = "Dropout should be between 0 and 1, inclusive"


def dropout_out_of_range_loaded(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE dropout outside [0, 1] (``1e300``): upstream refuses the file ("Dropout
    should be between 0 and 1, inclusive"); the library reads no dropout
    (``dropout_ignored``) and loads it. Checked: the subject loaded, upstream refused
    with that rule, and the model's dropout is a number outside [0, 1]."""
    obs = div.observation
    dropout = ctx.doc.dropout
    return yes(obs.operation == "load" and isinstance(obs.subject, Loaded)
               and isinstance(obs.upstream, Refused) and obs.upstream.rule == _DROPOUT_RANGE
               and isinstance(dropout, int | float) and not isinstance(dropout, bool)
               and not 0.0 <= float(dropout) <= 1.0)


_STRIP_STOP: Final = re.compile(r"^UNIMPLEMENTED; Strip decoder with stop_count > N not "
                                 r"supported")


def strip_decoder_stop_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Strip decoder that takes characters off the end (``stop`` above 0): the library
    refuses the file ("Strip decoder with stop_count > 0 not supported (requires
    buffering)"); upstream loads it. Checked: that rule, and a Strip step of the
    decoder (a Sequence's too) has a ``stop`` above 0."""
    rule = _refused_load(div)
    if rule is None or not _STRIP_STOP.match(rule):
        return NONE
    return yes(any(isinstance(s, dict) and s.get("type") == "Strip"
                   and isinstance(s.get("stop"), int) and s["stop"] > 0
                   for s in ctx.doc.steps("decoder")))


_MERGE_RESULT: Final = re.compile(r"^Token `(.*)` out of vocabulary$", re.DOTALL)


def merge_result_missing_loaded(ctx: Context, div: Divergence) -> frozenset[int]:
    """A merge whose result is not in the vocabulary ("Ī v" with no "Īv"): upstream
    refuses the file ("Token `Īv` out of vocabulary"); the library loads it. Checked:
    the subject loaded, upstream refused with that rule, and a merge of the document
    joins two vocabulary entries into the token named, which the vocabulary lacks."""
    obs = div.observation
    upstream = obs.upstream
    named = _MERGE_RESULT.match(upstream.rule) if isinstance(upstream, Refused) else None
    if not (obs.operation == "load" and isinstance(obs.subject, Loaded) and named):
        return NONE
    vocab = ctx.doc.vocab
    result = named.group(1)
    for merge in ctx.doc.merges or ():
        sides = merge.split(" ", 1) if isinstance(merge, str) else merge
        if isinstance(sides, list) and len(sides) == 2 and all(
                isinstance(s, str) and s in vocab for s in sides) \
                and sides[0] + sides[1] == result and result not in vocab:
            return yes(True)
    return NONE


_ARGUMENTS: Final = "TypeError; decode(): incompatible function arguments"
#: The largest id the bindings convert (their ``int`` is 32-bit signed).
_INT32_MAX: Final = 2**31 - 1


def decode_id_beyond_int32_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decode of an id above 2**31 - 1: the bindings take the ids as 32-bit signed
    ints and refuse the call (``TypeError: decode(): incompatible function
    arguments``); upstream takes any u32 and skips an id that names no token. Checked:
    that rule, upstream decoded, and the ids hold one above 2**31 - 1 (and none above
    upstream's u32, which it refuses too)."""
    obs = div.observation
    ids = obs.input
    return yes(obs.operation == "decode" and isinstance(obs.subject, Refused)
               and obs.subject.rule == _ARGUMENTS and isinstance(obs.upstream, Decoded)
               and isinstance(ids, tuple) and any(i > _INT32_MAX for i in ids))


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


_ALL: Final[tuple[Callable[[Context, Divergence], frozenset[int]], ...]] = (
    continuing_subword_prefix_refused,
    component_type_refused,
    unk_token_missing_refused,
    version_header_merge_refused,
    byte_token_span_refused,
    passthrough_decode_refused,
    strip_per_token,
    unk_per_byte,
    byte_tokens_dropped,
    unreachable_token_produced,
    prepend_once,
    cut_before_added_token_character,
    token_of_normalized_added_token_is_content,
    decodes_normalized_added_token_as_content,
    decode_id_beyond_int32_refused,
    no_token_refused,
    split_behavior_object_refused,
    stacked_quantifier_refused,
    byte_level_decoded_per_token,
    regex_class_too_wide_refused,
    byte_fallback_decoded_lossy,
    byte_level_prefix_space_once,
    regex_group_kind_refused,
    dropout_out_of_range_loaded,
    strip_decoder_stop_refused,
    merge_result_missing_loaded,
    regex_class_escape_refused,
    inline_flag_refused,
    id_to_token_none_past_count,
    dropout_ignored,
    metaspace_first_after_stripped_start,
)
RECOGNISERS: dict[str, Predicate] = {
    function.__name__: replaying(function if function is id_to_token_none_past_count
                                 else with_unnamed_tokens_named(function))
    for function in _ALL}
