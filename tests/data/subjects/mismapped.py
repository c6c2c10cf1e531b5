"""The example subject behind a deliberately mis-mapped adapter, for ``check-subject``.

    python mismapped.py MODE

MODE: ``bos`` (encode adds the template's specials whatever add_special_tokens says),
``skip`` (decode ignores skip_special_tokens and always skips), ``tiers`` (the hello
claims offsets it never gives).
"""

from __future__ import annotations

import sys
from typing import Any

from harness.subjects import example

MODE = sys.argv[1] if len(sys.argv) > 1 else "bos"


class Mismapped(example.Subject):
    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        if MODE == "bos" and request["op"] == "encode":
            request = {**request, "add_special_tokens": True}
        if MODE == "skip" and request["op"] == "decode":
            request = {**request, "skip_special_tokens": True}
        result = super().answer(request)
        if MODE == "tiers" and request["op"] == "encode":
            result.pop("offsets")
        return result


if __name__ == "__main__":
    example.Subject = Mismapped  # type: ignore[misc]
    sys.exit(example.main(sys.argv[2:]))
