"""The recognisers of tokie's expectations (``expectations.yaml`` beside this module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is tokie, *upstream* is
``tokenizers``. A panic is recognised by the source file tokie's panic message names (an
unchecked index in one function); a decode by rebuilding what tokie answered from the document.
"""

from __future__ import annotations

import re
from typing import Final

from ...core.outcome import Crashed, Decoded
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..transformers_js.recognisers.replay import replaying, yes

#: Where tokie 0.1.4 panics, measured: (the operation, its source file; one unchecked
#: index per file, at a line or two: sentencepiece.rs:469-470, vocab.rs:76-83).
PANICS: Final = (("load", "encoder/sentencepiece.rs"), ("load", "encoder/simple.rs"),
                 ("load", "encoder/backtracking.rs"), ("decode", "decoder/vocab.rs"))


def panics_at(operation: str, site: str) -> Predicate:
    """tokie panics in ``site`` (``crates/tokie/src/<site>``) in ``operation``, whatever
    upstream does there. Checked: the subject died, its standard error naming that file
    (an index out of bounds)."""
    where = re.compile(r"panicked at crates/tokie/src/" + re.escape(site)
                       + r":\d+:\d+: index out of bounds")

    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        subject = div.observation.subject
        return yes(div.observation.operation == operation and isinstance(subject, Crashed)
                   and where.search(subject.message) is not None)

    source = site.removesuffix(".rs")
    recognise.__name__ = "panics_in_" + re.sub(r"\W", "_", source)
    return recognise


def _token_strings(ctx: Context) -> dict[int, str]:
    found = {value: key for key, value in ctx.doc.vocab.items() if isinstance(value, int)}
    for entry in ctx.doc.added_tokens:
        if isinstance(entry, dict) and isinstance(entry.get("id"), int) and isinstance(
                entry.get("content"), str):
            found[entry["id"]] = entry["content"]
    return found


def decodes_raw_tokens(ctx: Context, div: Divergence) -> frozenset[int]:
    """tokie's decode runs none of the document's decoders (no ByteFallback, Replace,
    Strip, Metaspace...): its text is the ids' token strings joined. Checked: the
    document has a decoder, and the subject's text is exactly that join."""
    obs = div.observation
    subject = obs.subject
    if not (obs.operation == "decode" and isinstance(subject, Decoded)
            and isinstance(obs.input, tuple) and ctx.doc.raw.get("decoder")):
        return NONE
    strings = _token_strings(ctx)
    if not all(i in strings for i in obs.input):
        return NONE
    return yes(subject.text == "".join(strings[i] for i in obs.input))


RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in (
    *(panics_at(operation, site) for operation, site in PANICS),
    decodes_raw_tokens,
)}
