"""Declared probes: one case for every entry of the probe tables, run once by every run of
our reference, after the exploration.

The generator draws the regex probes (``regex_probes``) and the malformations
(``malformed``) at small shares, and Hypothesis follows a fresh draw with copies of it: a
default run of 3000 cases meets only a few of each table's entries, so most of the
refusal paths they were written for stay unreached. Each entry is a fact measured on both
sides (``tests/harness/test_strategies.py``); here each becomes one small document, with a few
texts where the document loads, compared like any generated case.
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import Any, Final

from harness.core.case import Case
from harness.strategies.components import (
    INCOHERENT_TEMPLATE_HAZARDS,
    REGEX_REFUSED,
    broken_template,
    template,
)
from harness.strategies.malformed import MALFORMATIONS
from harness.strategies.profile import SPLIT_BEHAVIOR
from harness.strategies.regex_probes import (
    ONIGURUMA_BROKEN,
    ONIGURUMA_PROBES,
    ONIGURUMA_READ,
    REPLACE_PROBES,
    REPLACE_READ,
    REPLACE_READ_EACH,
    SPLIT_MALFORMED,
)
from harness.strategies.split_family import punctuation, regex_split, split
from harness.strategies.texts import STRESS
from implementation.unicode_forms import FORMS

JSON = dict[str, Any]

#: Texts for the documents that load: the constructs of the read probes (a look-behind
#: after 'a', 'bc', an anchor at either end, ``\x41``, ``\u00e9``, case folding, newlines).
TEXTS: Final = ("abcd A's x.b\nxx é ab", "  \u00e9A\n", "yy x.$ aab ")
#: Texts of the one-construct probes: ``TEXTS``, contractions in both cases, repeats.
CONSTRUCT_TEXTS: Final = (*TEXTS, "it's THEY'RE we'll 'S", "aab abbc ababx xxy bba")


def _base(pre_tokenizer: Any = None, normalizer: Any = None) -> JSON:
    """A small classic document: every character of ``TEXTS`` a piece, one merge."""
    alphabet = sorted({char for text in TEXTS for char in text})
    vocab = {char: i for i, char in enumerate(alphabet)}
    vocab["ab"] = len(vocab)
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [],
            "normalizer": normalizer, "pre_tokenizer": pre_tokenizer, "post_processor": None,
            "decoder": None,
            "model": {"type": "BPE", "dropout": None, "unk_token": None, "fuse_unk": False,
                      "byte_fallback": False, "ignore_merges": False,
                      "continuing_subword_prefix": None, "end_of_word_suffix": None,
                      "vocab": vocab, "merges": [["a", "b"]]}}


def _bigrams(pre_tokenizer: Any = None, normalizer: Any = None) -> JSON:
    """A small classic document over ``CONSTRUCT_TEXTS`` whose merges join every pair of
    neighbouring characters (in order of first appearance), so that a split or a
    replacement in another place than the right reading's shows in the tokens."""
    document = _base(pre_tokenizer, normalizer)
    alphabet = sorted({char for text in CONSTRUCT_TEXTS for char in text})
    vocab = {char: i for i, char in enumerate(alphabet)}
    merges: list[list[str]] = []
    for text in CONSTRUCT_TEXTS:
        for left, right in itertools.pairwise(text):
            if left + right not in vocab:
                vocab[left + right] = len(vocab)
                merges.append([left, right])
    document["model"] = {**document["model"], "vocab": vocab, "merges": merges}
    return document


def _long_word() -> Case:
    """One word too long for the cache (over 256 UTF-8 bytes, no pre-tokenizer) under the
    bigram merges: dense enough that the reference merges it piece by piece between the
    places no merge crosses (the joins of the texts, the reversed copy), the same pieces
    again and again (its piece cache)."""
    joined = "".join(CONSTRUCT_TEXTS)
    return Case(_bigrams(), texts=(joined * 3 + joined[::-1],))


#: Texts of the Unicode-form probes: every item of the generated texts' Hangul,
#: after-Unicode-9 and composition alphabets (``texts.STRESS``), eight to a text, apart.
_FORM_ITEMS: Final = (*STRESS["hangul"], *STRESS["after-unicode-9"], *STRESS["composition"])
FORM_TEXTS: Final = tuple(" ".join(_FORM_ITEMS[i:i + 8]) for i in range(0, len(_FORM_ITEMS), 8))


def _unicode_form_probes() -> list[Case]:
    """``NFC``, ``NFD``, ``NFKC`` and ``NFKD`` each over ``FORM_TEXTS``: the generator draws
    those alphabets at a small share, and a wrong Hangul composition or decomposition (a
    range's base or count, the LV+T test) or a wrong reading of a code point Unicode 9.0 does
    not know shows only on them. The vocabulary holds the 256 byte pieces under byte fallback
    (every normalized character shows in the tokens, in the vocabulary or not), the characters
    of the texts in each form (Python's ``unicodedata``) and merges joining neighbouring
    characters of the composed and decomposed forms, so a character in another place or of
    another value gives other ids."""
    vocab = {f"<0x{byte:02X}>": byte for byte in range(256)}
    merges: list[list[str]] = []
    for text in FORM_TEXTS:
        vocab.update((char, len(vocab)) for char in text if char not in vocab)
        for form in FORMS:
            normal = unicodedata.normalize(form, text)
            vocab.update((char, len(vocab)) for char in normal if char not in vocab)
            if form not in ("NFC", "NFD"):
                continue
            for left, right in itertools.pairwise(normal):
                if left + right not in vocab:
                    vocab[left + right] = len(vocab)
                    merges.append([left, right])
    cases = []
    for form in FORMS:
        document = _base(normalizer={"type": form})
        document["model"] = {**document["model"], "byte_fallback": True, "vocab": vocab,
                             "merges": merges}
        cases.append(Case(document, texts=FORM_TEXTS))
    return cases


def _replace(source: str) -> JSON:
    return {"type": "Replace", "pattern": {"Regex": source}, "content": "x"}


def _with(**fields: Any) -> JSON:
    document = _base()
    document.update(fields)
    return document


def _component_probes() -> list[Case]:
    """Component shapes the generator draws too rarely to count on: a template in the
    string form (both sides refuse it), Strip windows that cross (upstream panics: class
    strip-decoder-panic), one wider than any token and trailing ones as long as an
    all-space token and longer, ByteFallback over pieces spelled
    like bytes that are not (``<0xZZ>``, ``<0x+1>``: both keep them as text), a decoder
    chain too long to show whole in the decoder-shape refusal, and each incoherent
    template."""
    template_string = _with(post_processor={
        "type": "TemplateProcessing", "single": "$A", "pair": "$A $B", "special_tokens": {}})
    crossing = _with(decoder={"type": "Strip", "content": " ", "start": 2, "stop": 2})
    wide = _with(decoder={"type": "Strip", "content": " ", "start": 300, "stop": 0})
    # A trailing window as long as an all-space token (upstream strips it to ""), and one
    # longer (upstream panics; our side gives "" too): the window reaches the first character.
    exact = _with(decoder={"type": "Strip", "content": " ", "start": 0, "stop": 1})
    longer = _with(decoder={"type": "Strip", "content": " ", "start": 0, "stop": 3})
    space = exact["model"]["vocab"][" "]
    odd = _base()
    odd["model"]["vocab"].update({"<0xZZ>": 100, "<0x+1>": 101, "<0x41>": 102})
    odd["decoder"] = {"type": "ByteFallback"}
    chain = _base()
    chain["model"]["byte_fallback"] = True
    chain["model"]["vocab"].update({f"<0x{b:02X}>": 200 + b for b in range(256)})
    chain["decoder"] = {"type": "Sequence", "decoders": [{"type": "Fuse"}] * 8}
    # Templates upstream loads and cannot run as written (strict-template-incoherent,
    # decision 0047), one per hazard, over a special of the vocabulary.
    vocab = _base()["model"]["vocab"]
    incoherent = [Case(_with(post_processor=broken_template(
        template("a", "b", {"a": vocab["a"], "b": vocab["b"]}), how)), texts=TEXTS[:1])
        for how in INCOHERENT_TEMPLATE_HAZARDS]
    return [Case(template_string), Case(crossing, texts=TEXTS[:1], id_runs=((1, 2, 3),)),
            Case(wide, id_runs=((1, 2, 3),)), Case(exact, id_runs=((space, 2, space),)),
            Case(longer, id_runs=((space,),)), Case(odd, id_runs=((100, 101, 102),)),
            Case(chain), *incoherent]


def declared_cases() -> list[Case]:
    """Every declared probe, one case each, in the tables' order."""
    read = [Case(_base(regex_split("|".join(ONIGURUMA_READ))), texts=TEXTS),
            Case(_base(normalizer=_replace(REPLACE_READ)), texts=TEXTS)]
    # Each construct alone (joined, the first alternative "." takes every character), over
    # texts with a match and near-misses around it.
    read += [Case(_bigrams(regex_split(source)), texts=CONSTRUCT_TEXTS)
             for source in ONIGURUMA_READ]
    read += [Case(_bigrams(normalizer=_replace(source)), texts=CONSTRUCT_TEXTS)
             for source in REPLACE_READ_EACH]
    read.append(_long_word())
    # Each Split behaviour, both ways of invert, and Punctuation's unit written {}: a part
    # folded into the wrong neighbour shows in the bigram merges.
    read += [Case(_bigrams(split({"String": " "}, behavior, invert)), texts=CONSTRUCT_TEXTS)
             for behavior in sorted(SPLIT_BEHAVIOR) for invert in (False, True)]
    read.append(Case(_bigrams(punctuation({"Isolated": {}})), texts=CONSTRUCT_TEXTS))
    read += _unicode_form_probes()
    split_sources = (*ONIGURUMA_PROBES, *ONIGURUMA_BROKEN)
    refused = [Case(_base(regex_split(source))) for source in split_sources]
    refused += [Case(_base(split_object)) for _, split_object in SPLIT_MALFORMED]
    refused += [Case(_base(normalizer=_replace(source)))
                for source in (*REPLACE_PROBES, *REGEX_REFUSED)]
    malformed = [Case(malformation.apply(_base()), texts=TEXTS[:1])
                 for _, malformation in sorted(MALFORMATIONS.items())]
    return read + refused + malformed + _component_probes()
