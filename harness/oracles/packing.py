"""The packed spelling of ``encoded`` outcomes (ids, spans and the special mask as
strings; tokens left out when they are the vocabulary strings of the ids): packing at
generation, unpacking (strictly, canonical form only) at replay. Format:
``oracles/README.md``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .layout import Json

_PACKED_IDS = re.compile(r"(?:0|[1-9][0-9]*)(?: (?:0|[1-9][0-9]*))*")
_PACKED_SPANS = re.compile(r"-?[0-9]+:-?[0-9]+(?: -?[0-9]+:-?[0-9]+)*")
_PACKED_MASK = re.compile(r"[01]*")


def token_strings(document: Mapping[str, Any]) -> dict[int, str]:
    """id -> token string: the model vocabulary, overridden by the added tokens (how
    upstream names the token of an id)."""
    model = document.get("model") or {}
    vocab = model.get("vocab") if isinstance(model, dict) else None
    out: dict[int, str] = {}
    if isinstance(vocab, dict):
        out.update({int(i): str(token) for token, i in vocab.items()})
    for added in document.get("added_tokens") or []:
        out[int(added["id"])] = str(added["content"])
    return out


def is_packed(outcome: Any) -> bool:
    return (isinstance(outcome, dict) and outcome.get("outcome") == "encoded"
            and isinstance(outcome.get("ids"), str))


def pack_encoded(outcome: Json, tokens_of: Mapping[int, str]) -> Json:
    """The packed spelling of an ``encoded`` outcome (others are returned as they are)."""
    if outcome.get("outcome") != "encoded":
        return outcome
    ids = [int(i) for i in outcome["ids"]]
    packed: Json = {
        "outcome": "encoded",
        "ids": " ".join(map(str, ids)),
        "spans": " ".join(f"{int(s)}:{int(e)}" for s, e in outcome["spans"]),
        "special_mask": "".join(str(int(m)) for m in outcome["special_mask"]),
    }
    if [tokens_of.get(i) for i in ids] != list(outcome["tokens"]):
        packed["tokens"] = list(outcome["tokens"])
    return packed


def unpack_encoded(outcome: Json, tokens_of: Mapping[int, str]) -> Json:
    """The plain spelling of a packed ``encoded`` outcome (others are returned as they
    are). Raises ValueError on a malformed or non-canonical packed outcome."""
    if not is_packed(outcome):
        return outcome
    extra = sorted(set(outcome) - {"outcome", "ids", "spans", "special_mask", "tokens"})
    if extra:
        raise ValueError(f"unknown keys {extra}")
    fields = {key: outcome.get(key) for key in ("ids", "spans", "special_mask")}
    for key, pattern in (("ids", _PACKED_IDS), ("spans", _PACKED_SPANS),
                         ("special_mask", _PACKED_MASK)):
        value = fields[key]
        if not isinstance(value, str) or (value and not pattern.fullmatch(value)):
            raise ValueError(f"{key} is not a packed {key} string: {str(value)[:80]!r}")
    ids = [int(i) for i in str(fields["ids"]).split()]
    spans = [[int(x) for x in pair.split(":")] for pair in str(fields["spans"]).split()]
    mask = [int(m) for m in str(fields["special_mask"])]
    if not len(ids) == len(spans) == len(mask):
        raise ValueError(f"{len(ids)} ids, {len(spans)} spans and {len(mask)} special-mask "
                         "entries")
    if "tokens" in outcome:
        tokens = outcome["tokens"]
        if not isinstance(tokens, list) or len(tokens) != len(ids):
            raise ValueError("tokens must be a list with one string per id")
    else:
        missing = [i for i in ids if i not in tokens_of]
        if missing:
            raise ValueError(f"id {missing[0]} names no token of the tokenizer")
        tokens = [tokens_of[i] for i in ids]
    plain: Json = {"outcome": "encoded", "ids": ids, "tokens": list(tokens), "spans": spans,
                   "special_mask": mask}
    if pack_encoded(plain, tokens_of) != outcome:
        raise ValueError("not in the canonical packed form (tokens are written only when "
                         "they are not the vocabulary strings of the ids)")
    return plain
