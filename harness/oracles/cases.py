"""The hand-chosen INPUTS of the oracle files (``oracles/*.json``): tokenizer.json
documents (inline, fixtures written under ``fixtures/``, or real-model fixtures built at
run time by ``harness.fixtures.real_models``), texts (hand-chosen, or the committed real-model
corpus), id runs, and the flags naming what each row exercises (declared with their
meanings in ``spec.py``).

Nothing here is an output. Every observed value in an oracle file comes from running
``tokenizers`` on these inputs (``harness.oracles.generation``); the replay tests then check the
reference against those observations.

Ids of stable rows never change meaning: to probe something new, add a row with a new id.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..core.resources import data_file
from ..documents import (
    added_token,
    byte_alphabet,
    llama_decoder,
    llama_like_document,
    llama_specials,
    metaspace_document,
    probe_document,
)
from .spec import OracleSpec, RowSpec, TokenizerSpec

Document = dict[str, Any]


# ---------------------------------------------------------------------------
# Documents (built by harness.documents, the builders every part of the project shares)
# ---------------------------------------------------------------------------


def llama_normalized_added_document() -> Document:
    """The Llama-like probe plus ``<x>`` (special, normalized) and ``hello world``
    (not special, normalized), whose decode changed in tokenizers 0.23.0. Neither is in
    the model vocabulary, so they take the next ids: NORMALIZED_X_ID and the one after."""
    base = llama_like_document()
    next_id = len(base["model"]["vocab"])
    return llama_like_document(added_tokens=[
        *llama_specials(),
        added_token("<x>", next_id, special=True, normalized=True),
        added_token("hello world", next_id + 1, special=False, normalized=True),
    ])


#: The id ``<x>`` takes in the normalized-added fixture (the model vocabulary's size).
NORMALIZED_X_ID = len(llama_like_document()["model"]["vocab"])


def llama_normalized_specials_document() -> Document:
    """The Llama-like probe with ``<unk> <s> </s>`` declared normalized: true (some
    older uploads)."""
    return llama_like_document(added_tokens=llama_specials(normalized=True))


SCHEMES = ("always", "first", "never")
SPLITS = (True, False)


def metaspace_fixture(scheme: str, split: bool) -> str:
    return f"fixtures/metaspace_{scheme}_split_{'true' if split else 'false'}.tokenizer.json"


def _metaspace_builder(scheme: str, split: bool) -> Callable[[], Document]:
    return lambda: metaspace_document(prepend_scheme=scheme, split=split)


LLAMA_FIXTURE = "fixtures/llama_like.tokenizer.json"
LLAMA_NORMALIZED_ADDED_FIXTURE = "fixtures/llama_like_normalized_added.tokenizer.json"
LLAMA_NORMALIZED_SPECIALS_FIXTURE = "fixtures/llama_like_normalized_specials.tokenizer.json"

#: Fixture files (path from the repository root) and the builder of each. The files are
#: written from these builders by the oracles command and checked by ``--check``.
FIXTURES: dict[str, Callable[[], Document]] = {
    LLAMA_FIXTURE: llama_like_document,
    LLAMA_NORMALIZED_ADDED_FIXTURE: llama_normalized_added_document,
    LLAMA_NORMALIZED_SPECIALS_FIXTURE: llama_normalized_specials_document,
    **{metaspace_fixture(scheme, split): _metaspace_builder(scheme, split)
       for scheme in SCHEMES for split in SPLITS},
}


# ---------------------------------------------------------------------------
# bpe_byte_fallback.json: the byte-fallback decision's measurements
# ---------------------------------------------------------------------------

BF_BASE = ["<unk>", "a", "b", "c", "ab"]
BF_MERGES = [["a", "b"]]
BF_DECODER = {"type": "ByteFallback"}


def bf_document(pieces: Sequence[str], *, extra_merges: Sequence[Sequence[str]] = (),
                decoder: Any = BF_DECODER, unk_token: str | None = "<unk>",
                base: Sequence[str] = BF_BASE, **fields: Any) -> Document:
    """The decision's probe: a four-piece BPE (a, b, c, ab; merge a+b), ``<unk>`` first,
    then ``pieces`` in order, byte_fallback on."""
    return probe_document([*base, *pieces], [*BF_MERGES, *extra_merges], unk_token=unk_token,
                          byte_fallback=True, decoder=decoder, **fields)


def bf_byte_id(value: int) -> int:
    """Id of ``<0xNN>`` in every document with the full alphabet right after BF_BASE."""
    return len(BF_BASE) + value


#: A text per byte width, ASCII through the emoji, and a control character.
WIDTH_TEXTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ascii", "abc", ("bf-width-1",)),
    ("e-acute", "é", ("bf-width-2", "bf-fact-1-code-point")),
    ("cjk", "日", ("bf-width-3", "bf-fact-1-code-point")),
    ("emoji", "😀", ("bf-width-4", "bf-fact-1-code-point")),
    ("control", "\x07", ("bf-control", "bf-width-1", "bf-fact-1-code-point")),
    ("mixed", "aé€😀\x07b", ("bf-width-1", "bf-width-2", "bf-width-3", "bf-width-4",
                              "bf-control", "bf-fact-1-code-point")),
    ("uncovered-ascii", "aXXb", ("bf-width-1", "bf-fact-1-code-point")),
)

#: Texts over the partial alphabet carrying only <0x58> ('X'): byte-resolved and
#: unknown symbols side by side, fuse_unk on and off.
FUSE_TEXTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("a-xx-b", "aXXb", ("bf-fact-6-no-fuse",)),
    ("a-yy-b", "aYYb", ("bf-fact-6-no-fuse",)),
    ("a-x-yy-x-b", "aXYYXb", ("bf-fact-6-no-fuse", "bf-ordering",
                              "unk-byte-fallback-ordering")),
    ("e-acute", "é", ("bf-width-2", "bf-fact-2-all-or-nothing")),
    ("cjk", "日", ("bf-width-3", "bf-fact-2-all-or-nothing")),
    ("emoji", "😀", ("bf-width-4", "bf-fact-2-all-or-nothing")),
    ("control", "\x07", ("bf-control", "bf-width-1")),
    ("ascii", "abc", ("bf-width-1",)),
)

R_RUNS: tuple[tuple[str, tuple[int | str, ...], tuple[str, ...]], ...] = (
    # (name, items: a byte value as int, or a token string, flags)
    ("f0-9f-cut-emoji", (0xF0, 0x9F), ("bf-decode-cut-mid-character",)),
    ("c3-28-lead-then-ascii", (0xC3, 0x28), ()),
    ("61-c3-valid-then-cut", (0x61, 0xC3), ("bf-decode-cut-mid-character",)),
    ("e2-82-a-ac-run-split-by-token", (0xE2, 0x82, "a", 0xAC),
     ("bf-decode-cut-mid-character",)),
    ("e2-82-ac-euro", (0xE2, 0x82, 0xAC), ()),
    ("ed-a0-80-surrogate", (0xED, 0xA0, 0x80), ()),
    ("c0-80-overlong", (0xC0, 0x80), ()),
    ("f4-90-80-80-past-max", (0xF4, 0x90, 0x80, 0x80), ()),
    ("a-c3-a9-c3-trailing-lead", ("a", 0xC3, 0xA9, 0xC3), ("bf-decode-cut-mid-character",)),
    ("f0-9f-98-80-emoji", (0xF0, 0x9F, 0x98, 0x80), ()),
    ("c3-a9-e-acute", (0xC3, 0xA9), ()),
    ("a9-lone-continuation", (0xA9,), ()),
    ("ff-invalid-byte", (0xFF,), ()),
    ("c3-unk-a9-split-by-unk", (0xC3, "<unk>", 0xA9), ("bf-decode-cut-mid-character",)),
    ("f0-9f-a-98-80-emoji-split", (0xF0, 0x9F, "a", 0x98, 0x80),
     ("bf-decode-cut-mid-character",)),
    ("00-nul", (0x00,), ()),
    ("e6-97-cut-cjk", (0xE6, 0x97), ("bf-decode-cut-mid-character",)),
)

_BF_TOKEN_IDS = {token: i for i, token in enumerate(BF_BASE)}


def _bf_run_ids(items: Sequence[int | str]) -> tuple[int, ...]:
    return tuple(bf_byte_id(i) if isinstance(i, int) else _BF_TOKEN_IDS[i] for i in items)


def _bf_spec() -> OracleSpec:
    incomplete = ("strict-byte-alphabet-incomplete",)
    tokenizers = (
        TokenizerSpec("bf-full", bf_document(byte_alphabet()),
                      flags=("bf-fuse-unk-off", "bf-decoder-bytefallback"),
                      comment="a, b, c, ab + all 256 byte pieces; fuse_unk off"),
        TokenizerSpec("bf-full-fuse", bf_document(byte_alphabet(), fuse_unk=True),
                      flags=("bf-fuse-unk-on", "bf-decoder-bytefallback"),
                      comment="the same, fuse_unk on"),
        TokenizerSpec("bf-full-llama-decoder", bf_document(byte_alphabet(),
                                                           decoder=llama_decoder()),
                      flags=("bf-decoder-llama-chain",),
                      comment="the full alphabet under the Llama decoder chain"),
        TokenizerSpec("bf-e-acute-present", bf_document(["é", *byte_alphabet()]),
                      flags=("bf-fact-1-code-point",),
                      comment="é is a vocabulary symbol (id 5): never expanded"),
        TokenizerSpec("bf-partial-c3", bf_document(["<0xC3>"]),
                      flags=("bf-fact-2-all-or-nothing", *incomplete),
                      comment="only <0xC3> of é's two bytes"),
        TokenizerSpec("bf-lowercase-c3", bf_document(["<0xc3>", "<0xA9>"]),
                      flags=("bf-fact-3-uppercase", "strict-byte-piece-lowercase"),
                      comment="<0xc3> spelled in lower case, <0xA9> upper case"),
        TokenizerSpec("bf-merged-bytes", bf_document([*byte_alphabet(), "<0xC3><0xA9>"],
                                                     extra_merges=[["<0xC3>", "<0xA9>"]]),
                      flags=("bf-fact-4-before-merges",),
                      comment="the merge <0xC3> <0xA9> is declared"),
        TokenizerSpec("bf-prefix", probe_document(
            [*BF_BASE, "##b", "##c", *byte_alphabet()], [["a", "##b"]], unk_token="<unk>",
            byte_fallback=True, decoder=BF_DECODER, continuing_subword_prefix="##"),
            flags=("bf-fact-5-decorated",), comment="continuing_subword_prefix '##'"),
        TokenizerSpec("bf-suffix", bf_document(byte_alphabet(), end_of_word_suffix="</w>"),
                      flags=("bf-fact-5-decorated",), comment="end_of_word_suffix '</w>'"),
        TokenizerSpec("bf-only-58", bf_document(["<0x58>"]),
                      flags=("bf-fact-6-no-fuse", "bf-fuse-unk-off", *incomplete),
                      comment="only <0x58> ('X'); fuse_unk off"),
        TokenizerSpec("bf-only-58-fuse", bf_document(["<0x58>"], fuse_unk=True),
                      flags=("bf-fact-6-no-fuse", "bf-fuse-unk-on", *incomplete),
                      comment="only <0x58> ('X'); fuse_unk on"),
        TokenizerSpec("bf-ordering", probe_document(["<unk>", "<0x58>"], [],
                                                    unk_token="<unk>", byte_fallback=True),
                      flags=("bf-ordering", *incomplete),
                      comment="the decision's ordering probe: <unk> and <0x58> only"),
        TokenizerSpec("bf-ordering-fuse", probe_document(["<unk>", "<0x58>"], [],
                                                         unk_token="<unk>", byte_fallback=True,
                                                         fuse_unk=True),
                      flags=("bf-ordering", "bf-fuse-unk-on", *incomplete),
                      comment="the ordering probe with fuse_unk on"),
        TokenizerSpec("bf-no-unk", probe_document(["a", "b", "c", "ab"], BF_MERGES,
                                                  byte_fallback=True, decoder=BF_DECODER),
                      flags=("bf-unk-absent-drops", *incomplete),
                      comment="no byte pieces and no unk_token"),
    )
    rows: list[RowSpec] = []
    # The six measurements.
    rows += [
        RowSpec("bf-fact-1-code-point-e-acute", "bf-full", "encode", "é",
                flags=("bf-fact-1-code-point", "bf-width-2")),
        RowSpec("bf-fact-1-code-point-present-not-expanded", "bf-e-acute-present", "encode",
                "aé", flags=("bf-fact-1-code-point", "bf-width-2")),
        RowSpec("bf-fact-2-all-or-nothing-e-acute", "bf-partial-c3", "encode", "é",
                flags=("bf-fact-2-all-or-nothing", "bf-width-2")),
        RowSpec("bf-fact-2-all-or-nothing-a-e-acute-b", "bf-partial-c3", "encode", "aéb",
                flags=("bf-fact-2-all-or-nothing", "bf-width-2")),
        RowSpec("bf-fact-2-all-or-nothing-a-tilde", "bf-partial-c3", "encode", "Ã",
                flags=("bf-fact-2-all-or-nothing", "bf-width-2"),
                comment="Ã is C3 83: <0x83> is missing too"),
        RowSpec("bf-fact-3-uppercase-e-acute", "bf-lowercase-c3", "encode", "é",
                flags=("bf-fact-3-uppercase", "bf-width-2")),
        RowSpec("bf-fact-3-uppercase-a-e-acute", "bf-lowercase-c3", "encode", "aé",
                flags=("bf-fact-3-uppercase", "bf-width-2")),
        RowSpec("bf-fact-4-before-merges-e-acute", "bf-merged-bytes", "encode", "é",
                flags=("bf-fact-4-before-merges", "bf-width-2")),
        RowSpec("bf-fact-4-before-merges-a-e-acute-b", "bf-merged-bytes", "encode", "aéb",
                flags=("bf-fact-4-before-merges", "bf-width-2")),
        RowSpec("bf-fact-4-before-merges-e-acute-twice", "bf-merged-bytes", "encode", "éé",
                flags=("bf-fact-4-before-merges", "bf-width-2")),
        RowSpec("bf-fact-5-decorated-prefix-ab", "bf-prefix", "encode", "ab",
                flags=("bf-fact-5-decorated",)),
        RowSpec("bf-fact-5-decorated-prefix-a-e-acute", "bf-prefix", "encode", "aé",
                flags=("bf-fact-5-decorated", "bf-width-2", "decorated-byte-fallback-spans")),
        RowSpec("bf-fact-5-decorated-prefix-ad", "bf-prefix", "encode", "ad",
                flags=("bf-fact-5-decorated", "decorated-byte-fallback-spans")),
        RowSpec("bf-fact-5-decorated-prefix-e-acute-a", "bf-prefix", "encode", "éa",
                flags=("bf-fact-5-decorated", "bf-width-2", "decorated-byte-fallback-spans")),
        RowSpec("bf-fact-5-decorated-suffix-b", "bf-suffix", "encode", "b",
                flags=("bf-fact-5-decorated", "decorated-byte-fallback-spans")),
        RowSpec("bf-fact-5-decorated-suffix-ab", "bf-suffix", "encode", "ab",
                flags=("bf-fact-5-decorated", "decorated-byte-fallback-spans")),
        RowSpec("bf-fact-5-decorated-suffix-a-e-acute", "bf-suffix", "encode", "aé",
                flags=("bf-fact-5-decorated", "bf-width-2", "decorated-byte-fallback-spans")),
        RowSpec("bf-unk-absent-drops-a-x-b", "bf-no-unk", "encode", "aXb",
                flags=("bf-unk-absent-drops", "dropped-character-offsets")),
        RowSpec("bf-unk-absent-drops-x", "bf-no-unk", "encode", "X",
                flags=("bf-unk-absent-drops",)),
        RowSpec("bf-unk-absent-drops-a-e-acute", "bf-no-unk", "encode", "aé",
                flags=("bf-unk-absent-drops",)),
    ]
    # Fact 6 and the ordering bug, fuse_unk off and on over the same texts.
    for fuse, suffix in ((False, "fuse-off"), (True, "fuse-on")):
        fuse_flag = "bf-fuse-unk-on" if fuse else "bf-fuse-unk-off"
        only58 = "bf-only-58-fuse" if fuse else "bf-only-58"
        for name, text, flags in FUSE_TEXTS:
            rows.append(RowSpec(f"bf-fact-6-partial-{name}-{suffix}", only58, "encode", text,
                                flags=(*flags, fuse_flag)))
        ordering = "bf-ordering-fuse" if fuse else "bf-ordering"
        for text in ("XY", "YX", "YYX", "YXY", "YYXZZ"):
            # An unknown Y before the byte-resolved X: upstream misorders (intended).
            bug = ("unk-byte-fallback-ordering",) if text.index("Y") < text.index("X") else ()
            rows.append(RowSpec(f"bf-ordering-{text.lower()}-{suffix}", ordering, "encode",
                                text, flags=("bf-ordering", fuse_flag, *bug)))
    # A text per byte width, fuse_unk off and on, over the complete alphabet.
    for fuse, suffix in ((False, "fuse-off"), (True, "fuse-on")):
        fuse_flag = "bf-fuse-unk-on" if fuse else "bf-fuse-unk-off"
        full = "bf-full-fuse" if fuse else "bf-full"
        for name, text, flags in WIDTH_TEXTS:
            rows.append(RowSpec(f"bf-width-{name}-{suffix}", full, "encode", text,
                                flags=(*flags, fuse_flag)))
    rows.append(RowSpec("bf-width-mixed-llama-decoder", "bf-full-llama-decoder", "encode",
                        "a é€😀\x07b", flags=("bf-decoder-llama-chain", "bf-width-2",
                                               "bf-width-3", "bf-width-4", "bf-control")))
    # decode_runs: raw id sequences, including byte runs cut mid-character.
    for tok_name, flag in (("bf-full", "bf-decoder-bytefallback"),
                           ("bf-full-llama-decoder", "bf-decoder-llama-chain")):
        short = "bytefallback" if tok_name == "bf-full" else "llama-decoder"
        for name, items, flags in R_RUNS:
            rows.append(RowSpec(f"bf-run-{short}-{name}", tok_name, "decode",
                                ids=_bf_run_ids(items), flags=("bf-decode-runs", flag, *flags)))
    return OracleSpec(
        name="bpe_byte_fallback",
        title="BPE byte fallback: the decision's six measurements, byte widths, fuse_unk, "
              "decode and decode_runs",
        description=(
            "Pins what tokenizers does under byte_fallback (docs: the byte-fallback "
            "decision). Documents are the decision's probe: a four-piece BPE (a, b, c, ab; "
            "merge a+b) plus a controlled set of <0xXX> pieces. Partial or lower-case "
            "alphabets are refused by the strict reference (their load rows carry the "
            "strictness class) and replay on the lenient track. The refusals themselves "
            "are pinned by loader tests, not here."),
        tokenizers=tokenizers,
        rows=tuple(rows),
    )


# ---------------------------------------------------------------------------
# llama_pipeline.json
# ---------------------------------------------------------------------------

LLAMA_BYTE = 3  # id of <0x00> in the Llama-like fixture


def _llama_byte(value: int) -> int:
    return LLAMA_BYTE + value


def _llama_spec() -> OracleSpec:
    bos_spans = "template-special-spans"
    base = ("llama-prepend", "llama-template", "llama-decoder-chain", bos_spans)
    texts: tuple[tuple[str, str, tuple[str, ...]], ...] = (
        ("hello-world", "Hello world", ("llama-replace-space",)),
        ("leading-space", " Hello", ("llama-replace-space",)),
        ("double-space", "Hello  world", ("llama-replace-space",)),
        ("empty", "", ("llama-empty",)),
        ("single-space", " ", ("llama-replace-space",)),
        ("special-inside", "Hello<s>world",
         ("llama-special-in-text", "llama-prepend-after-special")),
        ("special-first", "<s>Hello",
         ("llama-special-in-text", "llama-prepend-after-special")),
        ("eos-last", "Hello world</s>", ("llama-special-in-text",)),
        ("tab", "a\tb", ("llama-replace-space", "bf-control")),
        ("newline", "a\nb", ("llama-replace-space", "bf-control")),
        ("emoji", "Hello😀world", ("bf-width-4", "bf-fact-1-code-point")),
        ("e-acute-in-vocab", "é", ("bf-width-2",)),
        ("cjk-bytes", "日本", ("bf-width-3", "bf-fact-1-code-point")),
        ("uncovered-ascii", "HELLO", ("bf-fact-1-code-point",)),
        ("spaces-around-special", "a <s> b",
         ("llama-special-in-text", "llama-prepend-after-special", "llama-replace-space")),
    )
    rows: list[RowSpec] = [
        RowSpec(f"llama-{name}", "llama-like", "encode", text, flags=(*base, *flags))
        for name, text, flags in texts
    ]
    rows += [
        RowSpec("llama-hello-world-no-specials", "llama-like", "encode", "Hello world",
                add_special_tokens=False,
                flags=("llama-prepend", "llama-no-specials", "llama-decoder-chain")),
        RowSpec("llama-special-inside-no-specials", "llama-like", "encode", "Hello<s>world",
                add_special_tokens=False,
                flags=("llama-prepend", "llama-no-specials", "llama-special-in-text",
                       "llama-decoder-chain")),
        RowSpec("llama-pair-hello-world", "llama-like", "encode", "Hello", pair="world",
                flags=(*base, "pair-input")),
    ]
    runs: tuple[tuple[str, tuple[int, ...], tuple[str, ...]], ...] = (
        ("run-e-acute-split-by-bos", (_llama_byte(0xC3), 1, _llama_byte(0xA9)),
         ("decode-skip-joins-bytes", "bf-decode-runs")),
        ("run-emoji-cut", (_llama_byte(0xF0), _llama_byte(0x9F)),
         ("bf-decode-runs", "bf-decode-cut-mid-character")),
        ("run-bos-eos-only", (1, 2), ()),
        ("run-unk-special", (0,), ()),
        ("run-unknown-id", (1, 9999), ("strict-decode-unknown-id",)),
        ("run-leading-metaspace-pieces", (259, 259, 1, 259), ()),
    )
    rows += [RowSpec(f"llama-{name}", "llama-like", "decode", ids=ids,
                     flags=("llama-decoder-chain", *flags)) for name, ids, flags in runs]
    # Normalized added tokens (their decode changed in tokenizers 0.23.0).
    norm = ("normalized-added-token", "llama-prepend", "llama-decoder-chain")
    rows += [
        RowSpec("llama-normalized-special-alone", "llama-normalized-added", "encode", "<x>",
                flags=(*norm, bos_spans, "normalized-special-skip")),
        RowSpec("llama-normalized-special-between-words", "llama-normalized-added", "encode",
                "a <x> b", flags=(*norm, bos_spans, "normalized-special-skip")),
        RowSpec("llama-normalized-special-glued", "llama-normalized-added", "encode",
                "a<x>b", flags=(*norm, bos_spans)),
        RowSpec("llama-normalized-added-words", "llama-normalized-added", "encode",
                "say hello world now", flags=(*norm, bos_spans)),
        RowSpec("llama-normalized-special-run", "llama-normalized-added", "decode",
                ids=(1, NORMALIZED_X_ID, 2), flags=(*norm, "normalized-special-skip")),
        RowSpec("llama-normalized-specials-hello-world", "llama-normalized-specials",
                "encode", "Hello world",
                flags=(*norm, bos_spans, "normalized-special-skip")),
        RowSpec("llama-normalized-specials-spaced-bos", "llama-normalized-specials",
                "encode", "a <s> b",
                flags=(*norm, bos_spans, "normalized-special-skip", "llama-special-in-text")),
        RowSpec("llama-normalized-specials-glued-bos", "llama-normalized-specials",
                "encode", "a<s>b", flags=(*norm, bos_spans)),
    ]
    return OracleSpec(
        name="llama_pipeline",
        title="Llama-2 style pipeline: Prepend/Replace normalizer, specials, template, "
              "the four-step decoder",
        description=(
            "The Llama-like probe (fixtures/llama_like."
            "tokenizer.json): <unk> <s> </s> = 0-2, the 256 byte pieces = 3-258, the "
            "characters of '▁abcdefghijklmnopqrstuvwxyzHWé', the merge results; "
            "byte_fallback and fuse_unk; the Llama-2 normalizer, template and decoder. Two "
            "variants pin the normalized added tokens (their decode changed in 0.23.0)."),
        tokenizers=(
            TokenizerSpec("llama-like", fixture=LLAMA_FIXTURE,
                          flags=("llama-decoder-chain",), comment="the Llama-like probe"),
            TokenizerSpec("llama-normalized-added", fixture=LLAMA_NORMALIZED_ADDED_FIXTURE,
                          flags=("normalized-added-token",),
                          comment=f"plus <x> (special, normalized) = {NORMALIZED_X_ID} "
                                  f"and 'hello world' (normalized) = {NORMALIZED_X_ID + 1}"),
            TokenizerSpec("llama-normalized-specials",
                          fixture=LLAMA_NORMALIZED_SPECIALS_FIXTURE,
                          flags=("normalized-added-token",),
                          comment="<unk> <s> </s> declared normalized: true"),
        ),
        rows=tuple(rows),
    )


# ---------------------------------------------------------------------------
# metaspace_pipeline.json: every prepend_scheme x split
# ---------------------------------------------------------------------------

METASPACE_TEXTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("hello-world", "Hello world", ()),
    ("leading-space", " Hello", ("metaspace-leading-space",)),
    ("spaces", "Hey  my friend ", ()),
    ("special-first", "<s>Hello", ("metaspace-after-special",)),
    ("special-inside", "Hello<s> world", ("metaspace-after-special",)),
    ("empty", "", ()),
    ("unknown-fused", "HXYZ world", ()),
    ("e-acute", "é é", ()),
)


NOT_APPLIED = "metaspace-decoder-not-applied"


def _metaspace_spec() -> OracleSpec:
    tokenizers: list[TokenizerSpec] = []
    rows: list[RowSpec] = []
    for scheme in SCHEMES:
        for split in SPLITS:
            split_name = "split" if split else "no-split"
            name = f"metaspace-{scheme}-{split_name}"
            own = (f"metaspace-{scheme}", f"metaspace-{split_name}")
            tokenizers.append(TokenizerSpec(
                name, fixture=metaspace_fixture(scheme, split), flags=own,
                comment=f"Metaspace pre-tokenizer and decoder, prepend_scheme {scheme!r}, "
                        f"split {str(split).lower()}"))
            # The reference keeps the escaped text, so every decode whose tokens carry a
            # '▁' diverges (intended); the empty text, and '<s>Hello' where no '▁' is
            # prepended after the special ('first', 'never'), decode alike.
            for text_name, text, flags in METASPACE_TEXTS:
                no_metaspace = text == "" or (text_name == "special-first"
                                              and scheme != "always")
                intended = () if no_metaspace else (NOT_APPLIED,)
                rows.append(RowSpec(f"{name}-{text_name}", name, "encode", text,
                                    flags=(*own, *flags, *intended)))
            rows.append(RowSpec(f"{name}-pair", name, "encode", "Hello", pair=" world",
                                flags=(*own, "pair-input", NOT_APPLIED)))
            rows.append(RowSpec(f"{name}-run-metaspace-pieces", name, "decode",
                                ids=(3, 3, 4, 1, 3, 5), flags=(*own, NOT_APPLIED)))
    return OracleSpec(
        name="metaspace_pipeline",
        title="Metaspace pre-tokenizer and decoder: every prepend_scheme x split",
        description=(
            "Metaspace-only files (no normalizer, no byte_fallback, no template): the "
            "Llama-like characters and merges plus a few for 'Hey my friend', the "
            "Metaspace pre-tokenizer and the same Metaspace as decoder. The reference "
            "accepts the decoder and does not apply it (intended class "
            "metaspace-decoder-not-applied)."),
        tokenizers=tuple(tokenizers),
        rows=tuple(rows),
    )


# ---------------------------------------------------------------------------
# upstream_panics.json: files and decodes upstream panics on
# ---------------------------------------------------------------------------


def _panics_spec() -> OracleSpec:
    strip_cross = probe_document(["<unk>", "a", " ", " a"], [], unk_token="<unk>",
                                 decoder={"type": "Strip", "content": " ", "start": 1,
                                          "stop": 1})
    strip_short = probe_document(["<unk>", "a", "", " "], [], unk_token="<unk>",
                                 decoder={"type": "Strip", "content": " ", "start": 0,
                                          "stop": 1})
    tokenizers = (
        TokenizerSpec("panic-merge-result-too-long", probe_document(["a", "b"], [["a", "b"]]),
                      flags=("merge-result-too-long", "upstream-panic-refused"),
                      comment="merge a+b, 'ab' missing and longer than every entry"),
        TokenizerSpec("panic-merge-prefix-underflow", probe_document(
            ["a", "b", "##b"], [["a", "b"]], continuing_subword_prefix="###"),
            flags=("merge-prefix-underflow", "upstream-panic-refused"),
            comment="prefix '###' is longer than the merge's right part 'b'"),
        TokenizerSpec("merge-result-missing-short", probe_document(
            ["a", "b", "cd"], [["a", "b"]]), flags=(),
            comment="merge a+b, 'ab' missing but no longer than 'cd': a plain refusal"),
        TokenizerSpec("strip-windows-cross", strip_cross, flags=(),
                      comment="Strip start=1 stop=1 over the token ' '"),
        TokenizerSpec("strip-short-token", strip_short, flags=(),
                      comment="Strip stop=1 over the empty token ''"),
    )
    rows = (
        RowSpec("strip-windows-cross-space", "strip-windows-cross", "decode", ids=(2,),
                flags=("strip-decoder-short-token", "strip-decoder-panic")),
        RowSpec("strip-windows-cross-a-space", "strip-windows-cross", "decode", ids=(1, 2),
                flags=("strip-decoder-short-token", "strip-decoder-panic")),
        RowSpec("strip-windows-cross-long-token", "strip-windows-cross", "decode", ids=(3,),
                flags=()),
        RowSpec("strip-short-token-empty", "strip-short-token", "decode", ids=(2,),
                flags=("strip-decoder-short-token", "strip-decoder-panic")),
        RowSpec("strip-short-token-space", "strip-short-token", "decode", ids=(3,),
                flags=()),
    )
    return OracleSpec(
        name="upstream_panics",
        title="Files and decodes tokenizers panics on (BPE model building, Strip decoder)",
        description=(
            "Merge lists the 0.23 BPE builder panics on (0.21/0.22 return an error for "
            "the too-long result) and Strip decoders that panic on short tokens. The "
            "reference refuses the merge lists by name and clamps the Strip windows."),
        tokenizers=tokenizers,
        rows=rows,
    )


# ---------------------------------------------------------------------------
# mistral_v0_1.json: the real Mistral v0.1 file over the committed corpus
# ---------------------------------------------------------------------------

REAL_CORPUS = "fixtures/corpus/real_model_corpus.json"
MISTRAL_V0_1 = "mistral-v0.1"


def real_corpus(path: Path | None = None) -> list[tuple[str, str]]:
    """(id, text) of every entry of the committed real-model corpus, in file order."""
    source = path if path is not None else data_file("corpus", "real_model_corpus.json")
    entries = json.loads(source.read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise ValueError(f"{REAL_CORPUS}: expected a list of entries")
    return [(str(entry["id"]), str(entry["text"])) for entry in entries]


def _mistral_spec() -> OracleSpec:
    rows = tuple(
        RowSpec(entry_id, MISTRAL_V0_1, "encode", text,
                flags=("real-model-corpus", "template-special-spans"))
        for entry_id, text in real_corpus())
    return OracleSpec(
        name="mistral_v0_1",
        title="The real Mistral v0.1 tokenizer.json over the committed real-model corpus",
        description=(
            "Upstream's encoding (ids, tokens, spans, special mask) of every text of "
            "fixtures/corpus/real_model_corpus.json (row id = corpus entry id, "
            "add_special_tokens=True), and the decode of those ids with "
            "skip_special_tokens true and false. The tokenizer is referenced by its "
            "built-fixture name and sha256, not inlined: harness/fixtures/real_models.py builds it "
            "from the mistral-common 1.13.1 wheel. Encodings are packed: ids and spans "
            "(start:end) space-separated, the special mask as a string of 0/1; tokens are "
            "left out when they are the vocabulary strings of the ids (checked against "
            "upstream's tokens at generation). The BOS the template adds is at (-1, -1) "
            "in the reference and (0, 0) upstream: intended class template-special-spans."),
        tokenizers=(
            TokenizerSpec(MISTRAL_V0_1, built_fixture=MISTRAL_V0_1,
                          flags=("real-model-mistral-v0.1", "llama-prepend",
                                 "llama-template", "llama-decoder-chain"),
                          comment="python -m harness.fixtures.real_models mistral-v0.1 builds it"),
        ),
        rows=rows,
        inputs=REAL_CORPUS,
        packed=True,
    )


def oracle_specs() -> tuple[OracleSpec, ...]:
    """Every oracle file generated from inputs (divergences.json aside): hand-chosen ones,
    and the real Mistral v0.1 file over the committed corpus."""
    return (_bf_spec(), _llama_spec(), _metaspace_spec(), _panics_spec(), _mistral_spec())
