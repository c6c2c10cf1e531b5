"""Decoders against values observed from tokenizers 0.23.1.

Every expected decode below was printed by tokenizers 0.23.1,
e.g. ``decoders.ByteFallback().decode(tokens)`` or a ``decoders.Sequence`` of
the Llama steps; upstream's ``decode`` is ``"".join(decode_chain(tokens))``,
so the tests compare the joined chain. Where this reference deliberately
differs (Metaspace identity, Strip panics, refusals), the test says so and
records what upstream did.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.judge.upstream_decoders import metaspace_decode_upstream, strip_would_panic
from implementation import oniguruma
from implementation.decoders import (
    ByteFallback,
    Decoder,
    Fuse,
    Metaspace,
    Replace,
    Sequence,
    Strip,
    byte_token_value,
    decoder_from_json,
    strip_token,
)
from implementation.errors import LoadError
from implementation.jsonfields import Node
from implementation.metaspace import PrependScheme

FFFD = "\ufffd"

LLAMA_DECODER: dict[str, Any] = {
    "type": "Sequence",
    "decoders": [
        {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0},
    ],
}


def load(decoder: Any, *, strict: bool = False, byte_fallback: bool = False) -> Decoder | None:
    return decoder_from_json(Node(decoder, "$.decoder"), strict=strict, byte_fallback=byte_fallback)


def decode(decoder: Any, tokens: list[str]) -> str:
    loaded = load(decoder)
    assert loaded is not None
    return "".join(loaded.decode_chain(list(tokens)))


def refusal(decoder: Any, *, strict: bool = False, byte_fallback: bool = False) -> LoadError:
    with pytest.raises(LoadError) as info:
        load(decoder, strict=strict, byte_fallback=byte_fallback)
    return info.value


# ---------------------------------------------------------------------------
# ByteFallback
# ---------------------------------------------------------------------------

# (tokens, observed decoders.ByteFallback().decode(tokens))
BYTE_FALLBACK_OBSERVED: list[tuple[list[str], str]] = [
    # runs of whole and invalid UTF-8 (one U+FFFD per byte of an invalid run)
    (["<0x61>", "<0xC3>"], FFFD * 2),
    (["<0xE2>", "<0x82>", "a", "<0xAC>"], FFFD * 2 + "a" + FFFD),
    (["<0xE2>", "<0x82>", "<0xAC>"], "€"),
    (["<0xED>", "<0xA0>", "<0x80>"], FFFD * 3),
    (["<0xC0>", "<0x80>"], FFFD * 2),
    (["<0xF4>", "<0x90>", "<0x80>", "<0x80>"], FFFD * 4),
    (["a", "<0xC3>", "<0xA9>", "<0xC3>"], "a" + FFFD * 3),
    # decode_runs: runs cut mid-character (one U+FFFD per byte, not per subpart)
    (["<0xF0>", "<0x9F>"], FFFD * 2),
    (["<0xC3>", "<0x28>"], FFFD * 2),
    (["<0xF0>", "<0x9F>", "<0x98>", "<0x80>"], "😀"),
    (["<0xEF>", "<0xBB>", "<0xBF>"], "\ufeff"),
    (["<0x00>"], "\x00"),
    ([], ""),
]


@pytest.mark.parametrize(("tokens", "observed"), BYTE_FALLBACK_OBSERVED)
def test_byte_fallback_runs(tokens: list[str], observed: str) -> None:
    assert "".join(ByteFallback().decode_chain(tokens)) == observed


def test_invalid_run_is_one_replacement_per_byte_not_per_subpart() -> None:
    # Python's errors="replace" gives one U+FFFD for <0xF0> <0x9F>; upstream gives two.
    assert bytes([0xF0, 0x9F]).decode("utf-8", errors="replace") == FFFD
    assert ByteFallback().decode_chain(["<0xF0>", "<0x9F>"]) == [FFFD, FFFD]
    assert ByteFallback().decode_chain(["<0xC3>", "<0x28>", "x"]) == [FFFD, FFFD, "x"]


# (token, observed decode) — lower case and '+' are byte tokens; the rest pass through.
BYTE_TOKEN_SPELLINGS: list[tuple[list[str], str]] = [
    (["<0xc3>", "<0xa9>"], "é"),
    (["<0x+5>"], "\x05"),
    (["<0x+a>"], "\n"),
    (["<0x-5>"], "<0x-5>"),
    (["<0X61>"], "<0X61>"),
    (["<0x0061>"], "<0x0061>"),
    (["<0x 5>"], "<0x 5>"),
    (["<0x5 >"], "<0x5 >"),
    (["<0x61>x"], "<0x61>x"),
    (["<0x61"], "<0x61"),
    (["<0x6g>"], "<0x6g>"),
    (["<0xé>"], "<0xé>"),
]


@pytest.mark.parametrize(("tokens", "observed"), BYTE_TOKEN_SPELLINGS)
def test_byte_token_spellings(tokens: list[str], observed: str) -> None:
    assert "".join(ByteFallback().decode_chain(tokens)) == observed


def test_byte_token_value_rejects_what_python_int_accepts() -> None:
    assert int(" 5", 16) == 5 and int("٥", 16) == 5  # what int() would take
    assert byte_token_value("<0x 5>") is None
    assert byte_token_value("<0x٥>") is None  # 2-byte digit: 6 UTF-8 bytes, not hex ASCII
    assert byte_token_value("<0x+F>") == 15
    assert byte_token_value("<0xff>") == 255


# ---------------------------------------------------------------------------
# Fuse, Strip
# ---------------------------------------------------------------------------


def test_fuse() -> None:
    # observed: Fuse().decode([]) == "", Fuse().decode(["a", "b"]) == "ab"
    assert Fuse().decode_chain([]) == [""]
    assert Fuse().decode_chain(["a", "b"]) == ["ab"]


# ((content, start, stop), tokens, observed decoders.Strip(...).decode(tokens))
STRIP_OBSERVED: list[tuple[tuple[str, int, int], list[str], str]] = [
    ((" ", 1, 0), ["  a", " b", "c", ""], " abc"),
    ((" ", 2, 0), ["  a", " b", "   "], "ab "),
    ((" ", 0, 1), ["a  ", "b ", " "], "a b"),
    ((" ", 0, 2), ["a"], "a"),
    ((" ", 1, 1), ["  "], ""),
    (("H", 1, 0), ["Hey", " friend!", "HHH"], "ey friend!HH"),
    (("y", 0, 1), ["Hey", " friend!"], "He friend!"),
    ((" ", 0, 0), [" a "], " a "),
    ((" ", 3, 3), [" a "], "a"),
    ((" ", 5, 5), ["ab"], "ab"),
    ((" ", 1, 2), [" a"], "a"),
    ((" ", 0, 2), ["a "], "a"),
    ((" ", 0, 3), [" ab"], " ab"),
]


@pytest.mark.parametrize(("args", "tokens", "observed"), STRIP_OBSERVED)
def test_strip(args: tuple[str, int, int], tokens: list[str], observed: str) -> None:
    content, start, stop = args
    assert "".join(Strip(content, start, stop).decode_chain(tokens)) == observed
    assert not any(strip_would_panic(t, content, start, stop) for t in tokens)


# Upstream PANICS on each of these (observed PanicException messages in the comments).
STRIP_PANICS: list[tuple[tuple[str, int, int], str]] = [
    ((" ", 1, 1), " "),  # slice index starts at 1 but ends at 0
    ((" ", 0, 1), ""),  # index out of bounds: the len is 0 but the index is 18446744073709551615
    ((" ", 2, 2), "  "),  # slice index starts at 2 but ends at 0
    ((" ", 2, 2), "   "),  # slice index starts at 2 but ends at 1
    ((" ", 5, 1), " "),  # slice index starts at 1 but ends at 0
    ((" ", 2, 1), " "),  # slice index starts at 1 but ends at 0
]


@pytest.mark.parametrize(("args", "token"), STRIP_PANICS)
def test_strip_where_upstream_panics_decodes_to_empty(
    args: tuple[str, int, int], token: str
) -> None:
    content, start, stop = args
    assert strip_would_panic(token, content, start, stop)
    assert strip_token(token, content, start, stop) == ""  # decision, documented in strip_token


def test_llama_strip_never_panics() -> None:
    for token in ["", " ", "  ", " a", "a "]:
        assert not strip_would_panic(token, " ", 1, 0)


# ---------------------------------------------------------------------------
# Replace
# ---------------------------------------------------------------------------

# (pattern, content, tokens, observed decoders.Replace(...).decode(tokens))
REPLACE_OBSERVED: list[tuple[dict[str, str], str, list[str], str]] = [
    ({"String": "▁"}, " ", ["▁a", "b▁▁c"], " ab  c"),
    ({"String": ""}, "X", ["ab", ""], "XaXbX"),
    ({"String": ""}, "X", ["é"], "XéX"),
    (
        {"String": ".+*?()|[]{}^$#&-~"},
        "X",
        ["xx.+*?()|[]{}^$#&-~yy a.b a^b$\\d"],
        "xxXyy a.b a^b$\\d",
    ),
    ({"String": "a.b"}, "X", ["xxa.byy a.b a^b$\\d"], "xxXyy X a^b$\\d"),
    ({"String": "<0x"}, "", ["<0x61>"], "61>"),
    ({"Regex": "x*"}, "-", ["abxd"], "-a-b-d-"),  # re.sub would give -a-b--d-
    ({"Regex": "a|"}, "-", ["ab"], "-b-"),  # re.sub would give --b-
    ({"Regex": "x*"}, "-", ["éx"], "-é-"),
    ({"Regex": ""}, "X", ["ab"], "XaXbX"),
    ({"Regex": "^"}, "X", ["a\nb"], "Xa\nXb"),
    ({"Regex": "$"}, "X", ["a\nb\n"], "aX\nbX\nX"),
    ({"Regex": "\\s+"}, " ", ["a \t\n b"], "a b"),
    ({"Regex": "\\Z"}, "X", ["a\n"], "aX\nX"),
    ({"Regex": "\\z"}, "X", ["a\n"], "a\nX"),
    ({"Regex": "a{,2}"}, "X", ["aaab"], "XXbX"),
    ({"Regex": "\\v"}, "X", ["a\x0bb"], "aXb"),
    ({"Regex": "\\e"}, "X", ["a\x1bb"], "aXb"),
    ({"Regex": "\\u0041"}, "X", ["AB"], "XB"),
    ({"Regex": "(?=b)"}, "|", ["abab"], "a|ba|b"),
    ({"Regex": "[a\\]]"}, "X", ["aaa ab-c]e}x cx bx\na"], "XXX Xb-cXe}x cx bx\nX"),
    ({"Regex": "[a-]"}, "X", ["aaa ab-c]e}x cx bx\na"], "XXX XbXc]e}x cx bx\nX"),
    ({"Regex": "[^a]"}, "X", ["aaa ab-c]e}x cx bx\na"], "aaaXaXXXXXXXXXXXXXXa"),
    ({"Regex": "[\\s]"}, "X", ["aaa ab-c]e}x cx bx\na"], "aaaXab-c]e}xXcxXbxXa"),
    ({"Regex": "a{1,2}?"}, "X", ["aaa ab-c]e}x cx bx\na"], "XXX Xb-c]e}x cx bx\nX"),
    ({"Regex": "a{2,}?"}, "X", ["aaa ab-c]e}x cx bx\na"], "Xa ab-c]e}x cx bx\na"),
    ({"Regex": "(?<!a)x"}, "X", ["aaa ab-c]e}x cx bx\na"], "aaa ab-c]e}X cX bX\na"),
    ({"Regex": "\\Aa"}, "X", ["aaa ab-c]e}x cx bx\na"], "Xaa ab-c]e}x cx bx\na"),
    ({"Regex": "(|)*"}, "X", ["ab\nab"], "XaXbX\nXaXbX"),
    ({"Regex": "(?:a|)*"}, "X", ["ab\nab"], "XbX\nXbX"),
    ({"Regex": "(\\Z)*"}, "X", ["ab\nab"], "XaXbX\nXaXbX"),
    ({"Regex": "▁+"}, " ", ["▁▁a▁", "b"], " a b"),
]


@pytest.mark.parametrize(("pattern", "content", "tokens", "observed"), REPLACE_OBSERVED)
def test_replace(pattern: dict[str, str], content: str, tokens: list[str], observed: str) -> None:
    decoder = {"type": "Replace", "pattern": pattern, "content": content}
    assert decode(decoder, tokens) == observed


def test_replace_rewrites_each_token_on_its_own() -> None:
    # observed: Replace("▁", " ").decode(["▁a", "b▁▁c"]) == " ab  c"
    loaded = load({"type": "Replace", "pattern": {"String": "▁"}, "content": " "})
    assert isinstance(loaded, Replace)
    assert loaded.decode_chain(["▁a", "b▁▁c"]) == [" a", "b  c"]


def test_line_start_does_not_match_after_a_final_newline() -> None:
    # found by differential fuzzing; observed:
    # Replace(Regex("^"), "<X>").decode([" \t\n"]) == "<X> \t\n"  (re: also at the end)
    assert decode({"type": "Replace", "pattern": {"Regex": "^"}, "content": "<X>"}, [" \t\n"]) == (
        "<X> \t\n"
    )


def test_whitespace_class_is_oniguruma_not_python() -> None:
    # Measured over every code point: Python's \s also takes U+001C..U+001F, Oniguruma's does not.
    decoder = {"type": "Replace", "pattern": {"Regex": "\\s"}, "content": "X"}
    assert decode(decoder, ["\x1c\x1d\x1e\x1f \u3000\x85"]) == "\x1c\x1d\x1e\x1fXXX"


# Patterns upstream LOADS (observed output in the comment) that re cannot express identically.
UNSUPPORTED_REGEXES = [
    "\\d",  # Oniguruma's Unicode Nd table has 100 more digits than Python 3.11's
    "\\w",  # tables differ (marks vs No/Nl)
    "\\b",  # '|ab| |cd|' — depends on \w
    "(?i)a",  # 'XX' on 'Aa'
    "(?m).",  # Ruby (?m) is dotall: 'XXX' on 'a\nb'
    "a{2}?",  # Oniguruma: (?:a{2})? — re: lazy
    "a{2}+",  # 'Xa' on 'aaaaa': (?:a{2})+ — re: possessive
    "a++",
    "\\p{L}",
    "(?<n>a)",
    "[[:alpha:]]",
    "[a-c&&b]",  # 'aXc'
    "\\h",  # hex digit
    "\\x{41}",
    "\\101",
    "\\y",  # text segment boundary
    "(?>a)",
    "[a-c-e]",
    "a{",  # a literal '{' in Oniguruma
    "(?<=ab|c)x",  # variable-width look-behind: Oniguruma only
]


@pytest.mark.parametrize("pattern", UNSUPPORTED_REGEXES)
def test_unsupported_regex_is_refused(pattern: str) -> None:
    error = refusal({"type": "Replace", "pattern": {"Regex": pattern}, "content": "X"})
    assert error.rule == "unsupported-component"
    assert error.path == "$.decoder.pattern.Regex"


# Patterns upstream REFUSES at load (observed Oniguruma errors in the comments).
@pytest.mark.parametrize(
    "pattern",
    [
        "[",  # premature end of char-class
        "(?:^)*",  # target of repeat operator is invalid
        "(?:a|^)*",  # target of repeat operator is invalid
        "(?:(?=a)|(?=b))*",  # target of repeat operator is invalid
        "^*",  # target of repeat operator is invalid
        "[]",  # empty char-class
        "a{100001}",  # too big number for repeat range
    ],
)
def test_regex_upstream_refuses_is_refused(pattern: str) -> None:
    assert refusal({"type": "Replace", "pattern": {"Regex": pattern}, "content": "X"}).rule == (
        "regex-syntax"
    )


def test_translation_is_stable() -> None:
    assert oniguruma.emit(oniguruma.parse("▁+", oniguruma.REPLACE)) == "\\u2581+"
    assert oniguruma.emit(oniguruma.parse("$", oniguruma.REPLACE)) == "(?=\\n|\\Z)"


# ---------------------------------------------------------------------------
# Metaspace
# ---------------------------------------------------------------------------

# (scheme, replacement, tokens, observed decoders.Metaspace(...).decode(tokens))
METASPACE_OBSERVED: list[tuple[PrependScheme, str, list[str], str]] = [
    ("always", "▁", ["▁▁a"], "a"),
    ("always", "▁", ["a▁b", "▁c"], "ab c"),
    ("always", "▁", ["▁"], ""),
    ("always", "▁", ["▁▁a", "▁b"], "a b"),
    ("always", "▁", ["", "▁x"], " x"),
    ("always", "▁", ["<0x09>", "▁a"], "<0x09> a"),
    ("first", "▁", ["▁▁a", "▁b"], "a b"),
    ("never", "▁", ["▁▁a", "▁b"], "  a b"),
    ("never", "▁", ["▁"], " "),
    ("always", "_", ["_a_", "_b"], "a b"),
    ("never", "_", ["_a_", "_b"], " a  b"),
]


@pytest.mark.parametrize(("scheme", "replacement", "tokens", "observed"), METASPACE_OBSERVED)
def test_metaspace_decode_upstream_matches_upstream(
    scheme: PrependScheme, replacement: str, tokens: list[str], observed: str
) -> None:
    assert "".join(metaspace_decode_upstream(tokens, replacement, scheme)) == observed


@pytest.mark.parametrize(("scheme", "replacement", "tokens", "observed"), METASPACE_OBSERVED)
def test_metaspace_decoder_is_the_identity(
    scheme: PrependScheme, replacement: str, tokens: list[str], observed: str
) -> None:
    decoder = {"type": "Metaspace", "replacement": replacement, "prepend_scheme": scheme}
    loaded = load(decoder)
    assert isinstance(loaded, Metaspace)
    assert loaded.decode_chain(list(tokens)) == tokens  # decision: accepted, not applied


def test_metaspace_fields() -> None:
    assert load({"type": "Metaspace", "replacement": "▁"}) == Metaspace("▁", "always", True)
    never = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "never", "split": False}
    assert load(never) == Metaspace("▁", "never", False)
    # observed loading: add_prefix_space false + never, true + never, split null, aps null
    for extra in (
        {"add_prefix_space": False, "prepend_scheme": "never"},
        {"add_prefix_space": True, "prepend_scheme": "never"},
        {"split": None},
        {"add_prefix_space": None},
        {"str_rep": "▁"},
    ):
        assert isinstance(load({"type": "Metaspace", "replacement": "▁", **extra}), Metaspace)


# Each of these fails to load upstream (observed: "data did not match any variant ...").
@pytest.mark.parametrize(
    ("extra", "rule", "path"),
    [
        ({"replacement": None}, "missing-field", "$.decoder.replacement"),
        ({"replacement": "ab"}, "invalid-value", "$.decoder.replacement"),
        ({"add_prefix_space": False}, "invalid-value", "$.decoder.add_prefix_space"),
        ({"prepend_scheme": "Always"}, "invalid-value", "$.decoder.prepend_scheme"),
        ({"prepend_scheme": None}, "invalid-type", "$.decoder.prepend_scheme"),
        ({"split": "yes"}, "invalid-type", "$.decoder.split"),
        ({"str_rep": 1}, "invalid-type", "$.decoder.str_rep"),
    ],
)
def test_metaspace_refusals(extra: dict[str, Any], rule: str, path: str) -> None:
    error = refusal({"type": "Metaspace", "replacement": "▁", **extra})
    assert (error.rule, error.path) == (rule, path)


# ---------------------------------------------------------------------------
# Sequence, and Llama's chain
# ---------------------------------------------------------------------------

# (tokens, observed Sequence([Replace("▁"," "), ByteFallback(), Fuse(), Strip(" ",1,0)]).decode)
LLAMA_OBSERVED: list[tuple[list[str], str]] = [
    (["▁Hello", "▁world"], "Hello world"),
    (["▁Hello", "<0xF0>", "<0x9F>", "<0x98>", "<0x80>", "world"], "Hello😀world"),
    (["▁", "▁Hello"], " Hello"),
    (["<0xC3>", "<s>", "<0xA9>"], f"{FFFD}<s>{FFFD}"),
    (["<0xC3>", "<0xA9>"], "é"),
    (["▁a", "<0x09>", "b"], "a\tb"),
    (["<0x20>", "a"], "a"),
    (["▁▁a"], " a"),
    ([], ""),
    (["<0xF0>", "<0x9F>"], FFFD * 2),
    (["▁a", "<0xC3>", "<0x28>"], "a" + FFFD * 2),
    (["<0xe2>", "<0x82>", "<0xac>"], "€"),
    (["<0x+a>", "▁b"], "\n b"),
]


@pytest.mark.parametrize(("tokens", "observed"), LLAMA_OBSERVED)
def test_llama_chain(tokens: list[str], observed: str) -> None:
    loaded = load(LLAMA_DECODER, strict=True, byte_fallback=True)
    assert loaded is not None
    assert loaded.decode_chain(list(tokens)) == [observed]


@pytest.mark.parametrize(
    ("steps", "tokens", "observed"),
    [
        ([{"type": "Fuse"}, {"type": "ByteFallback"}], ["<0xC3>", "<0xA9>"], "<0xC3><0xA9>"),
        (
            [
                {"type": "ByteFallback"},
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            ],
            ["<0xE2>", "<0x96>", "<0x81>", "a"],
            " a",
        ),
        (
            [
                {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                {"type": "ByteFallback"},
            ],
            ["<0xE2>", "<0x96>", "<0x81>", "a"],
            "▁a",
        ),
        (
            [{"type": "Strip", "content": " ", "start": 1, "stop": 0}, {"type": "Fuse"}],
            [" a", " b"],
            "ab",
        ),
        ([], ["a", "b"], "ab"),
        (
            [
                {
                    "type": "Sequence",
                    "decoders": [{"type": "Replace", "pattern": {"String": "a"}, "content": "b"}],
                },
                {"type": "Fuse"},
            ],
            ["a", "ca"],
            "bcb",
        ),
    ],
)
def test_sequences_run_in_declared_order(
    steps: list[Any], tokens: list[str], observed: str
) -> None:
    assert decode({"type": "Sequence", "decoders": steps}, tokens) == observed


def test_llama_chain_structure() -> None:
    loaded = load(LLAMA_DECODER)
    assert isinstance(loaded, Sequence)
    assert [type(step) for step in loaded.decoders] == [Replace, ByteFallback, Fuse, Strip]


# ---------------------------------------------------------------------------
# The decoder-shape rule (strict and byte_fallback)
# ---------------------------------------------------------------------------

REPLACE = LLAMA_DECODER["decoders"][0]
STRIP = LLAMA_DECODER["decoders"][3]
BF = {"type": "ByteFallback"}
FUSE = {"type": "Fuse"}
METASPACE = {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": True}


def seq(*steps: Any) -> dict[str, Any]:
    return {"type": "Sequence", "decoders": list(steps)}


# Every one of these loads in tokenizers 0.23.1; only this package's strict rule refuses them.
SHAPE_REFUSALS: list[tuple[str, Any, str, str]] = [
    ("bare Fuse", FUSE, "$.decoder", "bare Fuse"),
    ("bare Metaspace", METASPACE, "$.decoder", "bare Metaspace"),
    ("bare Strip", STRIP, "$.decoder", "bare Strip"),
    ("null decoder", None, "$.decoder", "null"),
    ("too short", seq(BF, FUSE), "$.decoder.decoders[0]", "[ByteFallback, Fuse]"),
    ("prefix only", seq(REPLACE, BF), "$.decoder.decoders", "missing [Fuse, Strip]"),
    ("empty", seq(), "$.decoder.decoders", "missing [Replace, ByteFallback, Fuse, Strip]"),
    ("reordered", seq(REPLACE, FUSE, BF, STRIP), "$.decoder.decoders[1]", "step 1 is Fuse"),
    (
        "repeated",
        seq(REPLACE, BF, BF, FUSE, STRIP),
        "$.decoder.decoders[2]",
        "step 2 is ByteFallback",
    ),
    ("extra 5th", seq(REPLACE, BF, FUSE, STRIP, FUSE), "$.decoder.decoders[4]", "one too many"),
    ("metaspace step", seq(REPLACE, BF, FUSE, METASPACE), "$.decoder.decoders[3]", "Metaspace"),
    ("nested", seq(seq(REPLACE, BF, FUSE, STRIP)), "$.decoder.decoders[0]", "Sequence"),
    ("unknown step", seq(REPLACE, {"type": "Foo"}, FUSE, STRIP), "$.decoder.decoders[1]", "Foo"),
]


@pytest.mark.parametrize(
    ("name", "decoder", "path", "found"), SHAPE_REFUSALS, ids=[c[0] for c in SHAPE_REFUSALS]
)
def test_decoder_shape_refusals(name: str, decoder: Any, path: str, found: str) -> None:
    error = refusal(decoder, strict=True, byte_fallback=True)
    assert error.rule == "decoder-shape"
    assert error.path == path
    assert found in error.message
    assert "[Replace, ByteFallback, Fuse, Strip]" in error.message  # what is accepted


@pytest.mark.parametrize(
    ("name", "decoder", "path", "found"),
    [c for c in SHAPE_REFUSALS if c[0] != "unknown step"],
    ids=[c[0] for c in SHAPE_REFUSALS if c[0] != "unknown step"],
)
def test_lenient_and_non_byte_fallback_accept_every_shape(
    name: str, decoder: Any, path: str, found: str
) -> None:
    for strict, byte_fallback in ((False, True), (True, False), (False, False)):
        loaded = load(decoder, strict=strict, byte_fallback=byte_fallback)
        assert (loaded is None) == (decoder is None)


def test_the_two_shapes_load_strictly() -> None:
    assert isinstance(load(BF, strict=True, byte_fallback=True), ByteFallback)
    assert isinstance(load(LLAMA_DECODER, strict=True, byte_fallback=True), Sequence)


def test_shape_rule_checks_shape_not_parameters() -> None:
    # Decision: each step is reproduced with its own parameters, so they may differ from Llama's.
    other = seq(
        {"type": "Replace", "pattern": {"Regex": "_+"}, "content": " "},
        BF,
        FUSE,
        {"type": "Strip", "content": "x", "start": 2, "stop": 1},
    )
    loaded = load(other, strict=True, byte_fallback=True)
    assert loaded is not None
    assert loaded.decode_chain(["_a", "<0xC3>", "<0xA9>"]) == [" aé"]


def test_null_decoder_outside_byte_fallback_is_none() -> None:
    assert load(None, strict=True, byte_fallback=False) is None
    assert load(None) is None


# ---------------------------------------------------------------------------
# JSON errors (each of these fails to load upstream: "data did not match any variant")
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("decoder", "rule", "path"),
    [
        ({"type": "Foo"}, "unsupported-component", "$.decoder.type"),
        ({"type": "fuse"}, "unsupported-component", "$.decoder.type"),
        ({"type": 1}, "invalid-type", "$.decoder.type"),
        ({}, "missing-field", "$.decoder.type"),
        ([{"type": "Fuse"}], "invalid-type", "$.decoder"),
        ("Fuse", "invalid-type", "$.decoder"),
        ({"type": "Strip", "content": " ", "start": 1}, "missing-field", "$.decoder.stop"),
        (
            {"type": "Strip", "content": "ab", "start": 1, "stop": 0},
            "invalid-value",
            "$.decoder.content",
        ),
        (
            {"type": "Strip", "content": "", "start": 1, "stop": 0},
            "invalid-value",
            "$.decoder.content",
        ),
        (
            {"type": "Strip", "content": " ", "start": -1, "stop": 0},
            "invalid-value",
            "$.decoder.start",
        ),
        (
            {"type": "Strip", "content": " ", "start": 1.0, "stop": 0},
            "invalid-type",
            "$.decoder.start",
        ),
        (
            {"type": "Strip", "content": " ", "start": None, "stop": 0},
            "missing-field",
            "$.decoder.start",
        ),
        (
            {"type": "Strip", "content": " ", "start": 2**64, "stop": 0},
            "invalid-value",
            "$.decoder.start",
        ),
        ({"type": "Replace", "pattern": "▁", "content": " "}, "invalid-type", "$.decoder.pattern"),
        (
            {"type": "Replace", "pattern": {"String": "a", "Regex": "b"}, "content": " "},
            "invalid-value",
            "$.decoder.pattern",
        ),
        ({"type": "Replace", "pattern": {}, "content": " "}, "invalid-value", "$.decoder.pattern"),
        (
            {"type": "Replace", "pattern": {"Str": "a"}, "content": " "},
            "invalid-value",
            "$.decoder.pattern",
        ),
        ({"type": "Replace", "pattern": {"String": "a"}}, "missing-field", "$.decoder.content"),
        (
            {"type": "Replace", "pattern": {"String": 1}, "content": " "},
            "invalid-type",
            "$.decoder.pattern.String",
        ),
        ({"type": "Sequence"}, "missing-field", "$.decoder.decoders"),
        ({"type": "Sequence", "decoders": None}, "missing-field", "$.decoder.decoders"),
        ({"type": "Sequence", "decoders": {"type": "Fuse"}}, "invalid-type", "$.decoder.decoders"),
        (
            {"type": "Sequence", "decoders": [{"type": "Foo"}]},
            "unsupported-component",
            "$.decoder.decoders[0].type",
        ),
    ],
)
def test_json_refusals(decoder: Any, rule: str, path: str) -> None:
    error = refusal(decoder)
    assert (error.rule, error.path) == (rule, path)


@pytest.mark.parametrize("name", ["BPEDecoder", "WordPiece", "CTC"])
def test_upstream_types_not_reproduced_are_named(name: str) -> None:
    error = refusal({"type": name})
    assert error.rule == "unsupported-component"
    assert name in error.message


def test_extra_keys_are_ignored() -> None:
    # observed: {"type": "Fuse", "x": 1} and {"type": "ByteFallback", "foo": "bar"} load upstream
    assert isinstance(load({"type": "Fuse", "x": 1}), Fuse)
    assert isinstance(load({"type": "ByteFallback", "foo": "bar"}), ByteFallback)


def test_strip_accepts_the_largest_usize() -> None:
    # observed: start = 2**64 - 1 loads upstream; 2**64 does not
    loaded = load({"type": "Strip", "content": " ", "start": 2**64 - 1, "stop": 0})
    assert loaded == Strip(" ", 2**64 - 1, 0)


def test_type_less_decoder_is_refused_although_upstream_accepts_it() -> None:
    # observed: upstream (legacy untagged fallback) loads it as Strip(" ", 1, 0)
    error = refusal({"content": " ", "start": 1, "stop": 0})
    assert (error.rule, error.path) == ("missing-field", "$.decoder.type")


def test_the_judges_byte_map_is_the_references() -> None:
    """The judge's model of GPT-2's byte map (its own, not imported) equals the one the
    reference decodes with."""
    from harness.judge import upstream_decoders
    from implementation import byte_level

    judged = dict(upstream_decoders.SYMBOL_BYTES)
    assert judged == dict(byte_level.SYMBOL_BYTES) and sorted(judged.values()) == list(range(256))
