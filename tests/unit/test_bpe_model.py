"""Tests of implementation/bpe.py, the BPE model.

Every expected value that reproduces upstream was OBSERVED by running
tokenizers 0.23.1 (Tokenizer.from_str over a model-only tokenizer.json, no
normalizer nor pre-tokenizer, so the whole text is one word; offsets are
Python character offsets). Where this reference deliberately differs, the
comment shows what upstream gives.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from implementation.bpe import BpeModel, BpeToken, byte_piece
from implementation.bpe_loader import load_bpe_model
from implementation.errors import EncodeError, LoadError
from implementation.jsonfields import Node

Tok = tuple[str, int, int]
ALL_BYTES = [byte_piece(b) for b in range(256)]


def vocab(*tokens: str) -> dict[str, int]:
    return {t: i for i, t in enumerate(tokens)}


def with_bytes(*tokens: str, pieces: list[str] | None = None) -> dict[str, int]:
    v = vocab(*tokens)
    for piece in ALL_BYTES if pieces is None else pieces:
        v[piece] = len(v)
    return v


def load(model: dict[str, Any], *, strict: bool = True) -> BpeModel:
    return load_bpe_model(Node(model, "$.model"), strict=strict)


def build(v: dict[str, int], merges: list[Any], *, strict: bool = True, **opts: Any) -> BpeModel:
    return load({"type": "BPE", "vocab": v, "merges": merges, **opts}, strict=strict)


def toks(model: BpeModel, word: str) -> list[Tok]:
    return [(t.value, t.start, t.end) for t in model.tokenize(word)]


def refusal(model: dict[str, Any], *, strict: bool = True) -> LoadError:
    with pytest.raises(LoadError) as info:
        load(model, strict=strict)
    return info.value


# --------------------------------------------------------------------------------------
# The decision's six measured facts (decision-byte-fallback.md)
# --------------------------------------------------------------------------------------
FULL = with_bytes("<unk>", "a", "b", "c", "ab")
BF: dict[str, Any] = {"unk_token": "<unk>", "byte_fallback": True}


def test_fact1_symbol_is_a_code_point_expanded_per_utf8_byte() -> None:
    m = build(FULL, [["a", "b"]], **BF)
    assert toks(m, "é") == [("<0xC3>", 0, 1), ("<0xA9>", 0, 1)]
    assert [t for t, _, _ in toks(m, "日")] == ["<0xE6>", "<0x97>", "<0xA5>"]
    assert [t for t, _, _ in toks(m, "😀")] == ["<0xF0>", "<0x9F>", "<0x98>", "<0x80>"]
    assert toks(m, "\x07") == [("<0x07>", 0, 1)]
    # upstream: a(0,1) <0xC3>(1,2) <0xA9>(1,2) <0xE2>(2,3)x3 <0xF0>(3,4)x4
    assert toks(m, "aé€😀") == [
        ("a", 0, 1),
        ("<0xC3>", 1, 2),
        ("<0xA9>", 1, 2),
        ("<0xE2>", 2, 3),
        ("<0x82>", 2, 3),
        ("<0xAC>", 2, 3),
        ("<0xF0>", 3, 4),
        ("<0x9F>", 3, 4),
        ("<0x98>", 3, 4),
        ("<0x80>", 3, 4),
    ]
    assert toks(m, "ab") == [("ab", 0, 2)]  # a symbol present is never expanded


def test_fact2_all_or_nothing_per_symbol() -> None:
    m = build(with_bytes("<unk>", "a", pieces=["<0xC3>"]), [], strict=False, **BF)
    assert toks(m, "é") == [("<unk>", 0, 1)]  # upstream: ['<unk>'] (0,1)


def test_fact3_uppercase_spelling_only() -> None:
    v = with_bytes("<unk>", "a", pieces=["<0xc3>", "<0xA9>"])
    m = build(v, [], strict=False, **BF)
    assert toks(m, "é") == [("<unk>", 0, 1)]  # upstream: ['<unk>'] (0,1)


def test_fact4_byte_pieces_are_ordinary_symbols_for_merges() -> None:
    v = with_bytes("<unk>", "a", "b", "c", "ab", "<0xC3><0xA9>")
    m = build(v, [["a", "b"], ["<0xC3>", "<0xA9>"]], **BF)
    assert toks(m, "é") == [("<0xC3><0xA9>", 0, 1)]
    assert toks(m, "aéb") == [("a", 0, 1), ("<0xC3><0xA9>", 1, 2), ("b", 2, 3)]


def test_fact5_decorated_symbol_is_expanded_with_prefix() -> None:
    m = build(FULL, [], continuing_subword_prefix="##", **BF)
    # upstream: a(0,1) <0x23>(1,2) <0x23>(2,3) <0x62>(3,4) -- runs past the 2-char word
    assert toks(m, "ab") == [("a", 0, 1), ("<0x23>", 1, 2), ("<0x23>", 1, 2), ("<0x62>", 1, 2)]
    # upstream: a(0,1) <0x23>(1,2) <0x23>(1,2) <0xC3>(3,4) <0xA9>(4,5)
    assert toks(m, "aé") == [
        ("a", 0, 1),
        ("<0x23>", 1, 2),
        ("<0x23>", 1, 2),
        ("<0xC3>", 1, 2),
        ("<0xA9>", 1, 2),
    ]


def test_fact5_decorated_symbol_is_expanded_with_suffix() -> None:
    m = build(FULL, [], end_of_word_suffix="</w>", **BF)
    # upstream: same pieces at (0,1) (1,2) (2,3) (3,4) (4,5)
    assert toks(m, "b") == [(p, 0, 1) for p in ["<0x62>", "<0x3C>", "<0x2F>", "<0x77>", "<0x3E>"]]
    # upstream: a(0,1) <0xC3>(1,2) <0xA9>(1,2) <0x3C>(3,4) <0x2F>(4,5) <0x77>(5,6) <0x3E>(6,7)
    assert toks(m, "aé") == [("a", 0, 1)] + [
        (p, 1, 2) for p in ["<0xC3>", "<0xA9>", "<0x3C>", "<0x2F>", "<0x77>", "<0x3E>"]
    ]


def test_prefix_cut_applies_to_byte_piece_merges() -> None:
    # With a prefix, upstream cuts its byte length off EVERY merge's right part, byte
    # pieces included: <0x23> + <0x23> yields '<0x23>x23>'.
    v = with_bytes("<unk>", "a", "b", "c", "<0x23>x23>")
    m = build(v, [["<0x23>", "<0x23>"]], continuing_subword_prefix="##", **BF)
    # upstream: a(0,1) '<0x23>x23>'(1,2) <0xC3>(2,3) <0xA9>(4,5) '<0x23>x23>'(5,7) <0x63>(7,8)
    assert toks(m, "aéc") == [
        ("a", 0, 1),
        ("<0x23>x23>", 1, 2),
        ("<0xC3>", 1, 2),
        ("<0xA9>", 1, 2),
        ("<0x23>x23>", 2, 3),
        ("<0x63>", 2, 3),
    ]


def test_fact6_fuse_unk_never_fuses_byte_resolved_symbols() -> None:
    v = with_bytes("<unk>", "a", "b", "c", "ab", pieces=["<0x58>"])
    m = build(v, [["a", "b"]], strict=False, fuse_unk=True, **BF)
    assert toks(m, "aXXb") == [("a", 0, 1), ("<0x58>", 1, 2), ("<0x58>", 2, 3), ("b", 3, 4)]
    assert toks(m, "aYYb") == [("a", 0, 1), ("<unk>", 1, 3), ("b", 3, 4)]


def test_degradation_without_unk_drops_the_symbol_and_neighbours_merge() -> None:
    m = build(vocab("a", "b", "c", "ab"), [["a", "b"]], strict=False, byte_fallback=True)
    assert toks(m, "aXb") == [("ab", 0, 3)]  # upstream: ab(0,2)


# --------------------------------------------------------------------------------------
# Unk / byte-fallback ordering: upstream's bug is NOT reproduced
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("word", "fuse", "expected"),
    [
        # upstream: <0x58>(0,1) <unk>(1,2)
        ("XY", False, [("<0x58>", 0, 1), ("<unk>", 1, 2)]),
        # upstream: <0x58>(0,1) <unk>(1,2) -- same stream as XY, <0x58> attributed to the Y
        ("YX", False, [("<unk>", 0, 1), ("<0x58>", 1, 2)]),
        ("YX", True, [("<unk>", 0, 1), ("<0x58>", 1, 2)]),
        # upstream: <unk>(0,1) <0x58>(1,2) <unk>(2,3)
        ("YYX", False, [("<unk>", 0, 1), ("<unk>", 1, 2), ("<0x58>", 2, 3)]),
        # upstream: <0x58>(0,1) <unk>(1,3)
        ("YYX", True, [("<unk>", 0, 2), ("<0x58>", 2, 3)]),
        # upstream: <0x58>(0,1) <unk>(1,3) -- the two Y unks fuse across the byte piece
        ("YXY", True, [("<unk>", 0, 1), ("<0x58>", 1, 2), ("<unk>", 2, 3)]),
        # upstream: <0x58>(0,1) <unk>(0,2)
        ("éX", False, [("<unk>", 0, 1), ("<0x58>", 1, 2)]),
    ],
)
def test_pending_unk_is_flushed_before_byte_pieces(
    word: str, fuse: bool, expected: list[Tok]
) -> None:
    m = build(vocab("<unk>", "<0x58>"), [], strict=False, fuse_unk=fuse, **BF)
    assert toks(m, word) == expected


# --------------------------------------------------------------------------------------
# Merging
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("merges", "word", "expected"),
    [
        ([["a", "a"]], "aaaa", [("aa", 0, 2), ("aa", 2, 4)]),
        ([["a", "a"]], "aaaaa", [("aa", 0, 2), ("aa", 2, 4), ("a", 4, 5)]),
        ([["aa", "a"], ["a", "a"]], "aaaa", [("aaa", 0, 3), ("a", 3, 4)]),
        ([["aa", "a"], ["a", "a"]], "aaaaa", [("aaa", 0, 3), ("aa", 3, 5)]),
        ([["a", "a"], ["aa", "a"], ["aa", "aa"]], "aaa", [("aaa", 0, 3)]),
        ([["a", "a"], ["aa", "a"], ["aa", "aa"]], "aaaa", [("aaaa", 0, 4)]),
        ([["a", "a"], ["aa", "a"], ["aa", "aa"]], "aaaaa", [("aa", 0, 2), ("aaa", 2, 5)]),
    ],
)
def test_merge_ties_and_overlaps(merges: list[list[str]], word: str, expected: list[Tok]) -> None:
    m = build(vocab("a", "aa", "aaa", "aaaa"), merges)
    assert toks(m, word) == expected


def test_stale_entry_check_compares_new_id_only() -> None:
    merges = [["b", "c"], ["a", "bc"], ["ab", "c"], ["a", "b"]]
    m = build(vocab("a", "b", "c", "ab", "bc", "abc"), merges)
    assert toks(m, "abc") == [("abc", 0, 3)]  # upstream: abc(0,3)


def test_duplicate_merge_keeps_last_rank() -> None:
    v = vocab("a", "b", "c", "ab", "bc")
    assert toks(build(v, ["a b", "b c", "a b"]), "abc") == [("a", 0, 1), ("bc", 1, 3)]
    assert toks(build(v, ["a b", "b c"]), "abc") == [("ab", 0, 2), ("c", 2, 3)]


def test_legacy_merges_drop_version_lines_before_ranking() -> None:
    v = vocab("a", "b", "c", "ab", "bc")
    m = build(v, ["#version: 0.2", "b c", "#version x", "a b"])
    assert toks(m, "abc") == [("a", 0, 1), ("bc", 1, 3)]
    # '#versionx a b' starts with '#version': dropped, so nothing merges.
    assert toks(build(v, ["#versionx a b"]), "abc") == [("a", 0, 1), ("b", 1, 2), ("c", 2, 3)]
    # A legacy string may not contain a space inside a part, but pair form may.
    spaced = build(vocab("a", "b c", "ab c"), [["a", "b c"]])
    assert spaced.token_to_id("ab c") == 2


def test_prefix_and_suffix_decoration() -> None:
    v = vocab("<unk>", "a", "##b", "##c", "##c</w>", "a</w>", "ab", "abc</w>", "b", "b</w>")
    opts: dict[str, Any] = {
        "continuing_subword_prefix": "##",
        "end_of_word_suffix": "</w>",
        "unk_token": "<unk>",
    }
    m = build(v, [["a", "##b"], ["ab", "##c</w>"]], **opts)
    assert toks(m, "abc") == [("abc</w>", 0, 3)]
    assert toks(m, "a") == [("a</w>", 0, 1)]  # a 1-char word: suffix only, no prefix
    assert toks(m, "abb") == [("ab", 0, 2), ("<unk>", 2, 3)]  # '##b</w>' is not in vocab
    assert toks(m, "ba") == [("b", 0, 1), ("<unk>", 1, 2)]  # '##a</w>' is not in vocab
    assert toks(m, "bc") == [("b", 0, 1), ("##c</w>", 1, 2)]


def test_prefix_is_cut_from_right_part_whether_or_not_it_is_there() -> None:
    m = build(vocab("a", "bcd", "ad"), [["a", "bcd"]], continuing_subword_prefix="##")
    assert m.vocab_size() == 3  # upstream loads: the merge's result is 'ad'


# --------------------------------------------------------------------------------------
# Unknown tokens
# --------------------------------------------------------------------------------------
def test_fuse_unk_off_and_on() -> None:
    v = vocab("<unk>", "a", "b")
    off = build(v, [], unk_token="<unk>")
    on = build(v, [], unk_token="<unk>", fuse_unk=True)
    assert toks(off, "accb") == [("a", 0, 1), ("<unk>", 1, 2), ("<unk>", 2, 3), ("b", 3, 4)]
    assert toks(on, "accb") == [("a", 0, 1), ("<unk>", 1, 3), ("b", 3, 4)]
    assert toks(on, "cécaé😀b") == [("<unk>", 0, 3), ("a", 3, 4), ("<unk>", 4, 6), ("b", 6, 7)]
    assert toks(off, "cé😀b") == [("<unk>", 0, 1), ("<unk>", 1, 2), ("<unk>", 2, 3), ("b", 3, 4)]


def test_lenient_unk_not_in_vocab_fails_at_encode_only_when_needed() -> None:
    m = build(vocab("a", "b"), [], strict=False, unk_token="<unk>", fuse_unk=True)
    assert toks(m, "ab") == [("a", 0, 1), ("b", 1, 2)]
    with pytest.raises(EncodeError) as info:
        m.tokenize("aXXb")  # upstream: Exception('Unk token `<unk>` not found in the vocabulary')
    assert info.value.rule == "unk-token-missing-at-encode"
    assert info.value.path == "$.model.unk_token"


def test_lenient_dropped_characters_keep_their_coordinates() -> None:
    m = build(vocab("a", "b", "ab"), [["a", "b"]], strict=False)
    assert toks(m, "acb") == [("ab", 0, 3)]  # upstream: ab(0,2)
    assert toks(m, "cab") == [("ab", 1, 3)]  # upstream: ab(0,2)
    assert toks(m, "c") == []  # upstream: []
    assert toks(m, "acccb") == [("ab", 0, 5)]  # upstream: ab(0,2)
    assert toks(m, "abcab") == [("ab", 0, 2), ("ab", 3, 5)]  # upstream: ab(0,2) ab(2,4)


def test_strict_refuses_to_drop_a_character() -> None:
    m = build(vocab("a", "b", "ab"), [["a", "b"]])
    assert toks(m, "ab") == [("ab", 0, 2)]
    with pytest.raises(EncodeError) as info:
        m.tokenize("acb")
    assert info.value.rule == "character-dropped"
    assert info.value.path == "$.model.unk_token"
    assert "'c'" in info.value.message


# --------------------------------------------------------------------------------------
# ignore_merges, dropout, cache, lookups
# --------------------------------------------------------------------------------------
IM_VOCAB = vocab("a", "b", "c", "ab", "abc", "ab</w>", "c</w>", "b</w>")


def test_ignore_merges_uses_the_raw_word() -> None:
    assert toks(build(IM_VOCAB, [["a", "b"]], ignore_merges=True), "abc") == [("abc", 0, 3)]
    assert toks(build(IM_VOCAB, [["a", "b"]]), "abc") == [("ab", 0, 2), ("c", 2, 3)]
    suffixed: dict[str, Any] = {"end_of_word_suffix": "</w>"}
    m = build(IM_VOCAB, [["a", "b</w>"]], ignore_merges=True, **suffixed)
    assert toks(m, "ab") == [("ab", 0, 2)]  # raw 'ab', although 'ab</w>' exists
    assert toks(build(IM_VOCAB, [["a", "b</w>"]], **suffixed), "ab") == [("ab</w>", 0, 2)]


def test_dropout_one_means_no_merges_and_no_ignore_merges() -> None:
    m = build(IM_VOCAB, [["a", "b"]], ignore_merges=True, dropout=1.0)
    assert m.dropout == 1.0
    assert toks(m, "abc") == [("a", 0, 1), ("b", 1, 2), ("c", 2, 3)]
    m = build(IM_VOCAB, [["a", "b"]], dropout=1)
    assert toks(m, "abab") == [("a", 0, 1), ("b", 1, 2), ("a", 2, 3), ("b", 3, 4)]


@pytest.mark.parametrize(
    ("dropout", "expected"),
    [
        (None, None),
        (0.0, None),
        (0, None),
        (-0.0, None),
        (1e-50, None),  # rounds to 0.0 as an f32: upstream merges normally
        (-1e-50, None),  # rounds to -0.0: accepted, off
        (0.99999999, 1.0),  # rounds to 1.0 as an f32: upstream never merges
        (1.00000001, 1.0),  # idem; 1.0000001 is out of range
    ],
)
def test_dropout_values_read_as_f32(dropout: float | None, expected: float | None) -> None:
    m = build(vocab("a", "b", "ab"), [["a", "b"]], dropout=dropout)
    assert m.dropout == expected
    assert len(toks(m, "ab")) == (1 if expected is None else 2)


def test_cache_returns_equal_fresh_lists_and_skips_long_words() -> None:
    m = build(vocab("a", "b", "ab"), [["a", "b"]])
    first = m.tokenize("abab")
    first.append(BpeToken(0, "a", 9, 9))
    assert m.tokenize("abab") == [BpeToken(2, "ab", 0, 2), BpeToken(2, "ab", 2, 4)]
    m.tokenize("ab" * 128)  # 256 bytes: not cached (upstream caches < 256 bytes)
    assert "ab" * 128 not in m._cache
    assert "abab" in m._cache


def test_lookups_and_holes() -> None:
    m = build({"a": 5, "b": 9, "ab": 100}, [["a", "b"]])
    assert m.token_to_id("ab") == 100
    assert m.token_to_id("zz") is None
    assert m.id_to_token(9) == "b"
    assert m.id_to_token(6) is None
    assert m.vocab_size() == 3
    assert dict(m.vocab) == {"a": 5, "b": 9, "ab": 100}
    assert toks(m, "ab") == [("ab", 0, 2)]
    assert m.tokenize("") == []


def test_loader_accepts_nulls_and_unknown_keys() -> None:
    m = load(
        {
            "vocab": vocab("a", "b", "ab"),
            "merges": [["a", "b"]],
            "type": None,
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": None,
            "byte_fallback": None,
            "ignore_merges": None,
            "something_else": [1, 2],
        }
    )
    assert (m.unk_token, m.fuse_unk, m.byte_fallback, m.ignore_merges) == (
        None,
        False,
        False,
        False,
    )
    assert (m.continuing_subword_prefix, m.end_of_word_suffix, m.dropout) == (None, None, None)


# --------------------------------------------------------------------------------------
# Refusals
# --------------------------------------------------------------------------------------
V3 = vocab("a", "b", "ab")


@pytest.mark.parametrize(
    ("model", "rule", "path"),
    [
        ({"type": "WordPiece", "vocab": V3, "merges": []}, "unsupported-component", "$.model.type"),
        ({"type": 3, "vocab": V3, "merges": []}, "invalid-type", "$.model.type"),
        ({"merges": []}, "missing-field", "$.model.vocab"),
        ({"vocab": V3}, "missing-field", "$.model.merges"),
        ({"vocab": V3, "merges": None}, "missing-field", "$.model.merges"),
        ({"vocab": ["a"], "merges": []}, "invalid-type", "$.model.vocab"),
        ({"vocab": {"a": -1}, "merges": []}, "invalid-value", "$.model.vocab.a"),
        ({"vocab": {"a": 1.0}, "merges": []}, "invalid-type", "$.model.vocab.a"),
        ({"vocab": {"<s>": 2**32}, "merges": []}, "invalid-value", "$.model.vocab['<s>']"),
        ({"vocab": {"a": 0, "b": 0}, "merges": []}, "duplicate-id", "$.model.vocab.b"),
        ({"vocab": V3, "merges": "a b"}, "invalid-type", "$.model.merges"),
        ({"vocab": V3, "merges": ["a b", ["b", "c"]]}, "merge-malformed", "$.model.merges[1]"),
        ({"vocab": V3, "merges": [["a", "b"], "a b"]}, "merge-malformed", "$.model.merges[1]"),
        ({"vocab": V3, "merges": [["a", "b", "c"]]}, "merge-malformed", "$.model.merges[0]"),
        ({"vocab": V3, "merges": [["a"]]}, "merge-malformed", "$.model.merges[0]"),
        ({"vocab": V3, "merges": [None]}, "merge-malformed", "$.model.merges[0]"),
        ({"vocab": V3, "merges": [["a", 1]]}, "merge-malformed", "$.model.merges[0]"),
        ({"vocab": V3, "merges": [{"0": "a", "1": "b"}]}, "merge-malformed", "$.model.merges[0]"),
        ({"vocab": V3, "merges": ["a  b"]}, "merge-malformed", "$.model.merges[0]"),
        ({"vocab": V3, "merges": [""]}, "merge-malformed", "$.model.merges[0]"),
        ({"vocab": V3, "merges": ["#version: 0.2", "ab"]}, "merge-malformed", "$.model.merges[1]"),
        (
            {"vocab": V3, "merges": [["a", "b"], ["q", "a"], ["a", "q"]]},
            "merge-out-of-vocabulary",
            "$.model.merges[1]",
        ),
        ({"vocab": V3, "merges": [["a", "q"]]}, "merge-out-of-vocabulary", "$.model.merges[0]"),
        # result 'ab' not in vocab: upstream Token `ab` out of vocabulary
        (
            {"vocab": vocab("a", "b", "xyz"), "merges": [["a", "b"]]},
            "merge-out-of-vocabulary",
            "$.model.merges[0]",
        ),
        # result longer than every vocab entry: upstream 0.23.1 PANICS (range end index 2 ...)
        (
            {"vocab": vocab("a", "b"), "merges": [["a", "b"]]},
            "merge-out-of-vocabulary",
            "$.model.merges[0]",
        ),
        # prefix cut off 'bcd' whatever it starts with: 'ad' is missing (upstream: Token `ad`...)
        (
            {
                "vocab": vocab("a", "bcd"),
                "merges": [["a", "bcd"]],
                "continuing_subword_prefix": "##",
            },
            "merge-out-of-vocabulary",
            "$.model.merges[0]",
        ),
        # 'b' is 1 byte < 2: upstream PANICS (slice index starts at 1 but ends at 0)
        (
            {"vocab": V3, "merges": [["a", "b"]], "continuing_subword_prefix": "##"},
            "merge-prefix-underflow",
            "$.model.merges[0]",
        ),
        # cutting 1 byte off 'é' splits it: upstream builds invalid UTF-8 (the process aborted)
        (
            {"vocab": vocab("a", "é"), "merges": [["a", "é"]], "continuing_subword_prefix": "#"},
            "merge-prefix-splits-character",
            "$.model.merges[0]",
        ),
        ({"vocab": V3, "merges": [], "dropout": 1.5}, "dropout-out-of-range", "$.model.dropout"),
        ({"vocab": V3, "merges": [], "dropout": -0.1}, "dropout-out-of-range", "$.model.dropout"),
        ({"vocab": V3, "merges": [], "dropout": 1e300}, "dropout-out-of-range", "$.model.dropout"),
        (
            {"vocab": V3, "merges": [], "dropout": 1.0000001},
            "dropout-out-of-range",
            "$.model.dropout",
        ),
        ({"vocab": V3, "merges": [], "dropout": True}, "invalid-type", "$.model.dropout"),
        ({"vocab": V3, "merges": [], "dropout": "0.5"}, "invalid-type", "$.model.dropout"),
        (
            {"vocab": V3, "merges": [], "dropout": 0.5},
            "dropout-nondeterministic",
            "$.model.dropout",
        ),
        (
            {"vocab": V3, "merges": [], "dropout": 1e-40},
            "dropout-nondeterministic",
            "$.model.dropout",
        ),
        ({"vocab": V3, "merges": [], "unk_token": 5}, "invalid-type", "$.model.unk_token"),
        ({"vocab": V3, "merges": [], "fuse_unk": 1}, "invalid-type", "$.model.fuse_unk"),
        (
            {"vocab": V3, "merges": [], "continuing_subword_prefix": ["#"]},
            "invalid-type",
            "$.model.continuing_subword_prefix",
        ),
    ],
)
@pytest.mark.parametrize("strict", [True, False])
def test_refusals_in_both_modes(model: dict[str, Any], rule: str, path: str, strict: bool) -> None:
    error = refusal(model, strict=strict)
    assert (error.rule, error.path) == (rule, path)


def test_strict_refusals_accepted_by_lenient_mode() -> None:
    cases: list[tuple[dict[str, Any], str, str]] = [
        (
            {"vocab": V3, "merges": [], "unk_token": "<unk>"},
            "unk-token-not-in-vocabulary",
            "$.model.unk_token",
        ),
        (
            {"vocab": with_bytes("a", pieces=[*ALL_BYTES, "<0xc3>"]), "byte_fallback": True},
            "byte-piece-lowercase",
            "$.model.vocab['<0xc3>']",
        ),
        (
            {"vocab": with_bytes("a", pieces=[*ALL_BYTES, "<0xAb>"]), "byte_fallback": True},
            "byte-piece-lowercase",
            "$.model.vocab['<0xAb>']",
        ),
        # lower case is checked before completeness
        (
            {"vocab": with_bytes("a", pieces=[*ALL_BYTES[1:], "<0xc3>"]), "byte_fallback": True},
            "byte-piece-lowercase",
            "$.model.vocab['<0xc3>']",
        ),
        (
            {"vocab": with_bytes("a", pieces=ALL_BYTES[1:]), "byte_fallback": True},
            "byte-alphabet-incomplete",
            "$.model.vocab",
        ),
        (
            {"vocab": with_bytes("a", pieces=ALL_BYTES[:-1]), "byte_fallback": True},
            "byte-alphabet-incomplete",
            "$.model.vocab",
        ),
        ({"vocab": vocab("a"), "byte_fallback": True}, "byte-alphabet-incomplete", "$.model.vocab"),
    ]
    for fields, rule, path in cases:
        model = {"merges": [], **fields}
        error = refusal(model, strict=True)
        assert (error.rule, error.path) == (rule, path), model
        load(model, strict=False)  # upstream accepts every one of these


def test_incomplete_alphabet_names_first_missing_piece_in_byte_order() -> None:
    pieces = [p for p in ALL_BYTES if p not in ("<0x10>", "<0x05>", "<0xFF>")]
    error = refusal({"vocab": with_bytes("a", pieces=pieces), "merges": [], "byte_fallback": True})
    assert error.rule == "byte-alphabet-incomplete"
    assert "'<0x05>'" in error.message
    assert "<0x10>" not in error.message
    last = refusal(
        {"vocab": with_bytes(pieces=ALL_BYTES[:-1]), "merges": [], "byte_fallback": True}
    )
    assert "'<0xFF>'" in last.message


def test_lowercase_pieces_without_byte_fallback_are_ordinary_tokens() -> None:
    m = build(vocab("<0xc3>", "a"), [])
    assert m.token_to_id("<0xc3>") == 0


# --------------------------------------------------------------------------------------
# Scale
# --------------------------------------------------------------------------------------
def doubling_model() -> BpeModel:
    tokens = ["a"]
    merges = []
    for _ in range(17):
        merges.append([tokens[-1], tokens[-1]])
        tokens.append(tokens[-1] * 2)
    return build(vocab(*tokens), merges)


def test_100k_character_word_is_fast() -> None:
    m = doubling_model()
    for n, lengths in [
        (100_000, [65536, 32768, 1024, 512, 128, 32]),  # upstream: the same lengths
        (99_999, [65536, 32768, 1024, 512, 128, 16, 8, 4, 2, 1]),  # upstream: idem
    ]:
        began = time.perf_counter()
        result = m.tokenize("a" * n)
        elapsed = time.perf_counter() - began
        assert [t.end - t.start for t in result] == lengths
        assert [len(t.value) for t in result] == lengths
        assert elapsed < 3.0, elapsed


def test_100k_character_word_of_unknowns_and_byte_pieces_is_fast() -> None:
    v = with_bytes("<unk>", "a", "b", "ab", "<0xC3><0xA9>")
    m = build(v, [["a", "b"], ["<0xC3>", "<0xA9>"]], **BF)
    began = time.perf_counter()
    result = m.tokenize("abé日" * 25_000)
    assert time.perf_counter() - began < 3.0
    # per repeat: 'ab', '<0xC3><0xA9>', and the three byte pieces of 日
    assert [t.value for t in result[:5]] == ["ab", "<0xC3><0xA9>", "<0xE6>", "<0x97>", "<0xA5>"]
    assert len(result) == 5 * 25_000
    assert (result[-1].start, result[-1].end) == (99_999, 100_000)


# --------------------------------------------------------------------------------------
# Differential test against upstream (no prefix/suffix)
# --------------------------------------------------------------------------------------
ALPHABET = ["a", "b", "c", "é", "日", "X"]


@st.composite
def configurations(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    chars = draw(st.lists(st.sampled_from(ALPHABET), unique=True, min_size=1))
    byte_fallback = draw(st.booleans())
    unk = draw(st.sampled_from([None, "<unk>"]))
    pieces: list[str] = []
    if byte_fallback:
        covered = draw(st.lists(st.sampled_from(ALPHABET), unique=True))
        if unk is not None:  # stay out of upstream's unk/byte ordering bug: all or none
            covered = ALPHABET if covered else []
        pieces = sorted({byte_piece(b) for ch in covered for b in ch.encode()})
    tokens = [*chars, *pieces] + ([unk] if unk else [])
    merges: list[list[str]] = []
    for _ in range(draw(st.integers(0, 20))):
        pool = chars * 3 + tokens  # favour the word's own characters and what they build
        left = draw(st.sampled_from(pool))
        right = draw(st.sampled_from(pool))
        if left + right not in tokens:
            tokens.append(left + right)
        merges.append([left, right])
    duplicate = draw(st.booleans())
    if merges and duplicate:
        merges.append(draw(st.sampled_from(merges)))  # duplicate: last rank wins
    order = draw(st.permutations(range(len(tokens))))
    step = draw(st.integers(1, 3))
    model = {
        "type": "BPE",
        "vocab": {t: order[i] * step for i, t in enumerate(tokens)},
        "merges": draw(st.permutations(merges)),
        "unk_token": unk,
        "fuse_unk": draw(st.booleans()),
        "byte_fallback": byte_fallback,
        "ignore_merges": draw(st.booleans()),
        "dropout": draw(st.sampled_from([None, 0.0, 1.0])),
    }
    # Mostly characters the vocabulary knows, so that merges fire often.
    length = draw(st.integers(1, 20))
    letters = st.sampled_from(chars * 4 + ALPHABET)
    word = "".join(draw(st.lists(letters, min_size=length, max_size=length)))
    return model, word


def upstream_encode(model: dict[str, Any], word: str) -> tuple[list[int], list[tuple[int, int]]]:
    tokenizers = pytest.importorskip("tokenizers")
    document: dict[str, Any] = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": None,
        "post_processor": None,
        "decoder": None,
        "model": model,
    }
    encoding = tokenizers.Tokenizer.from_str(json.dumps(document)).encode(word)
    return list(encoding.ids), list(encoding.offsets)


@pytest.mark.upstream
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configurations())
def test_differential_against_upstream(case: tuple[dict[str, Any], str]) -> None:
    pytest.importorskip("tokenizers")
    model, word = case
    ours = load(model, strict=False)
    upstream_ids, upstream_offsets = upstream_encode(model, word)
    tokens = ours.tokenize(word)
    assert [t.id for t in tokens] == upstream_ids
    dropped = ours.unk_token is None and not all(_covered(ours, ch) for ch in word)
    if not dropped:  # upstream shifts spans after a dropped character; ids still compared
        assert [(t.start, t.end) for t in tokens] == upstream_offsets


def _covered(model: BpeModel, ch: str) -> bool:
    if ch in model.vocab:
        return True
    return model.byte_fallback and all(byte_piece(b) in model.vocab for b in ch.encode())


# --------------------------------------------------------------------------------------
# Long words: merged piece by piece where no merge can cross, tokens as columns
# --------------------------------------------------------------------------------------
@st.composite
def long_words(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """A configuration and a word too long for the cache (so ``long_word_columns``
    handles it), mostly made of the vocabulary's characters."""
    model, word = draw(configurations())
    chars = [c for c in ALPHABET if c in model["vocab"]] or ALPHABET
    letters = st.sampled_from(chars * 4 + ALPHABET)
    length = draw(st.integers(260, 400))
    return model, word + "".join(draw(st.lists(letters, min_size=length, max_size=length)))


def _columns(tokens: list[BpeToken]) -> tuple[list[int], list[str], list[int], list[int]]:
    return ([t.id for t in tokens], [t.value for t in tokens], [t.start for t in tokens],
            [t.end for t in tokens])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_words())
def test_merging_piece_by_piece_is_merging_the_whole_word(case: tuple[dict[str, Any], str]
                                                          ) -> None:
    from implementation.bpe import _merge_all

    model, word = case
    ours = load(model, strict=False)
    columns = ours.long_word_columns(word)
    if ours.dropout is not None or (ours.ignore_merges and word in ours.vocab):
        assert columns is None
        return
    assert columns == _columns(ours._merged_tokens(word))
    # The pieces themselves, whether or not the merges are dense enough to use them.
    ids, _, ends = ours._word_symbols(word)
    cuts = ours._cuts(ids)
    whole_ids, whole_ends = list(ids), list(ends)
    alive = _merge_all(whole_ids, whole_ends, ours._merges)
    survivors, merged = ours._merge_pieces(list(ids), cuts)
    assert survivors == alive
    assert merged == [whole_ids[i] for i in alive]


@pytest.mark.upstream
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_words())
def test_long_word_differential_against_upstream(case: tuple[dict[str, Any], str]) -> None:
    pytest.importorskip("tokenizers")
    model, word = case
    ours = load(model, strict=False)
    upstream_ids, upstream_offsets = upstream_encode(model, word)
    columns = ours.long_word_columns(word)
    tokens = ours.tokenize(word)
    assert [t.id for t in tokens] == upstream_ids
    if columns is not None:
        assert columns == _columns(tokens)
    dropped = ours.unk_token is None and not all(_covered(ours, ch) for ch in word)
    if not dropped:
        assert [(t.start, t.end) for t in tokens] == upstream_offsets


def test_a_long_word_is_cut_only_where_no_merge_result_joins_the_characters() -> None:
    v = vocab("a", "b", " ", "ab", " a", "b ")
    m = build(v, [["a", "b"], [" ", "a"]])
    word = "ab " * 100 + "ba"  # 302 characters: beyond the cache
    ids, _, _ = m._word_symbols(word)
    # The merges' junctions are "ab" and " a": every other pair of neighbours is a cut,
    # "b " too (a vocabulary string, but no merge joins "b" and " ").
    assert m._cuts(ids) == [j for j in range(1, len(word)) if word[j - 1:j + 1] not in ("ab", " a")]
    assert m._worth_cutting(ids)  # 2 of every 3 neighbours could merge
    columns = m.long_word_columns(word)
    assert columns is not None
    assert columns[1][:4] == ["ab", " ", "ab", " "]
    assert columns[1][-3:] == [" ", "b", "a"]
    assert columns == _columns(m._merged_tokens(word))


def test_only_short_pieces_of_a_long_word_are_kept() -> None:
    from implementation.bpe import PIECE_CACHE_MAX_SYMBOLS

    m = build(vocab("a", " ", "aa"), [["a", "a"]])
    long_run = "a" * (PIECE_CACHE_MAX_SYMBOLS + 1)
    columns = m.long_word_columns(" ".join([long_run] * 4))
    assert columns is not None and columns == _columns(m._merged_tokens(" ".join([long_run] * 4)))
    assert m._piece_cache == {}  # cut at the spaces, but every run is too long to keep
    short_run = "a" * PIECE_CACHE_MAX_SYMBOLS
    assert m.long_word_columns(" ".join([short_run] * 5)) is not None
    assert list(m._piece_cache) == [(0,) * PIECE_CACHE_MAX_SYMBOLS]


def test_shared_positions_are_0_to_n_below_the_cap_and_fresh_past_it() -> None:
    from implementation import bpe

    for n in (0, 1, 5, 1000, 70000):
        shared = bpe._positions(n)
        assert shared[:n + 1] == list(range(n + 1))
    past = bpe._positions(bpe._SHARED_POSITIONS_MAX)
    assert past == list(range(bpe._SHARED_POSITIONS_MAX + 1))
    assert past is not bpe._SHARED_POSITIONS
    assert len(bpe._SHARED_POSITIONS) <= bpe._SHARED_POSITIONS_MAX
