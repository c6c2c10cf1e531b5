"""A third party reads its own report right (issue 25, Deliver 4): the side under test is
``subject`` in its run's signatures, details, Markdown column and witness key (our
reference's files keep ``reference``: docs/decisions/0036-one-vocabulary-for-the-two-sides.md);
the stale section names the subject's own witness file; a timeout says how long it waited;
a failure witness is reduced, document and input; ``reproduce`` prints the document
pretty.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

pytest.importorskip("tokenizers")

from harness.core.case import Case
from harness.core.profiles import PROFILES
from harness.documents import probe_document
from harness.job import run
from harness.report import build, markdown, serde
from harness.report.files import read_report
from harness.report.model import Report, StaleRecord
from harness.report.reproduce import describe_document, pretty_document
from harness.runs import third_party
from harness.runs.reduce import reduce_case
from harness.runs.tally import case_size, failure_signature
from harness.subjects.process import ProcessHandle, ProcessSubject, SubjectStartError

#: One worker for this module: its module fixture (bos_run) is built once, not once per worker
#: (nox runs -n auto --dist loadgroup; decision 0028).
pytestmark = pytest.mark.xdist_group("test_third_party_words")

ROOT = Path(__file__).resolve().parents[2]
SUBJECTS = ROOT / "tests" / "data" / "subjects"
#: A subject whose encode adds the template's specials where it was told not to.
BOS = f"cmd:{sys.executable} {SUBJECTS / 'mismapped.py'} bos"
SUBJECT_REPORT = ROOT / "reports" / "conformance-transformers-js.yaml"
OUR_REPORT = ROOT / "reports" / "conformance.yaml"


def _template_case(extra_tokens: int = 6, text: str = "ab ab ab ba ab") -> Case:
    """A document with a template adding <s> and </s>, padded with added tokens and
    merges nothing needs, encoded on a longer text than the divergence needs."""
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2, "a": 3, "b": 4, "ab": 5, "ba": 6, " ": 7}
    merges = [("a", "b"), ("b", "a")]
    for i in range(extra_tokens):
        vocab[f"x{i}"] = len(vocab)
    document = probe_document(vocab, merges, unk_token="<unk>")
    document["post_processor"] = {
        "type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
                   {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]},
                           "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}}
    document["added_tokens"] = [
        {"id": 1, "content": "<s>", "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True},
        {"id": 2, "content": "</s>", "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True},
        *({"id": 8 + i, "content": f"x{i}", "single_word": False, "lstrip": False,
           "rstrip": False, "normalized": False, "special": False}
          for i in range(extra_tokens))]
    return Case(document=document, texts=(text, "ba"))


@pytest.fixture(scope="module")
def bos_run() -> tuple[Any, Report]:
    """One short run of the mis-mapped subject (smoke profile), and its report."""
    result = run(profile_name="smoke", seed_value=0, examples=40, command="test",
                 subject=BOS, real_examples=-1, check_pinned=False, shrink=False)
    assert result.tally.failures, "the mis-mapped subject showed nothing: it proves little"
    return result, build.build_report(result, "reports/conformance-bos.yaml")


def test_a_third_party_failure_signature_says_subject(bos_run: tuple[Any, Report]) -> None:
    result, report = bos_run
    for signature in result.tally.failures:
        assert re.fullmatch(r"\w+/\w+/\w+: subject \S+ vs upstream \S+", signature), signature
    assert all("reference" not in f.signature and "reference" not in f.witness.detail
               for f in report.failures)


def test_a_third_party_witness_key_and_markdown_column_say_subject(
        bos_run: tuple[Any, Report]) -> None:
    _, report = bos_run
    data = serde.to_data(report)
    for failure in data["failures"]:
        assert "subject" in failure["witness"] and "reference" not in failure["witness"]
    text = markdown.render(report)
    assert "| | subject | upstream |" in text and "| | reference |" not in text
    assert serde.from_data(Report, data) == report  # the key round-trips


def test_our_reference_keeps_its_own_name_in_its_files() -> None:
    report = read_report(OUR_REPORT)
    data = serde.to_data(report)
    witnesses = [c["witness"] for c in data["classes"] if c["witness"] is not None]
    assert witnesses and all("reference" in w and "subject" not in w for w in witnesses)
    failing = read_report(ROOT / "tests" / "data" / "markdown" / "with-failure.yaml")
    assert "| | reference | upstream |" in markdown.render(failing)


def test_the_stale_section_names_the_subjects_own_witness_file() -> None:
    report = read_report(SUBJECT_REPORT)
    assert report.subject is not None
    report.summary.stale_pinned_witnesses.append(StaleRecord("w1", "some-class", []))
    text = markdown.render(report)
    section = text[text.index("#### Stale pinned witnesses"):]
    assert "`harness/subjects/transformers_js/witnesses.json`" in section
    assert "oracles/divergences.json" not in section
    ours = read_report(OUR_REPORT)
    ours.summary.stale_pinned_witnesses.append(StaleRecord("w1", "some-class", []))
    assert "`oracles/divergences.json` no longer shows" in markdown.render(ours)


def test_a_silent_subject_is_reported_with_the_time_it_was_waited_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("harness.subjects.process.START_TIMEOUT", 1.5)
    subject = ProcessSubject([sys.executable, str(SUBJECTS / "misbehaving.py"), "silent"],
                             timeout=20.0)
    with pytest.raises(SubjectStartError) as raised:
        subject.hello()
    waited = re.search(r"no answer in (\d+(?:\.\d+)?) s", str(raised.value))
    assert waited is not None, raised.value
    assert 1.5 <= float(waited.group(1)) < 5, raised.value  # not the request timeout (20 s)


def test_a_hanging_request_states_the_time_waited() -> None:
    subject = ProcessSubject([sys.executable, str(SUBJECTS / "misbehaving.py"), "hang"],
                             timeout=1.0)
    try:
        handle = subject.load(json.dumps(probe_document({"a": 0}, [])))
        assert isinstance(handle, ProcessHandle), handle
        crashed = subject.encode(handle, "a")
        message = getattr(crashed, "message", "")
        waited = re.search(r"no answer in (\d+(?:\.\d+)?) s", message)
        assert waited is not None and 1.0 <= float(waited.group(1)) < 4, message
    finally:
        subject.close()


def test_a_third_party_failure_witness_is_reduced_document_and_input() -> None:
    wired = third_party.engine_for(third_party.run_spec(BOS, None))
    case = _template_case()
    _, judgement = wired.engine.evaluate(case)
    failures = [v for v in judgement.verdicts if v.is_failure]
    assert failures, "the padded case shows no failure of the mis-mapped subject"
    signature = failure_signature(failures[0].divergence)
    assert ": subject " in signature
    # The search draws only a case that agrees: what it returns is the reduction of start.
    agreeing = st.just(Case(document=probe_document({"a": 0}), texts=("a",)))
    witness = wired.engine.search(agreeing, ("failure", signature), PROFILES["smoke"], 0,
                                  start=case)
    assert witness is not None and witness.shrunk
    assert witness.size < case_size(case) / 2, (witness.size, case_size(case))
    reduced = witness.case
    assert len(reduced.document["added_tokens"]) < len(case.document["added_tokens"])
    assert len(reduced.document["model"]["vocab"]) < len(case.document["model"]["vocab"])
    assert sum(map(len, reduced.texts)) < sum(map(len, case.texts))
    _, again = wired.engine.evaluate(reduced)
    assert any(v.is_failure and failure_signature(v.divergence) == signature
               for v in again.verdicts)


def test_a_reduction_keeps_only_what_still_shows_and_is_bounded() -> None:
    case = _template_case(extra_tokens=20)

    def shows(candidate: Case) -> bool:  # the divergence needs "x3" and a text with "b"
        return "x3" in candidate.document["model"]["vocab"] and any(
            "b" in t for t in candidate.texts)

    reduced, judged = reduce_case(case, shows, case_size, budget=400)
    assert shows(reduced) and judged <= 400
    assert list(reduced.document["model"]["vocab"]) == ["x3"]
    assert reduced.texts == ("b",)
    _, spent = reduce_case(case, shows, case_size, budget=3)
    assert spent == 3


def test_reproduce_prints_the_document_pretty(capsys: pytest.CaptureFixture[str]) -> None:
    document = copy.deepcopy(_template_case(extra_tokens=40).document)
    document["model"]["merges"] = [["a", "b"], ["b", "a"], ["ab", "ab"]]
    text = pretty_document(document)
    assert json.loads(text) == document  # still the document's JSON
    lines = text.splitlines()
    assert max(map(len, lines)) <= 100 and len(lines) > 40
    assert '      "x39": 47' in lines  # one vocabulary entry per line, indented by depth
    assert '      ["ab", "ab"]' in lines  # a merge on one line
    assert "42 added tokens" in describe_document(document)
    from harness.__main__ import main

    failing = ROOT / "tests" / "data" / "markdown" / "with-failure.yaml"
    main(["reproduce", str(failing), "--failure", "F1"])
    out = capsys.readouterr().out
    first, rest = out.split("\n", 1)
    assert first.startswith("tokenizer.json (model BPE")
    printed, end = json.JSONDecoder().raw_decode(rest)
    witness_case = read_report(failing).failures[0].witness.case
    assert witness_case is not None and printed == witness_case["document"]
    assert len(rest[:end].splitlines()) > 10
