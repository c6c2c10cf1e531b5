"""The lineage oracles (harness/subjects/sentencepiece/, tiktoken/): their converters
accept exactly the documents decision 0040 names and decline the rest; a declined
operation is skipped and counted by the judge, never agreed nor diverged; and, where the
pinned package is in the cache (else skipped, saying why), a converted document encodes
and decodes as upstream does, and a non-convertible one is answered not-expressible."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.core.observation import Observation
from harness.core.outcome import NOT_EXPRESSIBLE, Crashed, Decoded, Encoded, Loaded, Refused
from harness.judge.compare import DECLINED, judge_tiers
from harness.subjects import lineage, pypi, registry
from harness.subjects.sentencepiece import convert as spm
from harness.subjects.tiktoken import convert as tik

ROOT = Path(__file__).parents[2]
LLAMA_LIKE = json.loads((ROOT / "fixtures" / "llama_like.tokenizer.json").read_text("utf-8"))
METASPACE = json.loads((ROOT / "fixtures" / "metaspace_always_split_true.tokenizer.json")
                       .read_text("utf-8"))


def _byte_level() -> dict[str, Any]:
    """A GPT-2-like document: the 256 byte symbols (id = byte), then two merges."""
    symbols = {byte: symbol for symbol, byte in tik.SYMBOL_BYTES.items()}
    vocab = {symbols[b]: b for b in range(256)}
    merges = [["Ġ", "a"], ["Ġa", "b"]]
    for left, right in merges:
        vocab[left + right] = len(vocab)
    flags = {"add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [
        {"id": 258, "content": "<|end|>", "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}],
        "normalizer": None, "pre_tokenizer": {"type": "ByteLevel", **flags},
        "post_processor": None, "decoder": {"type": "ByteLevel", **flags},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab, "merges": merges}}


# -- the converters ---------------------------------------------------------------------


def test_the_llama_like_document_converts_and_keeps_its_template() -> None:
    converted = spm.convert(LLAMA_LIKE)
    assert converted.bos == 1 and converted.eos is None
    assert converted.decode_not_expressible is None
    assert converted.proto.startswith(b"\x0a")  # field 1 (pieces), length-delimited


@pytest.mark.parametrize(("change", "rule"), [
    (lambda d: d.update(pre_tokenizer=METASPACE["pre_tokenizer"]), "pre_tokenizer"),
    (lambda d: d["model"].update(dropout=0.5), "model.dropout"),
    (lambda d: d["model"]["merges"].append(d["model"]["merges"][0]), "model.merges"),
    (lambda d: d["added_tokens"][0].update(lstrip=True), "added_tokens[0]"),
])
def test_sentencepiece_declines_what_a_model_proto_cannot_say(change: Any, rule: str
                                                             ) -> None:
    document = copy.deepcopy(LLAMA_LIKE)
    change(document)
    with pytest.raises(lineage.NotExpressibleError, match=rule.replace("[", r"\[")):
        spm.convert(document)


def test_a_second_split_of_a_merge_result_is_declined() -> None:
    merges = [("a", "b"), ("b", "c"), ("ab", "c")]  # "abc" is also "a" + "bc"
    with pytest.raises(lineage.NotExpressibleError, match="can also be made"):
        lineage.greedy_equivalent(merges, {"a", "b", "c", "ab", "bc", "abc"})


def test_an_earlier_overlapping_merge_of_one_result_is_declined() -> None:
    # on "aa a aa" upstream merges "a aa" (rank 1) first, a greedy over pieces "aa a"
    merges = [("a", "a"), ("a", "aa"), ("aa", "a")]
    with pytest.raises(lineage.NotExpressibleError, match="right pair first"):
        lineage.greedy_equivalent(merges, {"a", "aa", "aaa"})
    # two splits of one result that cannot overlap: converted
    merges = [("a", "b"), ("b", "c"), ("ab", "c"), ("a", "bc")]
    assert lineage.greedy_equivalent(merges, {"a", "b", "c", "ab", "bc", "abc"}) == {
        "ab": 0, "bc": 1, "abc": 2}


def test_the_byte_level_document_converts_with_ranks_equal_to_ids() -> None:
    converted = tik.convert(_byte_level())
    assert converted.ranks[b" ab"] == 257 and converted.ranks[b"a"] == ord("a")
    assert converted.specials == {"<|end|>": 258} and converted.pattern == tik.GPT2_PATTERN


@pytest.mark.parametrize(("change", "rule"), [
    (lambda d: d.update(normalizer={"type": "NFC"}), "normalizer"),
    (lambda d: d["pre_tokenizer"].update(add_prefix_space=True), "pre_tokenizer"),
    (lambda d: d["model"]["vocab"].update({"ab": 300}), "no merge makes"),
    (lambda d: d["model"]["vocab"].pop("a"), "model"),
    (lambda d: d["added_tokens"][0].update(content="é"), "added_tokens[0]"),
])
def test_tiktoken_declines_what_an_encoding_cannot_say(change: Any, rule: str) -> None:
    document = _byte_level()
    change(document)
    with pytest.raises(lineage.NotExpressibleError, match=rule.replace("[", r"\[")):
        tik.convert(document)


def test_ranks_out_of_merge_order_are_declined() -> None:
    document = _byte_level()
    vocab = document["model"]["vocab"]
    vocab["Ġa"], vocab["Ġab"] = vocab["Ġab"], vocab["Ġa"]
    with pytest.raises(lineage.NotExpressibleError, match="merge order"):
        tik.convert(document)


# -- the judge: a declined operation is skipped, never agreed nor diverged ------------


def test_a_declined_load_is_skipped_and_counted_not_compared() -> None:
    declined = Observation("strict", "load", None, (),
                           Refused(NOT_EXPRESSIBLE, "pre_tokenizer"), Loaded())
    comparison = judge_tiers(declined, side="subject")
    assert comparison.divergence is None and comparison.skipped == (DECLINED,)
    refused = Observation("strict", "load", None, (), Refused("other", "x"), Loaded())
    assert judge_tiers(refused, side="subject").divergence is not None


# -- the real packages (skipped when not in the cache) -----------------------------------


def _subject(name: str) -> Any:
    entry = registry.lookup(name)
    assert entry is not None
    module = entry.module()
    if pypi.installed(f"{name}-{module.VERSION}") is None:
        pytest.skip(f"{name} {module.VERSION} is not installed in the cache "
                    f"({pypi.environment(f'{name}-{module.VERSION}')}): run "
                    f"`python -m harness conformance --subject {name} --profile smoke` once")
    from harness.subjects.process import ProcessSubject

    command = entry.command()
    assert command is not None
    return ProcessSubject(command)


@pytest.mark.parametrize(("name", "document", "declined", "texts"), [
    ("sentencepiece", LLAMA_LIKE, METASPACE, ["ab c", "hello world", "  a b  ", "é"]),
    ("tiktoken", _byte_level(), LLAMA_LIKE, ["ab ab", " a  b", "x<|end|>y", "é ü"]),
])
def test_the_converted_model_equals_upstream_and_the_rest_is_declined(
        name: str, document: dict[str, Any], declined: dict[str, Any], texts: list[str]
) -> None:
    from harness.subjects.upstream import UPSTREAM

    subject = _subject(name)
    try:
        text = json.dumps(document)
        handle, theirs = subject.load(text), UPSTREAM.load(text)
        assert not isinstance(theirs, Refused | Crashed)
        for sample in texts:
            for special in (True, False):
                got = subject.encode(handle, sample, add_special_tokens=special)
                want = UPSTREAM.encode(theirs, sample, add_special_tokens=special)
                assert isinstance(got, Encoded) and isinstance(want, Encoded)
                assert (got.ids, got.tokens) == (want.ids, want.tokens), sample
                decoded = subject.decode(handle, want.ids, skip_special_tokens=True)
                assert decoded == UPSTREAM.decode(theirs, want.ids, skip_special_tokens=True)
                assert isinstance(decoded, Decoded)
        refused = subject.load(json.dumps(declined))
        assert isinstance(refused, Refused) and refused.rule == NOT_EXPRESSIBLE
    finally:
        subject.close()


def test_the_covering_patterns_are_the_generators_own_spellings() -> None:
    from harness.strategies.split_family import GPT4O_PATTERN, LLAMA3_PATTERN, QWEN2_PATTERN

    assert {LLAMA3_PATTERN, QWEN2_PATTERN, GPT4O_PATTERN, tik.GPT2_PATTERN} == tik.COVERING


def test_ignore_merges_converts_only_where_bpe_makes_every_piece() -> None:
    document = copy.deepcopy(LLAMA_LIKE)
    document["model"]["ignore_merges"] = True
    document["model"]["vocab"]["zz"] = len(document["model"]["vocab"])  # no merge makes it
    with pytest.raises(lineage.NotExpressibleError, match="ignore_merges"):
        spm.convert(document)


# -- the expectations, their witnesses and findings ---------------------------------------


@pytest.mark.parametrize("name", ["sentencepiece", "tiktoken"])
def test_every_entry_is_written_up_and_pinned(name: str) -> None:
    from harness.runs import third_party

    folder = ROOT / "harness" / "subjects" / name
    expectations = third_party.expectations_at(f"harness/subjects/{name}/expectations.yaml")
    assert expectations.subject == name
    findings = (folder / "FINDINGS.md").read_text("utf-8")
    witnesses = folder / "witnesses.json"
    pinned = {row["class"] for row in json.loads(witnesses.read_text("utf-8"))["cases"]
              } if witnesses.is_file() else set()
    for entry in expectations.entries:
        assert f"`{entry.id}`" in findings, entry.id
        assert entry.id in pinned, entry.id


@pytest.mark.parametrize("name", ["sentencepiece", "tiktoken"])
def test_each_pinned_witness_shows_its_entry_and_only_its_entry(name: str) -> None:
    """Re-run through the real package: each witness still shows its class (not stale),
    and every divergence of it that class explains no other entry explains, so without
    the entry the witness is a failure."""
    from harness.core.case import Case
    from harness.runs import third_party

    _subject(name).close()  # skips when the package is not in the cache
    wired = third_party.engine_for(name)
    rows = third_party.subject_pinned_rows(wired)
    for row in rows:
        _, judgement = wired.engine.evaluate(Case.from_json(row["case"]))
        showing = [v for v in judgement.verdicts if row["class"] in v.classes]
        assert showing, row["id"]
        assert all(v.classes == (row["class"],) for v in showing), row["id"]


# -- not run where the wheels cannot be had ------------------------------------------------


@pytest.mark.parametrize("name", ["sentencepiece", "tiktoken"])
def test_without_the_index_the_subject_is_skipped_in_one_line(
        name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli.subject import start_subject
    from harness.runs import third_party

    third_party.engine_for.cache_clear()  # a subject started by an earlier test
    third_party.subject_for.cache_clear()
    monkeypatch.setenv("TOKENIZER_CONFORMANCE_CACHE", str(tmp_path))
    monkeypatch.delenv("TOKENIZER_CONFORMANCE_BUILD", raising=False)

    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        if command[1:3] == ["-m", "venv"]:
            python = pypi.python_of(Path(command[-1]).parent)
            python.parent.mkdir(parents=True)
            python.write_text("", encoding="utf-8")
            return subprocess.CompletedProcess(command, 0, "", "")
        return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a "
                                           "version that satisfies the requirement")

    monkeypatch.setattr(subprocess, "run", run)
    assert start_subject(name) == ""
    said = capsys.readouterr().out
    assert said.startswith(f"skipped: {name}: pip download failed") and said.count("\n") == 1


def test_a_transplanted_witness_the_subject_declines_is_not_run_for_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    from harness.judge.classify import Judgement
    from harness.matrix import transplant

    case = {"document": LLAMA_LIKE, "texts": ["a"], "id_runs": [], "pairs": []}
    witnesses = [types.SimpleNamespace(id="x/declined", case=case),
                 types.SimpleNamespace(id="x/agreed", case=case)]
    answers = iter([Judgement([], [("load", DECLINED)]), Judgement([], [])])
    monkeypatch.setattr(transplant, "all_witnesses", lambda: witnesses)
    monkeypatch.setattr(transplant, "evaluator", lambda spec: (
        lambda _: (None, next(answers)), "lineage", "lineage@0"))
    rows = transplant.replay("lineage")["rows"]
    assert rows["x/declined"]["result"] == "not-run" and "declined" in rows["x/declined"]["why"]
    assert rows["x/agreed"] == {"result": "agrees"}
