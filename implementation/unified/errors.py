"""The unified tokenizer's own error type (the others are the reference's)."""

from __future__ import annotations

from typing import Literal

from ..errors import EncodeError, excerpt

Modality = Literal["image", "video"]


class PlaceholderCountError(EncodeError):
    """The text has more ``<image>`` (or ``<video>``) placeholders than the ``images=``
    (``videos=``) argument has items: there is no item to expand a placeholder into.

    ``rule`` is ``too-few-images`` or ``too-few-videos``; ``path`` names the argument.
    """

    def __init__(self, modality: Modality, placeholder: str, placeholders: int,
                 items: int) -> None:
        self.modality: Modality = modality
        self.placeholder = placeholder
        self.placeholders = placeholders
        self.items = items
        argument = "images" if modality == "image" else "videos"
        super().__init__(
            f"too-few-{argument}",
            argument,
            f"the text has {placeholders} {excerpt(placeholder)} placeholder(s) but {argument}= "
            f"holds {items} item(s); every placeholder needs one",
        )

    def __reduce__(self) -> tuple[type[PlaceholderCountError], tuple[Modality, str, int, int]]:  # type: ignore[override]
        return (type(self), (self.modality, self.placeholder, self.placeholders, self.items))
