"""The tokenizer.json builders of the tests: those of ``harness.documents`` (shared with
the oracle cases, the benchmarks and the strategies), under the names the tests use.

``probe_document`` is the probe template upstream was measured with: a whole
tokenizer.json with every top-level component explicit and a BPE model whose options
default to null / false. Every expected upstream value in the tests was observed by
running tokenizers 0.23.1 on the documents these functions build
(``Tokenizer.from_str(json.dumps(document))``), so a change there invalidates the
observations: do not change a builder's output, add a new one.

``cases()`` is the compact Hypothesis strategy of generated (document, texts) cases used
by the property tests when ``harness.strategies`` exposes no ``cases`` strategy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from harness.documents import (
    LLAMA_CHARS,
    LLAMA_MERGES,
    METASPACE,
    METASPACE_EXTRA_MERGES,
    Merges,
    Vocab,
    added_token,
    byte_alphabet,
    byte_piece,
    decoder_sequence,
    decoder_step,
    llama_decoder,
    llama_like_document,
    llama_normalizer,
    llama_specials,
    llama_template,
    llama_vocab,
    merge_results,
    metaspace,
    metaspace_document,
    probe_document,
    replace_decoder,
    strip_decoder,
    to_json,
    vocab_of,
)

__all__ = [
    "LLAMA_CHARS",
    "LLAMA_MERGES",
    "METASPACE",
    "METASPACE_EXTRA_MERGES",
    "Merges",
    "Vocab",
    "added_token",
    "byte_alphabet",
    "byte_piece",
    "case_texts",
    "cases",
    "decoder_sequence",
    "decoder_step",
    "generated_documents",
    "llama_decoder",
    "llama_like_document",
    "llama_normalizer",
    "llama_specials",
    "llama_template",
    "llama_vocab",
    "merge_results",
    "metaspace",
    "metaspace_document",
    "probe_document",
    "replace_decoder",
    "strip_decoder",
    "to_json",
    "vocab_of",
]


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
