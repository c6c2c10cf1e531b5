"""Properties of the reference over generated documents and texts.

(a) The offset contract (``docs/spec/offset-contract.md``): its four invariants
    hold for every encoding of every generated document the strict reference loads.
    Cases come from ``harness.strategies.cases()`` (mixed with the compact
    ``builders.cases()``; the latter alone when the harness exposes no ``cases``).
    Documents the strict reference refuses are skipped and counted with ``event``.
(b) Byte fallback: every byte piece of one character shares that character's span, and
    no span leaves ``[0, len(text)]``.
(c) Mutation fuzz: valid documents, mutated, either load or raise ``LoadError``; loaded
    ones encode raising nothing but ``EncodeError`` and decode raising nothing but
    ``DecodeError``.

Example counts come only from the Hypothesis profile (``tests/conftest.py``).
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from builders import (
    byte_alphabet,
    cases,
    generated_documents,
    llama_like_document,
    metaspace_document,
    probe_document,
    to_json,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import implementation as ref

try:  # the harness's own generator, when it exposes one
    from harness.strategies import cases as harness_cases
    from harness.strategies import documents as harness_documents
except ImportError:  # pragma: no cover - depends on the harness's state
    CASES: st.SearchStrategy[Any] = cases()
    DOCUMENTS: st.SearchStrategy[dict[str, Any]] = generated_documents()
else:
    CASES = st.one_of(harness_cases(), cases())
    DOCUMENTS = st.one_of(harness_documents(), generated_documents())

BYTE_PIECE = re.compile(r"<0x[0-9A-F]{2}>")
# Generated data is large and slow-ish to draw; and the first load of a Split regex or a
# Unicode normalizer builds its character tables (a few hundred ms, cached after), which no
# per-example deadline can tell from a slow encode: no deadline.
LARGE = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
                 deadline=None)


def load_or_skip(document: Any, *, strict: bool = True) -> ref.Tokenizer | None:
    try:
        return ref.load_tokenizer(document, strict=strict)
    except ref.LoadError as exc:
        event(f"load refused: {exc.rule}")
        return None


def encode_or_skip(
    tok: ref.Tokenizer, text: str, add_special_tokens: bool = True, pair: str | None = None
) -> ref.EncodedSequence | None:
    try:
        return tok.encode_with_spans(text, add_special_tokens, pair=pair)
    except ref.EncodeError as exc:
        event(f"encode refused: {exc.rule}")
        return None


def assert_contract(seq: ref.EncodedSequence, text: str) -> None:
    assert ref.contract_violations(seq, text) == [], [
        (t.token, t.start, t.end, t.track) for t in seq.tokens]
    assert len(seq.input_ids) == len(seq.tokens) == len(seq.attention_mask)
    assert len(seq.special_tokens_mask) == len(seq.tokens)
    for mask, token in zip(seq.special_tokens_mask, seq.tokens, strict=True):
        assert mask == (1 if token.track == "special" else 0)
        if token.track == "special":
            assert (token.start, token.end) == (-1, -1)
        else:
            assert 0 <= token.start <= token.end <= len(text)


def assert_byte_pieces_single_character(seq: ref.EncodedSequence, text: str) -> None:
    """A byte piece comes from one character: its span is exactly one character wide.

    A token spelled like a byte piece that covers its own spelling in the text is a
    vocabulary hit (``ignore_merges`` on the word ``<0x41>``), not byte fallback.
    """
    for token in seq.tokens:
        if token.track == "bpe" and BYTE_PIECE.fullmatch(token.token):
            if text[token.start:token.end] == token.token:
                continue
            assert token.end - token.start == 1, (token, text)
            assert 0 <= token.start < token.end <= len(text)


def pair_order(document: dict[str, Any]) -> list[str]:
    """Which sequence each Sequence piece of the pair template lays out, in order (the
    template may be a step of a post-processor Sequence; a ByteLevel step lays out nothing)."""
    steps = [document.get("post_processor")]
    while steps:
        processor = steps.pop(0)
        if not processor:
            continue
        if processor["type"] == "Sequence":
            steps[:0] = processor["processors"]
        elif processor["type"] == "TemplateProcessing":
            return [piece["Sequence"]["id"] for piece in processor["pair"]
                    if "Sequence" in piece]
    return ["A", "B"]


# ---------------------------------------------------------------------------
# (a) the offset contract's four invariants
# ---------------------------------------------------------------------------


@LARGE
@given(case=CASES)
def test_offset_contract_on_generated_cases(case: Any) -> None:
    tok = load_or_skip(case.document)
    if tok is None:
        return
    event("loaded")
    for text in case.texts:
        for add_special_tokens in (True, False):
            seq = encode_or_skip(tok, text, add_special_tokens)
            if seq is not None:
                assert_contract(seq, text)
                assert_byte_pieces_single_character(seq, text)


@LARGE
@given(case=CASES)
def test_pair_encoding_is_the_template_over_each_sequence(case: Any) -> None:
    tok = load_or_skip(case.document)
    if tok is None:
        return
    pairs = list(case.pairs) or [(case.texts[0], case.texts[-1])]
    for first, second in pairs:
        seq = encode_or_skip(tok, first, pair=second)
        if seq is None:
            continue
        alone = {"A": tok.encode_with_spans(first, False),
                 "B": tok.encode_with_spans(second, False)}
        assert_contract(alone["A"], first)
        assert_contract(alone["B"], second)
        # invariants 3 and 4 on the pair, and its sequence tokens are each sequence's own,
        # spans relative to their own text
        assert len(seq.input_ids) == len(seq.tokens) == len(seq.attention_mask)
        assert list(seq.special_tokens_mask) == [
            1 if t.track == "special" else 0 for t in seq.tokens]
        laid_out = [t for t in seq.tokens if t.track != "special"]
        expected = [replace(t, metadata={**t.metadata, "sequence": 0 if key == "A" else 1})
                    for key in pair_order(case.document) for t in alone[key].tokens]
        assert laid_out == expected
        assert [t.metadata.get("sequence") for t in seq.tokens if t.track == "special"] == [
            None] * sum(seq.special_tokens_mask)


# ---------------------------------------------------------------------------
# (b) byte pieces share their character's span
# ---------------------------------------------------------------------------

BASE = ["<unk>", "a", "b", "c", "ab"]
FULL = probe_document([*BASE, *byte_alphabet()], [["a", "b"]], unk_token="<unk>",
                      byte_fallback=True, decoder={"type": "ByteFallback"})
PREFIX = probe_document([*BASE, "##b", "##c", *byte_alphabet()], [["a", "##b"]],
                        unk_token="<unk>", byte_fallback=True,
                        decoder={"type": "ByteFallback"}, continuing_subword_prefix="##")
SUFFIX = probe_document([*BASE, *byte_alphabet()], [["a", "b"]], unk_token="<unk>",
                        byte_fallback=True, decoder={"type": "ByteFallback"},
                        end_of_word_suffix="</w>")
BYTE_DOCUMENTS = {"plain": FULL, "prefix": PREFIX, "suffix": SUFFIX}
BYTE_TOKENIZERS = {name: ref.load_tokenizer(doc) for name, doc in BYTE_DOCUMENTS.items()}
LLAMA = ref.load_tokenizer(llama_like_document())

# Valid Unicode scalar values only: a lone surrogate is no text (upstream: TypeError).
TEXTS = st.text(
    st.one_of(st.sampled_from("abc é日€😀\t\n\x00"), st.characters(codec="utf-8")), max_size=16
)


def decorated(document: dict[str, Any], text: str, k: int) -> str:
    """The symbol BPE looks up for character ``k`` of a one-word ``text``."""
    model = document["model"]
    symbol = text[k]
    if k > 0 and model["continuing_subword_prefix"] is not None:
        symbol = model["continuing_subword_prefix"] + symbol
    if k == len(text) - 1 and model["end_of_word_suffix"] is not None:
        symbol += model["end_of_word_suffix"]
    return symbol


@given(name=st.sampled_from(sorted(BYTE_DOCUMENTS)), text=TEXTS)
def test_byte_pieces_of_one_character_share_its_span(name: str, text: str) -> None:
    """No normalizer, no pre-tokenizer: the text is one word. The byte pieces reported at
    character ``k`` are exactly the UTF-8 bytes of the (decorated) symbol BPE looked up
    there, or none when that symbol is in the vocabulary."""
    document, tok = BYTE_DOCUMENTS[name], BYTE_TOKENIZERS[name]
    seq = tok.encode_with_spans(text)
    assert_contract(seq, text)
    assert_byte_pieces_single_character(seq, text)
    vocab = document["model"]["vocab"]
    for k in range(len(text)):
        pieces = [t.token for t in seq.tokens
                  if (t.start, t.end) == (k, k + 1) and BYTE_PIECE.fullmatch(t.token)]
        symbol = decorated(document, text, k)
        expected = b"" if symbol in vocab else symbol.encode()
        assert bytes(int(p[3:5], 16) for p in pieces) == expected


@given(text=TEXTS)
def test_llama_byte_pieces_share_their_character_span(text: str) -> None:
    """Under the Llama normalizer every byte piece is of an original character (▁ and the
    space are in the vocabulary): the pieces at ``(k, k+1)`` spell ``text[k]``."""
    seq = LLAMA.encode_with_spans(text)
    assert_contract(seq, text)
    for k, char in enumerate(text):
        pieces = [t.token for t in seq.tokens
                  if (t.start, t.end) == (k, k + 1) and BYTE_PIECE.fullmatch(t.token)]
        if pieces:
            assert bytes(int(p[3:5], 16) for p in pieces) == char.encode()
    bytes_spans = {t.span for t in seq.tokens if BYTE_PIECE.fullmatch(t.token)}
    assert all(0 <= s < e <= len(text) for s, e in bytes_spans)


# ---------------------------------------------------------------------------
# (c) mutation fuzz: LoadError or a tokenizer, nothing else, ever
# ---------------------------------------------------------------------------

SEEDS: dict[str, dict[str, Any]] = {
    "llama-like": llama_like_document(),
    "metaspace-first": metaspace_document("first", False),
    "metaspace-never": metaspace_document("never", True),
    "byte-fallback": FULL,
    "prefix": PREFIX,
}

COMPONENT_TYPES = (
    "BPE", "WordPiece", "WordLevel", "Unigram", "Sequence", "Prepend", "Replace", "NFKC",
    "Lowercase", "Strip", "Metaspace", "ByteLevel", "Whitespace", "TemplateProcessing",
    "BertProcessing", "ByteFallback", "Fuse", "CTC", "", "Nope",
)
JSON_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 7, 2**32, 2**64, 1.5, -0.0, 0.5, "", "x", "<unk>", "▁", "1.0",
    [], [1], ["a", "b"], [["a", "b"]], {}, {"type": "BPE"}, {"String": " "}, {"Regex": "\\s+"},
)


def json_type(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def slots(value: Any) -> Iterator[tuple[Any, Any]]:
    """Every (container, key) of a JSON value, depth first."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield value, key
            yield from slots(child)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield value, index
            yield from slots(child)


def bulk_containers(document: dict[str, Any]) -> set[int]:
    """ids of the vocabulary and merges containers (and each merge), which dominate the slots."""
    model = document.get("model")
    if not isinstance(model, dict):
        return set()
    bulk = {id(model.get("vocab")), id(model.get("merges"))}
    if isinstance(model.get("merges"), list):
        bulk.update(id(m) for m in model["merges"] if isinstance(m, list))
    return bulk


@st.composite
def a_slot(draw: st.DrawFn, document: dict[str, Any]) -> tuple[Any, Any] | None:
    """A (container, key) anywhere; half the time outside the vocabulary and merges."""
    places = list(slots(document))
    if draw(st.booleans()):
        bulk = bulk_containers(document)
        places = [(c, k) for c, k in places if id(c) not in bulk] or places
    return draw(st.sampled_from(places)) if places else None


@st.composite
def drop_a_key(draw: st.DrawFn, document: dict[str, Any]) -> str:
    place = draw(a_slot(document))
    if place is None:
        return "drop nothing"
    container, key = place
    del container[key]
    return f"drop {key!r}"


@st.composite
def change_a_type(draw: st.DrawFn, document: dict[str, Any]) -> str:
    place = draw(a_slot(document))
    if place is None:
        return "retype nothing"
    container, key = place
    kind = json_type(container[key])
    value = draw(st.sampled_from([v for v in JSON_VALUES if json_type(v) != kind]))
    container[key] = copy.deepcopy(value)
    return f"retype {key!r}: {kind} -> {value!r}"


@st.composite
def corrupt_a_merge(draw: st.DrawFn, document: dict[str, Any]) -> str:
    model = document.get("model")
    if not isinstance(model, dict) or not isinstance(model.get("merges"), list):
        return "merge: no merges"
    merges: list[Any] = model["merges"]
    vocab = model.get("vocab")
    pieces = list(vocab) if isinstance(vocab, dict) and vocab else ["a"]
    a, b = draw(st.sampled_from(pieces)), draw(st.sampled_from(pieces))
    choices: list[Any] = [
        [], [a], [a, b, a], f"{a}  {b}", "", 7, None, [a, 7], [a, b + "\u2603"], [b, a],
        "#version: 0.2", f"{a} {b}", f"# {a}", [a, ""], ["", b], {"a": b},
    ]
    bad: Any = draw(st.sampled_from(choices))
    replace_one: bool = draw(st.booleans())
    if merges and replace_one:
        index = draw(st.integers(0, len(merges) - 1))
        merges[index] = bad
    else:
        merges.insert(draw(st.integers(0, len(merges))), bad)
    return f"merge -> {bad!r}"


@st.composite
def replace_a_component_type(draw: st.DrawFn, document: dict[str, Any]) -> str:
    typed = [c for c, k in slots(document) if isinstance(c, dict) and k == "type"]
    typed = list({id(c): c for c in typed}.values())
    if not typed:
        return "type: no typed component"
    component = draw(st.sampled_from(typed))
    component["type"] = draw(st.sampled_from(COMPONENT_TYPES))
    return f"type -> {component['type']!r}"


MUTATIONS = (drop_a_key, change_a_type, corrupt_a_merge, replace_a_component_type)
# Any character goes into the garbage, NUL and lone surrogates included (both once escaped
# the loader as ValueError / UnicodeEncodeError; see the pinned tests at the end).
GARBAGE = st.one_of(
    st.text(min_size=1, max_size=6),
    st.text(st.characters(codec=None, categories=["Cs", "Cc"]), min_size=1, max_size=3),
    st.sampled_from(['"', "{", "}", "[", "]", ",", ":", "\\", "null", "\\u", "\\ud800"]),
)
BYTE_GARBAGE = st.binary(min_size=1, max_size=4)


@st.composite
def mutated_sources(draw: st.DrawFn) -> tuple[Any, list[str]]:
    seed = draw(st.one_of(st.sampled_from(sorted(SEEDS)).map(SEEDS.__getitem__), DOCUMENTS))
    document = copy.deepcopy(seed)
    done: list[str] = []
    for mutation in draw(st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=3)):
        done.append(draw(mutation(document)))
    form = draw(st.sampled_from(["dict", "text", "bytes", "truncated", "garbage",
                                 "byte-garbage"]))
    if form == "dict":
        return document, done
    text = to_json(document)
    if form == "truncated":
        cut = draw(st.integers(0, len(text)))
        text = text[:cut]
        done.append(f"truncate at {cut}")
    elif form == "garbage":
        at = draw(st.integers(0, len(text)))
        junk = draw(GARBAGE)
        text = text[:at] + junk + text[at:]
        done.append(f"garbage {junk!r} at {at}")
    elif form == "byte-garbage":
        raw = text.encode("utf-8", errors="surrogatepass")
        at = draw(st.integers(0, len(raw)))
        junk_bytes = draw(BYTE_GARBAGE)
        done.append(f"garbage {junk_bytes!r} at byte {at}")
        return raw[:at] + junk_bytes + raw[at:], done
    if form == "bytes":
        return text.encode("utf-8", errors="surrogatepass"), done
    return text, done


PROBE_TEXTS = ("", "Hello world", "aé€😀 <s>x", " \t\n", "XYZ</s>ab")


def exercise(tok: ref.Tokenizer) -> None:
    """Encode and decode a few inputs: only the reference's own errors may come out."""
    for text in PROBE_TEXTS:
        for add_special_tokens in (True, False):
            try:
                seq = tok.encode_with_spans(text, add_special_tokens)
            except ref.EncodeError:
                continue
            assert ref.contract_violations(seq, text) == []
            for skip in (True, False):
                with contextlib.suppress(ref.DecodeError):
                    tok.decode(seq.input_ids, skip_special_tokens=skip)
    with contextlib.suppress(ref.EncodeError):
        tok.encode_with_spans(PROBE_TEXTS[1], pair=PROBE_TEXTS[2])
    for ids in ([0, 1, 2, 3], [10**6], []):
        with contextlib.suppress(ref.DecodeError):
            tok.decode(ids, skip_special_tokens=False)


@LARGE
@given(mutated=mutated_sources(), strict=st.booleans())
def test_mutated_documents_load_or_raise_load_error(
    mutated: tuple[Any, list[str]], strict: bool
) -> None:
    source, done = mutated
    for mutation in done:
        event(mutation.split(" ")[0].rstrip(":"))
    try:
        tok = ref.load_tokenizer(source, strict=strict)
    except ref.LoadError as exc:
        event(f"refused: {exc.rule}")
        assert exc.rule in ref.LOAD_RULES
        assert exc.path.startswith("$")
        return
    event("loaded")
    exercise(tok)


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_seed_documents_load_in_both_modes(name: str) -> None:
    for strict in (True, False):
        exercise(ref.load_tokenizer(SEEDS[name], strict=strict))
        exercise(ref.load_tokenizer(json.dumps(SEEDS[name]), strict=strict))


# ---------------------------------------------------------------------------
# Sources the fuzz found that once raised something else than LoadError (fixed; pinned)
# ---------------------------------------------------------------------------


def test_invalid_utf8_bytes_raise_load_error() -> None:
    # upstream: Tokenizer.from_buffer(b'\xff') -> ValueError('Cannot instantiate Tokenizer
    # from buffer: expected value at line 1 column 1'); b'{"a\xff": 1}' -> '... invalid
    # unicode code point at line 1 column 5'
    with pytest.raises(ref.LoadError) as info:
        ref.load_tokenizer(b"\xff")
    assert info.value.rule == "malformed-json"


@pytest.mark.parametrize("source", ["\x00{}", " \x00"])
def test_nul_in_a_path_like_source_raises_load_error(source: str) -> None:
    # upstream: Tokenizer.from_str('\x00{}') -> Exception('expected value at line 1 column 1')
    with pytest.raises(ref.LoadError):
        ref.load_tokenizer(source)


SURROGATE_MERGE = probe_document(["a", "b", "a\ud800", "\ud800"], [["a", "\ud800"]])


@pytest.mark.parametrize("form", ["dict", "ascii-json", "utf8-json"])
def test_lone_surrogate_in_a_merge_raises_load_error(form: str) -> None:
    # upstream: Tokenizer.from_str(json.dumps(doc)) ->
    #   Exception('unexpected end of hex escape at line 1 column ...')
    source: Any = {
        "dict": SURROGATE_MERGE,
        "ascii-json": json.dumps(SURROGATE_MERGE),
        "utf8-json": json.dumps(SURROGATE_MERGE, ensure_ascii=False),
    }[form]
    with pytest.raises(ref.LoadError):
        ref.load_tokenizer(source, strict=False)


def test_lone_surrogate_escape_in_json_text_is_refused() -> None:
    # upstream: Tokenizer.from_str(json.dumps(llama_like_document(added_tokens=[<\ud800>])))
    #   -> Exception('unexpected end of hex escape at line 1 column 102')
    document = llama_like_document(added_tokens=[{
        "id": 0, "content": "\ud800", "single_word": False, "lstrip": False,
        "rstrip": False, "normalized": False, "special": True}])
    with pytest.raises(ref.LoadError) as info:
        ref.load_tokenizer(json.dumps(document), strict=False)
    assert info.value.rule == "malformed-json"
