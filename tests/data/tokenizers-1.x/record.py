"""Record what tokenizers 1.x answers for a few documents into answers.json (beside this
script), for tests/test_tokenizers_versions.py to replay through a fake module (no
network, no 1.x install in the tests).

    <venv with tokenizers==1.0.0rc3>/bin/python tests/data/tokenizers-1.x/record.py

Every value is what the library returned or raised; nothing is written by hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import tokenizers

HERE = Path(__file__).resolve().parent


def _added(content: str, token_id: int) -> dict[str, Any]:
    return {"id": token_id, "content": content, "single_word": False, "lstrip": False,
            "rstrip": False, "normalized": False, "special": True}


def _bpe(vocab: dict[str, int], merges: list[list[str]], **extra: Any) -> dict[str, Any]:
    return {"type": "BPE", "dropout": None, "unk_token": None,
            "continuing_subword_prefix": None, "end_of_word_suffix": None, "fuse_unk": False,
            "byte_fallback": False, "ignore_merges": False, "vocab": vocab, "merges": merges,
            **extra}


def _document(model: dict[str, Any], *, added: list[dict[str, Any]] | None = None,
              pre_tokenizer: Any = None, post_processor: Any = None, decoder: Any = None
              ) -> dict[str, Any]:
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": added or [], "normalizer": None, "pre_tokenizer": pre_tokenizer,
            "post_processor": post_processor, "decoder": decoder, "model": model}


TEMPLATE = {"type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]}}}

DOCUMENTS: dict[str, dict[str, Any]] = {
    "template": _document(_bpe({"<s>": 0, "a": 1, "b": 2, "ab": 3}, [["a", "b"]]),
                          added=[_added("<s>", 0)], pre_tokenizer={"type": "Whitespace"},
                          post_processor=TEMPLATE),
    "missing-merge-result": _document(_bpe({"a": 0, "b": 1}, [["a", "c"]])),
    "merge-result-too-long": _document(_bpe({"a": 0, "b": 1}, [["a", "b"]])),
    "not-json": {"": "{"},
}
TEXTS = ["ab a", "ab<s>b", ""]
PAIRS = [("ab", "a")]
ID_RUNS = [[0, 3, 1], [2, 2]]


def _error(error: BaseException) -> dict[str, str]:
    kind = type(error)
    return {"type": f"{kind.__module__}.{kind.__qualname__}", "message": str(error)}


def _text_of(name: str, document: dict[str, Any]) -> str:
    return document[""] if name == "not-json" else json.dumps(document, ensure_ascii=False)


def record() -> dict[str, Any]:
    os.environ.pop("RUST_BACKTRACE", None)
    documents: dict[str, Any] = {}
    for name, document in DOCUMENTS.items():
        text = _text_of(name, document)
        entry: dict[str, Any] = {"sha256": hashlib.sha256(text.encode()).hexdigest(),
                                 "text": text}
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder, "tokenizer.json")
            path.write_text(text, encoding="utf-8")
            try:
                tokenizer: Any = tokenizers.Tokenizer.from_file(str(path))  # 1.x API
            except BaseException as error:  # a panic is a BaseException
                entry["load"] = _error(error)
                documents[name] = entry
                continue
        entry["load"] = "ok"
        encodes = []
        for given in [*TEXTS, *PAIRS]:
            for specials in (True, False):
                encoding = tokenizer.encode(given, add_special_tokens=specials)
                ids = [int(i) for i in encoding.ids]
                encodes.append({
                    "input": list(given) if isinstance(given, tuple) else given,
                    "add_special_tokens": specials, "ids": ids,
                    "type_ids": list(encoding.type_ids),
                    "attention_mask": list(encoding.attention_mask),
                    "attributes": sorted(a for a in dir(encoding) if not a.startswith("_")),
                    "decode_tokens": tokenizer.decode_tokens(ids, skip_special_tokens=False)})
        decodes = [{"ids": run, "skip_special_tokens": skip,
                    "text": tokenizer.decode(run, skip_special_tokens=skip)}
                   for run in ID_RUNS for skip in (True, False)]
        entry.update({"encodes": encodes, "decodes": decodes})
        documents[name] = entry
    return {"tokenizers": tokenizers.__version__,
            "module_attributes": sorted(a for a in dir(tokenizers) if not a.startswith("_")),
            "tokenizer_attributes": sorted(a for a in dir(tokenizers.Tokenizer)
                                           if not a.startswith("_")),
            "documents": documents}


if __name__ == "__main__":
    data = record()
    (HERE / "answers.json").write_text(json.dumps(data, indent=1, sort_keys=True,
                                                  ensure_ascii=False) + "\n", encoding="utf-8")
    sys.stdout.write(f"recorded {len(data['documents'])} documents from tokenizers "
                     f"{data['tokenizers']}\n")
