"""tokenizer.json documents (as dicts), built from their parts: the one set of builders
that the tests, the oracle cases, the benchmarks and the strategies share.

Every expected upstream value of the tests and oracle files was observed by running
``tokenizers`` on documents these functions build, so a builder's output never changes:
to probe something new, add a builder or a parameter with a default that keeps the old
output. Fields come in the order ``tokenizers`` serializes them.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

METASPACE = "\u2581"  # '▁'

Document = dict[str, Any]
Vocab = Sequence[str] | Mapping[str, int]
Merges = Sequence[Sequence[str] | str]


# --- pieces --------------------------------------------------------------------------------

def byte_piece(value: int) -> str:
    """The upper-case spelling byte fallback looks up: ``<0xC3>``."""
    return f"<0x{value:02X}>"


def byte_alphabet() -> list[str]:
    """The 256 byte pieces ``<0x00>`` .. ``<0xFF>``, in byte order."""
    return [byte_piece(b) for b in range(256)]


def vocab_of(tokens: Vocab) -> dict[str, int]:
    """A list means ``{token: index}``; a mapping is copied as is."""
    if isinstance(tokens, Mapping):
        return dict(tokens)
    return {token: i for i, token in enumerate(tokens)}


def merge_results(merges: Iterable[Sequence[str]]) -> list[str]:
    return list(dict.fromkeys(a + b for a, b in merges))


def added_token(content: str, token_id: int, *, special: bool = True,
                normalized: bool = False, lstrip: bool = False, rstrip: bool = False,
                single_word: bool = False) -> dict[str, Any]:
    """One ``added_tokens`` entry."""
    return {"id": token_id, "content": content, "single_word": single_word, "lstrip": lstrip,
            "rstrip": rstrip, "normalized": normalized, "special": special}


def llama_specials(*, normalized: bool = False) -> list[dict[str, Any]]:
    """``<unk>``, ``<s>``, ``</s>`` as ids 0-2, special."""
    return [added_token(content, i, normalized=normalized)
            for i, content in enumerate(("<unk>", "<s>", "</s>"))]


# --- components of the Llama-2 / Mistral v0.1 tokenizer.json -------------------------------

def llama_normalizer() -> Document:
    return {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": METASPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": METASPACE},
    ]}


def llama_template(bos: str = "<s>", bos_id: int = 1) -> Document:
    return {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": bos, "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": bos, "type_id": 0}},
                 {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": bos, "type_id": 1}},
                 {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {bos: {"id": bos, "ids": [bos_id], "tokens": [bos]}},
    }


def replace_decoder() -> Document:
    return {"type": "Replace", "pattern": {"String": METASPACE}, "content": " "}


def strip_decoder() -> Document:
    return {"type": "Strip", "content": " ", "start": 1, "stop": 0}


def metaspace(*, prepend_scheme: str | None = "always", split: bool | None = True,
              **extra: Any) -> Document:
    """A Metaspace pre-tokenizer or decoder; None leaves the field out."""
    out: Document = {"type": "Metaspace", "replacement": METASPACE}
    if prepend_scheme is not None:
        out["prepend_scheme"] = prepend_scheme
    if split is not None:
        out["split"] = split
    out.update(extra)
    return out


def decoder_step(kind: str) -> Document:
    """One step of the Llama decoder chain by type name."""
    if kind == "Replace":
        return replace_decoder()
    if kind == "Strip":
        return strip_decoder()
    if kind == "Metaspace":
        return metaspace(prepend_scheme="always", split=True)
    return {"type": kind}


def decoder_sequence(kinds: Iterable[str]) -> Document:
    return {"type": "Sequence", "decoders": [decoder_step(k) for k in kinds]}


def llama_decoder() -> Document:
    """``[Replace, ByteFallback, Fuse, Strip]``, the chain Llama-2 declares."""
    return decoder_sequence(("Replace", "ByteFallback", "Fuse", "Strip"))


# --- documents -----------------------------------------------------------------------------

def bpe_model(vocab: Vocab, merges: Merges = (), *, unk_token: str | None = None,
              byte_fallback: bool = False, fuse_unk: bool = False,
              **model_fields: Any) -> Document:
    """A BPE ``model`` object; ``model_fields`` override or add keys."""
    model: Document = {
        "type": "BPE", "dropout": None, "unk_token": unk_token,
        "continuing_subword_prefix": None, "end_of_word_suffix": None,
        "fuse_unk": fuse_unk, "byte_fallback": byte_fallback, "ignore_merges": False,
        "vocab": vocab_of(vocab),
        "merges": [list(m) if not isinstance(m, str) else m for m in merges],
    }
    model.update(model_fields)
    return model


def document(model: Document, *, normalizer: Any = None, pre_tokenizer: Any = None,
             post_processor: Any = None, decoder: Any = None,
             added_tokens: Sequence[Mapping[str, Any]] | None = None) -> Document:
    """A whole tokenizer.json around ``model`` (components copied)."""
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [dict(t) for t in (added_tokens or [])],
        "normalizer": copy.deepcopy(normalizer),
        "pre_tokenizer": copy.deepcopy(pre_tokenizer),
        "post_processor": copy.deepcopy(post_processor),
        "decoder": copy.deepcopy(decoder),
        "model": model,
    }


def probe_document(vocab: Vocab, merges: Merges = (), *, unk_token: str | None = None,
                   byte_fallback: bool = False, fuse_unk: bool = False,
                   normalizer: Any = None, pre_tokenizer: Any = None, decoder: Any = None,
                   added_tokens: Sequence[Mapping[str, Any]] | None = None,
                   post_processor: Any = None, **model_fields: Any) -> Document:
    """The probe template: a whole tokenizer.json over a BPE model."""
    return document(bpe_model(vocab, merges, unk_token=unk_token, byte_fallback=byte_fallback,
                              fuse_unk=fuse_unk, **model_fields),
                    normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                    post_processor=post_processor, decoder=decoder, added_tokens=added_tokens)


#: The Llama-like probe: its characters and merges.
LLAMA_CHARS = METASPACE + "abcdefghijklmnopqrstuvwxyzHWé"
LLAMA_MERGES: tuple[tuple[str, str], ...] = (
    (METASPACE, "H"), ("e", "l"), ("el", "l"), ("ell", "o"), (METASPACE + "H", "ello"),
    (METASPACE, "w"), ("o", "r"), (METASPACE + "w", "or"), ("l", "d"),
    (METASPACE + "wor", "ld"), (METASPACE, METASPACE),
)
#: Extra merges of the Metaspace documents, so common words come out whole.
METASPACE_EXTRA_MERGES: tuple[tuple[str, str], ...] = (
    ("e", "y"), (METASPACE + "H", "ey"), (METASPACE, "m"), (METASPACE + "m", "y"),
    (METASPACE, "f"), ("r", "i"), ("e", "n"), ("en", "d"), (METASPACE + "f", "ri"),
    (METASPACE + "fri", "end"),
)


def llama_vocab(extra_merges: Sequence[Sequence[str]] = ()) -> list[str]:
    """``<unk> <s> </s>``, the 256 byte pieces, the characters, the merge results."""
    results = merge_results([*LLAMA_MERGES, *extra_merges])
    tokens = ["<unk>", "<s>", "</s>", *byte_alphabet(), *LLAMA_CHARS]
    return list(dict.fromkeys([*tokens, *results]))


def llama_like_document(*, added_tokens: Sequence[Mapping[str, Any]] | None = None,
                        **overrides: Any) -> Document:
    """The Llama-like probe: ``<unk> <s> </s>`` = 0-2, the 256 byte pieces = 3-258, the
    characters of LLAMA_CHARS, then the merge results; byte_fallback and fuse_unk; the
    Llama-2 normalizer, template and decoder; the three specials as added tokens.
    ``added_tokens`` replaces the specials; ``overrides`` go to ``probe_document``."""
    fields: dict[str, Any] = {
        "unk_token": "<unk>", "byte_fallback": True, "fuse_unk": True,
        "normalizer": llama_normalizer(), "post_processor": llama_template(),
        "decoder": llama_decoder(),
        "added_tokens": llama_specials() if added_tokens is None else added_tokens,
    }
    fields.update(overrides)
    return probe_document(llama_vocab(), LLAMA_MERGES, **fields)


def metaspace_document(prepend_scheme: str | None = "always", split: bool | None = True,
                       **overrides: Any) -> Document:
    """A Metaspace-only file (no byte_fallback): no normalizer, the Metaspace pre-tokenizer
    and the same Metaspace as decoder, the three specials, no post-processor."""
    merges = [*LLAMA_MERGES, *METASPACE_EXTRA_MERGES]
    tokens = ["<unk>", "<s>", "</s>", *LLAMA_CHARS, *merge_results(merges)]
    fields: dict[str, Any] = {
        "unk_token": "<unk>", "fuse_unk": True,
        "pre_tokenizer": metaspace(prepend_scheme=prepend_scheme, split=split),
        "decoder": metaspace(prepend_scheme=prepend_scheme, split=split),
        "added_tokens": llama_specials(),
    }
    fields.update(overrides)
    return probe_document(list(dict.fromkeys(tokens)), merges, **fields)


def llama_pipeline(model: Document, specials: Sequence[str] = ("<unk>", "<s>", "</s>")
                   ) -> Document:
    """Mistral v0.1's pipeline (Prepend/Replace normalizer, no pre-tokenizer, ``<s> $A``
    template, Llama's decoder chain) around a BPE ``model`` holding ``specials``."""
    vocab = model["vocab"]
    return document(model, normalizer=llama_normalizer(),
                    post_processor=llama_template(bos_id=vocab["<s>"]),
                    decoder=llama_decoder(),
                    added_tokens=[added_token(t, vocab[t]) for t in specials])


def to_json(document: Mapping[str, Any]) -> str:
    """The document as the JSON text both tokenizers were given."""
    return json.dumps(document, ensure_ascii=False)
