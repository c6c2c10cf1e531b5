"""The findings-document checker (harness/subjects/reproducers.py) on documents made here:
it runs a section's blocks in a folder holding its document and refuses a section whose
printed lines its text does not hold (a reproducer that stopped reproducing, an output
typed by hand). The subjects' own documents: tests/exhaustive/test_findings_documents.py."""

from __future__ import annotations

import sys

from harness.subjects.reproducers import Runtime, printed_lines, run_section, sections

DOC = '{"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}}'
HERE = Runtime(sys.executable, None)


def _document(block: str, said: str) -> str:
    return (f"# x: findings\n\nintro\n\n## 1. a title\n\nEntry: `an-entry`.\n\n```json\n{DOC}\n"
            f"```\n\n```python\n{block}```\n\n{said}\n\n## 2. notes, no entry\n\ntext\n")


def test_a_section_is_its_entry_document_blocks_and_prose() -> None:
    [section] = sections(_document("print(1)\n", "- one: 1"))
    assert (section.entry, section.title, section.document) == ("an-entry", "1. a title", DOC)
    assert section.blocks == (("python", "print(1)\n"),)
    assert "print(1)" not in section.prose and DOC not in section.prose
    assert "- one: 1" in section.prose


def test_what_the_blocks_print_must_be_in_the_section() -> None:
    block = ("import json\nprint(json.load(open('tokenizer.json'))['model']['vocab'])\n")
    good = run_section(sections(_document(block, "- read: {'a': 0}"))[0], HERE)
    assert good.printed == ["{'a': 0}"] and good.problems == []
    typed = run_section(sections(_document(block, "- read: {'a': 1}"))[0], HERE)
    assert typed.problems == ['printed "{\'a\': 0}", which the section does not say']


def test_an_exception_is_its_last_line_with_its_type_unqualified() -> None:
    block = "class PanicException(BaseException): pass\nraise PanicException('at x.rs:3')\n"
    checked = run_section(sections(_document(block, "`PanicException: at x.rs:3`"))[0], HERE)
    assert checked.printed == ["PanicException: at x.rs:3"] and checked.problems == []
    assert printed_lines("", "Traceback\n  ...\npyo3_runtime.PanicException: boom\n", 1) == [
        "PanicException: boom"]


def test_a_section_without_a_block_or_a_document_is_refused() -> None:
    bare = sections("## 1. t\n\nEntry: `e`.\n\n```json\n{}\n```\n\nno code\n")[0]
    assert run_section(bare, HERE).problems == ["no python or js block to run"]
    broken = sections("## 1. t\n\nEntry: `e`.\n\n```json\n{nope\n```\n\n```python\nprint(1)\n"
                      "```\n\n1\n")[0]
    assert run_section(broken, HERE).problems[0].startswith("its json block is not a document")
