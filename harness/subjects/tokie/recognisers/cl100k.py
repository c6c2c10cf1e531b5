"""tokie 0.1.4's CL100K pre-tokenizer (its own lexer for a Split regex of that family, as
Llama 3's), where it splits otherwise than the regex, for the recognisers beside this
module.
"""

from __future__ import annotations

import re
from typing import Any, Final

from . import model

#: The regex's letters with one optional character before them (its class's \p{N} maybe
#: spelt otherwise by the reading ``letter_numbers_not_numbers``).
_PREFIXED_LETTERS: Final = re.compile(r"(\[\^\\r\\n\\p\{L\}[^\]]*\])\?\\p\{L\}\+")
#: The same with no such character right after a tab, vertical tab or form feed
#: (measured on Llama 3: "\t<a" is "\t", "<", "a" in tokie, "\t", "<a" upstream; after a
#: space, "\r", "\n", U+00A0, U+2028, U+3000 or a letter tokie agrees). And U+00A0 is
#: never that character ("a\u00a0b" is "a", "\u00a0", "b" in tokie, "a", "\u00a0b"
#: upstream): it is put in the class as a character not taken.
_NOT_AFTER_CONTROL_SPACE: Final = r"(?<![\t\x0b\x0c])"
#: What may stand there after them: a whitespace character ("a\t\tb" is "a", "\t", "\tb"
#: in both).
_AFTER_CONTROL_SPACE: Final = "(?<=[\\t\\x0b\\x0c])[^\\S\\r\\n\u00a0]"


def no_prefix_after_control_space(document: dict[str, Any]) -> dict[str, Any] | None:
    r"""tokie's lexer for a CL100K-style file (a Sequence of its Split regex and a
    ByteLevel, Llama 3's) gives letters no character before them right after a tab,
    vertical tab or form feed: "\t<s>" is "\t", "<", "s", ">" where upstream's
    ``[^\r\n\p{L}\p{N}]?\p{L}+`` gives "\t", "<s", ">". The document with that
    alternative spelt with a lookbehind refusing those three before the optional
    character."""
    pre = document.get("pre_tokenizer")
    if not isinstance(pre, dict) or pre.get("type") != "Sequence" \
            or model.pretokenizer_type(document) != "ByteLevel-family":
        return None
    steps = pre.get("pretokenizers")
    if not isinstance(steps, list):
        return None
    splits = [s for s in steps if isinstance(s, dict) and s.get("type") == "Split"
              and isinstance(s.get("pattern"), dict)
              and isinstance(s["pattern"].get("Regex"), str)]
    if len(splits) != 1 or _PREFIXED_LETTERS.search(splits[0]["pattern"]["Regex"]) is None \
            or "(?i:'s|'t|'re" not in splits[0]["pattern"]["Regex"]:
        return None
    regex = _PREFIXED_LETTERS.sub(
        lambda m: f"(?:{_NOT_AFTER_CONTROL_SPACE}{m.group(1)[:2]}\u00a0{m.group(1)[2:]}"
                  f"|{_AFTER_CONTROL_SPACE})?\\p{{L}}+",
        splits[0]["pattern"]["Regex"], count=1)
    changed = [{**s, "pattern": {"Regex": regex}} if s is splits[0] else s for s in steps]
    return {**document, "pre_tokenizer": {**pre, "pretokenizers": changed}}
