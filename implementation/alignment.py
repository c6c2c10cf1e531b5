"""Normalized text whose every character remembers the original characters it came from.

Upstream (``tokenizers``' ``NormalizedString``) keeps, for every normalized *byte*, the
original byte range it came from. All the transformations this reference reproduces
(Prepend, Replace, Metaspace, the Unicode forms, Lowercase, Strip) assign one alignment to
a whole character, so keeping one alignment per normalized *character*, in original
*character* offsets, is equivalent and is what the offset contract wants anyway.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

Span = tuple[int, int]


@dataclass(slots=True)
class NormalizedText:
    """``text`` (normalized) with ``alignments[i]`` = original char span of ``text[i]``.

    ``original_start`` is where this piece starts in the whole original input (upstream's
    ``offsets_original().0``): Metaspace's ``prepend_scheme: first`` looks at it.
    """

    text: str
    alignments: list[Span]
    original_start: int
    original_end: int

    @classmethod
    def from_original(cls, text: str, start: int = 0) -> NormalizedText:
        end = start + len(text)
        aligned = list(zip(range(start, end), range(start + 1, end + 1), strict=True))
        return cls(text, aligned, start, end)

    def __len__(self) -> int:
        return len(self.text)

    def original_span(self, start: int, end: int) -> Span:
        """Map the normalized char range ``[start, end)`` to an original char span."""
        if start >= end:  # pragma: no cover - the pipeline maps only words, added-token
            # matches and model tokens, none of them empty
            # Zero-width: anchor at the next character's start (or this piece's end).
            if start < len(self.alignments):
                anchor = self.alignments[start][0]
            else:
                anchor = self.original_end
            return (anchor, anchor)
        return (self.alignments[start][0], self.alignments[end - 1][1])

    def original_spans(
        self, starts: Sequence[int], ends: Sequence[int]
    ) -> tuple[list[int], list[int]]:
        """``original_span`` of every ``(starts[i], ends[i])``, as a column of starts and
        one of ends."""
        aligned = self.alignments
        if all(map(operator.lt, starts, ends)):  # no zero-width range: the direct lookup
            return [aligned[s][0] for s in starts], [aligned[e - 1][1] for e in ends]
        # A model token spans at least one character: never reached from the pipeline.
        spans = [self.original_span(s, e)  # pragma: no cover - see above
                 for s, e in zip(starts, ends, strict=True)]
        return [s for s, _ in spans], [e for _, e in spans]  # pragma: no cover - see above

    def slice(self, start: int, end: int) -> NormalizedText:
        """A sub-piece, keeping alignments into the whole original input."""
        aligned = self.alignments[start:end]
        if aligned:
            o_start, o_end = aligned[0][0], aligned[-1][1]
        else:  # pragma: no cover - every caller slices a non-empty range
            o_start = o_end = self.original_span(start, start)[0]
        return NormalizedText(self.text[start:end], aligned, o_start, o_end)

    # -- transformations (each mirrors one of upstream's NormalizedString methods) --------
    def prepend(self, prefix: str) -> None:
        """Upstream ``prepend``: every prepended char shares the first char's alignment.

        Does nothing on an empty text (upstream needs a first char to align to).
        """
        if not self.text or not prefix:
            return
        first = self.alignments[0]
        self.text = prefix + self.text
        self.alignments = [first] * len(prefix) + self.alignments

    def replace_ranges(self, matches: list[Span], content: str) -> None:
        """Upstream ``replace``: each match is removed and ``content`` inserted.

        Inserted chars share the alignment of the last removed char (upstream aligns an
        inserted char to the byte just before the current offset, which after removing the
        match is the match's last byte). An empty content just deletes.
        """
        if not matches:
            return
        if len(content) == 1 and self._replace_characters(matches, content):
            return
        out_text: list[str] = []
        out_align: list[Span] = []
        last = 0
        for start, end in matches:
            out_text.append(self.text[last:start])
            out_align.extend(self.alignments[last:start])
            if content:
                if end > 0:
                    align = self.alignments[end - 1]
                else:
                    align = (self.original_start, self.original_start)
                out_text.append(content)
                out_align.extend([align] * len(content))
            last = end
        out_text.append(self.text[last:])
        out_align.extend(self.alignments[last:])
        self.text = "".join(out_text)
        self.alignments = out_align

    def _replace_characters(self, matches: list[Span], content: str) -> bool:
        """``replace_ranges`` where every match is one and the same character, matched
        wherever it occurs, and ``content`` one character: ``str.replace``, and every
        alignment stays (an inserted character takes the alignment of the one it
        replaces). False, doing nothing, for any other replacement."""
        text = self.text
        size = len(text)
        target = ""
        previous = -1
        for start, end in matches:
            if end != start + 1 or start <= previous or end > size:
                return False
            if text[start] != target:
                if target:
                    return False
                target = text[start]
            previous = start
        if text.count(target) != len(matches):
            return False
        self.text = text.replace(target, content)
        return True

    def transform(self, changes: Iterable[tuple[str, int]]) -> None:
        """Upstream ``transform`` (from the start, no initial removal): the text becomes the
        characters of ``changes``, each aligned by its change (``unicode_forms``).

        A change of 0 or -N takes the alignment of the next character not yet replaced
        (and N more vanish after it); a change of 1 is an insertion, aligned like the
        character replaced last (upstream: the byte just before its offset). Where
        characters are reordered, the alignments stay in place: the i-th replaced position
        gives its alignment, not the character that moved there.
        """
        changes = list(changes)
        old = self.alignments
        if len(changes) == len(old) and all(change == 0 for _, change in changes):
            self.text = "".join(char for char, _ in changes)  # one for one: alignments stay
            return
        aligned: list[Span] = []
        position = 0
        for _, change in changes:
            if change > 0:
                aligned.append(old[position - 1] if position else
                               (self.original_start, self.original_start))
            else:
                aligned.append(old[position])
                position += 1 - change
        self.text = "".join(char for char, _ in changes)
        self.alignments = aligned

    def strip(self, left: bool, right: bool, is_space: Callable[[str], bool]) -> None:
        """Upstream ``lrstrip``: leading and/or trailing ``is_space`` characters are removed
        with their alignments; every other character keeps its own."""
        text = self.text
        start, end = 0, len(text)
        if left:
            while start < end and is_space(text[start]):
                start += 1
        if right:
            while end > start and is_space(text[end - 1]):
                end -= 1
        if (start, end) != (0, len(text)):
            self.text = text[start:end]
            self.alignments = self.alignments[start:end]
