"""The upstream subject: HuggingFace ``tokenizers`` (the installed version, 0.x or 1.x)
behind the ``Subject`` protocol (``UPSTREAM``), and the same operations as plain functions.

The API generation (``tokenizers_version.generations``, decision 0035) is told from the
module: under 1.x a document is loaded from a temporary file (no ``from_str``), tokens come
from ``decode_tokens`` and the tiers 1.x does not expose (spans, special mask) are left out
of ``capabilities``, so comparisons skip and count them. ``normalize`` and ``aligned``
need 0.x's components; under 1.x they answer ``Crashed("exception", ...)`` saying so.

A fresh Tokenizer per document (upstream's BPE word cache survives changes
of the model's attributes, so a handle is never reused for another document).  What
comes back:

- a normal upstream error (a plain ``Exception``) is ``Refused``; at load its ``rule``
  is the message without serde's `` at line L column C`` suffix;
- a Rust panic (``pyo3_runtime.PanicException``, a ``BaseException``) is
  ``Crashed("panic", message)``; the Tokenizer stays usable for the next call;
- any other exception is ``Crashed("exception", "Type: message")``;
- ``KeyboardInterrupt``, ``SystemExit`` and ``GeneratorExit`` are re-raised.

Panic noise: ``RUST_BACKTRACE`` is removed from the environment at import, and while a
call runs, file descriptor 2 points at /dev/null so the panic hook's one-line report
does not reach the terminal (the message is kept in ``Crashed``).  Set
``QUIET_PANICS = False`` to see it.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

os.environ.pop("RUST_BACKTRACE", None)

import tokenizers  # after RUST_BACKTRACE is unset

from ..core.outcome import Crashed, Decoded, Encoded, Refused
from .tokenizers_version.generations import Generation, generation_of

#: The API generation of the installed ``tokenizers``.
GENERATION: Final[Generation] = generation_of(tokenizers)

#: Silence the Rust panic hook's stderr line during calls.
QUIET_PANICS: bool = True

_SERDE_POSITION: Final = re.compile(r" at line \d+ column \d+$")
_NEVER_SWALLOWED: Final = (KeyboardInterrupt, SystemExit, GeneratorExit)

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Handle:
    """A loaded upstream tokenizer."""

    tokenizer: Any


def version() -> str:
    """The installed version, as pip spells it (``1.0.0rc3``, not 1.x's ``1.0.0-rc.3``)."""
    return GENERATION.version


def strip_position(message: str) -> str:
    """The message without serde's `` at line L column C`` suffix."""
    return _SERDE_POSITION.sub("", message)


def is_panic(error: BaseException) -> bool:
    """A Rust panic surfaced by pyo3 (``pyo3_runtime.PanicException``)."""
    kind = type(error)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


class _StderrSilencer:
    """fd 2 -> /dev/null while any call runs; reference-counted, so threads may overlap."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._saved = -1

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        if not QUIET_PANICS:
            yield
            return
        with self._lock:
            if self._depth == 0:
                self._saved = os.dup(2)
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 2)
                os.close(devnull)
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    os.dup2(self._saved, 2)
                    os.close(self._saved)


_quiet_stderr = _StderrSilencer()


def guarded(operation: Callable[[], R]) -> R | Refused | Crashed:
    """``operation()``, or what its failure means: a Rust panic (a ``BaseException``) is
    ``Crashed("panic")``, upstream's error a ``Refused``; an interrupt goes through."""
    try:
        with _quiet_stderr():
            return operation()
    except _NEVER_SWALLOWED:
        raise
    except BaseException as error:  # pyo3's PanicException derives from BaseException
        message = str(error)
        if is_panic(error):
            return Crashed("panic", message)
        if GENERATION.is_refusal(error):
            return Refused(rule=strip_position(message), message=message)
        return Crashed("exception", f"{type(error).__name__}: {message}")


def load(document_json: str) -> Handle | Refused | Crashed:
    """``Tokenizer.from_str`` (1.x: ``from_file``): a Handle, or why upstream would not
    build it."""
    result = guarded(lambda: GENERATION.load(document_json))
    if isinstance(result, Refused | Crashed):
        return result
    return Handle(result)


def encode(handle: Handle, text: str, *, add_special_tokens: bool = True,
           pair: str | None = None) -> Encoded | Refused | Crashed:
    """Ids, token strings, character spans (upstream's Python offsets are already char
    offsets) and the special-tokens mask (1.x: spans and mask empty, tokens from
    ``decode_tokens``)."""
    result = guarded(lambda: GENERATION.encode(handle.tokenizer, text, pair,
                                             add_special_tokens=add_special_tokens))
    if isinstance(result, Refused | Crashed):
        return result
    return Encoded(ids=result.ids, tokens=result.tokens, spans=result.spans,
                   special_mask=result.special_mask, type_ids=result.type_ids,
                   attention_mask=result.attention_mask, word_ids=result.word_ids)


def decode(handle: Handle, ids: Sequence[int], *, skip_special_tokens: bool
           ) -> Decoded | Refused | Crashed:
    result = guarded(lambda: GENERATION.decode(handle.tokenizer, ids,
                                             skip_special_tokens=skip_special_tokens))
    if isinstance(result, Refused | Crashed):
        return result
    return Decoded(result)


def _no_components() -> Crashed | None:
    if GENERATION.has_components:
        return None
    return Crashed("exception", f"tokenizers {version()} ({GENERATION.name}) exposes no "
                                "normalizer components")


def normalize(handle: Handle, text: str) -> str | Refused | Crashed:
    """The file's normalizer applied to ``text`` (``text`` itself without one); a panic
    or error is returned, never raised."""
    missing = _no_components()
    if missing is not None:
        return missing
    normalizer = handle.tokenizer.normalizer
    if normalizer is None:
        return text
    result = guarded(lambda: normalizer.normalize_str(text))
    return result if isinstance(result, Refused | Crashed) else str(result)


def aligned(handle: Handle, text: str) -> list[tuple[str, tuple[int, int]]] | Refused | Crashed:
    """The file's normalizer applied to ``text``: each normalized character with the
    original character span upstream aligns it to (``PreTokenizedString.get_splits`` in
    char offsets); every character on its own span without a normalizer."""
    missing = _no_components()
    if missing is not None:
        return missing
    normalizer = handle.tokenizer.normalizer
    if normalizer is None:
        return [(char, (i, i + 1)) for i, char in enumerate(text)]

    def run() -> list[tuple[str, tuple[int, int]]]:
        pieces = tokenizers.PreTokenizedString(text)
        pieces.normalize(normalizer.normalize)
        one_character = tokenizers.Regex(_ONE_CHARACTER)
        pieces.split(lambda _, normalized: normalized.split(one_character, "isolated"))
        return [(str(char), (int(start), int(end))) for char, (start, end), _ in
                pieces.get_splits(offset_referential="original", offset_type="char")]

    return guarded(run)


#: Every character, one match each (Oniguruma's ``.`` leaves out the newline).
_ONE_CHARACTER: Final = r"[\s\S]"


class UpstreamSubject:
    """HuggingFace ``tokenizers`` as a ``Subject``."""

    name: Final = "tokenizers"
    capabilities: Final = GENERATION.tiers

    def version(self) -> str:
        return version()

    def load(self, document: str) -> Handle | Refused | Crashed:
        return load(document)

    def encode(self, handle: Handle, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoded | Refused | Crashed:
        return encode(handle, text, add_special_tokens=add_special_tokens, pair=pair)

    def decode(self, handle: Handle, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Decoded | Refused | Crashed:
        return decode(handle, ids, skip_special_tokens=skip_special_tokens)


UPSTREAM: Final = UpstreamSubject()
