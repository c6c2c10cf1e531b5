"""tokenizer.json → a ``Tokenizer``; every refusal names its rule and JSON path."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .added_vocabulary import AddedVocabulary, added_tokens_from_json
from .bpe import BpeModel
from .decoders import decoder_from_json
from .errors import LoadError
from .jsonfields import Node
from .normalizers import normalize_str, normalizer_from_json
from .post_processors import post_processor_from_json
from .pre_tokenizers import pre_tokenizer_from_json
from .tokenizer import Tokenizer

Source = str | bytes | os.PathLike[str] | Mapping[str, Any]

# Top-level keys upstream gives a meaning to; others are ignored, as upstream does.
_UNSUPPORTED_WHEN_SET = ("truncation", "padding")


def load_tokenizer(source: Source, *, strict: bool = True) -> Tokenizer:
    """Load a tokenizer.json given as a path, JSON text (str/bytes) or an already parsed dict.

    ``strict=True`` (the default) applies the founding decision's rules and this project's
    stricter choices (``docs/decisions/``). ``strict=False`` is lenient mode, for the harness
    only: it accepts what upstream accepts and reproduces upstream's degradations, except the
    unk/byte-fallback ordering bug, which it emits in the correct order.
    Raises ``LoadError(rule, path, message)``.
    """
    root = Node(_parse(source), "$")
    root.obj()
    version = root.field("version", required=False)
    if not version.is_null and version.str_() != "1.0":
        version.fail("invalid-value", f"unknown tokenizer version {version.value!r}")
    for key in _UNSUPPORTED_WHEN_SET:
        if root.has(key):
            root.fail("unsupported-component",
                      f"{key} is not reproduced; set it to null", key)
    model = BpeModel.from_json(root.field("model"), strict=strict)
    normalizer = normalizer_from_json(root.field("normalizer", required=False))
    pre_tokenizer = pre_tokenizer_from_json(root.field("pre_tokenizer", required=False))
    post_processor = post_processor_from_json(root.field("post_processor", required=False))
    decoder = decoder_from_json(root.field("decoder", required=False), strict=strict,
                                byte_fallback=model.byte_fallback)
    added = AddedVocabulary(
        added_tokens_from_json(root.field("added_tokens", required=False)),
        model_token_to_id=model.token_to_id,
        model_vocab_size=model.vocab_size(),
        normalize=lambda content: normalize_str(normalizer, content),
    )
    return Tokenizer(model=model, normalizer=normalizer, pre_tokenizer=pre_tokenizer,
                     added=added, post_processor=post_processor, decoder=decoder,
                     strict=strict)


def _parse(source: Source) -> Any:
    if isinstance(source, Mapping):
        return dict(source)
    if isinstance(source, bytes):
        return _parse_text(source.decode("utf-8", errors="strict"), "<bytes>")
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return _parse_text(source, "<text>")
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LoadError("malformed-json", "$", f"cannot read {str(path)!r}: {exc}") from exc
    return _parse_text(text, str(path))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _parse_text(text: str, origin: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise LoadError("malformed-json", "$",
                        f"{origin} is not valid JSON: {exc.msg} at line {exc.lineno} "
                        f"column {exc.colno}") from exc
    except (ValueError, RecursionError) as exc:
        raise LoadError("malformed-json", "$", f"{origin} is not valid JSON: {exc}") from exc
