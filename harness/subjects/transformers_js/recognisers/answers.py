"""Decode and unk-token recognisers, and answers where the subject does what our
reference does and our registry's class explains the reference's divergence (an upstream
bug neither reproduces).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ....core.observation import Observation
from ....core.outcome import Crashed, Decoded, Encoded, Refused
from ....judge.compare import Divergence
from ....judge.predicates import NONE, Context, Predicate
from ....judge.predicates import REGISTRY as PREDICATES
from .replay import first_tier, has_strip_step, known_ids, reference_replay, same_tiers, yes

# -- decode ----------------------------------------------------------------------------
_EMPTY_IDS: Final = re.compile(r"non-empty array")


def empty_ids_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """Decoding an empty id list throws in the subject (upstream decodes it to "", or
    panics in its Strip decoder)."""
    obs = div.observation
    subject = obs.subject
    return yes(obs.operation == "decode" and obs.input == () and isinstance(subject, Refused)
                and _EMPTY_IDS.search(subject.message) is not None)


def _unknown_positions(ctx: Context, ids: Sequence[int]) -> list[int]:
    known = known_ids(ctx)
    return [i for i, token_id in enumerate(ids) if token_id not in known]


def strip_panic_on_nothing(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream's Strip decoder panics on an empty token list (every id skipped as
    special or naming no token, or none given); the subject decodes it to "". Checked: a
    Strip step in the decoder, the panic's message, and nothing left to decode."""
    obs = div.observation
    upstream = obs.upstream
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    if not (isinstance(upstream, Crashed) and upstream.kind == "panic"
            and "the len is 0" in upstream.message):
        return NONE
    if not has_strip_step(ctx.document):
        return NONE
    specials = {e.get("id") for e in ctx.document.get("added_tokens") or ()
                if isinstance(e, dict) and e.get("special") is True}
    known = known_ids(ctx)
    skip = bool(obs.option("skip_special_tokens"))
    nothing = all((i in specials and skip) or i not in known for i in obs.input)
    return yes(isinstance(obs.subject, Decoded) and obs.subject.text == "" and nothing)


def unknown_id_without_unk_breaks_decoder(ctx: Context, div: Divergence) -> frozenset[int]:
    """Without an unk token in the vocabulary, an id naming no token becomes a null token
    that the subject's decoder steps cannot handle: a TypeError (upstream drops the id)."""
    obs = div.observation
    subject = obs.subject
    if obs.operation != "decode" or ctx.unk_token is not None:
        return NONE
    if not isinstance(obs.input, tuple) or not _unknown_positions(ctx, obs.input):
        return NONE
    return yes(isinstance(subject, Refused) and subject.rule == "TypeError"
                and "of null" in subject.message)


# -- the unk token -----------------------------------------------------------------------
_UNK_MISSING: Final = re.compile(r"Unk token `(.*)` not found in the vocabulary", re.S)


def missing_unk_gives_null_id(ctx: Context, div: Divergence) -> frozenset[int]:
    """An unk_token absent from the model's vocabulary: upstream refuses the encode that
    needs it; the subject emits the unk token anyway, with a null id (or the id of an
    added token of that content). Checked: every token the subject could not give a
    vocabulary id is the unk token."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if obs.operation != "encode" or not isinstance(upstream, Refused):
        return NONE
    named = _UNK_MISSING.fullmatch(upstream.message)
    unk = ctx.unk_token
    if named is None or unk is None or named.group(1) != unk or unk in ctx.vocab:
        return NONE
    if not isinstance(subject, Encoded):
        return NONE
    added = {e.get("id") for e in ctx.document.get("added_tokens") or ()
             if isinstance(e, dict) and e.get("content") == unk}
    unk_positions = [i for i, token in enumerate(subject.tokens)
                     if token is not None and token.replace(unk, "") == "" and token]
    ids_ok = all(subject.ids[i] is None or subject.ids[i] in added for i in unk_positions)
    nulls = [i for i, token_id in enumerate(subject.ids) if token_id is None]
    return yes(bool(unk_positions) and ids_ok and set(nulls) <= set(unk_positions))


# -- where the subject does what our reference does -----------------------------------------
def like_reference(class_id: str, predicate: str) -> Predicate:
    """The subject answers exactly what our reference answers (strict, or lenient where
    strict refuses the file), and our registry's class ``class_id`` explains our
    reference's divergence from upstream: an upstream bug neither reproduces."""
    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        track, ours = reference_replay(ctx, obs)
        if ours is None or not same_tiers(obs.subject, ours):
            return NONE
        mirrored = Observation(track, obs.operation, obs.input, obs.options, ours,
                               obs.upstream)
        tier = div.tier if div.tier in ("encode", "decode", "load") else first_tier(
            ours, obs.upstream)
        if tier is None:
            return NONE
        found = PREDICATES[predicate](ctx, Divergence(tier, "", mirrored))
        return yes(bool(found))

    recognise.__name__ = f"like_reference_{predicate}"
    recognise.__doc__ = (f"The subject agrees with our reference where our class "
                         f"{class_id} explains the reference's divergence from upstream.")
    return recognise
