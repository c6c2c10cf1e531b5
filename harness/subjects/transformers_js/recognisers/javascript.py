"""JavaScript semantics the subject inherits from its language: String.prototype.trim's
whitespace, the key order of an object parsed from JSON, its DictionarySplitter over the
added tokens (the text encoded section by section), and a WHATWG TextDecoder's reading of
byte-piece runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Crashed, Decoded, Encoded, Outcome, Refused
from .replay import (
    FRESH_ID,
    metaspace_first_as,
    model_of,
    normalized_by,
    replay_on,
    upstream_handle,
    with_input,
    with_model,
)

#: What JavaScript's String.prototype.trim removes (WhiteSpace and LineTerminator).
JS_WHITESPACE: Final = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
                         "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


_BYTE_PIECE_RUN: Final = re.compile(r"(?:<0x[0-9A-Fa-f]{2}>)+")


def byte_runs_as_text(document: dict[str, Any], obs: Observation
                       ) -> tuple[dict[str, Any], Observation]:
    """Each run of ids naming byte pieces (after the skipped specials are left out) read
    as one token: the run decoded as UTF-8 with one U+FFFD per maximal invalid
    subsequence (a WHATWG TextDecoder); upstream gives one U+FFFD per byte of a run
    that is not valid as a whole. The replay's vocabulary gains those tokens."""
    if not isinstance(obs.input, tuple):
        return document, obs
    vocab = dict(model_of(document).get("vocab") or {})
    by_id = {i: token for token, i in vocab.items() if isinstance(i, int)}
    specials = {e.get("id") for e in document.get("added_tokens") or ()
                if isinstance(e, dict) and e.get("special") is True}
    ids = [i for i in obs.input
           if not (obs.option("skip_special_tokens") and i in specials)]
    out: list[int] = []
    run: list[int] = []
    unreadable: list[str] = []
    earlier = _replaced_before_fallback(document)

    def flush() -> None:
        if run:
            text = _marked(bytes(run).decode("utf-8", errors="replace"), earlier)
            if text is None:
                unreadable.append("")
                return
            if text not in vocab:
                vocab[text] = FRESH_ID - 1 - len(vocab)
            out.append(vocab[text])
            run.clear()

    for token_id in ids:
        token = by_id.get(token_id)
        if token is not None and token_id not in specials and re.fullmatch(
                r"<0x[0-9A-Fa-f]{2}>", token):
            run.append(int(token[3:5], 16))
            continue
        flush()
        out.append(token_id)
    flush()
    if unreadable:
        return document, obs  # not expressible: the replay differs, the failure stays
    return with_model(document, vocab=vocab), with_input(obs, tuple(out))


#: Stand-ins for the patterns of Replace steps inside decoded byte runs (private use).
_PATTERN_MARKS: Final = tuple(chr(0xF0000 + k) for k in range(16))
#: Stand-in for the "<" of decoded text that spells a byte piece.
_BYTE_SHAPE_MARK: Final = chr(0xF00FF)


def _marked(text: str, patterns: Sequence[tuple[str, str]]) -> str | None:
    """``text`` with each String pattern of an earlier Replace step swapped for its
    stand-in (the subject's Replace saw byte pieces, not this text; ``marks_restored``
    swaps them back in the replayed answer); None where a Regex pattern may match it or
    there are too many patterns."""
    if len(patterns) > len(_PATTERN_MARKS):
        return None
    if re.fullmatch(r"<0x[0-9A-Fa-f]{2}>", text):
        # Decoded text spelling a byte piece: upstream's ByteFallback would decode it again.
        text = _BYTE_SHAPE_MARK + text[1:]
    for k, (kind, pattern) in enumerate(patterns):
        if kind == "Regex":
            try:
                if re.search(pattern, text):
                    return None
            except re.error:
                return None
        else:
            text = text.replace(pattern, _PATTERN_MARKS[k])
    return text


def marks_restored(document: dict[str, Any], obs: Observation, outcome: Outcome | None
                    ) -> Outcome | None:
    if not isinstance(outcome, Decoded):
        return outcome
    text = outcome.text.replace(_BYTE_SHAPE_MARK, "<")
    for k, (kind, pattern) in enumerate(_replaced_before_fallback(document)[:16]):
        if kind == "String":
            text = text.replace(_PATTERN_MARKS[k], pattern)
    return Decoded(text)


def _replaced_before_fallback(document: dict[str, Any]) -> list[tuple[str, str]]:
    """The patterns ("String" or "Regex", text) of the Replace steps before the
    ByteFallback step."""
    decoder = document.get("decoder")
    steps = decoder.get("decoders") if isinstance(decoder, dict) else None
    found: list[tuple[str, str]] = []
    for step in steps if isinstance(steps, list) else ():
        if not isinstance(step, dict) or step.get("type") == "ByteFallback":
            break
        pattern = step.get("pattern")
        if step.get("type") == "Replace" and isinstance(pattern, dict):
            for kind in ("String", "Regex"):
                if isinstance(pattern.get(kind), str) and pattern[kind]:
                    found.append((kind, pattern[kind]))
    return found


def js_key_order(mapping: dict[str, Any]) -> list[str]:
    """The keys as a JavaScript object parsed from JSON orders them: array-index keys
    ("0", "17": canonical, below 2**32 - 1) first, ascending, then the rest as written."""
    def index(key: str) -> int | None:
        if key == "0" or (key.isascii() and key.isdigit() and key[0] != "0"):
            return int(key) if int(key) < 2**32 - 1 else None
        return None

    indexed = sorted((k for k in mapping if index(k) is not None), key=int)
    return indexed + [k for k in mapping if index(k) is None]


def _has_added_tokens(document: dict[str, Any]) -> dict[str, Any] | None:
    return document if document.get("added_tokens") else None


def _js_split(text: str, contents: Sequence[str]) -> list[str]:
    """The subject's DictionarySplitter: leftmost-longest matches of ``contents``, each
    its own element, the text between them as elements (never empty)."""
    if not contents:
        return [text] if text else []
    pattern = re.compile("|".join(re.escape(c) for c in sorted(contents, key=len,
                                                                reverse=True)))
    parts: list[str] = []
    start = 0
    for found in pattern.finditer(text):
        if found.start() > start:
            parts.append(text[start:found.start()])
        parts.append(found.group())
        start = found.end()
    if start < len(text):
        parts.append(text[start:])
    return parts


def _js_trimmed(parts: list[str], added: dict[str, dict[str, Any]]) -> list[str]:
    """lstrip/rstrip as the subject applies them: an element naming an added token with
    lstrip trims the end of the element before it, rstrip the start of the one after."""
    parts = list(parts)
    for o, part in enumerate(parts):
        entry = added.get(part)
        if entry is None:
            continue
        if entry.get("lstrip") is True and o > 0:
            parts[o - 1] = parts[o - 1].rstrip(JS_WHITESPACE)
        if entry.get("rstrip") is True and o < len(parts) - 1:
            parts[o + 1] = parts[o + 1].lstrip(JS_WHITESPACE)
    return parts


def _normalizer_steps(step: Any) -> list[Any]:
    if isinstance(step, dict) and step.get("type") == "Sequence":
        return [s for child in step.get("normalizers") or () for s in _normalizer_steps(child)]
    return [step]


def prepends(document: dict[str, Any]) -> dict[str, Any] | None:
    """Documents whose normalizer has a Prepend step."""
    steps = _normalizer_steps(document.get("normalizer"))
    return document if any(isinstance(s, dict) and s.get("type") == "Prepend"
                           for s in steps) else None


def _js_normalized(document: dict[str, Any], text: str) -> str | None:
    """``text`` through the normalizer step by step as the subject runs it: upstream does
    each step but Prepend, which the subject applies to an empty text too."""
    for step in _normalizer_steps(document.get("normalizer")):
        if not isinstance(step, dict):
            return None
        if step.get("type") == "Prepend" and isinstance(step.get("prepend"), str):
            text = step["prepend"] + text
            continue
        handle = upstream_handle({**document, "normalizer": step, "added_tokens": []})
        if isinstance(handle, Refused | Crashed):
            return None
        normalized = normalized_by(handle, text)
        if normalized is None:
            return None
        text = normalized
    return text


def sectionable(document: dict[str, Any]) -> dict[str, Any] | None:
    return _has_added_tokens(document) or prepends(document)


def text_sections(document: dict[str, Any], obs: Observation) -> bool:
    """A text (or a pair of texts) to encode: what ``sectioned`` replays."""
    return isinstance(obs.input, str) and (obs.option("pair") is None
                                           or isinstance(obs.option("pair"), str))


_Body = tuple[list[int], list[str]]


def _section_body(document: dict[str, Any], handle: Any, text: str,
                  obs: Observation, prepend_on_empty: bool = False) -> _Body | None:
    """The ids and tokens of one text (no template) split the way the subject splits it:
    at the added tokens matched on the raw text (leftmost-longest), lstrip/rstrip trimming
    the neighbours; an element equal to any added token's content (or a normalized form)
    is that token; the others normalized, split at the normalized forms of the normalized
    added tokens the same way, and each remaining piece pre-tokenized with its element's
    index (Metaspace "first" prepends only in element 0) and run through upstream's model."""
    has_normalizer = handle.tokenizer.normalizer is not None
    entries = [e for e in document.get("added_tokens") or () if isinstance(e, dict)
               and isinstance(e.get("id"), int) and isinstance(e.get("content"), str)]
    added: dict[str, dict[str, Any]] = {}
    plain: list[str] = []
    forms: list[str] = []
    for entry in entries:
        added[entry["content"]] = entry
        if entry.get("normalized") is True and has_normalizer:
            form = normalized_by(handle, entry["content"])
            if form is None:
                return None
            forms.append(form)
            added[form] = entry
        else:
            plain.append(entry["content"])
    bare = {**document, "normalizer": None, "added_tokens": [], "post_processor": None}
    pre = document.get("pre_tokenizer")
    ids: list[int] = []
    tokens: list[str] = []
    for o, element in enumerate(_js_trimmed(_js_split(text, plain), added)):
        pieces: list[str]
        if not element:
            continue
        if element in added:
            pieces = [element]
        else:
            normalized = (_js_normalized(document, element) if prepend_on_empty
                          else normalized_by(handle, element))
            if normalized is None:
                return None
            pieces = _js_trimmed(_js_split(normalized, forms), added) if normalized else []
        scheme = "always" if o == 0 else "never"
        piece_document = {**bare, "pre_tokenizer": metaspace_first_as(pre, scheme)}
        for piece in pieces:
            if not piece:
                continue
            if piece in added:
                ids.append(added[piece]["id"])
                tokens.append(piece)
                continue
            part = replay_on(piece_document, Observation(
                obs.track, "encode", piece, (("add_special_tokens", False),),
                obs.subject, obs.upstream))
            if not isinstance(part, Encoded):
                return None
            ids.extend(part.ids)
            tokens.extend(part.tokens)
    return ids, tokens


def sectioned(document: dict[str, Any], obs: Observation, prepend_on_empty: bool = False
               ) -> Outcome | None:
    """``obs`` (a text or a pair) encoded the way the subject splits each text at added
    tokens (``_section_body``), upstream doing each piece's pre-tokenization and model;
    the template tokens around the bodies those of upstream's own answer, found by
    replacing, in that answer, the run of each text's own tokens by its sectioned body
    (the subject gives no offsets: spans are not compared)."""
    if not text_sections(document, obs):
        return None
    handle = upstream_handle(document)
    if isinstance(handle, Refused | Crashed):
        return None
    assert isinstance(obs.input, str)
    pair = obs.option("pair")
    texts = [obs.input] if pair is None else [obs.input, pair]
    bodies: list[_Body] = []
    lengths: list[int] = []
    for text in texts:
        body = _section_body(document, handle, text, obs, prepend_on_empty)
        alone = replay_on(document, Observation(
            obs.track, "encode", text, (("add_special_tokens", False),),
            obs.subject, obs.upstream))
        if body is None or not isinstance(alone, Encoded):
            return None
        bodies.append(body)
        lengths.append(len(alone.ids))
    whole = replay_on(document, obs)
    if not isinstance(whole, Encoded):
        return None
    inner = [i for i in range(len(whole.ids))
             if not (whole.special_mask[i] == 1 and whole.spans[i] == (0, 0))]
    if len(inner) != sum(lengths):
        return None
    # Where each text's run of tokens starts in upstream's answer, and its type id.
    owner: dict[int, int] = {}
    first: dict[int, int] = {}
    at = 0
    for t, length in enumerate(lengths):
        for i in inner[at:at + length]:
            owner[i] = t
        if length:
            first[inner[at]] = t
        at += length
    # A text upstream gives no token of: its body goes where the template puts it.
    empty = {t: _template_slot(document, obs, lengths, t) for t, length in enumerate(lengths)
             if not length and bodies[t][0]}
    if any(slot is None for slot in empty.values()):
        return None  # nowhere to put a body upstream has no token of
    ids: list[int] = []
    tokens: list[str] = []
    type_ids: list[int] = []

    def put(t: int, type_id: int) -> None:
        body_ids, body_tokens = bodies[t]
        ids.extend(body_ids)
        tokens.extend(body_tokens)
        type_ids.extend([type_id] * len(body_ids))

    for i in range(len(whole.ids) + 1):
        for t, slot in empty.items():
            if slot is not None and slot[0] == i:
                put(t, slot[1])
        if i == len(whole.ids):
            break
        if i not in owner:
            ids.append(whole.ids[i])
            tokens.append(whole.tokens[i])
            type_ids.append(whole.type_ids[i] if whole.type_ids else 0)
        elif i in first:
            put(first[i], whole.type_ids[i] if whole.type_ids else 0)
    return Encoded(ids=tuple(ids), tokens=tuple(tokens), spans=((0, 0),) * len(ids),
                   special_mask=(),
                   type_ids=tuple(type_ids) if whole.type_ids else (),
                   attention_mask=(1,) * len(ids))


def _template_slot(document: dict[str, Any], obs: Observation, lengths: Sequence[int],
                   text: int) -> tuple[int, int] | None:
    """Where text ``text``'s tokens start in upstream's answer and their type id, read from
    the document's TemplateProcessing (list form; its special tokens only where added) and
    the token count of each text; None where the post-processor is anything else."""
    post = document.get("post_processor")
    if post is None:
        return sum(lengths[:text]), 0 if text == 0 else 1
    if not isinstance(post, dict) or post.get("type") != "TemplateProcessing":
        return None
    specials_too = bool(obs.option("add_special_tokens"))
    template = post.get("single" if len(lengths) == 1 else "pair")
    specials = post.get("special_tokens")
    if not isinstance(template, list) or not isinstance(specials, dict):
        return None
    at = 0
    for piece in template:
        if not isinstance(piece, dict) or len(piece) != 1:
            return None
        (kind, body), = piece.items()
        if not isinstance(body, dict):
            return None
        if kind == "SpecialToken":
            entry = specials.get(body.get("id"))
            if not isinstance(entry, dict) or not isinstance(entry.get("ids"), list):
                return None
            at += len(entry["ids"]) if specials_too else 0
        elif kind == "Sequence" and body.get("id") in ("A", "B"):
            which = 0 if body["id"] == "A" else 1
            if which == text:
                type_id = body.get("type_id", 0)
                return at, type_id if isinstance(type_id, int) else 0
            if which < len(lengths):
                at += lengths[which]
        else:
            return None
    return None
