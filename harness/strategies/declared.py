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


#: Texts of the unknown/byte region: runs of unknowns (``Y``, the space, ``€``) with
#: byte-resolved symbols (``X``, ``é``) before, between and after them, and vocabulary
#: symbols (``a``, ``b``) around.
UNKNOWN_TEXTS: Final = ("aYXYYb", "YXY XYYX", "YYXYY", "\u00e9Y\u00e9XY\u00e9",
                        "XaYXbY\u20ac", "Y")


def _unknown_region_probes() -> list[Case]:
    """The lenient track's unknown/byte region (decision 0001, bf-fact-6-no-fuse and the
    ordering bug): ``<unk>`` and a sparse byte alphabet (``X`` = 0x58, ``é`` = C3 A9), with
    ``fuse_unk`` off and on, bare, decorated with ``##`` (its ``#`` a byte piece too) and in
    Llama's shape (Prepend and Replace normalizers). Upstream misorders each; the class's
    predicate proves our unknowns token by token."""
    pieces = {f"<0x{b:02X}>": b for b in (0x23, 0x58, 0xA9, 0xC3)}
    cases = []
    for fuse in (False, True):
        for shape in ("bare", "prefix", "llama"):
            vocab = {"<unk>": 300, **pieces, "a": 301, "b": 302, "ab": 303, "\u2581": 304}
            document = _base()
            document["model"] = {**document["model"], "unk_token": "<unk>", "fuse_unk": fuse,
                                 "byte_fallback": True, "vocab": vocab, "merges": [["a", "b"]]}
            if shape == "prefix":
                vocab.update({"##a": 305, "##b": 306})
                document["model"]["continuing_subword_prefix"] = "##"
                document["model"]["merges"] = [["a", "##b"]]
            if shape == "llama":
                document["normalizer"] = {"type": "Sequence", "normalizers": [
                    {"type": "Prepend", "prepend": "\u2581"},
                    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}
            cases.append(Case(document, texts=UNKNOWN_TEXTS))
    return cases


#: Texts of the added-token probes: each token at even and odd positions past the second,
#: after whitespace runs of one to three characters (a text opening with whitespace too),
#: next to word and non-word characters on either side, twice in a row.
ADDED_TEXTS: Final = ("ab  <x>", " a <x>c", "a\t <x> <x>", "abc <x>  <x>", "a Wo", "ab Wob",
                      "xy Wo b", "a b Wo, Wo", "aWo Wo", "ab <r>  c", "a<r> <r>b")


def _added(content: str, *, normalized: bool = False, **flags: bool) -> JSON:
    entry = {"id": 0, "content": content, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": normalized, "special": False}
    entry.update(flags)
    return entry


def _added_token_probes() -> list[Case]:
    """Added tokens the generator places too rarely where index arithmetic shows: an
    lstrip, a single_word and an rstrip token over ``ADDED_TEXTS`` (bigram merges, so a
    whitespace run kept outside the token shows in the ids); and two normalized tokens
    the normalizer folds into one pattern, the later-listed at the higher id (upstream
    refuses: DuplicatePatternError). The ids are upstream's: past the vocabulary, in order."""
    document = _bigrams()
    alphabet = sorted({char for text in ADDED_TEXTS for char in text} - set(
        document["model"]["vocab"]))
    vocab = document["model"]["vocab"]
    for char in alphabet:
        vocab[char] = len(vocab)
    for text in ADDED_TEXTS:
        for left, right in itertools.pairwise(text):
            if left + right not in vocab and left + right != "Wo":  # kept an added token
                vocab[left + right] = len(vocab)
                document["model"]["merges"].append([left, right])
    tokens = [_added("<x>", lstrip=True), _added("Wo", single_word=True),
              _added("<r>", rstrip=True)]
    document["added_tokens"] = [{**entry, "id": len(vocab) + i}
                                for i, entry in enumerate(tokens)]
    folded = _with(normalizer={"type": "Lowercase"}, added_tokens=[
        {**_added(content, normalized=True), "id": len(_base()["model"]["vocab"]) + i}
        for i, content in enumerate(("AB", "aB"))])
    return [Case(document, texts=ADDED_TEXTS), Case(folded, texts=TEXTS[:1])]


#: Unknown pre-tokenizer types with the body of a known one, sorting before ``ByteLevel``,
#: between it and ``Sequence`` and after it: upstream refuses each (no variant of its
#: untagged enum matches), and so must a loader that tests the type tag for equality.
UNKNOWN_PRE_TOKENIZERS: Final = (
    {"type": "AaaPreTokenizer", "add_prefix_space": False, "trim_offsets": True,
     "use_regex": True},
    {"type": "NoSuchPreTokenizer", "pretokenizers": [{"type": "Whitespace"}]},
    {"type": "ZzzPreTokenizer", "pretokenizers": [{"type": "Whitespace"}]},
)


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
    split_sources = (*ONIGURUMA_PROBES, *ONIGURUMA_BROKEN)
    refused = [Case(_base(regex_split(source))) for source in split_sources]
    refused += [Case(_base(split_object)) for _, split_object in SPLIT_MALFORMED]
    refused += [Case(_base(normalizer=_replace(source)))
                for source in (*REPLACE_PROBES, *REGEX_REFUSED)]
    malformed = [Case(malformation.apply(_base()), texts=TEXTS[:1])
                 for _, malformation in sorted(MALFORMATIONS.items())]
    refused += [Case(_base(pre_tokenizer), texts=TEXTS[:1])
                for pre_tokenizer in UNKNOWN_PRE_TOKENIZERS]
    return (read + refused + malformed + _component_probes() + _unknown_region_probes()
            + _added_token_probes())
