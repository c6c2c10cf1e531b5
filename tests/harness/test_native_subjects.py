"""The native PyPI subjects (pytorch-tokenizers, C++; iree-tokenizer, C): their pins, the
not-run path when the package index cannot be had, the expectations parsing with their
recognisers and written up in FINDINGS.md, and short real runs of each adapter through
the process machinery (skipped, saying why, when the package is not in the cache):
the refusal rules the adapters read from each library, and the calls they map."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from harness.core.outcome import Crashed, Decoded, Encoded, Refused
from harness.subjects import pypi, registry
from harness.subjects.registry import SubjectUnavailableError

ROOT = Path(__file__).parents[2]
SUBJECTS = ("pytorch-tokenizers", "iree-tokenizer")
LLAMA = (ROOT / "fixtures" / "llama_like.tokenizer.json").read_text(encoding="utf-8")


def _module(name: str) -> Any:
    entry = registry.lookup(name)
    assert entry is not None, name
    return entry.module()


@pytest.mark.parametrize("name", SUBJECTS)
def test_each_subject_pins_the_cpython_311_x86_64_wheel_by_sha256(name: str) -> None:
    module = _module(name)
    assert name == module.NAME and module.WHEEL.version == module.VERSION
    ((wheel, digest),) = module.WHEEL.hashes.items()
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert wheel.startswith(f"{name.replace('-', '_')}-{module.VERSION}-cp311-cp311-")
    assert "manylinux" in wheel and wheel.endswith("x86_64.whl")


def test_iree_tokenizer_pins_the_numpy_it_imports() -> None:
    module = _module("iree-tokenizer")
    assert module.NUMPY.requirement == "numpy==2.4.6"
    assert all(n.startswith("numpy-2.4.6-cp311-cp311-manylinux") for n in module.NUMPY.hashes)


@pytest.mark.parametrize("name", SUBJECTS)
def test_no_index_is_one_line_and_the_subject_is_not_run(
        name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TOKENIZER_CONFORMANCE_CACHE", str(tmp_path))
    monkeypatch.delenv("TOKENIZER_CONFORMANCE_BUILD", raising=False)

    def run(command: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        if command[1:3] == ["-m", "venv"]:
            python = pypi.python_of(Path(command[-1]).parent)
            python.parent.mkdir(parents=True)
            python.write_text("", encoding="utf-8")
            return subprocess.CompletedProcess(command, 0, "", "")
        return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a version "
                                           f"that satisfies the requirement {name}\n")

    monkeypatch.setattr(subprocess, "run", run)
    entry = registry.lookup(name)
    assert entry is not None
    with pytest.raises(SubjectUnavailableError) as unavailable:
        entry.command()
    assert str(unavailable.value).startswith(f"{name}: pip download failed: ERROR: Could not")
    assert "\n" not in str(unavailable.value)


@pytest.mark.parametrize("name", SUBJECTS)
def test_each_expectations_file_parses_with_its_recognisers(name: str) -> None:
    from harness.runs import third_party

    folder = name.replace("-", "_")
    expectations = third_party.expectations_at(f"harness/subjects/{folder}/expectations.yaml")
    assert expectations.subject == name and expectations.entries
    findings = (ROOT / "harness" / "subjects" / folder / "FINDINGS.md").read_text("utf-8")
    for entry in expectations.entries:  # every entry is written up, by its id
        assert f"`{entry.id}`" in findings, entry.id


# -- short real runs (skipped when the package is not in the cache) ----------------------


def _subject(name: str) -> Any:
    module = _module(name)
    if pypi.installed(f"{name}-{module.VERSION}") is None:
        pytest.skip(f"{name} {module.VERSION} is not installed in the cache "
                    f"({pypi.environment(f'{name}-{module.VERSION}')}): run "
                    f"`python -m harness conformance --subject {name} --profile smoke` once")
    from harness.subjects.process import ProcessSubject

    entry = registry.lookup(name)
    assert entry is not None
    command = entry.command()
    assert command is not None
    return ProcessSubject(command)


def _upstream_ids(document: str, text: str, *, special: bool) -> tuple[int, ...]:
    from harness.subjects.upstream import UPSTREAM

    handle = UPSTREAM.load(document)
    assert not isinstance(handle, Refused | Crashed)
    got = UPSTREAM.encode(handle, text, add_special_tokens=special)
    assert isinstance(got, Encoded)
    return got.ids


@pytest.mark.parametrize("name", SUBJECTS)
def test_a_short_real_run_agrees_on_plain_text(name: str) -> None:
    subject = _subject(name)
    try:
        handle = subject.load(LLAMA)
        assert not isinstance(handle, Refused | Crashed)
        for special in (False, True):
            got = subject.encode(handle, "ab c", add_special_tokens=special)
            assert isinstance(got, Encoded)
            assert got.ids == _upstream_ids(LLAMA, "ab c", special=special)
        assert subject.version() == f"{name}@{_module(name).VERSION}"
    finally:
        subject.close()


def test_pytorch_tokenizers_refusal_rule_is_read_from_the_library_log() -> None:
    subject = _subject("pytorch-tokenizers")
    try:
        refused = subject.load("{}")
        assert isinstance(refused, Refused)
        # the bindings raise only "Failed to load HF tokenizer": the reason is the log's
        assert refused.rule == ("Could not parse special tokens: [json.exception."
                                "out_of_range.403] key 'added_tokens' not found")
        assert refused.message.startswith("Failed to load HF tokenizer; ")
        handle = subject.load(LLAMA)
        assert isinstance(subject.decode(handle, [1, 293, 298], skip_special_tokens=True),
                          Decoded)
    finally:
        subject.close()


def test_iree_tokenizer_refusal_rule_is_the_status_without_its_source_position() -> None:
    subject = _subject("iree-tokenizer")
    try:
        refused = subject.load("{}")
        assert isinstance(refused, Refused)
        assert refused.rule == "NOT_FOUND; JSON key 'model' not found"
        document = json.dumps({**json.loads(LLAMA), "decoder": None})
        handle = subject.load(document)
        assert not isinstance(handle, Refused | Crashed)
        assert subject.decode(handle, [293], skip_special_tokens=False) == Refused(
            "RESOURCE_EXHAUSTED; decode output buffer full",
            "iree/runtime/src/iree/tokenizer/tokenizer.c:1040: RESOURCE_EXHAUSTED; "
            "decode output buffer full")
        got = subject.encode(handle, "ab c", add_special_tokens=False)
        assert isinstance(got, Encoded) and got.type_ids == (0,) * len(got.ids)
        assert got.tokens and not got.spans and not got.special_mask
    finally:
        subject.close()


# -- the pinned witnesses ---------------------------------------------------------------


@pytest.mark.parametrize("name", SUBJECTS)
def test_every_pinned_witness_names_an_entry_with_its_recogniser(name: str) -> None:
    import yaml

    folder = ROOT / "harness" / "subjects" / name.replace("-", "_")
    entries = yaml.safe_load((folder / "expectations.yaml").read_text("utf-8"))["expectations"]
    rows = json.loads((folder / "witnesses.json").read_text("utf-8"))["cases"]
    recognisers = importlib.import_module(f"harness.subjects.{folder.name}.recognisers")
    assert {e["recogniser"] for e in entries} <= set(recognisers.RECOGNISERS)
    assert {row["class"] for row in rows} <= {e["id"] for e in entries}
    assert all(row["id"] == f"{name}/{row['class']}" for row in rows)


@pytest.mark.parametrize("name", SUBJECTS)
def test_the_pinned_witnesses_still_show_their_entries(name: str) -> None:
    _subject(name).close()  # skips when the package is not in the cache
    from harness.runs.third_party import check_subject_witnesses

    check = check_subject_witnesses(name)
    assert check.stale == []
    assert len(check.witnesses) >= (12 if name == "pytorch-tokenizers" else 1)

