"""iree-tokenizer's BPE order and its added-token matching, recognised by upstream's
answer (replayed where the document must read as the library reads it) with each
pre-tokenized word tokenized again by a port of the library's backtracking encoder
(``backtrack.py``)."""

from __future__ import annotations

import re
from typing import Any, Final

from ....core.outcome import Encoded
from ....judge.compare import Divergence
from ....judge.predicates import NONE, Context
from ...transformers_js.recognisers.replay import replay_on, yes
from .backtrack import Tables, build, encode_word, raw_bytes

_BYTE_TOKEN: Final = re.compile(r"^<0x([0-9A-F]{2})>$")
#: The library's longest segment for the backtracking encoder: 16 times its longest
#: token (in bytes), at least 2,048 and at most 4,095 (``bpe.c``); a longer one goes
#: through another encoder this port does not read.
_BACKTRACK_FLOOR: Final = 2048
_BACKTRACK_CEILING: Final = 4095
#: The most tokens an answer held where the library was measured to keep them all.
_TOKENS_KEPT: Final = 32


def _byte_level(document: dict[str, Any]) -> bool:
    """Whether the document's pre-tokenizer has a ByteLevel step (the model then reads
    ByteLevel characters, one per input byte)."""
    def has(value: Any) -> bool:
        if isinstance(value, dict):
            return value.get("type") == "ByteLevel" or any(has(v) for v in value.values())
        if isinstance(value, list):
            return any(has(v) for v in value)
        return False

    return has(document.get("pre_tokenizer"))


def _merge_pairs(merges: Any) -> list[tuple[str, str]] | None:
    pairs: list[tuple[str, str]] = []
    for merge in merges if isinstance(merges, list) else ():
        if isinstance(merge, str) and " " in merge:
            left, right = merge.split(" ", 1)
        elif isinstance(merge, list) and len(merge) == 2 \
                and all(isinstance(side, str) for side in merge):
            left, right = merge
        else:
            return None
        pairs.append((left, right))
    return pairs


def tables_of(ctx: Context) -> Tables | None:
    """The port's tables of the document (once per document), or None where the port
    does not read it: not a BPE, a ``continuing_subword_prefix`` or
    ``end_of_word_suffix``, merges it cannot read, a ByteLevel vocabulary without a
    token for every byte."""
    def derive() -> Tables | None:
        model = ctx.doc.model
        vocab = model.get("vocab")
        merges = _merge_pairs(model.get("merges"))
        if not (model.get("type") == "BPE" and isinstance(vocab, dict) and merges is not None
                and not model.get("continuing_subword_prefix")
                and not model.get("end_of_word_suffix")
                and all(isinstance(v, int) for v in vocab.values())):
            return None
        added = {e["content"]: e["id"] for e in ctx.doc.added_tokens
                 if isinstance(e.get("content"), str) and isinstance(e.get("id"), int)}
        byte_level = _byte_level(ctx.doc.raw)
        tables = build(dict(vocab), added, merges, byte_level=byte_level,
                       unk=ctx.doc.unk_token, byte_fallback=ctx.doc.byte_fallback,
                       fuse_unk=ctx.doc.fuse_unk, specials=frozenset(
                           e["content"] for e in ctx.doc.added_tokens
                           if e.get("special") is True and isinstance(e.get("content"), str)))
        if byte_level and any(bytes([b]) not in tables.ids for b in range(256)):
            return None
        return tables

    return ctx.doc.memo("iree backtracking tables", derive)


def _word_bytes(tokens: list[str], byte_level: bool, unk: str | None) -> bytes | None:
    """The input bytes of a word from upstream's tokens of it (a byte-fallback token as
    its byte); None where a token does not say its bytes (the unk token)."""
    out = bytearray()
    for token in tokens:
        found = _BYTE_TOKEN.match(token)
        raw = bytes([int(found.group(1), 16)]) if found and not byte_level \
            else raw_bytes(token, byte_level)
        if raw is None or token == unk:
            return None
        out += raw
    return bytes(out)


def rebuilt(ctx: Context, answer: Encoded, drop: str | None = None
            ) -> tuple[int, ...] | None:
    """``answer``'s ids with every pre-tokenized word (upstream's ``word_ids``; an added
    token and a template special kept, a ``drop`` token, a replay's marker, left out)
    tokenized again by the library's backtracking encoder; None where that cannot be
    read (no word ids, the unk token in a word, a word past the backtracking encoder's
    length)."""
    tables = tables_of(ctx)
    if tables is None or len(answer.word_ids) != len(answer.ids):
        return None
    byte_level = _byte_level(ctx.doc.raw)
    added = _added_ids(ctx)
    limit = min(max(16 * max(tables.sizes.values(), default=1), _BACKTRACK_FLOOR),
                _BACKTRACK_CEILING)
    ids: list[int] = []
    at = 0
    while at < len(answer.ids):
        word = answer.word_ids[at]
        end = at + 1
        while word is not None and end < len(answer.ids) and answer.word_ids[end] == word:
            end += 1
        if end == at + 1 and drop is not None and answer.tokens[at] == drop:
            at = end
            continue
        if word is None or (end == at + 1 and answer.ids[at] in added):
            ids.append(answer.ids[at])
            at = end
            continue
        raw = _word_bytes(list(answer.tokens[at:end]), byte_level, ctx.doc.unk_token)
        if raw is None or len(raw) > limit:
            return None
        ids += encode_word(tables, raw)
        at = end
    return tuple(ids)


def _added_ids(ctx: Context) -> frozenset[int]:
    return ctx.doc.memo("added ids", lambda: frozenset(
        e["id"] for e in ctx.doc.added_tokens if isinstance(e.get("id"), int)))


def reordered_as(ctx: Context, subject: Any, answer: Any, drop: str | None = None) -> bool:
    """A replayed upstream ``answer`` (its ``drop`` markers left out) with each word
    tokenized again by the library's encoder (``rebuilt``) is exactly the subject's
    answer (ids and tokens; type ids all 0 like every single text's), or, the subject
    holding at least 32 tokens, is it with its end cut off (``cut_short``)."""
    if not (isinstance(subject, Encoded) and isinstance(answer, Encoded)
            and not any(subject.type_ids)):
        return False
    if _same_as_subject(ctx, subject, rebuilt(ctx, answer, drop)):
        return True
    longer = sum(1 for token in answer.tokens if token != drop) > len(subject.ids)
    return longer and len(subject.ids) >= _TOKENS_KEPT and cut_short(ctx, subject, answer,
                                                                       drop)


def cut_short(ctx: Context, subject: Encoded, answer: Encoded, drop: str | None = None
              ) -> bool:
    """The subject's ids and tokens are ``answer``'s (its ``drop`` markers left out) with
    their end cut off (the loss of ``end_dropped_without_byte_fallback``), ``answer``'s
    as they are or with each word tokenized again by the library's encoder
    (``backtracking_merge_order``)."""
    kept = len(subject.ids)
    plain = [at for at, token in enumerate(answer.tokens) if token != drop]
    if tuple(answer.ids[at] for at in plain[:kept]) == subject.ids:
        return tuple(answer.tokens[at] for at in plain[:kept]) == subject.tokens
    ids = rebuilt(ctx, answer, drop)
    return ids is not None and _same_as_subject(ctx, subject, ids[:kept])


def _same_as_subject(ctx: Context, subject: Encoded, ids: tuple[int, ...] | None) -> bool:
    if ids is None or ids != subject.ids:
        return False
    names = ctx.doc.memo("iree names by id", lambda: {
        **{v: k for k, v in ctx.doc.vocab.items() if isinstance(v, int)},
        **{e["id"]: e["content"] for e in ctx.doc.added_tokens
           if isinstance(e.get("id"), int) and isinstance(e.get("content"), str)}})
    return tuple(names.get(i) for i in ids) == subject.tokens


def backtracking_merge_order(ctx: Context, div: Divergence) -> frozenset[int]:
    """The library's BPE is a backtracking encoder (longest token first, checked against
    the merges' ranks), not upstream's merges lowest rank first: where its checks let a
    token through that upstream's order would not build ("iff" before "f" in "ifff",
    Llama 3), the words differ. Checked: each of upstream's pre-tokenized words
    tokenized again by a port of the library's encoder (``backtrack.py``) gives exactly
    the subject's ids and tokens, and not upstream's ids."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if not (obs.operation == "encode" and isinstance(subject, Encoded)
            and isinstance(upstream, Encoded) and subject.ids != upstream.ids):
        return NONE
    return yes(_same_as_subject(ctx, subject, rebuilt(ctx, upstream)))


def without_non_special_added(document: dict[str, Any]) -> dict[str, Any] | None:
    """The document without its non-special added tokens (None: it has none)."""
    added = document.get("added_tokens")
    if not isinstance(added, list):
        return None
    kept = [e for e in added if not (isinstance(e, dict) and e.get("special") is False)]
    return {**document, "added_tokens": kept} if len(kept) < len(added) else None


def non_special_added_token_unmatched(ctx: Context, div: Divergence) -> frozenset[int]:
    """A non-special added token in the text is not matched: the library finds only the
    special ones, so Gemma 3's "<s>" (a non-special added token) is tokenized as text
    ("<", "s", ">"). Checked: upstream replayed on the document without its non-special
    added tokens answers exactly the subject's ids and tokens, each word as it is or
    tokenized again by the library's encoder (``backtracking_merge_order``), or with
    its end cut off after at least 32 tokens (``end_dropped_without_byte_fallback``)."""
    obs = div.observation
    subject = obs.subject
    if not (obs.operation == "encode" and isinstance(subject, Encoded)
            and isinstance(obs.input, str)):
        return NONE
    document = without_non_special_added(ctx.doc.raw)
    if document is None or not any(
            e.get("special") is False and isinstance(e.get("content"), str)
            and e["content"] and e["content"] in obs.input for e in ctx.doc.added_tokens):
        return NONE
    replayed = replay_on(document, obs)
    if not isinstance(replayed, Encoded):
        return NONE
    return yes(_same_as_subject(ctx, subject, replayed.ids)
               or _same_as_subject(ctx, subject, rebuilt(ctx, replayed))
               or (_TOKENS_KEPT <= len(subject.ids) < len(replayed.ids)
                   and cut_short(ctx, subject, replayed)))
