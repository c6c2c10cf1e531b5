"""Track segmentation and MorphBPE (decision 0014), on hand-picked inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from implementation.unified import (
    FVS,
    MVS,
    NNBSP,
    load_dual_track,
    mongolian_runs,
    morphemes,
)

ROOT = Path(__file__).resolve().parents[2]
TOK = load_dual_track(ROOT / "fixtures" / "unified" / "config.json")
MODEL = json.loads((ROOT / "fixtures" / "unified" / "morph_bpe.json").read_text("utf-8"))


@pytest.mark.parametrize(("text", "runs"), [
    ("ab ᠭᠡᠷ\u202fᠦᠨ cd", [(3, 9)]),
    ("\u202fᠭᠡᠷ\u202f", [(1, 4)]),  # an NNBSP needs a Mongolian character on each side
    ("ᠭ\u202fx", [(0, 1)]),
    ("ᠭ\u202f\u202fᠭ", [(0, 1), (3, 4)]),  # two NNBSPs: neither is between letters
    ("ᠭ\u202f<image>", [(0, 1)]),
    ("\U00011660ᠭ", [(0, 2)]),  # the Mongolian Supplement
    ("a\u180bb", [(1, 2)]),  # a lone FVS is Mongolian script: a run of its own
    ("ᠬᠠᠷ\u180eᠠ", [(0, 5)]),
    ("ᠭ\u18b0", [(0, 1)]),  # U+18B0 is Canadian Syllabics, not Mongolian
    ("ᠭ\u200dᠭ", [(0, 1), (2, 3)]),  # ZWJ is not an in-word control here
    ("", []),
])
def test_mongolian_runs(text: str, runs: list[tuple[int, int]]) -> None:
    assert list(mongolian_runs(text)) == runs


@pytest.mark.parametrize(("text", "pieces"), [
    ("ᠭᠡᠷ\u202fᠦᠨ\u202fᠢ", ["ᠭᠡᠷ", "\u202fᠦᠨ", "\u202fᠢ"]),
    ("ᠬᠠᠷ\u180eᠠ\u202fᠶᠢᠨ", ["ᠬᠠᠷ\u180eᠠ", "\u202fᠶᠢᠨ"]),  # MVS never splits
    ("ᠭ\u180bᠡᠷ\u180c", ["ᠭ\u180bᠡᠷ\u180c"]),  # nor does an FVS
    ("ᠭᠡᠷ᠂ᠮᠣᠷᠢ᠃", ["ᠭᠡᠷ", "᠂", "ᠮᠣᠷᠢ", "᠃"]),  # punctuation stands alone
    ("ᠭ\u202f᠂ᠠ", ["ᠭ", "\u202f", "᠂", "ᠠ"]),
    ("\u202f\u202fᠠ", ["\u202f", "\u202fᠠ"]),
    ("\U00011660\U00011661", ["\U00011660", "\U00011661"]),
])
def test_morphemes(text: str, pieces: list[str]) -> None:
    assert [text[a:b] for a, b in morphemes(text)] == pieces


def test_morph_spans_cover_controls_inside_the_morpheme() -> None:
    text = "ᠬᠠᠷ\u180eᠠ\u202fᠶ\u180bᠢᠨ"
    seq = TOK.encode_with_spans(text, add_special_tokens=False)
    assert {t.track for t in seq.tokens} == {"morph"}
    assert "".join(text[t.start:t.end] for t in seq.tokens) == text
    for t in seq.tokens:
        assert text[t.start:t.end] == t.token  # nothing normalized: the token IS the slice
    mvs = text.index(MVS)
    assert any(t.start <= mvs < t.end for t in seq.tokens)
    suffix = text.index(NNBSP)
    assert any(t.start == suffix for t in seq.tokens)  # a suffix morpheme starts at NNBSP
    assert not any(t.start < suffix < t.end for t in seq.tokens)


def test_morph_byte_fallback_pieces_share_the_character_span() -> None:
    text = "ᠭ\u1864ᠭ"  # U+1864 (a Todo letter) is not in the trained vocabulary
    seq = TOK.encode_with_spans(text, add_special_tokens=False)
    pieces = [(t.token, t.span) for t in seq.tokens if t.token.startswith("<0x")]
    assert pieces == [("<0xE1>", (1, 2)), ("<0xA1>", (1, 2)), ("<0xA4>", (1, 2))]
    assert all(t.track == "morph" for t in seq.tokens)
    assert TOK.decode(seq.input_ids) == text


def test_every_control_character_in_and_out_of_place() -> None:
    for control in (NNBSP, MVS, *FVS):
        for text in (control, f"ᠭ{control}", f"{control}ᠭ", f"ᠭ{control}ᠭ", f"x{control}y",
                     f"ᠭ{control}{control}ᠭ"):
            seq = TOK.encode_with_spans(text)
            assert TOK.decode(seq.input_ids) == text
            covered = {i for t in seq.tokens if t.start >= 0 for i in range(t.start, t.end)}
            assert covered == set(range(len(text))), (text, seq.tokens)


def test_vocabulary_never_spans_a_morpheme_boundary() -> None:
    """The fixture was trained behind the morpheme pre-tokenizer: no vocabulary entry has
    an NNBSP anywhere but first, and punctuation is never merged with anything."""
    for token in MODEL["vocab"]:
        assert NNBSP not in token[1:], token
        if any(0x1800 <= ord(c) <= 0x180A for c in token):
            assert len(token) == 1, token


def test_fixture_shape() -> None:
    vocab, merges = MODEL["vocab"], MODEL["merges"]
    assert MODEL["byte_fallback"] is True
    assert [vocab[f"<0x{b:02X}>"] for b in range(256)] == list(range(256))
    alphabet = [t for t in vocab if len(t) == 1]
    assert len(vocab) == 640 and len(merges) == 640 - 256 - len(alphabet)
    assert {NNBSP, MVS, *FVS} <= set(vocab)
    assert sorted(vocab.values()) == list(range(len(vocab)))
