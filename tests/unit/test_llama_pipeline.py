"""The Llama-2 / Mistral-v0.1 front end on the Llama-like probe
(``fixtures/llama_like.tokenizer.json``, ``builders.llama_like_document``): the Prepend +
Replace normalizer, the BOS template and the Replace, ByteFallback, Fuse, Strip decoder;
normalized added tokens; lstrip / rstrip / single_word; added-token id assignment.

Every expected value that reproduces upstream was OBSERVED by running tokenizers 0.23.1
on the same document (``builders.llama_like_document``). One deliberate difference runs
through the whole file: the template's BOS is synthetic, so ours is
``("<s>", 1, -1, -1)`` with track "special" where upstream reports offsets ``(0, 0)``
(offset contract, "Special cases").
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import added_token, llama_like_document, llama_specials

import implementation as ref

Tok = tuple[str, int, int, int]  # token, id, start, end
BOS: Tok = ("<s>", 1, -1, -1)  # upstream: ('<s>', 1, (0, 0))


def load(**fields: Any) -> ref.Tokenizer:
    return ref.load_tokenizer(llama_like_document(**fields))


LLAMA = load()


def toks(seq: ref.EncodedSequence) -> list[Tok]:
    return [(t.token, t.id, t.start, t.end) for t in seq.tokens]


def encode(tok: ref.Tokenizer, text: str, **kwargs: Any) -> list[Tok]:
    seq = tok.encode_with_spans(text, **kwargs)
    assert ref.contract_violations(seq, text) == []
    return toks(seq)


# ---------------------------------------------------------------------------
# Encode and decode of the Llama front end, observed on the Llama-like probe
# ---------------------------------------------------------------------------

EMOJI = [("<0xF0>", 243, 5, 6), ("<0x9F>", 162, 5, 6), ("<0x98>", 155, 5, 6),
         ("<0x80>", 131, 5, 6)]

# (text, tokens after BOS, decode skip=True, decode skip=False)
TABLE: list[tuple[str, list[Tok], str, str]] = [
    ("Hello world", [("▁Hello", 293, 0, 5), ("▁world", 298, 5, 11)],
     "Hello world", "<s> Hello world"),
    (" Hello", [("▁", 259, 0, 1), ("▁Hello", 293, 0, 6)],
     " Hello", "<s>  Hello"),
    ("Hello  world", [("▁Hello", 293, 0, 5), ("▁", 259, 5, 6), ("▁world", 298, 6, 12)],
     "Hello  world", "<s> Hello  world"),
    ("", [], "", "<s>"),
    (" ", [("▁▁", 299, 0, 1)], " ", "<s>  "),
    ("Hello<s>world", [("▁Hello", 293, 0, 5), ("<s>", 1, 5, 8), ("▁world", 298, 8, 13)],
     "Hello world", "<s> Hello<s> world"),
    ("<s>Hello", [("<s>", 1, 0, 3), ("▁Hello", 293, 3, 8)], "Hello", "<s><s> Hello"),
    ("a\tb", [("▁", 259, 0, 1), ("a", 260, 0, 1), ("<0x09>", 12, 1, 2), ("b", 261, 2, 3)],
     "a\tb", "<s> a\tb"),
    ("Hello😀world",
     [("▁Hello", 293, 0, 5), *EMOJI, ("w", 282, 6, 7), ("or", 295, 7, 9), ("ld", 297, 9, 11)],
     "Hello😀world", "<s> Hello😀world"),
    ("Hello world</s>",
     [("▁Hello", 293, 0, 5), ("▁world", 298, 5, 11), ("</s>", 2, 11, 15)],
     "Hello world", "<s> Hello world</s>"),
    ("é", [("▁", 259, 0, 1), ("é", 288, 0, 1)], "é", "<s> é"),
    ("Hello\nworld",
     [("▁Hello", 293, 0, 5), ("<0x0A>", 13, 5, 6), ("w", 282, 6, 7), ("or", 295, 7, 9),
      ("ld", 297, 9, 11)],
     "Hello\nworld", "<s> Hello\nworld"),
    ("x", [("▁", 259, 0, 1), ("x", 283, 0, 1)], "x", "<s> x"),
]
TABLE_IDS = [repr(row[0]) for row in TABLE]


@pytest.mark.parametrize(("text", "expected", "skip_true", "skip_false"), TABLE, ids=TABLE_IDS)
def test_table_tokens_ids_and_spans(
    text: str, expected: list[Tok], skip_true: str, skip_false: str
) -> None:
    seq = LLAMA.encode_with_spans(text)
    assert ref.contract_violations(seq, text) == []
    assert toks(seq) == [BOS, *expected]
    assert seq.input_ids == [1, *(t[1] for t in expected)]
    # upstream special_tokens_mask: 1 for the template BOS only (an in-text <s> is 0)
    assert list(seq.special_tokens_mask) == [1] + [0] * len(expected)
    assert list(seq.attention_mask) == [1] * (len(expected) + 1)
    assert list(seq.type_ids) == [0] * (len(expected) + 1)


@pytest.mark.parametrize(("text", "expected", "skip_true", "skip_false"), TABLE, ids=TABLE_IDS)
def test_table_without_special_tokens(
    text: str, expected: list[Tok], skip_true: str, skip_false: str
) -> None:
    # upstream add_special_tokens=False: the same tokens without the BOS
    assert encode(LLAMA, text, add_special_tokens=False) == expected


@pytest.mark.parametrize(("text", "expected", "skip_true", "skip_false"), TABLE, ids=TABLE_IDS)
def test_table_decode(text: str, expected: list[Tok], skip_true: str, skip_false: str) -> None:
    ids = LLAMA.encode(text)
    assert LLAMA.decode(ids, skip_special_tokens=True) == skip_true
    assert LLAMA.decode(ids) == skip_true  # skipping is the default, as upstream
    assert LLAMA.decode(ids, skip_special_tokens=False) == skip_false


def test_in_text_special_is_an_added_token_not_a_synthetic_one() -> None:
    seq = LLAMA.encode_with_spans("Hello<s>world")
    assert [t.track for t in seq.tokens] == ["special", "bpe", "added", "bpe"]


def test_skipping_a_special_joins_the_byte_run() -> None:
    # upstream: [<0xC3>, <s>, <0xA9>] skip=True -> 'é'; skip=False -> '\ufffd<s>\ufffd'
    assert LLAMA.decode([198, 1, 172], skip_special_tokens=True) == "é"
    assert LLAMA.decode([198, 1, 172], skip_special_tokens=False) == "\ufffd<s>\ufffd"


def test_unknown_id_in_decode() -> None:
    # upstream drops it silently: decode([293, 99999, 298]) -> 'Hello world' (both skips)
    lenient = ref.load_tokenizer(llama_like_document(), strict=False)
    assert lenient.decode([293, 99999, 298]) == "Hello world"
    assert lenient.decode([293, 99999, 298], skip_special_tokens=False) == "Hello world"
    # strict refuses it by name
    with pytest.raises(ref.DecodeError) as info:
        LLAMA.decode([293, 99999, 298])
    assert (info.value.rule, info.value.path) == ("decode-unknown-id", "ids[1]")


# ---------------------------------------------------------------------------
# Pair encoding through the template
# ---------------------------------------------------------------------------

PAIRS: list[tuple[str, str, list[Tok], list[int]]] = [
    # upstream: <s>(0,0) ▁Hello(0,5) <s>(0,0) ▁world(0,5); type ids [0, 0, 1, 1]
    ("Hello", "world",
     [BOS, ("▁Hello", 293, 0, 5), BOS, ("▁world", 298, 0, 5)], [0, 0, 1, 1]),
    ("Hello world", " Hello",
     [BOS, ("▁Hello", 293, 0, 5), ("▁world", 298, 5, 11), BOS, ("▁", 259, 0, 1),
      ("▁Hello", 293, 0, 6)], [0, 0, 0, 1, 1, 1]),
    ("", "a", [BOS, BOS, ("▁", 259, 0, 1), ("a", 260, 0, 1)], [0, 1, 1, 1]),
    ("<s>Hello", "é",
     [BOS, ("<s>", 1, 0, 3), ("▁Hello", 293, 3, 8), BOS, ("▁", 259, 0, 1), ("é", 288, 0, 1)],
     [0, 0, 0, 1, 1, 1]),
]


@pytest.mark.parametrize(("first", "second", "expected", "type_ids"), PAIRS)
def test_pair_encoding(first: str, second: str, expected: list[Tok], type_ids: list[int]) -> None:
    seq = LLAMA.encode_with_spans(first, pair=second)
    assert toks(seq) == expected
    assert list(seq.type_ids) == type_ids
    # upstream special_tokens_mask: 1 exactly at the two template BOS
    assert list(seq.special_tokens_mask) == [1 if t == BOS else 0 for t in expected]
    assert len(seq.input_ids) == len(seq.tokens) == len(seq.attention_mask)


@pytest.mark.parametrize(("first", "second", "expected", "type_ids"), PAIRS)
def test_pair_encoding_without_special_tokens(
    first: str, second: str, expected: list[Tok], type_ids: list[int]
) -> None:
    seq = LLAMA.encode_with_spans(first, add_special_tokens=False, pair=second)
    # upstream: the same sequence tokens, type ids 0 for the first and 1 for the second
    assert toks(seq) == [t for t in expected if t != BOS]
    assert list(seq.type_ids) == [i for t, i in zip(expected, type_ids, strict=True)
                                  if t != BOS]


# ---------------------------------------------------------------------------
# Normalized added tokens (their decode changed in tokenizers 0.23.0) -- 0.23.1 reproduced
# ---------------------------------------------------------------------------

NORMALIZED_X = load(added_tokens=[*llama_specials(),
                                  added_token("<x>", 300, special=True, normalized=True)])


@pytest.mark.parametrize(
    ("text", "expected", "skip_true", "skip_false"),
    [
        # upstream: [('▁<x>', 300, (0, 3))]; decode 0.23.1 '<x>' (not skipped: '▁<x>' is
        # not in the special set; 0.22.2 gave '')
        ("<x>", [("▁<x>", 300, 0, 3)], "<x>", "<s> <x>"),
        ("a <x> b",
         [("▁", 259, 0, 1), ("a", 260, 0, 1), ("▁<x>", 300, 1, 5), ("▁", 259, 5, 6),
          ("b", 261, 6, 7)],
         "a <x> b", "<s> a <x> b"),
        # only matches where the normalized text has ▁ before it: byte fallback for < >
        ("a<x>b",
         [("▁", 259, 0, 1), ("a", 260, 0, 1), ("<0x3C>", 63, 1, 2), ("x", 283, 2, 3),
          ("<0x3E>", 65, 3, 4), ("b", 261, 4, 5)],
         "a<x>b", "<s> a<x>b"),
        ("<x><x>",
         [("▁<x>", 300, 0, 3), ("<0x3C>", 63, 3, 4), ("x", 283, 4, 5), ("<0x3E>", 65, 5, 6)],
         "<x><x>", "<s> <x><x>"),
        ("Hello <x>", [("▁Hello", 293, 0, 5), ("▁<x>", 300, 5, 9)], "Hello <x>", "<s> Hello <x>"),
    ],
)
def test_normalized_special_added_token(
    text: str, expected: list[Tok], skip_true: str, skip_false: str
) -> None:
    assert encode(NORMALIZED_X, text) == [BOS, *expected]
    ids = NORMALIZED_X.encode(text)
    assert NORMALIZED_X.decode(ids, skip_special_tokens=True) == skip_true
    assert NORMALIZED_X.decode(ids, skip_special_tokens=False) == skip_false


def test_normalized_added_token_lookups() -> None:
    # upstream 0.23.1: id_to_token(300) '▁<x>' (0.22.2: '<x>'); token_to_id('<x>') 300,
    # token_to_id('▁<x>') None; get_vocab_size() 301
    assert NORMALIZED_X.id_to_token(300) == "▁<x>"
    assert NORMALIZED_X.token_to_id("<x>") == 300
    assert NORMALIZED_X.token_to_id("▁<x>") is None
    assert NORMALIZED_X.vocab_size() == 301


def test_normalized_non_special_added_token() -> None:
    tok = load(added_tokens=[*llama_specials(),
                             added_token("hello world", 300, special=False, normalized=True)])
    # upstream: ('▁hello▁world', 300, (3, 15)) in 'say hello world now'
    assert encode(tok, "say hello world now") == [
        BOS, ("▁", 259, 0, 1), ("s", 278, 0, 1), ("a", 260, 1, 2), ("y", 284, 2, 3),
        ("▁hello▁world", 300, 3, 15), ("▁", 259, 15, 16), ("n", 273, 16, 17),
        ("o", 274, 17, 18), ("w", 282, 18, 19),
    ]
    assert encode(tok, "hello world") == [BOS, ("▁hello▁world", 300, 0, 11)]
    assert encode(tok, "sayhello world") == [
        BOS, ("▁", 259, 0, 1), ("s", 278, 0, 1), ("a", 260, 1, 2), ("y", 284, 2, 3),
        ("h", 267, 3, 4), ("ello", 292, 4, 8), ("▁world", 298, 8, 14),
    ]
    # upstream 0.23.1: 'say hello world now' (0.22.2: 'sayhello world now')
    assert tok.decode(tok.encode("say hello world now")) == "say hello world now"
    assert tok.decode(tok.encode("hello world"), skip_special_tokens=False) == "<s> hello world"
    assert tok.id_to_token(300) == "▁hello▁world"


NORMALIZED_SPECIALS = load(added_tokens=llama_specials(normalized=True))


@pytest.mark.parametrize(
    ("text", "expected", "skip_true", "skip_false"),
    [
        # upstream 0.23.1 never skips BOS then: '<s> Hello world' with skip=True too
        ("Hello world", [("▁Hello", 293, 0, 5), ("▁world", 298, 5, 11)],
         "<s> Hello world", "<s> Hello world"),
        ("a<s>b",
         [("▁", 259, 0, 1), ("a", 260, 0, 1), ("<0x3C>", 63, 1, 2), ("s", 278, 2, 3),
          ("<0x3E>", 65, 3, 4), ("b", 261, 4, 5)],
         "<s> a<s>b", "<s> a<s>b"),
        ("a <s> b",
         [("▁", 259, 0, 1), ("a", 260, 0, 1), ("▁<s>", 1, 1, 5), ("▁", 259, 5, 6),
          ("b", 261, 6, 7)],
         "<s> a <s> b", "<s> a <s> b"),
        ("<s>", [("▁<s>", 1, 0, 3)], "<s> <s>", "<s> <s>"),
    ],
)
def test_specials_declared_normalized(
    text: str, expected: list[Tok], skip_true: str, skip_false: str
) -> None:
    assert encode(NORMALIZED_SPECIALS, text) == [BOS, *expected]
    ids = NORMALIZED_SPECIALS.encode(text)
    assert NORMALIZED_SPECIALS.decode(ids, skip_special_tokens=True) == skip_true
    assert NORMALIZED_SPECIALS.decode(ids, skip_special_tokens=False) == skip_false


def test_specials_declared_normalized_id_to_token() -> None:
    # upstream 0.23.1: '▁<unk>', '▁<s>', '▁</s>'
    assert [NORMALIZED_SPECIALS.id_to_token(i) for i in range(3)] == ["▁<unk>", "▁<s>", "▁</s>"]


# ---------------------------------------------------------------------------
# lstrip / rstrip / single_word, observed upstream
# ---------------------------------------------------------------------------

STRIPPING = load(added_tokens=[
    *llama_specials(),
    added_token("<m>", 300, special=False, lstrip=True, rstrip=True),
    added_token("<l>", 301, special=False, lstrip=True),
    added_token("<r>", 302, special=True, rstrip=True),
    added_token("hey", 303, special=False, single_word=True),
])

STRIP_ROWS: list[tuple[str, list[Tok], str, str]] = [
    ("a  <m>  b",
     [("▁", 259, 0, 1), ("a", 260, 0, 1), ("  <m>  ", 300, 1, 8), ("▁", 259, 8, 9),
      ("b", 261, 8, 9)],
     "a<m> b", "<s> a<m> b"),
    ("<m>", [("<m>", 300, 0, 3)], "<m>", "<s><m>"),
    ("  <m>", [("  <m>", 300, 0, 5)], "<m>", "<s><m>"),
    ("a <l> b",
     [("▁", 259, 0, 1), ("a", 260, 0, 1), (" <l>", 301, 1, 5), ("▁▁", 299, 5, 6),
      ("b", 261, 6, 7)],
     "a<l>  b", "<s> a<l>  b"),
    ("a <r> b",
     [("▁", 259, 0, 1), ("a", 260, 0, 1), ("▁", 259, 1, 2), ("<r> ", 302, 2, 6),
      ("▁", 259, 6, 7), ("b", 261, 6, 7)],
     "a  b", "<s> a <r> b"),
    ("a  <m>  <m>  b",
     [("▁", 259, 0, 1), ("a", 260, 0, 1), ("  <m>  ", 300, 1, 8), ("<m>  ", 300, 8, 13),
      ("▁", 259, 13, 14), ("b", 261, 13, 14)],
     "a<m><m> b", "<s> a<m><m> b"),
    ("a<l>b",
     [("▁", 259, 0, 1), ("a", 260, 0, 1), ("<l>", 301, 1, 4), ("▁", 259, 4, 5),
      ("b", 261, 4, 5)],
     "a<l> b", "<s> a<l> b"),
    ("<r>  <l>", [("<r>  ", 302, 0, 5), ("<l>", 301, 5, 8)], "<l>", "<s><r><l>"),
    ("hey you",
     [("hey", 303, 0, 3), ("▁▁", 299, 3, 4), ("y", 284, 4, 5), ("o", 274, 5, 6),
      ("u", 280, 6, 7)],
     "hey  you", "<s>hey  you"),
    ("they hey",
     [("▁", 259, 0, 1), ("t", 279, 0, 1), ("h", 267, 1, 2), ("e", 264, 2, 3),
      ("y", 284, 3, 4), ("▁", 259, 4, 5), ("hey", 303, 5, 8)],
     "they hey", "<s> they hey"),
    ("hey!", [("hey", 303, 0, 3), ("▁", 259, 3, 4), ("<0x21>", 36, 3, 4)], "hey !", "<s>hey !"),
    ("heyhey",
     [("▁", 259, 0, 1), ("h", 267, 0, 1), ("e", 264, 1, 2), ("y", 284, 2, 3),
      ("h", 267, 3, 4), ("e", 264, 4, 5), ("y", 284, 5, 6)],
     "heyhey", "<s> heyhey"),
    ("é hey é",
     [("▁", 259, 0, 1), ("é", 288, 0, 1), ("▁", 259, 1, 2), ("hey", 303, 2, 5),
      ("▁▁", 299, 5, 6), ("é", 288, 6, 7)],
     "é hey  é", "<s> é hey  é"),
    # '_' and digits are word characters for single_word; '-' is not
    ("hey_x",
     [("▁", 259, 0, 1), ("h", 267, 0, 1), ("e", 264, 1, 2), ("y", 284, 2, 3),
      ("<0x5F>", 98, 3, 4), ("x", 283, 4, 5)],
     "hey_x", "<s> hey_x"),
    ("hey1",
     [("▁", 259, 0, 1), ("h", 267, 0, 1), ("e", 264, 1, 2), ("y", 284, 2, 3),
      ("<0x31>", 52, 3, 4)],
     "hey1", "<s> hey1"),
    ("hey-x", [("hey", 303, 0, 3), ("▁", 259, 3, 4), ("<0x2D>", 48, 3, 4), ("x", 283, 4, 5)],
     "hey -x", "<s>hey -x"),
]


@pytest.mark.parametrize(("text", "expected", "skip_true", "skip_false"), STRIP_ROWS,
                         ids=[repr(r[0]) for r in STRIP_ROWS])
def test_lstrip_rstrip_single_word(
    text: str, expected: list[Tok], skip_true: str, skip_false: str
) -> None:
    assert encode(STRIPPING, text) == [BOS, *expected]
    ids = STRIPPING.encode(text)
    assert STRIPPING.decode(ids, skip_special_tokens=True) == skip_true
    assert STRIPPING.decode(ids, skip_special_tokens=False) == skip_false


def test_stripping_tokens_id_to_token() -> None:
    # upstream: 300..303 -> '<m>', '<l>', '<r>', 'hey' (not normalized: the content)
    assert [STRIPPING.id_to_token(i) for i in range(300, 304)] == ["<m>", "<l>", "<r>", "hey"]


# ---------------------------------------------------------------------------
# Upstream re-assigns added-token ids; the JSON id is ignored
# ---------------------------------------------------------------------------

ASSIGNED = load(added_tokens=[
    *llama_specials(),
    added_token("hello world", 999, special=False),
    added_token("<x>", 5000),
    added_token("Wo", 7, special=False),
    added_token("▁Hello", 4, special=False),  # already in the model vocabulary (293)
    added_token("<x>", 17),  # a repeat keeps its first id
    added_token("", 42),  # empty content is skipped
    added_token("<y>", 1),
])


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("<unk>", 0), ("<s>", 1), ("</s>", 2), ("hello world", 300), ("<x>", 301),
        ("Wo", 302), ("▁Hello", 293), ("<y>", 303), ("", None),
    ],
)
def test_added_token_ids_are_reassigned(content: str, expected: int | None) -> None:
    # upstream token_to_id, observed
    assert ASSIGNED.token_to_id(content) == expected


@pytest.mark.parametrize(
    ("token_id", "expected"),
    [
        (0, "<unk>"), (1, "<s>"), (2, "</s>"), (4, "<0x01>"), (7, "<0x04>"), (293, "▁Hello"),
        (300, "hello world"), (301, "<x>"), (302, "Wo"), (303, "<y>"),
        (304, None), (999, None), (5000, None),
    ],
)
def test_added_token_ids_id_to_token(token_id: int, expected: str | None) -> None:
    # upstream id_to_token, observed; the JSON ids 999, 5000, 7 name nothing added
    assert ASSIGNED.id_to_token(token_id) == expected


def test_added_token_ids_vocab_size_and_encoding() -> None:
    # upstream get_vocab_size() 304 (300 without added tokens)
    assert ASSIGNED.vocab_size() == 304
    assert ASSIGNED.model.vocab_size() == 300
    text = "Wo hello world <x><y>▁Hello"
    assert encode(ASSIGNED, text) == [
        BOS, ("Wo", 302, 0, 2), ("▁▁", 299, 2, 3), ("hello world", 300, 3, 14),
        ("▁▁", 299, 14, 15), ("<x>", 301, 15, 18), ("<y>", 303, 18, 21),
        ("▁Hello", 293, 21, 27),
    ]
    ids = ASSIGNED.encode(text)
    assert ASSIGNED.decode(ids) == "Wo  hello world   Hello"
    assert ASSIGNED.decode(ids, skip_special_tokens=False) == "<s>Wo  hello world  <x><y> Hello"


def test_added_token_ids_start_at_the_model_vocab_size() -> None:
    tok = load(added_tokens=[*llama_specials(), added_token("<z>", 310), added_token("<w>", 0)])
    # upstream: '<z>' -> 300, '<w>' -> 301
    assert (tok.token_to_id("<z>"), tok.token_to_id("<w>")) == (300, 301)
