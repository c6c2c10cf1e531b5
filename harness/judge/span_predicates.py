"""Predicates of the encode tier's intended classes that explain token positions (spans,
masks, order): template specials, decorated byte pieces, byte-level trimmed offsets,
dropped characters, and the unk/byte-fallback ordering bug (decisions 0008, 0024)."""

from __future__ import annotations

from typing import Any

from ..core.observation import Observation
from ..core.outcome import Encoded
from ..documents.view import Component
from .byte_level_spans import byte_level_spans, trimming_steps, upstream_trimmed_spans
from .byte_pieces import byte_piece_violations
from .compare import Divergence
from .context import _BYTE_PIECE, ALL, NONE, Context, _yes
from .specification import sequence_counts, template_layout


def _encodings(div: Divergence) -> tuple[Encoded, Encoded] | None:
    ref, up = div.observation.subject, div.observation.upstream
    if isinstance(ref, Encoded) and isinstance(up, Encoded):
        return ref, up
    return None


def differing_positions(mine: tuple[Any, ...], theirs: tuple[Any, ...]) -> set[int]:
    """Positions where two tiers differ; past the shorter one, every position differs."""
    return ({i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b}
            | set(range(min(len(mine), len(theirs)), max(len(mine), len(theirs)))))


def _differing_spans(ref: Encoded, up: Encoded) -> set[int]:
    return differing_positions(ref.spans, up.spans)


def template_special_spans(ctx: Context, div: Divergence) -> frozenset[int]:
    pair = _encodings(div)
    if pair is None or div.tier != "spans":
        return NONE
    ref, up = pair
    slots = _template_special_positions(ctx, div.observation, ref)
    return frozenset(
        i for i in _differing_spans(ref, up)
        if i in slots and i < len(up.spans) and ref.ids[i] == up.ids[i]
        and ref.special_mask[i] == 1 and ref.spans[i] == (-1, -1) and up.spans[i] == (0, 0)
    )


def _template_special_positions(ctx: Context, obs: Observation, ref: Encoded) -> set[int]:
    """Our side: the positions where the document's template puts a special token, and
    our token there is that special."""
    pair = obs.option("pair") is not None
    add = bool(obs.option("add_special_tokens", True))
    counts = sequence_counts(ctx.doc.raw, ref, pair, add)
    layout = None if counts is None else template_layout(ctx.doc.raw, counts, pair, add)
    if layout is None or len(layout) != len(ref.ids):
        return set()
    return {i for i, slot in enumerate(layout)
            if slot.special_id is not None and ref.ids[i] == slot.special_id}


def decorated_byte_fallback_spans(ctx: Context, div: Divergence) -> frozenset[int]:
    pair = _encodings(div)
    if pair is None or div.tier != "spans" or not ctx.doc.byte_fallback \
            or not ctx.doc.decorated:
        return NONE
    ref, up = pair
    prefix, suffix = ctx.doc.continuing_subword_prefix, ctx.doc.end_of_word_suffix
    words = _words_with_decorated_bytes(ref, div.observation,
                                        prefix if isinstance(prefix, str) else "",
                                        suffix if isinstance(suffix, str) else "")
    candidates = [i for i in _differing_spans(ref, up)
                  if i < len(ref.model_word_ids) and ref.model_word_ids[i] is not None
                  and _word_key(ref, i) in words]
    if not candidates:
        return NONE
    # Our side: every byte piece of the word sits on its own symbol's character.
    obs = div.observation
    texts = (obs.input if isinstance(obs.input, str) else "",
             *([obs.option("pair")] if isinstance(obs.option("pair"), str) else []))
    wrong = byte_piece_violations(ref, texts, ctx.doc.model, plain=(
        not ctx.doc.present("normalizer") and not ctx.doc.present("pre_tokenizer")))
    bad_words = {_word_key(ref, i) for i in wrong}
    return frozenset(i for i in candidates if _word_key(ref, i) not in bad_words)


def byte_level_trimmed_offsets(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream's ByteLevel post-processor with ``trim_offsets`` moves offsets past the space
    symbols at a token's edges; ours stay on the characters the token came from (decision
    0024). Recognised at the positions where the two tokens agree, upstream's span is ours
    trimmed as upstream trims, and ours is the contract's span (``byte_level_spans``; over
    a pipeline without a ByteLevel pre-tokenizer, tokens that spell their characters)."""
    pair = _encodings(div)
    steps = trimming_steps(ctx.doc.raw)
    if pair is None or div.tier != "spans" or not steps:
        return NONE
    ref, up = pair
    obs = div.observation
    texts = (obs.input if isinstance(obs.input, str) else "",
             *([obs.option("pair")] if isinstance(obs.option("pair"), str) else []))
    trimmed = upstream_trimmed_spans(ref, steps)
    contract = byte_level_spans(ref, texts, ctx.doc.raw, ctx.spec.aligned, plain=True)
    return frozenset(i for i in _differing_spans(ref, up)
                     if i < min(len(ref.ids), len(up.ids)) and ref.ids[i] == up.ids[i]
                     and up.spans[i] == trimmed[i] and contract.get(i) == ref.spans[i])


def _source_text(ref: Encoded, obs: Observation, position: int) -> str:
    """The input token ``position`` came from: the text, or the pair's second text."""
    second = obs.option("pair")
    sequence = ref.sequence_ids[position] if position < len(ref.sequence_ids) else 0
    if sequence == 1 and isinstance(second, str):
        return second
    return obs.input if isinstance(obs.input, str) else ""


def _in_pair(ref: Encoded, position: int) -> bool:
    """The token came from the pair's second text (as ``_source_text`` reads it)."""
    return position < len(ref.sequence_ids) and ref.sequence_ids[position] == 1


def _word_key(ref: Encoded, position: int) -> tuple[int | None, int | None]:
    """A word of one input: (its sequence, its index there)."""
    sequence = ref.sequence_ids[position] if position < len(ref.sequence_ids) else 0
    return (sequence, ref.model_word_ids[position])


def _words_with_decorated_bytes(ref: Encoded, obs: Observation, prefix: str, suffix: str
                                ) -> set[tuple[int | None, int | None]]:
    """Words holding a decorated symbol expanded to byte pieces: a run of byte pieces of
    one word sharing one span that holds more bytes than the characters of that span, or
    whose bytes spell characters each with the model's continuing-subword prefix before
    it and/or its end-of-word suffix after it (a character a normalizer inserted has a
    neighbour's span, so only its bytes tell)."""
    runs: dict[tuple[tuple[int | None, int | None], tuple[int, int], str], bytearray] = {}
    for i, (token, span) in enumerate(zip(ref.tokens, ref.spans, strict=False)):
        value = _token_bytes(token, len(prefix.encode("utf-8")))
        if value is not None and ref.model_word_ids[i] is not None:
            key = (_word_key(ref, i), span, _source_text(ref, obs, i))
            runs.setdefault(key, bytearray()).extend(value)
    return {word for (word, (start, end), text), run in runs.items()
            if len(run) > len(text[start:end].encode("utf-8", "surrogatepass"))
            or _decorated(bytes(run), prefix, suffix)}


def _decorated(run: bytes, prefix: str, suffix: str) -> bool:
    """The bytes spell one or more symbols ``prefix? char suffix?``, one decorated."""
    try:
        symbols = run.decode("utf-8")
    except UnicodeDecodeError:
        return False
    position, decorated = 0, False
    while position < len(symbols):
        if prefix and symbols.startswith(prefix, position):
            position += len(prefix)
            decorated = True
        position += 1
        if suffix and symbols.startswith(suffix, position):
            position += len(suffix)
            decorated = True
    return decorated and position == len(symbols)


def _token_bytes(token: str, prefix_length: int) -> bytes | None:
    """The bytes a token of byte pieces stands for: ``<0xC3>``, or byte pieces merged,
    each right part cut by the prefix's length as upstream merges (``<0xC3>xA9>`` under
    a two-character prefix). None for any other token."""
    first = _BYTE_PIECE.match(token)
    if first is None or prefix_length > 3:
        return None
    rest = "<0x"[prefix_length:] if prefix_length else "<0x"
    values = [int(token[3:5], 16)]
    position = first.end()
    while position < len(token):
        if not token.startswith(rest, position):
            return None
        digits = token[position + len(rest):position + len(rest) + 3]
        if len(digits) != 3 or digits[2] != ">" or not all(
                c in "0123456789ABCDEFabcdef" for c in digits[:2]):
            return None
        values.append(int(digits[:2], 16))
        position += len(rest) + 3
    return bytes(values)


def dropped_character_offsets(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream gives a dropped character no length, so the offsets it computes after one
    (in normalized bytes, then mapped to the text) point to earlier text. Recognised when
    the lenient reference, which drops it too, really has a character to drop in the text's
    words, the tokens agree, and each differing upstream span lies at or left of ours."""
    pair = _encodings(div)
    obs = div.observation
    if (pair is None or div.tier != "spans" or ctx.doc.unk_token is not None
            or obs.track != "lenient" or not ctx.lenient_loaded()
            or not isinstance(obs.input, str)):
        return NONE
    texts = [obs.input, *([obs.option("pair")] if obs.option("pair") is not None else [])]
    if not any(_drops_a_symbol(ctx, word) for text in texts
               for word in ctx.replay.words("lenient", ctx.json, text)):
        return NONE
    ref, up = pair
    plain = _spelled_in_place(ctx)
    return frozenset(
        i for i in _differing_spans(ref, up)
        if i < min(len(ref.spans), len(up.spans))
        and up.spans[i][0] <= ref.spans[i][0] and up.spans[i][1] <= ref.spans[i][1]
        # Our side: the true span, inside the text it came from, and on a document whose
        # words are the text's own characters, the characters the token spells.
        and 0 <= ref.spans[i][0] <= ref.spans[i][1] <= len(_source_text(ref, obs, i))
        and (not plain or _spells(ctx, ref.tokens[i],
                                  _source_text(ref, obs, i)[ref.spans[i][0]:ref.spans[i][1]]))
    )


#: Steps after which a word's characters are still the text's, but for the space and its
#: U+2581 stand-in (Llama's normalizer, Metaspace): spelling is then checked without either.
_SPACE_ONLY_STEPS = frozenset({"Prepend", "Replace", "Metaspace"})


def _spelled_in_place(ctx: Context) -> bool:
    """A token's characters are its span's, the space and U+2581 aside: no normalizer or
    pre-tokenizer, or only Prepend, Replace of the space and Metaspace steps."""
    names: tuple[Component, ...] = ("normalizer", "pre_tokenizer")
    for name in names:
        for step in ctx.doc.steps(name):
            if step is None or step.get("type") not in _SPACE_ONLY_STEPS:
                return False
            if step.get("type") == "Replace" and step.get("pattern") != {"String": " "}:
                return False
    return True


def _spells(ctx: Context, token: str, source: str) -> bool:
    """``source`` holds ``token``'s characters in order (the model's decoration, the space and
    its U+2581 stand-in aside), and every other character of it is one the lenient reference
    may drop (our spans keep a dropped character's coordinates inside a token's). A byte
    piece (its span is the specification oracle's) and the unknown token pass as they are."""
    if token == ctx.doc.unk_token or _BYTE_PIECE.match(token):
        return True
    prefix, suffix = ctx.doc.continuing_subword_prefix, ctx.doc.end_of_word_suffix
    wanted = token
    for decoration in (prefix, suffix):
        if isinstance(decoration, str) and decoration:
            wanted = wanted.replace(decoration, "")
    wanted = _without_spaces(wanted)
    k = 0
    for ch in _without_spaces(source):
        if k < len(wanted) and ch == wanted[k]:
            k += 1
        elif not _may_be_dropped(ctx, ch):
            return False
    return k == len(wanted)


def _may_be_dropped(ctx: Context, ch: str) -> bool:
    """Some decorated form of ``ch`` is neither a piece nor covered by byte pieces."""
    prefix, suffix = ctx.doc.continuing_subword_prefix, ctx.doc.end_of_word_suffix
    heads = ("", prefix) if isinstance(prefix, str) else ("",)
    tails = ("", suffix) if isinstance(suffix, str) else ("",)
    return not all(_resolves(ctx, f"{head}{ch}{tail}") for head in heads for tail in tails)


def _resolves(ctx: Context, symbol: str) -> bool:
    """``symbol`` is a piece of the vocabulary, or byte fallback covers it with byte pieces
    of the vocabulary, every one."""
    vocab = ctx.doc.vocab
    return symbol in vocab or (ctx.doc.byte_fallback and all(
        f"<0x{b:02X}>" in vocab for b in symbol.encode("utf-8", "surrogatepass")))


def _symbol(ctx: Context, word: str, k: int) -> str:
    """The ``k``-th character of ``word`` decorated as upstream decorates it: the
    continuing-subword prefix after the first, the end-of-word suffix on the last."""
    prefix, suffix = ctx.doc.continuing_subword_prefix, ctx.doc.end_of_word_suffix
    symbol = f"{prefix}{word[k]}" if k > 0 and isinstance(prefix, str) else word[k]
    return f"{symbol}{suffix}" if k == len(word) - 1 and isinstance(suffix, str) else symbol


def _without_spaces(text: str) -> str:
    return text.replace(" ", "").replace("\u2581", "")


def _always_dropped(ctx: Context, ch: str) -> bool:
    """No decorated form of ``ch`` is a piece or has all its byte pieces."""
    prefix, suffix = ctx.doc.continuing_subword_prefix, ctx.doc.end_of_word_suffix
    forms = {ch, *((f"{prefix}{ch}",) if isinstance(prefix, str) else ()),
             *((f"{ch}{suffix}",) if isinstance(suffix, str) else ()),
             *((f"{prefix}{ch}{suffix}",) if isinstance(prefix, str) and isinstance(suffix, str)
               else ())}
    return not any(_resolves(ctx, form) for form in forms)


def _drops_a_symbol(ctx: Context, word: str) -> bool:
    """Some symbol of the word (a character, decorated as upstream decorates it) has no
    piece and no complete byte pieces, so that without an unk token it is dropped."""
    return not all(_resolves(ctx, _symbol(ctx, word, k)) for k in range(len(word)))


# -- the ordering bug ------------------------------------------------------------------------
def unk_byte_fallback_ordering(ctx: Context, div: Divergence) -> frozenset[int]:
    pair = _encodings(div)
    unk = ctx.doc.unk_token
    if pair is None or unk is None or not ctx.doc.byte_fallback \
            or div.observation.track != "lenient":
        return NONE
    ref, up = pair
    if unk not in ref.tokens:  # nothing pending, nothing moved (``_misorder``'s None)
        return NONE
    fuse = ctx.doc.fuse_unk
    order = _misorder(ref, div.observation, unk, fuse)
    if order is None:
        return NONE
    if [ref.ids[i] for i in order] != list(up.ids) or [
            ref.tokens[i] for i in order] != list(up.tokens):
        return NONE
    # Our side, token by token: the unknowns are exactly the ones our rule makes.
    if not _unknowns_as_our_rule_makes_them(ctx, ref, div.observation, unk):
        return NONE
    if div.tier in _MASK_TIERS:  # upstream's masks are ours, in upstream's order
        mine = getattr(ref, div.tier)
        return _yes([mine[i] for i in order] == list(getattr(up, div.tier)))
    # Our side: the correct order, each word's pieces in the order of their characters.
    starts: dict[tuple[int | None, int | None], int] = {}
    for i, (start, _) in enumerate(ref.spans):
        if ref.model_word_ids[i] is not None:
            key = _word_key(ref, i)
            if start < starts.get(key, start):
                return NONE
            starts[key] = start
    return ALL


_MASK_TIERS = ("special_mask", "type_ids", "attention_mask")


def _unknowns_as_our_rule_makes_them(ctx: Context, ref: Encoded, obs: Observation,
                                     unk: str) -> bool:
    """Our unknown tokens, text by text and in order, are the ones the founding rule makes
    from the document alone (``docs/spec/byte-fallback.md`` bf-fact-6-no-fuse): a symbol
    that is neither a vocabulary entry nor covered by byte pieces becomes one unknown, and
    with ``fuse_unk`` only directly neighbouring unknown symbols of one word fuse (never
    across a vocabulary symbol or byte pieces). On a document with no normalizer and no
    pre-tokenizer each unknown must also span exactly its characters; otherwise their
    number is checked (the characters of a word are then not the text's). Each unknown has
    the unknown token's id. Where a merge has the unknown token as a part, our unknowns may
    merge away, and only the misordering proves our stream (the check passes); so where the
    judgement may run nothing (a third-party recogniser's, ``NothingReplayed``)."""
    if _merges_touch(ctx.doc.merges, unk) or not ctx.replay.available("lenient"):
        return True  # (a recogniser's judgement of a rebuilt observation runs nothing)
    unk_id = ctx.doc.vocab.get(unk)
    plain = not ctx.doc.present("normalizer") and not ctx.doc.present("pre_tokenizer")
    second = obs.option("pair")
    texts = [obs.input if isinstance(obs.input, str) else "",
             *([second] if isinstance(second, str) else [])]
    for sequence, text in enumerate(texts):
        expected = [run for word in ctx.replay.words("lenient", ctx.json, text)
                    for run in _unknown_runs(ctx, word)]
        mine: list[str] = []
        for i, token in enumerate(ref.tokens):
            if token != unk or ref.model_word_ids[i] is None or _in_pair(ref, i) != (sequence == 1):
                continue
            if ref.ids[i] != unk_id:
                return False
            start, end = ref.spans[i]
            if not 0 <= start < end <= len(text):
                return False  # an unknown covers a character at least, inside its text
            mine.append(text[start:end])
        if len(mine) != len(expected) or (plain and mine != expected):
            return False
    return True


def _unknown_runs(ctx: Context, word: str) -> list[str]:
    """The characters each unknown token of ``word`` covers under our rule."""
    fuse = ctx.doc.fuse_unk
    runs: list[str] = []
    open_run = False
    for k, ch in enumerate(word):
        if _resolves(ctx, _symbol(ctx, word, k)):
            open_run = False
        elif open_run and fuse:
            runs[-1] += ch
        else:
            runs.append(ch)
            open_run = True
    return runs


def _merges_touch(merges: Any, token: str) -> bool:
    """Some merge (a pair or an ``"a b"`` string) has ``token`` as a part."""
    if not isinstance(merges, list):
        return False
    for merge in merges:
        parts = merge.split(" ") if isinstance(merge, str) else merge
        if isinstance(parts, list) and token in parts:
            return True
    return False


def _misorder(ref: Encoded, obs: Observation, unk: str, fuse: bool) -> list[int] | None:
    """Upstream's symbol order rebuilt from the correct stream, as the positions of our
    tokens in upstream's order: within a word, a pending unk is flushed only by an
    in-vocabulary token or the word's end; byte-resolved pieces go out at once;
    consecutive unks keep fusing across them when fuse_unk is on (a fused unk keeps the
    first one's position). Returns None when nothing was reordered (the class then does
    not apply)."""
    order: list[int] = []
    pending: list[int] = []
    moved = False
    current_word: object = object()

    def flush() -> None:
        order.extend(pending)
        pending.clear()

    for i, (token, span) in enumerate(zip(ref.tokens, ref.spans, strict=False)):
        word = _word_key(ref, i) if ref.model_word_ids[i] is not None else None
        text = _source_text(ref, obs, i)
        if word != current_word:
            flush()
            current_word = word
        if word is None:
            order.append(i)
            continue
        source = text[span[0]:span[1]] if 0 <= span[0] <= span[1] <= len(text) else ""
        is_byte = _BYTE_PIECE.fullmatch(token) is not None and source != token
        if token == unk:
            if pending and fuse:
                continue  # fuses into the pending unk
            flush()
            pending.append(i)
        elif is_byte and pending:
            moved = True
            order.append(i)
        else:
            flush()
            order.append(i)
    flush()
    return order if moved else None
