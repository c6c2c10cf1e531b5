"""``DualTrackTokenizer``: the general track, the MorphBPE track for Mongolian script,
synthetic specials and image/video patch tokens, in one id space, under the offset
contract (``docs/spec/offset-contract.md``; ``docs/unified.md``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from ..arguments import (
    require_bool,
    require_id,
    require_ids,
    require_optional_sequence,
    require_sequence,
    require_str,
)
from ..encoding import NO_SPAN, EncodedSequence, EncodedToken, Track
from ..errors import DecodeError, EncodeError, excerpt
from ..tokenizer import Tokenizer
from .config import ConfigSource, DualTrackConfig, ModalityConfig, parse_config
from .errors import PlaceholderCountError
from .idspace import IdSpace, Part
from .morph import MorphBPE
from .multimodal import Image, ImageItem, Video, VideoItem, parse_images, parse_videos
from .script import mongolian_runs

SegmentKind = Literal["general", "morph", "special", "image", "video"]
PaddingSide = Literal["right", "left"]
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Segment:
    """A stretch of the input and the track that encodes it (half-open, char offsets)."""

    kind: SegmentKind
    start: int
    end: int


class DualTrackTokenizer:
    """Build one with :meth:`from_config` (or ``implementation.unified.load_dual_track``)."""

    def __init__(self, config: DualTrackConfig) -> None:
        self.config = config
        self.general: Tokenizer = config.general
        self.morph: MorphBPE = config.morph
        self.id_space = IdSpace.build(
            general_size=_general_size(config.general),
            morph_size=config.morph.size(),
            specials=len(config.specials.contents()),
            has_image=config.image is not None,
            has_video=config.video is not None,
        )
        base = self.id_space.special.start
        bos, eos, pad, unk = config.specials.contents()
        self.bos_id, self.eos_id, self.pad_id, self.unk_id = base, base + 1, base + 2, base + 3
        self._special_ids: dict[str, int] = {bos: base, eos: base + 1, pad: base + 2,
                                             unk: base + 3}
        self._special_contents: dict[int, str] = {v: k for k, v in self._special_ids.items()}
        self.image_patch_id = self.id_space.image.start if config.image is not None else None
        self.video_patch_id = self.id_space.video.start if config.video is not None else None
        self._surface: dict[str, SegmentKind] = dict.fromkeys(self._special_ids, "special")
        for modality in (config.image, config.video):
            if modality is not None:
                self._surface[modality.placeholder] = modality.name
        alternatives = sorted(self._surface, key=len, reverse=True)
        self._surface_pattern = re.compile("|".join(re.escape(s) for s in alternatives))

    @classmethod
    def from_config(cls, source: ConfigSource, *,
                    base_dir: str | os.PathLike[str] | None = None) -> DualTrackTokenizer:
        """From a config path, JSON text or dict; raises ``LoadError(rule, path, message)``."""
        return cls(parse_config(source, base_dir=base_dir))

    # -- segmentation -------------------------------------------------------------------
    def segments(self, text: str) -> list[Segment]:
        """The input cut into tracks: special strings and placeholders (leftmost, longest
        first), then, between them, Mongolian runs (morph) and everything else (general)."""
        require_str(text, "segments", "text")
        out: list[Segment] = []
        position = 0
        for match in self._surface_pattern.finditer(text):
            self._text_segments(text, position, match.start(), out)
            out.append(Segment(self._surface[match.group()], match.start(), match.end()))
            position = match.end()
        self._text_segments(text, position, len(text), out)
        return out

    @staticmethod
    def _text_segments(text: str, start: int, end: int, out: list[Segment]) -> None:
        cursor = start
        for run_start, run_end in mongolian_runs(text, start, end):
            if cursor < run_start:
                out.append(Segment("general", cursor, run_start))
            out.append(Segment("morph", run_start, run_end))
            cursor = run_end
        if cursor < end:
            out.append(Segment("general", cursor, end))

    # -- encoding -----------------------------------------------------------------------
    def encode(self, text: str, images: Sequence[ImageItem] | None = None,
               videos: Sequence[VideoItem] | None = None,
               add_special_tokens: bool = True) -> list[int]:
        _check_encode_arguments("encode", text, images, videos, add_special_tokens)
        return self.encode_with_spans(text, images, videos, add_special_tokens).input_ids

    def encode_with_spans(self, text: str, images: Sequence[ImageItem] | None = None,
                          videos: Sequence[VideoItem] | None = None,
                          add_special_tokens: bool = True) -> EncodedSequence:
        """Encode ``text`` with its ``images``/``videos``.

        Raises ``PlaceholderCountError`` when the text has more placeholders than items,
        ``EncodeError`` for an invalid item or an unconfigured modality (and whatever the
        general tokenizer raises for its segments); ``TypeError`` for a text that is not a
        str, or ``images``/``videos`` that are not a sequence (nor None).
        """
        _check_encode_arguments("encode_with_spans", text, images, videos, add_special_tokens)
        return EncodedSequence.of(self._encode_tokens(text, images, videos, add_special_tokens))

    def encode_batch_with_spans(
        self,
        texts: Sequence[str],
        images: Sequence[Sequence[ImageItem] | None] | None = None,
        videos: Sequence[Sequence[VideoItem] | None] | None = None,
        add_special_tokens: bool = True,
        *,
        padding_side: PaddingSide = "right",
        length: int | None = None,
    ) -> list[EncodedSequence]:
        """Encode each text (with ``images[i]``/``videos[i]``), padded with PAD to the
        longest sequence (or to ``length``). Pads are ``track="pad"`` at ``-1, -1`` with
        ``attention_mask`` 0, on the right (default) or the left."""
        function = "encode_batch_with_spans"
        for i, text in enumerate(require_sequence(texts, function, "texts",
                                                  "a sequence of str")):
            require_str(text, function, f"texts[{i}]")
        for name, per in (("images", images), ("videos", videos)):
            for i, items in enumerate(require_optional_sequence(per, function, name,
                                                                "a sequence") or ()):
                require_optional_sequence(items, function, f"{name}[{i}]", "a sequence")
        require_bool(add_special_tokens, function, "add_special_tokens")
        if length is not None:
            require_id(length, function, "length")
        per_images = _per_text(images, len(texts), "images")
        per_videos = _per_text(videos, len(texts), "videos")
        rows = [self._encode_tokens(t, per_images[i], per_videos[i], add_special_tokens)
                for i, t in enumerate(texts)]
        longest = max((len(r) for r in rows), default=0)
        target = longest if length is None else length
        if target < longest:
            raise EncodeError("invalid-batch", "length",
                              f"length {excerpt(target)} is below the longest sequence "
                              f"({longest})")
        pad = EncodedToken(self.pad_id, self.config.specials.pad, NO_SPAN, NO_SPAN, "pad")
        out: list[EncodedSequence] = []
        for row in rows:
            pads = [pad] * (target - len(row))
            out.append(EncodedSequence.of(row + pads if padding_side == "right" else pads + row))
        return out

    def encode_on_track(self, track: Track, text: str) -> list[EncodedToken]:
        """``text`` encoded by one track alone (the round-trip rule's re-encoding): the
        general tokenizer without specials, MorphBPE over the whole string, a placeholder
        given one item of one patch, a special string, or nothing for ``pad``."""
        require_str(text, "encode_on_track", "text")
        if track in ("bpe", "added"):
            return self._general_tokens(text, 0, len(text), 0)[0]
        if track == "morph":
            return self._morph_tokens(text, 0, len(text), 0)[0]
        if track == "image":
            return list(self._encode_tokens(text, [Image(1)] * text.count(
                self._placeholder("image")), None, False))
        if track == "video":
            return list(self._encode_tokens(text, None, [Video(1, 1)] * text.count(
                self._placeholder("video")), False))
        if track == "special" and text in self._special_ids:
            return [EncodedToken(self._special_ids[text], text, 0, len(text), "special")]
        return []

    def _placeholder(self, name: Literal["image", "video"]) -> str:
        modality = self.config.image if name == "image" else self.config.video
        return modality.placeholder if modality is not None else "\x00unconfigured"

    def _encode_tokens(self, text: str, images: Sequence[ImageItem] | None,
                       videos: Sequence[VideoItem] | None,
                       add_special_tokens: bool) -> list[EncodedToken]:
        image_items = parse_images(images)
        video_items = parse_videos(videos)
        if image_items and self.config.image is None:
            raise EncodeError("multimodal-not-configured", "images",
                              "images= is given but the config declares no image modality")
        if video_items and self.config.video is None:
            raise EncodeError("multimodal-not-configured", "videos",
                              "videos= is given but the config declares no video modality")
        segments = self.segments(text)
        injected_images = _injected(self.config.image, segments, len(image_items))
        injected_videos = _injected(self.config.video, segments, len(video_items))
        tokens: list[EncodedToken] = []
        if add_special_tokens and self.config.add_bos:
            tokens.append(self._synthetic(self.bos_id))
        # Surplus items: their placeholders are injected right after BOS, before the text,
        # images first; they take the FIRST items, so patches stay in the items' order.
        for index in range(injected_images):
            tokens.extend(self._image_patches(index, image_items[index], NO_SPAN, NO_SPAN))
        for index in range(injected_videos):
            tokens.extend(self._video_patches(index, video_items[index], NO_SPAN, NO_SPAN))
        next_image, next_video, word = injected_images, injected_videos, 0
        for seg in segments:
            if seg.kind == "general":
                found, word = self._general_tokens(text, seg.start, seg.end, word)
                tokens.extend(found)
            elif seg.kind == "morph":
                found, word = self._morph_tokens(text, seg.start, seg.end, word)
                tokens.extend(found)
            elif seg.kind == "special":
                content = text[seg.start:seg.end]
                tokens.append(EncodedToken(self._special_ids[content], content, seg.start,
                                           seg.end, "special"))
            elif seg.kind == "image":
                tokens.extend(self._image_patches(next_image, image_items[next_image],
                                                  seg.start, seg.end))
                next_image += 1
            else:
                tokens.extend(self._video_patches(next_video, video_items[next_video],
                                                  seg.start, seg.end))
                next_video += 1
        if add_special_tokens and self.config.add_eos:
            tokens.append(self._synthetic(self.eos_id))
        return tokens

    def _synthetic(self, token_id: int) -> EncodedToken:
        return EncodedToken(token_id, self._special_contents[token_id], NO_SPAN, NO_SPAN,
                            "special")

    def _general_tokens(self, text: str, start: int, end: int, word: int
                        ) -> tuple[list[EncodedToken], int]:
        """One general segment, encoded as a text of its own (no specials); spans moved
        to the input, word indices continued from ``word``."""
        seq = self.general.encode_with_spans(text[start:end], add_special_tokens=False)
        out: list[EncodedToken] = []
        last = word - 1
        for t in seq.tokens:
            metadata: Mapping[str, int] = t.metadata
            local = t.metadata.get("word")
            if local is not None:
                last = max(last, word + local)
                metadata = {**t.metadata, "word": word + local}
            out.append(EncodedToken(t.id, t.token, t.start + start, t.end + start, t.track,
                                    metadata))
        return out, last + 1

    def _morph_tokens(self, text: str, start: int, end: int, word: int
                      ) -> tuple[list[EncodedToken], int]:
        """One morph run: each morpheme is one word (the unit BPE runs on)."""
        offset = self.id_space.morph.start
        out = [EncodedToken(offset + t.id, t.value, t.start, t.end, "morph",
                            {"word": word + t.morpheme})
               for t in self.morph.encode(text, start, end)]
        used = out[-1].metadata["word"] + 1 if out else word
        return out, used

    def _image_patches(self, index: int, image: Image, start: int, end: int
                       ) -> list[EncodedToken]:
        assert self.image_patch_id is not None and self.config.image is not None
        token = EncodedToken(self.image_patch_id, self.config.image.patch_token, start, end,
                             "image", {"image_index": index})
        return [token] * image.patches

    def _video_patches(self, index: int, video: Video, start: int, end: int
                       ) -> list[EncodedToken]:
        assert self.video_patch_id is not None and self.config.video is not None
        patch = self.config.video.patch_token
        return [EncodedToken(self.video_patch_id, patch, start, end, "video",
                             {"video_index": index, "frame_index": frame})
                for frame in range(video.frames) for _ in range(video.patches_per_frame)]

    # -- the id space -------------------------------------------------------------------
    def vocab_size(self) -> int:
        """The width of the unified id space (holes of the tracks' vocabularies included)."""
        return self.id_space.size

    def track_of_id(self, token_id: int) -> Part | None:
        require_id(token_id, "track_of_id", "token_id")
        return self.id_space.part_of(token_id)

    def id_to_token(self, token_id: int) -> str | None:
        require_id(token_id, "id_to_token", "token_id")
        part = self.id_space.part_of(token_id)
        if part == "general":
            return self.general.id_to_token(token_id)
        if part == "morph":
            return self.morph.id_to_token(token_id - self.id_space.morph.start)
        if part == "special":
            return self._special_contents[token_id]
        if part == "image" and self.config.image is not None:
            return self.config.image.patch_token
        if part == "video" and self.config.video is not None:
            return self.config.video.patch_token
        return None

    def token_to_id(self, token: str) -> int | None:
        """The id of a token string; where two parts spell one string, the first of:
        specials, patch tokens, general, morph."""
        require_str(token, "token_to_id", "token")
        if token in self._special_ids:
            return self._special_ids[token]
        if self.config.image is not None and token == self.config.image.patch_token:
            return self.image_patch_id
        if self.config.video is not None and token == self.config.video.patch_token:
            return self.video_patch_id
        found = self.general.token_to_id(token)
        if found is not None and found in self.id_space.general:
            return found
        morph = self.morph.token_to_id(token)
        return None if morph is None else morph + self.id_space.morph.start

    # -- decoding -----------------------------------------------------------------------
    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        """Ids back to text: each maximal run of one part goes to its own decoder.

        general -> the general tokenizer's decode (its decoder chain, per run); morph ->
        byte pieces resolved and concatenated; specials -> their strings; patch tokens ->
        the patch token string once per id. With ``skip_special_tokens`` (the default),
        specials, patch tokens and the general tokenizer's own special added tokens are
        dropped. Refuses (``DecodeError``) an id naming no token; ``TypeError`` for ids
        that are not a sequence of int (bool and float included).
        """
        require_ids(ids, "decode")
        require_bool(skip_special_tokens, "decode", "skip_special_tokens")
        pieces: list[str] = []
        run: list[int] = []
        run_part: Part | None = None
        for position, token_id in enumerate(ids):
            part = self.id_space.part_of(token_id)
            if part is None or self.id_to_token(token_id) is None:
                raise DecodeError("decode-unknown-id", f"ids[{position}]",
                                  f"id {excerpt(token_id)} names no token of the unified id space "
                                  f"(size {self.id_space.size})")
            if part != run_part and run:
                pieces.append(self._decode_run(run_part, run, skip_special_tokens))
                run = []
            run_part = part
            run.append(token_id)
        if run:
            pieces.append(self._decode_run(run_part, run, skip_special_tokens))
        return "".join(pieces)

    def _decode_run(self, part: Part | None, run: list[int], skip: bool) -> str:
        if part == "general":
            return self.general.decode(run, skip_special_tokens=skip)
        if part == "morph":
            offset = self.id_space.morph.start
            return self.morph.decode_tokens(
                [self.morph.id_to_token(i - offset) or "" for i in run])
        if skip:
            return ""
        return "".join(self.id_to_token(i) or "" for i in run)


def _check_encode_arguments(function: str, text: object, images: object, videos: object,
                            add_special_tokens: object) -> None:
    require_str(text, function, "text")
    require_optional_sequence(images, function, "images", "a sequence of image items")
    require_optional_sequence(videos, function, "videos", "a sequence of video items")
    require_bool(add_special_tokens, function, "add_special_tokens")


def _general_size(general: Tokenizer) -> int:
    ids = list(general.model.vocab.values()) + list(general.added.content_to_id.values())
    return max(ids, default=-1) + 1


def _injected(modality: ModalityConfig | None, segments: list[Segment], items: int) -> int:
    """How many placeholders to inject: items beyond the text's placeholders."""
    if modality is None:
        return 0
    placeholders = sum(1 for s in segments if s.kind == modality.name)
    if items < placeholders:
        raise PlaceholderCountError(modality.name, modality.placeholder, placeholders, items)
    return items - placeholders


def _per_text(items: Sequence[Sequence[T] | None] | None, n: int, name: str
              ) -> list[Sequence[T] | None]:
    if items is None:
        return [None] * n
    if len(items) != n:
        raise EncodeError("invalid-batch", name,
                          f"{name}= has {len(items)} entries for {n} texts (one list per text)")
    return list(items)
