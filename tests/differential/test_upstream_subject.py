"""The upstream subject (harness/subjects/upstream.py) against tokenizers 0.23.1.

Every expectation below is a measurement of tokenizers 0.23.1: the BPE builder's panics and
load errors on crafted merges (also pinned by ``oracles/upstream_panics.json``), the
unknown token checked only at encode, the unk / byte-fallback misordering
(``docs/spec/byte-fallback.md#bf-ordering``) and the Strip decoder's panics
(``docs/decisions/0010-strip-decoder-panics.md``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from builders import probe_document

from harness.core.outcome import Crashed, Decoded, Encoded, Refused

tokenizers = pytest.importorskip("tokenizers")

from harness.subjects import upstream  # noqa: E402  (needs tokenizers)

pytestmark = pytest.mark.upstream


def _load(document: dict[str, Any]) -> upstream.Handle:
    handle = upstream.load(json.dumps(document, ensure_ascii=False))
    assert isinstance(handle, upstream.Handle), handle
    return handle


def test_version_is_the_pinned_one() -> None:
    assert upstream.version() == "0.23.1"


def test_merge_result_longer_than_every_entry_is_a_panic_and_the_next_load_works() -> None:
    # Merge result "ab" (2 bytes) missing, longest entry 1 byte -> 0.23.x panics.
    crashed = upstream.load(json.dumps(probe_document(["a", "b"], [["a", "b"]])))
    assert crashed == Crashed("panic", "range end index 2 out of range for slice of length 1")

    handle = _load(probe_document(["a", "b", "ab"], [["a", "b"]]))
    assert upstream.encode(handle, "ab") == Encoded(
        ids=(2,), tokens=("ab",), spans=((0, 2),), special_mask=(0,), type_ids=(0,),
        attention_mask=(1,))


def test_prefix_underflow_is_a_panic() -> None:
    # A merge's right part shorter than continuing_subword_prefix -> panic.
    document = probe_document(["a", "b", "ab"], [["a", "b"]], continuing_subword_prefix="##")
    outcome = upstream.load(json.dumps(document))
    assert isinstance(outcome, Crashed) and outcome.kind == "panic"


def test_strip_decoder_panic_is_crashed_and_the_handle_still_works() -> None:
    # Strip with stop=1 panics on a token shorter than one character ("" after Fuse
    # of a decode whose every id was skipped), and start=1, stop=1 panics on " ".
    document = probe_document(
        ["a", "b", "ab", " "], [["a", "b"]],
        decoder={"type": "Strip", "content": " ", "start": 1, "stop": 1},
    )
    handle = _load(document)
    outcome = upstream.decode(handle, [3], skip_special_tokens=True)
    assert isinstance(outcome, Crashed) and outcome.kind == "panic"
    assert "slice index starts at 1 but ends at 0" in outcome.message
    # the same handle keeps working after the panic
    assert upstream.decode(handle, [2], skip_special_tokens=True) == Decoded("ab")
    assert upstream.encode(handle, "ab").ids == (2,)  # type: ignore[union-attr]


def test_load_error_is_refused_without_the_serde_position() -> None:
    # A missing merge result no longer than the longest entry is a normal error.
    document = probe_document(["a", "b", "abc"], [["a", "b"]])
    outcome = upstream.load(json.dumps(document))
    assert isinstance(outcome, Refused)
    assert outcome.rule == "Token `ab` out of vocabulary"
    assert outcome.message.startswith("Token `ab` out of vocabulary at line 1 column ")


def test_bad_version_is_refused() -> None:
    outcome = upstream.load(json.dumps({**probe_document(["a"]), "version": "2.0"}))
    assert isinstance(outcome, Refused)
    assert outcome.rule == "Unknown tokenizer version '2.0'"


def test_dangling_unk_token_is_refused_at_encode_only_when_needed() -> None:
    # unk_token set but not in the vocabulary: load succeeds, known chars encode,
    # the first unknown char fails the whole encode.
    handle = _load(probe_document(["a", "b"], unk_token="<unk>"))
    assert upstream.encode(handle, "ab").ids == (0, 1)  # type: ignore[union-attr]
    assert upstream.encode(handle, "aX") == Refused(
        rule="Unk token `<unk>` not found in the vocabulary",
        message="Unk token `<unk>` not found in the vocabulary",
    )


def test_a1_misordering_probe_gives_the_documented_stream() -> None:
    # The misordering probe: V=["<unk>","<0x58>"], byte_fallback, no decoder.
    handle = _load(probe_document(["<unk>", "<0x58>"], unk_token="<unk>", byte_fallback=True))
    expected = Encoded(ids=(1, 0), tokens=("<0x58>", "<unk>"), spans=((0, 1), (1, 2)),
                       special_mask=(0, 0), type_ids=(0, 0), attention_mask=(1, 1))
    assert upstream.encode(handle, "XY") == expected
    assert upstream.encode(handle, "YX") == expected
    assert upstream.decode(handle, [1, 0], skip_special_tokens=True) == Decoded("<0x58> <unk>")


def test_spans_are_character_offsets_and_specials_are_masked() -> None:
    vocab = ["<unk>", "<s>", "</s>", "a", "é", "😀"]
    document = probe_document(
        vocab, unk_token="<unk>",
        added_tokens=[{"id": 1, "content": "<s>", "single_word": False, "lstrip": False,
                       "rstrip": False, "normalized": False, "special": True}],
        post_processor={
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}},
        },
    )
    handle = _load(document)
    assert upstream.encode(handle, "é😀a") == Encoded(
        ids=(1, 4, 5, 3), tokens=("<s>", "é", "😀", "a"),
        spans=((0, 0), (0, 1), (1, 2), (2, 3)), special_mask=(1, 0, 0, 0),
        type_ids=(0, 0, 0, 0), attention_mask=(1, 1, 1, 1))
    assert upstream.encode(handle, "é", add_special_tokens=False).ids == (4,)  # type: ignore[union-attr]
    paired = upstream.encode(handle, "a", pair="é")
    assert isinstance(paired, Encoded)
    assert paired.ids == (1, 3, 4) and paired.spans == ((0, 0), (0, 1), (0, 1))
    assert upstream.decode(handle, [1, 3], skip_special_tokens=True) == Decoded("a")
    assert upstream.decode(handle, [1, 3], skip_special_tokens=False) == Decoded("<s> a")


def test_out_of_range_id_is_an_exception_not_a_refusal() -> None:
    handle = _load(probe_document(["a"]))
    outcome = upstream.decode(handle, [-1], skip_special_tokens=True)
    assert isinstance(outcome, Crashed) and outcome.kind == "exception"
    assert outcome.message.startswith("OverflowError")


def test_keyboard_interrupt_is_not_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(_: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tokenizers.Tokenizer, "from_str", interrupted)
    with pytest.raises(KeyboardInterrupt):
        upstream.load("{}")


def test_panic_output_does_not_reach_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    upstream.load(json.dumps(probe_document(["a", "b"], [["a", "b"]])))
    assert "panicked" not in capfd.readouterr().err
