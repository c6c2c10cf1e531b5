"""Builders of tokenizer.json documents (as dicts) shared by the tests.

``probe_document`` is the probe template upstream was measured with: a whole
tokenizer.json with every top-level component explicit and a BPE model whose options
default to null / false. Every expected upstream
value in the tests was observed by running tokenizers 0.23.1 on the documents these
functions build (``Tokenizer.from_str(json.dumps(document))``), so a change here
invalidates the observations: do not change a builder's output, add a new one.

``cases()`` is the compact Hypothesis strategy of generated (document, texts) cases used
by the property tests when ``harness.strategies`` exposes no ``cases`` strategy.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

METASPACE = "\u2581"  # '▁'

Vocab = Sequence[str] | Mapping[str, int]
Merges = Sequence[Sequence[str] | str]


# ---------------------------------------------------------------------------
# Pieces
# ---------------------------------------------------------------------------


def byte_piece(value: int) -> str:
    """The upper-case spelling byte fallback looks up: ``<0xC3>``."""
    return f"<0x{value:02X}>"


def byte_alphabet() -> list[str]:
    """The 256 byte pieces ``<0x00>`` .. ``<0xFF>``, in byte order."""
    return [byte_piece(b) for b in range(256)]


def vocab_of(tokens: Vocab) -> dict[str, int]:
    """A list means ``{token: index}`` (in list order); a mapping is copied as is."""
    if isinstance(tokens, Mapping):
        return dict(tokens)
    return {token: i for i, token in enumerate(tokens)}


def added_token(
    content: str,
    token_id: int,
    *,
    special: bool = True,
    normalized: bool = False,
    lstrip: bool = False,
    rstrip: bool = False,
    single_word: bool = False,
) -> dict[str, Any]:
    """One ``added_tokens`` entry, fields in the order tokenizers serializes them."""
    return {
        "id": token_id,
        "content": content,
        "single_word": single_word,
        "lstrip": lstrip,
        "rstrip": rstrip,
        "normalized": normalized,
        "special": special,
    }


def llama_specials(*, normalized: bool = False) -> list[dict[str, Any]]:
    """``<unk>``, ``<s>``, ``</s>`` as ids 0-2, special (as in the Llama-2 tokenizer.json)."""
    return [
        added_token(content, i, normalized=normalized)
        for i, content in enumerate(("<unk>", "<s>", "</s>"))
    ]


# ---------------------------------------------------------------------------
# Components of the Llama-2 / Mistral v0.1 tokenizer.json
# ---------------------------------------------------------------------------


def llama_normalizer() -> dict[str, Any]:
    return {
        "type": "Sequence",
        "normalizers": [
            {"type": "Prepend", "prepend": METASPACE},
            {"type": "Replace", "pattern": {"String": " "}, "content": METASPACE},
        ],
    }


def llama_template(bos: str = "<s>", bos_id: int = 1) -> dict[str, Any]:
    return {
        "type": "TemplateProcessing",
        "single": [
            {"SpecialToken": {"id": bos, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
        ],
        "pair": [
            {"SpecialToken": {"id": bos, "type_id": 0}},
            {"Sequence": {"id": "A", "type_id": 0}},
            {"SpecialToken": {"id": bos, "type_id": 1}},
            {"Sequence": {"id": "B", "type_id": 1}},
        ],
        "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}},
    }


def replace_decoder() -> dict[str, Any]:
    return {"type": "Replace", "pattern": {"String": METASPACE}, "content": " "}


def strip_decoder() -> dict[str, Any]:
    return {"type": "Strip", "content": " ", "start": 1, "stop": 0}


def decoder_step(kind: str) -> dict[str, Any]:
    """One step of the Llama decoder chain by type name."""
    if kind == "Replace":
        return replace_decoder()
    if kind == "Strip":
        return strip_decoder()
    if kind == "Metaspace":
        return metaspace(prepend_scheme="always", split=True)
    return {"type": kind}


def decoder_sequence(kinds: Iterable[str]) -> dict[str, Any]:
    return {"type": "Sequence", "decoders": [decoder_step(k) for k in kinds]}


def llama_decoder() -> dict[str, Any]:
    """``[Replace, ByteFallback, Fuse, Strip]``, the chain Llama-2 declares."""
    return decoder_sequence(("Replace", "ByteFallback", "Fuse", "Strip"))


def metaspace(
    *, prepend_scheme: str | None = "always", split: bool | None = True, **extra: Any
) -> dict[str, Any]:
    """A Metaspace pre-tokenizer or decoder; None leaves the field out."""
    out: dict[str, Any] = {"type": "Metaspace", "replacement": METASPACE}
    if prepend_scheme is not None:
        out["prepend_scheme"] = prepend_scheme
    if split is not None:
        out["split"] = split
    out.update(extra)
    return out


# ---------------------------------------------------------------------------
# Documents
# ---------------------------------------------------------------------------


def probe_document(
    vocab: Vocab,
    merges: Merges = (),
    *,
    unk_token: str | None = None,
    byte_fallback: bool = False,
    fuse_unk: bool = False,
    normalizer: Any = None,
    pre_tokenizer: Any = None,
    decoder: Any = None,
    added_tokens: Sequence[Mapping[str, Any]] | None = None,
    post_processor: Any = None,
    **model_fields: Any,
) -> dict[str, Any]:
    """The probe template: a whole tokenizer.json over a BPE model.

    ``model_fields`` override or add model keys (``continuing_subword_prefix``...).
    """
    model: dict[str, Any] = {
        "type": "BPE",
        "dropout": None,
        "unk_token": unk_token,
        "continuing_subword_prefix": None,
        "end_of_word_suffix": None,
        "fuse_unk": fuse_unk,
        "byte_fallback": byte_fallback,
        "ignore_merges": False,
        "vocab": vocab_of(vocab),
        "merges": [list(m) if not isinstance(m, str) else m for m in merges],
    }
    model.update(model_fields)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [dict(t) for t in (added_tokens or [])],
        "normalizer": copy.deepcopy(normalizer),
        "pre_tokenizer": copy.deepcopy(pre_tokenizer),
        "post_processor": copy.deepcopy(post_processor),
        "decoder": copy.deepcopy(decoder),
        "model": model,
    }


#: The Llama-like probe: its characters and merges.
LLAMA_CHARS = METASPACE + "abcdefghijklmnopqrstuvwxyzHWé"
LLAMA_MERGES: tuple[tuple[str, str], ...] = (
    (METASPACE, "H"), ("e", "l"), ("el", "l"), ("ell", "o"), (METASPACE + "H", "ello"),
    (METASPACE, "w"), ("o", "r"), (METASPACE + "w", "or"), ("l", "d"),
    (METASPACE + "wor", "ld"), (METASPACE, METASPACE),
)


def merge_results(merges: Iterable[Sequence[str]]) -> list[str]:
    return list(dict.fromkeys(a + b for a, b in merges))


def llama_vocab(extra_merges: Sequence[Sequence[str]] = ()) -> list[str]:
    """``<unk> <s> </s>``, the 256 byte pieces, the characters, the merge results."""
    results = merge_results([*LLAMA_MERGES, *extra_merges])
    tokens = ["<unk>", "<s>", "</s>", *byte_alphabet(), *LLAMA_CHARS]
    return list(dict.fromkeys([*tokens, *results]))


def llama_like_document(
    *, added_tokens: Sequence[Mapping[str, Any]] | None = None, **overrides: Any
) -> dict[str, Any]:
    """The Llama-like probe: byte_fallback + fuse_unk, the Llama-2 normalizer, template and
    decoder, the three specials as added tokens (normalized false, special true).

    ``added_tokens`` replaces the three specials; ``overrides`` go to ``probe_document``.
    """
    fields: dict[str, Any] = {
        "unk_token": "<unk>",
        "byte_fallback": True,
        "fuse_unk": True,
        "normalizer": llama_normalizer(),
        "post_processor": llama_template(),
        "decoder": llama_decoder(),
        "added_tokens": llama_specials() if added_tokens is None else added_tokens,
    }
    fields.update(overrides)
    return probe_document(llama_vocab(), LLAMA_MERGES, **fields)


#: Extra merges of the Metaspace documents, so the texts of test_metaspace_pipeline.py come
#: out as whole words.
METASPACE_EXTRA_MERGES: tuple[tuple[str, str], ...] = (
    ("e", "y"), (METASPACE + "H", "ey"), (METASPACE, "m"), (METASPACE + "m", "y"),
    (METASPACE, "f"), ("r", "i"), ("e", "n"), ("en", "d"), (METASPACE + "f", "ri"),
    (METASPACE + "fri", "end"),
)


def metaspace_document(
    prepend_scheme: str | None = "always", split: bool | None = True, **overrides: Any
) -> dict[str, Any]:
    """A Metaspace-only file (no byte_fallback): no normalizer, the Metaspace pre-tokenizer
    and the same Metaspace as decoder, the three specials, no post-processor."""
    merges = [*LLAMA_MERGES, *METASPACE_EXTRA_MERGES]
    tokens = ["<unk>", "<s>", "</s>", *LLAMA_CHARS, *merge_results(merges)]
    fields: dict[str, Any] = {
        "unk_token": "<unk>",
        "fuse_unk": True,
        "pre_tokenizer": metaspace(prepend_scheme=prepend_scheme, split=split),
        "decoder": metaspace(prepend_scheme=prepend_scheme, split=split),
        "added_tokens": llama_specials(),
    }
    fields.update(overrides)
    return probe_document(list(dict.fromkeys(tokens)), merges, **fields)


def to_json(document: Mapping[str, Any]) -> str:
    """The document as the JSON text both tokenizers were given."""
    return json.dumps(document, ensure_ascii=False)


# ---------------------------------------------------------------------------
# A compact strategy of generated cases (documents + texts)
# ---------------------------------------------------------------------------

#: Characters vocabularies are drawn from (one to four UTF-8 bytes, the metaspace, '<').
CASE_ALPHABET = "abcdeHW<>#/ \t\n" + "éñω" + "日€" + METASPACE + "😀"
#: Characters texts draw from on top of the alphabet: never in a generated vocabulary.
CASE_UNCOVERED = "XYZçΩ語→🙂\x00"
#: Added tokens texts may contain.
CASE_ADDED = ("<s>", "</s>", "<m>", "ab")


@dataclass(frozen=True)
class GeneratedCase:
    document: dict[str, Any]
    texts: tuple[str, ...]
    pairs: tuple[tuple[str, str], ...] = ()


@st.composite
def _merges_over(draw: st.DrawFn, pieces: list[str], count: int) -> list[tuple[str, str]]:
    """``count`` merges, each of two pieces existing at that point (results join them)."""
    merges: list[tuple[str, str]] = []
    known = list(pieces)
    for _ in range(count):
        left = draw(st.sampled_from(known))
        right = draw(st.sampled_from(known))
        merges.append((left, right))
        if left + right not in known:
            known.append(left + right)
    return merges


@st.composite
def generated_documents(draw: st.DrawFn) -> dict[str, Any]:
    """A tokenizer.json over a small random BPE, in any of the supported pipelines.

    Byte alphabets are complete, partial, lower-case or absent; unk present, absent or
    dangling; the decoder one of the shapes strict mode accepts or refuses. Some documents
    are refused by the strict reference; the property tests count and skip those.
    """
    chars = draw(st.lists(st.sampled_from(CASE_ALPHABET), min_size=1, max_size=10, unique=True))
    if draw(st.booleans()):
        chars = list(dict.fromkeys([METASPACE, *chars]))
    merges = draw(_merges_over(chars, draw(st.integers(0, 8))))
    byte_kind = draw(st.sampled_from(["complete", "complete", "none", "partial", "lower"]))
    pieces: list[str] = []
    if byte_kind == "complete":
        pieces = byte_alphabet()
    elif byte_kind == "partial":
        pieces = [byte_piece(b) for b in draw(
            st.lists(st.sampled_from([0x58, 0xC3, 0xA9, 0xE6, 0xF0, 0x9F, 0x20, 0x23, 0x0A]),
                     max_size=5, unique=True))]
    elif byte_kind == "lower":
        pieces = [f"<0x{b:02x}>" for b in range(256)]
    unk = draw(st.sampled_from(["present", "present", "absent", "dangling"]))
    specials = ["<unk>", "<s>", "</s>"] if unk == "present" else ["<s>", "</s>"]
    strings = list(dict.fromkeys([*specials, *pieces, *chars, *merge_results(merges)]))
    byte_fallback = draw(st.booleans()) if pieces else draw(st.sampled_from([False] * 3 + [True]))
    model_fields: dict[str, Any] = {}
    if draw(st.integers(0, 9)) == 0:
        model_fields["continuing_subword_prefix"] = "##"
        strings = list(dict.fromkeys([*strings, *("##" + c for c in chars),
                                      *("##" + b for _, b in merges)]))
        merges = [(a, "##" + b) for a, b in merges]
    if draw(st.integers(0, 9)) == 0:
        model_fields["end_of_word_suffix"] = "</w>"
        strings = list(dict.fromkeys([*strings, *(c + "</w>" for c in chars)]))
    if draw(st.integers(0, 9)) == 0:
        model_fields["ignore_merges"] = True
    if draw(st.integers(0, 9)) == 0:
        model_fields["dropout"] = draw(st.sampled_from([0.0, 1.0]))
    pipeline = draw(st.sampled_from(["none", "llama", "metaspace", "metaspace"]))
    normalizer = llama_normalizer() if pipeline == "llama" else None
    pre_tokenizer = None
    if pipeline == "metaspace":
        pre_tokenizer = metaspace(prepend_scheme=draw(st.sampled_from(["always", "first",
                                                                        "never"])),
                                  split=draw(st.booleans()))
    decoder = draw(st.sampled_from([
        None, {"type": "ByteFallback"}, llama_decoder(), {"type": "Fuse"},
        decoder_sequence(("Replace", "ByteFallback", "Fuse")),
        metaspace(prepend_scheme="always", split=True),
    ]))
    added: list[dict[str, Any]] = []
    if draw(st.booleans()):
        added = [added_token(c, 0, normalized=False) for c in specials]
        if draw(st.booleans()):
            added.append(added_token("<m>", 0, special=False, lstrip=draw(st.booleans()),
                                     rstrip=draw(st.booleans()), normalized=draw(st.booleans())))
        if draw(st.booleans()):
            added.append(added_token("ab", 0, special=False, single_word=True))
    post_processor = llama_template() if draw(st.booleans()) else None
    return probe_document(
        strings, merges,
        unk_token={"present": "<unk>", "absent": None, "dangling": "<unk>"}[unk],
        byte_fallback=byte_fallback, fuse_unk=draw(st.booleans()),
        normalizer=normalizer, pre_tokenizer=pre_tokenizer, decoder=decoder,
        added_tokens=added, post_processor=post_processor, **model_fields,
    )


def case_texts() -> st.SearchStrategy[str]:
    """Texts mixing vocabulary characters, uncovered ones, spaces and added tokens."""
    piece = st.one_of(
        st.sampled_from(CASE_ALPHABET),
        st.sampled_from(CASE_UNCOVERED),
        st.sampled_from(CASE_ADDED),
        st.characters(codec="utf-8"),
    )
    return st.lists(piece, max_size=12).map("".join)


@st.composite
def cases(draw: st.DrawFn) -> GeneratedCase:
    document = draw(generated_documents())
    texts = tuple(draw(st.lists(case_texts(), min_size=1, max_size=4)))
    pairs = tuple(draw(st.lists(st.tuples(case_texts(), case_texts()), max_size=1)))
    return GeneratedCase(document, texts, pairs)
