"""The ``pattern`` of the Replace normalizer and decoder and of the Split pre-tokenizer:
``{"String": s}`` (a literal) or ``{"Regex": r}`` (Oniguruma syntax upstream), read by one
parser (:mod:`.oniguruma`, in the component's dialect), bounded by one analysis
(:mod:`.regex_safety`, under the component's criterion) and matched with ``regex``, iterated
like the ``onig`` crate's ``find_iter`` (docs/decisions/0031-one-regex-core.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import regex  # type: ignore[import-untyped, unused-ignore]

from .errors import excerpt, excerpt_keys
from .jsonfields import Node
from .oniguruma import REPLACE, SPLIT, RegexError, emit, parse
from .regex_safety import (
    INFINITE_AMBIGUITY,
    MEETING_RUNS,
    BacktrackingRiskError,
    check_backtracking,
)

#: Longer Regex sources are refused (regex-backtracking) before they are read.
MAX_REGEX_CHARS = 10_000
#: ``(start, end, is_match)``: a part of a text as a pattern cuts it.
Part = tuple[int, int, bool]
Component = Literal["Replace", "Split"]

#: Each component's dialect, backtracking criterion and what a refusal says about upstream.
_READERS = {
    "Replace": (REPLACE, MEETING_RUNS, "the regex package could take exponential or "
                "high-polynomial time on it (upstream loads it and panics on long enough "
                "inputs)"),
    "Split": (SPLIT, INFINITE_AMBIGUITY, "the regex package could take time growing faster "
              "than the text on it"),
}


def onig_find_iter(compiled: Any, text: str) -> Iterator[tuple[int, int]]:
    """The spans the ``onig`` crate's ``find_iter`` yields (character offsets).

    Unlike ``finditer``, an empty match ending where the previous match ended is skipped,
    and the search resumes one character later: ``x*`` over ``abxd`` matches at 0, 1, 2-3
    and 4, not also at 3.
    """
    last_end = 0
    last_match_end: int | None = None
    while last_end <= len(text):
        match = compiled.search(text, last_end)
        if match is None:
            return
        start, end = match.span()
        if start == end and last_match_end == end:
            last_end += 1
            continue
        last_end = last_match_end = end
        yield start, end


@dataclass(frozen=True, slots=True)
class Pattern:
    """A non-empty literal (searched with ``str.find``: the same leftmost, non-overlapping
    matches as upstream's escaped regex, without compiling a literal that may be megabytes
    long), or a compiled ``regex`` pattern iterated as ``onig``'s ``find_iter`` (empty
    matches included)."""

    literal: str | None
    compiled: Any = None

    def __post_init__(self) -> None:
        if self.literal == "":  # pragma: no cover - misuse guard: loaders use of_literal
            raise ValueError("an empty literal matches everywhere: use Pattern.of_literal")

    @classmethod
    def of_literal(cls, text: str) -> Pattern:
        """Upstream's escaped literal: the empty one matches the empty string everywhere."""
        return cls(text) if text else cls.of_regex("")

    @classmethod
    def of_regex(cls, source: str) -> Pattern:
        """A pattern in ``regex`` syntax (the reference's own, or an emitted tree)."""
        return cls(None, regex.compile(source))

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        if self.literal is None:
            yield from onig_find_iter(self.compiled, text)
            return
        size = len(self.literal)
        at = text.find(self.literal)
        while at != -1:
            yield at, at + size
            at = text.find(self.literal, at + size)

    def find_matches(self, text: str, invert: bool = False) -> list[Part]:
        """Upstream's ``Pattern::find_matches`` (``Invert`` flips every flag): contiguous
        parts covering ``text``; an empty text is one part that does not match, even for a
        pattern matching the empty string."""
        if not text:
            return [(0, 0, invert)]
        parts: list[Part] = []
        previous = 0
        for start, end in self.spans(text):
            if previous != start:
                parts.append((previous, start, invert))
            parts.append((start, end, not invert))
            previous = end
        if previous != len(text):
            parts.append((previous, len(text), invert))
        return parts

    def replace(self, text: str, content: str) -> str:
        return "".join(content if is_match else text[start:end]
                       for start, end, is_match in self.find_matches(text))


def pattern_from_json(node: Node, component: Component) -> Pattern:
    """``pattern``: an object with exactly one of String, Regex. A Regex is refused (both
    modes alike) as ``regex-syntax`` where Oniguruma refuses it, ``unsupported-component``
    outside the component's dialect, and ``regex-backtracking`` when it is longer than
    :data:`MAX_REGEX_CHARS` or the component's criterion refuses it."""
    keys = list(node.obj())
    if len(keys) != 1 or keys[0] not in ("String", "Regex"):
        node.fail("invalid-value", "expected exactly one of 'String', 'Regex'; got keys "
                  f"{excerpt_keys(keys)}")
    kind = keys[0]
    source_node = node.field(kind)
    source = source_node.str_()
    if kind == "String":
        return Pattern.of_literal(source)
    dialect, criterion, risk = _READERS[component]
    what = f"{component} regex {excerpt(source)}"
    if len(source) > MAX_REGEX_CHARS:
        source_node.fail("regex-backtracking", f"{what} is longer than {MAX_REGEX_CHARS} "
                         "characters: too large to analyse")
    try:
        tree = parse(source, dialect)
    except RegexError as exc:
        source_node.fail(exc.rule, f"{what}: {exc}")
    try:
        check_backtracking(tree, criterion)
    except BacktrackingRiskError as exc:
        source_node.fail("regex-backtracking", f"{what}: {exc}; {risk}")
    return Pattern.of_regex(emit(tree))
