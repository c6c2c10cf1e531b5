"""``single_word``'s word characters over every code point, against tokenizers 0.23.1 run
live: an added token ``x`` with ``single_word`` after each character is matched exactly
where upstream does not take the character for a word character."""

from __future__ import annotations

import json
from typing import Any

import pytest

from implementation.added_vocabulary import is_word_char

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream

DOCUMENT: dict[str, Any] = {
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [{"id": 2, "content": "x", "single_word": True, "lstrip": False,
                      "rstrip": False, "normalized": False, "special": False}],
    "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
    "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
              "continuing_subword_prefix": None, "end_of_word_suffix": None,
              "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
              "vocab": {"<unk>": 0, "y": 1}, "merges": []}}


def test_word_characters_are_upstreams_on_every_code_point() -> None:
    tokenizer = tokenizers.Tokenizer.from_str(json.dumps(DOCUMENT))
    scalars = [cp for cp in range(0x110000) if not 0xD800 <= cp < 0xE000]
    encodings = tokenizer.encode_batch([chr(cp) + "x" for cp in scalars])
    upstream = {cp for cp, enc in zip(scalars, encodings, strict=True) if "x" not in enc.tokens}
    ours = {cp for cp in scalars if is_word_char(chr(cp))}
    assert len(upstream) > 100_000  # the letters of every script, and more
    assert sorted(ours ^ upstream)[:20] == []
