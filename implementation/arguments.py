"""Python argument types of the public entry points.

A wrong *type* of argument is the caller's programming error: ``TypeError`` naming the
function, the parameter and the expected type. A value of the right type that the tokenizer
cannot take (an unknown id, a text with a lone surrogate) stays a typed ``TokenizerError``
with its rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _fail(function: str, parameter: str, expected: str, value: object) -> TypeError:
    return TypeError(f"{function}() argument {parameter!r} must be {expected}, not "
                     f"{type(value).__name__}")


def require_str(value: object, function: str, parameter: str) -> str:
    if not isinstance(value, str):
        raise _fail(function, parameter, "str", value)
    return value


def require_optional_str(value: object, function: str, parameter: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise _fail(function, parameter, "str or None", value)
    return value


def require_bool(value: object, function: str, parameter: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(function, parameter, "bool", value)
    return value


def require_id(value: object, function: str, parameter: str) -> int:
    """An int that is not a bool (``True`` is not the id 1, nor is ``1.0``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(function, parameter, "int", value)
    return value


def require_sequence(value: object, function: str, parameter: str, expected: str
                     ) -> Sequence[Any]:
    """A sequence (list, tuple, range...) that is not a string nor bytes."""
    if not isinstance(value, Sequence) or isinstance(value, str | bytes | bytearray):
        raise _fail(function, parameter, expected, value)
    return value


def require_ids(value: object, function: str, parameter: str = "ids") -> Sequence[int]:
    """A sequence of ints (no bool, no float); each wrong element named by its index."""
    ids = require_sequence(value, function, parameter, "a sequence of int")
    for position, token_id in enumerate(ids):
        require_id(token_id, function, f"{parameter}[{position}]")
    return ids


def require_optional_sequence(value: object, function: str, parameter: str,
                              expected: str) -> Sequence[Any] | None:
    if value is None:
        return None
    return require_sequence(value, function, parameter, f"{expected} or None")
