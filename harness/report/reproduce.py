"""How ``python -m harness reproduce`` prints a witness' tokenizer.json: a line saying what
it holds, then the document indented, one key per line, a container of plain values (a
merge, an offset pair, a short list of ids) kept on its own single line, so that the
vocabulary and the merges are one line per entry and an editor or a terminal folds them
by indentation. The text is still the document's JSON (``json.loads`` gives it back).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

#: A container of plain values is written on one line while that line is this short.
INLINE_WIDTH: Final = 80
#: Indentation of one level.
INDENT: Final = "  "


def describe_document(document: Mapping[str, Any]) -> str:
    """One line: the model, the size of its vocabulary and merges, the added tokens."""
    model = document.get("model")
    model = model if isinstance(model, Mapping) else {}
    parts = [f"model {model.get('type', '?')}"]
    for key in ("vocab", "merges"):
        value = model.get(key)
        if isinstance(value, list | Mapping):
            parts.append(f"{len(value)} {'vocabulary entries' if key == 'vocab' else key}")
    added = document.get("added_tokens")
    if isinstance(added, list):
        parts.append(f"{len(added)} added token{'s' if len(added) != 1 else ''}")
    components = [key for key in ("normalizer", "pre_tokenizer", "post_processor", "decoder")
                  if document.get(key) is not None]
    if components:
        parts.append("with " + ", ".join(components))
    return ", ".join(parts)


def pretty_document(document: Any) -> str:
    """``document`` as indented JSON, plain-valued containers on one line each."""
    return _pretty(document, 0)


def _plain(value: Any) -> bool:
    return not isinstance(value, list | dict)


def _inline(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _pretty(value: Any, depth: int) -> str:
    if _plain(value) or not value:
        return _inline(value)
    items = list(value.values()) if isinstance(value, dict) else value
    if all(_plain(item) for item in items):
        one_line = _inline(value)
        if len(one_line) + len(INDENT) * depth <= INLINE_WIDTH:
            return one_line
    inner = INDENT * (depth + 1)
    if isinstance(value, dict):
        lines = [f"{inner}{json.dumps(str(key), ensure_ascii=False)}: "
                 f"{_pretty(item, depth + 1)}" for key, item in value.items()]
    else:
        lines = [f"{inner}{_pretty(item, depth + 1)}" for item in value]
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return opening + "\n" + ",\n".join(lines) + "\n" + INDENT * depth + closing


def print_document(document: Mapping[str, Any]) -> None:
    """What ``reproduce`` prints of the witness' document."""
    print(f"tokenizer.json ({describe_document(document)}):")
    print(pretty_document(document))
