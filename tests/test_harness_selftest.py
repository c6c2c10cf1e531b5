"""The harness catches a broken reference.

Each mutant below breaks the reference in one way a real bug could (patched in-process,
where the reference subject calls it); a short conformance run must then report a failure
(an unexplained divergence) or a stale pinned witness. The unpatched reference passes the
same short runs, so a mutant's failure is the mutant's, not noise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("tokenizers")

from harness.job import JobResult, run
from harness.strategies import cases
from implementation import (
    bpe,
    decoders,
    tokenizer,
)

EXAMPLES = 120


def short_run(strategy: Any = None, examples: int = EXAMPLES) -> JobResult:
    return run(profile_name="dev", seed_value=0, examples=examples, command="self-test",
               strategy=strategy, real_examples=-1, shrink=False, with_morph_track=False)


def caught(result: JobResult) -> bool:
    return bool(result.tally.failures) or bool(result.stale)


# -- the mutants ----------------------------------------------------------------------


def ties_rightmost(ids: list[int], ends: list[int], merges: dict[int, tuple[int, int]]
                   ) -> list[int]:
    """Lowest rank first, but ties broken at the RIGHTMOST pair."""
    alive = list(range(len(ids)))
    while True:
        best: tuple[int, int, int] | None = None
        for j in range(len(alive) - 1):
            merge = merges.get((ids[alive[j]] << 32) | ids[alive[j + 1]])
            if merge is not None and (best is None or (merge[0], -j) <= (best[0], -best[1])):
                best = (merge[0], j, merge[1])
        if best is None:
            return alive
        _, j, new_id = best
        ids[alive[j]] = new_id
        ends[alive[j]] = ends[alive[j + 1]]
        del alive[j + 1]


def byte_offsets(original: Callable[..., Any]) -> Callable[..., Any]:
    """Spans in UTF-8 bytes instead of characters."""
    def encode_with_spans(self: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        seq = original(self, text, *args, **kwargs)
        def at(i: int) -> int:
            return i if i < 0 else len(text[:i].encode("utf-8"))
        tokens = [type(t)(t.id, t.token, at(t.start), at(t.end), t.track, t.metadata)
                  for t in seq.tokens]
        return type(seq).of(tokens, list(seq.type_ids))
    return encode_with_spans


def ordering_bug_reproduced(self: Any, word: str) -> tuple[list[int], list[int], list[int]]:
    """Upstream's misordering: a pending unk is not flushed by a byte-fallback expansion."""
    ids: list[int] = []
    starts: list[int] = []
    ends: list[int] = []
    pending: list[int] | None = None
    for k, ch in enumerate(word):
        pieces = self._resolve(ch)
        known = self._vocab.get(ch) is not None
        if pieces is not None:
            if pending is not None and known:
                ids.append(pending[0]); starts.append(pending[1]); ends.append(pending[2])  # noqa: E702
                pending = None
            for piece in pieces:
                ids.append(piece); starts.append(k); ends.append(k + 1)  # noqa: E702
        elif self.unk_token is not None:
            if pending is not None and self.fuse_unk:
                pending[2] = k + 1
            else:
                if pending is not None:
                    ids.append(pending[0]); starts.append(pending[1]); ends.append(pending[2])  # noqa: E702
                pending = [self._unk_id(), k, k + 1]
    if pending is not None:
        ids.append(pending[0]); starts.append(pending[1]); ends.append(pending[2])  # noqa: E702
    return ids, starts, ends


def python_replace(run_bytes: bytes) -> list[str]:
    """Python's errors="replace": one U+FFFD per maximal invalid subpart."""
    return [run_bytes.decode("utf-8", errors="replace")]


def lowercase_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """<0xc3> accepted and used as the piece of byte 0xC3."""
    def check(vocab: dict[str, int], node: Any) -> None:
        for byte in range(256):
            if bpe.byte_piece(byte) not in vocab and f"<0x{byte:02x}>" not in vocab:
                node.fail("byte-alphabet-incomplete", f"{bpe.byte_piece(byte)!r} is missing")
    original_init = bpe.BpeModel.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self._byte_ids = [i if i is not None else self._vocab.get(f"<0x{b:02x}>")
                          for b, i in enumerate(self._byte_ids)]

    monkeypatch.setattr(bpe, "_check_byte_alphabet", check)
    monkeypatch.setattr(bpe.BpeModel, "__init__", init)


MUTANTS: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], Any]] = {
    "merge ties broken rightmost": (
        lambda mp: mp.setattr(bpe, "_merge_all", ties_rightmost), None),
    "byte offsets instead of characters": (
        lambda mp: mp.setattr(tokenizer.Tokenizer, "encode_with_spans",
                              byte_offsets(tokenizer.Tokenizer.encode_with_spans)), None),
    "unk/byte ordering bug reproduced": (
        lambda mp: mp.setattr(bpe.BpeModel, "_word_symbols", ordering_bug_reproduced),
        {"byte_alphabet": "sparse", "byte_fallback": True}),
    "decode runs with errors='replace'": (
        lambda mp: mp.setattr(decoders, "decode_byte_run", python_replace), None),
    "lower-case byte spelling accepted": (lowercase_accepted, None),
}


@pytest.fixture(scope="module")
def baseline() -> Iterator[JobResult]:
    yield short_run()


def test_the_unpatched_reference_passes_the_short_run(baseline: JobResult) -> None:
    assert not caught(baseline), (dict(baseline.tally.failures), baseline.stale)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_mutant_is_caught(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    patch, constraints = MUTANTS[name]
    patch(monkeypatch)
    result = short_run(cases(**constraints) if constraints else None)
    assert caught(result), f"mutant {name!r} went unnoticed: {result.tally.by_class}"
