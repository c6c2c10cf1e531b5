"""A subject that fails in the middle of a run, on purpose, to test the matrix.

    python faulty.py COUNTER

It answers as the example subject's lenient mode does, but counts its requests (a free
aside) in the file COUNTER, across restarts, and on the 3rd prints garbage, on the 6th
kills itself (SIGKILL) and on the 9th hangs; every other request is answered.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from harness.subjects import example

GARBAGE, DIE, HANG = 3, 6, 9


def _count(counter: Path) -> int:
    seen = int(counter.read_text() or "0") + 1 if counter.is_file() else 1
    counter.write_text(str(seen))
    return seen


def main(counter: Path) -> int:
    subject = example.Subject(strict=False)
    print(json.dumps({"hello": {"protocol": 1, "name": "faulty", "version": "1",
                                "capabilities": example.CAPABILITIES}}), flush=True)
    for line in sys.stdin:
        request: dict[str, Any] = json.loads(line)
        if request["op"] != "free":
            seen = _count(counter)
            if seen == GARBAGE:
                print("\x00garbage, not a protocol line", flush=True)
                continue
            if seen == DIE:
                os.kill(os.getpid(), signal.SIGKILL)
            if seen == HANG:
                time.sleep(3600)
        try:
            print(json.dumps({"id": request["id"], "ok": subject.answer(request)}), flush=True)
        except Exception as exc:
            print(json.dumps({"id": request["id"], "refused": {"rule": "x",
                                                               "message": str(exc)}}),
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
