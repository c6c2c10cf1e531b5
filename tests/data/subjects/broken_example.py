"""The example subject with one planted bug: in an encoding of two or more tokens, the
last id is one too high. The harness must catch it, shrink it and report it."""

from __future__ import annotations

import sys
from typing import Any

from harness.subjects import example


class Broken(example.Subject):
    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        result = super().answer(request)
        if request["op"] == "encode" and len(result["ids"]) >= 2:
            result["ids"][-1] += 1
        return result


if __name__ == "__main__":
    example.Subject = Broken  # type: ignore[misc]
    sys.exit(example.main(sys.argv[1:]))
