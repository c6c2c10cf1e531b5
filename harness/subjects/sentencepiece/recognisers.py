"""The recognisers of sentencepiece's expectations (``expectations.yaml`` beside this
module). A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the
expectations parser; nothing in ``harness/judge/`` imports it. *Subject* is spm running
the converted model (``convert.py``, decision 0040), *upstream* is ``tokenizers``. Each
says yes only when both answers are exactly what the mechanism gives: upstream's answer
replayed on the document changed the way spm reads it, or each side's decoded text
rebuilt from the ids by that side's rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from ...core.outcome import Decoded, Encoded
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..transformers_js.recognisers.replay import replay_on, replaying, same_tiers, yes

_BYTE: Final = re.compile(r"^<0x([0-9A-F]{2})>$")


def nul_piece_unused(ctx: Context, div: Divergence) -> frozenset[int]:
    """spm never produces a piece holding U+0000 (it falls back to ``<0x00>``): upstream
    replayed on the document without those pieces gives exactly the subject's answer, and
    upstream's own answer holds such a piece."""
    obs = div.observation
    if obs.operation != "encode" or not isinstance(obs.input, str) or "\0" not in obs.input:
        return NONE
    if not isinstance(obs.upstream, Encoded) or not any("\0" in t for t in
                                                         obs.upstream.tokens):
        return NONE
    document = ctx.case.document
    model = dict(document["model"])
    model["vocab"] = {p: i for p, i in model["vocab"].items() if "\0" not in p}
    return yes(same_tiers(obs.subject, replay_on({**document, "model": model}, obs)))


def _pieces(ctx: Context, ids: Sequence[int], skip: bool) -> list[str] | None:
    """Each id's piece (an added token's content first); None for an id of neither."""
    added = {e.get("id"): e for e in ctx.doc.added_tokens}
    vocab = {i: p for p, i in ctx.doc.vocab.items()}
    out: list[str] = []
    for i in ids:
        entry = added.get(i)
        if entry is not None and skip and entry.get("special"):
            continue
        piece = entry.get("content") if entry is not None else vocab.get(i)
        if not isinstance(piece, str):
            return None
        out.append(piece)
    return out


def _rebuilt(pieces: list[str], bytes_run: Callable[[bytes], str], strip: bool) -> str:
    """The decoded text: ▁ as a space, each run of byte pieces by ``bytes_run``, the
    other pieces as they are, one leading space stripped where the decoder strips it."""
    text: list[str] = []
    run = bytearray()
    for piece in pieces:
        byte = _BYTE.match(piece)
        if byte is not None:
            run.append(int(byte.group(1), 16))
            continue
        if run:
            text.append(bytes_run(bytes(run)))
            run.clear()
        text.append(piece.replace("\u2581", " "))
    if run:
        text.append(bytes_run(bytes(run)))
    joined = "".join(text)
    return joined[1:] if strip and joined.startswith(" ") else joined


def _per_byte(run: bytes) -> str:
    try:
        return run.decode("utf-8")
    except UnicodeDecodeError:
        return "\ufffd" * len(run)


def invalid_byte_run_kept_in_part(ctx: Context, div: Divergence) -> frozenset[int]:
    """A run of byte pieces that is not UTF-8 as a whole: upstream's ByteFallback decoder
    gives one U+FFFD per byte of the run, spm decodes the run replacing only its invalid
    parts (valid characters inside it kept). Both texts are rebuilt from the ids, each by
    its side's rule, and must equal what each side gave."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    if not (isinstance(subject, Decoded) and isinstance(upstream, Decoded)):
        return NONE
    pieces = _pieces(ctx, obs.input, bool(obs.option("skip_special_tokens")))
    if pieces is None:
        return NONE
    strip = "Strip" in ctx.doc.step_types("decoder")
    spm = _rebuilt(pieces, lambda run: run.decode("utf-8", "replace"), strip)
    theirs = _rebuilt(pieces, _per_byte, strip)
    return yes(spm != theirs and subject.text == spm and upstream.text == theirs)


RECOGNISERS: Final[dict[str, Predicate]] = {
    "nul_piece_unused": replaying(nul_piece_unused),
    "invalid_byte_run_kept_in_part": invalid_byte_run_kept_in_part,
}
