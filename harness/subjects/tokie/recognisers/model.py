"""tokie 0.1.4's reading of a BPE tokenizer.json, as its loader (``crates/tokie/src/hf.rs``)
does it, for the recognisers beside this module: which path loads the vocabulary (the
byte-level one when the merges are "topological", else the vocab-defined one), how each
vocabulary string becomes bytes on that path, and the table its encoders and decoder
index by position in the id-sorted vocabulary (not by id).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, Final, TypeVar

from ...transformers_js.recognisers.replay import model_of

#: GPT-2's non-printable bytes in the order their characters (U+0100...) stand for them.
_NON_PRINTABLE: Final = (*range(0, 33), *range(127, 161), 173)


T = TypeVar("T")


def per_document(function: Callable[[dict[str, Any]], T]) -> Callable[[dict[str, Any]], T]:
    """``function`` computed once per document object (a real file's vocabulary of 32,000
    entries and 58,000 merges is read again by every recogniser of every divergence)."""
    held: dict[int, tuple[dict[str, Any], T]] = {}

    @wraps(function)
    def once(document: dict[str, Any]) -> T:
        found = held.get(id(document))
        if found is None or found[0] is not document:
            if len(held) > 256:
                held.clear()
            found = (document, function(document))
            held[id(document)] = found
        return found[1]

    return once


def merge_sides(merge: Any) -> tuple[str, str] | None:
    if isinstance(merge, list) and len(merge) >= 2 and all(isinstance(s, str)
                                                           for s in merge[:2]):
        return merge[0], merge[1]
    if isinstance(merge, str):
        parts = merge.split(" ")
        return (parts[0], parts[1]) if len(parts) >= 2 else None
    return None


def _id(vocab: dict[str, Any], token: str) -> int:
    found = vocab.get(token)
    return found if isinstance(found, int) and found >= 0 else 0


@per_document
def topological(document: dict[str, Any]) -> bool:
    """hf.rs ``are_merges_topological``: merge N names only ids below the first merge's
    result id (256 without merges) plus N. True picks the byte-level path."""
    model = model_of(document)
    vocab, merges = model.get("vocab") or {}, model.get("merges") or []
    base = 256
    first = merge_sides(merges[0]) if merges else None
    if first is not None and isinstance(vocab.get(first[0] + first[1]), int):
        base = vocab[first[0] + first[1]]
    for index, merge in enumerate(merges):
        sides = merge_sides(merge)
        if sides is None:
            continue
        if max(_id(vocab, sides[0]), _id(vocab, sides[1])) >= base + index:
            return False
    return True


@per_document
def bytelevel_decoder(document: dict[str, Any]) -> bool:
    """hf.rs ``is_bytelevel_decoder``: a ByteLevel decoder (or one in a Sequence), or a
    ByteLevel step in a Sequence pre-tokenizer."""
    decoder = document.get("decoder")
    if isinstance(decoder, dict):
        if decoder.get("type") == "ByteLevel":
            return True
        if any(isinstance(d, dict) and d.get("type") == "ByteLevel"
               for d in decoder.get("decoders") or ()):
            return True
    pre = document.get("pre_tokenizer")
    return isinstance(pre, dict) and any(
        isinstance(p, dict) and p.get("type") == "ByteLevel"
        for p in pre.get("pretokenizers") or ())


def bytelevel_bytes(token: str) -> bytes:
    """hf.rs ``decode_bytelevel_token``: a character below 256 is that byte, U+0100... the
    non-printable bytes in GPT-2's order, anything else its UTF-8."""
    out = bytearray()
    for char in token:
        code = ord(char)
        if 256 <= code < 256 + len(_NON_PRINTABLE):
            out.append(_NON_PRINTABLE[code - 256])
        elif code <= 255:
            out.append(code)
        else:
            out.extend(char.encode("utf-8", errors="surrogatepass"))
    return bytes(out)


def _piece_byte(token: str) -> int | None:
    if len(token) == 6 and token.startswith("<0x") and token.endswith(">"):
        try:
            return int(token[3:5], 16)
        except ValueError:
            return None
    return None


def token_bytes(document: dict[str, Any], token: str) -> bytes:
    """The bytes tokie reads a vocabulary string as, on the path it loads the file by."""
    if topological(document) or bytelevel_decoder(document):
        return bytelevel_bytes(token)
    byte = _piece_byte(token)
    return bytes([byte]) if byte is not None else token.encode("utf-8", "surrogatepass")


@per_document
def positions(document: dict[str, Any]) -> list[str]:
    """The vocabulary sorted by id (strings of one id by their order as keys: serde_json's
    map is sorted): tokie's table, indexed by position."""
    vocab = model_of(document).get("vocab") or {}
    return [token for token, _ in sorted(
        ((t, i if isinstance(i, int) and i >= 0 else 0) for t, i in vocab.items()),
        key=lambda item: (item[1], item[0].encode("utf-8", "surrogatepass")))]


def _pre_types(document: dict[str, Any]) -> list[Any]:
    pre = document.get("pre_tokenizer")
    top = [pre.get("type")] if isinstance(pre, dict) else []
    inner = [p.get("type") for p in (pre.get("pretokenizers") or ()) if isinstance(p, dict)] \
        if isinstance(pre, dict) else []
    return top + inner


@per_document
def detected_normalizer(document: dict[str, Any]) -> str:
    """hf.rs ``detect_normalizer``: the normalizer tokie picks from the file's normalizer
    and pre-tokenizer (a Metaspace pre-tokenizer one way or another, mostly)."""
    metaspace = "Metaspace" in _pre_types(document)
    whitespace = "WhitespaceSplit" in _pre_types(document)
    normalizer = document.get("normalizer")
    if not isinstance(normalizer, dict):
        return "Metaspace" if metaspace else "None"
    kind = normalizer.get("type")
    if kind == "Precompiled" and metaspace:
        return "SentencePiece"
    if kind in ("BertNormalizer", "NFC"):
        return str(kind)
    if kind == "Sequence":
        steps = [n for n in normalizer.get("normalizers") or () if isinstance(n, dict)]
        kinds = [n.get("type") for n in steps]
        if "Precompiled" in kinds and metaspace:
            return "SentencePiece"
        if any(n.get("type") == "Prepend" and n.get("prepend") == "\u2581" for n in steps) \
                and any(_replaces_space(n) for n in steps):
            return "Metaspace"
        for found in kinds:
            if found in ("NFC", "BertNormalizer"):
                return str(found)
    if kind == "Lowercase":
        return "SentencePieceLowercase" if metaspace and whitespace else "BertNormalizer"
    if kind == "Replace" and _replaces_space(normalizer):
        return "MetaspaceReplace"
    return "Metaspace" if metaspace else "None"


@per_document
def pretokenizer_type(document: dict[str, Any]) -> str:
    """hf.rs ``detect_pretokenizer_type`` and ``apply_regex_fallback``, coarsely: "None"
    where tokie has no pre-tokenizer at all (it then normalizes and encodes each segment
    between added tokens whole), "regex" where it splits by the file's Split patterns,
    else the family it picks ("Gpt2", "Cl100k", ...: a ByteLevel step)."""
    pre = document.get("pre_tokenizer")
    if not isinstance(pre, dict):
        return "None"
    kind = pre.get("type")
    if kind == "ByteLevel":
        return "Gpt2"
    if kind == "Sequence":
        steps = [p for p in pre.get("pretokenizers") or () if isinstance(p, dict)]
        if any(p.get("type") == "ByteLevel" for p in steps):
            if any(p.get("type") == "Split" and isinstance(p.get("pattern"), dict)
                   and isinstance(p["pattern"].get("Regex"), str) for p in steps):
                return "ByteLevel-family"  # a family by its regex, or the regex itself
            return "SmolLM" if any(p.get("type") == "Digits" for p in steps) else "Gpt2"
        if any(p.get("type") == "Split" and isinstance(p.get("pattern"), dict)
               and isinstance(p["pattern"].get("Regex"), str) for p in steps):
            return "regex"
        return "None"
    if kind == "Split" and isinstance(pre.get("pattern"), dict) \
            and isinstance(pre["pattern"].get("Regex"), str):
        return "regex"
    return "None"


def _replaces_space(step: dict[str, Any]) -> bool:
    pattern = step.get("pattern")
    return step.get("type") == "Replace" and isinstance(pattern, dict) and \
        pattern.get("String") == " " and step.get("content") == "\u2581"


@per_document
def sentencepiece_encoder(document: dict[str, Any]) -> bool:
    """tokie loads the file with its SentencePiece encoder (and decodes as Metaspace):
    the vocab-defined path with a Metaspace normalizer detected."""
    return not topological(document) and detected_normalizer(document) in (
        "Metaspace", "MetaspaceReplace")


@per_document
def backtracking_on_vocab(document: dict[str, Any]) -> bool:
    """tokie loads the file on its vocab-defined path with its backtracking encoder: no
    Metaspace normalizer detected (its SentencePiece encoder) and no ByteLevel decoder (its
    simple encoder): hf.rs ``load_vocab_defined_bpe``."""
    return not topological(document) and not sentencepiece_encoder(document) \
        and not bytelevel_decoder(document)


#: What ``decoded`` gives where tokie's Metaspace decode meets a token whose bytes are not
#: UTF-8 (its decode is then None): bytes that are not UTF-8 either.
NOT_UTF8: Final = b"\xff"


def decoded(document: dict[str, Any], ids: tuple[int, ...]) -> bytes | None:
    """tokie's decode, as bytes: the token at each id's position, concatenated (none of
    the file's decoders run); with its SentencePiece encoder, its Metaspace decode
    instead (its post-processor's ids skipped, each token's bytes UTF-8 or the whole
    decode None, ``▁`` as a space, one leading space removed). None where an id is past
    the table (tokie panics); ``NOT_UTF8`` where a SentencePiece token is not UTF-8 (its
    decode reads the ids in turn: a token that is not UTF-8 before an id past the table
    ends the decode as None, measured, where it would have panicked)."""
    table = positions(document)
    if not sentencepiece_encoder(document):
        if any(not 0 <= i < len(table) for i in ids):
            return None
        return b"".join(token_bytes(document, table[i]) for i in ids)
    skipped = special_ids(document)
    text = ""
    for i in ids:  # one id at a time: a token that is not UTF-8 ends it before a later id
        if i in skipped:
            continue
        if not 0 <= i < len(table):
            return None
        try:
            text += token_bytes(document, table[i]).decode("utf-8").replace("\u2581", " ")
        except UnicodeDecodeError:
            return NOT_UTF8
    return text.removeprefix(" ").encode("utf-8")


#: The names tokie 0.1.4 recognises in a template, measured from hf.rs
#: (parse_template_post_processor): a [CLS]/[SEP] pair, or a BOS by one of three names.
_BERT: Final = ("[CLS]", "[SEP]")
_BOS: Final = ("<|begin_of_text|>", "<s>", "<bos>")


def _special_id(document: dict[str, Any], name: str) -> int | None:
    for entry in document.get("added_tokens") or ():
        if isinstance(entry, dict) and entry.get("content") == name:
            found = entry.get("id")
            return found if isinstance(found, int) else None
    vocab = model_of(document).get("vocab")
    found = vocab.get(name) if isinstance(vocab, dict) else None
    return found if isinstance(found, int) else None


def template_parts(post: Any) -> list[Any] | None:
    if not isinstance(post, dict):
        return None
    if post.get("type") == "TemplateProcessing":
        single = post.get("single")
        return single if isinstance(single, list) else None
    if post.get("type") == "Sequence":
        for step in post.get("processors") or ():
            if isinstance(step, dict) and step.get("type") == "TemplateProcessing":
                return template_parts(step)
    return None


def _piece(name: str | None, type_id: int) -> dict[str, Any]:
    if name is None:
        return {"Sequence": {"id": "A" if type_id == 0 else "B", "type_id": type_id}}
    return {"SpecialToken": {"id": name, "type_id": type_id}}


@per_document
def template(document: dict[str, Any]) -> dict[str, Any] | None:
    """tokie's post-processor, as a TemplateProcessing (None: it has none): the single
    template is searched for [CLS] and [SEP]
    (then "[CLS] $A [SEP]", pair "[CLS] $A [SEP] $B:1 [SEP]:1") or a BOS named
    <|begin_of_text|>, <s> or <bos> (then "BOS $A", pair "BOS $A BOS:1 $B:1"), each id
    looked up among the added tokens, then the vocabulary; any other template is no
    post-processor. The pair template of the file is never read."""
    single = template_parts(document.get("post_processor")) or []
    named = {}
    for item in single:
        token = item.get("SpecialToken") if isinstance(item, dict) else None
        if isinstance(token, dict) and isinstance(token.get("id"), str):
            found = _special_id(document, token["id"])
            if found is not None:
                named[token["id"]] = found
    if all(name in named for name in _BERT):
        one = [_piece("[CLS]", 0), _piece(None, 0), _piece("[SEP]", 0)]
        two = [*one, _piece(None, 1), _piece("[SEP]", 1)]
        used = list(_BERT)
    else:
        bos = [name for name in _BOS if name in named]
        if not bos:
            return None
        one = [_piece(bos[-1], 0), _piece(None, 0)]
        two = [*one, _piece(bos[-1], 1), _piece(None, 1)]
        used = [bos[-1]]
    return {"type": "TemplateProcessing", "single": one, "pair": two,
            "special_tokens": {name: {"id": name, "ids": [named[name]], "tokens": [name]}
                               for name in used}}


@per_document
def special_ids(document: dict[str, Any]) -> set[int]:
    """The ids of tokie's post-processor (its special-tokens mask, its decode skips)."""
    found = template(document) if template_parts(document.get("post_processor")) else None
    if found is None:
        return set()
    return {i for entry in found["special_tokens"].values() for i in entry["ids"]}



