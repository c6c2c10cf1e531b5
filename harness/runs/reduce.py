"""A failure witness made smaller, document and input: after the witness search, the
smallest case showing a failure signature (the search's, else the explored one) is
reduced greedily (whole inputs dropped, components set to null, chunks of the added
tokens and merges removed, chunks of each text cut, chunks of the vocabulary removed),
each step kept only when the case still shows the signature and is smaller. The same for
our reference and for a third-party subject (docs/decisions/0036-*.md); every step is
judged by the run's own engine, so a reduction never changes what is shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, TypeVar

from ..core import interrupts
from ..core.case import Case

#: The document's components a reduction tries to do without (set to null).
COMPONENTS: Final = ("normalizer", "pre_tokenizer", "post_processor", "decoder")

T = TypeVar("T")


def reduce_case(case: Case, shows: Callable[[Case], bool], size: Callable[[Case], int],
                budget: int) -> tuple[Case, int]:
    """The smallest case reached from ``case`` that still ``shows`` what it showed, and
    how many candidates were judged (at most ``budget``)."""
    judged = 0
    current, current_size = case, size(case)
    progress = True
    while progress and judged < budget:
        progress = False
        for candidate in _candidates(current):
            interrupts.check()
            candidate_size = size(candidate)
            if candidate_size >= current_size:
                continue
            if judged >= budget:
                break
            judged += 1
            if shows(candidate):
                current, current_size, progress = candidate, candidate_size, True
                break
    return current, judged


def _with(case: Case, **changes: Any) -> Case:
    """``case`` changed; its cached canonical text is dropped (it is no longer true)."""
    return dataclasses.replace(case, text=None, **changes)


def _shorter(items: Sequence[T]) -> Iterator[list[T]]:
    """``items`` with one chunk removed: halves first, then smaller chunks, to single
    items (the first candidates remove the most)."""
    length = len(items)
    chunk = length
    while chunk >= 1:
        for start in range(0, length, chunk):
            yield [*items[:start], *items[start + chunk:]]
        chunk //= 2


def _with_document(case: Case, document: dict[str, Any]) -> Case:
    return _with(case, document=document)


def _candidates(case: Case) -> Iterator[Case]:
    for name in ("texts", "id_runs", "pairs"):
        if len(getattr(case, name)) > 1 or (
                getattr(case, name) and _inputs(case) > 1):
            for fewer in _shorter(getattr(case, name)):
                yield _with(case, **{name: tuple(fewer)})
    document = case.document
    for key in COMPONENTS:
        if document.get(key) is not None:
            yield _with_document(case, {**document, key: None})
    added = document.get("added_tokens")
    if isinstance(added, list):
        for fewer in _shorter(added):
            yield _with_document(case, {**document, "added_tokens": fewer})
    model = document.get("model")
    model = model if isinstance(model, dict) else {}
    merges = model.get("merges")
    if isinstance(merges, list):
        for fewer in _shorter(merges):
            yield _with_document(case, {**document, "model": {**model, "merges": fewer}})
    for index, text in enumerate(case.texts):
        for cut in _shorter(text):
            yield _with(case, texts=(*case.texts[:index], "".join(cut),
                                     *case.texts[index + 1:]))
    vocab = model.get("vocab")
    if isinstance(vocab, dict):
        for kept in _shorter(list(vocab.items())):
            yield _with_document(case, {**document, "model": {**model, "vocab": dict(kept)}})


def _inputs(case: Case) -> int:
    return len(case.texts) + len(case.id_runs) + len(case.pairs)
