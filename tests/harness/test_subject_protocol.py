"""The subject protocol: an implementation in a child process, judged like our reference.

The example subject (our reference behind the protocol) passes with no divergence but our
own intended classes (a planted bug in it is caught: tests/exhaustive/); a subject that is
killed, hangs, prints garbage or answers out of order is restarted and its case recorded
as that subject's crash, never the end of the run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.core.outcome import Crashed, Decoded, Encoded, Refused
from harness.documents import probe_document
from harness.job import run
from harness.judge.expectations import ExpectationsError, parse
from harness.judge.registry import class_ids
from harness.runs import third_party
from harness.subjects.process import ProcessHandle, ProcessSubject, SubjectStartError

ROOT = Path(__file__).resolve().parents[2]
SUBJECTS = ROOT / "tests" / "data" / "subjects"
EXAMPLE = "example"
DOCUMENT = json.dumps(probe_document({"a": 0, "b": 1, "ab": 2, "<unk>": 3}, [("a", "b")],
                                     unk_token="<unk>"))


def loaded(subject: ProcessSubject) -> ProcessHandle:
    handle = subject.load(DOCUMENT)
    assert isinstance(handle, ProcessHandle), handle
    return handle


def misbehaving(mode: str, timeout: float = 20.0) -> ProcessSubject:
    return ProcessSubject([sys.executable, str(SUBJECTS / "misbehaving.py"), mode],
                          timeout=timeout)


@pytest.fixture
def subject() -> Iterator[ProcessSubject]:
    made = ProcessSubject([sys.executable, "-m", "harness.subjects.example"])
    yield made
    made.close()


def short_run(spec: str, examples: int = 40, **options: Any) -> Any:
    settings: dict[str, Any] = {"real_examples": -1, "shrink": False, "check_pinned": False}
    settings.update(options)
    return run(profile_name="dev", seed_value=0, examples=examples, command="test",
               subject=spec, **settings)


# -- the protocol itself ------------------------------------------------------------------

def test_hello_names_the_subject_and_its_capabilities(subject: ProcessSubject) -> None:
    assert subject.name == "example"
    assert subject.version() == "implementation/"
    assert {"ids", "tokens", "spans", "decode", "pairs"} <= subject.capabilities


def test_load_encode_decode_round_trip(subject: ProcessSubject) -> None:
    handle = loaded(subject)
    encoded = subject.encode(handle, "abab", "a")
    assert isinstance(encoded, Encoded)
    assert encoded.ids == (2, 2, 0) and encoded.tokens == ("ab", "ab", "a")
    assert encoded.spans == ((0, 2), (2, 4), (0, 1)) and encoded.type_ids == (0, 0, 1)
    assert subject.decode(handle, [2, 0], skip_special_tokens=True) == Decoded("ab a")


def test_a_refusal_is_typed_with_rule_and_path(subject: ProcessSubject) -> None:
    refused = subject.load('{"model": {"type": "BPE", "vocab": [], "merges": []}}')
    assert isinstance(refused, Refused) and refused.rule and refused.path.startswith("$")
    handle = loaded(subject)
    lone = subject.encode(handle, "a\ud800")  # a lone surrogate crosses as JSON escape
    assert isinstance(lone, Refused) and lone.rule == "text-not-unicode"


def test_many_documents_stay_usable(subject: ProcessSubject) -> None:
    """Documents beyond those kept loaded are freed in the child and reloaded on use."""
    handles = [loaded(subject) for _ in range(20)]
    for handle in handles:
        assert isinstance(subject.encode(handle, "ab"), Encoded)


@pytest.mark.parametrize(("mode", "kind"), [("garbage", "protocol"), ("exit", "died"),
                                            ("wrong-id", "protocol")])
def test_a_misbehaving_subject_is_restarted(mode: str, kind: str) -> None:
    subject = misbehaving(mode)
    try:
        handle = loaded(subject)
        crashed = subject.encode(handle, "ab")
        assert isinstance(crashed, Crashed) and crashed.kind == kind
        assert subject.restarts == 1 and subject.pid is None
        # The next request starts a new child, which loads the handle's document again.
        assert subject.decode(handle, [2], skip_special_tokens=True) == Decoded("ab")
    finally:
        subject.close()


def test_a_hanging_subject_times_out_and_is_killed() -> None:
    subject = misbehaving("hang", timeout=1.0)
    try:
        handle = loaded(subject)
        pid = subject.pid
        assert pid is not None
        crashed = subject.encode(handle, "ab")
        assert isinstance(crashed, Crashed) and crashed.kind == "timeout"
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # killed and reaped: no process left behind
    finally:
        subject.close()


def test_a_subject_that_never_says_hello_is_a_start_error(monkeypatch: Any) -> None:
    monkeypatch.setattr("harness.subjects.process.START_TIMEOUT", 1.0)
    subject = misbehaving("silent")
    with pytest.raises(SubjectStartError, match="did not say hello"):
        subject.hello()
    assert isinstance(subject.load(DOCUMENT), Crashed)


# -- runs -----------------------------------------------------------------------------

def test_the_example_subject_shows_only_our_intended_classes() -> None:
    result = short_run(EXAMPLE, examples=60)
    assert result.tally.comparisons > 150
    assert not result.tally.failures and not result.tally.errors, result.tally.failures
    assert result.tally.by_class, "the run met none of our classes: it proves little"
    assert set(result.tally.by_class) <= set(class_ids())
    assert result.subject is not None and result.subject.name == "example"


def test_a_subject_killed_mid_run_is_restarted_and_the_case_recorded(
        monkeypatch: Any) -> None:
    subject = third_party.engine_for(EXAMPLE).subject
    original = subject.encode
    calls = [0]

    def encode_after_a_kill(handle: Any, text: str, pair: str | None = None, *,
                            add_special_tokens: bool = True) -> Any:
        calls[0] += 1
        if calls[0] == 5 and subject.pid is not None:
            os.kill(subject.pid, signal.SIGKILL)
        return original(handle, text, pair, add_special_tokens=add_special_tokens)

    monkeypatch.setattr(subject, "encode", encode_after_a_kill)
    restarts = subject.restarts
    result = short_run(EXAMPLE, examples=60)
    assert calls[0] > 5, "the run ended at the kill"
    died = [s for s in result.tally.failures if "crashed[died]" in s]
    assert died, sorted(result.tally.failures)
    assert sum(result.tally.failures[s] for s in died) == 1
    assert subject.restarts == restarts + 1
    assert result.tally.examples == 60


def test_an_unavailable_named_subject_is_skipped_in_one_line(
        monkeypatch: Any, capsys: Any, tmp_path: Path) -> None:
    from harness.__main__ import main
    from harness.runs import third_party

    # Not the subject another test of this session may have started (engines are cached),
    # and nothing written into the checkout if the skip ever failed.
    monkeypatch.setattr(third_party, "engine_for", third_party.engine_for.__wrapped__)
    monkeypatch.setattr(third_party, "subject_for", third_party.subject_for.__wrapped__)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("harness.subjects.transformers_js.shutil.which", lambda _: None)
    assert main(["conformance", "--subject", "transformers-js", "--examples", "1"]) == 0
    assert not (tmp_path / "reports").exists()
    out = capsys.readouterr().out.strip().splitlines()
    assert out == ["skipped: transformers-js: node not found; the subject is skipped"]


def test_a_command_that_cannot_start_is_a_usage_error(capsys: Any) -> None:
    from harness.__main__ import main

    assert main(["conformance", "--subject", "cmd:/nonexistent/subject", "--examples",
                 "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot start subject" in err[0]


# -- expectation files --------------------------------------------------------------------

@pytest.mark.parametrize(("text", "message"), [
    ("subject: x\nexpectations: [{id: a}]", "missing 'title'"),
    ("subject: x\nexpectations: [{id: a, title: t, side: maybe, explains: [ids], "
     "recogniser: reads_dropout}]", "side must be one of"),
    ("subject: x\nexpectations: [{id: a, title: t, side: different, explains: [nope], "
     "recogniser: reads_dropout}]", "unknown tiers"),
    ("subject: x\nexpectations: [{id: a, title: t, side: different, explains: [ids], "
     "recogniser: no_such}]", "unknown recogniser 'no_such'"),
    ("subject: x\ninherit: [everyone]\nexpectations: []", "inherit may only be"),
    ("subject: x\nexpectations: []\ngenerator: {family: []}", "generator must map"),
    ("subject: x\nexpectations: []\ngenerator: [family]", "generator must map"),
])
def test_a_malformed_expectations_file_is_named(text: str, message: str) -> None:
    with pytest.raises(ExpectationsError, match=message) as caught:
        parse(text, where="harness/expectations/x.yaml")
    assert str(caught.value).startswith("harness/expectations/x.yaml")
