"""The subject program of one ``tokenizers`` version, run by that version's virtual
environment: ``python program.py``. Speaks docs/subject-protocol.md on stdin/stdout.

Needs only the standard library, ``tokenizers`` and ``generations.py`` beside it (the
harness is not installed in that environment). Hello name ``tokenizers-<family>``
(``0.x``, ``0.20-0.22``, ``1.x``: ``generations.family`` of the version): the family picks
the expectations file. A refusal of the library is a
``refused`` answer; a Rust panic ends the process (status 101, ``panic: <message>`` on
stderr), which the harness records as ``crashed[died]`` with that line.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

os.environ.pop("RUST_BACKTRACE", None)
sys.path.insert(0, str(Path(__file__).resolve().parent))

import tokenizers  # after RUST_BACKTRACE is unset
from generations import Generation, family, generation_of  # type: ignore[import-not-found]

PROTOCOL = 1
_NEVER_SWALLOWED = (KeyboardInterrupt, SystemExit, GeneratorExit)
_SERDE_POSITION = re.compile(r" at line \d+ column \d+$")


def _is_panic(error: BaseException) -> bool:
    kind = type(error)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


class Program:
    def __init__(self, generation: Generation) -> None:
        self.generation = generation
        self.handles: dict[int, Any] = {}
        self.next_handle = 1

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request["op"]
        if op == "load":
            tokenizer = self.generation.load(request["document"])
            handle, self.next_handle = self.next_handle, self.next_handle + 1
            self.handles[handle] = tokenizer
            return {"handle": handle}
        if op == "free":
            self.handles.pop(request["handle"], None)
            return {}
        tokenizer = self.handles[request["handle"]]
        if op == "encode":
            got = self.generation.encode(tokenizer, request["text"], request.get("pair"),
                                         add_special_tokens=request["add_special_tokens"])
            answer: dict[str, Any] = {"ids": list(got.ids), "tokens": list(got.tokens),
                                      "type_ids": list(got.type_ids),
                                      "attention_mask": list(got.attention_mask)}
            if "spans" in self.generation.tiers:
                answer["offsets"] = [list(span) for span in got.spans]
            if "special_mask" in self.generation.tiers:
                answer["special_tokens_mask"] = list(got.special_mask)
            return answer
        if op == "decode":
            return {"text": self.generation.decode(
                tokenizer, request["ids"], skip_special_tokens=request["skip_special_tokens"])}
        raise KeyError(op)


def main() -> int:
    generation = generation_of(tokenizers)
    program = Program(generation)
    out = sys.stdout

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    send({"hello": {"protocol": PROTOCOL, "name": f"tokenizers-{family(generation.version)}",
                    "version": generation.version,
                    "capabilities": sorted(generation.tiers)}})
    for line in sys.stdin:
        request = json.loads(line)
        number = request.get("id")
        try:
            send({"id": number, "ok": program.answer(request)})
        except _NEVER_SWALLOWED:
            raise
        except KeyError as error:  # an unknown op, handle or field
            send({"id": number, "protocol_error": f"unknown op, handle or field: {error}"})
        except BaseException as error:  # pyo3's PanicException derives from BaseException
            message = str(error)
            if _is_panic(error):
                sys.stderr.write(f"panic: {message}\n")
                sys.stderr.flush()
                return 101
            if generation.is_refusal(error):
                rule = _SERDE_POSITION.sub("", message)
                send({"id": number, "refused": {"rule": rule[:200], "message": message[:400]}})
            else:
                sys.stderr.write(f"exception: {type(error).__name__}: {message}\n")
                sys.stderr.flush()
                return 102
    return 0


if __name__ == "__main__":
    sys.exit(main())
