"""The reference subject: ``implementation/`` behind the ``Subject`` protocol.

Uses only the reference's public API. Its own refusals (``TokenizerError``) become
``Refused`` with the stable rule id; anything else it raises is a bug of ours and becomes
``Crashed("exception")``, which no divergence class ever excuses. (``Exception``, not
``BaseException``, on purpose: the reference is pure Python and cannot panic, and a
KeyboardInterrupt must still stop the run.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, TypeVar

import implementation as ref

from ...core.outcome import Crashed, Decoded, Encoded, Refused
from ..protocol import ALL_CAPABILITIES

R = TypeVar("R")


def guarded(operation: Callable[[], R]) -> R | Refused | Crashed:
    """Run one call of ours: a typed refusal is ``Refused``, anything else ``Crashed``."""
    try:
        return operation()
    except ref.TokenizerError as exc:
        return Refused(exc.rule, exc.message, exc.path)
    except Exception as exc:
        return Crashed("exception", f"{type(exc).__name__}: {str(exc)[:400]}")


def encoded(seq: ref.EncodedSequence) -> Encoded:
    """An ``EncodedSequence`` of ours as the harness' ``Encoded``."""
    return Encoded(
        ids=tuple(seq.input_ids),
        tokens=tuple(seq.token_strings),
        spans=tuple(seq.spans),
        special_mask=tuple(seq.special_tokens_mask),
        word_ids=tuple(seq.word_ids),
        sequence_ids=tuple(seq.sequence_ids),
        type_ids=tuple(seq.type_ids),
        attention_mask=tuple(seq.attention_mask),
        model_word_ids=model_word_ids(seq),
    )


def model_word_ids(seq: ref.EncodedSequence) -> tuple[int | None, ...]:
    """The word of each model token of ``seq``; None for added and synthetic tokens."""
    return tuple(t.metadata.get("word") if t.track == "bpe" else None for t in seq.tokens)


class ReferenceSubject:
    """``implementation/`` in strict mode (the product) or lenient mode."""

    capabilities: Final = ALL_CAPABILITIES

    def __init__(self, *, strict: bool = True) -> None:
        self.strict = strict

    @property
    def name(self) -> str:
        return "reference" if self.strict else "reference-lenient"

    def version(self) -> str:
        return "implementation/"

    def load(self, document: str) -> ref.Tokenizer | Refused | Crashed:
        return guarded(lambda: ref.load_tokenizer(document, strict=self.strict))

    def encode(self, handle: ref.Tokenizer, text: str, pair: str | None = None, *,
               add_special_tokens: bool = True) -> Encoded | Refused | Crashed:
        # With specials the call relies on the API's default, which is upstream's (True).
        result = guarded(lambda: handle.encode_with_spans(text, pair=pair)
                         if add_special_tokens is True
                         else handle.encode_with_spans(text, add_special_tokens, pair=pair))
        return result if isinstance(result, Refused | Crashed) else encoded(result)

    def decode(self, handle: ref.Tokenizer, ids: Sequence[int], *,
               skip_special_tokens: bool) -> Decoded | Refused | Crashed:
        result = guarded(lambda: handle.decode(list(ids),
                                               skip_special_tokens=skip_special_tokens))
        return result if isinstance(result, Refused | Crashed) else Decoded(result)


STRICT: Final = ReferenceSubject(strict=True)
LENIENT: Final = ReferenceSubject(strict=False)


def subject() -> ReferenceSubject:
    """The adapter (``harness.subjects.registry``): our reference, strict, in this process.
    Its expectations are our own registry (``harness/judge/divergences.yaml``)."""
    return STRICT
