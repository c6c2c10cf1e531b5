"""Inputs expanded from one seed, added to a generated case's drawn ones when a run
profile asks (``RunProfile.sampled_texts`` / ``sampled_id_runs``): Hypothesis draws one
integer and ``random.Random`` expands it into texts (``TextSampler``) and id runs (the
kinds and shares ``texts.id_segments`` draws), so a case gets many inputs for one choice.
The drawn inputs keep what Hypothesis does best (mutation, shrinking); the sampled ones
make each generated document pay for more comparisons (decision 0054).
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Sequence

from harness.strategies import alphabet as chars
from harness.strategies import profile as shares
from harness.strategies.sampled_texts import TextSampler
from harness.strategies.texts import Inventory, char_bytes


class IdRunSampler:
    """Id runs for one vocabulary, of ``texts.id_segments``' kinds and weights: valid ids,
    byte runs of whole characters, runs cut mid-character, invalid byte runs, specials
    (alone, or inside a character's bytes) and ids naming no token."""

    def __init__(self, inv: Inventory) -> None:
        self._inv = inv
        self._chars = char_bytes(inv, 1)
        self._multi = char_bytes(inv, 2)
        self._invalid = [tuple(inv.byte_ids[b] for b in run) for run in chars.INVALID_BYTE_RUNS
                         if all(b in inv.byte_ids for b in run)]
        w = shares.ID_SEGMENT
        multi, specials = bool(self._multi), bool(inv.special_ids)
        offered = [("valid", bool(inv.ids)), ("utf8", bool(self._chars)), ("cut", multi),
                   ("invalid", bool(self._invalid)), ("special", specials),
                   ("split", multi and specials), ("unknown", bool(inv.unknown_ids))]
        self._kinds = [kind for kind, on in offered if on and w[kind]]
        self._cumulative = list(itertools.accumulate(w[kind] for kind in self._kinds))

    def run(self, rng: random.Random) -> tuple[int, ...]:
        if not self._kinds or rng.randrange(1000) < shares.EMPTY_ID_RUN:
            return ()
        out: list[int] = []
        for _ in range(rng.randint(1, shares.ID_SEGMENTS_MAX)):
            out.extend(self._segment(rng))
        return tuple(out)

    def kind(self, rng: random.Random) -> str:
        """A kind of segment the vocabulary offers, by ``ID_SEGMENT``'s weights."""
        return self._kinds[bisect.bisect_right(self._cumulative,
                                               rng.randrange(self._cumulative[-1]))]

    def _segment(self, rng: random.Random) -> Sequence[int]:
        kind = self.kind(rng)
        inv = self._inv
        if kind == "valid":
            return [rng.choice(inv.ids) for _ in range(rng.randint(1, 6))]
        if kind == "utf8":
            return [i for _ in range(rng.randint(1, 3)) for i in rng.choice(self._chars)]
        if kind == "cut":
            whole = rng.choice(self._multi)
            return whole[:rng.randint(1, len(whole) - 1)]
        if kind == "invalid":
            return rng.choice(self._invalid)
        if kind == "special":
            return [rng.choice(inv.special_ids)]
        if kind == "split":
            ids = list(rng.choice(self._multi))
            ids.insert(rng.randint(1, len(ids) - 1), rng.choice(inv.special_ids))
            return ids
        return [rng.choice(inv.unknown_ids)]


def sampled_inputs(inv: Inventory, seed_value: int, *, texts: int, id_runs: int,
                   drawn_texts: Sequence[str] = ()) -> tuple[tuple[str, ...],
                                                             tuple[tuple[int, ...], ...]]:
    """``texts`` distinct texts (none of ``drawn_texts``; fewer if the vocabulary offers
    fewer) and ``id_runs`` id runs, all from ``seed_value``."""
    rng = random.Random(seed_value)
    sampler = TextSampler(inv, (), ())  # a generated vocabulary has no corpus to mix
    new_texts = tuple(t for t in sampler.batch(rng.getrandbits(63), texts + len(drawn_texts))
                      if t not in drawn_texts)[:texts] if texts else ()
    runs = IdRunSampler(inv)
    return new_texts, tuple(runs.run(rng) for _ in range(id_runs))
