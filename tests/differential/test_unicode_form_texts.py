"""The texts' Hangul and after-Unicode-9 alphabets (``harness/strategies/texts.py``
``STRESS``, with the composition one the texts of the declared Unicode-form probes) against
tokenizers 0.23.1: upstream normalizes and aligns every item as the reference does, under
each of NFC, NFD, NFKC and NFKD; and each planted mutant of ``unicode_forms``
(``tests/mutants.py``) normalizes or aligns some item otherwise, so the alphabets tell every
one of those wrong readings from upstream's (decision 0046). Every expected value is
upstream's, computed here.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from mutants import MUTANTS, planted
from normalizer_sides import reference_alignments, reference_of, upstream_alignments

from harness.strategies.declared import FORM_TEXTS
from harness.strategies.texts import STRESS
from implementation.unicode_forms import FORMS

tokenizers = pytest.importorskip("tokenizers")
pytestmark = pytest.mark.upstream

ITEMS = (*STRESS["hangul"], *STRESS["after-unicode-9"], *STRESS["composition"])
Aligned = list[tuple[str, tuple[int, int]]]


@cache
def upstream_of(form: str) -> dict[str, Aligned]:
    normalizer: Any = getattr(tokenizers.normalizers, form)()
    return {text: upstream_alignments(normalizer, text) for text in ITEMS}


def ours(form: str, text: str) -> Aligned | str:
    try:
        return reference_alignments(reference_of(form), text)
    except Exception as error:  # a mutant may crash: that tells it too
        return f"crashed: {type(error).__name__}"


def test_the_probe_texts_hold_every_item_apart() -> None:
    assert " ".join(FORM_TEXTS) == " ".join(ITEMS)
    assert all(" " not in item for item in ITEMS)


@pytest.mark.parametrize("form", FORMS)
def test_upstream_normalizes_and_aligns_every_item_as_the_reference(form: str) -> None:
    theirs = upstream_of(form)
    differ = [text for text in ITEMS if ours(form, text) != theirs[text]]
    assert not differ, [ascii(text) for text in differ]


@pytest.mark.parametrize("name", [m.name for m in MUTANTS if m.module == "unicode_forms"])
def test_the_alphabets_tell_each_planted_mutant_of_unicode_forms(name: str) -> None:
    mutant = next(m for m in MUTANTS if m.name == name)
    expected = {(form, text): upstream_of(form)[text] for form in FORMS for text in ITEMS}
    with planted(mutant):
        told = [key for key, theirs in expected.items() if ours(*key) != theirs]
    assert told, f"no item of the alphabets tells {name!r} from upstream"
