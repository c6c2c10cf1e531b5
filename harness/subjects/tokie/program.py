"""The tokie subject program, run by its own environment: ``python program.py``.

The mapping onto the protocol's tiers: ``Tokenizer.from_json(path)`` loads (the document
is written to a temporary file: tokie reads tokenizer.json only from a path);
``encode(text, add_special_tokens=...)`` and ``encode_pair(a, b, ...)`` give ids, tokens,
the special-tokens mask, type ids and the attention mask; ``decode(ids)`` decodes.
Absent: character offsets (``encode_with_offsets`` gives byte offsets into the normalized
text, not character offsets into the input). ``decode`` has no ``skip_special_tokens``:
a request to skip is refused by the adapter (rule ``skip-special-tokens-unsupported``),
and a ``None`` from ``decode`` (bytes that are not UTF-8) is refused as
``decode-not-utf-8``. ``TokieError``/``ValueError`` are refusals; a panic ends the process.
"""

from __future__ import annotations

import os
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This folder is named like the package: it must not shadow it (pypi.py runs us with -I).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() not in (HERE, HERE.parent)]
import tokie  # type: ignore[import-not-found]  # noqa: E402

sys.path.append(str(HERE.parent))
from pyprogram import RefusalError, serve  # type: ignore[import-not-found]  # noqa: E402


def _answer(got: Any) -> dict[str, Any]:
    return {"ids": [int(i) for i in got.ids], "tokens": [str(t) for t in got.tokens],
            "special_tokens_mask": [int(m) for m in got.special_tokens_mask],
            "type_ids": [int(t) for t in got.type_ids],
            "attention_mask": [int(m) for m in got.attention_mask]}


class Adapter:
    name = "tokie"
    version = f"tokie@{metadata.version('tokie')}"
    capabilities = ("ids", "tokens", "special_mask", "type_ids", "attention_mask", "pairs",
                    "decode")

    def load(self, document: str) -> Any:
        descriptor, path = tempfile.mkstemp(prefix="tokenizer-", suffix=".json")
        try:
            with os.fdopen(descriptor, "w", encoding="utf-8") as file:
                file.write(document)
            return tokie.Tokenizer.from_json(path)
        finally:
            os.unlink(path)

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]:
        if pair is None:
            return _answer(tokenizer.encode(text, add_special_tokens=add_special_tokens))
        return _answer(tokenizer.encode_pair(text, pair, add_special_tokens=add_special_tokens))

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str:
        if skip_special_tokens:
            raise RefusalError("skip-special-tokens-unsupported",
                               "tokie's decode(ids) has no skip_special_tokens")
        text = tokenizer.decode(ids)
        if text is None:
            raise RefusalError("decode-not-utf-8", "tokie's decode returned None (the ids' "
                               "bytes are not valid UTF-8)")
        return str(text)

    def is_refusal(self, error: BaseException) -> bool:
        return type(error) in (tokie.TokieError, ValueError, OverflowError)


if __name__ == "__main__":
    sys.exit(serve(Adapter()))
