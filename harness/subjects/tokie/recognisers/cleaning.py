"""tokie 0.1.4's BERT uncased normalizer (hf.rs ``detect_normalizer``'s BertUncased), for the
recognisers beside this module: where tokie detects it, and where its cleaning is not
upstream's BertNormalizer.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Final

from ....core.observation import Observation
from ...kitoken.recognisers.readings import with_option
from . import model

#: tokie's BERT uncased normalizer, as upstream's (measured on tokie 0.1.4: no Chinese
#: characters padded; accents stripped, lowercased, controls cleaned).
_BERT_UNCASED: Final = {"type": "BertNormalizer", "clean_text": True,
                        "handle_chinese_chars": False, "strip_accents": True,
                        "lowercase": True}


@model.per_document
def _bert_uncased(document: dict[str, Any]) -> bool:
    """hf.rs ``detect_normalizer`` gives BertUncased: a Lowercase normalizer (without a
    Metaspace and WhitespaceSplit pre-tokenizer), a BertNormalizer that lowercases, or a
    Sequence whose first NFC or BertNormalizer is one that lowercases (and no Precompiled
    with a Metaspace, no Prepend + Replace pair)."""
    if model.detected_normalizer(document) != "BertNormalizer":
        return False
    normalizer = document.get("normalizer")
    if not isinstance(normalizer, dict):
        return False
    kind = normalizer.get("type")
    if kind == "Lowercase":
        return True
    if kind == "BertNormalizer":
        return normalizer.get("lowercase") is True
    if kind == "Sequence":
        for step in normalizer.get("normalizers") or ():
            if isinstance(step, dict) and step.get("type") in ("NFC", "BertNormalizer"):
                return step.get("type") == "BertNormalizer" and step.get("lowercase") is True
    return False


def _cleaned_alike(text: str) -> bool:
    """tokie's BERT cleaning is upstream's on a text holding a character past ASCII; on an
    ASCII text it keeps the control characters and whitespace before the first one it has
    to change (measured): alike only where the text has none of those."""
    return any(ord(c) > 127 for c in text) or all(" " <= c < "\x7f" for c in text)


#: The general categories tokie's BERT cleaning and accent stripping remove whatever
#: upstream's tables say (measured on tokie 0.1.4, 40 code points of each category of
#: Unicode 14.0: every unassigned one, and format characters and nonspacing marks newer
#: than upstream's tables; upstream keeps an unassigned code point).
_REMOVED: Final = frozenset({"Cn", "Cf", "Mn"})


def _removed(char: str) -> bool:
    return unicodedata.category(char) in _REMOVED


def removes_by_category(document: dict[str, Any]) -> dict[str, Any] | None:
    """Applies where tokie's normalizer is its BERT uncased one (the document unchanged:
    the reading is made on the request, ``without_removed``)."""
    return document if _bert_uncased(document) else None


def holds_removed(document: dict[str, Any], obs: Observation) -> bool:
    """A text of the request holds a character ``_REMOVED`` names that upstream's
    BertNormalizer keeps (an unassigned one, or one its tables do not know)."""
    return _bert_uncased(document) and any(
        _removed(c) for t in (obs.input, obs.option("pair")) if isinstance(t, str)
        for c in t)


def without_removed(document: dict[str, Any], obs: Observation) -> Observation:
    """The request with each character of a ``_REMOVED`` category taken out of its texts
    (upstream's BertNormalizer removes the others of them itself: the format characters
    and, after NFD, the nonspacing marks its tables know)."""
    def kept(text: str) -> str:
        return "".join(c for c in text if not _removed(c))

    changed = obs
    if isinstance(obs.input, str):
        changed = Observation(obs.track, obs.operation, kept(obs.input), obs.options,
                              obs.subject, obs.upstream)
    pair = obs.option("pair")
    return with_option(changed, "pair", kept(pair)) if isinstance(pair, str) else changed
