"""Dataclasses to plain data and back, and a JSON Schema, all from the type hints.

Supports what the report model uses: dataclasses, ``list[X]``, ``dict[str, X]``,
``X | None``, ``Literal[...]``, ``str``, ``int``, ``float``, ``bool`` and ``Any``
(any JSON value). A value of the wrong shape raises ``ShapeError`` naming its path.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from functools import cache
from typing import Any, Final, Literal, TypeVar, Union, get_args, get_origin

T = TypeVar("T")
#: Field metadata: the field is left out of the data while its value is None (a key that
#: only some reports carry, such as a witness' ``reference`` or ``subject``).
OMITTED_WHEN_NONE: Final = {"omitted_when_none": True}


class ShapeError(ValueError):
    """Data that does not have the shape of the model; ``path`` says where."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def fields_of(cls: type) -> list[tuple[str, Any, bool]]:
    """(name, type, required) of each field, in declaration order."""
    hints = _hints(cls)
    out = []
    for spec in dataclasses.fields(cls):
        required = (spec.default is dataclasses.MISSING
                    and spec.default_factory is dataclasses.MISSING)
        out.append((spec.name, hints[spec.name], required))
    return out


def to_data(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {spec.name: to_data(getattr(value, spec.name))
                for spec in dataclasses.fields(value)
                if not (spec.metadata.get("omitted_when_none")
                        and getattr(value, spec.name) is None)}
    if isinstance(value, list | tuple):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_data(v) for k, v in value.items()}
    return value


def from_data(kind: type[T], data: Any, path: str = "$") -> T:
    return typing.cast(T, _load(kind, data, path))


def _is_optional(kind: Any) -> tuple[bool, Any]:
    if get_origin(kind) in (Union, types.UnionType):
        args = [a for a in get_args(kind) if a is not type(None)]
        if len(args) == 1 and len(get_args(kind)) == 2:
            return True, args[0]
    return False, kind


def _load(kind: Any, data: Any, path: str) -> Any:
    optional, inner = _is_optional(kind)
    if optional:
        return None if data is None else _load(inner, data, path)
    if kind is Any:
        return data
    origin = get_origin(kind)
    if origin is Literal:
        if data not in get_args(kind):
            raise ShapeError(path, f"expected one of {list(get_args(kind))}, got {data!r:.80}")
        return data
    if origin is list:
        if not isinstance(data, list):
            raise ShapeError(path, f"expected a list, got {type(data).__name__}")
        (item,) = get_args(kind)
        return [_load(item, v, f"{path}[{i}]") for i, v in enumerate(data)]
    if origin is dict:
        if not isinstance(data, dict):
            raise ShapeError(path, f"expected a mapping, got {type(data).__name__}")
        _, item = get_args(kind)
        return {str(k): _load(item, v, f"{path}.{k}") for k, v in data.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        if not isinstance(data, dict):
            raise ShapeError(path, f"expected a mapping, got {type(data).__name__}")
        values = {}
        for name, hint, required in fields_of(kind):
            if name in data:
                values[name] = _load(hint, data[name], f"{path}.{name}")
            elif required:
                raise ShapeError(path, f"missing {name!r}")
        return kind(**values)
    if kind is float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            raise ShapeError(path, f"expected a number, got {type(data).__name__}")
        return float(data)
    if kind in (str, int, bool):
        if not isinstance(data, kind) or (kind is int and isinstance(data, bool)):
            raise ShapeError(path, f"expected {kind.__name__}, got {type(data).__name__}")
        return data
    raise TypeError(f"{path}: the model uses an unsupported type {kind!r}")


def schema_of(kind: Any, definitions: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of ``kind``; dataclasses go to ``definitions`` (``$defs``)."""
    optional, inner = _is_optional(kind)
    if optional:
        return {"anyOf": [schema_of(inner, definitions), {"type": "null"}]}
    if kind is Any:
        return {}
    origin = get_origin(kind)
    if origin is Literal:
        return {"enum": list(get_args(kind))}
    if origin is list:
        return {"type": "array", "items": schema_of(get_args(kind)[0], definitions)}
    if origin is dict:
        return {"type": "object",
                "additionalProperties": schema_of(get_args(kind)[1], definitions)}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        name = kind.__name__
        if name not in definitions:
            definitions[name] = {}  # placeholder against recursion
            fields = fields_of(kind)
            definitions[name] = {
                "type": "object",
                "description": " ".join((kind.__doc__ or "").split()),
                "properties": {n: schema_of(h, definitions) for n, h, _ in fields},
                "required": [n for n, _, required in fields if required],
                "additionalProperties": False,
            }
        return {"$ref": f"#/$defs/{name}"}
    simple = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if kind in simple:
        return {"type": simple[kind]}
    raise TypeError(f"the model uses an unsupported type {kind!r}")
