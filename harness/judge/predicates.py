"""Predicates of the intended-divergence registry (``harness/judge/divergences.yaml``): the
load and decode classes here, the position-explaining encode classes in
``span_predicates``; ``REGISTRY`` holds both.

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
import sys
from dataclasses import replace
from typing import Any

from ..core.observation import Observation
from ..core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from ..core.regex_read import DECLARED_READ
from . import span_predicates
from .compare import Divergence
from .context import (
    _LOWER_BYTE_PIECE,
    ALL,
    BYTE_PIECES,
    NONE,
    Context,
    Predicate,
    _refused_with,
    _yes,
)
from .replay import Side
from .span_predicates import _drops_a_symbol, byte_level_trimmed_offsets, differing_positions
from .specification import known_ids, names_broken_path
from .upstream_decoders import metaspace_decode_upstream, strip_upstream, strip_would_panic

#: What a predicate is, for the classifier and the subjects' recognisers; the registry.
__all__ = ["ALL", "NONE", "REGISTRY", "Context", "Predicate", "byte_level_trimmed_offsets",
           "differing_positions"]


def _lenient_accounted_for(ctx: Context) -> bool:
    """The lenient reference loads, or refuses for a reason that is itself an intended
    divergence (a rule both modes keep: an unreproducible regex, a duplicate id,
    a non-deterministic dropout). Strictness classes need this, so that a strict rule
    never hides an unexplained lenient refusal."""
    if ctx.lenient_loaded():
        return True
    if not isinstance(ctx.lenient, Refused):
        return False
    observation = Observation("lenient", "load", None, (), ctx.lenient, Loaded())
    divergence = Divergence("load", "", observation)
    return any(predicate(ctx, divergence) for predicate in _BOTH_MODES)


def _strict_load(div: Divergence, rule: str) -> bool:
    obs = div.observation
    return (obs.operation == "load" and isinstance(obs.upstream, Loaded)
            and _refused_with(obs.subject, rule))


def _refused_where_broken(ctx: Context, div: Divergence, rule: str) -> bool:
    """Our side: the refusal names a JSON path where the document breaks ``rule``."""
    ref = div.observation.subject
    return isinstance(ref, Refused) and names_broken_path(rule, ref.path, ctx.broken)


# -- strictness at load -----------------------------------------------------------------
def strict_byte_alphabet_incomplete(ctx: Context, div: Divergence) -> frozenset[int]:
    missing = [p for p in BYTE_PIECES if p not in ctx.doc.vocab]
    return _yes(_strict_load(div, "byte-alphabet-incomplete") and ctx.doc.byte_fallback
                and bool(missing) and div.observation.track == "strict"
                and _refused_where_broken(ctx, div, "byte-alphabet-incomplete")
                and _lenient_accounted_for(ctx))


def strict_byte_piece_lowercase(ctx: Context, div: Divergence) -> frozenset[int]:
    lower = [p for p in ctx.doc.vocab if _LOWER_BYTE_PIECE.fullmatch(p)]
    return _yes(_strict_load(div, "byte-piece-lowercase") and ctx.doc.byte_fallback
                and bool(lower) and div.observation.track == "strict"
                and _refused_where_broken(ctx, div, "byte-piece-lowercase")
                and _lenient_accounted_for(ctx))


def _decoder_types(decoder: Any) -> list[Any]:
    if not isinstance(decoder, dict):
        return [None]
    if decoder.get("type") == "Sequence" and isinstance(decoder.get("decoders"), list):
        return [d.get("type") if isinstance(d, dict) else None for d in decoder["decoders"]]
    return [decoder.get("type"), "<bare>"]


def strict_decoder_shape(ctx: Context, div: Divergence) -> frozenset[int]:
    decoder = ctx.doc.component("decoder")
    reproduced = (
        isinstance(decoder, dict) and decoder.get("type") == "ByteFallback"
    ) or _decoder_types(decoder) == ["Replace", "ByteFallback", "Fuse", "Strip"]
    return _yes(_strict_load(div, "decoder-shape") and ctx.doc.byte_fallback and not reproduced
                and div.observation.track == "strict"
                and _refused_where_broken(ctx, div, "decoder-shape")
                and _lenient_accounted_for(ctx))


def strict_unk_token_not_in_vocabulary(ctx: Context, div: Divergence) -> frozenset[int]:
    unk = ctx.doc.unk_token
    return _yes(_strict_load(div, "unk-token-not-in-vocabulary") and unk is not None
                and unk not in ctx.doc.vocab
                and _refused_where_broken(ctx, div, "unk-token-not-in-vocabulary")
                and _lenient_accounted_for(ctx))


def strict_dropout_nondeterministic(ctx: Context, div: Divergence) -> frozenset[int]:
    dropout = ctx.doc.dropout
    return _yes(_strict_load(div, "dropout-nondeterministic")
                and isinstance(dropout, int | float) and 0.0 < float(dropout) < 1.0
                and _refused_where_broken(ctx, div, "dropout-nondeterministic"))


def strict_duplicate_id(ctx: Context, div: Divergence) -> frozenset[int]:
    ids = [v for v in ctx.doc.vocab.values() if isinstance(v, int)]
    return _yes(_strict_load(div, "duplicate-id") and len(ids) != len(set(ids))
                and _refused_where_broken(ctx, div, "duplicate-id"))


def strict_template_incoherent(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream loads a TemplateProcessing it cannot run as written; the reference refuses
    it in both modes by template-incoherent, at a path where the document really is
    incoherent (``specification.template_incoherent_paths``; decision 0047)."""
    return _yes(_strict_load(div, "template-incoherent")
                and _refused_where_broken(ctx, div, "template-incoherent"))


def strict_unreproduced_component(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream builds a component the reference refuses by name, at the ``type`` path of a
    component decision 0012 leaves out (``specification.unreproduced_component_paths``)."""
    return _yes(_strict_load(div, "unsupported-component")
                and _refused_where_broken(ctx, div, "unsupported-component"))


def strict_unreproducible_regex(ctx: Context, div: Divergence) -> frozenset[int]:
    """Our side: the refused Regex is not one the reader declares it reads in the dialect
    of the component holding it (``core.regex_read.DECLARED_READ``)."""
    ref = div.observation.subject
    if not (_strict_load(div, "unsupported-component") and isinstance(ref, Refused)
            and ref.path.endswith(".Regex")):
        return NONE
    source = _at_path(ctx.doc.raw, ref.path)
    component = _at_path(ctx.doc.raw, ref.path.removesuffix(".pattern.Regex"))
    dialect = component.get("type") if isinstance(component, dict) else None
    return _yes(isinstance(source, str)
                and source not in DECLARED_READ.get(str(dialect), frozenset()))


def strict_regex_backtracking(ctx: Context, div: Divergence) -> frozenset[int]:
    """Refused in both modes by the reference's analysis of the Regex named by the
    refusal's path (upstream loads it, and gives up at Oniguruma's retry limit with a panic
    only on a long enough text)."""
    ref = div.observation.subject
    return _yes(_strict_load(div, "regex-backtracking") and isinstance(ref, Refused)
                and ref.path.endswith(".Regex")
                and isinstance(_at_path(ctx.doc.raw, ref.path), str))


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
    ref = obs.subject
    if not isinstance(ref, Refused):
        return NONE
    prefix = ctx.doc.continuing_subword_prefix
    prefix_len = len(prefix.encode()) if isinstance(prefix, str) else 0
    max_len = max((len(k.encode()) for k in ctx.doc.vocab), default=0)
    for index, a, b in _merge_pairs(ctx.doc.merges):
        if a not in ctx.doc.vocab or b not in ctx.doc.vocab:
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
        if result not in ctx.doc.vocab:
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
    ref = obs.subject
    if not isinstance(ref, Refused) or not _refusal_names_the_document(ctx, ref):
        return NONE
    normalizer = ctx.doc.component("normalizer")
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
            and isinstance(_at_path(ctx.doc.raw, ref.path), str))


def _upstream_loads_without(ctx: Context, steps: list[Any], gone: set[int]) -> bool | None:
    """Upstream builds the document with the normalizer steps ``gone`` taken out; None when
    upstream cannot run here."""
    if not ctx.replay.available("upstream"):
        return None
    kept = [step for i, step in enumerate(steps) if i not in gone]
    document = ctx.doc.raw
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
    if not isinstance(obs.subject, Decoded):
        return NONE
    return _yes(_strip_panics(ctx, obs))


def _strip_panics(ctx: Context, obs: Observation) -> bool:
    """Upstream's side: some Strip step of the chain meets a token it panics on (run the
    chain step by step on the tokens the ids name). Our side: every such token decodes to
    nothing there, as decision 0010 says (the reference's text is the chain's, with each
    such token cut to "")."""
    side: Side = obs.track
    decoder = ctx.doc.component("decoder")
    if not ctx.loads(side) or not isinstance(decoder, dict):
        return False
    if not isinstance(obs.input, tuple) or not isinstance(obs.subject, Decoded):
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
    return panics and "".join(tokens) == obs.subject.text


# -- decode -------------------------------------------------------------------------------
def metaspace_decoder_not_applied(ctx: Context, div: Divergence) -> frozenset[int]:
    """Our decoder chain with every Metaspace step applied the way upstream applies it
    must give upstream's text, while ours keeps the escaped text (Metaspace = identity)."""
    obs = div.observation
    if obs.operation != "decode" or "Metaspace" not in _step_types(ctx.doc.component("decoder")):
        return NONE
    side: Side = obs.track
    if not isinstance(obs.subject, Decoded) or not isinstance(obs.upstream, Decoded):
        return NONE
    if not ctx.loads(side) or not isinstance(obs.input, tuple):
        return NONE
    decoder = ctx.doc.component("decoder")
    if not isinstance(decoder, dict):
        return NONE
    skip = bool(obs.option("skip_special_tokens", True))
    tokens = ctx.replay.tokens(side, ctx.json, obs.input, skip_special_tokens=skip)
    as_upstream = "".join(_upstream_metaspace_chain(ctx, side, decoder, (), tokens))
    # Our side: the text of the same chain with every Metaspace step taken out.
    ours = ctx.spec.decode_without_metaspace(obs.track, obs.input, skip)
    return _yes(as_upstream == obs.upstream.text and as_upstream != obs.subject.text
                and ours == obs.subject.text)


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
    if (obs.operation != "decode" or not _refused_with(obs.subject, "decode-unknown-id")
            or not isinstance(obs.upstream, Decoded | Crashed)
            or not isinstance(obs.input, tuple) or not ctx.lenient_loaded()):
        return NONE
    known = known_ids(ctx.doc.raw)
    unknown = [k for k, i in enumerate(obs.input) if i not in known]
    assert isinstance(obs.subject, Refused)
    if not unknown or obs.subject.path != f"ids[{unknown[0]}]":
        return NONE  # our side: refused at the first id that names no token
    lenient = ctx.replay.decode("lenient", ctx.json, obs.input,
                                skip_special_tokens=bool(obs.option("skip_special_tokens")))
    if lenient == obs.upstream:
        return ALL
    # Composition: what is left between the lenient decode and upstream's is another class.
    as_lenient = Divergence("decode", "", replace(obs, track="lenient", subject=lenient))
    for other in (metaspace_decoder_not_applied, strip_decoder_panic):
        if other(ctx, as_lenient):
            ctx.also.append(other.__name__)
            return ALL
    return NONE


# -- encode -------------------------------------------------------------------------------
def strict_character_dropped(ctx: Context, div: Divergence) -> frozenset[int]:
    obs = div.observation
    if (obs.operation != "encode" or not _refused_with(obs.subject, "character-dropped")
            or not isinstance(obs.upstream, Encoded) or ctx.doc.unk_token is not None
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


#: Predicates of the rules the reference keeps in both modes (see lenient_accounted_for).
_BOTH_MODES: tuple[Predicate, ...] = (
    strict_unreproducible_regex, strict_regex_backtracking, strict_duplicate_id,
    strict_dropout_nondeterministic, strict_template_incoherent, strict_unreproduced_component,
)

REGISTRY: dict[str, Predicate] = {
    name: fn for module in (__name__, span_predicates.__name__)
    for name, fn in vars(sys.modules[module]).items()
    if callable(fn) and getattr(fn, "__module__", None) == module and not name.startswith("_")
}
