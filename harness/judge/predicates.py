"""Predicates of the intended-divergence registry (``harness/judge/divergences.yaml``).

Each takes the classification context and one divergence and returns the set of token
positions it explains (for the ``spans`` tier) or, for every other tier, a non-empty set
(``ALL``) when it positively recognises the divergence, else an empty set. A predicate
never says yes because "something unusual" is present: it checks the specific mechanism,
on both sides. Upstream must show the recorded behaviour, and our side must do exactly
what our rule says, as the specification oracle (``specification.py``) derives it from
the document: a refusal names the rule and the JSON path where the document breaks it; a
contract span is the contract's span at that very position; a decode is the text our
rule gives. A predicate may compose with another class (``Context.also``): a strict
refusal whose lenient outcome still differs from upstream is explained only when that
remaining difference is itself recognised (a Metaspace decoder, a Strip panic).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from functools import cached_property
from typing import Any

from ..core.case import Case
from ..core.observation import Observation
from ..core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from .byte_level_spans import byte_level_spans, trimming_steps, upstream_trimmed_spans
from .compare import Divergence
from .replay import Replayer, Side
from .specification import (
    Specification,
    broken_rules,
    byte_piece_violations,
    known_ids,
    names_broken_path,
    sequence_counts,
    template_layout,
)
from .upstream_decoders import metaspace_decode_upstream, strip_upstream, strip_would_panic

ALL: frozenset[int] = frozenset({-1})
NONE: frozenset[int] = frozenset()

BYTE_PIECES = tuple(f"<0x{b:02X}>" for b in range(256))
_BYTE_PIECE = re.compile(r"<0x[0-9A-Fa-f]{2}>")
_LOWER_BYTE_PIECE = re.compile(r"<0x(?=[0-9A-Fa-f]{2}>)[0-9A-F]*[a-f][0-9A-Fa-f]*>")


class Context:
    """What a predicate may look at: the case, and what ``replay`` runs again for it."""

    def __init__(self, case: Case, replay: Replayer) -> None:
        self.case = case
        self.replay = replay
        self.document = case.document
        #: The document as the subjects received it (how the replayer names it).
        self.json = case.document_json()
        model = case.document.get("model")
        self.model: dict[str, Any] = model if isinstance(model, dict) else {}
        vocab = self.model.get("vocab")
        self.vocab: dict[str, Any] = vocab if isinstance(vocab, dict) else {}
        #: Predicates a predicate composed with for its last answer (their names).
        self.also: list[str] = []
        #: The names of the predicates in force for this judgement (every class the judge
        #: was given): recognisers that compose only compose with those.
        self.in_force: frozenset[str] | None = None

    @cached_property
    def spec(self) -> Specification:
        return Specification(self.case, self.replay)

    @cached_property
    def broken(self) -> dict[str, set[str]]:
        return broken_rules(self.document)

    @property
    def lenient(self) -> Outcome:
        """How the lenient reference loads the document."""
        return self.replay.load("lenient", self.json)

    @property
    def strict(self) -> Outcome:
        """How the strict reference loads the document."""
        return self.replay.load("strict", self.json)

    def loads(self, side: Side) -> bool:
        return not isinstance(self.replay.load(side, self.json), Refused | Crashed)

    @property
    def byte_fallback(self) -> bool:
        return self.model.get("byte_fallback") is True

    @property
    def unk_token(self) -> str | None:
        unk = self.model.get("unk_token")
        return unk if isinstance(unk, str) else None

    def lenient_loaded(self) -> bool:
        return self.loads("lenient")

    def lenient_accounted_for(self) -> bool:
        """The lenient reference loads, or refuses for a reason that is itself an intended
        divergence (a rule both modes keep: an unreproducible regex, a duplicate id,
        a non-deterministic dropout). Strictness classes need this, so that a strict rule
        never hides an unexplained lenient refusal."""
        if self.lenient_loaded():
            return True
        if not isinstance(self.lenient, Refused):
            return False
        observation = Observation("lenient", "load", None, (), self.lenient, Loaded())
        divergence = Divergence("load", "", observation)
        return any(predicate(self, divergence) for predicate in _BOTH_MODES)


Predicate = Callable[[Context, Divergence], frozenset[int]]


def _refused_with(outcome: Outcome, rule: str) -> bool:
    return isinstance(outcome, Refused) and outcome.rule == rule


def _strict_load(div: Divergence, rule: str) -> bool:
    obs = div.observation
    return (obs.operation == "load" and isinstance(obs.upstream, Loaded)
            and _refused_with(obs.reference, rule))


def _refused_where_broken(ctx: Context, div: Divergence, rule: str) -> bool:
    """Our side: the refusal names a JSON path where the document breaks ``rule``."""
    ref = div.observation.reference
    return isinstance(ref, Refused) and names_broken_path(rule, ref.path, ctx.broken)


def _yes(condition: bool) -> frozenset[int]:
    return ALL if condition else NONE


# -- strictness at load -----------------------------------------------------------------
def strict_byte_alphabet_incomplete(ctx: Context, div: Divergence) -> frozenset[int]:
    missing = [p for p in BYTE_PIECES if p not in ctx.vocab]
    return _yes(_strict_load(div, "byte-alphabet-incomplete") and ctx.byte_fallback
                and bool(missing) and div.observation.track == "strict"
                and _refused_where_broken(ctx, div, "byte-alphabet-incomplete")
                and ctx.lenient_accounted_for())


def strict_byte_piece_lowercase(ctx: Context, div: Divergence) -> frozenset[int]:
    lower = [p for p in ctx.vocab if _LOWER_BYTE_PIECE.fullmatch(p)]
    return _yes(_strict_load(div, "byte-piece-lowercase") and ctx.byte_fallback
                and bool(lower) and div.observation.track == "strict"
                and _refused_where_broken(ctx, div, "byte-piece-lowercase")
                and ctx.lenient_accounted_for())


def _decoder_types(decoder: Any) -> list[Any]:
    if not isinstance(decoder, dict):
        return [None]
    if decoder.get("type") == "Sequence" and isinstance(decoder.get("decoders"), list):
        return [d.get("type") if isinstance(d, dict) else None for d in decoder["decoders"]]
    return [decoder.get("type"), "<bare>"]


def strict_decoder_shape(ctx: Context, div: Divergence) -> frozenset[int]:
    decoder = ctx.document.get("decoder")
    reproduced = (
        isinstance(decoder, dict) and decoder.get("type") == "ByteFallback"
    ) or _decoder_types(decoder) == ["Replace", "ByteFallback", "Fuse", "Strip"]
    return _yes(_strict_load(div, "decoder-shape") and ctx.byte_fallback and not reproduced
                and div.observation.track == "strict"
                and _refused_where_broken(ctx, div, "decoder-shape")
                and ctx.lenient_accounted_for())


def strict_unk_token_not_in_vocabulary(ctx: Context, div: Divergence) -> frozenset[int]:
    unk = ctx.unk_token
    return _yes(_strict_load(div, "unk-token-not-in-vocabulary") and unk is not None
                and unk not in ctx.vocab
                and _refused_where_broken(ctx, div, "unk-token-not-in-vocabulary")
                and ctx.lenient_accounted_for())


def strict_dropout_nondeterministic(ctx: Context, div: Divergence) -> frozenset[int]:
    dropout = ctx.model.get("dropout")
    return _yes(_strict_load(div, "dropout-nondeterministic")
                and isinstance(dropout, int | float) and 0.0 < float(dropout) < 1.0
                and _refused_where_broken(ctx, div, "dropout-nondeterministic"))


def strict_duplicate_id(ctx: Context, div: Divergence) -> frozenset[int]:
    ids = [v for v in ctx.vocab.values() if isinstance(v, int)]
    return _yes(_strict_load(div, "duplicate-id") and len(ids) != len(set(ids))
                and _refused_where_broken(ctx, div, "duplicate-id"))


def strict_unreproducible_regex(ctx: Context, div: Divergence) -> frozenset[int]:
    ref = div.observation.reference
    return _yes(_strict_load(div, "unsupported-component") and isinstance(ref, Refused)
                and ref.path.endswith(".Regex")
                and isinstance(_at_path(ctx.document, ref.path), str))


def strict_regex_backtracking(ctx: Context, div: Divergence) -> frozenset[int]:
    """Refused in both modes by the reference's analysis of the Regex named by the
    refusal's path (upstream loads it, and gives up at Oniguruma's retry limit with a panic
    only on a long enough text)."""
    ref = div.observation.reference
    return _yes(_strict_load(div, "regex-backtracking") and isinstance(ref, Refused)
                and ref.path.endswith(".Regex")
                and isinstance(_at_path(ctx.document, ref.path), str))


_PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]")


def _at_path(document: Any, path: str) -> Any:
    """The value a refusal's JSON path (``$.normalizer.normalizers[1].pattern.Regex``)
    names in the document, or None."""
    if not path.startswith("$"):
        return None
    node, position = document, 1
    while position < len(path):
        step = _PATH_STEP.match(path, position)
        if step is None:
            return None
        key, index = step.groups()
        if key is not None and isinstance(node, dict) and key in node:
            node = node[key]
        elif index is not None and isinstance(node, list) and int(index) < len(node):
            node = node[int(index)]
        else:
            return None
        position = step.end()
    return node


# -- upstream panics ----------------------------------------------------------------------
def _is_panic(outcome: Outcome) -> bool:
    return isinstance(outcome, Crashed) and outcome.kind == "panic"


def upstream_panic_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    obs = div.observation
    if obs.operation != "load" or not _is_panic(obs.upstream):
        return NONE
    ref = obs.reference
    if not isinstance(ref, Refused):
        return NONE
    prefix = ctx.model.get("continuing_subword_prefix")
    prefix_len = len(prefix.encode()) if isinstance(prefix, str) else 0
    max_len = max((len(k.encode()) for k in ctx.vocab), default=0)
    for index, a, b in _merge_pairs(ctx.model.get("merges")):
        if a not in ctx.vocab or b not in ctx.vocab:
            return NONE  # upstream would have errored before any panic
        b_bytes = b.encode()
        # Our side: the refusal names this very merge.
        here = ref.path == f"$.model.merges[{index}]"
        if len(b_bytes) < prefix_len:
            return _yes(ref.rule == "merge-prefix-underflow" and here)
        try:
            result = a + b_bytes[prefix_len:].decode()
        except UnicodeDecodeError:
            return NONE
        if result not in ctx.vocab:
            too_long = len(a.encode()) + len(b_bytes) - prefix_len > max_len
            return _yes(too_long and ref.rule == "merge-out-of-vocabulary" and here)
    return NONE


#: Normalizers upstream runs through ``NormalizedString::transform`` over the whole text.
_TRANSFORMS = frozenset({"NFC", "NFD", "NFKC", "NFKD", "Lowercase"})


def normalizer_insertion_panic(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream panics ("index out of bounds") normalizing, while loading, an added token's
    content with a Unicode normalizer after a Replace that inserted at the start of it
    (decision 0027); the reference refuses the document by one of its rules. Recognised
    when upstream panicked at load, the panic needs both steps (upstream fails on the
    document again, and loads it with the Unicode steps that follow a Replace taken out, and
    with the Replace steps that precede a Unicode step taken out; the oracle replay, without
    tokenizers, does not rerun upstream: the pinned row was proven so when it was pinned),
    and our refusal names a place where the document breaks the rule: a founding rule the
    specification oracle derives, or a Replace Regex of the document refused as outside the
    reproduced subset or unbounded."""
    obs = div.observation
    upstream_crash = obs.upstream
    if (obs.operation != "load" or not _is_panic(upstream_crash)
            or not isinstance(upstream_crash, Crashed)
            or not upstream_crash.message.startswith("index out of bounds")):
        return NONE
    ref = obs.reference
    if not isinstance(ref, Refused) or not _refusal_names_the_document(ctx, ref):
        return NONE
    normalizer = ctx.document.get("normalizer")
    steps = normalizer.get("normalizers") if isinstance(normalizer, dict) else None
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        return NONE
    kinds = [step.get("type") for step in steps]
    replaces = [i for i, kind in enumerate(kinds) if kind == "Replace"]
    if not replaces:
        return NONE
    after = {i for i, kind in enumerate(kinds) if kind in _TRANSFORMS and i > replaces[0]}
    before = {i for i in replaces if any(j > i for j in after)}
    if not after or not before:
        return NONE
    loads = [_upstream_loads_without(ctx, steps, gone)
             for gone in (set(), after, before)]
    if None in loads:  # no tokenizers (the oracle replay): proven when the row was pinned
        return ALL
    return _yes(loads == [False, True, True])


def _refusal_names_the_document(ctx: Context, ref: Refused) -> bool:
    """A founding rule the document breaks at that path, or a normalizer Regex refused."""
    if names_broken_path(ref.rule, ref.path, ctx.broken):
        return True
    return (ref.rule in ("unsupported-component", "regex-backtracking")
            and ref.path.startswith("$.normalizer") and ref.path.endswith(".pattern.Regex")
            and isinstance(_at_path(ctx.document, ref.path), str))


def _upstream_loads_without(ctx: Context, steps: list[Any], gone: set[int]) -> bool | None:
    """Upstream builds the document with the normalizer steps ``gone`` taken out; None when
    upstream cannot run here."""
    if not ctx.replay.available("upstream"):
        return None
    kept = [step for i, step in enumerate(steps) if i not in gone]
    document = ctx.document
    changed = {**document, "normalizer": {**document["normalizer"], "normalizers": kept}}
    return isinstance(ctx.replay.load("upstream", json.dumps(changed, ensure_ascii=False)),
                      Loaded)


def _merge_pairs(merges: Any) -> list[tuple[int, str, str]]:
    """(index in the JSON list, left, right) of each merge."""
    pairs: list[tuple[int, str, str]] = []
    if not isinstance(merges, list):
        return pairs
    for index, m in enumerate(merges):
        if isinstance(m, list) and len(m) == 2:
            pairs.append((index, str(m[0]), str(m[1])))
        elif isinstance(m, str) and not m.startswith("#version"):
            parts = m.split(" ")
            if len(parts) == 2:
                pairs.append((index, parts[0], parts[1]))
    return pairs


def strip_decoder_panic(ctx: Context, div: Divergence) -> frozenset[int]:
    obs = div.observation
    if obs.operation != "decode" or not _is_panic(obs.upstream):
        return NONE
    if not isinstance(obs.reference, Decoded):
        return NONE
    return _yes(_strip_panics(ctx, obs))


def _strip_panics(ctx: Context, obs: Observation) -> bool:
    """Upstream's side: some Strip step of the chain meets a token it panics on (run the
    chain step by step on the tokens the ids name). Our side: every such token decodes to
    nothing there, as decision 0010 says (the reference's text is the chain's, with each
    such token cut to "")."""
    side: Side = obs.track
    decoder = ctx.document.get("decoder")
    if not ctx.loads(side) or not isinstance(decoder, dict):
        return False
    if not isinstance(obs.input, tuple) or not isinstance(obs.reference, Decoded):
        return False
    skip = bool(obs.option("skip_special_tokens", True))
    tokens = ctx.replay.tokens(side, ctx.json, obs.input, skip_special_tokens=skip)
    sequence = decoder.get("type") == "Sequence"
    steps = decoder["decoders"] if sequence else [decoder]
    panics = False
    for index, step in enumerate(steps):
        if step.get("type") == "Strip":
            content, start, stop = step["content"], step["start"], step["stop"]
            panics = panics or any(strip_would_panic(t, content, start, stop) for t in tokens)
            tokens = ["" if strip_would_panic(t, content, start, stop)
                      else strip_upstream(t, content, start, stop) for t in tokens]
        else:
            tokens = ctx.replay.decode_step(side, ctx.json, (index,) if sequence else (),
                                            tokens)
    return panics and "".join(tokens) == obs.reference.text


# -- decode -------------------------------------------------------------------------------
def metaspace_decoder_not_applied(ctx: Context, div: Divergence) -> frozenset[int]:
    """Our decoder chain with every Metaspace step applied the way upstream applies it
    must give upstream's text, while ours keeps the escaped text (Metaspace = identity)."""
    obs = div.observation
    if obs.operation != "decode" or "Metaspace" not in _step_types(ctx.document.get("decoder")):
        return NONE
    side: Side = obs.track
    if not isinstance(obs.reference, Decoded) or not isinstance(obs.upstream, Decoded):
        return NONE
    if not ctx.loads(side) or not isinstance(obs.input, tuple):
        return NONE
    decoder = ctx.document.get("decoder")
    if not isinstance(decoder, dict):
        return NONE
    skip = bool(obs.option("skip_special_tokens", True))
    tokens = ctx.replay.tokens(side, ctx.json, obs.input, skip_special_tokens=skip)
    as_upstream = "".join(_upstream_metaspace_chain(ctx, side, decoder, (), tokens))
    # Our side: the text of the same chain with every Metaspace step taken out.
    ours = ctx.spec.decode_without_metaspace(obs.track, obs.input, skip)
    return _yes(as_upstream == obs.upstream.text and as_upstream != obs.reference.text
                and ours == obs.reference.text)


def _step_types(decoder: Any) -> list[str]:
    if not isinstance(decoder, dict):
        return []
    steps = decoder.get("decoders") if decoder.get("type") == "Sequence" else None
    if isinstance(steps, list):
        return [t for step in steps for t in _step_types(step)]
    return [str(decoder.get("type"))]


def _upstream_metaspace_chain(ctx: Context, side: Side, step: dict[str, Any],
                              path: tuple[int, ...], tokens: list[str]) -> list[str]:
    """The reference's decoder step at ``path`` on ``tokens``, every Metaspace step in it
    applied as upstream applies it."""
    if step.get("type") == "Metaspace":
        return metaspace_decode_upstream(tokens, step["replacement"],
                                         step.get("prepend_scheme", "always"))
    if step.get("type") == "Sequence":
        for index, inner in enumerate(step["decoders"]):
            tokens = _upstream_metaspace_chain(ctx, side, inner, (*path, index), tokens)
        return tokens
    return ctx.replay.decode_step(side, ctx.json, path, tokens)


def strict_decode_unknown_id(ctx: Context, div: Divergence) -> frozenset[int]:
    """Recognised when the lenient reference, which drops the id like upstream, decodes to
    upstream's text (or differs from it only as the Metaspace class explains)."""
    obs = div.observation
    if (obs.operation != "decode" or not _refused_with(obs.reference, "decode-unknown-id")
            or not isinstance(obs.upstream, Decoded | Crashed)
            or not isinstance(obs.input, tuple) or not ctx.lenient_loaded()):
        return NONE
    known = known_ids(ctx.document)
    unknown = [k for k, i in enumerate(obs.input) if i not in known]
    assert isinstance(obs.reference, Refused)
    if not unknown or obs.reference.path != f"ids[{unknown[0]}]":
        return NONE  # our side: refused at the first id that names no token
    lenient = ctx.replay.decode("lenient", ctx.json, obs.input,
                                skip_special_tokens=bool(obs.option("skip_special_tokens")))
    if lenient == obs.upstream:
        return ALL
    # Composition: what is left between the lenient decode and upstream's is another class.
    as_lenient = Divergence("decode", "", replace(obs, track="lenient", reference=lenient))
    for other in (metaspace_decoder_not_applied, strip_decoder_panic):
        if other(ctx, as_lenient):
            ctx.also.append(other.__name__)
            return ALL
    return NONE


# -- encode -------------------------------------------------------------------------------
def strict_character_dropped(ctx: Context, div: Divergence) -> frozenset[int]:
    obs = div.observation
    if (obs.operation != "encode" or not _refused_with(obs.reference, "character-dropped")
            or not isinstance(obs.upstream, Encoded) or ctx.unk_token is not None
            or not isinstance(obs.input, str) or not ctx.lenient_loaded()):
        return NONE
    # Our side: some word of the input really has a symbol with no piece to fall to.
    texts = [obs.input, *([obs.option("pair")] if obs.option("pair") is not None else [])]
    if not any(_drops_a_symbol(ctx, word) for text in texts
               for word in ctx.replay.words("lenient", ctx.json, text)):
        return NONE
    lenient = ctx.replay.encode("lenient", ctx.json, obs.input, obs.option("pair"),
                                add_special_tokens=bool(obs.option("add_special_tokens", True)))
    return _yes(isinstance(lenient, Encoded) and lenient.ids == obs.upstream.ids)


def _encodings(div: Divergence) -> tuple[Encoded, Encoded] | None:
    ref, up = div.observation.reference, div.observation.upstream
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
    counts = sequence_counts(ctx.document, ref, pair, add)
    layout = None if counts is None else template_layout(ctx.document, counts, pair, add)
    if layout is None or len(layout) != len(ref.ids):
        return set()
    return {i for i, slot in enumerate(layout)
            if slot.special_id is not None and ref.ids[i] == slot.special_id}


def decorated_byte_fallback_spans(ctx: Context, div: Divergence) -> frozenset[int]:
    pair = _encodings(div)
    decorated = ctx.model.get("continuing_subword_prefix") or ctx.model.get("end_of_word_suffix")
    if pair is None or div.tier != "spans" or not ctx.byte_fallback or not decorated:
        return NONE
    ref, up = pair
    prefix, suffix = ctx.model.get("continuing_subword_prefix"), ctx.model.get(
        "end_of_word_suffix")
    words = _words_with_decorated_bytes(ref, div.observation,
                                        prefix if isinstance(prefix, str) else "",
                                        suffix if isinstance(suffix, str) else "")
    # Our side: every byte piece of the word sits on its own symbol's character.
    obs = div.observation
    texts = (obs.input if isinstance(obs.input, str) else "",
             *([obs.option("pair")] if isinstance(obs.option("pair"), str) else []))
    wrong = byte_piece_violations(ref, texts, ctx.model, plain=(
        ctx.document.get("normalizer") is None and ctx.document.get("pre_tokenizer") is None))
    bad_words = {_word_key(ref, i) for i in wrong}
    return frozenset(i for i in _differing_spans(ref, up)
                     if i < len(ref.word_ids) and ref.word_ids[i] is not None
                     and _word_key(ref, i) in words and _word_key(ref, i) not in bad_words)


def byte_level_trimmed_offsets(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream's ByteLevel post-processor with ``trim_offsets`` moves offsets past the space
    symbols at a token's edges; ours stay on the characters the token came from (decision
    0024). Recognised at the positions where the two tokens agree, upstream's span is ours
    trimmed as upstream trims, and ours is the contract's span (``byte_level_spans``; over
    a pipeline without a ByteLevel pre-tokenizer, tokens that spell their characters)."""
    pair = _encodings(div)
    steps = trimming_steps(ctx.document)
    if pair is None or div.tier != "spans" or not steps:
        return NONE
    ref, up = pair
    obs = div.observation
    texts = (obs.input if isinstance(obs.input, str) else "",
             *([obs.option("pair")] if isinstance(obs.option("pair"), str) else []))
    trimmed = upstream_trimmed_spans(ref, steps)
    contract = byte_level_spans(ref, texts, ctx.document, ctx.spec.aligned, plain=True)
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


def _word_key(ref: Encoded, position: int) -> tuple[int | None, int | None]:
    """A word of one input: (its sequence, its index there)."""
    sequence = ref.sequence_ids[position] if position < len(ref.sequence_ids) else 0
    return (sequence, ref.word_ids[position])


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
        if value is not None and ref.word_ids[i] is not None:
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
    if (pair is None or div.tier != "spans" or ctx.unk_token is not None
            or obs.track != "lenient" or not ctx.lenient_loaded()
            or not isinstance(obs.input, str)):
        return NONE
    texts = [obs.input, *([obs.option("pair")] if obs.option("pair") is not None else [])]
    if not any(_drops_a_symbol(ctx, word) for text in texts
               for word in ctx.replay.words("lenient", ctx.json, text)):
        return NONE
    ref, up = pair
    return frozenset(
        i for i in _differing_spans(ref, up)
        if i < min(len(ref.spans), len(up.spans))
        and up.spans[i][0] <= ref.spans[i][0] and up.spans[i][1] <= ref.spans[i][1]
        # Our side: the true span, inside the text it came from.
        and 0 <= ref.spans[i][0] <= ref.spans[i][1] <= len(_source_text(ref, obs, i))
    )


def _drops_a_symbol(ctx: Context, word: str) -> bool:
    """Some symbol of the word (a character, decorated as upstream decorates it) has no
    piece and no complete byte pieces, so that without an unk token it is dropped."""
    prefix = ctx.model.get("continuing_subword_prefix")
    suffix = ctx.model.get("end_of_word_suffix")
    last = len(word) - 1
    for k, ch in enumerate(word):
        symbol = f"{prefix}{ch}" if k > 0 and isinstance(prefix, str) else ch
        symbol = f"{symbol}{suffix}" if k == last and isinstance(suffix, str) else symbol
        if symbol in ctx.vocab:
            continue
        if not (ctx.byte_fallback
                and all(f"<0x{b:02X}>" in ctx.vocab for b in symbol.encode())):
            return True
    return False


# -- the ordering bug ------------------------------------------------------------------------
def unk_byte_fallback_ordering(ctx: Context, div: Divergence) -> frozenset[int]:
    pair = _encodings(div)
    unk = ctx.unk_token
    if pair is None or unk is None or not ctx.byte_fallback or div.observation.track != "lenient":
        return NONE
    ref, up = pair
    fuse = ctx.model.get("fuse_unk") is True
    order = _misorder(ref, div.observation, unk, fuse)
    if order is None:
        return NONE
    if [ref.ids[i] for i in order] != list(up.ids) or [
            ref.tokens[i] for i in order] != list(up.tokens):
        return NONE
    if div.tier in _MASK_TIERS:  # upstream's masks are ours, in upstream's order
        mine = getattr(ref, div.tier)
        return _yes([mine[i] for i in order] == list(getattr(up, div.tier)))
    # Our side: the correct order, each word's pieces in the order of their characters.
    starts: dict[tuple[int | None, int | None], int] = {}
    for i, (start, _) in enumerate(ref.spans):
        if ref.word_ids[i] is not None:
            key = _word_key(ref, i)
            if start < starts.get(key, start):
                return NONE
            starts[key] = start
    return ALL


_MASK_TIERS = ("special_mask", "type_ids", "attention_mask")


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
        word = _word_key(ref, i) if ref.word_ids[i] is not None else None
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


#: Predicates of the rules the reference keeps in both modes (see lenient_accounted_for).
_BOTH_MODES: tuple[Predicate, ...] = (
    strict_unreproducible_regex, strict_regex_backtracking, strict_duplicate_id,
    strict_dropout_nondeterministic,
)

REGISTRY: dict[str, Predicate] = {
    name: fn for name, fn in globals().items()
    if callable(fn) and getattr(fn, "__module__", None) == __name__ and not name.startswith("_")
    and name not in {"Context"}
}
