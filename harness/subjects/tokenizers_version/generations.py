"""The ``tokenizers`` Python API, per generation: 0.x (``from_str``, rich ``Encoding``) and
1.x (``from_file`` only; an ``Encoding`` of ids, type ids and attention mask).

Standard library only (besides the ``tokenizers`` module it is handed), so that the
subject program of another version's virtual environment (``program.py``) can use it
without the harness installed. ``harness.subjects.upstream`` wraps it for the pinned
version; decision record docs/decisions/0035-tokenizers-api-generations.md.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Final

#: Every tier a subject may answer (as in ``harness.subjects.protocol``).
ALL_TIERS: Final = ("ids", "tokens", "spans", "special_mask", "type_ids", "attention_mask",
                    "pairs", "decode")
#: What 1.0 took away from the ``Encoding``: character offsets and the special-tokens mask.
TIERS_GONE_IN_1: Final = ("spans", "special_mask")


@dataclass(frozen=True)
class Answer:
    """One encode, as plain values; a tier the generation does not expose is empty."""

    ids: tuple[int, ...]
    tokens: tuple[str, ...]
    spans: tuple[tuple[int, int], ...] = ()
    special_mask: tuple[int, ...] = ()
    type_ids: tuple[int, ...] = ()
    attention_mask: tuple[int, ...] = ()
    #: 0.x's ``Encoding.word_ids`` (empty under 1.x: not read there).
    word_ids: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class Generation:
    """How to drive one generation of the API."""

    name: str
    module: ModuleType = field(repr=False)
    tiers: frozenset[str]
    #: The exception types that are a refusal (matched exactly: a subclass is a crash).
    refusals: tuple[type[BaseException], ...]
    #: Whether components (``Regex``, ``normalizers``, ``PreTokenizedString``) exist.
    has_components: bool

    @property
    def version(self) -> str:
        """The module's version in PEP 440's normal form (1.x says ``1.0.0-rc.3``: the
        version pip installed is ``1.0.0rc3``)."""
        return canonical_version(str(self.module.__version__))

    def is_refusal(self, error: BaseException) -> bool:
        return type(error) in self.refusals

    def load(self, document_json: str) -> Any:
        """A Tokenizer from a tokenizer.json text (raises what the library raises)."""
        tokenizer_class = self.module.Tokenizer
        if hasattr(tokenizer_class, "from_str"):
            return tokenizer_class.from_str(document_json)
        descriptor, path = tempfile.mkstemp(prefix="tokenizer-", suffix=".json")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(document_json)
            return tokenizer_class.from_file(path)
        finally:
            os.unlink(path)

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> Answer:
        if self.name == "0.x":
            result = tokenizer.encode(text, pair, add_special_tokens=add_special_tokens)
            return Answer(
                ids=tuple(int(i) for i in result.ids),
                tokens=tuple(str(t) for t in result.tokens),
                spans=tuple((int(s), int(e)) for s, e in result.offsets),
                special_mask=tuple(int(m) for m in result.special_tokens_mask),
                type_ids=tuple(int(t) for t in result.type_ids),
                attention_mask=tuple(int(m) for m in result.attention_mask),
                word_ids=tuple(None if w is None else int(w) for w in result.word_ids))
        given: str | tuple[str, str] = text if pair is None else (text, pair)
        result = tokenizer.encode(given, add_special_tokens=add_special_tokens)
        ids = [int(i) for i in result.ids]
        tokens = tokenizer.decode_tokens(ids, skip_special_tokens=False)
        return Answer(ids=tuple(ids), tokens=tuple(str(t) for t in tokens),
                      type_ids=tuple(int(t) for t in result.type_ids),
                      attention_mask=tuple(int(m) for m in result.attention_mask))

    def decode(self, tokenizer: Any, ids: Sequence[int], *, skip_special_tokens: bool) -> str:
        return str(tokenizer.decode(list(ids), skip_special_tokens=skip_special_tokens))


_PRE_RELEASE: Final = re.compile(r"[-_.]?(a|b|rc)[-_.]?(\d+)")


def canonical_version(version: str) -> str:
    """``version`` as pip spells it: ``1.0.0-rc.3`` -> ``1.0.0rc3``; others unchanged."""
    return _PRE_RELEASE.sub(r"\1\2", version.strip().lower())


def generation_of(module: ModuleType) -> Generation:
    """The generation of an imported ``tokenizers`` module, told by what it has (not by
    its version string: a release candidate of 1.0 is 1.x)."""
    tokenizer_class = module.Tokenizer
    if hasattr(tokenizer_class, "from_str") and hasattr(module, "Regex"):
        return Generation("0.x", module, frozenset(ALL_TIERS), (Exception,), True)
    tiers = frozenset(t for t in ALL_TIERS if t not in TIERS_GONE_IN_1)
    return Generation("1.x", module, tiers, (Exception, ValueError), False)


#: The expectations families (``expectations-<family>.yaml``, the hello name's tail): 1.x;
#: 0.x from 0.23 on (the pinned version's line); 0.20-0.22, the releases before 0.23
#: (triaged over 0.20.4, 0.21.4 and 0.22.2; an older 0.x is judged by it too).
FAMILIES: Final = ("0.x", "0.20-0.22", "1.x")


def family(version: str) -> str:
    """The expectations family of a version string (``FAMILIES``)."""
    text = version.strip()
    if not text.startswith("0."):
        return "1.x"
    minor = re.match(r"0\.(\d+)", text)
    return "0.20-0.22" if minor is not None and int(minor.group(1)) < 23 else "0.x"
