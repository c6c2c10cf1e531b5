"""The recognisers of llama.cpp's expectations (``expectations.yaml`` beside this module).
A plugin of the judge (decision 0034): the run hands ``RECOGNISERS`` to the expectations
parser; nothing in ``harness/judge/`` imports it. *Subject* is llama.cpp (node-llama-cpp)
running the GGUF that ``convert.py`` wrote, *upstream* is ``tokenizers``. Each says yes
only when the subject's answer is exactly what the mechanism gives: upstream replayed on
the document changed the way llama.cpp reads it, upstream's text put through llama.cpp's
own detokenizer step (rebuilt from its source), or a crash naming exactly the id the
input holds.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Final

from ...core.outcome import Crashed, Decoded, Encoded
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..sentencepiece.recognisers import _per_byte, _rebuilt
from ..transformers_js.recognisers.replay import replay_on, replaying, yes

#: What libstdc++ says when ``std::vector::at`` is out of range (llama.cpp's
#: ``cache_token_to_piece.at(token)``), and node is aborted by the uncaught exception.
_OUT_OF_RANGE: Final = re.compile(
    r"std::out_of_range'\s+what\(\):\s+vector::_M_range_check: __n \(which is (\d+)\) >= "
    r"this->size\(\) \(which is (\d+)\)")
SPACE: Final = "\u2581"
_STRIP: Final = {"type": "Strip", "content": " ", "start": 1, "stop": 0}


def _vocabulary_size(ctx: Context) -> int:
    """The GGUF's number of tokens: every id of the document, none missing (convert.py
    refuses holes), so one past the largest."""
    ids = [i for i in ctx.doc.vocab.values() if isinstance(i, int)]
    ids += [e["id"] for e in ctx.doc.added_tokens if isinstance(e.get("id"), int)]
    return max(ids) + 1


def decode_of_unknown_id_aborts(ctx: Context, div: Divergence) -> frozenset[int]:
    """Decoding an id past the vocabulary kills the process: ``token_to_piece`` reads
    ``cache_token_to_piece.at(id)`` with no check (node-llama-cpp passes the ids as they
    are) and the ``std::out_of_range`` is never caught. Yes when the crash names exactly
    the first such id of the input and the GGUF's size."""
    obs = div.observation
    subject = obs.subject
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    if not isinstance(subject, Crashed) or subject.kind != "died":
        return NONE
    found = _OUT_OF_RANGE.search(subject.message)
    size = _vocabulary_size(ctx)
    beyond = [i for i in obs.input if i >= size]
    return yes(found is not None and bool(beyond) and int(found.group(1)) == beyond[0]
               and int(found.group(2)) == size)


def cleaned_spaces(text: str) -> str:
    """llama.cpp's ``clean_spaces`` passes of ``llama_vocab::impl::detokenize`` (on the
    characters: each pass looks at ASCII only): a space before ``?!.,`` removed; a lone
    apostrophe between spaces loses both spaces; a space before ``'s``, ``'m``, ``'re``,
    ``'ve`` removed."""
    chars = list(text)
    out = chars[:1]
    for i in range(1, len(chars)):
        if chars[i - 1] == " " and chars[i] in "?!.,":
            out.pop()
        out.append(chars[i])
    chars, out = out, out[:1]
    i = 1
    while i < len(chars):
        x = chars[i]
        if x == "'" and i + 1 < len(chars) and chars[i - 1] == " " and chars[i + 1] == " ":
            out.pop()
            chars[i + 1] = "\0"
            out.append(x)
            i += 1
            continue
        out.append(x)
        i += 1
    chars, out = out, out[:1]
    for i in range(1, len(chars)):
        x = chars[i]
        if chars[i - 1] == " " and x == "'" and i + 1 < len(chars):
            x1 = chars[i + 1]
            if x1 in "sm" or (i + 2 < len(chars) and x1 + chars[i + 2] in ("re", "ve")):
                out.pop()
        out.append(x)
    return "".join(out)


def clean_spaces_pass(ctx: Context, div: Divergence) -> frozenset[int]:
    """llama.cpp's byte-level detokenizer (``gpt-2``, ``llama-bpe``) cleans up spaces the
    way transformers' ``clean_up_tokenization_spaces`` does, and a GGUF has no key to turn
    it off: yes when upstream's decoded text put through those passes (rebuilt from
    llama.cpp's source) is exactly the subject's, and differs from upstream's."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if obs.operation != "decode" or "ByteLevel" not in ctx.doc.step_types("pre_tokenizer"):
        return NONE
    if not (isinstance(subject, Decoded) and isinstance(upstream, Decoded)):
        return NONE
    cleaned = cleaned_spaces(upstream.text)
    return yes(cleaned != upstream.text and subject.text == cleaned)


def _without_strip(decoder: Any) -> Any:
    steps = decoder.get("decoders") if isinstance(decoder, dict) else None
    if not isinstance(steps, list) or not steps or steps[-1] != _STRIP:
        return None
    return {**decoder, "decoders": steps[:-1]}


def leading_space_after_skipped_special(ctx: Context, div: Divergence) -> frozenset[int]:
    """llama.cpp strips the dummy prefix's space from the first id's piece only
    (``remove_space`` is spent on the first token, even one that renders empty), where
    upstream's ``Strip`` decoder strips the first character of the text left after the
    special tokens were skipped: with a special token first and skipped, llama.cpp keeps
    the space. Yes when upstream replayed with the decoder's ``Strip`` removed gives exactly
    the subject's text."""
    obs = div.observation
    if obs.operation != "decode" or not isinstance(obs.input, tuple) or not obs.input:
        return NONE
    if not (isinstance(obs.subject, Decoded) and obs.option("skip_special_tokens")):
        return NONE
    specials = {e.get("id") for e in ctx.doc.added_tokens if e.get("special")}
    decoder = _without_strip(ctx.case.document.get("decoder"))
    if obs.input[0] not in specials or decoder is None:
        return NONE
    replayed = replay_on({**ctx.case.document, "decoder": decoder}, obs)
    return yes(isinstance(replayed, Decoded) and replayed.text == obs.subject.text)


def unknown_piece_skipped(ctx: Context, div: Divergence) -> frozenset[int]:
    """The SentencePiece vocabulary's unknown piece is a token of type UNKNOWN, which
    llama.cpp's detokenizer skips like a control token when it does not render specials;
    upstream skips only special *added* tokens, and the model's unk token is none. Yes
    when upstream replayed on the ids without the unk's gives exactly the subject's
    text."""
    obs = div.observation
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    if not (isinstance(obs.subject, Decoded) and obs.option("skip_special_tokens")):
        return NONE
    model = ctx.case.document.get("model") or {}
    unk = ctx.doc.vocab.get(model.get("unk_token")) if isinstance(
        model.get("unk_token"), str) else None
    if unk is None or unk not in obs.input or "ByteLevel" in ctx.doc.step_types(
            "pre_tokenizer") or any(e.get("id") == unk for e in ctx.doc.added_tokens):
        return NONE
    without = dataclasses.replace(obs, input=tuple(i for i in obs.input if i != unk))
    replayed = replay_on(ctx.case.document, without)
    return yes(isinstance(replayed, Decoded) and replayed.text == obs.subject.text)


_BYTE: Final = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")


def score_greedy_merges(document: dict[str, Any]) -> list[list[str]] | None:
    """The merge list under which upstream's merge-list BPE is llama.cpp's SentencePiece
    BPE on the GGUF's scores (``convert.py``): every split of every piece into two pieces
    (or characters), the pieces in score order (minus the rank of the first merge making
    it, then the pieces no merge makes, by id), each piece's own merges first. None where
    the document has no such reading (a part not in the vocabulary)."""
    model = document.get("model") or {}
    vocab: dict[str, int] = model.get("vocab") or {}
    added = {e.get("content") for e in document.get("added_tokens") or []}
    merges = [m.split(" ", 1) if isinstance(m, str) else list(m)
              for m in model.get("merges") or [] if not (isinstance(m, str)
                                                          and m.startswith("#version"))]
    first: dict[str, int] = {}
    own: dict[str, list[list[str]]] = {}
    for rank, (left, right) in enumerate(merges):
        first.setdefault(left + right, rank)
        own.setdefault(left + right, []).append([left, right])
    total = len(merges)
    ordered = sorted((p for p in vocab if len(p) > 1 and p not in added
                      and not _BYTE.match(p)),
                     key=lambda p: first.get(p, total + vocab[p]))
    out: list[list[str]] = []
    for piece in ordered:
        pairs = list(own.get(piece, []))
        for i in range(1, len(piece)):
            pair = [piece[:i], piece[i:]]
            if pair in pairs:
                continue
            if pair[0] in vocab and pair[1] in vocab:
                pairs.append(pair)
        out += pairs
    return out


def score_greedy_encoding(ctx: Context, div: Divergence) -> frozenset[int]:
    """llama.cpp's SentencePiece tokenizer merges the adjacent pair whose concatenation is
    the best-scored piece, any piece (one no merge makes too, with the lowest scores),
    where upstream applies its merge list by rank. Yes when upstream replayed on the
    document whose merges are that greedy's (``score_greedy_merges``) gives exactly the
    subject's ids."""
    obs = div.observation
    if obs.operation != "encode" or not isinstance(obs.subject, Encoded):
        return NONE
    if "ByteLevel" in ctx.doc.step_types("pre_tokenizer"):
        return NONE
    merges = score_greedy_merges(ctx.case.document)
    if merges is None:
        return NONE
    model = {**ctx.case.document["model"], "merges": merges, "ignore_merges": False}
    replayed = replay_on({**ctx.case.document, "model": model}, obs)
    return yes(isinstance(replayed, Encoded) and replayed.ids == obs.subject.ids)


def _spm_pieces(ctx: Context, ids: tuple[int, ...], skip: bool, *, unk_skipped: bool
                ) -> list[str] | None:
    """Each id's piece (an added token's content first), the special added tokens left
    out with ``skip`` (and the unk id with ``unk_skipped``); None for an id of neither."""
    added = {e.get("id"): e for e in ctx.doc.added_tokens}
    vocab = {i: p for p, i in ctx.doc.vocab.items()}
    model = ctx.case.document.get("model") or {}
    unk = ctx.doc.vocab.get(model.get("unk_token")) if isinstance(
        model.get("unk_token"), str) else None
    out: list[str] = []
    for i in ids:
        entry = added.get(i)
        if skip and ((entry is not None and entry.get("special")) or (
                unk_skipped and i == unk)):
            continue
        piece = entry.get("content") if entry is not None else vocab.get(i)
        if not isinstance(piece, str):
            return None
        out.append(piece)
    return out


def invalid_byte_run_kept_in_part(ctx: Context, div: Divergence) -> frozenset[int]:
    """llama.cpp's detokenizer gives the bytes of the byte pieces as they are and
    node-llama-cpp decodes the whole as UTF-8 replacing only its ill-formed parts; upstream's
    ByteFallback decoder gives one U+FFFD per byte of a run of byte pieces that is not
    UTF-8 as a whole. Both texts are rebuilt from the ids, each by its side's rule, and must
    equal what each side gave."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    if not (isinstance(subject, Decoded) and isinstance(upstream, Decoded)):
        return NONE
    if "ByteLevel" in ctx.doc.step_types("pre_tokenizer"):
        return NONE
    skip = bool(obs.option("skip_special_tokens"))
    theirs_pieces = _spm_pieces(ctx, obs.input, skip, unk_skipped=False)
    ours_pieces = _spm_pieces(ctx, obs.input, skip, unk_skipped=True)
    if theirs_pieces is None or ours_pieces is None:
        return NONE
    strip = "Strip" in ctx.doc.step_types("decoder")
    ours = _rebuilt(ours_pieces, lambda run: run.decode("utf-8", "replace"), strip)
    theirs = _rebuilt(theirs_pieces, _per_byte, strip)
    replaced = _rebuilt(ours_pieces, _per_byte, strip)
    return yes(ours != replaced and subject.text == ours and upstream.text == theirs)


_KEPT: Final = "\ue000"


def user_defined_verbatim(ctx: Context, div: Divergence) -> frozenset[int]:
    """A non-special added token is a USER_DEFINED token in the GGUF, and llama.cpp's
    token_to_piece copies its text as it is; upstream's decoder runs on it like on any
    token (its Replace turns ▁ into a space). Both texts are rebuilt from the ids, the
    user-defined pieces kept verbatim on the subject's side, and must equal what each side
    gave (and differ: the input holds such a token with ▁)."""
    obs = div.observation
    subject, upstream = obs.subject, obs.upstream
    if obs.operation != "decode" or not isinstance(obs.input, tuple):
        return NONE
    if not (isinstance(subject, Decoded) and isinstance(upstream, Decoded)):
        return NONE
    if "ByteLevel" in ctx.doc.step_types("pre_tokenizer") or any(
            _KEPT in str(e.get("content")) for e in ctx.doc.added_tokens):
        return NONE
    skip = bool(obs.option("skip_special_tokens"))
    pieces = _spm_pieces(ctx, obs.input, skip, unk_skipped=False)
    if pieces is None:
        return NONE
    user = {e.get("content") for e in ctx.doc.added_tokens if not e.get("special")}
    kept = [p.replace(SPACE, _KEPT) if p in user else p for p in pieces]
    strip = "Strip" in ctx.doc.step_types("decoder")
    ours = _rebuilt(kept, _per_byte, strip).replace(_KEPT, SPACE)
    theirs = _rebuilt(pieces, _per_byte, strip)
    return yes(ours != theirs and subject.text == ours and upstream.text == theirs)


RECOGNISERS: Final[dict[str, Predicate]] = {
    "decode_of_unknown_id_aborts": decode_of_unknown_id_aborts,
    "clean_spaces_pass": clean_spaces_pass,
    "leading_space_after_skipped_special": replaying(leading_space_after_skipped_special),
    "unknown_piece_skipped": replaying(unknown_piece_skipped),
    "score_greedy_encoding": replaying(score_greedy_encoding),
    "invalid_byte_run_kept_in_part": invalid_byte_run_kept_in_part,
    "user_defined_verbatim": user_defined_verbatim,
}
