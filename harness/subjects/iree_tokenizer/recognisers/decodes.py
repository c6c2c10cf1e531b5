"""iree-tokenizer's decodes: its decoder steps run per token (Strip after Fuse, ByteLevel),
byte-fallback runs decoded lossily, the text's end dropped; each recognised by upstream
replayed with the mechanism applied, or by the answer checked against the document."""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from ....core.outcome import Decoded, Encoded
from ....judge.compare import Divergence
from ....judge.predicates import ALL, NONE, Context
from ...transformers_js.recognisers.replay import (
    document_ids,
    replay_on,
    yes,
)
from .merge_order import cut_short
from .readings import _BYTE_TOKEN, _DECODED_BYTE, _names


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
    byte tokens, or the end of the text after them (a long text with no byte token
    loses its end too, as ``end_dropped_without_byte_fallback``). Checked: byte_fallback
    is on, upstream's answer holds more than 32 tokens, and the subject's ids are
    upstream's (as they are or with each word tokenized again
    by the library's encoder: ``backtracking_merge_order``) with their end cut off
    after at least 32 tokens kept, or (upstream having byte tokens, ``<0x..>``) with
    some removed, in order, every one removed a byte token."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if not (obs.operation == "encode" and ctx.doc.byte_fallback
            and isinstance(subject, Encoded) and isinstance(upstream, Encoded)
            and len(subject.ids) < len(upstream.ids) and len(upstream.ids) > _TOKENS_KEPT):
        return NONE
    if len(subject.ids) >= _TOKENS_KEPT and cut_short(ctx, subject, upstream):
        return ALL
    if not any(_BYTE_TOKEN.match(t) for t in upstream.tokens):
        return NONE
    names = {v: k for k, v in ctx.doc.vocab.items() if isinstance(v, int)}
    at = 0
    for number in upstream.ids:
        if at < len(subject.ids) and subject.ids[at] == number:
            at += 1
        elif not _BYTE_TOKEN.match(names.get(number, "")):
            return NONE
    return yes(at == len(subject.ids))


def end_dropped_without_byte_fallback(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE without byte fallback (Llama 3's ByteLevel one): past 32 tokens the library
    silently loses the end of the text, as it loses tokens with byte fallback
    (``byte_tokens_dropped``): 40 "a" with no merges give 36 tokens, 100 "é" 116 of 200.
    Checked: byte_fallback is off, upstream's answer holds more than 32 tokens, and the
    subject's ids and tokens are upstream's (as they are or with each word tokenized
    again by the library's encoder: ``backtracking_merge_order``) with their end cut
    off after at least 32."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if not (obs.operation == "encode" and not ctx.doc.byte_fallback
            and isinstance(subject, Encoded) and isinstance(upstream, Encoded)
            and _TOKENS_KEPT <= len(subject.ids) < len(upstream.ids)):
        return NONE
    return yes(cut_short(ctx, subject, upstream))


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
