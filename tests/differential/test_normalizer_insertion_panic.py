"""``upstream-normalizer-insertion-panic`` (decision 0027), against tokenizers 0.23.1 live:
a Replace that inserts at the start of an added token's content, then a Unicode normalizer,
panics upstream at load; the reference refuses such a document. The predicate proves both
sides: upstream's panic needs both steps, and our refusal names where the document breaks
the rule."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from harness.core.case import Case
from harness.core.outcome import Crashed, Refused
from harness.judge.predicates import Context, normalizer_insertion_panic
from harness.runs.generated import evaluate
from harness.runs.replay import CaseReplayer
from harness.subjects import upstream

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream

JSON = dict[str, Any]
CLASS = "upstream-normalizer-insertion-panic"


def document(steps: list[JSON], *, unk: str | None = None) -> JSON:
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": 2, "content": "Wo", "single_word": False, "lstrip": False,
                              "rstrip": False, "normalized": True, "special": False}],
            "normalizer": {"type": "Sequence", "normalizers": steps}, "pre_tokenizer": None,
            "post_processor": None, "decoder": None,
            "model": {"type": "BPE", "dropout": None, "unk_token": unk,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                      "vocab": {"W": 0, "o": 1}, "merges": []}}


def replace(pattern: str) -> JSON:
    return {"type": "Replace", "pattern": {"Regex": pattern}, "content": "\u2581"}


@pytest.mark.parametrize("form", ["NFC", "NFD", "NFKC", "NFKD", "Lowercase"])
@pytest.mark.parametrize("pattern", ["a**", "\\b"])
def test_upstream_panics_and_the_class_explains_our_refusal(form: str, pattern: str) -> None:
    doc = document([replace(pattern), {"type": form}])
    crashed = upstream.load(json.dumps(doc))
    assert isinstance(crashed, Crashed) and crashed.kind == "panic"
    assert crashed.message.startswith("index out of bounds")
    _, judgement = evaluate(Case(doc, texts=("Wo",)))
    assert [v.classes for v in judgement.verdicts] == [(CLASS,)]


def test_a_founding_rule_broken_first_is_our_side_too() -> None:
    doc = document([{"type": "Prepend", "prepend": "\u2581"}, replace("a**"), {"type": "NFKC"}],
                   unk="<unk>")
    _, judgement = evaluate(Case(doc, texts=("Wo",)))
    refusal = judgement.verdicts[0].divergence.observation.subject
    assert isinstance(refusal, Refused) and refusal.rule == "unk-token-not-in-vocabulary"
    assert [v.classes for v in judgement.verdicts] == [(CLASS,)]


def test_both_steps_are_needed_upstream() -> None:
    """Without the Unicode step, or with an insertion elsewhere, upstream loads: no panic,
    nothing for the class (a Strip after the insertion does not panic either)."""
    for steps in ([replace("a**")], [replace("a**"), {"type": "Strip", "strip_left": True,
                                                      "strip_right": True}],
                  [replace("$"), {"type": "NFC"}]):
        assert isinstance(upstream.load(json.dumps(document(steps))), upstream.Handle)


def test_the_predicate_refuses_a_wrong_side() -> None:
    doc = document([replace("a**"), {"type": "NFKC"}])
    case = Case(doc, texts=("Wo",))
    _, judgement = evaluate(case)
    div = judgement.verdicts[0].divergence
    assert normalizer_insertion_panic(Context(case, CaseReplayer()), div)
    ours = div.observation.subject
    assert isinstance(ours, Refused)
    # our side: a refusal at another path, or by a rule the document keeps
    for wrong in (dataclasses.replace(ours, path="$.model.elsewhere"),
                  dataclasses.replace(ours, rule="dropout-nondeterministic",
                                      path="$.model.dropout")):
        bad = dataclasses.replace(div, observation=dataclasses.replace(
            div.observation, subject=wrong))
        assert not normalizer_insertion_panic(Context(case, CaseReplayer()), bad)
    # upstream's side: the same panic claimed for a document that loads (no Unicode step)
    loads = Case(document([replace("a**")]), texts=("Wo",))
    assert not normalizer_insertion_panic(Context(loads, CaseReplayer()), div)
