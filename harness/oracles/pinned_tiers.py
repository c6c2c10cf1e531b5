"""Regenerating with a ``tokenizers`` that does not expose every tier (1.x: no offsets, no
special-tokens mask): what it cannot answer is carried over from the committed row,
pinned to the version that produced it (``produced_by``), never written as empty.

A row keeps its committed gone tiers when the new encoding has as many tokens as the
committed one; otherwise (or for a witness on a gone tier) the committed row is kept
whole. Decision docs/decisions/0035-tokenizers-api-generations.md; docs/upgrading.md.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Final

Json = dict[str, Any]

#: The tiers an upstream generation may not expose, as the oracle rows spell them.
MAY_BE_GONE: Final = ("spans", "special_mask")


def gone_tiers() -> tuple[str, ...]:
    """The tiers the installed ``tokenizers`` does not expose (empty under 0.x)."""
    from ..subjects import upstream

    return tuple(t for t in MAY_BE_GONE if t not in upstream.GENERATION.tiers)


def _length(value: Any) -> int:
    """Tokens in an ids column, plain (a list) or packed (``"1 22 3"``)."""
    if isinstance(value, str):
        return len(value.split())
    return len(value) if isinstance(value, list) else -1


def _carried(new: Any, old: Any, gone: Sequence[str]) -> bool:
    """Copy ``gone`` tiers of the committed encode outcome ``old`` into ``new``; False when
    they cannot be carried (not both encoded, or of different lengths)."""
    if not (isinstance(new, dict) and isinstance(old, dict)):
        return False
    if new.get("outcome") != "encoded":
        return True  # nothing to carry: a refusal or a panic has no tiers
    if old.get("outcome") != "encoded" or _length(new.get("ids")) != _length(old.get("ids")):
        return False
    for tier in gone:
        if tier in old:
            new[tier] = copy.deepcopy(old[tier])
    return True


def _producer(old_row: Json, old_version: str) -> str:
    pinned = old_row.get("produced_by")
    return str(pinned["version"]) if isinstance(pinned, dict) else old_version


def _whole(old_row: Json, gone: Sequence[str], old_version: str) -> Json:
    row = copy.deepcopy(old_row)
    row["produced_by"] = {"version": _producer(old_row, old_version), "tiers": list(gone),
                          "whole_row": True}
    return row


def carry_row(new_row: Json, old_row: Json | None, gone: Sequence[str], old_version: str
              ) -> Json:
    """``new_row`` with what the new version could not answer taken from ``old_row``."""
    if not gone or old_row is None or new_row.get("kind") not in ("encode", "witness"):
        return new_row
    if new_row.get("kind") == "witness":
        if old_row.get("case") != new_row.get("case"):
            return new_row
        if old_row.get("tier") in gone:
            return _whole(old_row, gone, old_version)
        outcome, before = new_row.get("upstream"), old_row.get("upstream")
    else:
        if old_row.get("input") != new_row.get("input"):
            return new_row
        outcome = (new_row.get("upstream") or {}).get("encode")
        before = (old_row.get("upstream") or {}).get("encode")
    if not isinstance(outcome, dict) or outcome.get("outcome") != "encoded":
        return new_row
    if not _carried(outcome, before, gone):
        return _whole(old_row, gone, old_version)
    new_row["produced_by"] = {"version": _producer(old_row, old_version),
                              "tiers": list(gone), "whole_row": False}
    return new_row


def carry_file(new_data: Json, old_data: Json | None, gone: Sequence[str]) -> Json:
    """Every row of a regenerated oracle file carried over from the committed one."""
    if not gone or not old_data:
        return new_data
    old_version = str((old_data.get("header") or {}).get("tokenizers") or "unknown")
    old_rows = {str(r["id"]): r for r in old_data.get("cases", [])}
    new_data["cases"] = [carry_row(row, old_rows.get(str(row["id"])), gone, old_version)
                         for row in new_data.get("cases", [])]
    return new_data
