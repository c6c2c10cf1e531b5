"""The character classes of the Split family over every code point, against tokenizers
0.23.1 run live (moved from tests/differential/test_split_pre_tokenizers.py: each call
scans all 1,114,112 code points). docs/decisions/0023-regex-dependency.md.
"""

from __future__ import annotations

from typing import Any

import pytest
import regex  # type: ignore[import-untyped, unused-ignore]

from harness.fixture_builders import char_class_tables
from implementation import oniguruma
from implementation.char_classes import (
    NUMERIC,
    ONIG_DOT,
    PUNCTUATION,
    RUST_WORD_ITEMS,
    WHITE_SPACE_ITEMS,
)

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream

# ---------------------------------------------------------------------------

def _ours(pattern: str) -> set[int]:
    compiled: Any = regex.compile(f"(?:{pattern})")
    return {m.start() for m in compiled.finditer("".join(map(chr, range(0x110000))))
            if not 0xD800 <= m.start() < 0xE000}


def _upstream_split(source: str) -> set[int]:
    pre = tokenizers.pre_tokenizers.Split(tokenizers.Regex(source), "removed", False)
    return char_class_tables.removed_by(pre)


ESCAPES = [r"\s", r"\S", r"\d", r"\D", r"\w", r"\W", r"\h", r"\H", ".", r"[\s]", r"[\S]",
           r"[\d]", r"[\D]", r"[\w]", r"[\h]", r"[\w\d]", r"[^\w]", r"[^\s\p{L}\p{N}]",
           r"\P{L}", r"\p{^N}", r"[\P{Lu}]"]
#: Each name alone and inside a class: Oniguruma gives some escapes another meaning in a
#: class (``\w``: see implementation/char_classes.py).
PROPERTIES = [form.format(name) for name in sorted(oniguruma.PROPERTY_NAMES)
              for form in ("\\p{{{}}}", "[\\p{{{}}}]")]


@pytest.mark.parametrize("source", [*PROPERTIES, *ESCAPES])
def test_class_translations_match_oniguruma_on_every_code_point(source: str) -> None:
    translated = oniguruma.emit(oniguruma.parse(source))
    assert _ours(translated) == _upstream_split(source)


@pytest.mark.parametrize("letter", "abcdefghijklmnopqrstuvwxyz")
def test_case_insensitive_letters_match_oniguruma_on_every_code_point(letter: str) -> None:
    source = f"(?i:{letter})"
    assert _ours(oniguruma.emit(oniguruma.parse(source))) == _upstream_split(source)


def test_rust_side_classes_match_upstream_on_every_code_point() -> None:
    pre = tokenizers.pre_tokenizers
    assert _ours(PUNCTUATION) == char_class_tables.removed_by(pre.Punctuation("removed"))
    assert _ours(NUMERIC) == char_class_tables.isolated_by(pre.Digits(individual_digits=True))
    space = _ours(f"[{WHITE_SPACE_ITEMS}]")
    assert space == char_class_tables.removed_by(pre.WhitespaceSplit())
    assert space == char_class_tables.removed_by(pre.Whitespace())
    assert _ours(f"[{RUST_WORD_ITEMS}]") == char_class_tables.isolated_by(pre.Whitespace(), "!")
    assert _ours(ONIG_DOT) == _upstream_split(".")


def test_char_class_tables_are_current() -> None:
    assert char_class_tables.main(["--check"]) == 0
