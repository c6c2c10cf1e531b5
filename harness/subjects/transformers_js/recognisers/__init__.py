"""The recognisers of transformers.js' expectations (``../expectations.yaml``), by name.

A plugin of the judge: the run hands this mapping to the expectations parser
(``harness.runs.third_party``); nothing in ``harness/judge/`` imports it (decision 0034).
Like the predicates of our own registry, each checks one specific mechanism and says yes
only when the subject's answer is exactly what that mechanism gives. *Subject* is the
implementation under test, *upstream* is ``tokenizers``. The families: ``readings``
(upstream replayed on the document as the subject reads it), ``loads`` (files one side
loads and the other refuses), ``answers`` (decode and unk-token behaviours, and answers
that agree with our reference), over ``javascript`` (JavaScript semantics) and ``replay``.
"""

from __future__ import annotations

from ....judge.predicates import Predicate
from .answers import (
    empty_ids_refused,
    like_reference,
    missing_unk_gives_null_id,
    strip_panic_on_nothing,
    unknown_id_without_unk_breaks_decoder,
)
from .loads import (
    duplicate_normalized_added_tokens_accepted,
    empty_normalized_added_token_accepted,
    merge_result_unchecked,
    oniguruma_refusal_unchecked,
    post_processor_unchecked,
    regex_refused,
    upstream_load_panic,
)
from .readings import READINGS, reads
from .replay import replaying

RECOGNISERS: dict[str, Predicate] = {function.__name__: replaying(function) for function in (
    *(reads(name) for name in READINGS),
    like_reference("unk-byte-fallback-ordering", "unk_byte_fallback_ordering"),
    like_reference("strip-decoder-panic", "strip_decoder_panic"),
    empty_ids_refused,
    strip_panic_on_nothing,
    unknown_id_without_unk_breaks_decoder,
    missing_unk_gives_null_id,
    merge_result_unchecked,
    post_processor_unchecked,
    empty_normalized_added_token_accepted,
    regex_refused,
    oniguruma_refusal_unchecked,
    duplicate_normalized_added_tokens_accepted,
    upstream_load_panic,
)}
