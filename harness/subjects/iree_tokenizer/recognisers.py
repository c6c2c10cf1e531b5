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
import re
from collections.abc import Callable
from typing import Any, Final

from ...core.outcome import Crashed, Decoded, Encoded, Loaded, Refused
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..fastokens.recognisers import (
    component_types,
    decodes_normalized_added_token_as_content,
    token_of_normalized_added_token_is_content,
)
from ..transformers_js.recognisers.replay import replay_on, replaying, yes


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


_UNSUPPORTED_TYPE: Final = re.compile(r"^UNIMPLEMENTED; (\w+) type not supported: '(\w+)'$")
_SLOTS: Final = {"decoder": "decoder", "normalizer": "normalizer",
                 "pre_tokenizer": "pre_tokenizer", "post_processor": "post_processor",
                 "pre-tokenizer": "pre_tokenizer", "post-processor": "post_processor"}


def component_type_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A component type the library does not implement: refused as UNIMPLEMENTED
    ("decoder type not supported: 'BPEDecoder'"). Checked: the slot the rule names (or a
    Sequence in it) really holds a component of that type."""
    rule = _refused_load(div)
    named = _UNSUPPORTED_TYPE.match(rule) if rule is not None else None
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


def _special_ids(ctx: Context) -> dict[int, str]:
    return {entry["id"]: entry["content"] for entry in ctx.doc.added_tokens
            if entry.get("special") is True and isinstance(entry.get("id"), int)
            and isinstance(entry.get("content"), str)}


def special_tokens_outside_decoder(ctx: Context, div: Divergence) -> frozenset[int]:
    """Special tokens bypass the decoder: the library decodes each run of ordinary ids
    on its own and puts the special tokens' contents between them, so a Strip of the
    decoder's first token strips the first ordinary token after a leading ``<s>``
    (upstream strips ``<s>``, which has no space, and keeps the space of ``▁``).
    Checked: the input holds a special token, and upstream decoding each run of
    ordinary ids alone, joined by the special contents (dropped when skipping), gives
    exactly the subject's text."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.input, tuple)
            and isinstance(obs.subject, Decoded)):
        return NONE
    special = _special_ids(ctx)
    if not any(i in special for i in obs.input):
        return NONE
    skip = bool(obs.option("skip_special_tokens"))
    pieces: list[str] = []
    run: list[int] = []
    for number in (*obs.input, None):
        if number is not None and number not in special:
            run.append(number)
            continue
        if run:
            decoded = replay_on(ctx.doc.raw, _with_input(obs, tuple(run)))
            if not isinstance(decoded, Decoded):
                return NONE
            pieces.append(decoded.text)
            run = []
        if number is not None and not skip:
            pieces.append(special[number])
    return yes("".join(pieces) == obs.subject.text)


def _with_input(obs: Any, ids: tuple[int, ...]) -> Any:
    return dataclasses.replace(obs, input=ids)


def unreachable_token_produced(ctx: Context, div: Divergence) -> frozenset[int]:
    """A BPE token holding a character outside ASCII is produced though no merge builds
    it: the library's BPE runs on UTF-8 bytes and joins the bytes of such a vocabulary
    entry by merges of its own, which also join the characters around them ("añ" is one
    token, "ab" stays two); upstream's BPE only ever joins symbols through the file's
    merges. Checked: both sides cover the same text (their tokens joined are equal),
    every subject token is a vocabulary entry, and one of the subject's tokens is longer
    than one character, holds a non-ASCII character and is the result of no merge."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if not (obs.operation == "encode" and isinstance(subject, Encoded)
            and isinstance(upstream, Encoded) and ctx.doc.model.get("type") == "BPE"
            and subject.tokens and "".join(subject.tokens) == "".join(upstream.tokens)):
        return NONE
    built = set()
    for merge in ctx.doc.merges or ():
        sides = merge.split(" ") if isinstance(merge, str) else merge
        if isinstance(sides, list) and len(sides) == 2 and all(isinstance(s, str)
                                                               for s in sides):
            built.add(sides[0] + sides[1])
    added = {entry.get("content") for entry in ctx.doc.added_tokens}
    ordinary = [t for t in subject.tokens if t not in added]
    return yes(all(t in ctx.doc.vocab for t in ordinary) and any(
        len(t) > 1 and not t.isascii() and t not in built for t in ordinary))


_ALL: Final[tuple[Callable[[Context, Divergence], frozenset[int]], ...]] = (
    continuing_subword_prefix_refused,
    component_type_refused,
    unk_token_missing_refused,
    passthrough_decode_refused,
    special_tokens_outside_decoder,
    unreachable_token_produced,
    token_of_normalized_added_token_is_content,
    decodes_normalized_added_token_as_content,
)
RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in _ALL}
