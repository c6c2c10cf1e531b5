"""The llama-cpp subject: its pins (the npm lockfile, the gguf wheels), not-run without
node, the GGUF conversion (what it refuses in process; what it writes, read back with
gguf's own reader in the subject's environment), the expectations, and the pinned
witnesses still showing their entries (where node and the installed tree are at hand)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.core.resources import cache_dir
from harness.subjects import llama_cpp
from harness.subjects.lineage import NotExpressibleError
from harness.subjects.llama_cpp import convert
from harness.subjects.llama_cpp.recognisers import RECOGNISERS, cleaned_spaces
from harness.subjects.registry import SubjectUnavailableError

FOLDER = Path(llama_cpp.__file__).parent
BYTES = [f"<0x{b:02X}>" for b in range(256)]


def _gpt2_symbols() -> list[str]:
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    mapped = {b: chr(b) for b in printable}
    extra = 0
    for b in range(256):
        if b not in mapped:
            mapped[b] = chr(256 + extra)
            extra += 1
    return [mapped[b] for b in range(256)]


def _spm_doc(**changes: Any) -> dict[str, Any]:
    pieces = ["<unk>", "<s>", "</s>", *BYTES, "▁", "a", "b", "▁a", "ab"]
    doc: dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [
            {"id": 1, "content": "<s>", "special": True, "lstrip": False, "rstrip": False,
             "single_word": False, "normalized": False},
            {"id": 2, "content": "</s>", "special": True, "lstrip": False, "rstrip": False,
             "single_word": False, "normalized": False}],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "▁"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                                      {"Sequence": {"id": "A", "type_id": 0}}],
                           "pair": [], "special_tokens": {
                               "<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>",
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": {p: i for i, p in enumerate(pieces)},
                  "merges": [["▁", "a"], ["a", "b"]]}}
    doc.update(changes)
    return doc


def _gpt2_doc(**changes: Any) -> dict[str, Any]:
    vocab = {s: i for i, s in enumerate(_gpt2_symbols())}
    vocab["ab"] = 256
    vocab["<|begin|>"] = 257
    doc: dict[str, Any] = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": 257, "content": "<|begin|>", "special": True,
                          "lstrip": False, "rstrip": False, "single_word": False,
                          "normalized": False}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False,
                          "trim_offsets": True, "use_regex": True},
        "post_processor": None,
        "decoder": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": [["a", "b"]]}}
    doc.update(changes)
    return doc


# --- pins --------------------------------------------------------------------------------

def test_the_npm_tree_is_pinned_by_version_and_integrity() -> None:
    lock = json.loads(llama_cpp.LOCK.read_text("utf-8"))
    manifest = json.loads(llama_cpp.MANIFEST.read_text("utf-8"))
    assert manifest["dependencies"] == {"node-llama-cpp": "3.21.1",
                                        "@node-llama-cpp/linux-x64": "3.21.1"}
    packages = {k: v for k, v in lock["packages"].items() if k}
    assert packages["node_modules/node-llama-cpp"]["version"] == llama_cpp.VERSION
    cpu = packages["node_modules/@node-llama-cpp/linux-x64"]
    assert cpu["version"] == "3.21.1" and not cpu.get("optional")
    for name, entry in packages.items():
        assert entry.get("version") and entry.get("integrity", "").startswith("sha512-"), name
    installed = {n for n, e in packages.items() if not e.get("optional")}
    assert not any("cuda" in n or "vulkan" in n or "metal" in n for n in installed)


def test_the_gguf_environment_is_pinned_by_sha256() -> None:
    assert {w.name: w.version for w in llama_cpp.WHEELS} == {
        "gguf": "0.19.0", "numpy": "2.2.6", "PyYAML": "6.0.2"}
    for wheel in llama_cpp.WHEELS:
        assert len(wheel.hashes) == 1
        assert all(len(h) == 64 for h in wheel.hashes.values())


def test_npm_ci_runs_with_scripts_off_and_no_optional_package(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def fake_run(args: list[str], **_: Any) -> Any:
        seen.append(args)
        raise OSError("no network here")

    monkeypatch.setattr("harness.subjects.llama_cpp.children.run", fake_run)
    monkeypatch.setattr("harness.subjects.llama_cpp.shutil.which",
                        lambda name: f"/usr/bin/{name}")
    with pytest.raises(SubjectUnavailableError, match="npm ci did not run"):
        llama_cpp.install(tmp_path)
    assert seen and seen[0][1] == "ci"
    assert "--ignore-scripts" in seen[0] and "--omit=optional" in seen[0]


def test_without_node_the_subject_is_not_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("harness.subjects.llama_cpp.shutil.which", lambda name: None)
    with pytest.raises(SubjectUnavailableError, match=r"^llama-cpp: node not found"):
        llama_cpp.command()


def test_the_subject_never_builds_or_downloads_llama_cpp() -> None:
    script = llama_cpp.SCRIPT.read_text("utf-8")
    assert 'build: "never"' in script and "skipDownload: true" in script
    assert "gpu: false" in script and "vocabOnly: true" in script
    assert llama_cpp.ENVIRONMENT_VARIABLES["NODE_LLAMA_CPP_SKIP_DOWNLOAD"] == "true"


# --- the conversion: what it plans and refuses ---------------------------------------------

def test_a_sentencepiece_document_plans_llama_fields() -> None:
    plan = convert.plan(_spm_doc())
    assert plan.model == "llama" and plan.pre is None and plan.add_space_prefix is True
    assert (plan.bos, plan.eos, plan.unk, plan.add_bos, plan.add_eos) == (1, None, 0, True,
                                                                         False)
    types = dict(zip(plan.tokens, plan.types, strict=True))
    assert types["<unk>"] == convert.UNKNOWN and types["<s>"] == convert.CONTROL
    assert types["<0x41>"] == convert.BYTE and types["▁a"] == convert.NORMAL
    scores = dict(zip(plan.tokens, plan.scores, strict=True))
    assert scores["▁a"] == -1.0 and scores["ab"] == -2.0 and scores["a"] < scores["ab"]
    assert plan.decode_not_expressible is None and plan.merges == []


def test_a_byte_level_document_plans_gpt2_fields() -> None:
    plan = convert.plan(_gpt2_doc())
    assert plan.model == "gpt2" and plan.pre == "gpt-2" and plan.merges == ["a b"]
    assert plan.types[257] == convert.CONTROL and plan.types[0] == convert.NORMAL
    assert not plan.add_bos and plan.decode_not_expressible is None
    llama3 = _gpt2_doc(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": convert.LLAMA3_PATTERN},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
         "use_regex": False}]})
    llama3["model"]["ignore_merges"] = True
    assert convert.plan(llama3).pre == "llama-bpe"


def test_the_patterns_are_the_generators() -> None:
    from harness.strategies.split_family import LLAMA3_PATTERN
    from harness.subjects.tiktoken.convert import GPT2_PATTERN

    assert convert.LLAMA3_PATTERN == LLAMA3_PATTERN
    assert convert.GPT2_PATTERN == GPT2_PATTERN


@pytest.mark.parametrize(("doc", "rule"), [
    (_spm_doc(normalizer={"type": "NFC"}), "normalizer"),
    (_spm_doc(pre_tokenizer={"type": "Metaspace", "replacement": "▁",
                             "prepend_scheme": "always", "split": True}), "pre_tokenizer"),
    (_gpt2_doc(pre_tokenizer={"type": "ByteLevel", "add_prefix_space": True,
                              "trim_offsets": True, "use_regex": True}), "pre_tokenizer"),
    (_gpt2_doc(pre_tokenizer={"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"\d+"}, "behavior": "Isolated",
         "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
         "use_regex": False}]}), "pre_tokenizer"),
    (_gpt2_doc(model={**_gpt2_doc()["model"], "merges": []}), "model.merges"),
    (_gpt2_doc(model={**_gpt2_doc()["model"], "ignore_merges": True}),
     "model.ignore_merges"),
    (_spm_doc(model={**_spm_doc()["model"], "dropout": 0.1}), "model.dropout"),
    (_spm_doc(added_tokens=[{"id": 1, "content": "<s>", "special": True, "lstrip": True,
                             "rstrip": False, "single_word": False,
                             "normalized": False}]), "lstrip"),
])
def test_what_a_gguf_cannot_express_is_refused(doc: dict[str, Any], rule: str) -> None:
    with pytest.raises(NotExpressibleError, match=rule):
        convert.plan(doc)


def test_a_sentencepiece_document_without_all_byte_pieces_is_refused() -> None:
    model = _spm_doc()["model"]
    pieces = sorted((p for p in model["vocab"] if p != "<0x00>"), key=model["vocab"].get)
    vocab = {p: i for i, p in enumerate(pieces)}
    with pytest.raises(NotExpressibleError, match=r"^model\.byte_fallback"):
        convert.plan(_spm_doc(model={**model, "vocab": vocab}))


def test_a_decoder_llama_cpp_does_not_run_declines_decode_only() -> None:
    plan = convert.plan(_spm_doc(decoder=None))
    assert plan.decode_not_expressible is not None and plan.model == "llama"


@pytest.mark.parametrize("fixture", ["mistral-v0.1", "llama-3"])
def test_the_real_files_convert(fixture: str) -> None:
    path = cache_dir() / "fixtures" / fixture / "tokenizer.json"
    if not path.is_file():
        pytest.skip(f"{fixture} not fetched (python -m harness fetch)")
    plan = convert.plan(json.loads(path.read_text("utf-8")))
    assert (plan.model, plan.pre) == (("llama", None) if fixture == "mistral-v0.1"
                                      else ("gpt2", "llama-bpe"))


# --- the conversion: the GGUF written, read back with gguf's reader ----------------------

_READ_BACK = """
import json, sys
import gguf
def plain(v):
    v = v.tolist() if hasattr(v, "tolist") else v
    return [plain(x) for x in v] if isinstance(v, list) else (
        v.item() if hasattr(v, "item") else v)
r = gguf.GGUFReader(sys.argv[1])
print(json.dumps({n: plain(f.contents()) for n, f in r.fields.items()
                  if n.startswith("tokenizer.")}))
"""


def _converted(doc: dict[str, Any], tmp_path: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        command = llama_cpp.converter_command()
    except SubjectUnavailableError as exc:
        pytest.skip(str(exc))
    out = tmp_path / "vocab.gguf"
    done = subprocess.run([*command, str(out)], input=json.dumps(doc), text=True,
                          capture_output=True, check=True)
    said = json.loads(done.stdout)
    read = subprocess.run([command[0], "-I", "-c", _READ_BACK, str(out)], text=True,
                          capture_output=True, check=True)
    return said, json.loads(read.stdout)


def test_the_sentencepiece_gguf_reads_back(tmp_path: Path) -> None:
    doc = _spm_doc()
    said, fields = _converted(doc, tmp_path)
    assert said["ok"]["add_bos"] is True
    pieces = sorted(doc["model"]["vocab"], key=doc["model"]["vocab"].__getitem__)
    assert fields["tokenizer.ggml.model"] == "llama"
    assert fields["tokenizer.ggml.tokens"] == pieces
    assert fields["tokenizer.ggml.scores"] == convert.plan(doc).scores
    assert fields["tokenizer.ggml.token_type"] == convert.plan(doc).types
    assert fields["tokenizer.ggml.bos_token_id"] == 1
    assert fields["tokenizer.ggml.unknown_token_id"] == 0
    assert fields["tokenizer.ggml.add_bos_token"] is True
    assert fields["tokenizer.ggml.add_eos_token"] is False
    assert fields["tokenizer.ggml.add_space_prefix"] is True
    assert "tokenizer.ggml.merges" not in fields and "tokenizer.ggml.pre" not in fields


def test_the_byte_level_gguf_reads_back(tmp_path: Path) -> None:
    said, fields = _converted(_gpt2_doc(), tmp_path)
    assert said["ok"]["model"] == "gpt2"
    assert fields["tokenizer.ggml.model"] == "gpt2"
    assert fields["tokenizer.ggml.pre"] == "gpt-2"
    assert fields["tokenizer.ggml.merges"] == ["a b"]
    assert fields["tokenizer.ggml.tokens"][:3] == ["Ā", "ā", "Ă"]
    assert fields["tokenizer.ggml.tokens"][256:] == ["ab", "<|begin|>"]
    assert fields["tokenizer.ggml.token_type"][257] == convert.CONTROL
    assert fields["tokenizer.ggml.add_bos_token"] is False


def test_a_refused_document_writes_no_gguf(tmp_path: Path) -> None:
    try:
        command = llama_cpp.converter_command()
    except SubjectUnavailableError as exc:
        pytest.skip(str(exc))
    out = tmp_path / "vocab.gguf"
    done = subprocess.run([*command, str(out)], input=json.dumps(
        _spm_doc(normalizer={"type": "NFC"})), text=True, capture_output=True, check=True)
    assert json.loads(done.stdout)["refused"].startswith("NotExpressibleError: normalizer")
    assert not out.exists()


# --- expectations, recognisers, witnesses ------------------------------------------------

def test_every_entry_has_a_recogniser_and_a_pinned_witness() -> None:
    import yaml

    from harness.judge.expectations import parse

    text = (FOLDER / "expectations.yaml").read_text("utf-8")
    entries = yaml.safe_load(text)["expectations"]
    pinned = {row["class"] for row in json.loads(
        (FOLDER / "witnesses.json").read_text("utf-8"))["cases"]}
    assert {e["recogniser"] for e in entries} <= set(RECOGNISERS)
    assert {e["id"] for e in entries} == pinned
    assert parse(text, where="expectations.yaml", recognisers=RECOGNISERS).subject == (
        "llama-cpp")
    findings = (FOLDER / "FINDINGS.md").read_text("utf-8")
    assert all(f"Entry: `{e['id']}`." in findings for e in entries)


@pytest.mark.parametrize(("text", "cleaned"), [
    ("a , b . c ? d ! e", "a, b. c? d! e"),
    ("it 's a ' b", "it's a'b"),
    ("we 're , they 've , I 'm , you 'll , I 'd", "we're, they've, I'm, you 'll, I 'd"),
    (" ,", ","),
    ("x ' ' y", "x'' y"),
    ("' a", "' a"),
])
def test_the_clean_spaces_passes_are_llama_cpps(text: str, cleaned: str) -> None:
    assert cleaned_spaces(text) == cleaned


def _installed() -> bool:
    return shutil.which("node") is not None and llama_cpp.installed(llama_cpp.npm_dir())


def test_the_pinned_witnesses_still_show_their_entries() -> None:
    pytest.importorskip("tokenizers")
    if not _installed():
        pytest.skip("node or the installed node-llama-cpp tree is not here")
    from harness.runs.third_party import check_subject_witnesses

    check = check_subject_witnesses("llama-cpp")
    assert check.stale == []
    assert set(check.witnesses) == {row["class"] for row in json.loads(
        (FOLDER / "witnesses.json").read_text("utf-8"))["cases"]}


def test_each_witness_fails_without_its_entry() -> None:
    pytest.importorskip("tokenizers")
    if not _installed():
        pytest.skip("node or the installed node-llama-cpp tree is not here")
    from harness.core.case import Case
    from harness.oracles.subjects import _shows
    from harness.runs.third_party import engine_for

    wired = engine_for("llama-cpp")
    rows = json.loads((FOLDER / "witnesses.json").read_text("utf-8"))["cases"]
    for row in rows:
        assert _shows(wired.engine, Case.from_json(row["case"]), row["class"]), row["class"]
