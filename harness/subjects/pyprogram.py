"""The protocol loop of a PyPI subject's program (docs/subject-protocol.md), run by that
subject's own virtual environment (``harness.subjects.pypi``), where the harness is not
installed: standard library only. A subject's ``program.py`` puts this folder on
``sys.path`` and hands ``serve`` an ``Adapter`` mapping its package's API onto the tiers.

An exception the adapter names a refusal is a ``refused`` answer (``RefusalError`` for one the
adapter makes itself, with its own rule); a Rust panic (``pyo3_runtime.PanicException``)
ends the process with status 101 and ``panic: <message>`` on standard error; any other
exception ends it with status 102. The harness records both as ``crashed[died]`` and
starts the subject again (decision 0034).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Protocol

PROTOCOL: Final = 1
_NEVER_SWALLOWED: Final = (KeyboardInterrupt, SystemExit, GeneratorExit)
_SERDE_POSITION: Final = re.compile(r" at line \d+ column \d+$")


class RefusalError(Exception):
    """A refusal the adapter makes (the package gives no answer the protocol can carry)."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule = rule


class Adapter(Protocol):
    name: str
    version: str
    capabilities: Sequence[str]

    def load(self, document: str) -> Any: ...

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]: ...

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str: ...

    def is_refusal(self, error: BaseException) -> bool: ...


def load_beside(program: str, filename: str, name: str) -> ModuleType:
    """The module ``filename`` beside ``program`` (a subject's ``__file__``), loaded by path
    as ``name`` (the subject's folder is not a package in its own environment)."""
    spec = importlib.util.spec_from_file_location(name, Path(program).resolve().with_name(
        filename))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def is_panic(error: BaseException) -> bool:
    kind = type(error)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


class _GarbledError(Exception):
    """The request names no op, handle or field the protocol has."""


def _field(request: dict[str, Any], name: str) -> Any:
    if name not in request:
        raise _GarbledError(f"no field {name!r}")
    return request[name]


def _answer(adapter: Adapter, handles: dict[int, Any], request: dict[str, Any]
            ) -> dict[str, Any]:
    op = _field(request, "op")
    if op == "load":
        tokenizer = adapter.load(_field(request, "document"))
        handle = max(handles, default=0) + 1
        handles[handle] = tokenizer
        return {"handle": handle}
    if op not in ("free", "encode", "decode"):
        raise _GarbledError(f"unknown op {op!r}")
    handle = _field(request, "handle")
    if op == "free":
        handles.pop(handle, None)
        return {}
    if handle not in handles:
        raise _GarbledError(f"unknown handle {handle!r}")
    if op == "encode":
        text, special = _field(request, "text"), _field(request, "add_special_tokens")
        pair = request.get("pair")
        if pair is not None and "pairs" not in adapter.capabilities:
            raise _GarbledError("a pair, but the subject has no pairs capability")
        return adapter.encode(handles[handle], text, pair, add_special_tokens=special)
    ids, skip = list(_field(request, "ids")), _field(request, "skip_special_tokens")
    return {"text": adapter.decode(handles[handle], ids, skip_special_tokens=skip)}


def serve(adapter: Adapter) -> int:
    """Answer requests on standard input until it closes (the exit status)."""
    os.environ.pop("RUST_BACKTRACE", None)  # a panic's message, not a backtrace, on stderr
    out = sys.stdout
    handles: dict[int, Any] = {}

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    send({"hello": {"protocol": PROTOCOL, "name": adapter.name, "version": adapter.version,
                    "capabilities": sorted(adapter.capabilities)}})
    for line in sys.stdin:
        request = json.loads(line)
        number = request.get("id")
        try:
            send({"id": number, "ok": _answer(adapter, handles, request)})
        except _NEVER_SWALLOWED:
            raise
        except _GarbledError as error:
            send({"id": number, "protocol_error": str(error)})
        except BaseException as error:  # pyo3's PanicException derives from BaseException
            message = str(error)
            if is_panic(error):
                sys.stderr.write(f"panic: {message}\n")
                sys.stderr.flush()
                return 101
            if isinstance(error, RefusalError):
                send({"id": number, "refused": {"rule": error.rule, "message": message[:400]}})
            elif adapter.is_refusal(error):
                rule = _SERDE_POSITION.sub("", message)
                send({"id": number, "refused": {"rule": rule[:200], "message": message[:400]}})
            else:
                sys.stderr.write(f"exception: {type(error).__name__}: {message}\n")
                sys.stderr.flush()
                return 102
    return 0
