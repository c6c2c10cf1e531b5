"""How kitoken 0.11 reads a file's non-special added tokens (kitoken's kind Priority),
from its conversion (``src/convert/tokenizers.rs``: "Drop priority specials used as
merge keys"; ``specials.retain``)."""

from __future__ import annotations

from typing import Any

from ...transformers_js.recognisers.replay import model_of
from .refusals import _merge_sides


def _left_to_model(document: dict[str, Any]) -> set[str]:
    """The contents of the non-special added tokens (not the unk token) kitoken drops
    from its added tokens: one byte long, or the join of a listed merge."""
    model = model_of(document)
    if model.get("type") != "BPE":
        return set()
    joins = {sides[0] + sides[1] for m in model.get("merges") or ()
             if (sides := _merge_sides(m)) is not None}
    return {c for e in document.get("added_tokens") or ()
            if isinstance(e, dict) and e.get("special") is not True
            and isinstance(c := e.get("content"), str) and c != model.get("unk_token")
            and (len(c.encode("utf-8")) <= 1 or c in joins)}


def merge_joins_not_added(document: dict[str, Any]) -> dict[str, Any] | None:
    """kitoken 0.11 drops a non-special added token from its added tokens where its
    content is one byte or the join of a listed merge: the text is never cut at it, the
    model gives it (where its vocabulary has it). Gemma 3 lists ``▁▁▁`` (a merge's join)
    as an added token matched on the raw text: upstream cuts 'Hello ▁▁▁ world' at it
    (``Hello``, ``▁``, ``▁▁▁``, ``▁world``), kitoken merges the five ``▁`` of the
    normalized word (``Hello``, ``▁▁▁▁▁``, ``world``). Upstream with those added-token
    entries left out (the vocabulary keeps their entries and ids)."""
    gone = _left_to_model(document)
    if not gone:
        return None
    return {**document, "added_tokens": [
        e for e in document.get("added_tokens") or ()
        if not (isinstance(e, dict) and e.get("special") is not True
                and e.get("content") in gone)]}
