"""Two added tokens with ``normalized: true`` whose normalized forms coincide: upstream
refuses the file (its trie of normalized patterns gets one pattern twice:
``DuplicatePatternError``); the reference refuses it too, in both modes, naming the second
entry. Expected outcomes come from tokenizers 0.23.1 run live on the same documents."""

from __future__ import annotations

import json
from typing import Any

import pytest

import implementation as ref
from implementation.errors import LoadError

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream

LLAMA_NORMALIZER: dict[str, Any] = {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "\u2581"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}
EVERY_WORD_IS_X: dict[str, Any] = {"type": "Sequence", "normalizers": [
    {"type": "Replace", "pattern": {"Regex": "\\S+"}, "content": "X"}, LLAMA_NORMALIZER]}


def document(normalizer: Any, added: list[tuple[str, bool]]) -> str:
    return json.dumps({
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 2 + i, "content": content, "single_word": False,
                          "lstrip": False, "rstrip": False, "normalized": normalized,
                          "special": True} for i, (content, normalized) in enumerate(added)],
        "normalizer": normalizer, "pre_tokenizer": None, "post_processor": None,
        "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {"a": 0, "b": 1}, "merges": []}})


def upstream_loads(text: str) -> bool:
    try:
        tokenizers.Tokenizer.from_str(text)
    except Exception as error:
        assert "DuplicatePatternError" in str(error)
        return False
    return True


CASES = [
    (EVERY_WORD_IS_X, [("<unk>", True), ("<s>", True), ("</s>", True)]),
    ({"type": "Lowercase"}, [("AB", True), ("ab", True)]),
    ({"type": "NFKC"}, [("\ufb01", True), ("fi", True)]),
    ({"type": "Lowercase"}, [("AB", True), ("ab", False)]),  # raw and normalized: two tries
    ({"type": "Lowercase"}, [("AB", True), ("AB", True)]),  # one content, one id
    (EVERY_WORD_IS_X, [("<s>", True), ("</s>", False)]),
    (None, [("<s>", True), ("</s>", True)]),
]


@pytest.mark.parametrize(("normalizer", "added"), CASES)
def test_normalized_added_tokens_colliding_are_refused_as_upstream_refuses(
        normalizer: Any, added: list[tuple[str, bool]]) -> None:
    text = document(normalizer, added)
    expected = upstream_loads(text)
    for strict in (True, False):
        if expected:
            ref.load_tokenizer(text, strict=strict)
            continue
        with pytest.raises(LoadError) as info:
            ref.load_tokenizer(text, strict=strict)
        assert info.value.rule == "invalid-value"
        assert info.value.path == f"$.added_tokens[{first_collision(normalizer, added)}].content"


def first_collision(normalizer: Any, added: list[tuple[str, bool]]) -> int:
    """The first entry whose normalized form (upstream's normalizer) another normalized
    entry of another content already has."""
    upstream = tokenizers.Tokenizer.from_str(document(normalizer, [])).normalizer
    seen: dict[str, str] = {}
    for index, (content, normalized) in enumerate(added):
        if not normalized:
            continue
        form = upstream.normalize_str(content) if upstream is not None else content
        if seen.setdefault(form, content) != content:
            return index
    raise AssertionError("no collision")
