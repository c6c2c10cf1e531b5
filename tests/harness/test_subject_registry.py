"""Subjects as folders found by a registry (decision 0034), and ``check-subject``, which
fails a mis-mapped adapter before any run. Subjects from outside the repository, run as a
user packages them: tests/exhaustive/test_subjects_outside_the_repository.py.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.subjects import registry

ROOT = Path(__file__).resolve().parents[2]
MISMAPPED = ROOT / "tests" / "data" / "subjects" / "mismapped.py"


def test_the_registry_finds_the_folders_of_the_package() -> None:
    names = registry.names()
    assert {"example", "reference", "transformers-js", "upstream"} <= set(names)
    entry = registry.lookup("transformers-js")
    assert entry is not None and entry.origin == "harness"
    assert entry.display(registry.EXPECTATIONS) == (
        "harness/subjects/transformers_js/expectations.yaml")
    assert entry.file(registry.WITNESSES) is not None
    assert entry.findings == "harness/subjects/transformers_js/FINDINGS.md"
    assert entry.recognisers_module() == "harness.subjects.transformers_js.recognisers"


# -- check-subject ---------------------------------------------------------------------

def _check(spec: str, capsys: Any) -> tuple[int, str, str]:
    from harness.__main__ import main

    status = main(["check-subject", spec])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.parametrize("spec", ["example", "reference", "upstream"])
def test_a_well_mapped_adapter_is_calibrated(spec: str, capsys: Any) -> None:
    status, out, err = _check(spec, capsys)
    assert status == 0, (out, err)
    assert "MIS-MAPPED" not in out and err == ""
    assert "encode add_special_tokens=false: ['ab', 'c', 'ab']" in out


@pytest.mark.parametrize(("mode", "said"), [
    ("bos", "encode with add_special_tokens=false added the template's specials ['<s>']"),
    ("skip", "decode ignores skip_special_tokens (it always answers as with true"),
    ("tiers", "its hello claims spans but its encode answers give none"),
])
def test_a_mis_mapped_adapter_fails_in_one_line(mode: str, said: str, capsys: Any) -> None:
    status, out, err = _check(f"cmd:{sys.executable} {MISMAPPED} {mode}", capsys)
    assert status == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "python -m harness check-subject: the adapter of example is mis-mapped: "), lines
    assert said in lines[0]
    assert "MIS-MAPPED" in out


def test_a_subject_that_cannot_be_checked_is_a_usage_error(capsys: Any) -> None:
    status, _, err = _check("no-such-subject", capsys)
    assert status == 2 and "unknown subject 'no-such-subject'" in err
