"""The recognisers of kitoken-npm's expectations (``expectations.yaml`` beside this
package). A plugin of the judge (decision 0034).

kitoken 0.10.1 on npm is the engine of the PyPI subject kitoken 0.11.1 a version apart:
its refusals are recognised by kitoken's own recognisers and its readings are kitoken's
(``harness/subjects/kitoken/recognisers``, imported, never copied), composed with the ways
0.10.1 reads a document differently:

- ``unk_decoded_when_skipping_specials``: 0.10.1's ``decode(ids, false)`` skips only the
  added tokens of the kind Control (``special`` true and not the unk token): the unk
  token (kind Unknown) is decoded whether or not the specials are skipped. 0.11 skips it
  for a tokenizers file (``SpecialTokenKinds for bool``: ``false`` is ``[Priority]``).
- ``added_token_ids_over_vocabulary``: an added token whose content is also a vocabulary
  entry at another id encodes to the added token's id (0.10.1 keeps every added token in
  its special vocabulary, and keys its vocabulary by bytes: the entry's id is gone);
  upstream's added vocabulary takes the model's id for a content the model has. 0.11
  ("Remove priority specials from vocab") gives the vocabulary's id.
- ``added_entries_out_of_model`` and ``first_listed_added_tokens`` (``added.py``): every
  added token is out of the model's vocabulary, and the added tokens are cut out of a
  text leftmost-first in kitoken's order of them (upstream: leftmost-longest).

and two refusals: ``decode_shadowed_entry_refused`` (the id of such a vocabulary entry is
unknown to 0.10.1's decode, "invalid token N") and ``regex_escape_refused`` (0.10.1's
regex engine refuses an escape upstream's Oniguruma knows, ``\\Z``), and one crash,
``one_char_split_traps`` (a one-character Split pattern of several bytes traps the
WebAssembly instance, where 0.11.1 panics with a message).
"""

from __future__ import annotations

import re
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Crashed, Decoded, Encoded, Loaded, Refused
from ....judge.compare import Divergence
from ....judge.predicates import NONE, Context, Predicate
from ...kitoken.recognisers import READINGS
from ...kitoken.recognisers import RECOGNISERS as KITOKEN
from ...kitoken.recognisers.readings import DECODE, ENCODE, Reading, Readings
from ...transformers_js.recognisers.replay import model_of, replaying, with_model, yes
from .added import (
    _added_in_vocabulary,
    added_entries_out_of_model,
    added_ids_restored,
    first_listed_added_tokens,
)

_INVALID_TOKEN: Final = re.compile(r"^invalid token (\d+)$")


def _shadowed(document: dict[str, Any]) -> dict[str, int]:
    """The vocabulary entries an added token of the same content and another id shadows:
    content -> the added token's id."""
    vocab = model_of(document).get("vocab")
    if not isinstance(vocab, dict):
        return {}
    return {e["content"]: e["id"] for e in document.get("added_tokens") or ()
            if isinstance(e, dict) and isinstance(e.get("id"), int)
            and isinstance(e.get("content"), str) and isinstance(vocab.get(e["content"]), int)
            and vocab[e["content"]] != e["id"]}


def added_token_ids_over_vocabulary(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken 0.10.1 encodes a text matching an added token whose content is also a
    vocabulary entry at another id to the added token's id: upstream with that entry of
    the vocabulary at the added id (where no other entry has it). A special added token
    or the unk token: a non-special one is out of the model, cut out of the text at its
    added id (``added_entries_out_of_model``, which reads it)."""
    out = _added_in_vocabulary(document)
    shadowed = {c: i for c, i in _shadowed(document).items() if c not in out}
    vocab = model_of(document).get("vocab")
    if not shadowed or not isinstance(vocab, dict):
        return None
    taken = {i for t, i in vocab.items() if t not in shadowed}
    if any(added in taken for added in shadowed.values()):
        return None
    return with_model(document, vocab={t: shadowed.get(t, i) for t, i in vocab.items()})


def decode_shadowed_entry_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decode of the id of a vocabulary entry that an added token of the same content
    and another id shadows: kitoken 0.10.1 refuses it ("invalid token N"), upstream
    decodes it. Checked: N is in the request, and is the vocabulary id of the content of
    an added token whose id is another."""
    obs = div.observation
    if not (obs.operation == "decode" and isinstance(obs.subject, Refused)
            and isinstance(obs.upstream, Decoded) and isinstance(obs.input, tuple)):
        return NONE
    named = _INVALID_TOKEN.match(obs.subject.message)
    if named is None or int(named.group(1)) not in obs.input:
        return NONE
    vocab = model_of(ctx.doc.raw).get("vocab") or {}
    return yes(any(vocab.get(content) == int(named.group(1))
                   for content in _shadowed(ctx.doc.raw)))


def unk_not_special(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken 0.10.1 decodes the unk token (an added token of the kind Unknown: its
    content is the model's ``unk_token``) when the specials are skipped: upstream with
    that added token's ``special`` false (a decode skipping the specials keeps it)."""
    unk = model_of(document).get("unk_token")
    added = document.get("added_tokens") or []
    if not isinstance(unk, str) or not any(
            isinstance(e, dict) and e.get("content") == unk and e.get("special") is True
            for e in added):
        return None
    return {**document, "added_tokens": [
        {**e, "special": False} if isinstance(e, dict) and e.get("content") == unk else e
        for e in added]}


def _skipping_specials(document: dict[str, Any], obs: Observation) -> bool:
    return obs.option("skip_special_tokens") is True


_INVALID_ESCAPE: Final = re.compile(r"^invalid regex: Parsing error at position (\d+): "
                                    r"Invalid escape: (\\\S)$")


def regex_escape_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """kitoken 0.10.1 refuses a Split regex holding an escape its engine does not know
    ("invalid regex: Parsing error at position 60: Invalid escape: \\Z"); upstream
    loads it. Checked: upstream loaded, and a Split regex of the document holds the named
    escape at the named position."""
    obs = div.observation
    if (obs.operation != "load" or not isinstance(obs.subject, Refused)
            or not isinstance(obs.upstream, Loaded)):
        return NONE
    named = _INVALID_ESCAPE.match(obs.subject.message)
    if named is None:
        return NONE
    at, escape = int(named.group(1)), named.group(2)
    return yes(any(pattern[at:at + len(escape)] == escape
                   for pattern in ctx.doc.split_patterns("Regex")))


#: What subject.mjs writes for a trap of the WebAssembly instance (a Rust panic).
_TRAP: Final = "(stderr: panic: unreachable)"


def one_char_split_traps(ctx: Context, div: Divergence) -> frozenset[int]:
    """kitoken's one-character Split pattern steps one byte past a match of a character
    of several bytes (kitoken 0.11.1 panics there naming it: "byte index 1 is not a char
    boundary; it is inside 'д'", entry one-char-split-pattern-panics of kitoken); the
    WebAssembly build of 0.10.1 traps with no message. Checked: the subject's process
    ended on the trap (``RuntimeError: unreachable``, nothing else on its stderr),
    upstream encoded, and a Split step's String pattern is one character of several bytes
    that the text holds."""
    obs = div.observation
    if (obs.operation != "encode" or not isinstance(obs.subject, Crashed)
            or obs.subject.kind != "died" or not obs.subject.message.endswith(_TRAP)
            or not isinstance(obs.upstream, Encoded) or not isinstance(obs.input, str)):
        return NONE
    return yes(any(len(p) == 1 and len(p.encode("utf-8")) > 1 and p in obs.input
                   for p in ctx.doc.split_patterns("String")))


#: kitoken's readings, then 0.10.1's own.
NPM_READINGS: Final = Readings({
    **READINGS.readings,
    "added_token_ids_over_vocabulary": Reading(added_token_ids_over_vocabulary, ENCODE),
    "added_entries_out_of_model": Reading(added_entries_out_of_model, ENCODE,
                                          answer=added_ids_restored),
    "first_listed_added_tokens": Reading(first_listed_added_tokens, ENCODE),
    "unk_decoded_when_skipping_specials": Reading(unk_not_special, DECODE,
                                                  when=_skipping_specials),
}, tiers=READINGS.tiers)

RECOGNISERS: dict[str, Predicate] = {
    **KITOKEN,
    "decode_shadowed_entry_refused": replaying(decode_shadowed_entry_refused),
    "regex_escape_refused": replaying(regex_escape_refused),
    "one_char_split_traps": replaying(one_char_split_traps),
    **{name: replaying(function) for name, function in NPM_READINGS.recognisers().items()},
}
