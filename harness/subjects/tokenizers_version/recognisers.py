"""The recognisers of the upgrade preview's expectations (``expectations-0.x.yaml``,
``expectations-0.20-0.22.yaml``, ``expectations-1.x.yaml``), by name: what another
``tokenizers`` version does differently from the pinned one, each checked on both sides.

A plugin of the judge (decision 0034): the run hands this mapping to the expectations
parser. *Subject* is the other version, *upstream* the pinned one; decision records
docs/decisions/0035-tokenizers-api-generations.md and
docs/decisions/0038-version-ranges-and-early-version-check.md; findings in ``FINDINGS.md``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ...core.outcome import Crashed, Decoded, Encoded, Loaded, Refused
from ...judge.compare import Divergence
from ...judge.predicates import ALL, NONE, Context, Predicate

#: 1.x's refusal of a byte-fallback model lacking a byte piece (the piece it names).
_BYTE_PIECE_MISSING: Final = re.compile(r"Byte fallback `(<0x[0-9A-F]{2}>)` not found in the "
                                        r"vocabulary")
#: The 256 byte pieces, in the order 1.x looks for them (``<0x00>`` first).
BYTE_PIECES: Final = tuple(f"<0x{byte:02X}>" for byte in range(256))


def byte_fallback_alphabet_required(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x refuses at load a BPE model with ``byte_fallback: true`` whose vocabulary lacks
    one of the 256 ``<0xNN>`` pieces; the pinned 0.23.1 loads it (and falls back to the
    unk token for the missing bytes). Checked: the model is BPE with byte fallback on, the
    piece the refusal names is the first of ``<0x00>``..``<0xFF>`` missing from the model
    vocabulary, and upstream loaded the file."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.upstream, Loaded):
        return NONE
    refusal = obs.subject
    if not isinstance(refusal, Refused):
        return NONE
    named = _BYTE_PIECE_MISSING.fullmatch(refusal.message)
    if named is None:
        return NONE
    if ctx.doc.model.get("type") != "BPE" or ctx.doc.model.get("byte_fallback") is not True:
        return NONE
    missing = next((piece for piece in BYTE_PIECES if piece not in ctx.doc.vocab), None)
    return ALL if missing == named.group(1) else NONE


def _loaded_by_upstream_refused_by_subject(div: Divergence, pattern: re.Pattern[str]
                                           ) -> re.Match[str] | None:
    """The refusal's message matched by ``pattern`` where the subject refuses at load a
    file upstream loads; None otherwise."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.upstream, Loaded):
        return None
    refusal = obs.subject
    if not isinstance(refusal, Refused):
        return None
    return pattern.fullmatch(refusal.message)


def _pre_tokenizers(ctx: Context) -> list[dict[str, Any]]:
    """The document's pre-tokenizer steps (a Sequence's, one level deep, or the one)."""
    top = ctx.doc.raw.get("pre_tokenizer")
    if not isinstance(top, dict):
        return []
    if top.get("type") == "Sequence":
        steps = top.get("pretokenizers")
        return [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []
    return [top]


_DROPOUT: Final = re.compile(r"BPE models with dropout not supported yet")


def dropout_unsupported(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x refuses at load a BPE model with a dropout above 0 (0.23.1 loads any dropout in
    (0, 1]; 0 and null load in both). Checked: the model is BPE and its dropout a number
    in (0, 1]."""
    if _loaded_by_upstream_refused_by_subject(div, _DROPOUT) is None:
        return NONE
    dropout = ctx.doc.dropout
    ok = (ctx.doc.model.get("type") == "BPE" and isinstance(dropout, int | float)
          and not isinstance(dropout, bool) and 0 < dropout <= 1)
    return ALL if ok else NONE


_SLIM_READER: Final = re.compile(r"the slim JSON reader does not support a `Metaspace` "
                                 r"pre-tokenizer\. .*", re.S)


def metaspace_in_sequence_unsupported(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x's "slim JSON reader" refuses a Metaspace pre-tokenizer inside a Sequence (a
    Metaspace standing alone loads). Checked: the pre-tokenizer is a Sequence holding a
    Metaspace step."""
    if _loaded_by_upstream_refused_by_subject(div, _SLIM_READER) is None:
        return NONE
    top = ctx.doc.raw.get("pre_tokenizer")
    in_sequence = (isinstance(top, dict) and top.get("type") == "Sequence"
                   and any(s.get("type") == "Metaspace" for s in _pre_tokenizers(ctx)))
    return ALL if in_sequence else NONE


_PREFIX_SPACE: Final = re.compile(r"a `ByteLevel` pre-tokenizer with `add_prefix_space: true` "
                                  r"is not supported")


def byte_level_prefix_space_unsupported(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x refuses a ByteLevel pre-tokenizer with ``add_prefix_space: true``. Checked: the
    document has such a step."""
    if _loaded_by_upstream_refused_by_subject(div, _PREFIX_SPACE) is None:
        return NONE
    found = any(s.get("type") == "ByteLevel" and s.get("add_prefix_space") is True
                for s in _pre_tokenizers(ctx))
    return ALL if found else NONE


_BYTE_LEVEL_ALPHABET: Final = re.compile(r"This byte-level vocabulary has no token for bytes "
                                         r"(0x[0-9A-F]{2}(?:, 0x[0-9A-F]{2})*).*", re.S)


def _byte_level_alphabet() -> dict[int, str]:
    """GPT-2's byte -> character map (``bytes_to_unicode``)."""
    printable = [*range(0x21, 0x7F), *range(0xA1, 0xAD), *range(0xAE, 0x100)]
    chars = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {byte: chr(char) for byte, char in zip(printable, chars, strict=True)}


BYTE_LEVEL_ALPHABET: Final = _byte_level_alphabet()


def byte_level_alphabet_required(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x refuses a byte-level model whose vocabulary lacks a byte's character (GPT-2's
    byte alphabet); 0.23.1 loads it and drops such bytes at encode. Checked: a ByteLevel
    pre-tokenizer is present and every byte the refusal lists has no vocabulary string."""
    named = _loaded_by_upstream_refused_by_subject(div, _BYTE_LEVEL_ALPHABET)
    if named is None or not any(s.get("type") == "ByteLevel" for s in _pre_tokenizers(ctx)):
        return NONE
    listed = [int(b, 16) for b in named.group(1).split(", ")]
    return ALL if all(BYTE_LEVEL_ALPHABET[b] not in ctx.doc.vocab for b in listed) else NONE


_UNK_MISSING: Final = re.compile(r"Unk token `(.*)` not found in the vocabulary", re.S)


def unk_token_required(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x refuses at load a model whose ``unk_token`` is not a vocabulary string; 0.23.1
    loads it (and fails only when an unknown character is met). Checked: the refusal names
    the model's ``unk_token`` and it is absent from the model vocabulary."""
    named = _loaded_by_upstream_refused_by_subject(div, _UNK_MISSING)
    unk = ctx.doc.model.get("unk_token")
    ok = named is not None and named.group(1) == unk and unk not in ctx.doc.vocab
    return ALL if ok else NONE


_SYSTEM_REGEX: Final = re.compile(r"this `Split` pattern needs a system-regex backend; "
                                  r"enable the `fancy-regex` feature")


def split_regex_needs_backend(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x (as published) loads a Split pre-tokenizer with a ``Regex`` pattern but refuses
    to encode with it: its wheel has no regex backend for the pattern ("needs a
    system-regex backend; enable the `fancy-regex` feature"). Checked: an encode the
    subject refuses so, that upstream encodes, with a Split step whose pattern is a
    Regex."""
    obs = div.observation
    refusal = obs.subject
    if obs.operation != "encode" or not isinstance(refusal, Refused):
        return NONE
    if _SYSTEM_REGEX.fullmatch(refusal.message) is None or isinstance(obs.upstream, Refused):
        return NONE
    found = any(s.get("type") == "Split" and isinstance(s.get("pattern"), dict)
                and "Regex" in s["pattern"] for s in _pre_tokenizers(ctx))
    return ALL if found else NONE


def dropout_sampled_differently(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE dropout strictly between 0 and 1 samples which merges apply: two processes (or
    two calls) segment the same text differently. Checked: the dropout is in (0, 1), both
    sides encoded, and their tokens spell the same string (two segmentations of one
    text, not two different texts)."""
    obs = div.observation
    ours, theirs = obs.subject, obs.upstream
    dropout = ctx.doc.dropout
    if obs.operation != "encode" or not isinstance(ours, Encoded) \
            or not isinstance(theirs, Encoded):
        return NONE
    if isinstance(dropout, bool) or not isinstance(dropout, int | float) \
            or not 0 < dropout < 1:
        return NONE
    return ALL if "".join(ours.tokens) == "".join(theirs.tokens) else NONE


def _text_of(document: Mapping[str, Any]) -> str:
    """A changed document as the replayer names it (its JSON text)."""
    return json.dumps(document, ensure_ascii=False, sort_keys=True)


def unknowns_not_fused_with_affixes(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x does not follow ``fuse_unk: true`` on a BPE model with a non-empty
    ``continuing_subword_prefix`` or ``end_of_word_suffix``: each unknown piece is its own
    unk token, where 0.23.1 fuses a run of them into one. Checked on both sides: the
    pinned version, replayed with ``fuse_unk: false``, gives exactly the subject's ids and
    tokens (and the same type ids and attention mask), and its own answer differs from
    that replay (it did fuse)."""
    obs = div.observation
    ours, theirs = obs.subject, obs.upstream
    if obs.operation != "encode" or not isinstance(ours, Encoded) \
            or not isinstance(theirs, Encoded) or not isinstance(obs.input, str):
        return NONE
    doc = ctx.doc
    if doc.model.get("type") != "BPE" or doc.fuse_unk is not True:
        return NONE
    if not (doc.continuing_subword_prefix or doc.end_of_word_suffix):
        return NONE
    unfused = dict(doc.raw, model={**doc.raw["model"], "fuse_unk": False})
    replayed = ctx.replay.encode("upstream", _text_of(unfused), obs.input,
                                 obs.option("pair"),
                                 add_special_tokens=bool(obs.option("add_special_tokens")))
    if not isinstance(replayed, Encoded) or replayed.ids == theirs.ids:
        return NONE
    same = (replayed.ids == ours.ids and replayed.tokens == ours.tokens
            and (not ours.type_ids or replayed.type_ids == ours.type_ids)
            and (not ours.attention_mask or replayed.attention_mask == ours.attention_mask))
    return ALL if same else NONE


def _added_ids(ctx: Context, *, special: bool | None = None,
               normalized: bool | None = None) -> frozenset[int]:
    """The ids of the document's added tokens with these flags (None: either)."""
    return frozenset(
        token["id"] for token in ctx.doc.added_tokens
        if isinstance(token.get("id"), int)
        and (special is None or bool(token.get("special")) is special)
        and (normalized is None or bool(token.get("normalized")) is normalized))


def _decoded_without(ctx: Context, ids: Sequence[int], left_out: frozenset[int]
                     ) -> str | None:
    """The pinned version's decode of ``ids`` with ``left_out`` taken out and every
    other id kept (``skip_special_tokens: false``); None where it does not decode."""
    kept = [i for i in ids if i not in left_out]
    replayed = ctx.replay.decode("upstream", ctx.json, kept, skip_special_tokens=False)
    return replayed.text if isinstance(replayed, Decoded) else None


def normalized_specials_skipped(ctx: Context, div: Divergence) -> frozenset[int]:
    """With ``skip_special_tokens: true``, 1.x skips a special added token whose
    ``normalized`` is true like any special token; 0.23.1 keeps it (in its normalized
    form) and skips only the specials with ``normalized: false``. Checked on both sides
    by replaying the pinned version's decode with the specials kept on the ids minus a
    set of them: the pinned answer is the ids minus the non-normalized specials, the
    subject's the ids minus every special, and the ids hold a normalized special."""
    obs = div.observation
    ours, theirs = obs.subject, obs.upstream
    if obs.operation != "decode" or obs.option("skip_special_tokens") is not True:
        return NONE
    if not isinstance(ours, Decoded) or not isinstance(theirs, Decoded) \
            or not isinstance(obs.input, tuple):
        return NONE
    ids = obs.input
    if not _added_ids(ctx, special=True, normalized=True) & set(ids):
        return NONE
    pinned = _decoded_without(ctx, ids, _added_ids(ctx, special=True, normalized=False))
    skipped = _decoded_without(ctx, ids, _added_ids(ctx, special=True))
    return ALL if pinned == theirs.text and skipped == ours.text else NONE


def added_tokens_decoded_by_content(ctx: Context, div: Divergence) -> frozenset[int]:
    """Before 0.23, decode gives an added token with ``normalized: true`` by its content;
    0.23.1 gives it in its normalized form (``▁Wo`` for ``Wo`` under a Prepend, ``<x▁``
    for ``<x>`` under a Replace of ``>``), and keeps a normalized special that skipping
    would drop. Checked on both sides: the ids hold such a token, and the pinned version
    replayed on the document with every added token's ``normalized`` set false gives
    exactly the subject's text, where its own answer differs."""
    obs = div.observation
    ours, theirs = obs.subject, obs.upstream
    if obs.operation != "decode" or not isinstance(ours, Decoded) \
            or not isinstance(theirs, Decoded) or not isinstance(obs.input, tuple):
        return NONE
    if not _added_ids(ctx, normalized=True) & set(obs.input):
        return NONE
    plain = dict(ctx.doc.raw, added_tokens=[
        {**token, "normalized": False} for token in ctx.doc.raw.get("added_tokens", [])])
    replayed = ctx.replay.decode("upstream", _text_of(plain), list(obs.input),
                                 skip_special_tokens=bool(obs.option("skip_special_tokens")))
    ok = isinstance(replayed, Decoded) and replayed.text == ours.text != theirs.text
    return ALL if ok else NONE


#: The refusal's rule (its message without serde's position suffix).
_OUT_OF_VOCABULARY: Final = re.compile(r"Token `(.*)` out of vocabulary", re.S)


def merge_out_of_vocabulary_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Before 0.23, a merge naming a token outside the vocabulary is refused at load
    ("Token `X` out of vocabulary"); 0.23.1 panics on some such files instead. Checked on
    both sides: the subject refused naming a token that a merge holds (a part, or the
    prefix-stripped part of a model with a ``continuing_subword_prefix``, or the merge's
    result) and that is not a vocabulary string, and the pinned version panicked."""
    obs = div.observation
    refusal = obs.subject
    if obs.operation != "load" or not isinstance(refusal, Refused) \
            or not isinstance(obs.upstream, Crashed) or obs.upstream.kind != "panic":
        return NONE
    named = _OUT_OF_VOCABULARY.fullmatch(refusal.rule)
    if named is None or named.group(1) in ctx.doc.vocab:
        return NONE
    prefix = ctx.doc.continuing_subword_prefix or ""
    parts: set[str] = set()
    for merge in ctx.doc.merges if isinstance(ctx.doc.merges, list) else []:
        pair = merge.split(" ", 1) if isinstance(merge, str) else merge
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair):
            parts.update(pair)
            parts.update(p.removeprefix(prefix) for p in pair if prefix)
            parts.add(pair[0] + pair[1].removeprefix(prefix))
    return ALL if named.group(1) in parts else NONE


def _with_string_split_patterns(step: Any) -> Any:
    """A pre-tokenizer with every Split step's ``Regex`` pattern made a plain string."""
    if not isinstance(step, dict):
        return step
    if step.get("type") == "Sequence" and isinstance(step.get("pretokenizers"), list):
        return {**step, "pretokenizers": [_with_string_split_patterns(s)
                                          for s in step["pretokenizers"]]}
    if step.get("type") == "Split" and isinstance(step.get("pattern"), dict) \
            and "Regex" in step["pattern"]:
        return {**step, "pattern": {"String": " "}}
    return step


def split_regex_checked_at_encode(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x loads a Split pre-tokenizer whose ``Regex`` pattern Oniguruma refuses: it
    compiles no Split pattern at load (and, as published, cannot encode with one:
    ``split-regex-needs-backend``); 0.23.1 refuses the file with Oniguruma's syntax error.
    Checked on both sides: the subject loaded, the pinned version refused with an
    Oniguruma error, and replayed with every Split step's Regex made a plain string it
    loads (the refusal was the Split pattern's)."""
    obs = div.observation
    refusal = obs.upstream
    if obs.operation != "load" or not isinstance(obs.subject, Loaded) \
            or not isinstance(refusal, Refused) or not refusal.message.startswith(
                "Oniguruma error:"):
        return NONE
    top = ctx.doc.raw.get("pre_tokenizer")
    plain = _with_string_split_patterns(top)
    if plain == top:
        return NONE
    replayed = ctx.replay.load("upstream", _text_of(dict(ctx.doc.raw, pre_tokenizer=plain)))
    return ALL if isinstance(replayed, Loaded) else NONE


def word_end_without_suffix(ctx: Context, div: Divergence) -> frozenset[int]:
    """With an ``end_of_word_suffix``, 1.x gives a word of one character by its bare
    vocabulary string where there is one (``b`` for the word ``b``, beside ``b</w>`` or
    without it); 0.23.1 gives the suffixed form, or the unk token where that is missing
    (the last piece of a longer word is the suffixed form or the unk token in both).
    Checked on both sides: at every differing position the subject gives a vocabulary
    string and 0.23.1 that string with the suffix, or the unk token where the suffixed
    form is missing, and then 0.23.1 replayed with those suffixed forms added (fresh ids)
    gives them at exactly those positions and its own answer elsewhere."""
    obs = div.observation
    ours, theirs = obs.subject, obs.upstream
    if obs.operation != "encode" or not isinstance(ours, Encoded) \
            or not isinstance(theirs, Encoded) or not isinstance(obs.input, str):
        return NONE
    doc = ctx.doc
    suffix = doc.end_of_word_suffix
    unk_id = doc.vocab.get(doc.unk_token) if doc.unk_token is not None else None
    if doc.model.get("type") != "BPE" or not suffix or len(ours.ids) != len(theirs.ids) \
            or len(ours.tokens) != len(ours.ids) or len(theirs.tokens) != len(theirs.ids):
        return NONE
    differing = [i for i, (a, b) in enumerate(zip(ours.ids, theirs.ids, strict=True))
                 if a != b]
    missing: list[int] = []  # positions where 0.23.1 gave the unk token
    for i in differing:
        bare = ours.tokens[i]
        if doc.vocab.get(bare) != ours.ids[i]:
            return NONE
        if theirs.tokens[i] == bare + suffix and doc.vocab.get(bare + suffix) == theirs.ids[i]:
            continue
        if unk_id is None or theirs.ids[i] != unk_id or bare + suffix in doc.vocab:
            return NONE
        missing.append(i)
    if not differing:
        return NONE
    if not missing:
        return ALL
    taken = [v for v in doc.vocab.values() if isinstance(v, int)]
    taken += [t["id"] for t in doc.added_tokens if isinstance(t.get("id"), int)]
    start = max(taken, default=-1) + 1
    pieces = dict.fromkeys(ours.tokens[i] + suffix for i in missing)
    fresh = {piece: start + n for n, piece in enumerate(pieces)}
    extended = dict(doc.raw, model={**doc.raw["model"], "vocab": {**doc.vocab, **fresh}})
    replayed = ctx.replay.encode("upstream", _text_of(extended), obs.input,
                                 obs.option("pair"),
                                 add_special_tokens=bool(obs.option("add_special_tokens")))
    if not isinstance(replayed, Encoded) or len(replayed.ids) != len(theirs.ids):
        return NONE
    expected = list(theirs.ids)
    for i in missing:
        expected[i] = fresh[ours.tokens[i] + suffix]
    return ALL if list(replayed.ids) == expected else NONE

_BYTE_PIECE: Final = re.compile(r"<0x([0-9A-F]{2})>")


def _byte_runs(tokens: Sequence[str]) -> list[str | bytes]:
    """The tokens with each run of byte pieces (``<0xNN>``) joined into its bytes."""
    items: list[str | bytes] = []
    for token in tokens:
        piece = _BYTE_PIECE.fullmatch(token)
        if piece is None:
            items.append(token)
        elif items and isinstance(items[-1], bytes):
            items[-1] += bytes([int(piece.group(1), 16)])
        else:
            items.append(bytes([int(piece.group(1), 16)]))
    return items


def _with_insertions(bare: bytes, pinned: bytes, prefix: bytes) -> bool:
    """Whether ``pinned`` is ``bare`` with ``prefix`` inserted at one place or more (the
    prefix of each continued piece a byte run covers)."""
    reachable = {(0, 0)}
    frontier = [(0, 0)]
    while frontier:
        i, j = frontier.pop()
        steps = []
        if i < len(bare) and j < len(pinned) and bare[i] == pinned[j]:
            steps.append((i + 1, j + 1))
        if pinned.startswith(prefix, j):
            steps.append((i, j + len(prefix)))
        for step in steps:
            if step not in reachable:
                reachable.add(step)
                frontier.append(step)
    return len(pinned) > len(bare) and (len(bare), len(pinned)) in reachable


def prefix_not_byte_fallen(ctx: Context, div: Divergence) -> frozenset[int]:
    """With ``byte_fallback`` and a ``continuing_subword_prefix``, 0.23.1 falls back to
    the bytes of the prefixed piece (``##`` and a space: ``<0x23> <0x23> <0x20>``), 1.x to
    the bytes of the piece alone (``<0x20>``). Checked on both sides: the two token lists,
    runs of byte pieces joined, are equal item by item except runs where 0.23.1's bytes
    are exactly the subject's with the prefix's UTF-8 inserted (before each continued
    piece the run covers)."""
    obs = div.observation
    ours, theirs = obs.subject, obs.upstream
    prefix = ctx.doc.continuing_subword_prefix
    if obs.operation != "encode" or not isinstance(ours, Encoded) \
            or not isinstance(theirs, Encoded) or not prefix or not ctx.doc.byte_fallback:
        return NONE
    mine, pinned = _byte_runs(ours.tokens), _byte_runs(theirs.tokens)
    if len(mine) != len(pinned):
        return NONE
    seen = False
    for a, b in zip(mine, pinned, strict=True):
        if a == b:
            continue
        if not (isinstance(a, bytes) and isinstance(b, bytes)
                and _with_insertions(a, b, prefix.encode("utf-8"))):
            return NONE
        seen = True
    return ALL if seen else NONE


def stripped_whitespace_not_in_tokens(ctx: Context, div: Divergence) -> frozenset[int]:
    """1.x's encoding has no token strings: the adapter names each id with
    ``decode_tokens``, which gives an added token's content. 0.23.1's ``Encoding.tokens``
    gives the text the token matched, so an added token with ``lstrip`` or ``rstrip``
    carries the whitespace it took (``Wo `` for ``Wo`` with ``rstrip: true``). Checked on
    both sides: the ids agree, and at every differing position the subject names the
    added token of that id by its content, and 0.23.1 names it by that content with
    whitespace on the side or sides it strips."""
    obs = div.observation
    ours, theirs = obs.subject, obs.upstream
    if obs.operation != "encode" or not isinstance(ours, Encoded) \
            or not isinstance(theirs, Encoded) or ours.ids != theirs.ids \
            or len(ours.tokens) != len(theirs.tokens):
        return NONE
    added = {t["id"]: t for t in ctx.doc.added_tokens if isinstance(t.get("id"), int)}
    seen = False
    for token_id, mine, pinned in zip(ours.ids, ours.tokens, theirs.tokens, strict=True):
        if mine == pinned:
            continue
        token = added.get(token_id)
        content = token.get("content") if token is not None else None
        if token is None or not isinstance(content, str) or not content or content not in mine:
            return NONE  # the content, or (normalized: true) its normalized form
        start = pinned.find(mine)
        before, after = pinned[:start], pinned[start + len(mine):]
        ok = (start >= 0 and (before == "" or (token.get("lstrip") is True
                                               and before.isspace()))
              and (after == "" or (token.get("rstrip") is True and after.isspace())))
        if not ok:
            return NONE
        seen = True
    return ALL if seen else NONE


RECOGNISERS: Final[dict[str, Predicate]] = {function.__name__: function for function in (
    added_tokens_decoded_by_content,
    byte_fallback_alphabet_required,
    byte_level_alphabet_required,
    byte_level_prefix_space_unsupported,
    dropout_sampled_differently,
    dropout_unsupported,
    merge_out_of_vocabulary_refused,
    metaspace_in_sequence_unsupported,
    normalized_specials_skipped,
    prefix_not_byte_fallen,
    split_regex_checked_at_encode,
    split_regex_needs_backend,
    stripped_whitespace_not_in_tokens,
    unk_token_required,
    unknowns_not_fused_with_affixes,
    word_end_without_suffix,
)}
