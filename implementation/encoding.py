"""Encoded tokens and sequences, and the offset contract's invariants."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from types import MappingProxyType
from typing import Literal

from .errors import excerpt

Track = Literal["bpe", "added", "special", "morph", "image", "video", "pad"]

#: The span of a synthetic token (template BOS/EOS, padding, injected patches).
NO_SPAN = -1

_EMPTY: Mapping[str, int] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class EncodedToken:
    """One token: its id, its string, its half-open character span and its track.

    ``start``/``end`` are Python character offsets into the text given to
    ``encode_with_spans``; ``-1, -1`` for synthetic specials.
    """

    id: int
    token: str
    start: int
    end: int
    track: Track = "bpe"
    metadata: Mapping[str, int] = field(default_factory=lambda: _EMPTY)

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


@dataclass(frozen=True, slots=True)
class EncodedSequence:
    """The result of ``encode_with_spans``."""

    tokens: tuple[EncodedToken, ...]
    attention_mask: tuple[int, ...]
    special_tokens_mask: tuple[int, ...]
    type_ids: tuple[int, ...] = ()

    @property
    def input_ids(self) -> list[int]:
        return [t.id for t in self.tokens]

    @property
    def token_strings(self) -> list[str]:
        return [t.token for t in self.tokens]

    @property
    def spans(self) -> list[tuple[int, int]]:
        return [(t.start, t.end) for t in self.tokens]

    @property
    def word_ids(self) -> list[int | None]:
        """For each token, the index of the piece of its sequence it came from
        (``metadata["word"]``): the pre-tokenized words and the added tokens found in the
        text, numbered together in order (upstream's ``Encoding.word_ids``); None for
        synthetic tokens (template specials, padding)."""
        return [t.metadata.get("word") for t in self.tokens]

    @property
    def sequence_ids(self) -> list[int | None]:
        """For each token, the input it came from (0, or 1 for a pair's second text;
        ``metadata["sequence"]``); None for template specials."""
        return [t.metadata.get("sequence") for t in self.tokens]

    def __len__(self) -> int:
        return len(self.tokens)

    @classmethod
    def of(
        cls,
        tokens: list[EncodedToken],
        type_ids: list[int] | None = None,
    ) -> EncodedSequence:
        tracks = [t.track for t in tokens]
        return cls(
            tokens=tuple(tokens),
            attention_mask=_mask(tracks, "pad", 0, 1),
            special_tokens_mask=_mask(tracks, "special", 1, 0),
            type_ids=tuple(type_ids if type_ids is not None else [0] * len(tokens)),
        )


def _mask(tracks: list[Track], track: Track, hit: int, miss: int) -> tuple[int, ...]:
    """``hit`` where a token's track is ``track``, else ``miss``."""
    if track not in tracks:
        return (miss,) * len(tracks)
    return tuple(hit if t == track else miss for t in tracks)


_new = object.__new__
_set_id, _set_token, _set_start, _set_end, _set_track, _set_metadata = (
    EncodedToken.__dict__[name].__set__  # the slots' member descriptors
    for name in ("id", "token", "start", "end", "track", "metadata")
)


#: Up to this many tokens, ``model_tokens`` sets the fields token by token (the column
#: by column passes cost more to set up than they save).
_FEW_TOKENS = 8


def model_tokens(
    ids: Sequence[int],
    values: Sequence[str],
    starts: Sequence[int],
    ends: Sequence[int],
    metadata: Mapping[str, int],
) -> list[EncodedToken]:
    """``[EncodedToken(i, v, s, e, "bpe", metadata) for i, v, s, e in zip(...)]``: the same
    tokens, built column by column without the frozen dataclass' ``__init__`` (which sets
    each field through ``object.__setattr__``, the main cost of a long word's tokens)."""
    if not len(ids) == len(values) == len(starts) == len(ends):  # pragma: no cover - the
        # model gives columns of one length; a guard for other callers
        raise ValueError("model_tokens: columns of different lengths")
    if len(ids) <= _FEW_TOKENS:  # a word's few tokens: one at a time is cheaper
        few: list[EncodedToken] = []
        for token_id, value, start, end in zip(ids, values, starts, ends):  # noqa: B905
            token = _new(EncodedToken)
            _set_id(token, token_id)
            _set_token(token, value)
            _set_start(token, start)
            _set_end(token, end)
            _set_track(token, "bpe")
            _set_metadata(token, metadata)
            few.append(token)
        return few
    tokens: list[EncodedToken] = list(map(_new, repeat(EncodedToken, len(ids))))
    drain = deque[None](maxlen=0).extend
    drain(map(_set_id, tokens, ids))
    drain(map(_set_token, tokens, values))
    drain(map(_set_start, tokens, starts))
    drain(map(_set_end, tokens, ends))
    drain(map(_set_track, tokens, repeat("bpe")))
    drain(map(_set_metadata, tokens, repeat(metadata)))
    return tokens


def word_tokens(
    ids: Sequence[int],
    values: Sequence[str],
    starts: Sequence[int],
    ends: Sequence[int],
    *,
    alignments: Sequence[tuple[int, int]],
    metadata: Mapping[str, int],
) -> list[EncodedToken] | None:
    """The tokens of one word of a few tokens (``_FEW_TOKENS`` at most), each spanning the
    original characters of its characters in the word (``alignments[start][0]`` to
    ``alignments[end - 1][1]``); None for more tokens or a token of no character (the
    caller maps such spans through ``NormalizedText.original_spans``)."""
    if len(ids) > _FEW_TOKENS:
        return None
    few: list[EncodedToken] = []
    for token_id, value, start, end in zip(ids, values, starts, ends):  # noqa: B905
        if start >= end:  # pragma: no cover - a model token covers a character at least
            return None
        token = _new(EncodedToken)
        _set_id(token, token_id)
        _set_token(token, value)
        _set_start(token, alignments[start][0])
        _set_end(token, alignments[end - 1][1])
        _set_track(token, "bpe")
        _set_metadata(token, metadata)
        few.append(token)
    return few


def contract_violations(seq: EncodedSequence, text: str) -> list[str]:  # pragma: no cover
    # (checker only: the property tests call it on encodings; encode never calls it)
    """The offset contract's four invariants; returns one line per violation."""
    problems: list[str] = []
    n = len(text)
    if not (len(seq.input_ids) == len(seq.tokens) == len(seq.attention_mask)):
        problems.append("lengths of input_ids, tokens and attention_mask differ")
    if len(seq.special_tokens_mask) != len(seq.tokens):
        problems.append("special_tokens_mask length differs from tokens")
    previous_start = -1
    for i, tok in enumerate(seq.tokens):
        is_special = tok.track == "special"
        if seq.special_tokens_mask[i] != (1 if is_special else 0):
            problems.append(f"token {i}: special_tokens_mask disagrees with track {tok.track!r}")
        if tok.track in ("special", "pad") and tok.start == NO_SPAN and tok.end == NO_SPAN:
            continue
        if (tok.start, tok.end) == (NO_SPAN, NO_SPAN) and tok.track in ("image", "video"):
            continue
        if not 0 <= tok.start <= tok.end <= n:
            problems.append(f"token {i} {excerpt(tok.token)}: span {tok.span} outside [0, {n}]")
        if tok.start < previous_start:
            problems.append(
                f"token {i} {excerpt(tok.token)}: start {tok.start} < previous {previous_start}")
        previous_start = max(previous_start, tok.start)
    return problems
