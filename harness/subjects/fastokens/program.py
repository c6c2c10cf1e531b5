"""The fastokens subject program, run by its own environment: ``python program.py``.

The mapping onto the protocol's tiers: ``Tokenizer.from_json_str`` loads;
``encode(text, add_special_tokens=...)`` gives ids, the special-tokens mask, type ids and
the attention mask; tokens are ``id_to_token`` of each id (``Encoding.tokens`` raises
NotImplementedError: fastokens keeps no token strings, and a token of upstream is the
vocabulary string of its id); ``decode(ids, skip_special_tokens=...)`` decodes. Not
exposed, so absent: character offsets (``Encoding.offsets`` raises) and pairs (no pair
encode; ``post_process`` with a pair raises "pair post-processing is not supported").
A ``ValueError`` or ``Exception`` of the bindings is a refusal; a panic ends the process.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This folder is named like the package: it must not shadow it (pypi.py runs us with -I).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() not in (HERE, HERE.parent)]
import fastokens  # type: ignore[import-not-found]  # noqa: E402

sys.path.append(str(HERE.parent))
from pyprogram import serve  # type: ignore[import-not-found]  # noqa: E402


class Adapter:
    name = "fastokens"
    version = f"fastokens@{metadata.version('fastokens')}"
    capabilities = ("ids", "tokens", "special_mask", "type_ids", "attention_mask", "decode")

    def load(self, document: str) -> Any:
        return fastokens.Tokenizer.from_json_str(document)

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]:
        got = tokenizer.encode(text, add_special_tokens=add_special_tokens)
        ids = [int(i) for i in got.ids]
        return {"ids": ids, "tokens": [tokenizer.id_to_token(i) for i in ids],
                "special_tokens_mask": [int(m) for m in got.special_tokens_mask],
                "type_ids": [int(t) for t in got.type_ids],
                "attention_mask": [int(m) for m in got.attention_mask]}

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str:
        return str(tokenizer.decode(ids, skip_special_tokens=skip_special_tokens))

    def is_refusal(self, error: BaseException) -> bool:
        return type(error) in (ValueError, Exception)


if __name__ == "__main__":
    sys.exit(serve(Adapter()))
