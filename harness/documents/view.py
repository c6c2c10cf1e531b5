"""A typed, read-only view of one tokenizer.json document (a generated or real file, as
a dict): what the judge and the strategies read of it, each field read one way, with no
assumption that the document is well formed (a missing or mistyped field reads as absent).

The raw dict stays reachable (``raw``) for the places that build a changed document for
the replayer; nothing here changes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import Any, Final, Literal

Component = Literal["normalizer", "pre_tokenizer", "post_processor", "decoder"]

#: The key under which a ``Sequence`` of each component lists its steps.
SEQUENCE_KEYS: Final[dict[Component, str]] = {
    "normalizer": "normalizers", "pre_tokenizer": "pretokenizers",
    "post_processor": "processors", "decoder": "decoders"}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class DocumentView:
    """``DocumentView(document)``: its model's fields, its components and their steps."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.raw = document

    # -- the model -------------------------------------------------------------------------
    @cached_property
    def model(self) -> Mapping[str, Any]:
        return _mapping(self.raw.get("model"))

    @cached_property
    def vocab(self) -> Mapping[str, Any]:
        return _mapping(self.model.get("vocab"))

    @property
    def merges(self) -> Any:
        """The merges as written (a list of pairs or of ``"a b"`` strings, or malformed)."""
        return self.model.get("merges")

    @property
    def byte_fallback(self) -> bool:
        return self.model.get("byte_fallback") is True

    @property
    def fuse_unk(self) -> bool:
        return self.model.get("fuse_unk") is True

    @property
    def unk_token(self) -> str | None:
        return _text(self.model.get("unk_token"))

    @property
    def dropout(self) -> Any:
        return self.model.get("dropout")

    @property
    def continuing_subword_prefix(self) -> str | None:
        return _text(self.model.get("continuing_subword_prefix"))

    @property
    def end_of_word_suffix(self) -> str | None:
        return _text(self.model.get("end_of_word_suffix"))

    @property
    def decorated(self) -> bool:
        """Whether the model decorates its pieces (a subword prefix or word suffix)."""
        return bool(self.continuing_subword_prefix or self.end_of_word_suffix)

    # -- the components --------------------------------------------------------------------
    def component(self, name: Component) -> dict[str, Any] | None:
        """The component as written, when it is an object (else None)."""
        value = self.raw.get(name)
        return value if isinstance(value, dict) else None

    def present(self, name: Component) -> bool:
        """Whether the document sets the component at all (``null`` or absent: not)."""
        return self.raw.get(name) is not None

    def steps(self, name: Component) -> tuple[dict[str, Any] | None, ...]:
        """The steps of the component: a ``Sequence``'s list (a non-object step as None),
        else the component itself as one step; no component, no steps."""
        value = self.component(name)
        if value is None:
            return ()
        listed = value.get(SEQUENCE_KEYS[name])
        if value.get("type") == "Sequence" and isinstance(listed, list):
            return tuple(s if isinstance(s, dict) else None for s in listed)
        return (value,)

    def step_types(self, name: Component) -> tuple[str | None, ...]:
        return tuple(_text(s.get("type")) if s is not None else None for s in self.steps(name))

    def is_sequence(self, name: Component) -> bool:
        value = self.component(name)
        return value is not None and value.get("type") == "Sequence" \
            and isinstance(value.get(SEQUENCE_KEYS[name]), list)

    # -- added tokens ----------------------------------------------------------------------
    @cached_property
    def added_tokens(self) -> tuple[Mapping[str, Any], ...]:
        """The ``added_tokens`` entries that are objects, in order."""
        entries = self.raw.get("added_tokens")
        return tuple(e for e in entries if isinstance(e, dict)) if isinstance(entries, list) \
            else ()
