"""Refusing Replace regexes that Python's backtracking ``re`` could take unbounded time on.

Python's ``re`` has no time limit: it explores, depth first, every way the pattern can read
the text until one reaches the end of the pattern. It is slow exactly when two different
ways of reading the same text meet again at the same point of the pattern, and what
follows can still fail: everything after the meeting point is then explored once per way,
and the ways multiply at every meeting (``(a+)+$``, ``(a|a)*b``, ``(a|aa)+$``: exponential;
``a*a*b``, ``(.*a){12}``: a polynomial of high degree).

The analysis runs on the pattern Python will execute (the translation of the Oniguruma
source, parsed by ``re._parser``), as a position automaton (each character-consuming atom
is one state) whose edges are counted with multiplicity: two distinct routes between the
same two atoms (``(a*)*`` reaches ``a`` from ``a`` by the inner and by the outer loop;
``(?:a?)*b`` reaches ``b`` with and without an empty iteration) are two edges.

A pattern is refused when two different runs that start together (at the pattern's start,
or at a *terminal* atom) read the same text and meet again at the same non-terminal atom.
An atom is terminal when everything after it can match the empty string without any
assertion: reaching it means the search has succeeded, so no meeting there costs anything.
Otherwise every prefix of the text has at most as many runs as the pattern has atoms, and a
failing search costs at most (atoms x text length) steps from each start position.

Conservative approximations (they can refuse a pattern that is in fact fast, never the
opposite): a counted repeat ``x{n,m}`` with ``m >= 2`` is analysed as ``x+`` (``n >= 1``) or
``x*`` (``n == 0``); assertions and look-arounds are read as always true in the pattern
around them (their bodies are analysed as patterns of their own); a case-insensitive
group matches any character. The analysis gives up, refusing, past a fixed budget of work.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_parser: Any = importlib.import_module("re._parser")
_constants: Any = importlib.import_module("re._constants")

MAX_CODE_POINT = 0x10FFFF
#: Pair transitions the analysis may examine before refusing a pattern as too complex.
WORK_BUDGET = 200_000
_MANY = 2  # counts are capped here: only "one" or "more than one" matters

Intervals = tuple[tuple[int, int], ...]
_ALL: Intervals = ((0, MAX_CODE_POINT),)


class BacktrackingRiskError(Exception):
    """The pattern may backtrack catastrophically; the message says where and why."""


def _cap(n: int) -> int:
    return n if n < _MANY else _MANY


def _normalize(intervals: Iterable[tuple[int, int]]) -> Intervals:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(intervals: Intervals) -> Intervals:
    out: list[tuple[int, int]] = []
    start = 0
    for lo, hi in intervals:
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return tuple(out)


def _intersects(a: Intervals, b: Intervals) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i][1] < b[j][0]:
            i += 1
        elif b[j][1] < a[i][0]:
            j += 1
        else:
            return True
    return False


def _merge_counts(into: dict[int, int], other: dict[int, int], factor: int = 1) -> None:
    if factor == 0:
        return
    for key, count in other.items():
        into[key] = _cap(into.get(key, 0) + count * factor)


@dataclass
class _Fragment:
    """Glushkov sets of a sub-pattern, with route counts (capped at 2)."""

    first: dict[int, int] = field(default_factory=dict)
    last: dict[int, int] = field(default_factory=dict)
    #: Atoms after which the rest of the fragment can match empty without an assertion.
    last_free: set[int] = field(default_factory=set)
    #: Routes through the fragment that read nothing.
    empty: int = 1
    #: Whether one of them passes no assertion.
    empty_free: bool = True


class _Automaton:
    def __init__(self, ignore_case: bool) -> None:
        self.labels: list[Intervals] = [()]  # state 0 is the start
        self.follow: list[dict[int, int]] = [{}]
        self.lookaround_bodies: list[Any] = []
        self.ignore_case = ignore_case

    # -- construction ---------------------------------------------------------------------
    def atom(self, label: Intervals) -> _Fragment:
        state = len(self.labels)
        self.labels.append(_ALL if self.ignore_case else label)
        self.follow.append({})
        return _Fragment({state: 1}, {state: 1}, {state}, 0, False)

    def link(self, sources: dict[int, int], targets: dict[int, int]) -> None:
        for source, count in sources.items():
            _merge_counts(self.follow[source], targets, count)

    def sequence(self, items: Iterable[tuple[Any, Any]]) -> _Fragment:
        result = _Fragment()
        for op, arg in items:
            part = self.node(op, arg)
            self.link(result.last, part.first)
            first = dict(result.first)
            _merge_counts(first, part.first, result.empty)
            last = dict(part.last)
            _merge_counts(last, result.last, part.empty)
            last_free = part.last_free | (result.last_free if part.empty_free else set())
            result = _Fragment(first, last, last_free, _cap(result.empty * part.empty),
                               result.empty_free and part.empty_free)
        return result

    def alternation(self, branches: Iterable[Any]) -> _Fragment:
        result = _Fragment(empty=0, empty_free=False)
        for branch in branches:
            part = self.sequence(branch)
            _merge_counts(result.first, part.first)
            _merge_counts(result.last, part.last)
            result.last_free |= part.last_free
            result.empty = _cap(result.empty + part.empty)
            result.empty_free = result.empty_free or part.empty_free
        return result

    def repeat(self, low: int, high: int, body: Any) -> _Fragment:
        if high == 0:
            return _Fragment()
        part = self.sequence(body)
        if high >= 2:  # analysed as body+ or body* (see the module docstring)
            self.link(part.last, part.first)
        if low == 0:
            return _Fragment(part.first, part.last, part.last_free, _cap(1 + part.empty), True)
        return part

    def node(self, op: Any, arg: Any) -> _Fragment:
        name = str(op)
        if name == "LITERAL":
            return self.atom(((arg, arg),))
        if name == "NOT_LITERAL":
            return self.atom(_complement(((arg, arg),)))
        if name == "ANY":
            return self.atom(_complement(((10, 10),)))
        if name == "IN":
            return self.atom(_class_label(arg))
        if name == "SUBPATTERN":
            _group, add_flags, _del_flags, body = arg
            if add_flags & _constants.SRE_FLAG_IGNORECASE:
                saved, self.ignore_case = self.ignore_case, True
                try:
                    return self.sequence(body)
                finally:
                    self.ignore_case = saved
            return self.sequence(body)
        if name == "BRANCH":
            return self.alternation(arg[1])
        if name in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, body = arg
            return self.repeat(low, high, body)
        if name == "AT":
            return _Fragment(empty_free=False)
        if name in ("ASSERT", "ASSERT_NOT"):
            self.lookaround_bodies.append(arg[1])
            return _Fragment(empty_free=False)
        raise BacktrackingRiskError(f"construct {name} cannot be analysed")

    # -- the search for runs that meet again ---------------------------------------------
    def check(self, root: _Fragment) -> None:
        terminal = root.last_free
        self.follow[0] = dict(root.first)
        budget = WORK_BUDGET
        for start in (0, *sorted(terminal)):
            budget = self._runs_from(start, terminal, budget)

    def _runs_from(self, start: int, terminal: set[int], budget: int) -> int:
        """Follow pairs of runs starting together at ``start``; ``apart`` is True once they
        have taken different edges. Raises if they meet again at a non-terminal atom."""
        seen: set[tuple[int, int, bool]] = set()
        queue: list[tuple[int, int, bool]] = [(start, start, False)]
        labels, follow = self.labels, self.follow
        while queue:
            first, second, apart = queue.pop()
            for target1, count1 in follow[first].items():
                if target1 in terminal:
                    continue
                for target2 in follow[second]:
                    budget -= 1
                    if budget < 0:
                        raise BacktrackingRiskError("too complex to analyse")
                    if target2 in terminal or not _intersects(labels[target1],
                                                               labels[target2]):
                        continue
                    if apart:
                        options = [True]
                    elif target1 == target2:  # together: the same edge, or a parallel one
                        options = [False, True] if count1 > 1 else [False]
                    else:
                        options = [True]
                    for diverged in options:
                        if target1 == target2 and diverged:
                            raise BacktrackingRiskError(
                                "two ways of reading the same text meet again before the "
                                "end of the pattern (nested or overlapping repetition)")
                        key = (target1, target2, diverged)
                        if key not in seen:
                            seen.add(key)
                            queue.append(key)
        return budget


def _class_label(items: Any) -> Intervals:
    intervals: list[tuple[int, int]] = []
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            intervals.append((arg, arg))
        elif name == "RANGE":
            intervals.append((arg[0], arg[1]))
        else:  # CATEGORY and anything else: any character (conservative)
            intervals.append((0, MAX_CODE_POINT))
    label = _normalize(intervals)
    return _complement(label) if negate else label


def check_backtracking(python_pattern: str) -> None:
    """Raise :class:`BacktrackingRiskError` if ``python_pattern`` (Python ``re`` syntax, as
    ``patterns.translate_oniguruma`` produces) may take more than (atoms x text length)
    steps per start position in a failing search; return None otherwise."""
    parsed = _parser.parse(python_pattern)
    ignore_case = bool(parsed.state.flags & _constants.SRE_FLAG_IGNORECASE)
    pending: list[Any] = [parsed]
    while pending:
        automaton = _Automaton(ignore_case)
        root = automaton.sequence(pending.pop())
        automaton.check(root)
        pending.extend(automaton.lookaround_bodies)
