"""The one backtracking analysis of Oniguruma trees (:mod:`.oniguruma`), with its two named
criteria (docs/decisions/0031-one-regex-core.md).

``regex`` backtracks: a search explores, depth first, every way (*run*) the pattern can read
the text until one reaches its end. The analysis builds the tree's position automaton: each
:class:`~.oniguruma.CharSet` is a state labelled with the exact code points it matches; edges
are counted with multiplicity (``(a*)*`` reaches ``a`` from ``a`` twice). A state is
*terminal* when everything after it can match the empty string without an assertion. Then:

- :data:`MEETING_RUNS` (decision 0017, Replace): refused when two different runs that start
  together (at the start or at a terminal state) meet again at a non-terminal state;
- :data:`INFINITE_AMBIGUITY` (decision 0023, Split): refused only when the non-terminal part
  is infinitely ambiguous, exponentially (EDA) or polynomially (IDA).

Conservative approximations and the work budget are those of the two records.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar

import regex  # type: ignore[import-untyped, unused-ignore]

from .oniguruma import (
    Alternation,
    Assertion,
    CharSet,
    Group,
    Look,
    Node,
    Repeat,
    Sequence,
)

Criterion = Literal["meeting-runs", "infinite-ambiguity"]
#: Decision 0017: no two runs may meet again among non-terminal states (Replace regexes).
MEETING_RUNS: Final[Criterion] = "meeting-runs"
#: Decision 0023: the non-terminal part must not be infinitely ambiguous (Split regexes).
INFINITE_AMBIGUITY: Final[Criterion] = "infinite-ambiguity"

#: Product-automaton steps the analysis may take before refusing a pattern.
WORK_BUDGET = 200_000
_MANY = 2  # route counts are capped here: only "one" or "more than one" matters

Intervals = tuple[tuple[int, int], ...]
T = TypeVar("T")


class BacktrackingRiskError(Exception):
    """The pattern may backtrack catastrophically; the message says where and why."""


def _cap(n: int) -> int:
    return n if n < _MANY else _MANY


@functools.cache
def _every_code_point() -> str:
    """The string whose character at index ``i`` is ``chr(i)``, for every code point."""
    return "".join(map(chr, range(0x110000)))


@functools.cache
def label(charset: CharSet) -> Intervals:
    """The code points ``charset`` matches, as sorted inclusive ranges."""
    if charset.literal is not None:
        return ((charset.literal, charset.literal),)
    runs: Any = regex.compile(f"(?:{charset.source})+")
    spans: list[tuple[int, int]] = [m.span() for m in runs.finditer(_every_code_point())]
    return tuple((start, end - 1) for start, end in spans)


def _intersection(a: Intervals, b: Intervals) -> Intervals:
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


@dataclass
class _Fragment:
    """Glushkov sets of a sub-pattern, with route counts (capped at 2)."""

    first: dict[int, int] = field(default_factory=dict)
    last: dict[int, int] = field(default_factory=dict)
    #: States after which the rest of the fragment can match empty without an assertion.
    last_free: set[int] = field(default_factory=set)
    #: Routes through the fragment that read nothing.
    empty: int = 1
    #: Whether one of them passes no assertion.
    empty_free: bool = True


def _add(into: dict[int, int], other: dict[int, int], factor: int = 1) -> None:
    if factor == 0:
        return
    for key, count in other.items():
        into[key] = _cap(into.get(key, 0) + count * factor)


class _Automaton:
    def __init__(self) -> None:
        self.labels: list[Intervals] = [()]  # state 0 is the start
        self.follow: list[dict[int, int]] = [{}]
        self.look_bodies: list[Node] = []

    def link(self, sources: dict[int, int], targets: dict[int, int]) -> None:
        for source, count in sources.items():
            _add(self.follow[source], targets, count)

    def build(self, node: Node) -> _Fragment:
        if isinstance(node, CharSet):
            state = len(self.labels)
            self.labels.append(label(node))
            self.follow.append({})
            return _Fragment({state: 1}, {state: 1}, {state}, 0, False)
        if isinstance(node, Assertion):
            return _Fragment(empty_free=False)
        if isinstance(node, Look):
            self.look_bodies.append(node.body)
            return _Fragment(empty_free=False)
        if isinstance(node, Group):
            return self.build(node.body)
        if isinstance(node, Sequence):
            return self.sequence(node.items)
        if isinstance(node, Alternation):
            return self.alternation(node.branches)
        return self.repeat(node)

    def sequence(self, items: Iterable[Node]) -> _Fragment:
        out = _Fragment()
        for item in items:
            part = self.build(item)
            self.link(out.last, part.first)
            first = dict(out.first)
            _add(first, part.first, out.empty)
            last = dict(part.last)
            _add(last, out.last, part.empty)
            last_free = set(part.last_free)
            if part.empty_free:
                last_free |= out.last_free
            out = _Fragment(first, last, last_free, _cap(out.empty * part.empty),
                            out.empty_free and part.empty_free)
        return out

    def alternation(self, branches: Iterable[Node]) -> _Fragment:
        out = _Fragment(empty=0, empty_free=False)
        for branch in branches:
            part = self.build(branch)
            _add(out.first, part.first)
            _add(out.last, part.last)
            out.last_free |= part.last_free
            out.empty = _cap(out.empty + part.empty)
            out.empty_free = out.empty_free or part.empty_free
        return out

    def repeat(self, node: Repeat) -> _Fragment:
        if node.high == 0:  # x{0} reads nothing (a Replace pattern may hold one)
            return _Fragment()
        part = self.build(node.body)
        if node.high is None or node.high >= 2:
            self.link(part.last, part.first)
        if node.low >= 2:
            # The loop stands for x{n,m}: leaving it after fewer than n rounds is not a
            # success, so no state inside is terminal (x{20} after one round is not done).
            part.last_free = set()
        if node.low == 0:
            return _Fragment(part.first, part.last, part.last_free, _cap(1 + part.empty), True)
        return part


def check_backtracking(root: Node, criterion: Criterion) -> None:
    """Raise :class:`BacktrackingRiskError` when ``root`` fails ``criterion`` (see the
    module docstring); each look-around body is checked as a pattern of its own."""
    pending = [root]
    budget = [WORK_BUDGET]
    while pending:
        automaton = _Automaton()
        fragment = automaton.build(pending.pop())
        automaton.follow[0] = dict(fragment.first)
        analysis = _Analysis(automaton, fragment.last_free, budget)
        if criterion == MEETING_RUNS:
            analysis.meeting_runs(fragment.last_free)
        else:
            analysis.exponential()
            analysis.polynomial()
        pending.extend(automaton.look_bodies)


class _Analysis:
    def __init__(self, automaton: _Automaton, terminal: set[int], budget: list[int]) -> None:
        # Labels are interned: each state holds the number of its set of code points, and
        # intersections of numbers are computed once (a class like \p{L} has hundreds of
        # ranges; the product automata ask the same few questions many times).
        self.sets: list[Intervals] = []
        self.numbers: dict[Intervals, int] = {}
        self.labels = [self.intern(intervals) for intervals in automaton.labels]
        self.meets: dict[tuple[int, int], int] = {}
        self.budget = budget
        #: Edges among non-terminal states: reaching a terminal state ends the cost.
        self.edges: list[dict[int, int]] = [
            {target: count for target, count in follow.items() if target not in terminal}
            for follow in automaton.follow]

    def intern(self, intervals: Intervals) -> int:
        number = self.numbers.get(intervals)
        if number is None:
            number = self.numbers[intervals] = len(self.sets)
            self.sets.append(intervals)
        return number

    def meet(self, a: int, b: int) -> int:
        """The number of the intersection of two interned sets."""
        key = (a, b) if a <= b else (b, a)
        found = self.meets.get(key)
        if found is None:
            found = self.meets[key] = self.intern(_intersection(self.sets[a], self.sets[b]))
        return found

    def empty(self, number: int) -> bool:
        return not self.sets[number]

    def spend(self, amount: int = 1) -> None:
        self.budget[0] -= amount
        if self.budget[0] < 0:
            raise BacktrackingRiskError("too complex to analyse")

    # -- decision 0017: two runs that start together meet again ---------------------------
    def meeting_runs(self, terminal: set[int]) -> None:
        """Pairs of runs start together at the start and at each terminal state; ``apart``
        once they took different edges (or two parallel ones). Refused when two apart runs
        reach one non-terminal state."""
        for start in (0, *sorted(terminal)):
            seen: set[tuple[int, int, bool]] = set()
            stack = [(start, start, False)]
            while stack:
                first, second, apart = stack.pop()
                for target1, count1 in self.edges[first].items():
                    for target2 in self.edges[second]:
                        self.spend()
                        if target1 != target2 and self.empty(
                                self.meet(self.labels[target1], self.labels[target2])):
                            continue
                        together = not apart and target1 == target2
                        options = ([False, True] if count1 > 1 else [False]) if together \
                            else [True]
                        for diverged in options:
                            if target1 == target2 and diverged:
                                raise BacktrackingRiskError(
                                    "two ways of reading the same text meet again before "
                                    "the end of the pattern (nested or overlapping "
                                    "repetition)")
                            key = (target1, target2, diverged)
                            if key not in seen:
                                seen.add(key)
                                stack.append(key)

    # -- EDA: a diverging step of the pair automaton on one of its cycles -------------------
    def exponential(self) -> None:
        # Runs start together at the start and at every state (after a terminal state the
        # search goes on exploring, greedily, before it succeeds there).
        stack = [(s, s) for s in range(len(self.labels))]
        graph: dict[tuple[int, int], list[tuple[int, int]]] = {pair: [] for pair in stack}
        diverging: list[tuple[tuple[int, int], tuple[int, int]]] = []
        while stack:
            pair = stack.pop()
            p, q = pair
            for p2, count_p in self.edges[p].items():
                for q2 in self.edges[q]:
                    self.spend()
                    if p2 != q2 and self.empty(self.meet(self.labels[p2], self.labels[q2])):
                        continue
                    target = (p2, q2)
                    graph[pair].append(target)
                    if p == q and (p2 != q2 or count_p > 1):
                        diverging.append((pair, target))
                    if target not in graph:
                        graph[target] = []
                        stack.append(target)
        component = _components(graph)
        for source, target in diverging:
            if component[source] == component[target]:
                raise BacktrackingRiskError(
                    "two ways of reading the same text leave a point of the pattern together "
                    "and come back to it (nested or overlapping repetition): exponential")

    # -- IDA: p -v-> p, p -v-> q, q -v-> q ------------------------------------------------
    def polynomial(self) -> None:
        graph = {state: list(targets) for state, targets in enumerate(self.edges)}
        component = _components(graph)
        members: dict[int, set[int]] = {}
        for state, comp in component.items():
            members.setdefault(comp, set()).add(state)
        cyclic = [s for s in graph if len(members[component[s]]) > 1 or s in self.edges[s]]
        reach = {s: _reachable(graph, s) for s in cyclic}
        for q in cyclic:
            sources = [p for p in cyclic if p != q and q in reach[p]]
            if not sources:
                continue
            to_q = {s for s in graph if q in _reachable(graph, s)}
            for p in sources:
                self._triple(p, q, members[component[p]], members[component[q]],
                             reach[p] & to_q)

    def _triple(self, p: int, q: int, around_p: set[int], around_q: set[int],
                between: set[int]) -> None:
        goal = (p, q, q)
        seen = {(p, p, q)}
        stack = [(p, p, q)]
        while stack:
            a, b, c = stack.pop()
            for a2 in self.edges[a]:
                if a2 not in around_p:
                    continue
                for b2 in self.edges[b]:
                    if b2 not in between:
                        continue
                    common = self.meet(self.labels[a2], self.labels[b2])
                    if self.empty(common):
                        continue
                    for c2 in self.edges[c]:
                        self.spend()
                        if c2 not in around_q or self.empty(self.meet(common, self.labels[c2])):
                            continue
                        node = (a2, b2, c2)
                        if node == goal:
                            raise BacktrackingRiskError(
                                "two loops over the same text follow one another (e.g. "
                                "a*a*b): the ways of reading a text grow with its length")
                        if node not in seen:
                            seen.add(node)
                            stack.append(node)


def _reachable(graph: dict[int, list[int]], start: int) -> set[int]:
    seen = {start}
    stack = [start]
    while stack:
        for target in graph[stack.pop()]:
            if target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


def _components(graph: dict[T, list[T]]) -> dict[T, int]:
    """Strongly connected components (iterative Tarjan): node -> component number."""
    index: dict[T, int] = {}
    low: dict[T, int] = {}
    on_stack: set[T] = set()
    stack: list[T] = []
    component: dict[T, int] = {}
    counter = 0
    found = 0
    for root in graph:
        if root in index:
            continue
        work: list[tuple[T, int]] = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, i = work[-1]
            targets = graph[node]
            if i < len(targets):
                work[-1] = (node, i + 1)
                target = targets[i]
                if target not in index:
                    index[target] = low[target] = counter
                    counter += 1
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = found
                    if member == node:
                        break
                found += 1
    return component
