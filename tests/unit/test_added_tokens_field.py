"""``$.added_tokens``: absent means no added tokens; ``null`` is refused, as tokenizers
0.23.1 refuses it ("invalid type: null, expected a sequence"). The reference once read
``null`` as absent and loaded a file upstream refuses (found by the generated run's
``added-tokens-null`` malformation)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import implementation as ref
from implementation.errors import LoadError


def document(**fields: Any) -> dict[str, Any]:
    built: dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None,
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {"a": 0, "b": 1}, "merges": []}}
    built.update(fields)
    return built


@pytest.mark.parametrize("strict", [True, False])
def test_absent_added_tokens_load_as_none(strict: bool) -> None:
    tok = ref.load_tokenizer(json.dumps(document()), strict=strict)
    assert tok.encode("ab") == [0, 1]


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("value", [None, {}, "a"])
def test_added_tokens_that_are_not_an_array_are_refused(strict: bool, value: Any) -> None:
    with pytest.raises(LoadError) as caught:
        ref.load_tokenizer(json.dumps(document(added_tokens=value)), strict=strict)
    assert (caught.value.rule, caught.value.path) == ("invalid-type", "$.added_tokens")
