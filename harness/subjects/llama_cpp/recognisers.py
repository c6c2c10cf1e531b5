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

from ...core.outcome import Crashed, Decoded
from ...judge.compare import Divergence
from ...judge.predicates import NONE, Context, Predicate
from ..transformers_js.recognisers.replay import replay_on, replaying, yes

#: What libstdc++ says when ``std::vector::at`` is out of range (llama.cpp's
#: ``cache_token_to_piece.at(token)``), and node is aborted by the uncaught exception.
_OUT_OF_RANGE: Final = re.compile(
    r"std::out_of_range'\s+what\(\):\s+vector::_M_range_check: __n \(which is (\d+)\) >= "
    r"this->size\(\) \(which is (\d+)\)")
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


RECOGNISERS: Final[dict[str, Predicate]] = {
    "decode_of_unknown_id_aborts": decode_of_unknown_id_aborts,
    "clean_spaces_pass": clean_spaces_pass,
    "leading_space_after_skipped_special": replaying(leading_space_after_skipped_special),
}
