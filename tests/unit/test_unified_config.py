"""The unified tokenizer's JSON config: the schema, the loader, and every refusal as a
``LoadError(rule, path, message)`` naming the JSON path."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import implementation as ref
from implementation.unified import (
    SCHEMA_PATH,
    UNIFIED_ENCODE_RULES,
    UNIFIED_LOAD_RULES,
    DualTrackTokenizer,
    load_dual_track,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CONFIG_PATH = FIXTURES / "unified" / "config.json"
SCHEMA = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def config() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CONFIG_PATH.read_text(encoding="utf-8"))
    return data


def inline_morph() -> dict[str, Any]:
    model: dict[str, Any] = json.loads(
        (FIXTURES / "unified" / "morph_bpe.json").read_text(encoding="utf-8"))
    return model


def load(data: dict[str, Any]) -> DualTrackTokenizer:
    return load_dual_track(data, base_dir=CONFIG_PATH.parent)


def schema_errors(data: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [e.message for e in validator.iter_errors(data)]


def test_schema_is_valid_and_accepts_the_fixture() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert schema_errors(config()) == []


def test_path_text_and_dict_load_the_same_tokenizer() -> None:
    text = "ᠮᠣᠩᠭᠣᠯ\u202fᠤᠨ Hello <image>"
    a = load_dual_track(CONFIG_PATH)
    b = load_dual_track(str(CONFIG_PATH))
    c = load(config())
    d = load_dual_track(json.dumps(config()), base_dir=CONFIG_PATH.parent)
    seqs = [t.encode_with_spans(text, images=[2]) for t in (a, b, c, d)]
    assert all(s == seqs[0] for s in seqs)


def _set(path: tuple[str | int, ...], value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def _delete(path: tuple[str, ...]) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        node: Any = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


def _morph(change: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        model = inline_morph()
        change(model)
        data["morph"]["model"] = model
    return mutate


def _general_inline_without(piece: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        document = json.loads((FIXTURES / "llama_like.tokenizer.json").read_text("utf-8"))
        del document["model"]["vocab"][piece]
        data["general"]["tokenizer"] = document
    return mutate


# (mutation, rule, path, the schema also rejects it)
REFUSALS: list[tuple[str, Callable[[dict[str, Any]], None], str, str, bool]] = [
    ("no version", _delete(("version",)), "missing-field", "$.version", True),
    ("version 2.0", _set(("version",), "2.0"), "invalid-value", "$.version", True),
    ("typo", _set(("spcial_tokens",), {}), "unknown-field", "$.spcial_tokens", True),
    ("no general", _delete(("general",)), "missing-field", "$.general", True),
    ("general typo", _set(("general", "tokeniser"), "x"), "unknown-field",
     "$.general.tokeniser", True),
    ("general file missing", _set(("general", "tokenizer"), "nope.json"), "file-not-found",
     "$.general.tokenizer", False),
    ("general tokenizer wrong type", _set(("general", "tokenizer"), 3), "invalid-type",
     "$.general.tokenizer", True),
    ("general inline refused inside", _general_inline_without("<0x41>"),
     "byte-alphabet-incomplete", "$.general.tokenizer.model.vocab", False),
    ("morph without byte_fallback", _morph(_set(("byte_fallback",), False)),
     "morph-byte-fallback-required", "$.morph.model.byte_fallback", True),
    ("morph with a prefix", _morph(_set(("continuing_subword_prefix",), "##")),
     "morph-decoration-unsupported", "$.morph.model.continuing_subword_prefix", True),
    ("morph byte piece missing", _morph(_delete(("vocab", "<0x41>"))),
     "byte-alphabet-incomplete", "$.morph.model.vocab", False),
    ("morph merge out of vocabulary", _morph(_set(("merges",), [["ᠠ", "zz"]])),
     "merge-out-of-vocabulary", "$.morph.model.merges[0]", False),
    ("morph file missing", _set(("morph", "model"), "missing.json"), "file-not-found",
     "$.morph.model", False),
    ("morph file is a whole tokenizer.json", _set(("morph", "model"),
                                                  "../llama_like.tokenizer.json"),
     "invalid-value", "$.morph.model", False),
    ("bos not a string", _set(("special_tokens", "bos"), 3), "invalid-type",
     "$.special_tokens.bos", True),
    ("no pad", _delete(("special_tokens", "pad")), "missing-field", "$.special_tokens.pad",
     True),
    ("special typo", _set(("special_tokens", "sep"), "<sep>"), "unknown-field",
     "$.special_tokens.sep", True),
    ("empty eos", _set(("special_tokens", "eos"), ""), "duplicate-surface-string",
     "$.special_tokens.eos", True),
    ("placeholder = a special", _set(("multimodal", "image", "placeholder"), "<s>"),
     "duplicate-surface-string", "$.multimodal.image.placeholder", False),
    ("two patch tokens alike", _set(("multimodal", "video", "patch_token"), "<image_patch>"),
     "duplicate-surface-string", "$.multimodal.video.patch_token", False),
    ("no patch token", _delete(("multimodal", "image", "patch_token")), "missing-field",
     "$.multimodal.image.patch_token", True),
    ("audio", _set(("multimodal", "audio"), {}), "unknown-field", "$.multimodal.audio", True),
    ("add_bos not a boolean", _set(("add_bos",), "yes"), "invalid-type", "$.add_bos", True),
]


@pytest.mark.parametrize(("name", "mutate", "rule", "path", "schema_rejects"), REFUSALS,
                         ids=[r[0] for r in REFUSALS])
def test_refusals_name_rule_and_json_path(name: str, mutate: Callable[[dict[str, Any]], None],
                                          rule: str, path: str, schema_rejects: bool) -> None:
    data = config()
    mutate(data)
    with pytest.raises(ref.LoadError) as err:
        load(copy.deepcopy(data))
    assert (err.value.rule, err.value.path) == (rule, path), err.value
    assert rule in UNIFIED_LOAD_RULES or rule in ref.LOAD_RULES
    # The schema says the same where it can (file contents, distinctness and the
    # reference's own BPE rules are beyond a JSON Schema).
    assert bool(schema_errors(data)) == schema_rejects, schema_errors(data)


def test_malformed_json_text_and_file(tmp_path: Path) -> None:
    with pytest.raises(ref.LoadError) as err:
        load_dual_track('{"version": "1.0",')
    assert (err.value.rule, err.value.path) == ("malformed-json", "$")
    broken = tmp_path / "morph.json"
    broken.write_text("{nope", encoding="utf-8")
    data = config()
    data["morph"]["model"] = str(broken)
    with pytest.raises(ref.LoadError) as err:
        load(data)
    assert (err.value.rule, err.value.path) == ("malformed-json", "$.morph.model")
    assert "morph.json" in err.value.message


def test_file_errors_name_the_file() -> None:
    data = config()
    data["general"]["tokenizer"] = "nope.json"
    with pytest.raises(ref.LoadError) as err:
        load(data)
    assert "nope.json" in err.value.message


def test_minimal_config_without_multimodal_or_template() -> None:
    data = config()
    del data["multimodal"]
    data["add_bos"] = False
    data["add_eos"] = False
    assert schema_errors(data) == []
    tok = load(data)
    assert tok.id_space.describe()[-1] == ("special", 940, 944)
    seq = tok.encode_with_spans("<image> ᠭᠡᠷ")
    # Without an image modality "<image>" is ordinary general-track text.
    assert {t.track for t in seq.tokens} == {"bpe", "morph"}
    assert "".join(tok.decode(seq.input_ids)) == "<image> ᠭᠡᠷ"
    with pytest.raises(ref.EncodeError) as err:
        tok.encode_with_spans("x", images=[1])
    assert (err.value.rule, err.value.path) == ("multimodal-not-configured", "images")
    with pytest.raises(ref.EncodeError) as err:
        tok.encode_with_spans("x", videos=[(1, 1)])
    assert err.value.rule == "multimodal-not-configured"
    assert "multimodal-not-configured" in UNIFIED_ENCODE_RULES


def test_inline_morph_model_equals_the_file() -> None:
    data = config()
    data["morph"]["model"] = inline_morph()
    text = "ᠬᠠᠷ\u180eᠠ\u202fᠶᠢᠨ ᠭ᠋ᠡᠷ"
    assert load(data).encode_with_spans(text) == load(config()).encode_with_spans(text)


def test_placeholder_count_error_pickles() -> None:
    import pickle

    tok = load(config())
    with pytest.raises(ref.EncodeError) as err:
        tok.encode_with_spans("<image><image>", images=[1])
    again = pickle.loads(pickle.dumps(err.value))
    assert (again.rule, again.path, str(again)) == (err.value.rule, err.value.path,
                                                     str(err.value))
