"""The byte-fallback decision (``docs/spec/byte-fallback.md``), end to end
through ``load_tokenizer``.

Every expected value that reproduces upstream was OBSERVED by running tokenizers 0.23.1
(``Tokenizer.from_str``) on the same document (built by ``builders``); the observed
upstream output is the assertion. Where the spec deliberately differs (the unk/byte
ordering bug, spans under a decorated byte fallback, strict refusals) the comment states
what upstream gives and the test asserts ours.

The documents are the decision's probe: a four-piece BPE (a, b, c, ab; merge a+b) plus a
controlled set of ``<0xXX>`` pieces; partial alphabets load in lenient mode only.
"""

from __future__ import annotations

from typing import Any

import pytest
from builders import byte_alphabet, decoder_sequence, llama_decoder, metaspace, probe_document

import implementation as ref

Tok = tuple[str, int, int]

BASE = ["<unk>", "a", "b", "c", "ab"]
MERGES = [["a", "b"]]
BYTE_FALLBACK_DECODER = {"type": "ByteFallback"}


def bf_document(pieces: list[str], **fields: Any) -> dict[str, Any]:
    """The four-piece BPE with ``pieces`` appended (ids 5.. in order), byte_fallback on."""
    fields.setdefault("unk_token", "<unk>")
    fields.setdefault("decoder", BYTE_FALLBACK_DECODER)
    extra_merges = fields.pop("extra_merges", [])
    return probe_document(BASE + pieces, MERGES + extra_merges, byte_fallback=True, **fields)


FULL = bf_document(byte_alphabet())


def toks(tok: ref.Tokenizer, text: str) -> list[Tok]:
    seq = tok.encode_with_spans(text)
    assert ref.contract_violations(seq, text) == []
    return [(t.token, t.start, t.end) for t in seq.tokens]


def byte_id(value: int) -> int:
    """Id of ``<0xNN>`` in FULL (and every document with the full alphabet after BASE)."""
    return len(BASE) + value


# ---------------------------------------------------------------------------
# The six measurements
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "ids"),
    [
        # upstream: [('<0xC3>', (0, 1)), ('<0xA9>', (0, 1))] ids=[200, 174]
        ("é", [("<0xC3>", 0, 1), ("<0xA9>", 0, 1)], [200, 174]),
        ("日", [("<0xE6>", 0, 1), ("<0x97>", 0, 1), ("<0xA5>", 0, 1)], [235, 156, 170]),
        (
            "😀",
            [("<0xF0>", 0, 1), ("<0x9F>", 0, 1), ("<0x98>", 0, 1), ("<0x80>", 0, 1)],
            [245, 164, 157, 133],
        ),
        ("\x07", [("<0x07>", 0, 1)], [12]),
        (
            "aé€😀",
            [
                ("a", 0, 1),
                ("<0xC3>", 1, 2), ("<0xA9>", 1, 2),
                ("<0xE2>", 2, 3), ("<0x82>", 2, 3), ("<0xAC>", 2, 3),
                ("<0xF0>", 3, 4), ("<0x9F>", 3, 4), ("<0x98>", 3, 4), ("<0x80>", 3, 4),
            ],
            [1, 200, 174, 231, 135, 177, 245, 164, 157, 133],
        ),
        ("abc", [("ab", 0, 2), ("c", 2, 3)], [4, 3]),
    ],
)
def test_fact1_uncovered_code_point_becomes_one_piece_per_utf8_byte(
    text: str, expected: list[Tok], ids: list[int]
) -> None:
    tok = ref.load_tokenizer(FULL)
    assert toks(tok, text) == expected
    assert tok.encode(text) == ids


def test_fact1_symbol_present_is_never_expanded() -> None:
    tok = ref.load_tokenizer(bf_document(["é", *byte_alphabet()]))
    # upstream: 'é' -> [('é', (0, 1))] ids=[5]; 'aé' -> [('a', (0, 1)), ('é', (1, 2))]
    assert toks(tok, "é") == [("é", 0, 1)]
    assert tok.encode("é") == [5]
    assert toks(tok, "aé") == [("a", 0, 1), ("é", 1, 2)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # upstream: [('<unk>', (0, 1))] ids=[0] -- not <0xC3> followed by an unknown
        ("é", [("<unk>", 0, 1)]),
        ("aéb", [("a", 0, 1), ("<unk>", 1, 2), ("b", 2, 3)]),
        # Ã is C3 83: <0x83> is missing too
        ("Ã", [("<unk>", 0, 1)]),
    ],
)
def test_fact2_all_or_nothing_per_symbol(text: str, expected: list[Tok]) -> None:
    tok = ref.load_tokenizer(bf_document(["<0xC3>"]), strict=False)
    assert toks(tok, text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # upstream: [('<unk>', (0, 1))]; [('a', (0, 1)), ('<unk>', (1, 2))]
        ("é", [("<unk>", 0, 1)]),
        ("aé", [("a", 0, 1), ("<unk>", 1, 2)]),
    ],
)
def test_fact3_lower_case_spelling_resolves_nothing(text: str, expected: list[Tok]) -> None:
    tok = ref.load_tokenizer(bf_document(["<0xc3>", "<0xA9>"]), strict=False)
    assert toks(tok, text) == expected


@pytest.mark.parametrize(
    ("text", "expected", "ids"),
    [
        # upstream: [('<0xC3><0xA9>', (0, 1))] ids=[261]
        ("é", [("<0xC3><0xA9>", 0, 1)], [261]),
        ("aéb", [("a", 0, 1), ("<0xC3><0xA9>", 1, 2), ("b", 2, 3)], [1, 261, 2]),
        ("éé", [("<0xC3><0xA9>", 0, 1), ("<0xC3><0xA9>", 1, 2)], [261, 261]),
    ],
)
def test_fact4_expansion_runs_before_the_merges(
    text: str, expected: list[Tok], ids: list[int]
) -> None:
    document = bf_document([*byte_alphabet(), "<0xC3><0xA9>"],
                           extra_merges=[["<0xC3>", "<0xA9>"]])
    tok = ref.load_tokenizer(document)
    assert toks(tok, text) == expected
    assert tok.encode(text) == ids


PREFIX_DOCUMENT = probe_document(
    [*BASE, "##b", "##c", *byte_alphabet()], [["a", "##b"]], unk_token="<unk>",
    byte_fallback=True, decoder=BYTE_FALLBACK_DECODER, continuing_subword_prefix="##",
)


@pytest.mark.parametrize(
    ("text", "expected", "ids"),
    [
        # upstream: [('ab', (0, 2))] ids=[4]
        ("ab", [("ab", 0, 2)], [4]),
        # upstream: [('a',(0,1)), ('<0x23>',(1,2)), ('<0x23>',(1,2)), ('<0xC3>',(3,4)),
        #            ('<0xA9>',(4,5))] ids=[1, 42, 42, 202, 176]
        # ours: the same stream, every byte piece clamped to the é at (1,2) (offset contract).
        (
            "aé",
            [("a", 0, 1), ("<0x23>", 1, 2), ("<0x23>", 1, 2), ("<0xC3>", 1, 2),
             ("<0xA9>", 1, 2)],
            [1, 42, 42, 202, 176],
        ),
        # upstream: [('a',(0,1)), ('<0x23>',(1,2)), ('<0x23>',(2,3)), ('<0x64>',(3,4))]
        #           ids=[1, 42, 42, 107] -- (2,3) and (3,4) run past the 2-char text.
        (
            "ad",
            [("a", 0, 1), ("<0x23>", 1, 2), ("<0x23>", 1, 2), ("<0x64>", 1, 2)],
            [1, 42, 42, 107],
        ),
        # upstream: ... ('<0x23>',(1,2)), ('<0x23>',(3,4)), ('<0x61>',(4,5))
        #           ids=[202, 176, 42, 42, 104]
        (
            "éa",
            [("<0xC3>", 0, 1), ("<0xA9>", 0, 1), ("<0x23>", 1, 2), ("<0x23>", 1, 2),
             ("<0x61>", 1, 2)],
            [202, 176, 42, 42, 104],
        ),
    ],
)
def test_fact5_decorated_prefix_symbol_is_expanded(
    text: str, expected: list[Tok], ids: list[int]
) -> None:
    tok = ref.load_tokenizer(PREFIX_DOCUMENT)
    assert toks(tok, text) == expected
    assert tok.encode(text) == ids


@pytest.mark.parametrize(
    ("text", "expected", "ids"),
    [
        # upstream: <0x62>(0,1) <0x3C>(1,2) <0x2F>(2,3) <0x77>(3,4) <0x3E>(4,5)
        #           ids=[103, 65, 52, 124, 67]; ours: all at the b's (0,1).
        (
            "b",
            [("<0x62>", 0, 1), ("<0x3C>", 0, 1), ("<0x2F>", 0, 1), ("<0x77>", 0, 1),
             ("<0x3E>", 0, 1)],
            [103, 65, 52, 124, 67],
        ),
        # upstream: a(0,1) <0x62>(1,2) <0x3C>(2,3) <0x2F>(3,4) <0x77>(4,5) <0x3E>(5,6)
        (
            "ab",
            [("a", 0, 1), ("<0x62>", 1, 2), ("<0x3C>", 1, 2), ("<0x2F>", 1, 2),
             ("<0x77>", 1, 2), ("<0x3E>", 1, 2)],
            [1, 103, 65, 52, 124, 67],
        ),
        # upstream: a(0,1) <0xC3>(1,2) <0xA9>(1,2) <0x3C>(3,4) <0x2F>(4,5) <0x77>(5,6)
        #           <0x3E>(6,7)
        (
            "aé",
            [("a", 0, 1), ("<0xC3>", 1, 2), ("<0xA9>", 1, 2), ("<0x3C>", 1, 2),
             ("<0x2F>", 1, 2), ("<0x77>", 1, 2), ("<0x3E>", 1, 2)],
            [1, 200, 174, 65, 52, 124, 67],
        ),
    ],
)
def test_fact5_decorated_suffix_symbol_is_expanded(
    text: str, expected: list[Tok], ids: list[int]
) -> None:
    tok = ref.load_tokenizer(bf_document(byte_alphabet(), end_of_word_suffix="</w>"))
    assert toks(tok, text) == expected
    assert tok.encode(text) == ids


@pytest.mark.parametrize(
    ("fuse_unk", "text", "expected"),
    [
        # upstream: [('a',(0,1)), ('<0x58>',(1,2)), ('<0x58>',(2,3)), ('b',(3,4))]
        (True, "aXXb", [("a", 0, 1), ("<0x58>", 1, 2), ("<0x58>", 2, 3), ("b", 3, 4)]),
        (False, "aXXb", [("a", 0, 1), ("<0x58>", 1, 2), ("<0x58>", 2, 3), ("b", 3, 4)]),
        # unknowns still fuse among themselves -- upstream: a(0,1) <unk>(1,3) b(3,4)
        (True, "aYYb", [("a", 0, 1), ("<unk>", 1, 3), ("b", 3, 4)]),
        (False, "aYYb", [("a", 0, 1), ("<unk>", 1, 2), ("<unk>", 2, 3), ("b", 3, 4)]),
    ],
)
def test_fact6_fuse_unk_never_fuses_byte_resolved_symbols(
    fuse_unk: bool, text: str, expected: list[Tok]
) -> None:
    tok = ref.load_tokenizer(bf_document(["<0x58>"], fuse_unk=fuse_unk), strict=False)
    assert toks(tok, text) == expected


def test_degradation_without_unk_drops_the_symbol_and_neighbours_merge() -> None:
    document = probe_document(["a", "b", "c", "ab"], MERGES, byte_fallback=True)
    tok = ref.load_tokenizer(document, strict=False)
    # upstream: 'aXb' -> [('ab', (0, 2))] ids=[3]. The ids are reproduced; the span is
    # ours (registered divergence dropped-character-offsets): upstream's (0, 2) points at
    # "aX", ours covers the text the token came from.
    assert tok.encode("aXb") == [3]
    assert toks(tok, "aXb") == [("ab", 0, 3)]
    # upstream: 'X' -> [] ; 'aé' -> [('a', (0, 1))]
    assert toks(tok, "X") == []
    assert toks(tok, "aé") == [("a", 0, 1)]


def test_strict_refuses_the_dropped_character_at_encode() -> None:
    # Without byte_fallback the load is strict-clean; upstream still drops X: [('ab',(0,2))].
    tok = ref.load_tokenizer(probe_document(["a", "b", "c", "ab"], MERGES))
    with pytest.raises(ref.EncodeError) as info:
        tok.encode_with_spans("aXb")
    assert info.value.rule == "character-dropped"


# ---------------------------------------------------------------------------
# The unk/byte-fallback ordering bug: recorded, not reproduced
# ---------------------------------------------------------------------------

ORDERING = probe_document(["<unk>", "<0x58>"], [], unk_token="<unk>", byte_fallback=True)


@pytest.mark.parametrize(
    ("fuse_unk", "text", "expected"),
    [
        # upstream: [('<0x58>', (0, 1)), ('<unk>', (1, 2))] -- already in order
        (False, "XY", [("<0x58>", 0, 1), ("<unk>", 1, 2)]),
        # upstream: [('<0x58>', (0, 1)), ('<unk>', (1, 2))] -- the X reported at the Y
        (False, "YX", [("<unk>", 0, 1), ("<0x58>", 1, 2)]),
        # upstream: [('<unk>', (0, 1)), ('<0x58>', (1, 2)), ('<unk>', (2, 3))]
        (False, "YYX", [("<unk>", 0, 1), ("<unk>", 1, 2), ("<0x58>", 2, 3)]),
        # upstream: [('<0x58>', (0, 1)), ('<unk>', (1, 2)), ('<unk>', (2, 3))]
        (False, "YXY", [("<unk>", 0, 1), ("<0x58>", 1, 2), ("<unk>", 2, 3)]),
        # fuse_unk on -- upstream: XY [('<0x58>',(0,1)), ('<unk>',(1,2))]
        (True, "XY", [("<0x58>", 0, 1), ("<unk>", 1, 2)]),
        # upstream: [('<0x58>', (0, 1)), ('<unk>', (1, 2))]
        (True, "YX", [("<unk>", 0, 1), ("<0x58>", 1, 2)]),
        # upstream: [('<0x58>', (0, 1)), ('<unk>', (1, 3))]
        (True, "YYX", [("<unk>", 0, 2), ("<0x58>", 2, 3)]),
        # upstream: [('<0x58>', (0, 1)), ('<unk>', (1, 3))] -- the two Y fused across the X
        (True, "YXY", [("<unk>", 0, 1), ("<0x58>", 1, 2), ("<unk>", 2, 3)]),
    ],
)
def test_unk_byte_ordering_emitted_in_the_correct_order(
    fuse_unk: bool, text: str, expected: list[Tok]
) -> None:
    document = probe_document(["<unk>", "<0x58>"], [], unk_token="<unk>", byte_fallback=True,
                              fuse_unk=fuse_unk)
    tok = ref.load_tokenizer(document, strict=False)
    assert toks(tok, text) == expected
    assert tok.encode(text) == [{"<unk>": 0, "<0x58>": 1}[t] for t, _, _ in expected]


def test_ordering_document_decodes_like_upstream_without_a_decoder() -> None:
    tok = ref.load_tokenizer(ORDERING, strict=False)
    # upstream: decode([1, 0]) -> '<0x58> <unk>'; decode([0, 1]) -> '<unk> <0x58>'
    assert tok.decode([1, 0]) == "<0x58> <unk>"
    assert tok.decode([0, 1]) == "<unk> <0x58>"


def test_ordering_bug_unreachable_in_strict_mode() -> None:
    with pytest.raises(ref.LoadError) as info:
        ref.load_tokenizer(ORDERING)
    assert info.value.rule == "byte-alphabet-incomplete"


# ---------------------------------------------------------------------------
# Refusals (strict) -- tokenizers 0.23.1 loads every one of these files
# ---------------------------------------------------------------------------

ALPHABET = byte_alphabet()
LOWER_C3 = [p if p != "<0xC3>" else "<0xc3>" for p in ALPHABET]

ALPHABET_REFUSALS = {
    # upstream loads; encode('aé') -> a(0,1) <0xC3>(1,2) <0xA9>(1,2)
    "missing-00": (ALPHABET[1:], "byte-alphabet-incomplete", "$.model.vocab", "<0x00>"),
    # upstream loads; encode('aé') -> a(0,1) <0xC3>(1,2) <0xA9>(1,2)
    "missing-FF": (ALPHABET[:-1], "byte-alphabet-incomplete", "$.model.vocab", "<0xFF>"),
    # upstream loads; encode('aé') -> a(0,1) <unk>(1,2) (the lower-case piece is never used)
    "lowercase-c3": (LOWER_C3, "byte-piece-lowercase", "$.model.vocab['<0xc3>']", "<0xc3>"),
    # upstream loads; encode('aé') -> a(0,1) <0xC3>(1,2) <0xA9>(1,2)
    "lowercase-c3-beside-complete": (
        [*ALPHABET, "<0xc3>"], "byte-piece-lowercase", "$.model.vocab['<0xc3>']", "<0xc3>"),
}


@pytest.mark.parametrize("name", ALPHABET_REFUSALS)
def test_strict_refuses_an_incomplete_or_lower_case_byte_alphabet(name: str) -> None:
    pieces, rule, path, named = ALPHABET_REFUSALS[name]
    with pytest.raises(ref.LoadError) as info:
        ref.load_tokenizer(bf_document(pieces))
    assert (info.value.rule, info.value.path) == (rule, path)
    assert named in info.value.message


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("missing-00", [("a", 0, 1), ("<0xC3>", 1, 2), ("<0xA9>", 1, 2)]),
        ("missing-FF", [("a", 0, 1), ("<0xC3>", 1, 2), ("<0xA9>", 1, 2)]),
        ("lowercase-c3", [("a", 0, 1), ("<unk>", 1, 2)]),
        ("lowercase-c3-beside-complete", [("a", 0, 1), ("<0xC3>", 1, 2), ("<0xA9>", 1, 2)]),
    ],
)
def test_lenient_loads_the_refused_alphabets_and_encodes_like_upstream(
    name: str, expected: list[Tok]
) -> None:
    tok = ref.load_tokenizer(bf_document(ALPHABET_REFUSALS[name][0]), strict=False)
    assert toks(tok, "aé") == expected


# (decoder, path of the refusal, upstream's decode of encode('aé') = ids [1, 200, 174])
DECODER_REFUSALS: dict[str, tuple[Any, str, str]] = {
    "bare-Fuse": ({"type": "Fuse"}, "$.decoder", "a<0xC3><0xA9>"),
    "null": (None, "$.decoder", "a <0xC3> <0xA9>"),
    "too-short": (decoder_sequence(["Replace", "ByteFallback", "Fuse"]),
                  "$.decoder.decoders", "aé"),
    "reordered": (decoder_sequence(["Replace", "Fuse", "ByteFallback", "Strip"]),
                  "$.decoder.decoders[1]", "a<0xC3><0xA9>"),
    "repeated-step": (decoder_sequence(["Replace", "ByteFallback", "ByteFallback", "Fuse",
                                        "Strip"]), "$.decoder.decoders[2]", "aé"),
    "extra-step": (decoder_sequence(["Replace", "ByteFallback", "Fuse", "Strip", "Fuse"]),
                   "$.decoder.decoders[4]", "aé"),
    "Metaspace": (metaspace(prepend_scheme="always", split=True), "$.decoder",
                  "a<0xC3><0xA9>"),
    "empty-Sequence": (decoder_sequence([]), "$.decoder.decoders", "a<0xC3><0xA9>"),
    "Sequence-of-ByteFallback": (decoder_sequence(["ByteFallback"]), "$.decoder.decoders[0]",
                                 "aé"),
}


@pytest.mark.parametrize("name", DECODER_REFUSALS)
def test_strict_refuses_decoder_shapes_outside_the_two(name: str) -> None:
    decoder, path, _ = DECODER_REFUSALS[name]
    with pytest.raises(ref.LoadError) as info:
        ref.load_tokenizer(bf_document(byte_alphabet(), decoder=decoder))
    assert (info.value.rule, info.value.path) == ("decoder-shape", path)


@pytest.mark.parametrize("name", DECODER_REFUSALS)
def test_lenient_loads_every_decoder_shape_and_decodes_like_upstream(name: str) -> None:
    decoder, _, upstream_decode = DECODER_REFUSALS[name]
    tok = ref.load_tokenizer(bf_document(byte_alphabet(), decoder=decoder), strict=False)
    ids = tok.encode("aé")
    assert ids == [1, 200, 174]
    # Metaspace is accepted and not applied; on these tokens upstream's Metaspace decoder
    # changes nothing either ('a<0xC3><0xA9>').
    assert tok.decode(ids) == upstream_decode


@pytest.mark.parametrize("decoder", [BYTE_FALLBACK_DECODER, llama_decoder()],
                         ids=["ByteFallback", "llama-chain"])
def test_strict_accepts_the_two_shapes(decoder: dict[str, Any]) -> None:
    tok = ref.load_tokenizer(bf_document(byte_alphabet(), decoder=decoder))
    # upstream: decode(encode('aé')) -> 'aé' with either decoder
    assert tok.decode(tok.encode("aé")) == "aé"


def test_decoder_shape_is_not_checked_without_byte_fallback() -> None:
    document = probe_document(BASE, MERGES, unk_token="<unk>", decoder={"type": "Fuse"})
    tok = ref.load_tokenizer(document)
    # upstream: decode(encode('ab c')) -> 'ab<unk>c' (' ' is unknown, Fuse joins)
    assert tok.decode(tok.encode("ab c")) == "ab<unk>c"


# ---------------------------------------------------------------------------
# Decode runs: one U+FFFD per byte of an invalid run
# ---------------------------------------------------------------------------

R = "\ufffd"


def bytes_ids(*values: int) -> list[int]:
    return [byte_id(v) for v in values]


DECODE_RUNS = [
    # (ids, upstream decode -- skip_special_tokens True and False alike)
    (bytes_ids(0xF0, 0x9F), R * 2),  # cut mid-character: two, not one
    (bytes_ids(0xC3, 0x28), R * 2),  # lead byte + ASCII: two (Python's 'replace': '\ufffd(')
    (bytes_ids(0x61, 0xC3), R * 2),  # the valid 'a' is lost with the run
    ([*bytes_ids(0xE2, 0x82), 1, *bytes_ids(0xAC)], R * 2 + "a" + R),
    (bytes_ids(0xE2, 0x82, 0xAC), "€"),
    (bytes_ids(0xED, 0xA0, 0x80), R * 3),  # surrogate
    (bytes_ids(0xC0, 0x80), R * 2),  # overlong
    (bytes_ids(0xF4, 0x90, 0x80, 0x80), R * 4),  # past U+10FFFF
    ([1, *bytes_ids(0xC3, 0xA9, 0xC3)], "a" + R * 3),
    (bytes_ids(0xF0, 0x9F, 0x98, 0x80), "😀"),
    (bytes_ids(0xC3, 0xA9), "é"),
    (bytes_ids(0xA9), R),
    (bytes_ids(0xFF), R),
    ([*bytes_ids(0xC3), 0, *bytes_ids(0xA9)], R + "<unk>" + R),  # <unk> is not special here
    ([*bytes_ids(0xF0, 0x9F), 1, *bytes_ids(0x98, 0x80)], R * 2 + "a" + R * 2),
    (bytes_ids(0x00), "\x00"),
]


@pytest.mark.parametrize("decoder", [BYTE_FALLBACK_DECODER, llama_decoder()],
                         ids=["ByteFallback", "llama-chain"])
@pytest.mark.parametrize(("ids", "expected"), DECODE_RUNS)
@pytest.mark.parametrize("skip", [True, False])
def test_decode_runs_one_replacement_per_byte_of_an_invalid_run(
    decoder: dict[str, Any], ids: list[int], expected: str, skip: bool
) -> None:
    tok = ref.load_tokenizer(bf_document(byte_alphabet(), decoder=decoder))
    assert tok.decode(ids, skip_special_tokens=skip) == expected


# ---------------------------------------------------------------------------
# The founding decoder-shape rule is checked before the model's tables are built
# ---------------------------------------------------------------------------

def _huge_byte_fallback_document(decoder: Any) -> dict[str, Any]:
    """A byte_fallback vocabulary of 20,000 two-letter strings and their merges."""
    letters = [chr(0x4E00 + i) for i in range(20_000)]
    pairs = [(letters[i], letters[i + 1]) for i in range(0, len(letters) - 1, 2)]
    vocab = [*ALPHABET, *letters, *(a + b for a, b in pairs)]
    return probe_document(vocab, [list(p) for p in pairs], byte_fallback=True, decoder=decoder)


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every build of the model's tables (the merge map and the model itself)."""
    from implementation import bpe, bpe_loader

    built: list[str] = []
    merge_map, init = bpe_loader._merge_map, bpe.BpeModel.__init__

    def counted_merge_map(*columns: Any) -> Any:
        built.append("merge map")
        return merge_map(*columns)

    def counted_init(self: Any, **fields: Any) -> None:
        built.append("model")
        init(self, **fields)

    monkeypatch.setattr(bpe_loader, "_merge_map", counted_merge_map)
    monkeypatch.setattr(bpe.BpeModel, "__init__", counted_init)
    return built


@pytest.mark.parametrize("decoder", [None, {"type": "Fuse"},
                                     decoder_sequence(["ByteFallback", "Fuse"])])
def test_a_decoder_shape_refusal_builds_no_table(decoder: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    document = _huge_byte_fallback_document(decoder)
    built = _count_builds(monkeypatch)
    with pytest.raises(ref.LoadError) as info:
        ref.load_tokenizer(document)
    assert info.value.rule == "decoder-shape"
    assert built == []
    # The lenient load of the same file, and the strict load with Llama's chain, build both.
    ref.load_tokenizer(document, strict=False)
    assert built == ["merge map", "model"]
    ref.load_tokenizer(_huge_byte_fallback_document(llama_decoder()))
    assert built == ["merge map", "model"] * 2


def test_the_refusal_order_is_kept_when_several_rules_are_broken() -> None:
    """The model's own checks still come first (the order decides which refusal a file with
    several faults gets, and the pinned oracles record it): an incomplete alphabet without a
    decoder is refused by the alphabet rule, a merge out of the vocabulary before both."""
    assert refusal_rule(ORDERING) == "byte-alphabet-incomplete"
    bad_merge = probe_document(["<unk>", "<0x58>"], [["<unk>", "x"]], byte_fallback=True)
    assert refusal_rule(bad_merge) == "merge-out-of-vocabulary"


def refusal_rule(document: dict[str, Any]) -> str:
    with pytest.raises(ref.LoadError) as info:
        ref.load_tokenizer(document)
    return info.value.rule
