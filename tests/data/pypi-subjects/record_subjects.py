"""Records a PyPI subject's program against its real package, for the tests
(tests/harness/test_pypi_subjects.py): run by the subject's own environment,

    <cache>/subjects/<name>-<version>/venv/bin/python -I record_subjects.py NAME > NAME.json

It feeds the fixed requests below to ``harness/subjects/<name>/program.py`` with the
package behind a recording proxy and writes, canonically, every call the adapter made to
the package (in order, with what it returned or raised, objects as the attributes the
adapter reads) and every line the program wrote. The test replays those calls through a
fake package and checks the program writes the same lines: no network, no package.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import json
import sys
import types
from importlib import metadata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
#: The attributes of a returned object the adapters read.
ATTRIBUTES = ("ids", "tokens", "special_tokens_mask", "type_ids", "attention_mask")
CALLS: list[dict[str, Any]] = []


def plain(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    found: dict[str, Any] = {}
    for attribute in ATTRIBUTES:
        try:
            found[attribute] = plain(getattr(value, attribute))
        except Exception:  # fastokens' Encoding.tokens raises
            continue
    return {"object": found}


class Proxy:
    """Records every method call on ``target`` (a class or a tokenizer)."""

    def __init__(self, target: Any, where: str) -> None:
        self._target, self._where = target, where

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._target, name)
        if not callable(found) or isinstance(found, type):
            return found

        def call(*args: Any, **kwargs: Any) -> Any:
            entry: dict[str, Any] = {"call": f"{self._where}.{name}", "args": plain(list(args)),
                                     "kwargs": plain(kwargs)}
            if name.startswith("from_") and args and isinstance(args[0], str) and \
                    args[0].startswith("/"):
                entry["args"] = ["<path>", *entry["args"][1:]]  # a temporary file
                entry["file"] = Path(args[0]).read_text(encoding="utf-8")
            CALLS.append(entry)
            try:
                result = found(*args, **kwargs)
            except BaseException as error:
                entry["raised"] = {"type": type(error).__name__,
                                   "module": type(error).__module__, "message": str(error)}
                raise
            if type(result).__name__ in ("Tokenizer", "Kitoken"):
                entry["returned"] = {"tokenizer": True}
                return Proxy(result, "tokenizer")
            entry["returned"] = plain(result)
            return result

        return call


def requests() -> list[dict[str, Any]]:
    fixtures = ROOT / "fixtures"
    llama = (fixtures / "llama_like.tokenizer.json").read_text(encoding="utf-8")
    metaspace = (fixtures / "metaspace_first_split_true.tokenizer.json").read_text("utf-8")
    made: list[dict[str, Any]] = [{"op": "load", "document": llama},
            {"op": "encode", "handle": 1, "text": "Hello world <s> héllo",
             "add_special_tokens": True},
            {"op": "encode", "handle": 1, "text": "ab c", "add_special_tokens": False},
            {"op": "encode", "handle": 1, "text": "ab", "pair": "c",
             "add_special_tokens": True},
            {"op": "decode", "handle": 1, "ids": [1, 293, 298], "skip_special_tokens": True},
            {"op": "decode", "handle": 1, "ids": [1, 293, 298], "skip_special_tokens": False},
            {"op": "load", "document": metaspace},
            {"op": "load", "document": "{"},
            {"op": "encode", "handle": 99, "text": "x", "add_special_tokens": True},
            {"op": "free", "handle": 1}]
    return [{"id": n, **r} for n, r in enumerate(made, 1)]


def main() -> int:
    name = sys.argv[1]
    real = importlib.import_module(name)
    fake = types.ModuleType(name)
    for attribute in dir(real):
        value = getattr(real, attribute)
        setattr(fake, attribute, Proxy(value, attribute) if attribute in (
            "Tokenizer", "Kitoken") else value)
    sys.modules[name] = fake
    given = requests()
    sys.stdin = io.StringIO("".join(json.dumps(r) + "\n" for r in given))
    out, sys.stdout = sys.stdout, io.StringIO()
    program_path = ROOT / "harness" / "subjects" / name / "program.py"
    spec = importlib.util.spec_from_file_location(f"{name}_program", program_path)
    assert spec is not None and spec.loader is not None
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    status = program.serve(program.Adapter())
    written, sys.stdout = sys.stdout.getvalue(), out
    record = {"package": name, "version": metadata.version(name), "requests": given,
              "calls": CALLS, "lines": written.splitlines(), "status": status}
    sys.stdout.write(json.dumps(record, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
