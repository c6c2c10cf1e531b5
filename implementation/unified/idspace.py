"""The unified id space: one contiguous integer range per part, in a fixed order.

::

    [0, G)                 general track: the general tokenizer's own ids, unchanged
                           (model vocabulary and its added tokens); G = its largest id + 1
    [G, G+M)               morph track: morph model id m is G + m; M = its largest id + 1
    [G+M, G+M+4)           specials: bos, eos, pad, unk (in that order)
    [G+M+4, G+M+4+P)       patch tokens: the image patch token, then the video patch
                           token; a modality the config does not declare takes no id
                           (P is 0, 1 or 2)

Ids inside the general and morph ranges that name no token of their model (holes in a
vocabulary) are part of the range but decode to nothing: ``decode`` refuses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Part = Literal["general", "morph", "special", "image", "video"]


@dataclass(frozen=True, slots=True)
class IdRange:
    part: Part
    start: int
    stop: int

    def __contains__(self, token_id: object) -> bool:
        return isinstance(token_id, int) and self.start <= token_id < self.stop

    def __len__(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True, slots=True)
class IdSpace:
    general: IdRange
    morph: IdRange
    special: IdRange
    image: IdRange
    video: IdRange

    @classmethod
    def build(cls, general_size: int, morph_size: int, specials: int, has_image: bool,
              has_video: bool) -> IdSpace:
        g = IdRange("general", 0, general_size)
        m = IdRange("morph", g.stop, g.stop + morph_size)
        s = IdRange("special", m.stop, m.stop + specials)
        i = IdRange("image", s.stop, s.stop + (1 if has_image else 0))
        v = IdRange("video", i.stop, i.stop + (1 if has_video else 0))
        return cls(g, m, s, i, v)

    @property
    def size(self) -> int:
        return self.video.stop

    def ranges(self) -> tuple[IdRange, ...]:
        return (self.general, self.morph, self.special, self.image, self.video)

    def part_of(self, token_id: int) -> Part | None:
        for r in self.ranges():
            if token_id in r:
                return r.part
        return None

    def describe(self) -> list[tuple[Part, int, int]]:
        """``(part, start, stop)`` of every non-empty range, in id order."""
        return [(r.part, r.start, r.stop) for r in self.ranges() if len(r)]
