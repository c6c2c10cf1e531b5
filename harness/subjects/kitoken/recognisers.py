"""The recognisers of kitoken's expectations (``expectations.yaml`` beside this module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is kitoken, *upstream* is
``tokenizers``. A refusal is recognised by the document really having what kitoken names;
an encode by replaying upstream the way kitoken reads the request.
"""

from __future__ import annotations

import re
from typing import Final

from ...core.observation import Observation
from ...core.outcome import Encoded, Refused
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..transformers_js.recognisers.replay import replay_on, replaying, yes

_UNK_NOT_SPECIAL: Final = re.compile(r'^invalid data: Unknown token "(.*)" not found in '
                                     r"specials$", re.S)


def unk_not_an_added_token_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """kitoken refuses a file whose ``model.unk_token`` is not also an added token
    ("Unknown token ... not found in specials"); upstream takes it from the vocabulary.
    Checked: the token kitoken names is the model's unk token and no added token."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return NONE
    named = _UNK_NOT_SPECIAL.match(obs.subject.message)
    if named is None or named.group(1) != ctx.doc.unk_token:
        return NONE
    added = {entry.get("content") for entry in ctx.doc.added_tokens
             if isinstance(entry, dict)}
    return yes(named.group(1) not in added)


def template_not_applied(ctx: Context, div: Divergence) -> frozenset[int]:
    """kitoken's encode applies no post-processor (its Python API has no
    ``add_special_tokens``): with the flag on, its ids are upstream's without the
    template. Checked: the request asked for special tokens, the document has a
    post-processor, and upstream's encode of the same text without them gives exactly
    the subject's ids."""
    obs = div.observation
    subject = obs.subject
    if not (obs.operation == "encode" and obs.option("add_special_tokens") is True
            and isinstance(subject, Encoded) and isinstance(obs.input, str)
            and ctx.doc.raw.get("post_processor")):
        return NONE
    replayed = replay_on(ctx.doc.raw, Observation(
        obs.track, "encode", obs.input, (("add_special_tokens", False),), subject,
        obs.upstream))
    return yes(isinstance(replayed, Encoded) and replayed.ids == subject.ids)


RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in (
    unk_not_an_added_token_refused,
    template_not_applied,
)}
