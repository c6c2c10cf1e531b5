"""Where a document comes from (a path, a JSON text, a parsed mapping) and the checks every
document passes before any component reads it.

How a source is told apart (docs/decisions/0018-paths-and-texts.md):

* an ``os.PathLike`` is always a path;
* ``bytes``, ``bytearray`` and ``memoryview`` are always a JSON text in UTF-8;
* a ``Mapping`` is an already parsed document;
* a ``str`` is a path when it names an existing filesystem entry; otherwise it is a JSON
  text when its first character other than JSON whitespace and U+FEFF (byte order mark)
  is ``{``, ``[`` or ``"``, or when the whole str is one JSON value (``null``, ``true``,
  ``42``, ``-1.5e3``...); else it is a path (which then names nothing: ``file-not-found``).
  So ``"null"`` is the JSON text null (refused as ``invalid-type`` at ``$``: not an
  object) and ``"[1, 2"`` a malformed JSON text, while ``"tokenizer.json"`` and
  ``"2024.json"`` are paths.

A JSON text may start with a byte order mark (and whitespace around it); it is ignored.

Every document, whatever its source, is then checked without recursion
(:func:`check_document`): arrays and objects nest at most ``MAX_NESTING`` levels (upstream's
serde_json refuses the 128th level), object keys are strings, values are JSON values, and
strings are Unicode text (no lone surrogate).
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from .errors import LoadError, clip, excerpt, excerpt_file
from .jsonfields import child_path, json_type

Source = str | bytes | bytearray | memoryview | os.PathLike[str] | Mapping[str, Any]

#: Arrays and objects may nest this many levels (the root object is level 1).
MAX_NESTING = 127
#: A str longer than this is never looked up as a filesystem entry (Linux PATH_MAX).
MAX_PATH_CHARS = 4096
_JSON_WHITESPACE = " \t\n\r"
_BOM = "\ufeff"
#: A mapping whose shared containers stand for more arrays and objects is refused.
MAX_EXPANDED = 10_000_000
_NOT_FOUND = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ENAMETOOLONG})


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed, checked document: its data, a name for messages, and its file if any."""

    data: Any
    origin: str
    file: Path | None


def check_source_type(source: object, function: str, parameter: str = "source") -> None:
    """TypeError unless ``source`` is one of the :data:`Source` types."""
    if isinstance(source, str | bytes | bytearray | memoryview | os.PathLike | Mapping):
        return
    raise TypeError(
        f"{function}() argument {parameter!r} must be a path (str or os.PathLike), a JSON "
        f"text (str or bytes-like) or a mapping, not {type(source).__name__}")


def read_document(source: Source, json_path: str = "$") -> Document:
    """The checked document of ``source``; ``LoadError`` at ``json_path`` when the source
    cannot be read or parsed, or at the offending value's path when a check fails."""
    if isinstance(source, Mapping):
        data: Any = dict(source)
        origin, file = "<dict>", None
        check_document(data, json_path)
    elif isinstance(source, bytes | bytearray | memoryview):
        data = _parse_bytes(bytes(source), "<bytes>", json_path)
        origin, file = "<bytes>", None
    elif isinstance(source, str) and not _names_an_entry(source) and _looks_like_json(source):
        data = _parse_text(source, "<text>", json_path)
        origin, file = "<text>", None
    else:
        origin = _file_name(source)
        file = Path(origin)
        data = _parse_bytes(_read_file(origin, json_path), excerpt_file(origin), json_path)
    return Document(data, origin, file)


# -- telling paths and texts apart ------------------------------------------------------
def _names_an_entry(text: str) -> bool:
    if not text or len(text) > MAX_PATH_CHARS or "\x00" in text:
        return False
    try:
        os.stat(text)
    except (OSError, ValueError):
        return False
    return True


def _first_significant(text: str) -> int:
    """Index of the first character that is neither JSON whitespace nor a BOM."""
    for index, char in enumerate(text):
        if char not in _JSON_WHITESPACE and char != _BOM:
            return index
    return len(text)


def _looks_like_json(text: str) -> bool:
    start = _first_significant(text)
    if start == len(text):
        return False
    if text[start] in '{["':
        return True
    try:  # a scalar JSON text (null, true, a number): what json.loads takes whole
        json.loads(text[start:], parse_constant=_reject_constant)
    except ValueError:  # JSONDecodeError included
        return False
    except RecursionError:  # pragma: no cover - a scalar does not nest
        return False
    return True


def _file_name(source: str | os.PathLike[str]) -> str:
    name = os.fspath(source)
    return name if isinstance(name, str) else os.fsdecode(name)


# -- reading files ------------------------------------------------------------------------
def _read_file(name: str, json_path: str) -> bytes:
    """The bytes of a regular file; ``file-not-found`` / ``file-unreadable`` with the OS's
    reason otherwise. A directory, device or pipe is never opened (a pipe would block)."""
    try:
        mode = os.stat(name).st_mode  # the name itself: Path("") would be "."
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if not stat.S_ISREG(mode):
            raise LoadError("file-unreadable", json_path,
                            f"cannot read {excerpt_file(name)}: not a regular file")
        with open(name, "rb") as handle:
            return handle.read()
    except ValueError as exc:  # NUL in the name, or a string no file name can encode
        raise LoadError("file-not-found", json_path,
                        f"no file named {excerpt_file(name)}: {clip(str(exc))}") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        if exc.errno in _NOT_FOUND:
            raise LoadError("file-not-found", json_path,
                            f"no file named {excerpt_file(name)}: {reason}") from None
        raise LoadError("file-unreadable", json_path,
                        f"cannot read {excerpt_file(name)}: {reason}") from None


# -- parsing ------------------------------------------------------------------------------
def _parse_bytes(raw: bytes, origin: str, json_path: str) -> Any:
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        rule = "malformed-json" if origin == "<bytes>" else "file-unreadable"
        raise LoadError(rule, json_path, f"{origin} is not UTF-8 text: {exc.reason} at byte "
                        f"{exc.start}") from None
    return _parse_text(text, origin, json_path)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"number {clip(literal)} out of range")
    return value


def _parse_text(text: str, origin: str, json_path: str) -> Any:
    """The parsed and checked (:func:`check_document`) document of a JSON text."""
    data = _loads(text, origin, json_path)
    check_document(data, json_path, text=text)
    return data


def _loads(text: str, origin: str, json_path: str) -> Any:
    start = _first_significant(text)
    if _BOM in text[:start]:  # a byte order mark is ignored (kept as a column, for messages)
        text = text[:start].replace(_BOM, " ") + text[start:]
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)
    except json.JSONDecodeError as exc:
        raise LoadError("malformed-json", json_path,
                        f"{origin} is not valid JSON: {clip(exc.msg)} at line {exc.lineno} "
                        f"column {exc.colno}") from None
    except RecursionError:
        path = _deep_text_path(text, json_path)
        if path is None:
            raise LoadError("malformed-json", json_path,
                            f"{origin} nests too deeply for Python's JSON parser") from None
        raise LoadError("nesting-too-deep", path, _nesting_message()) from None
    except ValueError as exc:
        raise LoadError("malformed-json", json_path,
                        f"{origin} is not valid JSON: {clip(str(exc))}") from None


_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}:,]')


def _deep_text_path(text: str, root: str) -> str | None:
    """The path of the first array or object of ``text`` at level ``MAX_NESTING + 1``
    (a scan of the text's brackets, strings skipped), or None if there is none."""
    frames: list[list[Any]] = []  # [is_object, current key or index]
    last_string: str | None = None
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token in "{[":
            if len(frames) >= MAX_NESTING:
                path = root
                for _is_object, key in frames:
                    path = child_path(path, key if key is not None else "?")
                return path
            frames.append([token == "{", None if token == "{" else 0])
        elif token in "}]":
            if frames:
                frames.pop()
        elif token == ",":
            if frames and not frames[-1][0]:
                frames[-1][1] += 1
        elif token == ":":
            if frames and frames[-1][0]:
                frames[-1][1] = last_string
        else:
            try:
                last_string = json.loads(token)
            except ValueError:
                last_string = token[1:-1]
    return None


def _nesting_message() -> str:
    return (f"arrays and objects nest more than {MAX_NESTING} levels deep (the root is "
            f"level 1); upstream's JSON parser refuses level {MAX_NESTING + 1} "
            "(recursion limit exceeded)")


# -- checking a document ------------------------------------------------------------------
_SURROGATE = "a string holds a lone surrogate: not valid Unicode text"


class _Walk:
    """The containers met so far, as (parent, key) links: a path is built only to fail."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.parents: list[tuple[int, str | int]] = []  # node -> (parent node, key)

    def add(self, parent: int, key: str | int) -> int:
        self.parents.append((parent, key))
        return len(self.parents) - 1

    def path(self, node: int, key: str | int | None = None) -> str:
        keys: list[str | int] = [] if key is None else [key]
        while node >= 0:
            node, parent_key = self.parents[node]
            keys.append(parent_key)
        path = self.root
        for step in reversed(keys):
            path = child_path(path, step)
        return path

    def fail(self, rule: str, node: int, key: str | int | None, message: str) -> NoReturn:
        raise LoadError(rule, self.path(node, key), message)

    def scalar(self, value: Any, node: int, key: str | int | None) -> None:
        if isinstance(value, str):
            if not value.isascii() and not _is_unicode(value):
                self.fail("malformed-json", node, key, _SURROGATE)
        elif isinstance(value, float):
            if not math.isfinite(value):
                self.fail("invalid-type", node, key, f"{value!r} is not a JSON number")
        elif not (value is None or isinstance(value, bool | int)):
            self.fail("invalid-type", node, key,
                      f"the document is not JSON data: {excerpt(value)}")


def check_document(data: Any, root: str = "$", *, text: str | None = None) -> None:
    """Refuse, without recursion, what :func:`_check_precisely` refuses.

    ``text`` is the JSON text ``data`` was parsed from, if any (no sharing, string keys,
    finite numbers: only the nesting and lone surrogates can be wrong). A fast pass runs
    first; only when it finds something does the precise walk run, to name the rule and
    the path. A value only the C encoder refuses (an integer too long to print) passes:
    the component reading it refuses it by its own rule.
    """
    if text is not None:
        suspicious = _SURROGATE_ESCAPE.search(text) is not None or not (
            text.isascii() or _is_unicode(text))
        fine = _nesting_fine(data) and (not suspicious or _encodes(data))
    else:
        fine = _looks_fine(data) and _encodes(data)
    if not fine:
        _check_precisely(data, root)


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _encodes(data: Any) -> bool:
    """The C JSON encoder takes ``data`` and its UTF-8 encoding succeeds."""
    try:
        json.dumps(data, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError):  # UnicodeEncodeError is a ValueError
        return False
    return True


def _nesting_fine(data: Any) -> bool:
    """No container at level ``MAX_NESTING + 1`` (a parsed text: a tree of dicts and lists)."""
    level = [data] if type(data) is dict or type(data) is list else []
    for _depth in range(MAX_NESTING):
        deeper: list[Any] = []
        for container in level:
            values = container.values() if type(container) is dict else container
            deeper += [v for v in values if type(v) is dict or type(v) is list]
        if not deeper:
            return True
        level = deeper
    return False


_STRINGS_ONLY = frozenset({str})


def _looks_fine(data: Any) -> bool:
    """Nesting within ``MAX_NESTING``, string keys, expansion within ``MAX_EXPANDED``;
    each container looked at once per level it appears on (C-level passes where possible:
    most containers of a tokenizer.json hold no container)."""
    level: dict[int, tuple[Any, int]] = {id(data): (data, 1)}
    depth = expanded = 0
    while level:
        depth += 1
        if depth > MAX_NESTING:
            return False
        deeper: dict[int, tuple[Any, int]] = {}
        for container, count in level.values():
            expanded += count
            if type(container) is dict:
                if not set(map(type, container)) <= _STRINGS_ONLY:
                    return False
                values: Any = container.values()
            elif type(container) is list:
                values = container
            else:  # a subclass: the precise walk decides
                return False
            types = set(map(type, values))
            if dict not in types and list not in types:
                continue
            for child in values:
                if type(child) is dict or type(child) is list:
                    seen = deeper.get(id(child))
                    deeper[id(child)] = (child, count if seen is None else count + seen[1])
                elif isinstance(child, dict | list):
                    return False
        if expanded > MAX_EXPANDED:
            return False
        level = deeper
    return True


def _check_precisely(data: Any, root: str = "$") -> None:
    """Refuse, without recursion: nesting past ``MAX_NESTING`` (``nesting-too-deep``; a
    container holding itself nests without end), a non-string object key or a value JSON
    cannot hold (``invalid-type``), a non-finite number (``invalid-type``), a lone
    surrogate in a string (``malformed-json``), and a mapping whose shared containers would
    expand to more than ``MAX_EXPANDED`` arrays and objects (``invalid-type``).

    Each distinct container is checked once (a parsed JSON text has no sharing; a mapping
    passed in may reuse one object in several places), so the cost is linear in the size
    of the data, whatever the nesting or the sharing.
    """
    walk = _Walk(root)
    if not isinstance(data, dict | list):
        walk.scalar(data, -1, None)
        return
    node_of: dict[int, int] = {id(data): -1}  # container id -> its node (first place met)
    done: dict[int, tuple[int, int]] = {}  # container id -> (height, expanded size)
    open_ids: set[int] = set()
    pending: list[tuple[Any, bool]] = [(data, False)]
    while pending:
        container, finished = pending.pop()
        ident = id(container)
        node = node_of[ident]
        if finished:
            open_ids.discard(ident)
            height, size = 1, 1
            for child in _containers(container):
                child_height, child_size = done[id(child)]
                height = max(height, child_height + 1)
                size = min(size + child_size, MAX_EXPANDED + 1)
            done[ident] = (height, size)
            continue
        if ident in done:
            continue
        open_ids.add(ident)
        pending.append((container, True))
        for key, value in _checked_children(walk, container, node):
            if not isinstance(value, dict | list):
                continue
            child = id(value)
            if child in open_ids:
                walk.fail("nesting-too-deep", node, key,
                          "this array or object contains itself: it nests without end")
            if child not in node_of:
                node_of[child] = walk.add(node, key)
            pending.append((value, False))
    height, size = done[id(data)]
    if height > MAX_NESTING:
        raise LoadError("nesting-too-deep", _deepest_path(data, root, done), _nesting_message())
    if size > MAX_EXPANDED:
        walk.fail("invalid-type", -1, None,
                  f"the mapping reuses arrays and objects so often that it stands for more "
                  f"than {MAX_EXPANDED} of them (no JSON text could be that large)")


def _containers(container: dict[Any, Any] | list[Any]) -> list[Any]:
    values = container.values() if isinstance(container, dict) else container
    return [value for value in values if isinstance(value, dict | list)]


def _checked_children(walk: _Walk, container: dict[Any, Any] | list[Any], node: int
                      ) -> list[tuple[str | int, Any]]:
    """The (key, value) pairs of a container, its keys and scalar values checked."""
    if isinstance(container, dict):
        for key in container:
            if type(key) is not str:
                walk.fail("invalid-type", node, None,
                          f"an object key is {_describe(key)}, not a string")
            if not key.isascii() and not _is_unicode(key):
                walk.fail("malformed-json", node, key, _SURROGATE)
        children: list[tuple[str | int, Any]] = list(container.items())
    else:
        children = list(enumerate(container))
    for key, value in children:
        if not isinstance(value, dict | list):
            walk.scalar(value, node, key)
    return children


def _deepest_path(data: Any, root: str, done: dict[int, tuple[int, int]]) -> str:
    """The path of a container at level ``MAX_NESTING + 1``, down the deepest branch."""
    path = root
    container: Any = data
    for _level in range(MAX_NESTING):
        items = container.items() if isinstance(container, dict) else enumerate(container)
        best_key: str | int = 0
        best: Any = None
        for key, value in items:
            if isinstance(value, dict | list) and (
                    best is None or done[id(value)][0] > done[id(best)][0]):
                best_key, best = key, value
        path = child_path(path, best_key)
        container = best
    return path


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _describe(value: object) -> str:
    if isinstance(value, int | float) or value is None:
        return f"{json_type(value)} {excerpt(value)}"
    return excerpt(value)
