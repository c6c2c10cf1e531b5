"""tokenizer.json → a ``Tokenizer``; every refusal names its rule and JSON path."""

from __future__ import annotations

from typing import Any

from . import bpe_loader
from .added_vocabulary import AddedVocabulary, added_tokens_from_json
from .decoders import decoder_from_json
from .errors import excerpt
from .jsonfields import Node
from .normalizers import normalize_str, normalizer_from_json
from .post_processors import post_processor_from_json
from .pre_tokenizers import pre_tokenizer_from_json
from .sources import Source, check_source_type, read_document
from .tokenizer import Tokenizer

__all__ = ["Source", "load_tokenizer"]

# Top-level keys upstream gives a meaning to; others are ignored, as upstream does.
_UNSUPPORTED_WHEN_SET = ("truncation", "padding")


def load_tokenizer(source: Source, *, strict: bool = True) -> Tokenizer:
    """Load a tokenizer.json given as a path, JSON text (str/bytes-like) or a parsed dict.

    A str is a path when it names an existing filesystem entry; else a JSON text when it
    starts (after JSON whitespace and a byte order mark) with ``{``, ``[`` or ``"`` or is one
    JSON value (``"null"``, ``"42"``: JSON texts, refused as not an object); else a path
    (``file-not-found``). Bytes-like: always a JSON text; ``os.PathLike``: always a path
    (``implementation/sources.py``, docs/decisions/0018-paths-and-texts.md). A source of
    another type, or a ``strict`` that is not a bool, is a ``TypeError``.

    ``strict=True`` (the default) applies the founding decision's rules and this project's
    stricter choices (``docs/decisions/``). ``strict=False`` is lenient mode, for the harness
    only: it accepts what upstream accepts and reproduces upstream's degradations, except the
    unk/byte-fallback ordering bug, which it emits in the correct order.
    Raises ``LoadError(rule, path, message)``.
    """
    check_source_type(source, "load_tokenizer")
    if not isinstance(strict, bool):
        raise TypeError(f"load_tokenizer() argument 'strict' must be bool, not "
                        f"{type(strict).__name__}")
    root = Node(read_document(source).data, "$")
    root.obj()
    version = root.field("version", required=False)
    if not version.is_null and version.str_() != "1.0":
        version.fail("invalid-value", f"unknown tokenizer version {excerpt(version.value)}")
    for key in _UNSUPPORTED_WHEN_SET:
        if root.has(key):
            root.fail("unsupported-component",
                      f"{key} is not reproduced; set it to null", key)
    model_node = root.field("model")
    parts: dict[str, Any] = {}

    def components() -> None:
        # Parsed after every check of the model and before its tables are built: a file a
        # component refuses (Gemma 3's decoder, by the founding decoder-shape rule) is
        # refused without building them, and the refusal stays the one the order gives.
        parts["normalizer"] = normalizer_from_json(root.field("normalizer", required=False))
        parts["pre_tokenizer"] = pre_tokenizer_from_json(
            root.field("pre_tokenizer", required=False))
        parts["post_processor"] = post_processor_from_json(
            root.field("post_processor", required=False))
        parts["decoder"] = decoder_from_json(
            root.field("decoder", required=False), strict=strict,
            byte_fallback=model_node.optional_bool("byte_fallback"))

    model = bpe_loader.load_bpe_model(model_node, strict=strict, before_build=components)
    normalizer = parts["normalizer"]
    added = AddedVocabulary(
        added_tokens_from_json(root),
        model_token_to_id=model.token_to_id,
        model_vocab_size=model.vocab_size(),
        normalize=lambda content: normalize_str(normalizer, content),
    )
    return Tokenizer(model=model, normalizer=normalizer,
                     pre_tokenizer=parts["pre_tokenizer"], added=added,
                     post_processor=parts["post_processor"], decoder=parts["decoder"],
                     strict=strict)
