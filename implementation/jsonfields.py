"""Typed, path-aware access to a parsed tokenizer.json.

Every accessor raises ``LoadError`` naming the JSON path and the rule, so no
``KeyError``/``TypeError`` ever escapes from deep inside the loader.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NoReturn

from .errors import EXCERPT_CHARS, LoadError, excerpt

_MISSING: Any = object()


class Node:
    """A JSON value together with its path from the document root (``$``)."""

    __slots__ = ("path", "value")

    def __init__(self, value: Any, path: str = "$") -> None:
        self.value = value
        self.path = path

    # -- navigation -------------------------------------------------------
    def child_path(self, key: str | int) -> str:
        return child_path(self.path, key)

    def fail(self, rule: str, message: str, key: str | int | None = None) -> NoReturn:
        raise LoadError(rule, self.path if key is None else self.child_path(key), message)

    def obj(self) -> dict[str, Any]:
        if not isinstance(self.value, dict):
            self.fail("invalid-type", f"expected an object, got {json_type(self.value)}")
        return self.value

    def has(self, key: str) -> bool:
        """True when ``key`` is present and not JSON null (upstream treats null as absent)."""
        return self.obj().get(key) is not None

    def field(self, key: str, *, required: bool = True) -> Node:
        obj = self.obj()
        if key not in obj or obj[key] is None:
            if required:
                self.fail("missing-field", f"required field {excerpt(key)} is missing", key)
            return Node(None, self.child_path(key))
        return Node(obj[key], self.child_path(key))

    def items(self) -> Iterator[tuple[str, Node]]:
        for key, value in self.obj().items():
            yield key, Node(value, self.child_path(key))

    def elements(self) -> Iterator[Node]:
        if not isinstance(self.value, list):
            self.fail("invalid-type", f"expected an array, got {json_type(self.value)}")
        for i, value in enumerate(self.value):
            yield Node(value, self.child_path(i))

    # -- scalars ------------------------------------------------------------
    @property
    def is_null(self) -> bool:
        return self.value is None

    def str_(self) -> str:
        if not isinstance(self.value, str):
            self.fail("invalid-type", f"expected a string, got {json_type(self.value)}")
        return self.value

    def char(self) -> str:
        s = self.str_()
        if len(s) != 1:
            self.fail("invalid-value", f"expected exactly one character, got {excerpt(s)}")
        return s

    def bool_(self) -> bool:
        if not isinstance(self.value, bool):
            self.fail("invalid-type", f"expected a boolean, got {json_type(self.value)}")
        return self.value

    def u32(self) -> int:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail("invalid-type", f"expected an unsigned 32-bit integer, got {json_type(v)}")
        if not 0 <= v < 2**32:
            self.fail("invalid-value", f"{excerpt(v)} is not an unsigned 32-bit integer")
        return v

    def usize(self) -> int:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail("invalid-type", f"expected a non-negative integer, got {json_type(v)}")
        if v < 0:
            self.fail("invalid-value", f"{excerpt(v)} is negative: expected a non-negative integer")
        return v

    def number(self) -> float:
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int | float):
            self.fail("invalid-type", f"expected a number, got {json_type(v)}")
        try:
            return float(v)
        except OverflowError:  # an integer beyond the double range (serde: out of range)
            self.fail("invalid-value", f"number {excerpt(v)} is out of range")

    def optional_str(self, key: str) -> str | None:
        node = self.field(key, required=False)
        return None if node.is_null else node.str_()

    def optional_bool(self, key: str, default: bool = False) -> bool:
        node = self.field(key, required=False)
        return default if node.is_null else node.bool_()

    def type_tag(self) -> str:
        """The component's ``type`` string (required)."""
        return self.field("type").str_()


def child_path(path: str, key: str | int) -> str:
    """``path.key`` for a short identifier, ``path['key']`` (bounded) for any other key,
    ``path[3]`` for an index."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if len(key) <= EXCERPT_CHARS and key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{excerpt(key)}]"


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__
