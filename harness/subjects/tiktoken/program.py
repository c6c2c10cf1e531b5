"""The tiktoken subject program, run by its own environment: ``python program.py``.

The mapping onto the protocol's tiers: ``load`` converts the tokenizer.json
(``convert.py``, loaded by path) into ``tiktoken.Encoding(name, pat_str,
mergeable_ranks, special_tokens)``; a document that does not convert is refused with the
rule ``not-expressible`` (skipped and counted, decision 0040). ``encode`` is
``encode(text, allowed_special="all", disallowed_special=())`` (upstream matches every
added token in every text), tokens are each id's bytes in the byte-level alphabet, and the
template's ids are put around it for ``add_special_tokens`` (tiktoken has no template).
``decode`` is ``decode(ids, errors="replace")``, with upstream's special added tokens left
out first for ``skip_special_tokens``; where the document's decoder is not ByteLevel,
decode is declined. No offsets, masks, type ids or pairs. A ``ValueError``,
``KeyError``, ``TypeError`` or ``UnicodeError`` is a refusal.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This folder is named like the package: it must not shadow it (pypi.py runs us with -I).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() not in (HERE, HERE.parent)]
import tiktoken  # type: ignore[import-not-found]  # noqa: E402

sys.path.append(str(HERE.parent))
from pyprogram import RefusalError, load_beside, serve  # type: ignore[import-not-found]  # noqa: E402

convert: Any = load_beside(__file__, "convert.py", "tiktoken_convert")
BYTE_SYMBOLS = {byte: symbol for symbol, byte in convert.SYMBOL_BYTES.items()}


class Adapter:
    name = "tiktoken"
    version = f"tiktoken@{metadata.version('tiktoken')}"
    capabilities = ("ids", "tokens", "decode")

    def load(self, document: str) -> Any:
        try:
            converted = convert.convert(json.loads(document))
        except (convert.NotExpressibleError, ValueError, TypeError, KeyError,
                AttributeError) as error:
            raise RefusalError("not-expressible", f"{type(error).__name__}: {error}"
                               ) from None
        encoding = tiktoken.Encoding("document", pat_str=converted.pattern,
                                     mergeable_ranks=converted.ranks,
                                     special_tokens=converted.specials)
        return encoding, converted

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]:
        encoding, converted = tokenizer
        ids = [int(i) for i in encoding.encode(text, allowed_special="all",
                                               disallowed_special=())]
        if add_special_tokens:
            ids = ([converted.bos] if converted.bos is not None else []) + ids + (
                [converted.eos] if converted.eos is not None else [])
        specials = {i: s for s, i in converted.specials.items()}
        tokens = [specials[i] if i in specials else "".join(
            BYTE_SYMBOLS[b] for b in encoding.decode_single_token_bytes(i)) for i in ids]
        return {"ids": ids, "tokens": tokens}

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str:
        encoding, converted = tokenizer
        if converted.decode_not_expressible is not None:
            raise RefusalError("not-expressible", converted.decode_not_expressible)
        if skip_special_tokens:
            ids = [i for i in ids if i not in converted.skipped]
        return str(encoding.decode(ids, errors="replace"))

    def is_refusal(self, error: BaseException) -> bool:
        return isinstance(error, ValueError | KeyError | TypeError | UnicodeError)


if __name__ == "__main__":
    sys.exit(serve(Adapter()))
