"""The kitoken subject program, run by its own environment: ``python program.py``.

The mapping onto the protocol's tiers: ``Kitoken.from_tokenizers(bytes)`` loads;
``encode(text, encode_specials=True)`` gives the ids (tokenizers matches added tokens in
every text, so every special category is on); ``decode(ids, decode_specials=not
skip_special_tokens)`` gives bytes, read as UTF-8 with U+FFFD for what is not (as
upstream's byte decoders do). The Python API gives ids only: tokens, offsets, masks,
type ids and pairs are absent, and ``add_special_tokens`` has no counterpart (kitoken's
encode applies no post-processor template; the request's flag is not passed on).
``ValueError`` is a refusal; a panic ends the process.
"""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# This folder is named like the package: it must not shadow it (pypi.py runs us with -I).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() not in (HERE, HERE.parent)]
import kitoken  # type: ignore[import-not-found]  # noqa: E402

sys.path.append(str(HERE.parent))
from pyprogram import serve  # type: ignore[import-not-found]  # noqa: E402


class Adapter:
    name = "kitoken"
    version = f"kitoken@{metadata.version('kitoken')}"
    capabilities = ("ids", "decode")

    def load(self, document: str) -> Any:
        return kitoken.Kitoken.from_tokenizers(document.encode("utf-8"))

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]:
        return {"ids": [int(i) for i in tokenizer.encode(text, True)]}

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str:
        data = tokenizer.decode(ids, not skip_special_tokens)
        return bytes(data).decode("utf-8", errors="replace")

    def is_refusal(self, error: BaseException) -> bool:
        return type(error) in (ValueError, OverflowError)


if __name__ == "__main__":
    sys.exit(serve(Adapter()))
