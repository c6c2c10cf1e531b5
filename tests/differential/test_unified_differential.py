"""The morph track against tokenizers 0.23.1 (harness side): the segmentation against
upstream's pre-tokenizer, the differential with zero failures, the reproducible fixture,
and the guarded hook in the conformance run and report."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("tokenizers")

from harness.fixture_builders import train_morph as train
from harness.fixture_builders.morph_track import (
    CONFIG,
    MONGOLIAN_RUN,
    MORPH_PRE_TOKENIZER,
    UPSTREAM_DOCUMENT,
    document_text,
    morph_model_json,
    morph_track_document,
)
from harness.runs import morph_track as unified_conformance
from harness.strategies.mongolian import mixed_texts, mongolian
from implementation.unified import (
    load_dual_track,
    mongolian_runs,
    morphemes,
)

pytestmark = pytest.mark.upstream


def _pre_tokenizer() -> Any:
    from tokenizers import Tokenizer

    document = json.loads(UPSTREAM_DOCUMENT.read_text(encoding="utf-8"))
    assert document["pre_tokenizer"] == MORPH_PRE_TOKENIZER
    return Tokenizer.from_str(json.dumps(document)).pre_tokenizer


PRE_TOKENIZER = _pre_tokenizer()


@settings(deadline=None)
@given(st.one_of(mongolian(), st.lists(mongolian(), max_size=4).map("".join)))
def test_morphemes_equal_upstream_pre_tokenizer(text: str) -> None:
    """``script.morphemes`` and the upstream pre-tokenizer split any string alike,
    character offsets included (they are the spans every morph token lives in)."""
    ours = [(text[a:b], (a, b)) for a, b in morphemes(text)]
    assert ours == PRE_TOKENIZER.pre_tokenize_str(text)


@settings(deadline=None)
@given(mixed_texts())
def test_runs_equal_the_harness_statement(text: str) -> None:
    """The reference's run finder and the harness's regex (written apart) agree."""
    assert list(mongolian_runs(text)) == [m.span() for m in MONGOLIAN_RUN.finditer(text)]


def test_differential_has_no_failure() -> None:
    examples = settings().max_examples  # the Hypothesis profile's budget
    result = unified_conformance.run(examples=examples, seed_value=0)
    tally = result.tally
    assert not tally.failed, (dict(tally.failures), tally.errors)
    assert result.committed_document_current
    assert result.runs > 0 and result.whole_texts > 0
    agreed = sum(ops["agreed"] for ops in tally.by_operation.values())
    assert tally.comparisons == agreed + sum(tally.by_class.values())
    # Whole one-run texts differ only by the template specials' spans, which the
    # registry's class explains; per-run comparisons agree exactly.
    assert set(tally.by_class) == {"template-special-spans"}
    assert tally.by_class["template-special-spans"] == result.whole_texts
    assert tally.by_operation["decode"]["agreed"] == tally.by_operation["decode"]["compared"]


def test_fixture_is_reproducible() -> None:
    """Training again from the seeded corpus gives the committed files byte for byte."""
    for path, text in train.build().items():
        assert path.read_text(encoding="utf-8") == text, path
    assert train.main(["--check"]) == 0


def test_upstream_document_is_built_from_the_config() -> None:
    tok = load_dual_track(CONFIG)
    document = morph_track_document(tok, morph_model_json())
    assert document_text(document) == UPSTREAM_DOCUMENT.read_text(encoding="utf-8")
    vocab = document["model"]["vocab"]
    assert min(vocab.values()) == tok.id_space.morph.start
    assert {vocab[c] for c in tok.config.specials.contents()} == set(
        range(tok.id_space.special.start, tok.id_space.special.stop))


def test_a_morph_bug_would_be_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    """The differential is not vacuous: MorphBPE splitting at MVS is caught."""
    from implementation.unified import morph as morph_module
    from implementation.unified import script

    def split_at_mvs(text: str, start: int = 0, end: int | None = None
                     ) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for a, b in script.morphemes(text, start, end):
            cut = text.find(script.MVS, a, b)
            out += [(a, cut), (cut, b)] if a < cut else [(a, b)]
        return out

    monkeypatch.setattr(morph_module, "morphemes", split_at_mvs)
    monkeypatch.setattr(unified_conformance, "CORPUS_WORDS", 60)
    monkeypatch.setattr(unified_conformance, "CORPUS_SENTENCES", 0)
    result = unified_conformance.run(examples=1, seed_value=0)
    assert result.tally.failed
    assert any("spans" in sig or "tokens" in sig or "ids" in sig
               for sig in result.tally.failures)


def test_the_morph_track_in_the_conformance_report(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.core.profiles import PROFILES
    from harness.job import JobResult
    from harness.report.build import build_report
    from harness.report.markdown import render
    from harness.runs.tally import Tally

    result = unified_conformance.run(examples=1, seed_value=0)
    job = JobResult(PROFILES["dev"], 0, Tally(), 1.0, 1.0, [], "test", {},
                    morph_track=result)
    report = build_report(job)
    section = report.unified_morph_track
    assert section is not None
    assert section.tally.failures == [] and section.tally.comparisons > 0
    assert report.verdict == "pass"

    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("fixture missing")

    monkeypatch.setattr(unified_conformance, "morph_track_document", broken)
    guarded = unified_conformance.run(examples=1, seed_value=0)
    assert guarded.tally.failed and "fixture missing" in guarded.tally.errors[0]
    job.morph_track = guarded
    failing = build_report(job)
    assert failing.verdict == "fail"
    assert render(failing).startswith("## ❌ Conformance: fail — 1 morph-track failure")
    job.morph_track = None
    assert build_report(job).unified_morph_track is None
