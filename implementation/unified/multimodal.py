"""The ``images=`` / ``videos=`` arguments: how many patch tokens each item becomes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import EncodeError, excerpt, excerpt_keys


@dataclass(frozen=True, slots=True)
class Image:
    """One image: it becomes ``patches`` patch tokens."""

    patches: int


@dataclass(frozen=True, slots=True)
class Video:
    """One video: ``frames`` frames of ``patches_per_frame`` patch tokens each."""

    frames: int
    patches_per_frame: int

    @property
    def patches(self) -> int:
        return self.frames * self.patches_per_frame


#: An image item: an ``Image``, a bare patch count, or ``{"patches": N}``.
ImageItem = Image | int | Mapping[str, int]
#: A video item: a ``Video``, ``(frames, patches_per_frame)``, or
#: ``{"frames": F, "patches_per_frame": P}``.
VideoItem = Video | tuple[int, int] | Mapping[str, int]


#: Patch tokens one call may ask for, per item and over all items of images= (videos=):
#: beyond, the request is refused rather than building a list that does not fit memory.
MAX_PATCHES = 1_000_000


def _count(value: object, path: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise EncodeError("invalid-multimodal-item", path,
                          f"{what} must be an integer, got {excerpt(value)}")
    if value < 1:
        raise EncodeError("invalid-multimodal-item", path,
                          f"{what} must be >= 1, got {excerpt(value)}")
    if value > MAX_PATCHES:
        raise EncodeError("invalid-multimodal-item", path,
                          f"{what} must be at most {MAX_PATCHES}, got {excerpt(value)}")
    return value


def _check_total(patches: int, path: str, argument: str) -> None:
    if patches > MAX_PATCHES:
        raise EncodeError("invalid-multimodal-item", path,
                          f"{argument}= asks for {patches} patch tokens in all (items up to "
                          f"this one); at most {MAX_PATCHES}")


def parse_images(items: Sequence[ImageItem] | None) -> list[Image]:
    if items is None:
        return []
    out: list[Image] = []
    total = 0
    for i, item in enumerate(items):
        path = f"images[{i}]"
        if isinstance(item, Image):
            out.append(Image(_count(item.patches, f"{path}.patches", "patches")))
        elif isinstance(item, Mapping):
            if set(item) != {"patches"}:
                raise EncodeError("invalid-multimodal-item", path,
                                  f"expected {{'patches': N}}, got keys {excerpt_keys(item)}")
            out.append(Image(_count(item["patches"], f"{path}.patches", "patches")))
        else:
            out.append(Image(_count(item, path, "an image's patch count")))
        total += out[-1].patches
        _check_total(total, path, "images")
    return out


def parse_videos(items: Sequence[VideoItem] | None) -> list[Video]:
    if items is None:
        return []
    out: list[Video] = []
    total = 0
    for i, item in enumerate(items):
        path = f"videos[{i}]"
        if isinstance(item, Video):
            frames, per_frame = item.frames, item.patches_per_frame
        elif isinstance(item, Mapping):
            if set(item) != {"frames", "patches_per_frame"}:
                raise EncodeError("invalid-multimodal-item", path,
                                  "expected {'frames': F, 'patches_per_frame': P}, got keys "
                                  f"{excerpt_keys(item)}")
            frames, per_frame = item["frames"], item["patches_per_frame"]
        elif isinstance(item, tuple) and len(item) == 2:
            frames, per_frame = item
        else:
            raise EncodeError("invalid-multimodal-item", path,
                              "expected a Video or (frames, patches_per_frame), got "
                              f"{excerpt(item)}")
        out.append(Video(_count(frames, f"{path}.frames", "frames"),
                         _count(per_frame, f"{path}.patches_per_frame", "patches_per_frame")))
        total += out[-1].patches
        _check_total(total, path, "videos")
    return out
