"""The Split family of pre-tokenizers, as tokenizer.json objects: ``Split`` over real-world
Regex patterns (declared once, here), mutations of them and String patterns, with every
behaviour and ``invert``; ``Digits``, ``Punctuation``, ``Whitespace``, ``WhitespaceSplit``;
and Sequences of them (DeepSeek's real ones among them).

A mutation keeps a pattern Oniguruma compiles: it drops one top-level alternative,
changes one quantifier outside a character class (``+`` to ``*``, ``{1,3}`` to ``{2,}``...,
its lazy or possessive modifier kept), or inserts constructs the reference reads
(``regex_probes.ONIGURUMA_READ``) as alternatives. What the reference then refuses (a repeat
that can match the empty string, an ambiguity it cannot bound: decision 0023) is a strict
class. At small shares a pattern is a syntax probe of ``regex_probes`` instead, or the
Split-family object is one upstream's deserializer refuses.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from hypothesis import strategies as st

from harness.strategies import profile as shares
from harness.strategies._weights import chance, weighted
from harness.strategies.profile import DEFAULT_WEIGHTS, SplitPatternKind, Weights
from harness.strategies.regex_probes import (
    ONIGURUMA_BROKEN,
    ONIGURUMA_PROBES,
    ONIGURUMA_READ,
    SPLIT_MALFORMED,
)
from implementation.byte_level import GPT2_PATTERN

JSON = dict[str, Any]

# --- real-world patterns ----------------------------------------------------------------------

#: Llama 3's (and its Split's neighbours': the contractions case-insensitive, digits by three).
LLAMA3_PATTERN: Final = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
#: Qwen 2's: Llama 3's with single digits.
QWEN2_PATTERN: Final = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
#: GPT-4o's (o200k): cased words with their contraction, digits by three.
GPT4O_PATTERN: Final = (
    r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
    r"|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
#: tiktoken's cl100k spelled with possessive repeats (Ruby syntax: ``{1,3}+`` is a repeat of
#: a repeat, not possessive).
TIKTOKEN_POSSESSIVE_PATTERN: Final = (
    r"[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"
    r"|\s++$|\s*[\r\n]|\s+(?!\S)|\s")
#: DeepSeek V3's three Splits: digits by three, CJK runs, then words and punctuation.
DEEPSEEK_DIGITS_PATTERN: Final = r"\p{N}{1,3}"
DEEPSEEK_CJK_PATTERN: Final = "[一-龥぀-ゟ゠-ヿ]+"
DEEPSEEK_V3_PATTERN: Final = (
    r"""[!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+"""
    r"|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+"
    r"|\s+(?!\S)|\s+")
#: DeepSeek LLM's six Splits (Latin/Greek/Cyrillic words, ASCII and fullwidth punctuation,
#: trailing spaces, CJK and Hangul runs, numbers).
DEEPSEEK_LLM_PATTERNS: Final = (
    r"[\r\n]", r"\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-Ֆ]+",
    r"\s?[!-/:-~！-／：-～‘-‟　-。]+", r"\s+$", "[一-龥ࠀ-一가-퟿]+", r"\p{N}+")
#: tiktoken's cl100k as it ships: the contractions as a class under ``(?i:``, which the
#: reference refuses (decision 0023: Oniguruma's case folding of a class is not reproduced).
TIKTOKEN_CL100K_PATTERN: Final = (
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"
    r"|\s*[\r\n]|\s+(?!\S)|\s+")
#: Mistral's tekken: look-aheads inside repeats.
TEKKEN_PATTERN: Final = (
    r"[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+"
    r"|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*"
    r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")

#: Every real-world Split pattern by name (the keys of ``profile.REAL_PATTERN``); GPT-2's
#: is the reference's own constant (the pattern ByteLevel's ``use_regex`` splits with).
REAL_PATTERNS: Final[Mapping[str, str]] = {
    "gpt2": GPT2_PATTERN,
    "llama3": LLAMA3_PATTERN,
    "qwen2": QWEN2_PATTERN,
    "gpt4o": GPT4O_PATTERN,
    "tiktoken-possessive": TIKTOKEN_POSSESSIVE_PATTERN,
    "deepseek-v3": DEEPSEEK_V3_PATTERN,
    "deepseek-digits": DEEPSEEK_DIGITS_PATTERN,
    "deepseek-cjk": DEEPSEEK_CJK_PATTERN,
    "tekken": TEKKEN_PATTERN,
    "tiktoken-cl100k": TIKTOKEN_CL100K_PATTERN,
}
#: Real Sequences of Splits (all Isolated, not inverted), by name.
REAL_SEQUENCES: Final[Mapping[str, tuple[str, ...]]] = {
    "deepseek-v3": (DEEPSEEK_DIGITS_PATTERN, DEEPSEEK_CJK_PATTERN, DEEPSEEK_V3_PATTERN),
    "deepseek-llm": DEEPSEEK_LLM_PATTERNS,
}
#: String patterns: Gemma 3's space, a newline, CRLF, a hyphen, an apostrophe, two spaces,
#: the empty string (a match everywhere), the metaspace; then characters of the alphabet.
STRING_PATTERNS: Final = (" ", "\n", "\r\n", "-", "'", "  ", "", "\u2581")
#: What a changed quantifier becomes.
QUANTIFIERS: Final = ("*", "+", "?", "{1,3}", "{2,}", "{0,2}")

BEHAVIORS: Final = ("Isolated", "Removed", "MergedWithPrevious", "MergedWithNext", "Contiguous")


# --- JSON -------------------------------------------------------------------------------------


def split(pattern: JSON, behavior: str | JSON = "Isolated", invert: bool = False) -> JSON:
    return {"type": "Split", "pattern": pattern, "behavior": behavior, "invert": invert}


def regex_split(source: str, behavior: str = "Isolated", invert: bool = False) -> JSON:
    return split({"Regex": source}, behavior, invert)


def digits(individual_digits: bool) -> JSON:
    return {"type": "Digits", "individual_digits": individual_digits}


def punctuation(behavior: str | JSON | None = "Isolated") -> JSON:
    """Punctuation; ``behavior=None`` leaves the field out (upstream's default, Isolated)."""
    return {"type": "Punctuation"} | ({} if behavior is None else {"behavior": behavior})


def whitespace() -> JSON:
    return {"type": "Whitespace"}


def whitespace_split() -> JSON:
    return {"type": "WhitespaceSplit"}


def sequence(steps: Sequence[JSON]) -> JSON:
    return {"type": "Sequence", "pretokenizers": list(steps)}


# --- mutations --------------------------------------------------------------------------------

_COUNTED = re.compile(r"\{\d*,?\d*\}")


def _scan(source: str) -> tuple[list[int], list[tuple[int, int, int]]]:
    """Where the top-level ``|`` are, and each quantifier outside a class as (start of the
    quantifier, end of its base, end with its ``?``/``+`` modifier)."""
    bars: list[int] = []
    quantifiers: list[tuple[int, int, int]] = []
    depth = 0
    in_class = False
    i = 0
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            if source[i - 1:i] in ("p", "P") and source[i:i + 1] == "{":
                i = source.index("}", i) + 1
            continue
        if in_class:
            in_class = c != "]"
            i += 1
            continue
        if c == "[":
            in_class = True
            i += 2 if source[i + 1:i + 2] in ("^", "]") else 1
            continue
        if c == "(":
            depth += 1
            i += 1
            if source[i:i + 1] == "?":  # a group's kind, never a quantifier
                i = next(k for k in range(i, len(source)) if source[k] in ":=!>)") + 1
            continue
        if c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            bars.append(i)
        counted = _COUNTED.match(source, i) if c == "{" else None
        if c in "*+?" or counted:
            end = counted.end() if counted else i + 1
            modified = end + 1 if source[end:end + 1] in ("?", "+") else end
            quantifiers.append((i, end, modified))
            i = modified
            continue
        i += 1
    return bars, quantifiers


def alternatives(source: str) -> list[str]:
    """The top-level alternatives of a pattern."""
    bars, _ = _scan(source)
    bounds = [-1, *bars, len(source)]
    return [source[a + 1:b] for a, b in itertools.pairwise(bounds)]


def quantifiers(source: str) -> list[tuple[int, int]]:
    """(start, end) of each quantifier's base outside a class (modifiers excluded)."""
    _, found = _scan(source)
    return [(start, end) for start, end, _ in found]


@st.composite
def mutations(draw: st.DrawFn, source: str, how: str) -> str:
    """``source`` with one alternative dropped, one quantifier changed (when it has none to
    change, the other mutation; when it has neither, itself), or every read construct
    inserted, in a drawn order, as alternatives at one place among its own (all of them:
    Hypothesis draws few fresh values of a rare option, so one draw reaches them all)."""
    parts = alternatives(source)
    if how == "add-alternative":
        added = draw(st.permutations(ONIGURUMA_READ))
        k = draw(st.integers(0, len(parts)))
        return "|".join(parts[:k] + added + parts[k:])
    spots = quantifiers(source)
    if (how == "change-quantifier" and spots) or len(parts) < 2:
        if not spots:
            return source
        start, end = draw(st.sampled_from(spots))
        new = draw(st.sampled_from([q for q in QUANTIFIERS if q != source[start:end]]))
        return source[:start] + new + source[end:]
    k = draw(st.integers(0, len(parts) - 1))
    return "|".join(parts[:k] + parts[k + 1:])


# --- strategies -------------------------------------------------------------------------------


@st.composite
def split_patterns(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS,
                   alphabet: Sequence[str] = ("a",),
                   kinds: Mapping[SplitPatternKind, int] | None = None) -> JSON:
    """A Split's ``pattern``: a String, a real-world Regex, a mutated one, or a syntax probe
    (in the shares of ``kinds``, else the profile's; "malformed" is drawn by ``splits``)."""
    return draw(patterns_of_kind(draw(weighted(kinds or profile.split_pattern)), profile,
                                 alphabet))


@st.composite
def patterns_of_kind(draw: st.DrawFn, kind: SplitPatternKind,
                     profile: Weights = DEFAULT_WEIGHTS,
                     alphabet: Sequence[str] = ("a",)) -> JSON:
    """A Split's ``pattern`` of one kind (a "malformed" Split has a well-formed one)."""
    if kind in ("string", "malformed"):
        return {"String": draw(st.sampled_from([*STRING_PATTERNS, *alphabet[:4]]))}
    if kind == "probe":
        return {"Regex": draw(st.sampled_from(ONIGURUMA_PROBES))}
    if kind == "broken":
        return {"Regex": draw(st.sampled_from(ONIGURUMA_BROKEN))}
    source = REAL_PATTERNS[draw(weighted(profile.real_pattern))]
    if kind == "mutated":
        source = draw(mutations(source, draw(weighted(shares.MUTATION))))
    return {"Regex": source}


def malformed_splits() -> st.SearchStrategy[JSON]:
    """A Split-family object upstream's deserializer refuses (``SPLIT_MALFORMED``)."""
    return st.sampled_from(SPLIT_MALFORMED).map(lambda named: dict(named[1]))


@st.composite
def splits(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS,
           alphabet: Sequence[str] = ("a",),
           kinds: Mapping[SplitPatternKind, int] | None = None) -> JSON:
    """One Split: a pattern, a behaviour, ``invert``; or, for the "malformed" kind, a
    Split-family object upstream refuses."""
    kind = draw(weighted(kinds or profile.split_pattern))
    if kind == "malformed":
        return draw(malformed_splits())
    pattern = draw(patterns_of_kind(kind, profile, alphabet))
    behavior: Any = draw(weighted(profile.split_behavior))
    if draw(chance(shares.BEHAVIOR_MAP_FORM)):
        behavior = {behavior: None}
    return split(pattern, behavior, draw(weighted(profile.split_invert)))


@st.composite
def split_family(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS) -> JSON:
    """Digits (both ways), Punctuation (every behaviour, or none given), Whitespace,
    WhitespaceSplit."""
    kind = draw(weighted(profile.split_family))
    if kind == "digits":
        return digits(draw(st.booleans()))
    if kind == "punctuation":
        behavior: Any = draw(weighted(shares.PUNCTUATION_BEHAVIOR))
        if behavior != "absent" and draw(chance(shares.BEHAVIOR_MAP_FORM)):
            behavior = {behavior: draw(st.sampled_from([None, {}]))}
        return punctuation(None if behavior == "absent" else behavior)
    return whitespace() if kind == "whitespace" else whitespace_split()


def real_sequences() -> st.SearchStrategy[list[JSON]]:
    """The Splits of a real Sequence (DeepSeek's)."""
    return st.sampled_from(sorted(REAL_SEQUENCES)).map(
        lambda name: [regex_split(p) for p in REAL_SEQUENCES[name]])


@st.composite
def split_steps(draw: st.DrawFn, profile: Weights = DEFAULT_WEIGHTS,
                alphabet: Sequence[str] = ("a",),
                extra: st.SearchStrategy[JSON] | None = None,
                kinds: Mapping[SplitPatternKind, int] | None = None) -> list[JSON]:
    """The steps of a Sequence of Split-family pre-tokenizers: a real one, or 1..3 steps
    among Splits (patterns in the shares of ``kinds``), the fixed ones and ``extra``
    (Metaspace, say)."""
    if draw(chance(shares.REAL_SEQUENCE)):
        return draw(real_sequences())
    options = [splits(profile, alphabet, kinds), split_family(profile)]
    if extra is not None:
        options.append(extra)
    return draw(st.lists(st.one_of(options), min_size=1, max_size=3))
