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

import re
from typing import Any, Final

from ...core.outcome import Crashed, Decoded, Encoded
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..sentencepiece.recognisers import _per_byte
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
    """llama.cpp's ``clean_spaces`` passes of ``llama_vocab::impl::detokenize``, in place
    over one buffer as the C++ does (each pass reads characters an earlier write of the same
    pass may have moved): a space before ``?!.,`` removed; a lone apostrophe between spaces
    loses both spaces; a space before ``'s``, ``'m``, ``'re``, ``'ve`` removed. On the
    characters (every test is of ASCII)."""
    buf = list(text)
    total1 = len(buf)  # first pass
    total = 1 if total1 else 0
    for i in range(1, total1):
        x = buf[i]
        if buf[i - 1] == " " and x in "?!.,":
            total -= 1
        buf[total] = x
        total += 1
    total2, total = total, (1 if total else 0)  # second pass
    i = 1
    while i < total2:
        x = buf[i]
        if x == "'" and i + 1 < total2 and buf[i - 1] == " " and buf[i + 1] == " ":
            total -= 1
            i += 1
            buf[i] = "\0"
        buf[total] = x
        total += 1
        i += 1
    total3, total = total, (1 if total else 0)  # third pass
    for i in range(1, total3):
        x = buf[i]
        if buf[i - 1] == " " and x == "'" and i + 1 < total3:
            x1 = buf[i + 1]
            if x1 in "sm" or (i + 2 < total3 and x1 + buf[i + 2] in ("re", "ve")):
                total -= 1
        buf[total] = x
        total += 1
    return "".join(buf[:total])


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


_BYTE: Final = re.compile(r"^<0x[0-9A-Fa-f]{2}>$")
_BYTE_PIECE: Final = re.compile(r"^<0x([0-9A-F]{2})>$")


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


#: The ways llama.cpp's SentencePiece detokenizer differs from upstream's decoder
#: ``Replace(▁, " "), ByteFallback, Fuse[, Strip(1, 0)]``, one flag each.
LSTRIP_FIRST_TOKEN: Final = "lstrip-first-token"
UNK_SKIPPED: Final = "unk-skipped"
BYTES_WHOLE: Final = "bytes-whole"
USER_VERBATIM: Final = "user-verbatim"
CONTROL_BY_TEXT: Final = "control-by-text"
MECHANISMS: Final = frozenset({LSTRIP_FIRST_TOKEN, UNK_SKIPPED, BYTES_WHOLE, USER_VERBATIM,
                               CONTROL_BY_TEXT})
#: Token texts llama.cpp's vocabulary loader takes for end-of-turn, fill-in-the-middle and
#: end-of-generation tokens and makes CONTROL whatever the GGUF says ("control-looking
#: token ... its type will be overridden"), each measured with node-llama-cpp 3.21.1 (a
#: NORMAL token of that text is dropped by ``detokenize(ids, false)``; ``<foo>`` is not).
CONTROL_LOOKING: Final = frozenset({
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<EOT>",
    "_<EOT>", "<｜end▁of▁sentence｜>", "<|eom_id|>", "<|fim_prefix|>", "<fim-prefix>",
    "<｜fim▁begin｜>", "<PRE>", "<|fim_suffix|>", "<fim-suffix>", "<｜fim▁hole｜>", "<SUF>",
    "<|fim_middle|>", "<fim-middle>", "<｜fim▁end｜>", "<MID>", "<|fim_pad|>", "<fim-pad>",
    "<PAD>", "<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<|file_sep|>",
    "</s>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_utterance>",
    "<|end_of_text|>", "<eos>", "[EOS]"})


def spm_detokenized(ctx: Context, ids: tuple[int, ...], skip: bool,
                    mechanisms: frozenset[str]) -> str | None:
    """The text of ``ids`` under upstream's SentencePiece decoder (no ``mechanisms``) or
    llama.cpp's detokenizer (all of them, from ``llama_vocab::impl::detokenize``):
    ``lstrip-first-token``: the dummy prefix's space is stripped from the first id's piece
    (a skipped one spends it), not from the text; ``unk-skipped``: the unk piece (type
    UNKNOWN) is skipped with the specials; ``bytes-whole``: byte pieces are raw bytes and
    the whole text is decoded as UTF-8 replacing only ill-formed parts, not one U+FFFD per
    byte of a run that is not UTF-8; ``user-verbatim``: an added token's text (USER_DEFINED,
    or CONTROL when specials are rendered) is copied as it is; ``control-by-text``: a
    token whose text is in ``CONTROL_LOOKING`` is CONTROL, skipped with the specials.
    None for an id the document does not have."""
    added = {e.get("id"): e for e in ctx.doc.added_tokens}
    vocab = {i: p for p, i in ctx.doc.vocab.items()}
    model = ctx.case.document.get("model") or {}
    unk_token = model.get("unk_token")
    unk = ctx.doc.vocab.get(unk_token) if isinstance(unk_token, str) else None
    strip = "Strip" in ctx.doc.step_types("decoder")
    parts: list[bytes | str] = []  # str: a run of byte pieces' bytes, decoded below
    run = bytearray()
    first = True
    for i in ids:
        entry = added.get(i)
        text_of = entry.get("content") if entry is not None else vocab.get(i)
        skipped = skip and ((entry is not None and bool(entry.get("special"))) or (
            UNK_SKIPPED in mechanisms and i == unk and entry is None) or (
            CONTROL_BY_TEXT in mechanisms and text_of in CONTROL_LOOKING))
        lstrip = first and strip and LSTRIP_FIRST_TOKEN in mechanisms
        if skipped:
            if LSTRIP_FIRST_TOKEN in mechanisms:
                first = False
            continue
        first = False
        piece = entry.get("content") if entry is not None else vocab.get(i)
        if not isinstance(piece, str):
            return None
        byte = _BYTE_PIECE.match(piece) if entry is None else None
        if byte is not None:
            run.append(int(byte.group(1), 16))
            if lstrip and run == bytearray(b" "):
                run.clear()
            continue
        if run:
            parts.append(bytes(run).decode("latin-1"))
            run.clear()
        verbatim = entry is not None and USER_VERBATIM in mechanisms
        text = piece if verbatim else piece.replace(SPACE, " ")
        if lstrip and text.startswith(" "):
            text = text[1:]
        parts.append(text.encode("utf-8", "surrogatepass"))
    if run:
        parts.append(bytes(run).decode("latin-1"))
    if BYTES_WHOLE in mechanisms:
        whole = b"".join(p.encode("latin-1") if isinstance(p, str) else p for p in parts)
        out = whole.decode("utf-8", "replace")
    else:
        out = "".join(_per_byte(p.encode("latin-1")) if isinstance(p, str) else
                      p.decode("utf-8", "surrogatepass") for p in parts)
    if strip and LSTRIP_FIRST_TOKEN not in mechanisms and out.startswith(" "):
        out = out[1:]
    return out


def _spm_mechanism(mechanism: str) -> Predicate:
    """A recogniser of one of ``MECHANISMS``: upstream's text is exactly the decoder's
    (no mechanism), the subject's exactly llama.cpp's (all of them), and without this
    mechanism the subject's text would not be made (it is at work in this decode)."""

    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        subject, upstream = obs.subject, obs.upstream
        if obs.operation != "decode" or not isinstance(obs.input, tuple):
            return NONE
        if not (isinstance(subject, Decoded) and isinstance(upstream, Decoded)):
            return NONE
        if "ByteLevel" in ctx.doc.step_types("pre_tokenizer"):
            return NONE
        skip = bool(obs.option("skip_special_tokens"))
        theirs = spm_detokenized(ctx, obs.input, skip, frozenset())
        ours = spm_detokenized(ctx, obs.input, skip, MECHANISMS)
        without = spm_detokenized(ctx, obs.input, skip, MECHANISMS - {mechanism})
        return yes(upstream.text == theirs and subject.text == ours and without != ours)

    recognise.__name__ = mechanism.replace("-", "_")
    return recognise


RECOGNISERS: Final[dict[str, Predicate]] = {
    "decode_of_unknown_id_aborts": decode_of_unknown_id_aborts,
    "clean_spaces_pass": clean_spaces_pass,
    "leading_space_after_skipped_special": _spm_mechanism(LSTRIP_FIRST_TOKEN),
    "unknown_piece_skipped": _spm_mechanism(UNK_SKIPPED),
    "score_greedy_encoding": replaying(score_greedy_encoding),
    "invalid_byte_run_kept_in_part": _spm_mechanism(BYTES_WHOLE),
    "user_defined_verbatim": _spm_mechanism(USER_VERBATIM),
    "control_looking_token_skipped": _spm_mechanism(CONTROL_BY_TEXT),
}
