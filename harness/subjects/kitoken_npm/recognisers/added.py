"""How kitoken 0.10.1 reads a file's added tokens (``src/convert/tokenizers.rs`` and
``src/lib.rs`` at the tag v0.10.1): every added token, special or not, is a special token
of kitoken's and out of the model's vocabulary (``vocab.remove``); they are cut out of
the text by one regex alternation of their contents (those with ``normalized`` false
first, on the whole text), in kitoken's order of its special tokens: by kind (Unknown,
Control, Priority), then by their place in the file (``score``), then by id.
"""

from __future__ import annotations

from typing import Any

from ....core.observation import Observation
from ....core.outcome import Encoded, Outcome
from ...kitoken.recognisers.refusals import _merge_sides
from ...transformers_js.recognisers.replay import model_of, with_model

_ADDED: dict[int, tuple[dict[str, Any], frozenset[str]]] = {}


def _added_in_vocabulary(document: dict[str, Any]) -> frozenset[str]:
    """The contents of the non-special added tokens (not the unk token) that are
    vocabulary entries, once per document object (the special ones are kitoken's
    ``special_entries_out_of_model``, composed before)."""
    held = _ADDED.get(id(document))
    if held is None or held[0] is not document:
        model = model_of(document)
        vocab = model.get("vocab")
        found = frozenset() if model.get("type") != "BPE" or not isinstance(vocab, dict) \
            else frozenset(c for e in document.get("added_tokens") or ()
                           if isinstance(e, dict) and isinstance(c := e.get("content"), str)
                           and e.get("special") is not True
                           and c != model.get("unk_token")) & vocab.keys()
        if len(_ADDED) > 64:
            _ADDED.clear()
        held = _ADDED[id(document)] = (document, found)
    return held[1]


#: A vocabulary entry taken out of the model is kept at its id under this spelling (with
#: the id after it): no text or merge reaches it, and upstream's ids stay where they are.
_GONE: str = "\ufdd0kitoken-0.10.1-out-of-model:"


def added_entries_out_of_model(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken 0.10.1 takes every added token (the kinds Control and Priority: ``special``
    true or false) out of the model's vocabulary, where 0.11 takes the special ones only
    (``special_entries_out_of_model``, composed before this one, which takes the others
    out): Gemma 3's ``▁▁``, a non-special added token matched on the raw text
    (``normalized`` false), is no model token, and two spaces normalized to ``▁▁`` are two
    ``▁``. Upstream with each such entry of the vocabulary renamed at its id to a spelling
    no text reaches (and the merges naming it left out); its added-token entry stays, so
    upstream still cuts it out of a text, numbered anew (its content is no vocabulary
    entry now): ``added_ids_restored`` gives those tokens their ids back."""
    gone = _added_in_vocabulary(document)
    if not gone:
        return None
    model = model_of(document)
    merges = [m for m in model.get("merges") or ()
              if (sides := _merge_sides(m)) is None
              or not {sides[0], sides[1], sides[0] + sides[1]} & gone]
    return with_model(document, merges=merges, vocab={
        (f"{_GONE}{i}" if t in gone else t): i for t, i in model["vocab"].items()})


def added_ids_restored(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                       ) -> Outcome | None:
    """The replayed tokens whose string is the content of an added token taken out of
    the model (``added_entries_out_of_model``) at that added token's id in the file (the
    last entry of that content: kitoken keys its special tokens by content); upstream
    numbered it anew."""
    gone = _added_in_vocabulary(document)
    if not isinstance(outcome, Encoded) or not gone or len(outcome.tokens) != len(outcome.ids):
        return outcome
    ids = {e["content"]: e["id"] for e in document.get("added_tokens") or ()
           if isinstance(e, dict) and e.get("content") in gone and isinstance(e.get("id"), int)}
    return Encoded(ids=tuple(ids.get(t, i) for t, i in zip(outcome.tokens, outcome.ids,
                                                            strict=True)),
                   tokens=outcome.tokens, spans=(), special_mask=())


def _kitoken_order(document: dict[str, Any]) -> list[tuple[str, bool]]:
    """The added tokens' contents (with their ``normalized`` flag) in kitoken 0.10.1's
    order of its special tokens: by kind (the unk token, then ``special`` true, then the
    others), then by place in the file (the last entry of a content stands), then id."""
    unk = model_of(document).get("unk_token")
    last: dict[str, tuple[int, int, int, bool]] = {}
    for place, entry in enumerate(document.get("added_tokens") or ()):
        if not isinstance(entry, dict) or not isinstance(content := entry.get("content"), str) \
                or not content or not isinstance(entry.get("id"), int):
            continue
        kind = 0 if content == unk else 1 if entry.get("special") is True else 2
        last[content] = (kind, place, entry["id"], entry.get("normalized") is not False)
    return [(content, key[3]) for content, key in sorted(last.items(), key=lambda kv: kv[1])]


def first_listed_added_tokens(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken 0.10.1 cuts the added tokens out of a text with a regex alternation of
    their contents in its order (``_kitoken_order``): at a place where several match, the
    first listed wins (leftmost-first), where upstream takes the longest (leftmost-
    longest). An added token with an earlier one of the same ``normalized`` flag as a
    proper prefix is then never cut out: wherever it matches, that one matches first.
    Gemma 3 lists ``\\n`` before ``\\n\\n`` and ``\\n\\n\\n``: three newlines are three
    ``\\n`` in 0.10.1, the added ``\\n\\n\\n`` upstream. Upstream with those added-token
    entries left out (at each place the longest of the others is the first listed)."""
    order = _kitoken_order(document)
    shadowed = {content for n, (content, normalized) in enumerate(order)
                if any(flag == normalized and len(earlier) < len(content)
                       and content.startswith(earlier) for earlier, flag in order[:n])}
    if not shadowed:
        return None
    return {**document, "added_tokens": [e for e in document.get("added_tokens") or ()
                                         if not (isinstance(e, dict)
                                                 and e.get("content") in shadowed)]}
