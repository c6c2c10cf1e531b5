"""What an oracle file is declared with: its tokenizers (``TokenizerSpec``), rows
(``RowSpec``) and the file itself (``OracleSpec``), and every flag a row may carry, with its
meaning (a flag that is a class id of the registry names an intended divergence). The
inputs themselves are declared in ``cases.py``; format: ``oracles/README.md``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..judge.coverage import RULES
from ..judge.registry import load_registry

Document = dict[str, Any]
RowKind = Literal["encode", "decode"]


# ---------------------------------------------------------------------------
# Flags: every flag an oracle row may carry, declared once with its meaning.
# A flag that is also a class id of harness/judge/divergences.yaml names an INTENDED
# divergence: the replay accepts a difference only when a class in the row's flags
# explains it, and requires every class flag to be observed on the row.
# ---------------------------------------------------------------------------

RULE_FLAGS: dict[str, str] = {
    # The byte-fallback decision: its rules, with their meanings (harness/judge/coverage.py).
    **RULES,
    "bf-width-1": "A one-byte (ASCII) character.",
    "bf-width-2": "A two-byte character (é).",
    "bf-width-3": "A three-byte character (日, €).",
    "bf-width-4": "A four-byte character (an emoji).",
    "bf-control": "A control character (byte fallback of a C0 control).",
    "bf-fuse-unk-on": "The model declares fuse_unk: true.",
    "bf-fuse-unk-off": "The model declares fuse_unk: false.",
    "bf-decoder-bytefallback": "The decoder is a bare ByteFallback.",
    "bf-decoder-llama-chain": "The decoder is [Replace, ByteFallback, Fuse, Strip].",
    "bf-decode-cut-mid-character": "The id run holds a byte run cut in the middle of a "
    "character (what a truncated generation hands to decode).",
    "bf-unk-absent-drops": "No unk_token: an uncovered character is dropped and its "
    "neighbours may merge across the hole.",
    # The Llama-2 style pipeline (Llama-2 / Mistral v0.1's front end).
    "llama-prepend": "The Prepend('▁') normalizer adds a metaspace at the start of each "
    "non-added-token piece.",
    "llama-replace-space": "Only U+0020 becomes '▁'; tab and newline go to byte fallback.",
    "llama-prepend-after-special": "Prepend fires again after an added special token "
    "(legacy Llama behaviour).",
    "llama-special-in-text": "An added special token matched inside the text.",
    "llama-template": "The TemplateProcessing post-processor adds BOS.",
    "pair-input": "A pair input (through the template where there is one).",
    "llama-no-specials": "add_special_tokens=False: no template tokens.",
    "llama-empty": "The empty text (Prepend does nothing on an empty string).",
    "llama-decoder-chain": "The four-step decoder: Replace, ByteFallback, Fuse, Strip.",
    "decode-skip-joins-bytes": "skip_special_tokens runs before the decoder, so removing a "
    "special token can join two byte runs.",
    "normalized-added-token": "An added token declared normalized: true under a normalizer "
    "that changes it (its decode changed in tokenizers 0.23.0).",
    "normalized-special-skip": "Whether skip_special_tokens skips a normalized special "
    "token (0.23 compares the normalized form against the special set).",
    # The Metaspace pre-tokenizer.
    "metaspace-always": "Metaspace prepend_scheme 'always'.",
    "metaspace-first": "Metaspace prepend_scheme 'first'.",
    "metaspace-never": "Metaspace prepend_scheme 'never'.",
    "metaspace-split": "Metaspace split: true (split on the replacement, MergedWithNext).",
    "metaspace-no-split": "Metaspace split: false (one BPE word per split).",
    "metaspace-leading-space": "A leading space is absorbed by the prepended replacement.",
    "metaspace-after-special": "A split following a special token (what 'first' skips).",
    # Upstream panics (BPE model building, Strip decoder).
    "merge-result-too-long": "A merge whose missing result is longer than every vocabulary "
    "entry (0.23 panics; 0.21/0.22 report MergeTokenOutOfVocabulary).",
    "merge-prefix-underflow": "A merge whose right part is shorter than "
    "continuing_subword_prefix (upstream panics).",
    "strip-decoder-short-token": "A Strip decoder whose windows cross or overrun a short "
    "token (upstream panics).",
    # Real models (mistral_v0_1.json).
    "real-model-corpus": "A text of the committed real-model corpus (fixtures/corpus/"
    "real_model_corpus.json; the row id is the corpus entry's id), encoded with "
    "add_special_tokens=True by the real Mistral v0.1 tokenizer.json.",
    "real-model-mistral-v0.1": "The real Mistral v0.1 tokenizer.json, built at run time "
    "from the mistral-common 1.13.1 wheel (harness/fixtures/real_models.py) and pinned by sha256.",
}

#: Class ids of the registry (harness/judge/divergences.yaml): a row flagged with one
#: names an intended divergence; its meaning is the class's title there.
CLASS_FLAGS: dict[str, str] = {cls.id: f"Intended divergence: {cls.title}"
                               for cls in load_registry()}

FLAGS: dict[str, str] = {**RULE_FLAGS, **CLASS_FLAGS}


# ---------------------------------------------------------------------------
# Specs
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TokenizerSpec:
    """One tokenizer.json of an oracle file: inline, a fixture file (path from the
    repository root), or a built fixture (a name of ``harness.fixtures.real_models``: built at run
    time into the cache folder, never committed). ``flags`` go on its ``<name>-load``
    row."""

    name: str
    document: Document | None = None
    fixture: str | None = None
    built_fixture: str | None = None
    flags: tuple[str, ...] = ()
    comment: str = ""


@dataclass(frozen=True)
class RowSpec:
    id: str
    tokenizer: str
    kind: RowKind
    text: str = ""
    add_special_tokens: bool = True
    pair: str | None = None
    ids: tuple[int, ...] = ()
    flags: tuple[str, ...] = ()
    comment: str = ""


@dataclass(frozen=True)
class OracleSpec:
    """One oracle file. ``inputs``: where its inputs live (the header's ``inputs``).
    ``packed``: encode outcomes are written in the packed form (ids, spans and the special
    mask as strings; tokens left out when they are the vocabulary strings of the ids)."""

    name: str
    title: str
    description: str
    tokenizers: tuple[TokenizerSpec, ...]
    rows: tuple[RowSpec, ...] = field(default=())
    inputs: str = "harness/oracles/cases.py"
    packed: bool = False
