"""Other tokenizers versions: the 1.x API generation replayed from recorded answers
(tests/data/tokenizers-1.x/answers.json, written by record.py beside it from tokenizers
1.0.0rc3; no network, no 1.x install), tier skipping, and the version check against a
mocked package index."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import sys
import time
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from harness.subjects.tokenizers_version import generations, index

DATA = Path(__file__).parents[1] / "data" / "tokenizers-1.x" / "answers.json"
ANSWERS: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))


class PanicException(BaseException):
    pass


PanicException.__module__ = "pyo3_runtime"


def _raise(recorded: dict[str, str]) -> None:
    kind = recorded["type"]
    if kind == "pyo3_runtime.PanicException":
        raise PanicException(recorded["message"])
    assert kind == "builtins.ValueError", kind
    raise ValueError(recorded["message"])


class FakeEncoding:
    """1.x's Encoding: ids, type ids and attention mask, nothing else."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.ids = answer["ids"]
        self.type_ids = answer["type_ids"]
        self.attention_mask = answer["attention_mask"]


class FakeTokenizer:
    """Replays one recorded document; unrecorded calls fail the test."""

    def __init__(self, entry: dict[str, Any]) -> None:
        self.entry = entry

    @classmethod
    def from_file(cls, path: str) -> FakeTokenizer:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        entry = next(e for e in ANSWERS["documents"].values() if e["sha256"] == digest)
        if entry["load"] != "ok":
            _raise(entry["load"])
        return cls(entry)

    @classmethod
    def from_file_text(cls, text: str) -> FakeTokenizer:
        digest = hashlib.sha256(text.encode()).hexdigest()
        return cls(next(e for e in ANSWERS["documents"].values() if e["sha256"] == digest))

    def encode(self, given: str | tuple[str, str], *, add_special_tokens: bool = True
               ) -> FakeEncoding:
        wanted = list(given) if isinstance(given, tuple) else given
        return FakeEncoding(next(e for e in self.entry["encodes"] if e["input"] == wanted
                                 and e["add_special_tokens"] == add_special_tokens))

    def decode_tokens(self, ids: Sequence[int], skip_special_tokens: bool = False
                      ) -> list[str]:
        assert not skip_special_tokens
        answer = next(e for e in self.entry["encodes"] if e["ids"] == list(ids))
        return list(answer["decode_tokens"])

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return str(next(d["text"] for d in self.entry["decodes"] if d["ids"] == list(ids)
                        and d["skip_special_tokens"] == skip_special_tokens))


def fake_module() -> types.ModuleType:
    module = types.ModuleType("tokenizers")
    module.__version__ = ANSWERS["tokenizers"]  # type: ignore[attr-defined]
    module.Tokenizer = FakeTokenizer  # type: ignore[attr-defined]
    return module


def _text(name: str) -> str:
    return str(ANSWERS["documents"][name]["text"])


def test_the_recording_is_of_the_1x_api() -> None:
    assert ANSWERS["tokenizers"].startswith("1.")
    assert "from_str" not in ANSWERS["tokenizer_attributes"]
    assert "Regex" not in ANSWERS["module_attributes"]
    attributes = ANSWERS["documents"]["template"]["encodes"][0]["attributes"]
    assert "offsets" not in attributes and "tokens" not in attributes


def test_the_generation_is_told_from_the_module_not_its_version() -> None:
    generation = generations.generation_of(fake_module())
    assert generation.name == "1.x" and not generation.has_components
    assert generation.tiers == frozenset(generations.ALL_TIERS) - {"spans", "special_mask"}
    assert generations.family("1.0.0rc3") == "1.x"
    # the expectations family is told from the version: before 0.23 is its own file
    assert [generations.family(v) for v in ("0.20.3", "0.22.2", "0.23.1", "0.23.3", "0.30.0")
            ] == ["0.20-0.22", "0.20-0.22", "0.x", "0.x", "0.x"]


def test_1x_loads_through_a_file_and_takes_tokens_from_decode_tokens() -> None:
    generation = generations.generation_of(fake_module())
    tokenizer = generation.load(_text("template"))
    got = generation.encode(tokenizer, "ab a", None, add_special_tokens=True)
    assert got == generations.Answer(ids=(0, 3, 1), tokens=("<s>", "ab", "a"),
                                     type_ids=(0, 0, 0), attention_mask=(1, 1, 1))
    assert got.spans == () and got.special_mask == ()  # not exposed: left empty, skipped
    pair = generation.encode(tokenizer, "ab", "a", add_special_tokens=True)
    assert pair.type_ids == (0, 1)
    assert generation.decode(tokenizer, [0, 3, 1], skip_special_tokens=False) == "<s> ab a"


def test_1x_refusals_are_value_errors_and_panics_stay_crashes() -> None:
    generation = generations.generation_of(fake_module())
    with pytest.raises(ValueError, match="out of vocabulary") as refused:
        generation.load(_text("missing-merge-result"))
    assert generation.is_refusal(refused.value)
    with pytest.raises(PanicException) as panicked:
        generation.load(_text("merge-result-too-long"))
    assert not generation.is_refusal(panicked.value)


def _program(module: types.ModuleType, monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    monkeypatch.setitem(sys.modules, "tokenizers", module)
    path = Path(generations.__file__).with_name("program.py")
    spec = importlib.util.spec_from_file_location("tokenizers_version_program", path)
    assert spec is not None and spec.loader is not None
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    return program


def test_the_subject_program_answers_the_protocol_without_the_missing_tiers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    program = _program(fake_module(), monkeypatch)
    requests = [{"id": 1, "op": "load", "document": _text("template")},
                {"id": 2, "op": "encode", "handle": 1, "text": "ab a",
                 "add_special_tokens": True},
                {"id": 3, "op": "load", "document": _text("not-json")},
                {"id": 4, "op": "load", "document": _text("merge-result-too-long")}]
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(json.dumps(r) + "\n"
                                                          for r in requests)))
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    assert program.main() == 101  # the panic ends the process
    hello, *answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert hello["hello"]["name"] == "tokenizers-1.x"
    assert "spans" not in hello["hello"]["capabilities"]
    assert answers[1]["ok"] == {"ids": [0, 3, 1], "tokens": ["<s>", "ab", "a"],
                                "type_ids": [0, 0, 0], "attention_mask": [1, 1, 1]}
    assert answers[2]["refused"]["rule"] == "the config is not JSON: EOF while parsing an object"
    assert err.getvalue() == "panic: range end index 2 out of range for slice of length 1\n"


def test_tiers_a_subject_lacks_are_skipped_and_counted() -> None:
    from harness.core.observation import Observation
    from harness.core.outcome import Encoded
    from harness.judge.compare import judge_tiers

    ours = Encoded(ids=(0, 3, 1), tokens=("<s>", "ab", "a"), spans=((0, 0), (0, 2), (3, 4)),
                   special_mask=(1, 0, 0), type_ids=(0, 0, 0), attention_mask=(1, 1, 1))
    answer = generations.generation_of(fake_module()).encode(
        FakeTokenizer.from_file_text(_text("template")), "ab a", None,
        add_special_tokens=True)
    theirs = Encoded(ids=answer.ids, tokens=answer.tokens, spans=answer.spans,
                     special_mask=answer.special_mask, type_ids=answer.type_ids,
                     attention_mask=answer.attention_mask)
    observation = Observation("strict", "encode", "ab a", (("add_special_tokens", True),),
                              ours, theirs)
    tiers = generations.generation_of(fake_module()).tiers
    judged = judge_tiers(observation, tiers)
    # Word ids: no generation's answer carries them (only the pinned upstream reads them).
    assert judged.divergence is None and set(judged.skipped) == {"spans", "special_mask",
                                                                 "word_ids"}
    # A subject answering no spans without leaving them out of its capabilities is a
    # divergence at the spans: only upstream's missing offsets (1.x as the pinned
    # version, decision 0035) are skipped without being declared.
    swapped = Observation("strict", "encode", "ab a", (("add_special_tokens", True),),
                          theirs, ours)
    assert judge_tiers(swapped, None).divergence is not None
    upstream_1x = judge_tiers(observation, None)
    assert upstream_1x.divergence is None
    assert set(upstream_1x.skipped) == {"spans", "special_mask"}


# -- the version check, against a mocked index -------------------------------------------

#: The simple API's JSON answer (PEP 691/700), as PyPI gives it, cut to a few versions.
PUBLISHED = json.dumps({"name": "tokenizers", "versions": [
    "0.20.3", "0.21.4", "0.22.2", "0.23.1", "0.23.3", "1.0.0rc2", "1.0.0rc3"], "files": []})
#: A mirror's HTML page of the same project (file names only).
PUBLISHED_HTML = ("<html><body><a href='x'>tokenizers-0.23.3-cp39-abi3-manylinux.whl</a>"
                  "<a href='y'>tokenizers-0.23.3.tar.gz</a>"
                  "<a href='z'>tokenizers-1.0.0rc3-cp39-abi3-win_amd64.whl</a></body></html>")


def _index(out: str = PUBLISHED, *, offline: bool = False, calls: list[str] | None = None
           ) -> index.Fetcher:
    def fetch(url: str, timeout: float) -> str:
        assert url.endswith("/tokenizers/") and timeout <= 3
        if calls is not None:
            calls.append(url)
        if offline:
            raise TimeoutError("timed out")
        return out
    return fetch


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    return tmp_path / "index" / "tokenizers.json"


def test_a_published_version_passes(kept: Path) -> None:
    assert index.check("1.0.0rc3", _index(), kept) == "1.0.0rc3"
    assert index.check(" 0.23.3 ", _index(), kept) == "0.23.3"
    assert index.check("0.23.3", _index(PUBLISHED_HTML), kept.with_name("html.json")) == "0.23.3"


@pytest.mark.parametrize(("version", "message"), [
    ("9.9.9", "tokenizers 9.9.9 is not on the package index (nearest: 1.0.0rc3, 1.0.0rc2, "
              "0.23.3)"),
    ("0.22.5", "tokenizers 0.22.5 is not on the package index (nearest: 0.22.2, 0.23.3, "
               "0.23.1)"),
    ("garbage", "tokenizers version 'garbage' is not a version number (newest published: "
                "1.0.0rc3, 1.0.0rc2, 0.23.3)"),
    ("", "empty tokenizers version (give one, e.g. --reference 0.23.3)"),
])
def test_a_bad_version_is_refused_in_one_line(version: str, message: str, kept: Path) -> None:
    with pytest.raises(index.VersionError) as refused:
        index.check(version, _index(), kept)
    assert str(refused.value) == message and "\n" not in message


def test_offline_is_said_in_one_line(kept: Path) -> None:
    started = time.monotonic()
    with pytest.raises(index.VersionError, match=r"offline\?") as refused:
        index.check("0.23.3", _index(offline=True), kept)
    assert time.monotonic() - started < 5 and "\n" not in str(refused.value)
    with pytest.raises(index.VersionError, match="not a version number"):
        index.check("garbage", _index(offline=True), kept)


def test_the_kept_answer_spares_the_request_and_answers_offline(kept: Path) -> None:
    calls: list[str] = []
    assert index.check("0.23.3", _index(calls=calls), kept) == "0.23.3"
    assert len(calls) == 1 and kept.is_file()
    assert index.check("0.22.2", _index(calls=calls), kept) == "0.22.2"
    assert len(calls) == 1  # listed in the kept answer: no request
    with pytest.raises(index.VersionError) as refused:
        index.check("9.9.9", _index(offline=True, calls=calls), kept)
    assert len(calls) == 2  # an unknown version asks again (it may be new)
    assert str(refused.value).startswith("tokenizers 9.9.9 is not on the package index "
                                         "(nearest: 1.0.0rc3") \
        and "list kept from" in str(refused.value)


# -- nox checks the version as it loads the noxfile, before any virtual environment -----

def _noxfile(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> list[tuple[str, str]]:
    """Load noxfile.py as nox does, with ``argv``; the (session, version) pairs it checked
    (the check itself replaced: it would exit the test process)."""
    pytest.importorskip("nox")
    checked: list[tuple[str, str]] = []

    def check(version: str, fetch: Any = None, kept: Any = None) -> str:
        checked.append(("?", version))
        raise index.VersionError(f"tokenizers {version} is not on the package index")

    monkeypatch.setattr(index, "check", check)
    monkeypatch.setattr(sys, "argv", argv)
    exits: list[int] = []

    def exit_now(status: int) -> None:
        exits.append(status)
        raise SystemExit(status)

    monkeypatch.setattr("os._exit", exit_now)
    monkeypatch.setattr("signal.signal", lambda *args: None)  # the noxfile's SIGTERM hook
    path = Path(__file__).parents[2] / "noxfile.py"
    spec = importlib.util.spec_from_file_location("noxfile_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SystemExit as stop:
        assert stop.code == 2 and exits == [2]
    return checked


#: Loading the noxfile again registers its sessions again (nox warns).
_RELOADED = pytest.mark.filterwarnings("ignore:The session .* has already been registered")


@_RELOADED
@pytest.mark.parametrize("argv", [
    ["nox", "-s", "oracles", "--", "--reference", "9.9.9"],
    ["nox", "-R", "-s", "oracles", "--", "--reference=9.9.9"],
    ["nox", "--session=conformance", "--", "--subject", "tokenizers==9.9.9", "--profile", "dev"],
])
def test_nox_refuses_a_bad_version_as_it_loads(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               argv: list[str]) -> None:
    assert _noxfile(monkeypatch, argv) == [("?", "9.9.9")]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tokenizers 9.9.9 is not on the package index" in err


@_RELOADED
@pytest.mark.parametrize("argv", [
    ["nox", "-s", "oracles", "--", "--check"],
    ["nox", "-s", "tests", "--", "--reference", "9.9.9"],  # not the oracles session
    ["nox", "-s", "conformance", "--", "--subject", "transformers-js"],
    ["nox", "-l"],
])
def test_nox_checks_nothing_else(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> None:
    assert _noxfile(monkeypatch, argv) == []
