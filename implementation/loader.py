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
        data: Any = dict(source)
    elif isinstance(source, bytes):
        try:
            text = source.decode("utf-8", errors="strict")
        except UnicodeDecodeError as exc:
            raise LoadError("malformed-json", "$", f"the bytes are not UTF-8: {exc}") from exc
        data = _parse_text(text, "<bytes>")
    elif isinstance(source, str) and source.lstrip().startswith("{"):
        data = _parse_text(source, "<text>")
    else:
        data = _parse_text(_read(source), str(source))
    _refuse_non_unicode(data)
    return data


def _read(source: str | os.PathLike[str]) -> str:
    try:
        return Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise LoadError("malformed-json", "$", f"cannot read {str(source)!r} as a UTF-8 "
                        f"tokenizer.json file (a JSON text must start with '{{'): {exc}") from exc


def _refuse_non_unicode(data: Any) -> None:
    """Refuse a document holding a string no UTF-8 text can carry (a lone surrogate, which
    a JSON escape like \\ud800 produces; upstream refuses it while parsing), or a value
    that is not JSON at all (when a dict was passed in)."""
    try:
        json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        path = _first_surrogate(data, "$") or "$"
        raise LoadError("malformed-json", path,
                        "a string holds a lone surrogate: not valid Unicode text") from None
    except (TypeError, ValueError, RecursionError) as exc:
        raise LoadError("invalid-type", "$", f"the document is not JSON data: {exc}") from exc


def _first_surrogate(value: Any, path: str) -> str | None:
    if isinstance(value, str):
        return path if any("\ud800" <= c <= "\udfff" for c in value) else None
    if isinstance(value, dict):
        for key, item in value.items():
            child = Node(None, path).child_path(str(key))
            if isinstance(key, str) and _first_surrogate(key, child):
                return child
            found = _first_surrogate(item, child)
            if found:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            found = _first_surrogate(item, f"{path}[{i}]")
            if found:
                return found
    return None


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
