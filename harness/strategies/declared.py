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


def _many_tokens() -> Case:
    """One word of some three hundred tokens (``TEXTS`` eight times over, no pre-tokenizer,
    the one merge): more tokens in one word than any other probe gives, past 256."""
    return Case(_base(), texts=("".join(TEXTS) * 8,))


#: Texts where a normalizer changes a character's count or drops characters at an edge:
#: one to three spaces at either end, characters that decompose or lowercase into two
#: (at the start, inside, at the end), a normalized added token at even and odd offsets,
#: runs of different characters one replacement matches one at a time.
ALIGNMENT_TEXTS: Final = ("ab ", " ab", "  a b   ", "\u00e9a", "a\u00e9b", "x\u0130", "\ufb01x",
                          "aXYb", "xyxy", "aaXYaxy", "ab", "ba a")


def _alignment_probes() -> list[Case]:
    """Each normalizer that moves, inserts or removes characters, alone over
    ``ALIGNMENT_TEXTS`` with every character (in every form) its own token: a character
    aligned to another original span, or one stripped too many, shows in the spans or the
    ids. Lowercase also over a normalized added token (its span mapped through the
    alignments); Replace by one character of a class (matches of different characters) and
    of an empty match (an insertion, at offset 1 in ``ab``)."""
    forms = {char for text in ALIGNMENT_TEXTS for char in
             text + unicodedata.normalize("NFKD", text) + text.lower()} | {"x"}
    document = _base()
    document["model"] = {**document["model"], "merges": [],
                         "vocab": {char: i for i, char in enumerate(sorted(forms))}}
    added = {"id": len(forms), "content": "xy", "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": True, "special": False}
    normalizers = [{"type": "Strip", "strip_left": True, "strip_right": True},
                   {"type": "Strip", "strip_left": False, "strip_right": True},
                   {"type": "NFD"}, {"type": "NFKD"}, {"type": "Lowercase"},
                   {"type": "Replace", "pattern": {"Regex": "[ab]"}, "content": "x"},
                   {"type": "Replace", "pattern": {"Regex": "(?=b)"}, "content": "x"}]
    cases = [Case({**document, "normalizer": normalizer}, texts=ALIGNMENT_TEXTS)
             for normalizer in normalizers]
    cases.append(Case({**document, "normalizer": {"type": "Lowercase"}, "added_tokens": [added]},
                      texts=ALIGNMENT_TEXTS))
    return cases


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
    refuses: DuplicatePatternError); and an entry with empty content (upstream skips it) before
    one it keeps. The ids are upstream's: past the vocabulary, in order."""
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
    base = len(_base()["model"]["vocab"])
    empty = _with(added_tokens=[{**_added(""), "id": base}, {**_added("xx"), "id": base + 1}])
    return [Case(document, texts=ADDED_TEXTS), Case(folded, texts=TEXTS[:1]),
            Case(empty, texts=TEXTS)]


#: Unknown pre-tokenizer types with the body of a known one, sorting before ``ByteLevel``,
#: between it and ``Sequence`` and after it: upstream refuses each (no variant of its
#: untagged enum matches), and so must a loader that tests the type tag for equality.
UNKNOWN_PRE_TOKENIZERS: Final = (
    {"type": "AaaPreTokenizer", "add_prefix_space": False, "trim_offsets": True,
     "use_regex": True},
    {"type": "NoSuchPreTokenizer", "pretokenizers": [{"type": "Whitespace"}]},
    {"type": "ZzzPreTokenizer", "pretokenizers": [{"type": "Whitespace"}]},
)


#: One component of each type upstream builds and the reference refuses by name (class
#: strict-unreproduced-component, decision 0012), with a body upstream loads, by the
#: document field holding it; and a TemplateProcessing after another one.
_PLAIN_TEMPLATE: Final = template(None, None, {})
_VOCAB: Final = _base()["model"]["vocab"]
UNREPRODUCED_COMPONENTS: Final[tuple[tuple[str, JSON], ...]] = (
    ("normalizer", {"type": "BertNormalizer", "clean_text": True,
                    "handle_chinese_chars": True, "strip_accents": None, "lowercase": True}),
    ("normalizer", {"type": "StripAccents"}),
    ("normalizer", {"type": "Nmt"}),
    ("normalizer", {"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "ByteLevel"}]}),
    ("pre_tokenizer", {"type": "BertPreTokenizer"}),
    ("pre_tokenizer", {"type": "CharDelimiterSplit", "delimiter": " "}),
    ("pre_tokenizer", {"type": "UnicodeScripts"}),
    ("pre_tokenizer", {"type": "FixedLength", "length": 3}),
    ("post_processor", {"type": "BertProcessing", "sep": ["b", _VOCAB["b"]],
                        "cls": ["a", _VOCAB["a"]]}),
    ("post_processor", {"type": "RobertaProcessing", "sep": ["b", _VOCAB["b"]],
                        "cls": ["a", _VOCAB["a"]],
                        "trim_offsets": True, "add_prefix_space": True}),
    ("post_processor", {"type": "Sequence", "processors": [_PLAIN_TEMPLATE, _PLAIN_TEMPLATE]}),
    ("decoder", {"type": "WordPiece", "prefix": "##", "cleanup": True}),
    ("decoder", {"type": "BPEDecoder", "suffix": "</w>"}),
    ("decoder", {"type": "Sequence", "decoders": [{"type": "Fuse"}, {"type": "CTC",
                 "pad_token": "<pad>", "word_delimiter_token": "|", "cleanup": True}]}),
)


def unreproduced_probe(field: str, component: JSON) -> Case:
    """The small classic document with ``component`` as its ``field``."""
    return Case(_with(**{field: component}), texts=TEXTS[:1])


#: Texts where a String pattern's occurrences overlap (``aa`` in ``aaa``, ``aba`` in
#: ``ababa``): matches resume after a match, never inside it.
OVERLAP_TEXTS: Final = ("aaa", "aaaa b", "ababa", "abababa aa", "baaab")


def _overlap_probes() -> list[Case]:
    """Replace and Split by a String pattern whose occurrences overlap, over bigram merges:
    a second match inside the first changes the characters, or the pieces, and the ids."""
    cases = []
    for literal in ("aa", "aba"):
        replace = {"type": "Replace", "pattern": {"String": literal}, "content": "b"}
        cases.append(Case(_bigrams(normalizer=replace), texts=OVERLAP_TEXTS))
        cases.append(Case(_bigrams(split({"String": literal}, "Isolated", False)),
                          texts=OVERLAP_TEXTS))
    return cases


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
    read += [_long_word(), _many_tokens(), *_alignment_probes()]
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
    refused += [Case(_base(pre_tokenizer), texts=TEXTS[:1])
                for pre_tokenizer in UNKNOWN_PRE_TOKENIZERS]
    return (read + refused + malformed + _component_probes() + _unknown_region_probes()
            + _added_token_probes() + _overlap_probes()
            + [unreproduced_probe(field, component)
               for field, component in UNREPRODUCED_COMPONENTS])
