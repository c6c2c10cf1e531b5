"""The PyPI subjects (fastokens, tokie, kitoken): each adapter replayed on the calls it
made to its real package (tests/data/pypi-subjects/<name>.json, written by record_subjects.py
beside it; no network, no package), the not-run path of the installer, and one short real
run per subject that skips, saying why, when its package is not in the cache."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
import types
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from harness.subjects import pypi, registry
from harness.subjects.registry import SubjectUnavailableError

ROOT = Path(__file__).parents[2]
DATA = ROOT / "tests" / "data" / "pypi-subjects"
SUBJECTS = ("fastokens", "tokie", "kitoken")
CLASSES = {"fastokens": "Tokenizer", "tokie": "Tokenizer", "kitoken": "Kitoken"}


def _recorded(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    return data


def _plain(value: Any) -> Any:
    """A call's argument as record_subjects.py writes it."""
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _value(recorded: Any) -> Any:
    if isinstance(recorded, dict) and set(recorded) == {"bytes"}:
        return bytes.fromhex(recorded["bytes"])
    if isinstance(recorded, dict) and set(recorded) == {"object"}:
        return types.SimpleNamespace(**recorded["object"])
    return recorded


class Replay:
    """The package's calls, answered in the recorded order; any other call fails."""

    def __init__(self, calls: list[dict[str, Any]], module: types.ModuleType) -> None:
        self.calls: Iterator[dict[str, Any]] = iter(calls)
        self.module = module

    def call(self, where: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
             ) -> Any:
        entry = next(self.calls)
        given = list(args)
        if "file" in entry:  # a temporary file: its text is what was recorded
            assert Path(given[0]).read_text(encoding="utf-8") == entry["file"]
            given[0] = "<path>"
        assert (entry["call"], entry["args"], entry["kwargs"]) == (
            f"{where}.{name}", _plain(given), kwargs), entry["call"]
        if "raised" in entry:
            raised = entry["raised"]
            kind = getattr(self.module, raised["type"], None)
            if kind is None:
                kind = getattr(__import__("builtins"), raised["type"])
            raise kind(raised["message"])
        if entry["returned"] == {"tokenizer": True}:
            return FakeObject(self, "tokenizer")
        return _value(entry["returned"])


class FakeObject:
    def __init__(self, replay: Replay, where: str) -> None:
        self._replay, self._where = replay, where

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: self._replay.call(self._where, name, args, kwargs)


def _program(name: str, monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, Replay]:
    recorded = _recorded(name)
    module = types.ModuleType(name)
    replay = Replay(recorded["calls"], module)
    setattr(module, CLASSES[name], FakeObject(replay, CLASSES[name]))
    if name == "tokie":
        module.TokieError = type("TokieError", (Exception,), {})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, module)
    real_version = metadata.version
    monkeypatch.setattr(metadata, "version", lambda package: recorded["version"]
                        if package == name else real_version(package))
    monkeypatch.setattr(sys, "path", list(sys.path))
    path = ROOT / "harness" / "subjects" / name / "program.py"
    spec = importlib.util.spec_from_file_location(f"{name}_program_under_test", path)
    assert spec is not None and spec.loader is not None
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    return program, replay


@pytest.mark.parametrize("name", SUBJECTS)
def test_the_adapter_answers_as_recorded_from_the_real_package(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    recorded = _recorded(name)
    program, replay = _program(name, monkeypatch)
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "".join(json.dumps(r) + "\n" for r in recorded["requests"])))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert program.serve(program.Adapter()) == recorded["status"]
    assert out.getvalue().splitlines() == recorded["lines"]
    assert next(replay.calls, None) is None  # every recorded call was made


def test_the_recordings_show_each_adapters_tiers() -> None:
    hellos = {name: json.loads(_recorded(name)["lines"][0])["hello"] for name in SUBJECTS}
    assert hellos["kitoken"]["capabilities"] == ["decode", "ids"]
    assert "pairs" not in hellos["fastokens"]["capabilities"]
    assert "spans" not in hellos["tokie"]["capabilities"]
    answers = [json.loads(line) for line in _recorded("kitoken")["lines"][1:]]
    assert answers[1]["ok"] == {"ids": [293, 298, 259, 1, 299, 267, 288, 271, 271, 274]}
    assert answers[3]["protocol_error"] == "a pair, but the subject has no pairs capability"


# -- the installer: not run when the package cannot be had --------------------------------


def _no_index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[list[str]]:
    monkeypatch.setenv("TOKENIZER_CONFORMANCE_CACHE", str(tmp_path))
    ran: list[list[str]] = []

    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        ran.append(command)
        if command[1:3] == ["-m", "venv"]:
            python = pypi.python_of(Path(command[-1]).parent)
            python.parent.mkdir(parents=True)
            python.write_text("", encoding="utf-8")
            return subprocess.CompletedProcess(command, 0, "", "")
        return subprocess.CompletedProcess(
            command, 1, "", "WARNING: Retrying...\nERROR: Could not find a version that "
            "satisfies the requirement tokie==0.1.4 (from versions: none)\n")

    monkeypatch.setattr(subprocess, "run", run)
    return ran


@pytest.mark.parametrize("name", SUBJECTS)
def test_no_index_is_one_line_and_the_subject_is_not_run(
        name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran = _no_index(monkeypatch, tmp_path)
    entry = registry.lookup(name)
    assert entry is not None
    with pytest.raises(SubjectUnavailableError) as unavailable:
        entry.command()
    message = str(unavailable.value)
    assert message.startswith(f"{name}: pip download failed: ERROR: Could not find")
    assert "\n" not in message
    download = ran[-1]
    assert "--no-deps" in download and "--only-binary" in download
    assert not (tmp_path / "subjects" / f"{name}-{entry.module().VERSION}" /
                pypi.MARKER).exists()


def test_a_wheel_that_is_not_the_pinned_one_is_refused(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _no_index(monkeypatch, tmp_path)
    wheel = pypi.Wheel("tokie", "0.1.4", {"tokie-0.1.4-cp311-cp311-linux.whl": "0" * 64})
    downloads = tmp_path / "subjects" / "tokie-0.1.4" / "wheels"
    downloads.mkdir(parents=True)
    (downloads / "tokie-0.1.4-cp311-cp311-linux.whl").write_bytes(b"not the wheel")
    with pytest.raises(SubjectUnavailableError, match=r"has sha256 [0-9a-f]{64}, not the "
                       r"pinned 0{64}$"):
        pypi.install("tokie-0.1.4", [wheel], label="tokie")
    (downloads / "tokie-0.1.4-cp311-cp311-linux.whl").rename(downloads / "tokie-0.1.4-x.whl")
    with pytest.raises(SubjectUnavailableError, match="pip download failed"):
        pypi.install("tokie-0.1.4", [wheel], label="tokie")  # not cached: downloaded again


def test_the_not_run_subject_is_skipped_by_the_command_line(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli.subject import start_subject

    _no_index(monkeypatch, tmp_path)
    assert start_subject("kitoken") == ""
    assert capsys.readouterr().out.startswith("skipped: kitoken: pip download failed")


# -- one short real run per subject (skips when the package is not in the cache) ---------


@pytest.mark.parametrize("name", SUBJECTS)
def test_a_short_real_run(name: str) -> None:
    entry = registry.lookup(name)
    assert entry is not None
    module = entry.module()
    if pypi.installed(f"{name}-{module.VERSION}") is None:
        pytest.skip(f"{name} {module.VERSION} is not installed in the cache "
                    f"({pypi.environment(f'{name}-{module.VERSION}')}): run "
                    f"`python -m harness conformance --subject {name} --profile smoke` once")
    from harness.core.outcome import Crashed, Encoded, Refused
    from harness.subjects.process import ProcessSubject
    from harness.subjects.upstream import UPSTREAM

    document = (ROOT / "fixtures" / "llama_like.tokenizer.json").read_text(encoding="utf-8")
    command = entry.command()
    assert command is not None
    subject = ProcessSubject(command)
    try:
        handle, ours = subject.load(document), UPSTREAM.load(document)
        assert not isinstance(handle, Refused | Crashed)
        assert not isinstance(ours, Refused | Crashed)
        got = subject.encode(handle, "ab c", add_special_tokens=False)
        want = UPSTREAM.encode(ours, "ab c", add_special_tokens=False)
        assert isinstance(got, Encoded) and isinstance(want, Encoded)
        assert got.ids == want.ids
        assert subject.version() == f"{name}@{module.VERSION}"
    finally:
        subject.close()


# -- the expectations and their recognisers ---------------------------------------------


@pytest.mark.parametrize("name", SUBJECTS)
def test_each_expectations_file_parses_with_its_recognisers(name: str) -> None:
    from harness.runs import third_party

    expectations = third_party.expectations_at(f"harness/subjects/{name}/expectations.yaml")
    assert expectations.subject == name and expectations.entries
    findings = (ROOT / "harness" / "subjects" / name / "FINDINGS.md").read_text("utf-8")
    for entry in expectations.entries:  # every entry is written up, by its id
        assert f"`{entry.id}`" in findings, entry.id



def test_every_fastokens_entry_has_its_section_and_all_but_the_random_one_a_pin() -> None:
    from harness.runs import third_party
    from harness.subjects.reproducers import sections

    folder = ROOT / "harness" / "subjects" / "fastokens"
    ids = {e.id for e in third_party.expectations_at(
        "harness/subjects/fastokens/expectations.yaml").entries}
    found = {s.entry for s in sections((folder / "FINDINGS.md").read_text("utf-8"))}
    pinned = {row["class"] for row in json.loads(
        (folder / "witnesses.json").read_text("utf-8"))["cases"]}
    assert ids <= found
    assert pinned == ids - {"dropout-draw"}

def test_the_short_property_rewrite_spells_out_only_unescaped_properties() -> None:
    from harness.subjects.fastokens.recognisers import component_types, long_properties

    document = {"pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": r"\pL+\\pL\P{N}\pN"}}]}}
    rewritten = long_properties(document)
    assert rewritten["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] == (
        r"\p{L}+\\pL\P{N}\p{N}")
    assert list(component_types(document["pre_tokenizer"])) == ["Sequence", "Split"]


def test_kitokens_merges_come_from_the_vocabulary_in_its_rank_order() -> None:
    from harness.subjects.kitoken.recognisers import merges_from_vocabulary

    document = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "c": 2, "bc": 3, "ab": 4,
                                                   "abc": 5}, "merges": [["b", "c"]]}}
    changed = merges_from_vocabulary(document)
    assert changed is not None  # "ab" and "abc" are reached by no listed merge
    # bc first (the file's merge 0), then the others by id: ab, then abc's two splits
    assert changed["model"]["merges"] == [["b", "c"], ["a", "b"], ["a", "bc"], ["ab", "c"]]
    every = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},
                       "merges": [["a", "b"]]}}
    assert merges_from_vocabulary(every) is None  # every token is some merge's result


def test_kitokens_byte_runs_are_read_as_one_utf8_text() -> None:
    from harness.core.outcome import Decoded
    from harness.subjects.kitoken.recognisers.bytes import (
        byte_pieces_kept,
        byte_pieces_uppercased,
        byte_runs_as_utf8,
    )

    def piece(b: int) -> str:  # a byte piece as byte_pieces_kept spells it for the replay
        return chr(0xF0000 + b)

    text = "a" + piece(0xE4) + piece(0xB8) + "b" + "".join(map(piece, (0xE4, 0xB8, 0x80)))
    got = byte_runs_as_utf8({}, None, Decoded(text + "<0x41>"))  # type: ignore[arg-type]
    assert got == Decoded("a\ufffdb\u4e00<0x41>")  # a literal <0x41> stays text
    kept = byte_pieces_kept({"model": {"type": "BPE", "vocab": {"<0x41>": 0, "<": 1}},
                             "decoder": {"type": "ByteFallback"}})
    assert kept is not None and kept["model"]["vocab"] == {piece(0x41): 0, "<": 1}
    document = {"model": {"type": "BPE", "vocab": {"<0x0a>": 0, "a": 1},
                          "merges": [["a", "<0x0a>"]]}}
    changed = byte_pieces_uppercased(document)
    assert changed is not None
    assert changed["model"]["vocab"] == {"<0x0A>": 0, "a": 1}
    assert changed["model"]["merges"] == [["a", "<0x0A>"]]
    both = {"model": {"type": "BPE", "vocab": {"<0x0a>": 0, "<0x0A>": 1}, "merges": []}}
    assert byte_pieces_uppercased(both) is None  # the uppercase spelling is taken


def test_tokies_table_is_the_vocabulary_by_position_read_through_gpt2s_byte_map() -> None:
    from harness.subjects.tokie.recognisers import model

    document = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 7, "\u00f1": 3},
                          "merges": []}, "decoder": None}
    assert model.positions(document) == ["a", "\u00f1", "b"]
    assert model.topological(document)  # no merges: the byte-level path
    assert model.bytelevel_bytes("\u00f1\u0120") == b"\xf1 "
    assert model.decoded(document, (0, 2)) == b"ab"
    assert model.decoded(document, (3,)) is None  # past the table: tokie panics
    crossed = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "abab": 3},
                         "merges": [["a", "b"], ["abab", "a"]]}}
    assert not model.topological(crossed)  # merge 1 names id 3, past base 2 + 1


def test_tokies_uncovered_bytes_take_the_leftmost_longest_token_further_on() -> None:
    from harness.core.outcome import Encoded
    from harness.subjects.tokie.recognisers import uncovered

    document = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},
                          "merges": [["a", "b"]]}, "pre_tokenizer": None}
    marked = uncovered.marked(document)
    assert marked is not None and marked["model"]["byte_fallback"] is True
    assert marked["model"]["vocab"]["<0x78>"] == uncovered.BYTE_MARKS + 0x78
    x = uncovered.BYTE_MARKS + ord("x")

    def walked(ids: tuple[int, ...]) -> tuple[int, ...]:
        outcome = Encoded(ids=ids, tokens=("",) * len(ids), spans=((0, 0),) * len(ids),
                          special_mask=(0,) * len(ids))
        got = uncovered.walked(document, outcome)
        assert isinstance(got, Encoded)
        return got.ids

    # Measured on tokie 0.1.4: 'xab' [2, 1], 'xxab' [2, 2], 'abx' [2].
    assert walked((x, 2)) == (2, 1)  # "ab" emitted over "xa", then "b"
    assert walked((x, x, 2)) == (2, 2)
    assert walked((2, x)) == (2,)  # nothing after it: dropped
    assert walked((2,)) == (2,)  # no uncovered byte: upstream's answer
    # A ByteLevel pre-tokenizer is run by tokie (its GPT-2 split): not modelled; a
    # Whitespace one is not (the reading pre_tokenizer_by_detection takes it off first).
    assert uncovered.marked({**document, "pre_tokenizer": {"type": "ByteLevel"}}) is None
    assert uncovered.marked({**document, "pre_tokenizer": {"type": "Whitespace"}}) is not None


def test_tokies_sentencepiece_encoder_keeps_only_the_byte_tokens_it_has() -> None:
    from harness.core.outcome import Encoded
    from harness.subjects.tokie.recognisers import uncovered

    metaspace = {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}
    document = {"model": {"type": "BPE", "vocab": {"Hx": 0, "H": 1, "x": 2, "<0xC3>": 3},
                          "merges": [["H", "x"]]}, "normalizer": metaspace}
    assert uncovered.drops_uncovered(document, None)  # type: ignore[arg-type]
    space = [uncovered.BYTE_MARKS + b for b in "\u2581".encode()]
    marks = (*space, 1, *(uncovered.BYTE_MARKS + b for b in "\u00e9".encode()))
    outcome = Encoded(ids=marks, tokens=("",) * len(marks), spans=((0, 0),) * len(marks),
                      special_mask=(0,) * len(marks))
    got = uncovered.walked(document, outcome)
    # Measured on tokie 0.1.4 with a file of this kind: 'Hé' gives H <0xC3>, no ▁.
    assert isinstance(got, Encoded) and got.ids == (1, 3)


def test_tokies_backtracking_encoder_reads_ids_as_merge_ranks() -> None:
    from harness.subjects.tokie.recognisers import backtracking, model

    document = {"model": {"type": "BPE", "vocab": {"ba": 0, "a": 1, "bb": 2, "b": 3},
                          "merges": [["b", "b"], ["b", "a"]]}, "decoder": None}
    assert model.backtracking_on_vocab(document)  # merge 0 names id 3, past bb's 2
    tables = backtracking.tables(document)
    assert tables is not None
    # Measured on tokie 0.1.4: 'bba' [3, 0] (b, ba: ba's id 0 outranks bb's 2); upstream
    # [2, 1]. A byte no token covers takes the next match: 'xa' [1, 1].
    assert backtracking.encode(tables, b"bba") == [3, 0]
    assert backtracking.encode(tables, b"xa") == [1, 1]
    assert backtracking.encode(tables, b"") == []


def test_tokies_normalizer_and_pre_tokenizer_are_detected() -> None:
    from harness.subjects.tokie.recognisers import (
        model,
        normalizer_by_detection,
        pre_tokenizer_by_detection,
    )

    nfkc = {"normalizer": {"type": "NFKC"}, "pre_tokenizer": None,
            "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}
    assert model.detected_normalizer(nfkc) == "None"
    changed = normalizer_by_detection(nfkc)
    assert changed is not None and changed["normalizer"] is None
    split = {**nfkc, "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"}}
    assert model.pretokenizer_type(split) == "None"
    assert (pre_tokenizer_by_detection(split) or {}).get("pre_tokenizer", 0) is None
    # A ByteLevel alone is tokie's GPT-2 split, with no prefix space (measured).
    bytelevel = {**split, "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": True,
                                            "use_regex": False}}
    assert (pre_tokenizer_by_detection(bytelevel) or {}).get("pre_tokenizer") == {
        "type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False,
        "use_regex": True}
    sequence = {**split, "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "a"}}, {"type": "ByteLevel"}]}}
    assert pre_tokenizer_by_detection(sequence) is None  # a family of its own: not modelled
