"""What makes a real file's texts cheap to judge, each text a case of its own (decision
0037): a rewrite of a large document is written once per shape, a large document stays
loaded across cases, a large document's view is shared. None may change an answer or a
count: each is checked against doing the work again."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.documents.view import DocumentView
from harness.runs.replay import CaseReplayer, SharedLoads
from harness.subjects.transformers_js.recognisers import replay as rewrites


def _large(entries: int = 5000) -> dict[str, Any]:
    vocab = {f"t{i}": i for i in range(entries)}
    added = [{"id": i, "content": f"<a{i}>", "special": True, "normalized": False}
             for i in range(entries, entries + 300)]
    return {"added_tokens": added, "normalizer": None, "decoder": None,
            "model": {"type": "BPE", "vocab": vocab, "merges": [["t1", "t2"]] * 300}}


def _written(document: dict[str, Any]) -> str:
    return json.dumps(document, ensure_ascii=False, sort_keys=True)


def test_a_rewrite_is_written_as_json_would_write_it_whatever_was_written_before() -> None:
    base = _large()
    variants = [
        base,
        {**base, "decoder": {"type": "Fuse"}},
        {**base, "decoder": {"type": "Fuse"}},  # the same shape again: from the memo
        {**base, "added_tokens": [*base["added_tokens"], {"id": 1, "content": "M"}]},
        {**base, "added_tokens": [*base["added_tokens"], {"id": 1, "content": "N"}]},
        {**base, "added_tokens": [*base["added_tokens"], {"id": True, "content": "N"}]},
        {**base, "model": {**base["model"], "merges": []}},
        {**base, "model": {**base["model"], "dropout": 1}},
        {**base, "model": {**base["model"], "dropout": 1.0}},
    ]
    for _ in range(2):
        for document in variants:
            assert rewrites.document_text(document) == _written(document)


class _Counting:
    def __init__(self) -> None:
        self.loads = 0

    def load(self, document: str) -> object:
        self.loads += 1
        return object()


def test_a_large_document_is_loaded_once_a_small_one_every_time() -> None:
    shared, subject = SharedLoads(size=2), _Counting()
    large, small = "x" * SharedLoads.LARGE, "{}"
    first = shared.get("upstream", large, lambda: subject.load(large))
    assert shared.get("upstream", large, lambda: subject.load(large)) is first
    assert shared.get("strict", large, lambda: subject.load(large)) is not first  # per side
    shared.get("upstream", small, lambda: subject.load(small))
    shared.get("upstream", small, lambda: subject.load(small))
    assert subject.loads == 4
    shared.get("lenient", large, lambda: subject.load(large))  # the oldest goes out
    shared.get("upstream", large, lambda: subject.load(large))
    assert subject.loads == 6


@pytest.mark.parametrize("cases", [1, 3])
def test_the_replay_count_is_per_case_whatever_the_cache_holds(cases: int) -> None:
    pytest.importorskip("tokenizers")
    document = _written(_large(70000))  # over SharedLoads.LARGE once written
    assert len(document) >= SharedLoads.LARGE
    counts = []
    for _ in range(cases):
        replayer = CaseReplayer()
        replayer.load("upstream", document)
        replayer.load("upstream", document)
        counts.append(replayer.executions)
    assert counts == [1] * cases


def test_a_large_documents_view_is_shared_a_small_ones_is_not() -> None:
    large, small = _large(), {"model": {"vocab": {"a": 0}}}
    view = DocumentView.of(large)
    assert DocumentView.of(large) is view and view.raw is large
    assert DocumentView.of({**large}) is not view  # another document, equal or not
    assert DocumentView.of(small) is not DocumentView.of(small)
    assert view.memo("k", lambda: [1]) is view.memo("k", lambda: [2])
    assert view.merge_results == frozenset({"t1t2"})
