"""The unified dual-track tokenizer (``implementation.unified``) as a ``Subject``: its
``load`` takes the path of a unified config (not a tokenizer.json), and ``encode`` gives
every token of the text with its span (placeholders get one image/video item each)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Final

from implementation.unified import DualTrackTokenizer, load_dual_track

from ..core.outcome import Crashed, Decoded, Encoded, Refused
from .protocol import ALL_CAPABILITIES
from .reference import guarded


class UnifiedSubject:
    name: Final = "unified"
    capabilities: Final = ALL_CAPABILITIES - {"pairs"}

    def version(self) -> str:
        return "implementation/unified"

    def load(self, document: str) -> DualTrackTokenizer | Refused | Crashed:
        return guarded(lambda: load_dual_track(Path(document)))

    def encode(self, handle: DualTrackTokenizer, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoded | Refused | Crashed:
        if pair is not None:
            return Crashed("exception", "the unified tokenizer encodes no pairs")

        def run() -> Encoded:
            segments = handle.segments(text)
            images = [1] * sum(1 for s in segments if s.kind == "image")
            videos = [(1, 1)] * sum(1 for s in segments if s.kind == "video")
            seq = handle.encode_with_spans(text, images or None, videos or None,
                                           add_special_tokens)
            return Encoded(
                ids=tuple(t.id for t in seq.tokens),
                tokens=tuple(t.token for t in seq.tokens),
                spans=tuple(t.span for t in seq.tokens),
                special_mask=tuple(1 if t.track == "special" else 0 for t in seq.tokens),
                word_ids=tuple(t.metadata.get("word") for t in seq.tokens),
                type_ids=seq.type_ids,
                attention_mask=seq.attention_mask,
            )

        return guarded(run)

    def decode(self, handle: DualTrackTokenizer, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Decoded | Refused | Crashed:
        result = guarded(lambda: handle.decode(list(ids),
                                               skip_special_tokens=skip_special_tokens))
        return result if isinstance(result, Refused | Crashed) else Decoded(result)


UNIFIED: Final = UnifiedSubject()
