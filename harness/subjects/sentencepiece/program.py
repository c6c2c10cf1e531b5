"""The sentencepiece subject program, run by its own environment: ``python program.py``.

The mapping onto the protocol's tiers: ``load`` converts the tokenizer.json
(``convert.py``, loaded by path) and builds ``SentencePieceProcessor(model_proto=...)``;
a document that does not convert is refused with the rule ``not-expressible`` (skipped
and counted, decision 0040). ``encode`` is ``encode(text)`` as ids and as pieces, with
the template's ids put around it for ``add_special_tokens`` (spm's ``add_bos`` names a
control piece only, which it never matches in a text); a text holding an added token the
model cannot match as upstream does (``Converted.not_in_texts``) is declined. ``decode``
is ``decode(ids)``, with upstream's special added tokens left out first for
``skip_special_tokens``; where the document's decoder is not spm's own decoding, decode
is declined. No offsets, masks, type ids or pairs. A ``ValueError``, ``IndexError``,
``TypeError`` or ``UnicodeError`` of the bindings is a refusal.
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
import sentencepiece  # type: ignore[import-not-found]  # noqa: E402

sys.path.append(str(HERE.parent))
from pyprogram import RefusalError, load_beside, serve  # type: ignore[import-not-found]  # noqa: E402

convert: Any = load_beside(__file__, "convert.py", "spm_convert")


class Adapter:
    name = "sentencepiece"
    version = f"sentencepiece@{metadata.version('sentencepiece')}"
    capabilities = ("ids", "tokens", "decode")

    def load(self, document: str) -> Any:
        try:
            converted = convert.convert(json.loads(document))
        except (convert.NotExpressibleError, ValueError, TypeError, KeyError,
                AttributeError) as error:
            raise RefusalError("not-expressible", f"{type(error).__name__}: {error}"
                               ) from None
        processor = sentencepiece.SentencePieceProcessor(model_proto=converted.proto)
        return processor, converted

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]:
        processor, converted = tokenizer
        held = [c for c in converted.not_in_texts if c in text]
        if held:
            raise RefusalError("not-expressible", f"the text holds the added token {held[0]!r}"
                               " (convert.Converted.not_in_texts)")
        ids = [int(i) for i in processor.encode(text)]
        if add_special_tokens:
            ids = ([converted.bos] if converted.bos is not None else []) + ids + (
                [converted.eos] if converted.eos is not None else [])
        return {"ids": ids, "tokens": [str(processor.id_to_piece(i)) for i in ids]}

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str:
        processor, converted = tokenizer
        if converted.decode_not_expressible is not None:
            raise RefusalError("not-expressible", converted.decode_not_expressible)
        if skip_special_tokens:
            ids = [i for i in ids if i not in converted.specials]
        return str(processor.decode(ids))

    def is_refusal(self, error: BaseException) -> bool:
        return isinstance(error, ValueError | IndexError | TypeError | UnicodeError)


if __name__ == "__main__":
    sys.exit(serve(Adapter()))
