"""Added tokens: the Llama specials, other specials, non-special added tokens.

Upstream ignores the ``id`` written in each ``added_tokens`` entry (measured on
tokenizers 0.23.1): a content already in the model vocabulary takes that id, any other takes the
next id past the vocabulary's *size*, in list order.  ``assign_ids`` writes exactly
those ids, so the document says what upstream will do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from hypothesis import strategies as st

from harness.strategies import profile as shares
from harness.strategies._weights import chance, weighted
from harness.strategies.profile import (
    DEFAULT_WEIGHTS,
    AddedOddity,
    AddedTokensKind,
    UnkKind,
    Weights,
)

LLAMA_SPECIALS: Final = ("<unk>", "<s>", "</s>")
#: Specials beyond Llama's, as chat and BERT-style vocabularies have them.
EXTRA_SPECIALS: Final = ("<|endoftext|>", "[INST]", "[/INST]", "<pad>", "<mask>", "<|im_start|>")
#: Non-special added tokens: with a space, with '<>', multi-byte, with the metaspace.
EXTRA_PLAIN: Final = ("hello world", "<x>", "日本語", "\u2581x", "Wo")


@dataclass(frozen=True)
class AddedSpec:
    content: str
    special: bool
    normalized: bool
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False
    #: Whether the content is also a model vocabulary string.
    in_model_vocab: bool = True

    def to_json(self, token_id: int) -> dict[str, Any]:
        return {
            "id": token_id, "content": self.content, "single_word": self.single_word,
            "lstrip": self.lstrip, "rstrip": self.rstrip, "normalized": self.normalized,
            "special": self.special,
        }


@dataclass(frozen=True)
class AddedPlan:
    """The added tokens decided before the model is drawn (they shape its vocabulary)."""

    kind: AddedTokensKind
    specs: tuple[AddedSpec, ...]

    @property
    def reserved(self) -> list[str]:
        """Contents the model vocabulary must hold, at ids 0..k-1, in this order."""
        return [s.content for s in self.specs if s.in_model_vocab]

    @property
    def outside_model(self) -> bool:
        return any(not s.in_model_vocab for s in self.specs)


@st.composite
def extra_specs(draw: st.DrawFn, *, special: bool) -> AddedSpec:
    content = draw(st.sampled_from(EXTRA_SPECIALS if special else EXTRA_PLAIN))
    normalized = (not special) != draw(chance(shares.ADDED_NORMALIZED_FLIPPED))
    return AddedSpec(
        content=content,
        special=special,
        normalized=normalized,
        lstrip=draw(chance(shares.ADDED_FLAG)),
        rstrip=draw(chance(shares.ADDED_FLAG)),
        single_word=draw(chance(shares.ADDED_FLAG)),
        in_model_vocab=not draw(chance(shares.EXTRA_OUT_OF_VOCAB)),
    )


_EXTRAS: Final = st.one_of(extra_specs(special=False), extra_specs(special=True))


@st.composite
def added_token_plans(
    draw: st.DrawFn,
    profile: Weights = DEFAULT_WEIGHTS,
    *,
    unk: UnkKind = "present",
    unk_token: str = "<unk>",
) -> AddedPlan:
    kind: AddedTokensKind = draw(weighted(profile.added_tokens))
    specs: list[AddedSpec] = []
    if kind in ("llama", "llama+extras"):
        normalized = draw(chance(shares.LLAMA_SPECIALS_NORMALIZED))
        specs += [
            AddedSpec(content, special=True, normalized=normalized,
                      in_model_vocab=not (content == unk_token and unk == "dangling"))
            for content in LLAMA_SPECIALS
        ]
    if kind in ("extras", "llama+extras"):
        extras = draw(st.lists(
            _EXTRAS, min_size=shares.EXTRAS_MIN, max_size=shares.EXTRAS_MAX,
            unique_by=lambda spec: spec.content,
        ))
        specs += extras
    return AddedPlan(kind, tuple(specs))


@st.composite
def vocabulary_piece_specs(draw: st.DrawFn, vocab: Mapping[str, int],
                           exclude: frozenset[str] = frozenset()) -> list[AddedSpec]:
    """0..2 added tokens whose content is a model vocabulary string (they keep its id)."""
    pieces = [p for p in vocab if len(p) > 1 and not p.startswith("<0x") and p not in exclude]
    if not pieces or not draw(chance(200)):
        return []
    chosen = draw(st.lists(st.sampled_from(pieces), min_size=1, max_size=2, unique=True))
    return [
        AddedSpec(p, special=draw(st.booleans()), normalized=draw(st.booleans()),
                  single_word=draw(chance(shares.ADDED_FLAG)))
        for p in chosen
    ]


@st.composite
def with_oddity(draw: st.DrawFn, entries: list[dict[str, Any]], vocab: Mapping[str, int],
                oddity: AddedOddity) -> list[dict[str, Any]]:
    """``entries`` with one more entry of the kind ``oddity`` names, at a drawn position.

    An empty content is skipped upstream (it takes no id; its JSON id is the next free one
    anyway, which upstream ignores); a repeated content keeps the first entry's id, and
    the last entry's flags are the token's.
    """
    if oddity == "none" or (oddity == "duplicate-content" and not entries):
        return entries
    flags = {flag: draw(chance(shares.ADDED_FLAG)) for flag in ("lstrip", "rstrip",
                                                                   "single_word")}
    special, normalized = draw(st.booleans()), draw(st.booleans())
    if oddity == "empty-content":
        spec = AddedSpec("", special=special, normalized=normalized, **flags)
        token_id = len(vocab) + len({e["content"] for e in entries} - set(vocab))
    else:
        original = draw(st.sampled_from(entries))
        spec = AddedSpec(original["content"], special=not original["special"],
                         normalized=normalized, **flags)
        token_id = original["id"]
    position = draw(st.integers(0, len(entries)))
    return [*entries[:position], spec.to_json(token_id), *entries[position:]]


def assign_ids(specs: Sequence[AddedSpec], vocab: Mapping[str, int]) -> list[dict[str, Any]]:
    """The ``added_tokens`` entries with the ids upstream assigns (as measured)."""
    next_id = len(vocab)
    seen: dict[str, int] = {}
    entries: list[dict[str, Any]] = []
    for spec in specs:
        if spec.content in vocab:
            token_id = vocab[spec.content]
        elif spec.content in seen:
            token_id = seen[spec.content]
        else:
            token_id = next_id
            next_id += 1
        seen[spec.content] = token_id
        entries.append(spec.to_json(token_id))
    return entries
