"""A subject that misbehaves on purpose, to test the harness' side of the protocol.

    python misbehaving.py MODE

MODE: ``garbage`` (answers an encode with a line that is not JSON), ``hang`` (never
answers an encode), ``exit`` (exits on an encode), ``silent`` (never says hello),
``wrong-id`` (answers an encode with another request's id). Everything else is answered
as the example subject answers it.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from harness.subjects import example


def main(mode: str) -> int:
    if mode == "silent":
        time.sleep(3600)
        return 0
    subject = example.Subject(strict=True)
    print(json.dumps({"hello": {"protocol": 1, "name": f"misbehaving-{mode}",
                                "version": "0", "capabilities": example.CAPABILITIES}}),
          flush=True)
    for line in sys.stdin:
        request: dict[str, Any] = json.loads(line)
        if request["op"] == "encode":
            if mode == "garbage":
                print("this is not a protocol line", flush=True)
                continue
            if mode == "hang":
                time.sleep(3600)
            if mode == "exit":
                return 3
            if mode == "wrong-id":
                print(json.dumps({"id": request["id"] + 1000, "ok": {}}), flush=True)
                continue
        try:
            print(json.dumps({"id": request["id"], "ok": subject.answer(request)}),
                  flush=True)
        except Exception as exc:
            print(json.dumps({"id": request["id"], "refused": {"rule": "x",
                                                               "message": str(exc)}}),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
