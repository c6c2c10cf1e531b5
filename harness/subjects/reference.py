"""The reference subject: ``implementation/`` behind the Outcome interface.

Uses only the reference's public API. Its own refusals (``TokenizerError``) become
``Refused`` with the stable rule id; anything else it raises is a bug of ours and becomes
``Crashed("exception")``, which no divergence class ever excuses. (``Exception``, not
``BaseException``, on purpose: the reference is pure Python and cannot panic; a
KeyboardInterrupt must still stop the run.)
"""

from __future__ import annotations

from collections.abc import Sequence

import implementation as ref

from ..outcome import Crashed, Decoded, Encoded, Refused


def version() -> str:
    return "reference"


def load(document_json: str, *, strict: bool = True) -> ref.Tokenizer | Refused | Crashed:
    try:
        return ref.load_tokenizer(document_json, strict=strict)
    except ref.TokenizerError as exc:
        return Refused(exc.rule, exc.message, exc.path)
    except Exception as exc:
        return Crashed("exception", f"{type(exc).__name__}: {exc}")


def encode(
    handle: ref.Tokenizer,
    text: str,
    *,
    add_special_tokens: bool = True,
    pair: str | None = None,
) -> Encoded | Refused | Crashed:
    try:
        seq = handle.encode_with_spans(text, add_special_tokens, pair=pair)
    except ref.TokenizerError as exc:
        return Refused(exc.rule, exc.message, exc.path)
    except Exception as exc:
        return Crashed("exception", f"{type(exc).__name__}: {exc}")
    return Encoded(
        ids=tuple(seq.input_ids),
        tokens=tuple(seq.token_strings),
        spans=tuple(seq.spans),
        special_mask=seq.special_tokens_mask,
        word_ids=tuple(seq.word_ids),
    )


def decode(
    handle: ref.Tokenizer, ids: Sequence[int], *, skip_special_tokens: bool
) -> Decoded | Refused | Crashed:
    try:
        return Decoded(handle.decode(list(ids), skip_special_tokens=skip_special_tokens))
    except ref.TokenizerError as exc:
        return Refused(exc.rule, exc.message, exc.path)
    except Exception as exc:
        return Crashed("exception", f"{type(exc).__name__}: {exc}")
