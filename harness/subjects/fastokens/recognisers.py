"""The recognisers of fastokens' expectations (``expectations.yaml`` beside this module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is fastokens, *upstream* is
``tokenizers``. Each says yes only when the subject's answer is exactly what the mechanism
gives: a refusal names a component type the document really has in that slot; a token or
a decoded text equals upstream's answer replayed with the mechanism applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, Final

from ...core.outcome import Crashed, Encoded, Loaded, Refused
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..kitoken.recognisers import no_decoder_fused
from ..transformers_js.recognisers.replay import (
    normalized_by,
    replay_on,
    replaying,
    same_tiers,
    upstream_handle,
    yes,
)

#: The document's slot of each component kind fastokens names in its load errors.
SLOTS: Final = {"normalizer": "normalizer", "pre-tokenizer": "pre_tokenizer",
                "decoder": "decoder", "post-processor": "post_processor", "model": "model"}
_UNSUPPORTED: Final = re.compile(r"^(normalizer|pre-tokenizer|decoder|post-processor|model) "
                                 r"error: unsupported \S+ type: (\w+)$")
#: The components fastokens 0.3.5 refuses that the generator writes, measured: (kind as
#: it names it, type). FINDINGS.md lists the others a probe found.
UNSUPPORTED: Final = (
    ("pre-tokenizer", "Metaspace"), ("decoder", "Metaspace"),
    ("pre-tokenizer", "WhitespaceSplit"), ("pre-tokenizer", "Whitespace"),
    ("pre-tokenizer", "Punctuation"), ("normalizer", "NFKC"), ("normalizer", "NFD"),
    ("normalizer", "NFKD"), ("normalizer", "Strip"))


def component_types(value: Any) -> Iterator[str]:
    """The ``type`` of a component and of every component nested in it (Sequences)."""
    if isinstance(value, dict):
        if isinstance(value.get("type"), str):
            yield value["type"]
        for inner in value.values():
            if isinstance(inner, list):
                for item in inner:
                    yield from component_types(item)
    elif isinstance(value, list):
        for item in value:
            yield from component_types(item)


def unsupported(kind: str, kind_type: str) -> Predicate:
    """fastokens refuses a file whose ``kind`` (or a Sequence in it) holds a ``kind_type``
    component, naming it. Checked: the refusal is of the load, names exactly that kind and
    type, and the document's slot really holds such a component."""

    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        if obs.operation != "load" or not isinstance(obs.subject, Refused):
            return NONE
        named = _UNSUPPORTED.match(obs.subject.message)
        if named is None or (named.group(1), named.group(2)) != (kind, kind_type):
            return NONE
        return yes(kind_type in component_types(ctx.doc.raw.get(SLOTS[kind])))

    recognise.__name__ = (f"refuses_{kind.replace('-', '_')}_"
                          f"{re.sub(r'(?<=[a-z])(?=[A-Z])', '_', kind_type).lower()}")
    return recognise


def _added(ctx: Context) -> dict[int, dict[str, Any]]:
    return {entry["id"]: entry for entry in ctx.doc.added_tokens
            if isinstance(entry, dict) and isinstance(entry.get("id"), int)
            and isinstance(entry.get("content"), str)}


def _renamed(ctx: Context) -> dict[int, tuple[str, str]]:
    """Normalized added tokens whose normalized form differs from their content:
    ``{id: (content, normalized form)}`` (upstream's normalizer, replayed)."""
    handle = upstream_handle(ctx.doc.raw)
    if isinstance(handle, Refused | Crashed):
        return {}
    found: dict[int, tuple[str, str]] = {}
    for number, entry in _added(ctx).items():
        if entry.get("normalized") is True:
            normalized = normalized_by(handle, entry["content"])
            if normalized is not None and normalized != entry["content"]:
                found[number] = (entry["content"], normalized)
    return found


def token_of_normalized_added_token_is_content(ctx: Context, div: Divergence
                                               ) -> frozenset[int]:
    """A normalized added token whose normalizer changes it (``''c`` -> ``▁▁▁▁▁c``):
    upstream names its id by the normalized form, fastokens (``id_to_token``, the
    adapter's only way to its tokens) by the content. Checked: the ids agree, and the
    tokens differ only at such ids, the subject's being the content and upstream's the
    normalized form (upstream's normalizer replayed on the content)."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if not (obs.operation == "encode" and isinstance(subject, Encoded)
            and isinstance(upstream, Encoded) and subject.ids == upstream.ids
            and len(subject.tokens) == len(upstream.tokens)):
        return NONE
    differing = [i for i, (a, b) in enumerate(zip(subject.tokens, upstream.tokens, strict=True))
                 if a != b]
    renamed = _renamed(ctx) if differing else {}
    return yes(bool(differing) and all(
        renamed.get(subject.ids[i]) == (subject.tokens[i], upstream.tokens[i])
        for i in differing))


def decodes_normalized_added_token_as_content(ctx: Context, div: Divergence
                                              ) -> frozenset[int]:
    """Decode of a normalized added token whose normalizer changes it: upstream decodes
    it as its normalized form (and, that form not being among its special contents,
    keeps it when skipping special tokens); fastokens as its content (skipped when
    special). Checked: upstream replayed on the document with those added tokens marked
    ``normalized: false`` (stored as their content) decodes exactly the subject's text."""
    obs = div.observation
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    renamed = set(_renamed(ctx)).intersection(obs.input)
    if not renamed:
        return NONE
    added = [{**entry, "normalized": False} if isinstance(entry, dict)
             and entry.get("id") in renamed else entry
             for entry in ctx.doc.added_tokens]
    return yes(same_tiers(obs.subject, replay_on({**ctx.doc.raw, "added_tokens": added},
                                                   obs)))


def decodes_without_decoder_as_fuse(ctx: Context, div: Divergence) -> frozenset[int]:
    """Decode of a document with no decoder: upstream joins the tokens with spaces,
    fastokens concatenates them. Checked: upstream replayed on the document with a
    ``Fuse`` decoder (which concatenates the tokens) decodes exactly the subject's text."""
    obs = div.observation
    fused = no_decoder_fused(ctx.doc.raw)
    if obs.operation != "decode" or fused is None or not isinstance(obs.input, tuple):
        return NONE
    return yes(same_tiers(obs.subject, replay_on(fused, obs)))


_DUPLICATE_PATTERN: Final = re.compile(r"DuplicatePatternError: \[([\d, ]*)\]$")


def duplicate_added_content_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Two added tokens with the same content: fastokens' matcher (Aho-Corasick) refuses
    the duplicate pattern, upstream loads the file (one wins). Checked: the content the
    error names (as bytes) is the content of two or more added tokens."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return NONE
    named = _DUPLICATE_PATTERN.search(obs.subject.message)
    if named is None or not named.group(1).strip():
        return NONE
    try:
        content = bytes(int(b) for b in named.group(1).split(",")).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return NONE
    contents = [entry.get("content") for entry in ctx.doc.added_tokens
                if isinstance(entry, dict)]
    return yes(contents.count(content) >= 2)


_SHORT_PROPERTY: Final = re.compile(r"(?<!\\)((?:\\\\)*)\\([pP])([A-Za-z])")
_UNSUPPORTED_MODEL: Final = "model error: unsupported model type: Other"


def long_properties(value: Any) -> Any:
    """``value`` with every ``Regex`` pattern's one-letter property (``\\pL``) spelt out
    (``\\p{L}``), as PCRE2 reads it; Oniguruma reads ``\\pL`` as the literal "pL"."""
    if isinstance(value, dict):
        changed = {k: long_properties(v) for k, v in value.items()}
        if isinstance(value.get("Regex"), str):
            changed["Regex"] = _SHORT_PROPERTY.sub(r"\1\\\2{\3}", value["Regex"])
        return changed
    if isinstance(value, list):
        return [long_properties(v) for v in value]
    return value


def reads_short_property_as_class(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Regex with a one-letter Unicode property (``\\pL``): fastokens' PCRE2 reads it
    as the property, upstream's Oniguruma as the literal text "pL". Checked: the document
    has such a pattern, and upstream replayed on it spelt ``\\p{L}`` answers exactly what
    the subject answered."""
    obs = div.observation
    if obs.operation not in ("encode", "decode"):
        return NONE
    rewritten = long_properties(ctx.doc.raw)
    if rewritten == ctx.doc.raw:
        return NONE
    return yes(same_tiers(obs.subject, replay_on(rewritten, obs)))


def merges_missing_token_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE whose merge names a token (a side or the result) missing from the
    vocabulary: fastokens refuses it as "unsupported model type: Other" (its untagged
    model enum falls through), where upstream refuses or panics. Checked: that message,
    and the document has such a merge."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return NONE
    if obs.subject.message != _UNSUPPORTED_MODEL or ctx.doc.model.get("type") != "BPE":
        return NONE
    for merge in ctx.doc.merges or ():
        sides = merge.split(" ") if isinstance(merge, str) else merge
        if (isinstance(sides, list) and len(sides) == 2
                and all(isinstance(side, str) for side in sides)
                and any(token not in ctx.doc.vocab for token in (*sides, sides[0] + sides[1]))):
            return yes(True)
    return NONE


def vocabulary_with_id_gaps_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE vocabulary whose ids are not 0..n-1 (an id skipped): fastokens refuses it as
    "unsupported model type: Other", upstream loads it. Checked: that message, and the
    model's ids, sorted, are not 0..n-1."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return NONE
    if obs.subject.message != _UNSUPPORTED_MODEL or ctx.doc.model.get("type") != "BPE":
        return NONE
    ids = sorted(v for v in ctx.doc.vocab.values() if isinstance(v, int))
    return yes(ids != list(range(len(ids))))


_REGEX_ERROR: Final = re.compile(r"^\S+ error: regex error: Error compiling regex")
_NEGATED_PROPERTY: Final = re.compile(r"(?<!\\)(?:\\\\)*\\[pP]\{\^")


def _regexes(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("Regex"), str):
            yield value["Regex"]
        for inner in value.values():
            yield from _regexes(inner)
    elif isinstance(value, list):
        for item in value:
            yield from _regexes(item)


def negated_property_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A Regex with Oniguruma's negated property ``\\p{^L}``: fastokens cannot compile it
    ("error parsing pattern"), upstream loads the file. Checked: the refusal is a regex
    compile error, upstream loaded, and a Regex of the document has ``\\p{^``."""
    obs = div.observation
    if not (obs.operation == "load" and isinstance(obs.subject, Refused)
            and isinstance(obs.upstream, Loaded)
            and _REGEX_ERROR.match(obs.subject.message)):
        return NONE
    return yes(any(_NEGATED_PROPERTY.search(p) for p in _regexes(ctx.doc.raw)))


def another_dropout_draw(ctx: Context, div: Divergence) -> frozenset[int]:
    """BPE dropout strictly between 0 and 1 is random in both libraries: each encode is
    one draw, so two encodes of the same text may segment it differently. Checked: the
    model's dropout is in (0, 1), both answers cover the same text (their tokens joined
    are equal) and every token of the subject's is a vocabulary entry or an added
    token: another segmentation of the same text, not another text."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    dropout = ctx.doc.dropout
    if not (obs.operation == "encode" and isinstance(subject, Encoded)
            and isinstance(upstream, Encoded) and isinstance(dropout, int | float)
            and not isinstance(dropout, bool) and 0.0 < float(dropout) < 1.0):
        return NONE
    added = {entry["content"] for entry in _added(ctx).values()}
    return yes("".join(subject.tokens) == "".join(upstream.tokens) and all(
        token in ctx.doc.vocab or token in added for token in subject.tokens))


_ALL: Final[tuple[Callable[[Context, Divergence], frozenset[int]], ...]] = (
    *(unsupported(kind, kind_type) for kind, kind_type in UNSUPPORTED),
    token_of_normalized_added_token_is_content,
    decodes_normalized_added_token_as_content,
    decodes_without_decoder_as_fuse,
    duplicate_added_content_refused,
    reads_short_property_as_class,
    merges_missing_token_refused,
    another_dropout_draw,
    vocabulary_with_id_gaps_refused,
    negated_property_refused,
)
RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in _ALL}
