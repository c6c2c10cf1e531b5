"""The unified dual-track tokenizer (``docs/unified.md``).

    from implementation.unified import load_dual_track, Image
    tok = load_dual_track("fixtures/unified/config.json")
    seq = tok.encode_with_spans("ᠮᠣᠩᠭᠣᠯ\u202fᠤᠨ text <image>", images=[Image(patches=4)])
    [(t.token, t.track, t.start, t.end) for t in seq.tokens]

Standard library only, like the rest of ``implementation/``.
"""

from __future__ import annotations

import os

from ..sources import check_source_type
from .config import (
    CONFIG_VERSION,
    SCHEMA_PATH,
    ConfigSource,
    DualTrackConfig,
    ModalityConfig,
    SpecialTokens,
    check_base_dir,
    parse_config,
)
from .errors import PlaceholderCountError
from .idspace import IdRange, IdSpace
from .morph import MorphBPE, MorphToken
from .multimodal import Image, ImageItem, Video, VideoItem
from .rules import UNIFIED_DECODE_RULES, UNIFIED_ENCODE_RULES, UNIFIED_LOAD_RULES
from .script import (
    FVS,
    MVS,
    NNBSP,
    is_mongolian,
    is_morph_punctuation,
    mongolian_runs,
    morphemes,
)
from .tokenizer import DualTrackTokenizer, Segment


def load_dual_track(source: ConfigSource, *,
                    base_dir: str | os.PathLike[str] | None = None) -> DualTrackTokenizer:
    """A ``DualTrackTokenizer`` from a config path, JSON text or dict.

    Raises ``implementation.LoadError(rule, path, message)`` naming the JSON path, and
    ``TypeError`` for a source or ``base_dir`` of another type.
    """
    check_source_type(source, "load_dual_track")
    check_base_dir(base_dir, "load_dual_track")
    return DualTrackTokenizer.from_config(source, base_dir=base_dir)


__all__ = [
    "CONFIG_VERSION",
    "FVS",
    "MVS",
    "NNBSP",
    "SCHEMA_PATH",
    "UNIFIED_DECODE_RULES",
    "UNIFIED_ENCODE_RULES",
    "UNIFIED_LOAD_RULES",
    "ConfigSource",
    "DualTrackConfig",
    "DualTrackTokenizer",
    "IdRange",
    "IdSpace",
    "Image",
    "ImageItem",
    "ModalityConfig",
    "MorphBPE",
    "MorphToken",
    "PlaceholderCountError",
    "Segment",
    "SpecialTokens",
    "Video",
    "VideoItem",
    "is_mongolian",
    "is_morph_punctuation",
    "load_dual_track",
    "mongolian_runs",
    "morphemes",
    "parse_config",
]
