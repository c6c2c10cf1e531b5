"""Normalizers, pre-tokenizers and post-processors, as tokenizer.json objects (the Split
family's pre-tokenizers are built in ``split_family``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from hypothesis import strategies as st

from harness.documents import llama_normalizer
from harness.strategies import profile as shares
from harness.strategies._weights import chance, weighted, weighted_items
from harness.strategies.alphabet import METASPACE
from harness.strategies.profile import (
    DEFAULT_WEIGHTS,
    ByteLevelFlags,
    NormalizerKind,
    PostProcessorKind,
    PreTokenizerKind,
    ReplaceRegexKind,
    Weights,
)
from harness.strategies.regex_probes import REPLACE_PROBES, REPLACE_READ
from harness.strategies.split_family import (
    GPT4O_PATTERN,
    LLAMA3_PATTERN,
    QWEN2_PATTERN,
    REAL_SEQUENCES,
    regex_split,
    sequence,
    split_family,
    split_steps,
    splits,
)

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
#: and upstream loads (strict-unreproducible-regex).
REGEX_REACH: Final = (
    "\\x41", "\\u00e9", "\\t", "\\.", "\\s", "\\S+", "[a-c]", "[^a ]", "[-a]", "[a-]",
    "a{2}", "a{1,3}", "a+?", "a{2,}?", "(?:ab)+", "(ab)", ".", "\\n", "\\e",
    "[\\x41-\\x43]", "\\$",
    "\\W", "\\D", "[\\d ]", "[]a]", "(?i)a", "\\b", "\\p{L}", "\\h", "a**", "[[:alpha:]]",
    "[\\w&&[^a]]", "\\0", "(?<n>a)", "\\x{263a}", "[\\s\\S]", "a{3,2}",
)
#: Patterns Oniguruma itself refuses (upstream's load fails as the reference's does): a
#: deliberate hazard, drawn at ``Weights.regex_hazard`` per thousand listed Replace regexes
#: and among the probes. After the first four, one per refusal of the Replace reader: a
#: quantifier without a target, repeat counts above 100000 (by value, by digits), a trailing
#: backslash, an empty range, an unterminated range.
REGEX_REFUSED: Final = ("(a", "a)", "[a", "\\1", "*a", "a{100001}", "a{1000000}", "a\\",
                        "[z-a]", "[a-")
#: Replacement contents: the metaspace, deletion, a letter, two metaspaces, a multi-byte.
REPLACE_CONTENTS: Final = (METASPACE, "", "X", METASPACE * 2, "é")


def replace_strings(alphabet: Sequence[str]) -> st.SearchStrategy[JSON]:
    """Literal patterns: a space, characters of the alphabet, and patterns that overlap
    themselves ("  " in a run of three spaces: matches never overlap)."""
    patterns = [" ", *alphabet[:8], "ab", "  ", alphabet[0] * 2]
    return st.builds(replace, st.sampled_from(patterns), st.sampled_from(REPLACE_CONTENTS))


def replace_regexes(hazard: int = shares.REGEX_HAZARD,
                    kinds: Mapping[ReplaceRegexKind, int] = shares.REPLACE_REGEX
                    ) -> st.SearchStrategy[JSON]:
    """Replace with a regex: one of ``REGEX_PATTERNS`` or ``REGEX_REACH``, or with
    ``hazard`` per thousand one of ``REGEX_REFUSED``; or (the "probe" share of ``kinds``) a
    syntax probe: ``REPLACE_READ``, one of ``REPLACE_PROBES``, or (with a hazard) one of
    ``REGEX_REFUSED``."""
    patterns = weighted(kinds).flatmap(lambda kind: replace_regex_sources(kind, hazard))
    return st.builds(lambda p, c: replace(p, c, regex=True), patterns,
                     st.sampled_from(REPLACE_CONTENTS))


def replace_regex_sources(kind: ReplaceRegexKind, hazard: int) -> st.SearchStrategy[str]:
    """The source of a Replace regex of one kind (see ``replace_regexes``)."""
    refused = st.sampled_from(REGEX_REFUSED)
    if kind == "probe":
        probes = [st.just(REPLACE_READ), st.sampled_from(REPLACE_PROBES)]
        return st.one_of(*probes, refused) if hazard else st.one_of(*probes)
    loaded = st.sampled_from(REGEX_PATTERNS) | st.sampled_from(REGEX_REACH)
    return chance(hazard).flatmap(lambda bad: refused if bad else loaded) if hazard else (
        loaded)


def unicode_normalizer(kind: str, strip_left: bool = True, strip_right: bool = True) -> JSON:
    """``{"type": "NFC"}`` (NFD, NFKC, NFKD, Lowercase alike) or a Strip."""
    if kind == "Strip":
        return {"type": "Strip", "strip_left": strip_left, "strip_right": strip_right}
    return {"type": kind}


@st.composite
def unicode_normalizers(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS) -> JSON:
    """One of the Unicode normalizers (``profile.UNICODE_NORMALIZER``); Strip on either
    side, both or none."""
    kind = draw(weighted(profile.unicode_normalizer))
    left, right = draw(weighted(shares.STRIP_SIDES)) if kind == "Strip" else (True, True)
    return unicode_normalizer(kind, left, right)


def normalizers(kind: NormalizerKind, alphabet: Sequence[str] = ("a",),
                profile: Weights = DEFAULT_WEIGHTS) -> st.SearchStrategy[JSON | None]:
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
        return replace_regexes(profile.regex_hazard, profile.replace_regex)
    if kind == "unicode":
        return unicode_normalizers(profile)
    classic = [st.just(prepend()), replace_strings(alphabet),
               replace_regexes(profile.regex_hazard, profile.replace_regex)]
    if kind == "unicode-sequence":
        return unicode_sequences(classic, profile)
    steps = st.lists(st.one_of(*classic, st.just(llama_normalizer())), min_size=1, max_size=3)
    return steps.map(normalizer_sequence)


def normalizer_sequence(steps: list[JSON]) -> JSON:
    return {"type": "Sequence", "normalizers": steps}


@st.composite
def unicode_sequences(draw: st.DrawFn, classic: Sequence[st.SearchStrategy[JSON]],
                      profile: Weights = DEFAULT_WEIGHTS) -> JSON:
    """A Sequence of 1..2 Unicode normalizers and 0..2 Prepend/Replace steps, in any order."""
    steps = [*draw(st.lists(unicode_normalizers(profile), min_size=1, max_size=2)),
             *draw(st.lists(st.one_of(*classic), max_size=2))]
    return normalizer_sequence(list(draw(st.permutations(steps))))


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


def byte_level(flags: ByteLevelFlags = (False, True, True)) -> JSON:
    """A ByteLevel object (the same JSON serves as pre-tokenizer, decoder and
    post-processor): ``(add_prefix_space, trim_offsets, use_regex)``."""
    add_prefix_space, trim_offsets, use_regex = flags
    return {"type": "ByteLevel", "add_prefix_space": add_prefix_space,
            "trim_offsets": trim_offsets, "use_regex": use_regex}


#: Llama 3's ByteLevel after its Split: no prefix space, no regex of its own.
LLAMA3_BYTE_LEVEL: Final = byte_level((False, True, False))


#: Real byte-level pre-tokenizers: their Splits (Isolated, not inverted), then ByteLevel with
#: these flags (``(add_prefix_space, trim_offsets, use_regex)``), by name.
REAL_BYTE_LEVEL_PIPELINES: Final[Mapping[str, tuple[tuple[str, ...], ByteLevelFlags]]] = {
    "llama3": ((LLAMA3_PATTERN,), (False, True, False)),
    "qwen2": ((QWEN2_PATTERN,), (False, False, False)),
    "gpt4o": ((GPT4O_PATTERN,), (False, True, False)),
    "deepseek-v3": (REAL_SEQUENCES["deepseek-v3"], (False, True, False)),
}


def real_byte_level_pipeline(name: str) -> JSON:
    patterns, flags = REAL_BYTE_LEVEL_PIPELINES[name]
    return sequence([*(regex_split(p) for p in patterns), byte_level(flags)])


@st.composite
def byte_levels(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS) -> JSON:
    """ByteLevel over every combination of its three flags (``use_regex: true`` now and
    then left out: its default)."""
    built = byte_level(draw(weighted(profile.byte_level_flags)))
    if built["use_regex"] and draw(chance(shares.USE_REGEX_ABSENT)):
        del built["use_regex"]
    return built


def pre_tokenizers(kind: PreTokenizerKind, profile: Weights = DEFAULT_WEIGHTS,
                   alphabet: Sequence[str] = ("a",)) -> st.SearchStrategy[JSON | None]:
    """The ``pre_tokenizer`` field for one kind (see ``profile.PRE_TOKENIZER``)."""
    if kind == "none":
        return st.none()
    if kind == "metaspace":
        return metaspaces()
    if kind == "split":
        return splits(profile, alphabet)
    if kind == "split-family":
        return split_family(profile)
    if kind == "split-sequence":
        return split_steps(profile, alphabet, extra=metaspaces()).map(sequence)
    if kind == "byte-level":
        return byte_levels(profile)
    if kind == "byte-level-split":
        after = chance(shares.LLAMA3_BYTE_LEVEL).flatmap(
            lambda llama3: st.just(LLAMA3_BYTE_LEVEL) if llama3 else byte_levels(profile))
        steps = split_steps(profile, alphabet, kinds=shares.BYTE_LEVEL_SPLIT_PATTERN)
        return st.tuples(steps, after).map(lambda drawn: sequence([*drawn[0], drawn[1]]))
    if kind == "byte-level-real":
        return weighted(shares.REAL_BYTE_LEVEL_PIPELINE).map(real_byte_level_pipeline)
    return st.lists(metaspaces(), min_size=1, max_size=2).map(sequence)


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
        return broken_template(built, draw(st.sampled_from(TEMPLATE_HAZARDS)))
    return built


@st.composite
def post_processors(draw: st.DrawFn, kind: PostProcessorKind, specials: Mapping[str, int],
                    profile: Weights = DEFAULT_WEIGHTS) -> JSON | None:
    """The ``post_processor`` field for one kind: none, a template, a ByteLevel
    post-processor (``trim_offsets`` both ways), or ``Sequence[ByteLevel, Template]``
    (Llama 3's; now and then the template first)."""
    if kind == "none":
        return None
    if kind == "template":
        return draw(templates(specials, profile.template_shape, profile.template_hazard))
    step = byte_level((draw(weighted(shares.BYTE_LEVEL_PREFIX_SPACE)),
                       draw(weighted(shares.BYTE_LEVEL_TRIM)), True))
    if kind == "byte-level":
        return step
    built = draw(templates(specials, profile.template_shape, profile.template_hazard))
    steps = [built, step] if draw(chance(shares.POST_SEQUENCE_TEMPLATE_FIRST)) else [
        step, built]
    return {"type": "Sequence", "processors": steps}


#: Template breakages: upstream's deserializer refuses the first four (as the reference
#: does, by path); a pair template without ``$B`` loads on both and drops the second text;
#: the last four upstream loads and cannot run as written (a special absent from
#: ``special_tokens`` in the single or the pair template, a single template using ``$B``,
#: a special whose ids and tokens differ in length), which the reference refuses
#: (class strict-template-incoherent, decision 0047).
INCOHERENT_TEMPLATE_HAZARDS: Final = ("special-missing", "special-missing-pair",
                                      "single-uses-b", "ids-tokens-length")
TEMPLATE_HAZARDS: Final = ("string", "sequence-c", "two-keys", "negative-type-id",
                           "pair-without-b", *INCOHERENT_TEMPLATE_HAZARDS)
#: The name of the special a "special-missing" template names (never a key of its
#: ``special_tokens``, which holds the document's own specials).
MISSING_SPECIAL: Final = "[MISSING]"


def broken_template(built: JSON, how: str) -> JSON:
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
    elif how in ("special-missing", "special-missing-pair"):
        (single if how == "special-missing" else pair).append(
            _special(MISSING_SPECIAL, 0 if how == "special-missing" else 1))
    elif how == "single-uses-b":
        single.append(_sequence("B", 0))
    elif how == "ids-tokens-length":
        specials = {k: dict(v) for k, v in built["special_tokens"].items()}
        first = sorted(specials)[0]
        specials[first]["ids"] = [*specials[first]["ids"], *specials[first]["ids"]]
        return {**built, "special_tokens": specials}
    else:
        pair = [p for p in pair if p.get("Sequence", {}).get("id") != "B"]
    return {**built, "single": single, "pair": pair}
