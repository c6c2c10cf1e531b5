"""A typed, read-only view of one tokenizer.json document (a generated or real file, as
a dict): what the judge and the strategies read of it, each field read one way, with no
assumption that the document is well formed (a missing or mistyped field reads as absent).

The raw dict stays reachable (``raw``) for the places that build a changed document for
the replayer; nothing here changes it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from functools import cached_property
from typing import Any, Final, Literal, TypeVar

T = TypeVar("T")

Component = Literal["normalizer", "pre_tokenizer", "post_processor", "decoder"]

#: The key under which a ``Sequence`` of each component lists its steps.
SEQUENCE_KEYS: Final[dict[Component, str]] = {
    "normalizer": "normalizers", "pre_tokenizer": "pretokenizers",
    "post_processor": "processors", "decoder": "decoders"}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


#: Views are shared for documents of at least this many vocabulary entries (real files),
#: the last few of them.
_SHARED_FROM: Final = 4096
_SHARED_KEPT: Final = 4


class DocumentView:
    """``DocumentView(document)``: its model's fields, its components and their steps."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.raw = document
        self._memo: dict[Hashable, Any] = {}

    @classmethod
    def of(cls, document: dict[str, Any]) -> DocumentView:
        """The view of ``document``, shared while the same large document is read again
        (every text of a real file is a case of its own: what a view derives once — its
        fields, ``memo`` — serves them all). Documents are values, never changed in place."""
        model = document.get("model")
        vocab = model.get("vocab") if isinstance(model, dict) else None
        if not isinstance(vocab, dict) or len(vocab) < _SHARED_FROM:
            return cls(document)
        found = _SHARED.get(id(document))
        if found is not None and found.raw is document:
            _SHARED.move_to_end(id(document))
            return found
        view = _SHARED[id(document)] = cls(document)  # it keeps its document alive
        while len(_SHARED) > _SHARED_KEPT:
            _SHARED.popitem(last=False)
        return view

    def memo(self, key: Hashable, derive: Callable[[], T]) -> T:
        """``derive()``, computed once per document (a recogniser's table of a real file:
        the results of its merges, say), under ``key``."""
        if key not in self._memo:
            self._memo[key] = derive()
        found: T = self._memo[key]
        return found

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

    @cached_property
    def merge_results(self) -> frozenset[str]:
        """What the merges build: each well-formed merge's two sides joined."""
        built: set[str] = set()
        for merge in self.merges if isinstance(self.merges, list) else ():
            sides = merge.split(" ") if isinstance(merge, str) else merge
            if isinstance(sides, list) and len(sides) == 2 \
                    and all(isinstance(side, str) for side in sides):
                built.add(sides[0] + sides[1])
        return frozenset(built)

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

    def split_patterns(self, kind: Literal["String", "Regex"]) -> tuple[str, ...]:
        """The ``kind`` patterns of the pre-tokenizer's Split steps, nested Sequences
        opened, in order."""
        def found(step: Any) -> list[str]:
            if not isinstance(step, dict):
                return []
            inner = step.get("pretokenizers")
            if step.get("type") == "Sequence" and isinstance(inner, list):
                return [p for s in inner for p in found(s)]
            pattern = step.get("pattern")
            return [pattern[kind]] if step.get("type") == "Split" and isinstance(
                pattern, dict) and isinstance(pattern.get(kind), str) else []

        return tuple(found(self.raw.get("pre_tokenizer")))

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


#: The shared views (``DocumentView.of``), by the identity of their document.
_SHARED: OrderedDict[int, DocumentView] = OrderedDict()
