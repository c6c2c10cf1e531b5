"""The pytorch-tokenizers subject program, run by its own environment: ``python program.py``.

The package's ``__init__`` imports ``tokenizers`` (its pure-Python wrapper), so the C++
extension ``pytorch_tokenizers_cpp`` is loaded from its file alone. The mapping onto the
protocol's tiers: ``HFTokenizer().load(path)`` loads (the document is written to a
temporary file: the bindings take no string); ``encode(text, bos, eos)`` gives the ids,
``bos``/``eos`` being how many BOS/EOS tokens to add (``add_special_tokens``: one of
each, none without); ``decode_batch(ids, skip_special_tokens)`` decodes. Not exposed, so
absent: tokens, offsets, masks, type ids and pairs. A failed load raises a bare
``RuntimeError("Failed to load HF tokenizer")``; the reason is only logged (to file
descriptor 2), so the adapter reads that log around each call and makes the refusal's rule
its last line without the source position. A ``RuntimeError`` of encode or decode
(a non-Ok ``Error`` unwrapped) is a refusal too, and so is the ``UnicodeDecodeError`` of a
decode whose bytes are not UTF-8 (the binding converts them to a str); a C++ abort ends
the process.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() not in (HERE, HERE.parent)]
_PACKAGE = Path(str(metadata.distribution("pytorch-tokenizers").locate_file(
    "pytorch_tokenizers")))
_EXTENSION = next(_PACKAGE.glob("pytorch_tokenizers_cpp*.so"))
_SPEC = importlib.util.spec_from_file_location("pytorch_tokenizers_cpp", _EXTENSION)
assert _SPEC is not None and _SPEC.loader is not None
cpp = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(cpp)

sys.path.append(str(HERE.parent))
from pyprogram import RefusalError, serve  # type: ignore[import-not-found]  # noqa: E402

T = TypeVar("T")
#: A log line of the library: ``E tokenizers:hf_tokenizer.cpp:158] message``.
_LOG_LINE = re.compile(r"^[DIWE] tokenizers:[\w.]+:\d+\] ?(.*)$")
#: The rule of a decode whose bytes the binding cannot return as a str.
NOT_UTF8 = "UnicodeDecodeError: the decoded bytes are not UTF-8"


def logged(call: Callable[[], T]) -> tuple[T | None, BaseException | None, list[str]]:
    """Run ``call`` with file descriptor 2 captured: (result, error, the library's log
    messages). The log is passed on to the real standard error afterwards."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        result: T | None = None
        error: BaseException | None = None
        try:
            result = call()
        except Exception as exc:
            error = exc
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        capture.seek(0)
        text = capture.read().decode("utf-8", "replace")
    if text:
        sys.stderr.write(text[-2000:])
        sys.stderr.flush()
    lines = [m.group(1).strip() for m in map(_LOG_LINE.match, text.splitlines()) if m]
    return result, error, lines


def refusal(error: BaseException, log: list[str]) -> RefusalError:
    """The refusal of a failed call: the rule is the library's last log message with any
    path or number in it generalised, the message the error and the whole log."""
    last = log[-1] if log else str(error)
    rule = re.sub(r"/\S+", "<path>", last)
    message = "; ".join([str(error), *log])
    return RefusalError(rule[:200], message)


class Adapter:
    name = "pytorch-tokenizers"
    version = f"pytorch-tokenizers@{metadata.version('pytorch-tokenizers')}"
    capabilities = ("ids", "decode")

    def load(self, document: str) -> Any:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "tokenizer.json"
            path.write_text(document, encoding="utf-8", errors="surrogatepass")
            tokenizer = cpp.HFTokenizer()
            _, error, log = logged(lambda: tokenizer.load(str(path)))
        if error is not None:
            raise refusal(error, log)
        return tokenizer

    def encode(self, tokenizer: Any, text: str, pair: str | None, *,
               add_special_tokens: bool) -> dict[str, Any]:
        count = 1 if add_special_tokens else 0
        ids, error, log = logged(lambda: tokenizer.encode(text, count, count))
        if error is not None:
            if isinstance(error, RuntimeError):
                raise refusal(error, log)
            raise error
        return {"ids": [int(i) for i in ids or ()]}

    def decode(self, tokenizer: Any, ids: list[int], *, skip_special_tokens: bool) -> str:
        text, error, log = logged(lambda: tokenizer.decode_batch(ids, skip_special_tokens))
        if isinstance(error, UnicodeDecodeError):
            # The binding turns the decoded bytes into a str: bytes that are not UTF-8
            # (a byte-level token alone) raise, which is how a caller sees that decode.
            raise RefusalError(NOT_UTF8, str(error))
        if error is not None:
            if isinstance(error, RuntimeError):
                raise refusal(error, log)
            raise error
        return str(text)

    def is_refusal(self, error: BaseException) -> bool:
        return False


if __name__ == "__main__":
    sys.exit(serve(Adapter()))
