"""The Unicode normalizers (NFC, NFD, NFKC, NFKD, Lowercase, Strip) against tokenizers
0.23.1 run live on the same documents (docs/decisions/0025-unicode-normalizers.md).

The documents are small byte-fallback BPE files (every character encodes: a few letters
and merges over the 256 byte pieces, a bare ByteFallback decoder, no template), with each
normalizer alone and in Sequences with Prepend and Replace. Every expected value is
computed by ``tokenizers`` on the same document or text; nothing upstream says is typed in.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

import pytest
from builders import byte_alphabet, merge_results, probe_document, to_json
from hypothesis import given, settings
from hypothesis import strategies as st

import implementation as ref
from harness.fixtures import unicode_tables as generator
from harness.fixtures.code_points import code_points
from implementation import normalizers as ref_normalizers
from implementation import unicode_forms
from implementation.alignment import NormalizedText
from implementation.errors import LoadError
from implementation.jsonfields import Node
from implementation.normalizers import Lowercase, Normalizer, UnicodeForm, normalizer_from_json

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream

FORMS = unicode_forms.FORMS

# ---------------------------------------------------------------------------
# Documents
# ---------------------------------------------------------------------------

LETTERS = "abcdefhilnorstwxyz▁.éöß"
MERGES = (("f", "i"), ("▁", "a"), ("e", "x"), ("▁", "▁"), ("s", "s"), ("▁a", "b"))
VOCAB = list(dict.fromkeys([*byte_alphabet(), *LETTERS, *merge_results(MERGES)]))


def document(normalizer: Any, *, added_tokens: list[dict[str, Any]] | None = None,
             pre_tokenizer: Any = None) -> dict[str, Any]:
    return probe_document(VOCAB, MERGES, byte_fallback=True, normalizer=normalizer,
                          pre_tokenizer=pre_tokenizer, decoder={"type": "ByteFallback"},
                          added_tokens=added_tokens)


def strip(left: bool = True, right: bool = True) -> dict[str, Any]:
    return {"type": "Strip", "strip_left": left, "strip_right": right}


def sequence(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Sequence", "normalizers": list(steps)}


PREPEND = {"type": "Prepend", "prepend": "▁"}
SPACE_TO_METASPACE = {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}
DROP_ACUTE = {"type": "Replace", "pattern": {"String": "\u0301"}, "content": ""}
SPACES_REGEX = {"type": "Replace", "pattern": {"Regex": " +"}, "content": "▁"}

#: Each normalizer alone, then in Sequences with Prepend and Replace.
NORMALIZERS: dict[str, dict[str, Any]] = {
    **{form: {"type": form} for form in FORMS},
    "Lowercase": {"type": "Lowercase"},
    "Strip": strip(),
    "Strip-left": strip(True, False),
    "Strip-right": strip(False, True),
    "Strip-none": strip(False, False),
    "Prepend+NFKC": sequence(PREPEND, {"type": "NFKC"}),
    "NFD+Replace": sequence({"type": "NFD"}, SPACE_TO_METASPACE),
    "Lowercase+Prepend+Replace": sequence({"type": "Lowercase"}, PREPEND, SPACE_TO_METASPACE),
    "Strip+Prepend+Replace": sequence(strip(), PREPEND, SPACE_TO_METASPACE),
    "Replace-acute+NFC": sequence(DROP_ACUTE, {"type": "NFC"}),
    "NFD+Replace-acute+NFC": sequence({"type": "NFD"}, DROP_ACUTE, {"type": "NFC"}),
    "NFKD+Lowercase+Strip+Regex": sequence({"type": "NFKD"}, {"type": "Lowercase"}, strip(),
                                           SPACES_REGEX),
    "Prepend-space+Strip-left": sequence({"type": "Prepend", "prepend": " "},
                                         strip(True, False)),
    "Prepend+NFD+Lowercase+NFC": sequence(PREPEND, {"type": "NFD"}, {"type": "Lowercase"},
                                          {"type": "NFC"}),
}

#: Hand-picked hard cases.
TEXTS = (
    "", "abc", "ﬁ", "ﬁx", "…", "e\u0301x", "é", "éx", "İ", "İstanbul", "ß", "SS ß", "ǅ", "ǄǅǆX",
    "ΟΔΟΣ ΟΔΟΣ", "σς Σ", "한국어", "\u1100\u1161\u11a8", "가\u11a8", "\u1100\u1161x",
    "a\u0301\u0323b", "a\u0323\u0301", "ấ\u0323", "q\u0307\u0323\u0301x", "\u0345\u0334a",
    "e\u0301\u0301\u0301o", "\u0301ab", "a\u0334\u0301\u0316\u0345", "\u0b47\u0b3e",
    "\u0f73\u0f71x", "ＡＢＣ　ｄ", "①②⑳", "㍻", "ﷺ", "Å\u212bΩ\u2126", "\u1e69\u1e63\u0307",
    "x\u0898y\u0301", "\U00011935\U00011930", "\U00011938", "\u32ff", "\ua7f2", "\ua7cb\u1c89",
    "  a b  ", " \t\n", "\u3000x\u3000", "\x1cx\x1c", "\x85a\xa0", "\u200ba\u200b", "   ",
    "\u2028a\u2029", "a \u0301", "Ä\u0308ö", "ǰ\u0323", "\U0001d400\U0001d7ce",
)


@cache
def upstream_tokenizer(doc_json: str) -> Any:
    return tokenizers.Tokenizer.from_str(doc_json)


@cache
def reference_tokenizer(doc_json: str) -> ref.Tokenizer:
    return ref.load_tokenizer(doc_json)


def encodings(doc: dict[str, Any], text: str) -> tuple[list[Any], list[Any]]:
    """(upstream, ours) as lists of (id, token, start, end)."""
    doc_json = to_json(doc)
    up = upstream_tokenizer(doc_json).encode(text)
    theirs = [(i, t, s, e) for i, t, (s, e) in zip(up.ids, up.tokens, up.offsets, strict=True)]
    seq = reference_tokenizer(doc_json).encode_with_spans(text)
    assert ref.contract_violations(seq, text) == []
    return theirs, [(t.id, t.token, t.start, t.end) for t in seq.tokens]


# ---------------------------------------------------------------------------
# JSON shapes and refusals
# ---------------------------------------------------------------------------

LOADING = [
    *({"type": form} for form in FORMS),
    {"type": "NFKC", "strip_left": True, "x": [1]},  # fields a unit normalizer ignores
    {"type": "Lowercase"},
    {"type": "Lowercase", "foo": None},
    strip(),
    strip(False, False),
    {**strip(), "extra": 3},
    sequence({"type": "NFD"}, {"type": "Lowercase", "a": 1}, strip(True, False)),
]


@pytest.mark.parametrize("normalizer", LOADING, ids=json.dumps)
def test_shapes_upstream_loads_load(normalizer: dict[str, Any]) -> None:
    doc = document(normalizer)
    upstream_tokenizer(to_json(doc))
    for strict in (True, False):
        ref.load_tokenizer(doc, strict=strict)


REFUSED: list[tuple[dict[str, Any], str, str]] = [
    ({"type": "Strip"}, "missing-field", "$.normalizer.strip_left"),
    ({"type": "Strip", "strip_left": True}, "missing-field", "$.normalizer.strip_right"),
    ({"type": "Strip", "strip_right": True}, "missing-field", "$.normalizer.strip_left"),
    ({"type": "Strip", "left": True, "right": True}, "missing-field",
     "$.normalizer.strip_left"),
    ({"type": "Strip", "strip_left": 1, "strip_right": True}, "invalid-type",
     "$.normalizer.strip_left"),
    ({"type": "Strip", "strip_left": None, "strip_right": True}, "invalid-type",
     "$.normalizer.strip_left"),
    ({"type": "Strip", "strip_left": True, "strip_right": "true"}, "invalid-type",
     "$.normalizer.strip_right"),
    (sequence({"type": "NFC"}, {"type": "Strip", "strip_left": False}), "missing-field",
     "$.normalizer.normalizers[1].strip_right"),
    ({"type": "nfc"}, "unsupported-component", "$.normalizer.type"),
    ({"type": "StripAccents"}, "unsupported-component", "$.normalizer.type"),
    ({"type": "Nmt"}, "unsupported-component", "$.normalizer.type"),
    ({"type": "BertNormalizer"}, "unsupported-component", "$.normalizer.type"),
    ({"type": 1}, "invalid-type", "$.normalizer.type"),
]


@pytest.mark.parametrize(("normalizer", "rule", "path"), REFUSED,
                         ids=[json.dumps(r[0]) for r in REFUSED])
def test_refusals(normalizer: dict[str, Any], rule: str, path: str) -> None:
    doc = document(normalizer)
    if rule != "unsupported-component" or normalizer["type"] == "nfc":
        with pytest.raises(Exception):  # noqa: B017  upstream refuses it too
            tokenizers.Tokenizer.from_str(to_json(doc))
    for strict in (True, False):
        with pytest.raises(LoadError) as caught:
            ref.load_tokenizer(doc, strict=strict)
        assert (caught.value.rule, caught.value.path) == (rule, path)


def test_unsupported_message_lists_the_new_types() -> None:
    with pytest.raises(LoadError) as caught:
        ref.load_tokenizer(document({"type": "Precompiled", "precompiled_charsmap": None}))
    assert all(name in caught.value.message
               for name in ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip"))


def test_other_unicode_data_refuses_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a Python whose unicodedata is not the one the tables were measured with, the
    Unicode-data normalizers are refused; Strip (its own table) still loads."""
    monkeypatch.setattr(ref_normalizers, "tables_hold", lambda: False)
    for kind in (*FORMS, "Lowercase"):
        with pytest.raises(LoadError) as caught:
            ref.load_tokenizer(document(sequence(PREPEND, {"type": kind})))
        assert (caught.value.rule, caught.value.path) == (
            "unsupported-component", "$.normalizer.normalizers[1].type")
    ref.load_tokenizer(document(strip()))


def test_the_tables_hold_for_this_python() -> None:
    assert unicode_forms.tables_hold()


# ---------------------------------------------------------------------------
# Encode: hand-picked texts, every normalizer configuration
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NORMALIZERS)
def test_hand_picked_texts(name: str) -> None:
    doc = document(NORMALIZERS[name])
    for text in TEXTS:
        theirs, ours = encodings(doc, text)
        assert ours == theirs, text


def test_measured_alignments_of_the_brief() -> None:
    """The spans of expansions, compositions, NFD and multi-character lowercase, each as
    upstream gives them, and as the reference does."""
    for kind, text in (("NFKC", "ﬁ"), ("NFKC", "…"), ("NFC", "e\u0301x"), ("NFD", "é"),
                       ("Lowercase", "İ"), ("NFC", "\u1100\u1161\u11a8")):
        theirs, ours = encodings(document({"type": kind}), text)
        assert ours == theirs, (kind, text)
        assert ours, (kind, text)


def test_metaspace_after_unicode_normalizers() -> None:
    doc = document(sequence({"type": "NFKC"}, {"type": "Lowercase"}),
                   pre_tokenizer={"type": "Metaspace", "replacement": "▁",
                                  "prepend_scheme": "always", "split": True})
    for text in TEXTS:
        theirs, ours = encodings(doc, text)
        assert ours == theirs, text


def added(content: str, token_id: int) -> dict[str, Any]:
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": True, "special": False}


@pytest.mark.parametrize("kind", [*FORMS, "Lowercase"])
def test_normalized_added_tokens(kind: str) -> None:
    """Added tokens with ``normalized: true`` are matched in the normalized text by their
    normalized form (``normalize_str``)."""
    tokens = [added("ﬁx", len(VOCAB)), added("ǅ", len(VOCAB) + 1),
              added("e\u0301", len(VOCAB) + 2), added("İ", len(VOCAB) + 3)]
    doc = document({"type": kind}, added_tokens=tokens)
    for text in ("ﬁx fix", "ǅ ǆ Ǆ", "é e\u0301 E\u0301", "İi i\u0307", *TEXTS):
        theirs, ours = encodings(doc, text)
        assert ours == theirs, text


# ---------------------------------------------------------------------------
# Every code point
# ---------------------------------------------------------------------------

ALL = [chr(cp) for cp in code_points()]
#: Around each code point: alone, then as a mark after U+0345 (class 240), before U+0334
#: (class 1) and between a + U+0301 and U+0316 (reordering shows a combining class).
PROBES = (("", ""), *generator.PROBES)


def reference_of(kind: str) -> Normalizer:
    """The reference's normalizer of that type, as the loader builds it."""
    normalizer = normalizer_from_json(Node({"type": kind}))
    assert isinstance(normalizer, UnicodeForm | Lowercase)
    return normalizer


def ours_str(normalizer: Normalizer) -> Callable[[str], str]:
    return lambda text: ref_normalizers.normalize_str(normalizer, text)


@pytest.mark.slow
@pytest.mark.parametrize("kind", [*FORMS, "Lowercase"])
def test_every_code_point_normalizes_alike(kind: str) -> None:
    """The normalized text of every code point, a chunk of code points (between spaces)
    per call on each side."""
    upstream = getattr(tokenizers.normalizers, kind)().normalize_str
    ours = ours_str(reference_of(kind))
    for batch in generator.chunks(ALL):
        text = " ".join(batch)
        if upstream(text) != ours(text):
            bad = [t for t in batch if upstream(t) != ours(t)]
            pytest.fail(f"{kind}: {len(bad)} differ, first {[ascii(t) for t in bad[:5]]}")


def composition_parts() -> set[str]:
    """Both characters of every canonical decomposition into two."""
    parts: set[str] = set()
    for char in ALL:
        fields = unicodedata.decomposition(char).split()
        if len(fields) == 2 and not fields[0].startswith("<"):
            parts.update(chr(int(field, 16)) for field in fields)
    return parts


def affected(char: str, parts: set[str]) -> bool:
    """A code point some Unicode normalizer changes, reorders or composes with another.
    Any other code point is left as it is by Python's unicodedata alone and beside a mark,
    and by upstream too (test_tables_are_up_to_date: upstream differs from Python only
    where the tables say)."""
    return (unicodedata.combining(char) != 0 or char.lower() != char or char in parts
            or any(unicodedata.normalize(f, char) != char for f in FORMS)
            or unicode_forms.combining_class(char) != unicodedata.combining(char))


_PARTS = composition_parts()
AFFECTED = [c for c in ALL if affected(c, _PARTS)]
ANY_CHARACTER = tokenizers.Regex("(?m).")


def upstream_alignments(normalizer: Any, text: str) -> list[tuple[str, tuple[int, int]]]:
    """Every normalized character of ``text`` with its original character span, as
    upstream's NormalizedString aligns it."""
    pre = tokenizers.PreTokenizedString(text)
    pre.normalize(normalizer.normalize)
    pre.split(lambda _, piece: piece.split(ANY_CHARACTER, "isolated"))
    return [(s, o) for s, o, _ in pre.get_splits(offset_referential="original",
                                                 offset_type="char")]


def reference_alignments(normalizer: Normalizer, text: str
                         ) -> list[tuple[str, tuple[int, int]]]:
    piece = NormalizedText.from_original(text)
    normalizer.normalize(piece)
    return list(zip(piece.text, piece.alignments, strict=True))


def batches(texts: list[str], size: int = 512) -> Iterator[list[str]]:
    yield from generator.chunks(texts, size)


@pytest.mark.slow
@pytest.mark.parametrize("kind", [*FORMS, "Lowercase"])
def test_every_affected_code_point_aligns_alike(kind: str) -> None:
    """The normalized text and per-character alignments of every code point a normalizer
    changes, reorders or composes, alone and in the probes."""
    upstream = getattr(tokenizers.normalizers, kind)()
    ours = reference_of(kind)
    assert len(AFFECTED) > 5000
    for before, after in PROBES:
        for batch in batches([before + c + after for c in AFFECTED]):
            text = " ".join(batch)
            assert reference_alignments(ours, text) == upstream_alignments(upstream, text)


def test_whitespace_of_every_code_point() -> None:
    """Strip removes exactly what upstream's removes, over every code point."""
    upstream = tokenizers.normalizers.Strip(left=True, right=True).normalize_str
    ours = ref_normalizers.Strip(True, True)
    differing = [c for c in ALL if (upstream(c) == "") != unicode_forms.is_whitespace(c)]
    assert differing == []
    assert ref_normalizers.normalize_str(ours, "\x1c a\u3000") == upstream("\x1c a\u3000")


@pytest.mark.slow
def test_tables_are_up_to_date() -> None:
    """The committed tables are what measuring this tokenizers and Python gives now."""
    assert generator.main(["--check"]) == 0


# ---------------------------------------------------------------------------
# Property: any text, any configuration
# ---------------------------------------------------------------------------

HARD = "".join(TEXTS) + "".join(c for c in AFFECTED[::97])
texts = st.text(alphabet=st.sampled_from(sorted(set(HARD))) | st.characters(
    exclude_categories=["Cs"]), max_size=24)


@settings(deadline=None)
@given(name=st.sampled_from(sorted(NORMALIZERS)), text=texts)
def test_any_text_encodes_alike(name: str, text: str) -> None:
    theirs, ours = encodings(document(NORMALIZERS[name]), text)
    assert ours == theirs


@settings(deadline=None)
@given(kind=st.sampled_from([*FORMS, "Lowercase"]), text=texts)
def test_any_text_aligns_alike(kind: str, text: str) -> None:
    upstream = getattr(tokenizers.normalizers, kind)()
    assert reference_alignments(reference_of(kind), text) == upstream_alignments(upstream,
                                                                                 text)
