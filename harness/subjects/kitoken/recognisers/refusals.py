"""kitoken's refusals and crashes (``recognisers/__init__.py`` holds its readings): each
recognised by the document really holding what kitoken names, the helpers on a
document's components shared with the readings.
"""

from __future__ import annotations

import re
from typing import Any, Final

from ....core.observation import Observation
from ....core.outcome import Crashed, Decoded, Encoded, Loaded, Refused
from ....judge.compare import Divergence
from ....judge.predicates import NONE, Context, Predicate
from ...transformers_js.recognisers.replay import document_ids, model_of, yes

_UNK_NOT_SPECIAL: Final = re.compile(r'^invalid data: Unknown token "(.*)" not found in '
                                     r"specials$", re.S)
_BYTE_PIECE: Final = re.compile(r"^<0x([0-9A-Fa-f]{2})>$")
_INVALID_TOKEN: Final = re.compile(r"^invalid token (\d+)$")


def unk_not_an_added_token_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """kitoken refuses a file whose ``model.unk_token`` is not also an added token
    ("Unknown token ... not found in specials"); upstream takes it from the vocabulary.
    Checked: the token kitoken names is the model's unk token and no added token."""
    obs = div.observation
    if obs.operation != "load" or not isinstance(obs.subject, Refused):
        return NONE
    named = _UNK_NOT_SPECIAL.match(obs.subject.message)
    if named is None or named.group(1) != ctx.doc.unk_token:
        return NONE
    added = {entry.get("content") for entry in ctx.doc.added_tokens
             if isinstance(entry, dict)}
    return yes(named.group(1) not in added)


_UNKNOWN_NORMALIZER: Final = re.compile(
    r"invalid data: failed to parse tokenizers definition: unknown variant `(\w+)`, "
    r"expected one of `BertNormalizer`, ")


def normalizer_variant_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """kitoken refuses a file with a normalizer type its definitions name otherwise
    ("unknown variant `Strip`, expected one of `BertNormalizer`, `StripNormalizer`, ...":
    upstream writes and reads the Strip normalizer as ``Strip``). Checked: upstream loaded,
    and the variant kitoken names is the type of the document's normalizer or of one of
    its Sequence steps."""
    obs = div.observation
    if (obs.operation != "load" or not isinstance(obs.subject, Refused)
            or not isinstance(obs.upstream, Loaded)):
        return NONE
    named = _UNKNOWN_NORMALIZER.match(obs.subject.message)
    return yes(named is not None
               and named.group(1) in _types(ctx.doc.raw.get("normalizer"), "normalizers"))


def _refused_id(obs: Observation) -> int | None:
    """The id of kitoken's "invalid token N" refusal of a decode upstream answered."""
    if not (obs.operation == "decode" and isinstance(obs.subject, Refused)
            and isinstance(obs.upstream, Decoded) and isinstance(obs.input, tuple)):
        return None
    named = _INVALID_TOKEN.match(obs.subject.message)
    if named is None or int(named.group(1)) not in obs.input:
        return None
    return int(named.group(1))


def decode_unknown_id_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decode of an id no token of the document has: kitoken refuses it ("invalid
    token N"), upstream skips it. Checked: N is in the request and in neither the
    vocabulary nor the added tokens."""
    refused = _refused_id(div.observation)
    return yes(refused is not None and refused not in document_ids(ctx.doc.raw))


def _token_bytes(token: str) -> bytes:
    piece = _BYTE_PIECE.match(token)
    return bytes([int(piece.group(1), 16)]) if piece else token.encode("utf-8")


def decode_shadowed_byte_piece_refused(ctx: Context, div: Divergence) -> frozenset[int]:
    """A decode of a byte piece's id (``<0x2F>``) where the vocabulary also has the token
    of that byte (``/``): kitoken keys its vocabulary by bytes, keeps one of the two and
    refuses the other's id ("invalid token N"); upstream decodes it. Checked: N is the
    id of a byte piece of the vocabulary and another entry has the same bytes."""
    refused = _refused_id(div.observation)
    if refused is None:
        return NONE
    strings = {i: s for s, i in ctx.doc.vocab.items() if isinstance(i, int)}
    token = strings.get(refused)
    if token is None or not _BYTE_PIECE.match(token):
        return NONE
    return yes(any(_token_bytes(other) == _token_bytes(token)
                   for other in ctx.doc.vocab if other != token))


_OUT_OF_VOCABULARY: Final = re.compile(r"^Token `(.*)` out of vocabulary(?: at line \d+ "
                                       r"column \d+)?$", re.S)


def merge_out_of_vocabulary_loaded(ctx: Context, div: Divergence) -> frozenset[int]:
    """Upstream refuses a BPE file whose merges name a token the vocabulary lacks ("Token
    `X` out of vocabulary"); kitoken ranks its merges from the vocabulary and loads it.
    Checked: kitoken loaded, and X is a side or the join of a merge the file lists and no
    vocabulary entry."""
    obs = div.observation
    if (obs.operation != "load" or not isinstance(obs.subject, Loaded)
            or not isinstance(obs.upstream, Refused)):
        return NONE
    named = _OUT_OF_VOCABULARY.match(obs.upstream.message)
    model = model_of(ctx.doc.raw)
    vocab = model.get("vocab")
    if named is None or model.get("type") != "BPE" or not isinstance(vocab, dict) or \
            named.group(1) in vocab:
        return NONE
    return yes(any(named.group(1) in (sides[0], sides[1], sides[0] + sides[1])
                   for m in model.get("merges") or () if (sides := _merge_sides(m))))


def _byte_level_without_pre_tokenizer(component: str, steps: str) -> Predicate:
    """kitoken refuses a ByteLevel ``component`` (post-processor, decoder) unless a
    ByteLevel pre-tokenizer came before it ("unsupported configuration: ByteLevel
    post-processor without ByteLevel pre-tokenizer"); upstream loads the file. Checked:
    upstream loaded, kitoken names that component, the document's component is ByteLevel
    (or a Sequence holding one) and no pre-tokenizer step is."""
    message = (f"unsupported configuration: ByteLevel {component.replace('_', '-')} "
               "without ByteLevel pre-tokenizer")

    def recognise(ctx: Context, div: Divergence) -> frozenset[int]:
        obs = div.observation
        if (obs.operation != "load" or not isinstance(obs.subject, Refused)
                or not isinstance(obs.upstream, Loaded) or obs.subject.message != message):
            return NONE
        return yes("ByteLevel" in _types(ctx.doc.raw.get(component), steps)
                   and "ByteLevel" not in _types(ctx.doc.raw.get("pre_tokenizer"),
                                                 "pretokenizers"))

    return recognise


byte_level_post_processor_refused = _byte_level_without_pre_tokenizer("post_processor",
                                                                      "processors")
byte_level_post_processor_refused.__name__ = "byte_level_post_processor_refused"
byte_level_decoder_refused = _byte_level_without_pre_tokenizer("decoder", "decoders")
byte_level_decoder_refused.__name__ = "byte_level_decoder_refused"


_NOT_A_CHAR_BOUNDARY: Final = re.compile(
    r"panicked at [^:]+:\d+:\d+: (?:end |start )?byte index \d+ is not a char boundary; "
    r"it is inside '(.)' \(bytes \d+\.\.\d+ of string\)", re.S)


def one_char_split_panics(ctx: Context, div: Divergence) -> frozenset[int]:
    """kitoken turns a Split whose String pattern is one character into a character
    pattern that steps one byte past a match: on a character of several bytes its encode
    panics ("byte index 1 is not a char boundary; it is inside 'д'"), which ends the
    process. Checked: the subject died with that panic, upstream encoded, and the character
    named is the whole String pattern of a Split step and longer than one byte in UTF-8."""
    obs = div.observation
    if (obs.operation != "encode" or not isinstance(obs.subject, Crashed)
            or obs.subject.kind != "died" or not isinstance(obs.upstream, Encoded)):
        return NONE
    named = _NOT_A_CHAR_BOUNDARY.search(obs.subject.message)
    if named is None or len(named.group(1).encode("utf-8")) < 2:
        return NONE
    return yes(named.group(1) in ctx.doc.split_patterns("String"))


def _merge_sides(merge: Any) -> tuple[str, str] | None:
    if isinstance(merge, str):
        parts = merge.split(" ", 1)
        return (parts[0], parts[1]) if len(parts) == 2 else None
    if isinstance(merge, list) and len(merge) == 2 and all(isinstance(s, str) for s in merge):
        return merge[0], merge[1]
    return None


def _types(step: Any, steps: str = "decoders") -> list[str]:
    """The types of a component, a Sequence's steps (listed under ``steps``) in its place."""
    if not isinstance(step, dict):
        return []
    inner = step.get(steps)
    if step.get("type") == "Sequence" and isinstance(inner, list):
        return [t for s in inner for t in _types(s, steps)]
    return [str(step.get("type"))]
