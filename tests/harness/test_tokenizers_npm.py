"""The control subject (npm ``tokenizers``, harness/subjects/tokenizers_npm/): its one
entry's recogniser says yes to exactly its mechanism, and a run's pinned witness still
shows the entry (where node and the pinned package are at hand)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.core.case import Case
from harness.core.observation import Observation
from harness.core.outcome import Crashed, Decoded, Encoded, Loaded, Outcome, Refused
from harness.judge.compare import Divergence
from harness.judge.predicates import ALL, NONE, Context
from harness.runs.replay import CaseReplayer
from harness.subjects import tokenizers_npm
from harness.subjects.tokenizers_npm.recognisers import RECOGNISERS

FOLDER = Path(tokenizers_npm.__file__).parent
PANIC = "range end index 6 out of range for slice of length 5"
ABORT = (f"the subject was killed by SIGABRT (stderr: thread '<unnamed>' panicked at "
         f"src/models/bpe/model.rs:267:23: {PANIC} fatal runtime error: failed to "
         "initiate panic, error 5, aborting)")


def _case(entry: str) -> Case:
    rows = json.loads((FOLDER / "witnesses.json").read_text("utf-8"))["cases"]
    return Case.from_json(next(r for r in rows if r["class"] == entry)["case"])


def _judged(subject: Outcome, upstream: Outcome) -> frozenset[int]:
    observation = Observation("strict", "load", None, (), subject, upstream)
    return RECOGNISERS["panic_aborts_process"](
        Context(_case("panic-aborts-process"), CaseReplayer()),
        Divergence("load", "", observation))


def _encoded(tokens: str) -> Encoded:
    return Encoded(ids=tuple(range(len(tokens))), tokens=tuple(tokens), spans=(), special_mask=())


@pytest.mark.parametrize(("operation", "subject", "upstream", "expected"), [
    ("encode", _encoded("aBcDEfGHiJKl"), _encoded("ABcdEFGHIJKL"), ALL),
    ("encode", _encoded("aBcDEfGHiJKx"), _encoded("ABcdEFGHIJKL"), NONE),  # x is no string
    ("decode", Decoded("a B c D E f G H i J K l"), Decoded("A B c d E F G H I J K L"), ALL),
    ("decode", Decoded("a B c D E f G H i J K"), Decoded("A B c d E F G H I J K L"), NONE),
    ("decode", Decoded("aBcDEfGHiJKl"), Decoded("A B c d E F G H I J K L"), NONE),
])
def test_the_duplicate_id_recogniser_accepts_only_another_choice_of_string(
        operation: str, subject: Outcome, upstream: Outcome, expected: frozenset[int]) -> None:
    pytest.importorskip("tokenizers")
    given = tuple(range(12)) if operation == "decode" else "abcdefghijkl"
    options = (("skip_special_tokens", False),) if operation == "decode" else ()
    observation = Observation("strict", operation, given, options,  # type: ignore[arg-type]
                              subject, upstream)
    tier = "decode" if operation == "decode" else "tokens"
    judged = RECOGNISERS["duplicate_id_string_choice"](
        Context(_case("duplicate-id-string-choice"), CaseReplayer()),
        Divergence(tier, "", observation))
    assert judged == expected


@pytest.mark.parametrize(("subject", "upstream", "expected"), [
    (Crashed("died", ABORT), Crashed("panic", PANIC), ALL),
    (Crashed("died", ABORT.replace(PANIC, "another message")), Crashed("panic", PANIC), NONE),
    (Crashed("died", ABORT.replace("aborting", "exited")), Crashed("panic", PANIC), NONE),
    (Crashed("timeout", ABORT), Crashed("panic", PANIC), NONE),
    (Crashed("died", ABORT), Refused("x", PANIC, ""), NONE),
    (Loaded(), Crashed("panic", PANIC), NONE),
])
def test_the_recogniser_says_yes_to_the_abort_of_upstreams_own_panic(
        subject: Outcome, upstream: Outcome, expected: frozenset[int]) -> None:
    assert _judged(subject, upstream) == expected


def test_every_entry_has_a_recogniser_and_a_pinned_witness() -> None:
    import yaml

    entries = yaml.safe_load((FOLDER / "expectations.yaml").read_text("utf-8"))["expectations"]
    pinned = {row["class"] for row in json.loads(
        (FOLDER / "witnesses.json").read_text("utf-8"))["cases"]}
    assert {e["recogniser"] for e in entries} <= set(RECOGNISERS)
    assert {e["id"] for e in entries} == pinned


def test_the_pinned_witness_still_shows_its_entry() -> None:
    pytest.importorskip("tokenizers")
    if shutil.which("node") is None or not (tokenizers_npm.package_dir()
                                            / "package.json").is_file():
        pytest.skip("node or the pinned npm tokenizers is not here")
    from harness.runs.third_party import check_subject_witnesses

    check = check_subject_witnesses("tokenizers-npm")
    assert check.stale == []
    assert set(check.witnesses) == {"panic-aborts-process", "duplicate-id-string-choice",
                                    "empty-normalized-added-token-loads"}



def test_node_modules_links_the_installed_package_as_its_name(tmp_path: Path) -> None:
    package = tokenizers_npm.package_dir(tmp_path)
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "tokenizers"}', "utf-8")
    folder = tokenizers_npm.node_modules(tmp_path)
    assert folder.name == "node_modules" and tmp_path in folder.parents
    assert (folder / "tokenizers").resolve() == package.resolve()
    assert tokenizers_npm.node_modules(tmp_path) == folder  # made once, then reused


def test_every_entry_has_its_findings_section() -> None:
    import yaml

    from harness.subjects.reproducers import sections

    entries = yaml.safe_load((FOLDER / "expectations.yaml").read_text("utf-8"))["expectations"]
    found = sections((FOLDER / "FINDINGS.md").read_text("utf-8"))
    assert {e["id"] for e in entries} <= {s.entry for s in found}
    assert all(any(language == "js" for language, _ in s.blocks) for s in found)

def test_the_pin_is_an_exact_version_and_integrity() -> None:
    pin: Any = tokenizers_npm.PIN
    assert pin.package == "tokenizers" and pin.version == "0.23.2"
    assert pin.integrity.startswith("sha512-") and pin.tarball == "tokenizers-0.23.2.tgz"


_PANICKING_CHILD = """
import json, os, sys
print(json.dumps({"hello": {"protocol": 1, "name": "p", "version": "0",
                            "capabilities": ["ids"]}}), flush=True)
sys.stdin.readline()
sys.stderr.write("thread '<unnamed>' (4242) panicked at "
                 "/srv/runner/_work/x/x/crate/src/x.rs:1:2:\\nthe root cause\\n")
sys.stderr.write("thread '<unnamed>' (4242) panicked at core/panicking.rs:3:4:\\nagain\\n")
sys.stderr.write("  frame of a long backtrace\\n" * 400 + "aborting\\n")
sys.stderr.flush()
os.abort()
"""


def test_a_crash_keeps_the_first_panic_before_a_long_backtrace() -> None:
    import sys

    from harness.subjects.process import ProcessSubject

    subject = ProcessSubject([sys.executable, "-c", _PANICKING_CHILD], timeout=20)
    try:
        answer = subject.load("{}")
    finally:
        subject.close()
    assert isinstance(answer, Crashed) and answer.kind == "died", answer
    # the build machine's folder is left out of the location: crate/src/x.rs, not /srv/runner/…
    assert "panicked at crate/src/x.rs:1:2: the root cause" in answer.message
    assert "/srv/" not in answer.message
    assert "(4242)" not in answer.message and answer.message.rstrip(")").endswith("aborting")
