"""The morph track expressed as an upstream tokenizer.json, in the unified id space.

What MorphBPE does (``implementation/unified/script.py`` + ``morph.py``), stated in
components ``tokenizers`` 0.23.1 has:

- no normalizer: MVS and the FVS are ordinary symbols (decision 0014), nothing is removed;
- pre-tokenizer: Sequence[Split(NNBSP, MergedWithNext), Split(punctuation, Isolated)]:
  an NNBSP starts a morpheme, each Mongolian punctuation character is one;
- model: the morph model's BPE (byte_fallback), every id moved by the start of the morph
  range, so upstream's ids are the unified tokenizer's ids;
- the unified specials as special added tokens at their unified ids (also in the model
  vocabulary, which is what makes upstream keep those ids), and a
  TemplateProcessing that adds BOS/EOS as the config says (so a whole-text comparison
  also runs through the template-special-spans class);
- decoder: ByteFallback then Fuse (MorphBPE's decode).

The general track and the track segmentation are not expressed here: a Mongolian run is
found by the harness's own restatement of the rule (``MONGOLIAN_RUN``), and each run is
compared on its own.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from implementation.unified import DualTrackTokenizer

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT / "fixtures" / "unified"
CONFIG = FIXTURES / "config.json"
MORPH_MODEL = FIXTURES / "morph_bpe.json"
UPSTREAM_DOCUMENT = FIXTURES / "morph_upstream.tokenizer.json"

NNBSP = "\u202f"
_MONGOLIAN = "\u1800-\u18af\U00011660-\U0001167f"
#: The harness's own statement of a morph-track run (independent of the reference's code):
#: Mongolian-script characters, with an NNBSP only between two of them.
MONGOLIAN_RUN = re.compile(f"[{_MONGOLIAN}]+(?:{NNBSP}[{_MONGOLIAN}]+)*")

MORPH_PRE_TOKENIZER: dict[str, Any] = {
    "type": "Sequence",
    "pretokenizers": [
        {"type": "Split", "pattern": {"String": NNBSP}, "behavior": "MergedWithNext",
         "invert": False},
        {"type": "Split", "pattern": {"Regex": "[\u1800-\u180a\U00011660-\U0001167f]"},
         "behavior": "Isolated", "invert": False},
    ],
}


def read_config(path: Path = CONFIG) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def morph_model_json(config_path: Path = CONFIG) -> dict[str, Any]:
    """The morph model object the config points at (inline or a file)."""
    ref = read_config(config_path)["morph"]["model"]
    if isinstance(ref, dict):
        return ref
    path = Path(ref)
    path = path if path.is_absolute() else config_path.parent / path
    model = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(model, dict)
    return model


def morph_track_document(tok: DualTrackTokenizer, model: dict[str, Any]) -> dict[str, Any]:
    """The upstream tokenizer.json equivalent to ``tok``'s morph track (see module doc)."""
    offset = tok.id_space.morph.start
    shifted = copy.deepcopy(model)
    shifted["vocab"] = {token: token_id + offset for token, token_id in model["vocab"].items()}
    specials = tok.config.specials
    # Upstream gives an added token absent from the model vocabulary the next free id
    # after the vocabulary's *size*, whatever id the JSON says; in the vocabulary, it
    # keeps the id the vocabulary gives it. So the specials go there, at unified ids.
    for token_id, content in zip((tok.bos_id, tok.eos_id, tok.pad_id, tok.unk_id),
                                 specials.contents(), strict=True):
        shifted["vocab"][content] = token_id
    added = [
        {"id": token_id, "content": content, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for token_id, content in zip(
            (tok.bos_id, tok.eos_id, tok.pad_id, tok.unk_id), specials.contents(), strict=True)
    ]
    bos = [{"SpecialToken": {"id": specials.bos, "type_id": 0}}] if tok.config.add_bos else []
    eos = [{"SpecialToken": {"id": specials.eos, "type_id": 0}}] if tok.config.add_eos else []
    template_specials = {
        content: {"id": content, "ids": [token_id], "tokens": [content]}
        for add, token_id, content in ((tok.config.add_bos, tok.bos_id, specials.bos),
                                       (tok.config.add_eos, tok.eos_id, specials.eos))
        if add
    }
    a = {"Sequence": {"id": "A", "type_id": 0}}
    b = {"Sequence": {"id": "B", "type_id": 1}}
    single = [*bos, a, *eos]
    pair = [*bos, a, b, *eos]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": copy.deepcopy(MORPH_PRE_TOKENIZER),
        "post_processor": {"type": "TemplateProcessing", "single": single, "pair": pair,
                           "special_tokens": template_specials},
        "decoder": {"type": "Sequence",
                    "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": shifted,
    }


def document_text(document: dict[str, Any]) -> str:
    """The committed form: 1-space indent, keys in insertion order, UTF-8, newline."""
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
