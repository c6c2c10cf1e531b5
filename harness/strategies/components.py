"""Normalizers, pre-tokenizers and post-processors, as tokenizer.json objects."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from hypothesis import strategies as st

from harness.documents import llama_normalizer
from harness.strategies import profile as shares
from harness.strategies._weights import chance, weighted, weighted_items
from harness.strategies.alphabet import METASPACE
from harness.strategies.profile import NormalizerKind, PreTokenizerKind

JSON = dict[str, Any]

# --- normalizers --------------------------------------------------------------------------


def prepend(text: str = METASPACE) -> JSON:
    return {"type": "Prepend", "prepend": text}


def replace(pattern: str, content: str, *, regex: bool = False) -> JSON:
    return {"type": "Replace", "pattern": {"Regex" if regex else "String": pattern},
            "content": content}


#: Regex patterns Python's ``re`` and Oniguruma read the same way, then two they do not
#: (the reference refuses those: docs/decisions/0009-regex-subset.md), then three Python's
#: re could backtrack on without bound (refused too: docs/decisions/0017-regex-backtracking.md).
REGEX_PATTERNS: Final = (" +", "[0-9]", "[0-9]+", " {2,}", "[ \t]", "a|b", "\\d", "\\w+",
                         "(a+)+$", "( |  )+x", "(x*)*#")
#: For reach: patterns of the translated subset Oniguruma and re were measured to match alike
#: (escapes, classes, counted and lazy repeats, groups), then syntax the reference refuses
#: (upstream loads most of it: strict-unreproducible-regex; both refuse the unbalanced ones).
REGEX_REACH: Final = (
    "\\x41", "\\u00e9", "\\t", "\\.", "\\s", "\\S+", "[a-c]", "[^a ]", "[-a]", "[a-]",
    "a{2}", "a{1,3}", "a+?", "a{2,}?", "(?:ab)+", "(ab)", ".", "\\n", "\\e",
    "[\\x41-\\x43]", "\\$",
    "\\W", "\\D", "[\\d ]", "[]a]", "(?i)a", "\\b", "\\p{L}", "\\h", "a**", "[[:alpha:]]",
    "[\\w&&[^a]]", "\\0", "(?<n>a)", "\\x{263a}", "[\\s\\S]", "a{3,2}", "(a", "a)", "[a",
    "\\1",
)
#: Replacement contents: the metaspace, deletion, a letter, two metaspaces, a multi-byte.
REPLACE_CONTENTS: Final = (METASPACE, "", "X", METASPACE * 2, "é")


def replace_strings(alphabet: Sequence[str]) -> st.SearchStrategy[JSON]:
    """Literal patterns: a space, characters of the alphabet, and patterns that overlap
    themselves ("  " in a run of three spaces: matches never overlap)."""
    patterns = [" ", *alphabet[:8], "ab", "  ", alphabet[0] * 2]
    return st.builds(replace, st.sampled_from(patterns), st.sampled_from(REPLACE_CONTENTS))


def replace_regexes() -> st.SearchStrategy[JSON]:
    return st.builds(lambda p, c: replace(p, c, regex=True),
                     st.sampled_from(REGEX_PATTERNS) | st.sampled_from(REGEX_REACH),
                     st.sampled_from(REPLACE_CONTENTS))


def normalizers(kind: NormalizerKind, alphabet: Sequence[str] = ("a",)
                ) -> st.SearchStrategy[JSON | None]:
    """The ``normalizer`` field for one kind (see ``profile.NORMALIZER``)."""
    if kind == "none":
        return st.none()
    if kind == "llama":
        return st.just(llama_normalizer())
    if kind == "prepend":
        return st.sampled_from([METASPACE, METASPACE * 2, "x"]).map(prepend)
    if kind == "replace-string":
        return replace_strings(alphabet)
    if kind == "replace-regex":
        return replace_regexes()
    step = st.one_of(st.just(prepend()), replace_strings(alphabet), replace_regexes(),
                     st.just(llama_normalizer()))
    return st.lists(step, min_size=1, max_size=3).map(
        lambda steps: {"type": "Sequence", "normalizers": steps})


# --- pre-tokenizers -----------------------------------------------------------------------


def metaspace(prepend_scheme: str = "always", split: bool = True) -> JSON:
    """A Metaspace object (the same JSON serves as pre-tokenizer and as decoder)."""
    return {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": prepend_scheme,
            "split": split}


def metaspaces() -> st.SearchStrategy[JSON]:
    """Metaspace over every ``prepend_scheme`` × ``split``."""
    # One draw over the pairs (not two draws): each pair keeps the product of its
    # shares, whatever correlation Hypothesis' generator puts between adjacent choices.
    pairs = [((scheme, split), scheme_weight * split_weight)
             for scheme, scheme_weight in shares.PREPEND_SCHEME.items()
             for split, split_weight in shares.METASPACE_SPLIT.items()]
    return weighted_items(pairs).map(lambda pair: metaspace(*pair))


def pre_tokenizers(kind: PreTokenizerKind) -> st.SearchStrategy[JSON | None]:
    if kind == "none":
        return st.none()
    if kind == "metaspace":
        return metaspaces()
    return st.lists(metaspaces(), min_size=1, max_size=2).map(
        lambda steps: {"type": "Sequence", "pretokenizers": steps})


# --- post-processors ----------------------------------------------------------------------


def _special(name: str, type_id: int) -> JSON:
    return {"SpecialToken": {"id": name, "type_id": type_id}}


def _sequence(name: str, type_id: int) -> JSON:
    return {"Sequence": {"id": name, "type_id": type_id}}


def template(bos: str | None, eos: str | None, ids: Mapping[str, int]) -> JSON:
    """TemplateProcessing: Llama's ``<s> $A`` / ``<s> $A <s>:1 $B:1``, optionally with EOS.

    ``ids`` maps each special named to its id (from the model vocabulary or added tokens).
    """
    single: list[JSON] = []
    pair: list[JSON] = []
    if bos is not None:
        single.append(_special(bos, 0))
        pair.append(_special(bos, 0))
    single.append(_sequence("A", 0))
    pair.append(_sequence("A", 0))
    if eos is not None:
        single.append(_special(eos, 0))
        pair.append(_special(eos, 0))
    if bos is not None:
        pair.append(_special(bos, 1))
    pair.append(_sequence("B", 1))
    if eos is not None:
        pair.append(_special(eos, 1))
    names = [n for n in (bos, eos) if n is not None]
    return {
        "type": "TemplateProcessing",
        "single": single,
        "pair": pair,
        "special_tokens": {n: {"id": n, "ids": [ids[n]], "tokens": [n]} for n in names},
    }


@st.composite
def templates(draw: st.DrawFn, specials: Mapping[str, int],
              shapes: Mapping[str, int] = shares.TEMPLATE_SHAPE,
              hazard: int = shares.TEMPLATE_HAZARD) -> JSON:
    """A template over the specials available (``<s>``/``</s>`` preferred)."""
    shape = draw(weighted(shapes))
    names = list(specials)
    if shape == "plain" or not names:
        return template(None, None, specials)
    bos = "<s>" if "<s>" in specials else draw(st.sampled_from(names))
    eos = None
    if shape == "bos-eos":
        eos = "</s>" if "</s>" in specials else draw(st.sampled_from(names))
    built = template(bos, eos, specials)
    if hazard and draw(chance(hazard)):
        return _broken_template(built, draw(st.sampled_from(TEMPLATE_HAZARDS)))
    return built


#: Template breakages both sides agree on: upstream's deserializer refuses the first four
#: (as the reference does, by path); a pair template without ``$B`` loads on both and drops
#: the second text. (Breakages only the reference refuses, such as a template naming a
#: special absent from ``special_tokens``, have no divergence class and are not drawn.)
TEMPLATE_HAZARDS: Final = ("string", "sequence-c", "two-keys", "negative-type-id",
                           "pair-without-b")


def _broken_template(built: JSON, how: str) -> JSON:
    single = [dict(p) for p in built["single"]]
    pair = [dict(p) for p in built["pair"]]
    if how == "string":
        return {**built, "single": " ".join(
            "$A" if "Sequence" in p else p["SpecialToken"]["id"] for p in single)}
    if how == "sequence-c":
        pair = [{"Sequence": {"id": "C", "type_id": 1}} if p.get("Sequence", {}).get("id") == "B"
                else p for p in pair]
    elif how == "two-keys":
        single[0] = {**single[0], **({"SpecialToken": {"id": "x", "type_id": 0}}
                                     if "Sequence" in single[0]
                                     else {"Sequence": {"id": "A", "type_id": 0}})}
    elif how == "negative-type-id":
        (kind, body), = single[0].items()
        single[0] = {kind: {**body, "type_id": -1}}
    else:
        pair = [p for p in pair if p.get("Sequence", {}).get("id") != "B"]
    return {**built, "single": single, "pair": pair}
