"""The example subject: our reference behind the subject protocol, in a child process.

    python -m harness.subjects.example [--lenient]

A minimal, complete speaker of the protocol (``docs/subject-protocol.md``) for anyone
writing one for another implementation: it reads one JSON request per line on stdin and
answers each on stdout, in order, after a hello naming its capabilities. It uses nothing
of the harness, only the reference's public API, so it is also what the protocol's own
tests drive. ``--lenient`` loads in the reference's lenient mode.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Final

import implementation as ref

#: The registry's name of this subject (``harness.subjects.registry``).
NAME: Final = "example"
CAPABILITIES = ["ids", "tokens", "spans", "special_mask", "type_ids", "attention_mask",
                "word_ids", "pairs", "decode"]


class Subject:
    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self.handles: dict[int, ref.Tokenizer] = {}
        self.next_handle = 1

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request["op"]
        if op == "load":
            tokenizer = ref.load_tokenizer(request["document"], strict=self.strict)
            handle, self.next_handle = self.next_handle, self.next_handle + 1
            self.handles[handle] = tokenizer
            return {"handle": handle}
        if op == "free":
            self.handles.pop(request["handle"], None)
            return {}
        tokenizer = self.handles[request["handle"]]
        if op == "encode":
            seq = tokenizer.encode_with_spans(request["text"], request["add_special_tokens"],
                                              pair=request.get("pair"))
            return {"ids": seq.input_ids, "tokens": seq.token_strings,
                    "offsets": [list(span) for span in seq.spans],
                    "special_tokens_mask": list(seq.special_tokens_mask),
                    "type_ids": list(seq.type_ids),
                    "attention_mask": list(seq.attention_mask),
                    "word_ids": list(seq.word_ids), "sequence_ids": list(seq.sequence_ids),
                    "model_word_ids": [t.metadata.get("word") if t.track == "bpe" else None
                                       for t in seq.tokens]}
        if op == "decode":
            return {"text": tokenizer.decode(request["ids"],
                                             skip_special_tokens=request["skip_special_tokens"])}
        raise KeyError(op)


def main(argv: list[str]) -> int:
    subject = Subject(strict="--lenient" not in argv)
    out = sys.stdout

    def send(message: dict[str, Any]) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    send({"hello": {"protocol": 1, "name": "example", "version": "implementation/",
                    "capabilities": CAPABILITIES}})
    for line in sys.stdin:
        request: dict[str, Any] = {}
        try:
            request = json.loads(line)
            send({"id": request["id"], "ok": subject.answer(request)})
        except ref.TokenizerError as exc:
            send({"id": request.get("id"), "refused": {"rule": exc.rule,
                                                       "message": exc.message,
                                                       "path": exc.path}})
        except (ValueError, KeyError, TypeError) as exc:
            send({"id": request.get("id"),
                  "protocol_error": f"{type(exc).__name__}: {str(exc)[:200]}"})
    return 0


def command() -> list[str]:
    """The adapter (``harness.subjects.registry``): the command line of this subject."""
    return [sys.executable, "-m", __name__]
