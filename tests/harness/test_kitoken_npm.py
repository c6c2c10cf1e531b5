"""kitoken 0.10.1 from npm (harness/subjects/kitoken_npm/): the pin, the one line and
not-run without node, the expectations parsed with their recognisers (kitoken's, imported,
and 0.10.1's own), and every pinned witness green, showing its entry, and red with
that entry deleted (where node and the pinned package are at hand)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.core.case import Case
from harness.subjects import kitoken_npm
from harness.subjects.kitoken.recognisers import RECOGNISERS as KITOKEN
from harness.subjects.kitoken_npm.recognisers import (
    RECOGNISERS,
    added_token_ids_over_vocabulary,
    unk_not_special,
)
from harness.subjects.registry import SubjectUnavailableError

FOLDER = Path(kitoken_npm.__file__).parent
OWN = {"unk-decoded-when-skipping-specials", "added-token-id-over-vocabulary-id",
       "decode-shadowed-vocabulary-id-refused"}


def _rows() -> list[dict[str, Any]]:
    return list(json.loads((FOLDER / "witnesses.json").read_text("utf-8"))["cases"])


def _entries() -> list[dict[str, Any]]:
    import yaml

    return list(yaml.safe_load((FOLDER / "expectations.yaml").read_text("utf-8"))
                ["expectations"])


def test_the_pin_is_an_exact_version_and_integrity() -> None:
    pin = kitoken_npm.PIN
    assert (pin.subject, pin.package, pin.version) == ("kitoken-npm", "kitoken", "0.10.1")
    assert pin.integrity.startswith("sha512-") and pin.tarball == "kitoken-0.10.1.tgz"


def test_without_node_the_subject_is_one_line_and_not_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("harness.subjects.npm_tarball.shutil.which", lambda _: None)
    with pytest.raises(SubjectUnavailableError) as unavailable:
        kitoken_npm.command()
    assert str(unavailable.value) == "kitoken-npm: node not found; the subject is skipped"


def test_the_expectations_parse_with_kitokens_recognisers_and_its_own() -> None:
    from harness.runs import third_party

    parsed = third_party.expectations_at(third_party.expectations_path(kitoken_npm.NAME, None))
    assert parsed.subject == "kitoken-npm" and not parsed.inherit_reference
    ids = {entry.id for entry in parsed.entries}
    assert ids >= OWN
    assert {e["recogniser"] for e in _entries()} <= set(RECOGNISERS)
    # kitoken's refusal recognisers are the very functions of kitoken's package
    assert RECOGNISERS["decode_unknown_id_refused"] is KITOKEN["decode_unknown_id_refused"]
    assert ids == {row["class"] for row in _rows()}


def test_the_readings_of_0_10_1() -> None:
    document: dict[str, Any] = {
        "added_tokens": [{"content": "b", "id": 5, "special": False},
                         {"content": "<unk>", "id": 0, "special": True}],
        "model": {"type": "BPE", "unk_token": "<unk>", "vocab": {"a": 1, "b": 2}}}
    assert added_token_ids_over_vocabulary(document) is None  # "b" is not special
    special = {**document, "added_tokens": [{**document["added_tokens"][0], "special": True},
                                            document["added_tokens"][1]]}
    shadowed = added_token_ids_over_vocabulary(special)
    assert shadowed is not None and shadowed["model"]["vocab"] == {"a": 1, "b": 5}
    unk = unk_not_special(document)
    assert unk is not None and [e["special"] for e in unk["added_tokens"]] == [False, False]
    taken = {**document, "model": {**document["model"], "vocab": {"a": 5, "b": 2}}}
    assert added_token_ids_over_vocabulary(taken) is None  # id 5 is another entry's


def _engine() -> Any:
    pytest.importorskip("tokenizers")
    if shutil.which("node") is None or not (kitoken_npm.package_dir()
                                            / "package.json").is_file():
        pytest.skip("node or the pinned npm kitoken is not here")
    from harness.runs import third_party

    try:
        return third_party.engine_for(kitoken_npm.NAME)
    except third_party.SubjectUnavailableError as exc:
        pytest.skip(str(exc))


@pytest.mark.parametrize("row", _rows(), ids=lambda row: row["class"])
def test_a_pinned_witness_shows_its_entry_and_turns_red_without_it(
        row: dict[str, Any]) -> None:
    wired = _engine()
    from harness.judge.classify import judge
    from harness.judge.expectations import Expectations
    from harness.runs.replay import CaseReplayer

    case = Case.from_json(row["case"])
    observations = wired.engine.observe(case)
    known = judge(case, observations, wired.subject.capabilities,
                  wired.expectations.classes, replay=CaseReplayer())
    shown = {c for v in known.verdicts for c in v.classes}
    assert row["class"] in shown
    assert not [v for v in known.verdicts if v.is_failure]
    fewer = Expectations(wired.expectations.subject, wired.expectations.path,
                         tuple(e for e in wired.expectations.entries if e.id != row["class"]),
                         inherit_reference=False)
    without = judge(case, observations, wired.subject.capabilities, fewer.classes,
                    replay=CaseReplayer())
    assert any(v.is_failure for v in without.verdicts), (
        f"deleting {row['class']} left its witness green")
