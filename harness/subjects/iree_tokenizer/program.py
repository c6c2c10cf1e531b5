"""The iree-tokenizer subject program, run by its own environment: ``python program.py``.

The mapping onto the protocol's tiers: ``Tokenizer.from_str`` loads;
``encode_rich(text, add_special_tokens=..., track_offsets=False)`` gives the ids and
type ids; tokens are ``id_to_token`` of each id (the package keeps no token strings of an
encoding; a token of upstream is the vocabulary string of its id);
``decode(ids, skip_special_tokens=...)`` decodes. Not mapped, so absent: offsets (the
package's are byte offsets into each normalized segment, not character offsets into the
text), the special-tokens and attention masks (not exposed) and pairs (no pair encode).
Every failure of the library is an IREE status raised as a Python exception whose message
reads ``<source>.c:<line>: <CODE>; <message>``: that is a refusal, its rule the code and
message without the source position. The bindings' own refusal of an argument they cannot
convert (``TypeError: decode(): incompatible function arguments``: a token id that does
not fit their 32-bit signed int) is a refusal too, its rule ``TypeError; <first line>``.
Any other exception ends the process (status 102).
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Final

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() not in (HERE, HERE.parent)]
import iree.tokenizer as iree  # type: ignore[import-not-found]  # noqa: E402

sys.path.append(str(HERE.parent))
from pyprogram import RefusalError, serve  # type: ignore[import-not-found]  # noqa: E402

#: An IREE status as the bindings raise it: ``iree/.../json.c:471: NOT_FOUND; message``.
STATUS: Final = re.compile(r"^(?:\S+:\d+: )?([A-Z_]+); (.*)$", re.DOTALL)


#: The bindings (nanobind) refusing an argument: ``decode(): incompatible function
#: arguments. The following argument types are supported: ...``.
ARGUMENTS: Final = re.compile(r"^(\w+\(\): incompatible function arguments)\.")


def status_refusal(error: BaseException) -> RefusalError | None:
    """The refusal an IREE status error (or the bindings' refusal of an argument) makes,
    or None for any other exception."""
    text = error.args[0] if isinstance(error, KeyError) and error.args \
        and isinstance(error.args[0], str) else str(error)  # a KeyError's str is a repr
    arguments = ARGUMENTS.match(text) if isinstance(error, TypeError) else None
    if arguments is not None:
        return RefusalError(f"TypeError; {arguments.group(1)}", text[:400])
    found = STATUS.match(text)
    if found is None:
        return None
    code, message = found.groups()
    rule = re.sub(r"\d+", "N", f"{code}; {message.splitlines()[0]}")
    return RefusalError(rule[:200], text[:400])


def _called(call: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return call(*args, **kwargs)
    except Exception as error:
        refusal = status_refusal(error)
        if refusal is None:
            raise
        raise refusal from None


class Adapter:
    name = "iree-tokenizer"
    version = f"iree-tokenizer@{metadata.version('iree-tokenizer')}"
    capabilities = ("ids", "tokens", "type_ids", "decode")

    def load(self, document: str) -> Any:
        return _called(iree.Tokenizer.from_str, document)

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]:
        got = _called(tokenizer.encode_rich, text, add_special_tokens=add_special_tokens,
                      track_offsets=False)
        ids = [int(i) for i in got.ids]
        return {"ids": ids, "tokens": [tokenizer.id_to_token(i) for i in ids],
                "type_ids": [int(t) for t in got.type_ids]}

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str:
        return str(_called(tokenizer.decode, ids, skip_special_tokens=skip_special_tokens))

    def is_refusal(self, error: BaseException) -> bool:
        return False


if __name__ == "__main__":
    sys.exit(serve(Adapter()))
