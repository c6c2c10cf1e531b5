"""The recognisers of iree-tokenizer's expectations (``expectations.yaml`` beside this
module).

A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is iree-tokenizer, *upstream*
is ``tokenizers``. A refusal is recognised by its IREE status (program.py) and a document
that really has what it names; an answer by upstream replayed with the mechanism applied
giving exactly the subject's answer, or, where upstream cannot be made to apply it, by the
answer's own structure checked against the document. The refusals are in
``refusals.py``, the decodes in ``decodes.py``, the encodes in ``readings.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from ....judge.compare import Divergence
from ....judge.predicates import Context, Predicate
from ...fastokens.recognisers import (
    decodes_normalized_added_token_as_content,
    token_of_normalized_added_token_is_content,
)
from ...transformers_js.recognisers.replay import replaying
from .decodes import (
    byte_fallback_decoded_lossy,
    byte_level_decoded_per_token,
    byte_tokens_dropped,
    end_dropped_without_byte_fallback,
    strip_per_token,
)
from .merge_order import backtracking_merge_order, non_special_added_token_unmatched
from .readings import (
    byte_level_prefix_space_once,
    cut_before_added_token_character,
    dropout_ignored,
    id_to_token_none_past_count,
    metaspace_first_after_stripped_start,
    prepend_once,
    unk_per_byte,
    unreachable_token_produced,
    with_unnamed_tokens_named,
)
from .refusals import (
    byte_fallback_before_added_token_deadlock,
    byte_token_span_refused,
    component_type_refused,
    continuing_subword_prefix_refused,
    decode_id_beyond_int32_refused,
    dropout_out_of_range_loaded,
    inline_flag_refused,
    long_decode_refused,
    merge_result_missing_loaded,
    no_token_refused,
    passthrough_decode_refused,
    regex_class_escape_refused,
    regex_class_too_wide_refused,
    regex_group_kind_refused,
    split_behavior_object_refused,
    stacked_quantifier_refused,
    strip_decoder_stop_refused,
    unk_token_missing_refused,
    version_header_merge_refused,
)

_ALL: Final[tuple[Callable[[Context, Divergence], frozenset[int]], ...]] = (
    continuing_subword_prefix_refused,
    component_type_refused,
    unk_token_missing_refused,
    version_header_merge_refused,
    byte_token_span_refused,
    passthrough_decode_refused,
    strip_per_token,
    unk_per_byte,
    byte_tokens_dropped,
    unreachable_token_produced,
    prepend_once,
    cut_before_added_token_character,
    token_of_normalized_added_token_is_content,
    decodes_normalized_added_token_as_content,
    decode_id_beyond_int32_refused,
    no_token_refused,
    split_behavior_object_refused,
    stacked_quantifier_refused,
    byte_level_decoded_per_token,
    regex_class_too_wide_refused,
    byte_fallback_decoded_lossy,
    byte_level_prefix_space_once,
    regex_group_kind_refused,
    dropout_out_of_range_loaded,
    strip_decoder_stop_refused,
    merge_result_missing_loaded,
    regex_class_escape_refused,
    inline_flag_refused,
    id_to_token_none_past_count,
    dropout_ignored,
    metaspace_first_after_stripped_start,
    long_decode_refused,
    byte_fallback_before_added_token_deadlock,
    end_dropped_without_byte_fallback,
    backtracking_merge_order,
    non_special_added_token_unmatched,
)
RECOGNISERS: dict[str, Predicate] = {
    function.__name__: replaying(function if function is id_to_token_none_past_count
                                 else with_unnamed_tokens_named(function))
    for function in _ALL}
