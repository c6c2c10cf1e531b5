"""Train the MorphBPE fixture with ``tokenizers``' own BpeTrainer, and write the upstream
expression of the morph track beside it.

    python -m harness.unified.train            # rewrite both fixture files
    python -m harness.unified.train --check    # exit 1 unless both are up to date

The corpus is ``harness.unified.corpus.words(SEED, WORDS)``; the trainer runs behind the
morph track's own pre-tokenizer (``MORPH_PRE_TOKENIZER``: NNBSP starts a morpheme,
punctuation is isolated), so every word reaches it already split into morphemes and no
merge is ever learnt across a morpheme boundary. The 256 ``<0xXX>`` byte pieces are
declared as the trainer's special tokens, so they are ids 0-255 of the vocabulary, as
``byte_fallback`` requires; NNBSP, MVS and the four FVS are in the initial alphabet.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from implementation.unified import load_dual_track

from . import corpus
from .upstream_json import (
    CONFIG,
    MORPH_MODEL,
    MORPH_PRE_TOKENIZER,
    UPSTREAM_DOCUMENT,
    document_text,
    morph_track_document,
)

SEED = 14
WORDS = 3000
VOCAB_SIZE = 640
MIN_FREQUENCY = 2
BYTE_PIECES = [f"<0x{b:02X}>" for b in range(256)]


def train(words: list[str]) -> dict[str, Any]:
    """The trained BPE ``model`` object (byte_fallback, byte pieces at ids 0-255)."""
    from tokenizers import Tokenizer, trainers

    empty: dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": MORPH_PRE_TOKENIZER, "post_processor": None,
        "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": True, "ignore_merges": False,
                  "vocab": {}, "merges": []},
    }
    tokenizer = Tokenizer.from_str(json.dumps(empty))
    bpe_trainer: Any = trainers.BpeTrainer  # untyped in the stubs
    trainer = bpe_trainer(
        vocab_size=VOCAB_SIZE, min_frequency=MIN_FREQUENCY, show_progress=False,
        special_tokens=BYTE_PIECES,
        initial_alphabet=[corpus.NNBSP, corpus.MVS, corpus.FVS1, corpus.FVS2, corpus.FVS3,
                          corpus.FVS4],
    )
    tokenizer.train_from_iterator(words, trainer=trainer)
    model: dict[str, Any] = json.loads(tokenizer.to_str())["model"]
    assert model["byte_fallback"] is True
    return model


def model_text(model: dict[str, Any]) -> str:
    """One vocabulary entry and one merge per line, ids in order: small, diffable."""
    head = {k: v for k, v in model.items() if k not in ("vocab", "merges")}
    lines = ["{"]
    lines += [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    vocab = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    lines.append(' "vocab": {')
    lines += [f"  {json.dumps(k, ensure_ascii=False)}: {v}{',' if i < len(vocab) - 1 else ''}"
              for i, (k, v) in enumerate(vocab)]
    lines.append(" },")
    merges = model["merges"]
    lines.append(' "merges": [')
    lines += [f"  {json.dumps(m, ensure_ascii=False)}{',' if i < len(merges) - 1 else ''}"
              for i, m in enumerate(merges)]
    lines.append(" ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def build() -> dict[Path, str]:
    """Both fixture files' contents, from scratch (the model is trained again)."""
    model = train(corpus.words(SEED, WORDS))
    text = model_text(model)
    # The upstream expression needs the unified id space, so the config is loaded with
    # the model just trained (inline), not with the file on disk.
    config = json.loads(CONFIG.read_text(encoding="utf-8"))
    config["morph"]["model"] = json.loads(text)
    tok = load_dual_track(config, base_dir=CONFIG.parent)
    document = morph_track_document(tok, json.loads(text))
    return {MORPH_MODEL: text, UPSTREAM_DOCUMENT: document_text(document)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.unified.train")
    parser.add_argument("--check", action="store_true",
                        help="fail unless the committed fixture files are up to date")
    args = parser.parse_args(argv)
    files = build()
    stale = [p for p, text in files.items()
             if not p.is_file() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"STALE {path.relative_to(CONFIG.parents[2])}")
        print("morph fixtures: " + ("stale (run python -m harness.unified.train)"
                                    if stale else "up to date"))
        return 1 if stale else 0
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(CONFIG.parents[2])} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
