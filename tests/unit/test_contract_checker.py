"""The offset contract's checker (``implementation.contract_violations``) on sequences that
break each invariant and on the exceptions it allows.

The property tests call the checker on the pipeline's encodings, which keep the contract,
so they only ever see it answer ``[]``; the conformance run never calls it (its mutants are
counted apart by the mutation campaign, decision 0050). Here every line it can report is
provoked, and every allowed exception shown not to report.
"""

from __future__ import annotations

import pytest

from implementation import EncodedSequence, EncodedToken, contract_violations
from implementation.encoding import NO_SPAN, Track


def token(start: int, end: int, track: Track = "bpe", value: str = "t") -> EncodedToken:
    return EncodedToken(7, value, start, end, track)


def sequence(*tokens: EncodedToken, attention: tuple[int, ...] | None = None,
             special: tuple[int, ...] | None = None) -> EncodedSequence:
    built = EncodedSequence.of(list(tokens))
    return EncodedSequence(
        built.tokens,
        built.attention_mask if attention is None else attention,
        built.special_tokens_mask if special is None else special,
        built.type_ids)


TEXT = "abcdef"


@pytest.mark.parametrize("seq", [
    sequence(),
    sequence(token(0, 1), token(1, 3), token(3, 6)),
    sequence(token(0, 0), token(0, 2), token(0, 6)),  # empty spans, equal starts, the ends
    sequence(token(NO_SPAN, NO_SPAN, "special"), token(0, 6),
             token(NO_SPAN, NO_SPAN, "special"), token(NO_SPAN, NO_SPAN, "pad")),
    sequence(token(2, 3, "special"), token(3, 4, "pad"), token(4, 6, "added")),
    sequence(token(0, 2), token(NO_SPAN, NO_SPAN, "image"), token(NO_SPAN, NO_SPAN, "video"),
             token(2, 3, "image")),
], ids=["empty", "tiling", "touching", "synthetic", "tracks with spans", "patches"])
def test_a_sequence_keeping_the_contract_has_no_violation(seq: EncodedSequence) -> None:
    assert contract_violations(seq, TEXT) == []


def test_columns_of_other_lengths() -> None:
    two = (token(0, 1), token(1, 2))
    assert contract_violations(sequence(*two, attention=(1,)), TEXT) == [
        "lengths of input_ids, tokens and attention_mask differ"]
    assert contract_violations(sequence(*two, attention=(1, 1, 1)), TEXT) == [
        "lengths of input_ids, tokens and attention_mask differ"]
    assert contract_violations(sequence(*two, special=(0, 0, 0)), TEXT) == [
        "special_tokens_mask length differs from tokens"]
    with pytest.raises(IndexError):  # shorter: the per-token check reads past its end
        contract_violations(sequence(*two, special=(0,)), TEXT)


def test_special_mask_disagreeing_with_the_track() -> None:
    seq = sequence(token(NO_SPAN, NO_SPAN, "special"), token(0, 1), token(1, 2, "added"),
                   special=(0, 1, 1))
    assert contract_violations(seq, TEXT) == [
        "token 0: special_tokens_mask disagrees with track 'special'",
        "token 1: special_tokens_mask disagrees with track 'bpe'",
        "token 2: special_tokens_mask disagrees with track 'added'"]


@pytest.mark.parametrize(("start", "end"), [(-1, 2), (2, 7), (3, 2), (NO_SPAN, 0),
                                            (0, NO_SPAN), (7, 7)])
@pytest.mark.parametrize("track", ["bpe", "added", "special", "pad", "image", "video"])
def test_a_span_outside_the_text(start: int, end: int, track: Track) -> None:
    """Only the exact ``(-1, -1)`` of a synthetic track is exempt: half of it is not."""
    assert contract_violations(sequence(token(start, end, track)), TEXT) == [
        f"token 0 't': span {(start, end)} outside [0, 6]"]


@pytest.mark.parametrize("track", ["bpe", "added"])
def test_no_exemption_for_model_and_added_tokens(track: Track) -> None:
    assert contract_violations(sequence(token(NO_SPAN, NO_SPAN, track)), TEXT) == [
        "token 0 't': span (-1, -1) outside [0, 6]"]


def test_starts_going_back() -> None:
    seq = sequence(token(2, 4), token(1, 2), token(3, 5), token(NO_SPAN, NO_SPAN, "special"),
                   token(0, 1))
    assert contract_violations(seq, TEXT) == [
        "token 1 't': start 1 < previous 2",
        "token 4 't': start 0 < previous 3"]
