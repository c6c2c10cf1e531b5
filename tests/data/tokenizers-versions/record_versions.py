"""Record what a tokenizers version answers on the minimal reproducers of FINDINGS.md
(harness/subjects/tokenizers_version/) into answers.json beside this script, under the
version's key, for tests/harness/test_version_recognisers.py (no network, no other
version installed in the tests):

    <venv with tokenizers==VERSION>/bin/python tests/data/tokenizers-versions/record_versions.py

Every value is what the library returned or raised; nothing is written by hand.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ["RUST_BACKTRACE"] = "0"
import tokenizers

HERE = Path(__file__).resolve().parent
ANSWERS = HERE / "answers.json"


def bpe(vocab: dict[str, int], merges: list[list[str]] | None = None,
        **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
        "normalizer": None, "pre_tokenizer": None, "post_processor": None, "decoder": None,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges or []}}
    for key, value in fields.items():
        (doc["model"] if key in doc["model"] else doc)[key] = value
    return doc


SPECIAL = {"id": 3, "content": "<x>", "single_word": False, "lstrip": False,
           "rstrip": False, "normalized": True, "special": True}
#: name -> (document, operation, input, options)
CASES: dict[str, tuple[dict[str, Any], str, Any, dict[str, Any]]] = {
    "unfused-prefix": (bpe({"<unk>": 0, "a": 1, "##a": 2}, fuse_unk=True,
                           continuing_subword_prefix="##"), "encode", "axy",
                       {"add_special_tokens": True}),
    "unfused-suffix": (bpe({"<unk>": 0, "a": 1, "a</w>": 2}, fuse_unk=True,
                           end_of_word_suffix="</w>"), "encode", "axy",
                       {"add_special_tokens": True}),
    "fused-no-affix": (bpe({"<unk>": 0, "a": 1}, fuse_unk=True), "encode", "axy",
                       {"add_special_tokens": True}),
    "word-end-bare": (bpe({"<unk>": 0, "a": 1, "b": 2}, end_of_word_suffix="</w>"),
                      "encode", "b", {"add_special_tokens": True}),
    "word-end-bare-beside-suffixed": (
        bpe({"<unk>": 0, "a": 1, "b": 2, "b</w>": 3}, end_of_word_suffix="</w>"),
        "encode", "b", {"add_special_tokens": True}),
    "word-end-bare-longer": (bpe({"<unk>": 0, "a": 1, "b": 2}, end_of_word_suffix="</w>"),
                             "encode", "ab", {"add_special_tokens": True}),
    "prefix-byte-fallback": (
        bpe({"<unk>": 0, **{f"<0x{b:02X}>": b + 1 for b in range(256)}, "a": 257},
            byte_fallback=True, continuing_subword_prefix="##"),
        "encode", "a ", {"add_special_tokens": True}),
    "prefix-byte-fallback-run": (
        bpe({"<unk>": 0, **{f"<0x{b:02X}>": b + 1 for b in range(256)}, "a": 257},
            byte_fallback=True, continuing_subword_prefix="##"),
        "encode", "éé", {"add_special_tokens": True}),
    "rstrip-added-token": (
        bpe({"<unk>": 0, "a": 1, "Wo": 2}, added_tokens=[
            {"id": 2, "content": "Wo", "single_word": False, "lstrip": False,
             "rstrip": True, "normalized": True, "special": False}]),
        "encode", "Wo a", {"add_special_tokens": True}),
    "normalized-special-skip": (
        bpe({"<unk>": 0, "a": 1, "b": 2}, added_tokens=[SPECIAL], normalizer={
            "type": "Replace", "pattern": {"String": ">"}, "content": "▁"}),
        "decode", [1, 3, 2], {"skip_special_tokens": True}),
    "normalized-special-keep": (
        bpe({"<unk>": 0, "a": 1, "b": 2}, added_tokens=[SPECIAL], normalizer={
            "type": "Replace", "pattern": {"String": ">"}, "content": "▁"}),
        "decode", [1, 3, 2], {"skip_special_tokens": False}),
    "merge-result-out-of-vocabulary": (
        bpe({"<unk>": 0, "a": 1, "b</w>": 2}, [["a", "b</w>"]], end_of_word_suffix="</w>"),
        "load", None, {}),
    "split-not-oniguruma": (
        bpe({"<unk>": 0, "a": 1}, pre_tokenizer={
            "type": "Split", "pattern": {"Regex": "a)"}, "behavior": "Isolated",
            "invert": False}), "load", None, {}),
}


def _answer(document: dict[str, Any], operation: str, given: Any,
            options: dict[str, Any]) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False,
                                     encoding="utf-8") as file:
        json.dump(document, file)
    try:
        tokenizer = tokenizers.Tokenizer.from_file(file.name)
        if operation == "load":
            return {"outcome": "loaded"}
        if operation == "encode":
            encoding = tokenizer.encode(given, **options)
            ids = [int(i) for i in encoding.ids]
            # 1.x: no token strings on the encoding (the preview's adapter names the ids)
            tokens = [str(t) for t in tokenizer.decode_tokens(ids)] \
                if hasattr(tokenizer, "decode_tokens") else [str(t) for t in encoding.tokens]
            return {"outcome": "encoded", "ids": ids, "tokens": tokens}
        return {"outcome": "decoded", "text": str(tokenizer.decode(given, **options))}
    except BaseException as error:  # a refusal, or pyo3's PanicException
        kind = "crashed" if type(error).__name__ == "PanicException" else "refused"
        message = re.sub(r" at line \d+ column \d+$", "", str(error))
        return {"outcome": kind, "message": message}
    finally:
        os.unlink(file.name)


def main() -> int:
    version = re.sub(r"[-_.]?(rc)[-_.]?(\d+)", r"\1\2", str(tokenizers.__version__))
    recorded: dict[str, Any] = json.loads(ANSWERS.read_text(encoding="utf-8")) \
        if ANSWERS.is_file() else {"cases": {}, "answers": {}}
    recorded["cases"] = {name: {"document": doc, "operation": op, "input": given,
                                "options": options}
                         for name, (doc, op, given, options) in CASES.items()}
    recorded["answers"][version] = {name: _answer(*case) for name, case in CASES.items()}
    ANSWERS.write_text(json.dumps(recorded, indent=1, sort_keys=True, ensure_ascii=False)
                       + "\n", encoding="utf-8")
    print(f"recorded {len(CASES)} answers of tokenizers {version}: {ANSWERS}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
