"""The worked example of ``docs/subject-protocol.md`` (expectations format) is true: its
file parses, its recogniser module runs, and each entry explains the divergence the
document says it explains, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from harness.core.case import Case
from harness.core.observation import Observation
from harness.core.outcome import Crashed, Decoded, Loaded, Outcome, Refused
from harness.judge.classify import classify
from harness.judge.compare import compare
from harness.judge.expectations import Expectations, parse
from harness.runs.replay import CaseReplayer

DOC = Path(__file__).resolve().parents[2] / "docs" / "subject-protocol.md"


def _example() -> tuple[str, str]:
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("### A worked example"):]
    section = section[:section.index("\n### ", 1)]
    yaml_block = re.search(r"```yaml\n(.*?)```", section, re.S)
    python_block = re.search(r"```python\n(.*?)```", section, re.S)
    assert yaml_block is not None and python_block is not None
    return yaml_block.group(1), python_block.group(1)


def _expectations() -> Expectations:
    yaml_text, python_text = _example()
    namespace: dict[str, Any] = {}
    exec(compile(python_text, "docs/subject-protocol.md", "exec"), namespace)
    return parse(yaml_text, where="docs/subject-protocol.md",
                 recognisers=namespace["RECOGNISERS"])


INVERTED = {"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []},
            "pre_tokenizer": {"type": "Split", "pattern": {"String": " "},
                              "behavior": "Removed", "invert": True}}
PLAIN = {"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "pre_tokenizer": None}


def _classes(document: dict[str, Any], operation: str, subject: Outcome,
             upstream: Outcome) -> tuple[str, ...]:
    inputs: dict[str, Any] = {"load": None, "decode": (0,)}
    options = (("skip_special_tokens", False),) if operation == "decode" else ()
    obs = Observation("strict", operation, inputs[operation], options,  # type: ignore[arg-type]
                      subject, upstream)
    divergence = compare(obs)
    assert divergence is not None
    verdict = classify(Case(document), [divergence], _expectations().classes,
                       replay=CaseReplayer())[0]
    return verdict.classes


def test_the_example_parses() -> None:
    expectations = _expectations()
    assert expectations.subject == "acme"
    assert [e.id for e in expectations.entries] == ["keeps-no-specials", "split-invert-crash"]
    assert expectations.generator == (("post_processor", ("none", "template")),)


def test_the_signature_explains_the_refused_decode_only() -> None:
    refused = Refused("keep-specials", "keeping specials is not supported")
    assert _classes(PLAIN, "decode", refused, Decoded("a")) == ("keeps-no-specials",)
    other = Refused("other-rule", "keeping specials is not supported")
    assert _classes(PLAIN, "decode", other, Decoded("a")) == ()
    unmatched = Refused("keep-specials", "no such id")
    assert _classes(PLAIN, "decode", unmatched, Decoded("a")) == ()


def test_the_recogniser_explains_the_crash_on_an_inverted_split_only() -> None:
    died = Crashed("died", "segmentation fault")
    assert _classes(INVERTED, "load", died, Loaded()) == ("split-invert-crash",)
    assert _classes(PLAIN, "load", died, Loaded()) == ()
