"""Every finding of every subject's findings document reproduces as written: each section
run by `python -m harness findings` (harness/subjects/reproducers.py) prints what the
section says, and every entry of the subject's expectations has its section. A subject
that cannot be installed here is skipped, naming why."""

from __future__ import annotations

import re

import pytest
import yaml

from harness.subjects import registry, reproducers

#: Findings documents written before the section format (not entries of a matrix subject's
#: triage with one reproducer each): the upgrade preview's version family and transformers.js,
#: whose sections group several entries.
OTHER_FORMATS = {"tokenizers-version", "transformers-js"}
SUBJECTS = sorted(name for name, entry in registry.registered().items()
                  if entry.findings is not None and name not in OTHER_FORMATS)


@pytest.mark.parametrize("name", SUBJECTS)
def test_every_entry_has_a_section_that_reproduces_as_written(name: str) -> None:
    entry = registry.registered()[name]
    try:
        results = reproducers.check(entry)
    except registry.SubjectUnavailableError as exc:
        pytest.skip(f"{name} cannot be installed here: {exc}")
    problems = [f"{r.section.entry}: {p}" for r in results for p in r.problems]
    assert not problems, "\n".join(problems)
    file = entry.file(registry.EXPECTATIONS)
    assert file is not None
    entries = [e["id"] for e in yaml.safe_load(file.read_text("utf-8")).get("expectations")
               or ()]
    written = {r.section.entry for r in results}
    assert [e for e in entries if e not in written] == [], "entries with no section"
    assert written <= set(entries), "sections of entries the expectations do not have"


def test_the_subjects_checked_are_the_matrix_subjects() -> None:
    assert {"kitoken", "fastokens", "tokie", "pytorch-tokenizers", "iree-tokenizer",
            "sentencepiece", "tokenizers-npm"} <= set(SUBJECTS)
    assert all(re.fullmatch(r"[a-z0-9-]+", n) for n in SUBJECTS)
