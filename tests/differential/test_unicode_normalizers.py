"""The Unicode normalizers (NFC, NFD, NFKC, NFKD, Lowercase, Strip) against tokenizers
0.23.1 run live on the same documents (docs/decisions/0025-unicode-normalizers.md).

The documents are small byte-fallback BPE files (every character encodes: a few letters
and merges over the 256 byte pieces, a bare ByteFallback decoder, no template), with each
normalizer alone and in Sequences with Prepend and Replace. Every expected value is
computed by ``tokenizers`` on the same document or text; nothing upstream says is typed in.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from builders import byte_alphabet, merge_results, probe_document, to_json
from hypothesis import given, settings
from hypothesis import strategies as st
from normalizer_sides import AFFECTED, ALL, reference_alignments, reference_of, upstream_alignments

import implementation as ref
from implementation import normalizers as ref_normalizers
from implementation import unicode_forms
from implementation.errors import LoadError

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

def test_whitespace_of_every_code_point() -> None:
    """Strip removes exactly what upstream's removes, over every code point."""
    upstream = tokenizers.normalizers.Strip(left=True, right=True).normalize_str
    ours = ref_normalizers.Strip(True, True)
    differing = [c for c in ALL if (upstream(c) == "") != unicode_forms.is_whitespace(c)]
    assert differing == []
    assert ref_normalizers.normalize_str(ours, "\x1c a\u3000") == upstream("\x1c a\u3000")


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
